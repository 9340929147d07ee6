"""Seeded batches of Akeruption games collected into a tidy DataFrame (one row per game)."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..driver import Driver, Out, per_seat
from .engine import STRATEGIES, K_HOLDS, K_STOPS, K_TESTS, N_KCOUNT, N_META, M_BYPASSED, M_ERUPTIONS, \
    M_FLOWS, STRATEGY_ID, run_games
from .rules import MAX_PLAYERS, MIN_PLAYERS, WALLS, AkeruptionRules

_CHUNK = 2000
END_REASONS = ("none", "burnt", "pile")


def _kernel(arrays, seed, first, strat, out) -> None:
    params, critical, bonus, start_walls, tiles, res_w, fl = arrays
    run_games(seed, first, len(out["winner"]), strat, critical, bonus, start_walls, tiles, res_w, params, fl,
              out["winner"], out["length"], out["finished"], out["reason"], out["temps"], out["points"],
              out["kst"], out["built"], out["meta"])


def _columns(out, rules: AkeruptionRules, players: int) -> dict:
    kst, built, meta = out["kst"], out["built"], out["meta"]
    bonus = rules.wall_bonus
    cols = {"winners": co_winners(out["temps"], out["points"], out["finished"]),
            "end": np.array(END_REASONS, dtype=object)[out["reason"]],
            **per_seat("temp", out["temps"]), **per_seat("points", out["points"])}
    for k, kind in enumerate(WALLS):
        cols.update(per_seat(f"built_{kind}", built[:, :, k]))
    for k, kind in enumerate(WALLS):
        cols[f"tests_{kind}"] = kst[:, k, K_TESTS]
        cols[f"holds_{kind}"] = kst[:, k, K_HOLDS]
        cols[f"stops_{kind}"] = kst[:, k, K_STOPS]
        cols[f"bonus_{kind}"] = int(bonus[k])   # so the summary compares with the right exact rate
    cols["eruptions"] = meta[:, M_ERUPTIONS]
    cols["flows"] = meta[:, M_FLOWS]
    cols["bypassed"] = meta[:, M_BYPASSED]
    return cols


#: The driver (games.driver): the kernel's outputs, one row per game.
DRIVER = Driver(strategies=STRATEGIES, min_players=MIN_PLAYERS, max_players=MAX_PLAYERS,
                outputs={"winner": Out(np.int64), "length": Out(np.int64), "finished": Out(np.bool_),
                         "reason": Out(np.int64), "temps": Out(np.int64, ("P",)), "points": Out(np.int64, ("P",)),
                         "kst": Out(np.int64, (3, N_KCOUNT)), "built": Out(np.int64, ("P", 3)),
                         "meta": Out(np.int64, (N_META,))},
                prepare=lambda rules, players: rules.kernel_arrays(), kernel=_kernel, columns=_columns,
                ids={name: STRATEGY_ID[name] for name in STRATEGIES}, chunk=_CHUNK)


def simulate(rules: AkeruptionRules, games: int, players: int, seed: int,
             strategies: Sequence[str] | None = None,
             progress: Callable[[int], None] | None = None, first_game: int = 0) -> pd.DataFrame:
    """Play ``games`` games (indices ``first_game ..``) and return one row per game.

    Columns after the core ones (length in player turns): ``winners`` (bit mask of the seats
    tied for the win after the tie-break, 0 if unfinished; ``winner`` is -1 when it has several
    bits), ``end`` (burnt / pile / none),
    ``temp_<seat>`` (°C at the end), ``points_<seat>`` (tie-break points), ``built_<kind>_<seat>``,
    per wall kind ``tests_<kind>``, ``holds_<kind>`` (dice tests and walls that held) and
    ``stops_<kind>`` (times a wall of that kind stood against lava), ``bonus_<kind>`` (its die bonus), ``eruptions`` (new ones),
    ``flows`` (flows that entered a village), ``bypassed`` (walls on flows destroyed untested: the
    lava could reach their place from another side).
    """
    return DRIVER.simulate(rules, games, players, seed, strategies, progress, first_game)


def co_winners(temps: np.ndarray, points: np.ndarray, finished: np.ndarray) -> np.ndarray:
    """Bit mask of each game's co-winners: the coolest villages, then among them the most
    tie-break points (as the kernel's ``winner_of``); 0 for an unfinished game."""
    t = np.asarray(temps)
    cool = t == t.min(axis=1, keepdims=True)
    pts = np.where(cool, np.asarray(points), np.iinfo(np.int64).min)
    best = cool & (pts == pts.max(axis=1, keepdims=True))
    mask = (best.astype(np.int64) << np.arange(t.shape[1], dtype=np.int64)).sum(axis=1)
    return np.where(np.asarray(finished, bool), mask, 0).astype(np.int64)
