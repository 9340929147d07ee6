"""Seeded batches of Akeruption games collected into a tidy DataFrame (one row per game)."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..base import core_frame, play_slices, seat_strategies
from .engine import STRATEGIES, K_HOLDS, K_STOPS, K_TESTS, N_KCOUNT, N_META, M_BYPASSED, M_ERUPTIONS, \
    M_FLOWS, STRATEGY_ID, run_games
from .rules import MAX_PLAYERS, MIN_PLAYERS, WALLS, AkeruptionRules

_CHUNK = 2000
END_REASONS = ("none", "burnt", "pile")


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
    ids = {name: STRATEGY_ID[name] for name in STRATEGIES}
    names, strat = seat_strategies(strategies, players, ids, MIN_PLAYERS, MAX_PLAYERS, games, seed, first_game)
    params, critical, bonus, start_walls, tiles, res_w, fl = rules.kernel_arrays()
    winner = np.empty(games, np.int64)
    length = np.empty(games, np.int64)
    finished = np.empty(games, np.bool_)
    reason = np.empty(games, np.int64)
    temps = np.empty((games, players), np.int64)
    points = np.empty((games, players), np.int64)
    kst = np.empty((games, 3, N_KCOUNT), np.int64)
    built = np.empty((games, players, 3), np.int64)
    meta = np.empty((games, N_META), np.int64)
    def play(a, b):
        run_games(seed, first_game + a, b - a, strat, critical, bonus, start_walls, tiles, res_w,
                  params, fl, winner[a:b], length[a:b], finished[a:b], reason[a:b], temps[a:b],
                  points[a:b], kst[a:b], built[a:b], meta[a:b])

    play_slices(games, _CHUNK, play, progress)
    df = core_frame(seed, first_game, players, names, winner, length, finished,
                    end=np.array(END_REASONS, dtype=object)[reason])
    df.insert(df.columns.get_loc("finished") + 1, "winners", co_winners(temps, points, finished))
    for p in range(players):
        df[f"temp_{p}"] = temps[:, p]
    for p in range(players):
        df[f"points_{p}"] = points[:, p]
    for k, kind in enumerate(WALLS):
        for p in range(players):
            df[f"built_{kind}_{p}"] = built[:, p, k]
    for k, kind in enumerate(WALLS):
        df[f"tests_{kind}"] = kst[:, k, K_TESTS]
        df[f"holds_{kind}"] = kst[:, k, K_HOLDS]
        df[f"stops_{kind}"] = kst[:, k, K_STOPS]
        df[f"bonus_{kind}"] = int(bonus[k])   # so the summary compares with the right exact rate
    df["eruptions"] = meta[:, M_ERUPTIONS]
    df["flows"] = meta[:, M_FLOWS]
    df["bypassed"] = meta[:, M_BYPASSED]
    return df


def co_winners(temps: np.ndarray, points: np.ndarray, finished: np.ndarray) -> np.ndarray:
    """Bit mask of each game's co-winners: the coolest villages, then among them the most
    tie-break points (as the kernel's ``winner_of``); 0 for an unfinished game."""
    t = np.asarray(temps)
    cool = t == t.min(axis=1, keepdims=True)
    pts = np.where(cool, np.asarray(points), np.iinfo(np.int64).min)
    best = cool & (pts == pts.max(axis=1, keepdims=True))
    mask = (best.astype(np.int64) << np.arange(t.shape[1], dtype=np.int64)).sum(axis=1)
    return np.where(np.asarray(finished, bool), mask, 0).astype(np.int64)
