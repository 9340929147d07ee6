"""Drive the compiled engine with scripted dice and decisions (deterministic rule tests).

    res = play_script(rules, dice=[...], decisions=[...], positions=[...], guides=[...])
    res.positions, res.ready, res.guides, res.row["ponds"], ...
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..animals import animal_index
from ..strategies import REGISTRY, memo_words
from ..engine import layout as L
from .batch import play_scripted
from ..engine.pack import new_workspace, pack_rules
from ..engine.rng import new_state, stream_start


@dataclass
class ScriptResult:
    winner: int
    positions: list[int]
    guides: list[int]
    ready: list[int]
    skip: list[int]
    protected: list[int]
    bonus: list[int]
    row: dict[str, int]           # the game's counters (see heron_sim.engine.layout C_*)
    raw_row: np.ndarray
    dice_left: int                # scripted dice not consumed
    decisions_left: int           # scripted decisions not consumed
    faces: list[int]              # dice showing at the end of the last turn
    status: list[int]


def play_script(rules, *, dice=(), decisions=(), positions=None, guides=None, ready=None,
                skip=None, protected=None, bonus=None, strategies=None, first_seat=0, slots=1,
                seed=0) -> ScriptResult:
    """Play ``slots`` turn slots from ``first_seat`` with scripted dice (animals, by name or
    index) and scripted decisions for the seats whose strategy is ``scripted`` (default: seat
    ``first_seat`` scripted, the others greedy). Unscripted draws come from stream (seed, 0)."""
    P = rules.players
    if strategies is None:
        strategies = ["greedy"] * P
        strategies[first_seat] = "scripted"
    sids = np.array([REGISTRY[s].sid for s in strategies], dtype=np.int64)
    R = pack_rules(rules)
    rscript = np.array([animal_index(d, "dice") for d in dice], dtype=np.int64)
    w = new_workspace(R, sids, np.asarray(decisions, dtype=np.int64), rscript, memo=memo_words(R, sids))
    w[L.WINNER] = -1
    guides = list(range(P)) if guides is None else [animal_index(g, "guides") for g in guides]
    fields = ((L.POS, positions, 0), (L.GUIDE, guides, 0), (L.READY, ready, 1), (L.SKIP, skip, 0),
              (L.PROT, protected, 0), (L.BONUS, bonus, 0))
    for off, values, default in fields:
        for s in range(P):
            w[off + s] = default if values is None else int(values[s])
    rng = new_state()
    stream_start(seed, 0, rng)
    sp = np.zeros((P * len(rules.turn_rows()[0]), 4))  # a block of rows per set of rules by guide
    winner = int(play_scripted(first_seat, slots, w, R, rng, sp))
    row = w[w[L.ROW] : w[L.ROW] + L.n_columns(rules.finish)].copy()
    names = {k: getattr(L, k) for k in dir(L) if k.startswith("C_") and isinstance(getattr(L, k), int)}
    counters = {k[2:].lower(): int(row[v]) for k, v in names.items()}
    return ScriptResult(
        winner=winner,
        positions=[int(w[L.POS + s]) for s in range(P)],
        guides=[int(w[L.GUIDE + s]) for s in range(P)],
        ready=[int(w[L.READY + s]) for s in range(P)],
        skip=[int(w[L.SKIP + s]) for s in range(P)],
        protected=[int(w[L.PROT + s]) for s in range(P)],
        bonus=[int(w[L.BONUS + s]) for s in range(P)],
        row=counters,
        raw_row=row,
        dice_left=int(w[L.RSCRIPT_LEN] - w[L.RPTR]),
        decisions_left=int(w[L.DSCRIPT_LEN] - w[L.DPTR]),
        faces=[int(w[L.FACE + i]) for i in range(rules.n_dice)],
        status=[int(w[L.STATUS + i]) for i in range(rules.n_dice)],
    )
