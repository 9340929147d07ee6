"""What Akeruption's ``simulate`` (its :func:`~heron_sim.games.declare.light_game` driver) calls
and collects: the kernel's outputs, its call, and the frame's columns, one row per game.

Columns after the core ones (length in player turns): ``winners`` (bit mask of the seats tied
for the win after the tie-break, 0 if unfinished; ``winner`` is -1 when it has several bits),
``end`` (burnt / pile / none), ``temp_<seat>`` (°C at the end), ``points_<seat>`` (tie-break
points), ``built_<kind>_<seat>``, per wall kind ``tests_<kind>``, ``holds_<kind>`` (dice tests
and walls that held) and ``stops_<kind>`` (times a wall of that kind stood against lava),
``bonus_<kind>`` (its die bonus), ``eruptions`` (new ones), ``flows`` (flows that entered a
village), ``bypassed`` (walls on flows destroyed untested: the lava could reach their place from
another side).
"""

from __future__ import annotations

import numpy as np

from ..driver import Out, per_seat
from .engine import K_HOLDS, K_STOPS, K_TESTS, N_KCOUNT, N_META, M_BYPASSED, M_ERUPTIONS, M_FLOWS, run_games
from .rules import WALLS, AkeruptionRules

#: Games per kernel call.
CHUNK = 2000
END_REASONS = ("none", "burnt", "pile")

#: The kernel's outputs, a row per game.
OUTPUTS = {"winner": Out(np.int64), "length": Out(np.int64), "finished": Out(np.bool_),
           "reason": Out(np.int64), "temps": Out(np.int64, ("P",)), "points": Out(np.int64, ("P",)),
           "kst": Out(np.int64, (3, N_KCOUNT)), "built": Out(np.int64, ("P", 3)),
           "meta": Out(np.int64, (N_META,))}


def prepare(rules: AkeruptionRules, players: int):
    """The kernel's arrays of the rules (the same at every player count)."""
    return rules.kernel_arrays()


def kernel(arrays, seed, first, strat, out) -> None:
    """Play the games ``first ..`` of ``seed`` into this slice of the outputs."""
    params, critical, bonus, start_walls, tiles, res_w, fl = arrays
    run_games(seed, first, len(out["winner"]), strat, critical, bonus, start_walls, tiles, res_w, params, fl,
              out["winner"], out["length"], out["finished"], out["reason"], out["temps"], out["points"],
              out["kst"], out["built"], out["meta"])


def columns(out, rules: AkeruptionRules, players: int) -> dict:
    """The game's columns, in the frame's order (see the module's doc)."""
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


def co_winners(temps: np.ndarray, points: np.ndarray, finished: np.ndarray) -> np.ndarray:
    """Bit mask of each game's co-winners: the coolest villages, then among them the most
    tie-break points (as the kernel's ``winner_of``); 0 for an unfinished game."""
    t = np.asarray(temps)
    cool = t == t.min(axis=1, keepdims=True)
    pts = np.where(cool, np.asarray(points), np.iinfo(np.int64).min)
    best = cool & (pts == pts.max(axis=1, keepdims=True))
    mask = (best.astype(np.int64) << np.arange(t.shape[1], dtype=np.int64)).sum(axis=1)
    return np.where(np.asarray(finished, bool), mask, 0).astype(np.int64)
