"""Pack a :class:`~heron_sim.rules.Rules` and a seating into the engine's flat arrays."""

from __future__ import annotations

import numpy as np

from ..errors import RulesError
from ..rules.keys import X_KEYS
from . import layout as L


def pack_rules(rules) -> np.ndarray:
    """The rules vector ``R`` (int64) the kernels read; see heron_sim.engine.layout. With rules
    by guide (``rules.guides``), the rows of the game's rules and of each guide's holder's turn,
    one after the other (layout.R_ROWS)."""
    if not rules.guides:
        return _pack_row(rules)
    sets, set_of = rules.turn_rows()
    rows = [_pack_row(rules.guide_rules(-1))] + [_pack_row(rules.guide_rules(g)) for g in range(7)]
    for g in range(7):
        rows[g + 1][L.R_TSET] = set_of[g]
        rows[g + 1][L.R_ROWS] = -1  # a guide's row: a turn's rules under rules by guide (not sliced again)
    R = np.concatenate(rows)
    R[L.R_ROWS] = rows[0].size
    return R


def _pack_row(rules) -> np.ndarray:
    k = rules.to_kernel()
    n_dice, max_faces = k.faces.shape
    if n_dice > L.MAX_DICE or max_faces > L.MAX_FACES:
        raise RulesError(f"dice: at most {L.MAX_DICE} dice of at most {L.MAX_FACES} faces")
    if k.params.size > L.R_UNIFORM:
        # the scalars must end before the first derived slot, or a new rule key would silently
        # share its slot with R_UNIFORM (it once did: the Snake's cancel limit read the dice flag)
        raise AssertionError(f"{k.params.size} rule scalars overlap the rules vector's slot {L.R_UNIFORM}")
    R = np.zeros(L.rules_length(rules.finish), dtype=np.int64)
    R[: k.params.size] = k.params
    R[L.R_NDICE] = n_dice
    R[L.R_ADVANCE : L.R_ADVANCE + n_dice + 1] = k.combo_advance
    R[L.R_EFFECT : L.R_EFFECT + n_dice + 1] = k.combo_effect
    R[L.R_NFACES : L.R_NFACES + n_dice] = k.n_faces
    faces = np.full((L.MAX_DICE, L.MAX_FACES), -1, dtype=np.int64)
    faces[:n_dice, :max_faces] = k.faces
    R[L.R_FACES : L.R_FACES + faces.size] = faces.ravel()
    R[L.R_REJECT : L.R_REJECT + n_dice] = 65536 % k.n_faces
    for key in X_KEYS:  # the X block, in the order of the table of rules keys
        R[L.X_SLOT[key.name]] = int(getattr(rules, key.name))
    if rules.eagle_draws > L.MAX_EAGLE_DRAWS:
        raise RulesError(f"eagle_draws: {rules.eagle_draws}; allowed: 1..{L.MAX_EAGLE_DRAWS}")
    start = rules.seat_values("start_squares")
    extra = rules.seat_values("first_turn_extra_rolls")
    R[L.X_START : L.X_START + len(start)] = start
    R[L.X_EXTRA_ROLLS : L.X_EXTRA_ROLLS + len(extra)] = extra
    R[L.R_BOARD : L.R_BOARD + rules.finish] = k.board
    R[L.R_UNIFORM] = int(bool(np.all(k.faces == k.faces[0])) and bool(np.all(k.n_faces == k.n_faces[0])))
    return R


def new_workspace(R: np.ndarray, sids: np.ndarray, dscript=None, rscript=None, memo: int = 0) -> np.ndarray:
    """A workspace ``w`` for one worker: header offsets set, scripts copied in, then ``memo`` words
    for the seated strategies' own use (heron_sim.strategies.memo_words: what the kernels' workspace
    holds after its header, w[PMEMO], w[PMEMO_LEN])."""
    from ..rules.rules import P_FINISH, P_MAX_ROUNDS, P_PLAYERS

    dscript = np.zeros(0, np.int64) if dscript is None else np.asarray(dscript, dtype=np.int64)
    rscript = np.zeros(0, np.int64) if rscript is None else np.asarray(rscript, dtype=np.int64)
    finish, max_rounds = int(R[P_FINISH]), int(R[P_MAX_ROUNDS])
    w = np.zeros(L.workspace_length(finish, max_rounds, dscript.size + rscript.size) + memo, dtype=np.int64)
    init_workspace(w, R, sids)
    off = L.HEADER + L.n_columns(finish) + finish + 2 * (max_rounds + 1)
    w[L.RSCRIPT], w[L.RSCRIPT_LEN] = off, rscript.size
    w[off : off + rscript.size] = rscript
    off += rscript.size
    w[L.DSCRIPT], w[L.DSCRIPT_LEN] = off, dscript.size
    w[off : off + dscript.size] = dscript
    w[L.PMEMO], w[L.PMEMO_LEN] = off + dscript.size, memo
    assert int(R[P_PLAYERS]) == sids.size
    return w


def init_workspace(w, R, sids):
    """Header of a workspace without scripts (also done inside kernels, see batch.py)."""
    from ..rules.rules import P_FINISH, P_PLAYERS

    finish = int(R[P_FINISH])
    w[L.PLAYERS] = int(R[P_PLAYERS])
    w[L.NDICE] = int(R[L.R_NDICE])
    w[L.ROW] = L.HEADER
    w[L.USED] = L.HEADER + L.n_columns(finish)
    w[L.LEAD] = w[L.USED] + finish
    w[L.RSCRIPT] = w[L.DSCRIPT] = w.size
    w[L.RSCRIPT_LEN] = w[L.DSCRIPT_LEN] = 0
    w[L.PATIENCE] = -1
    for s in range(sids.size):
        w[L.SID + s] = int(sids[s])
