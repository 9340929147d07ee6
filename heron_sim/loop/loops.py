"""The batch kernels: games and single turns (one slice of them per call, without the GIL).

This module is a template: heron_sim.loop.kernels compiles a copy of it (with turn, game,
squares, moves and powers) per strategy set, whose ``decide`` only knows the strategies seated.
Call it through heron_sim.loop.batch, which picks (and builds once) the right copy.

Every game ``g`` starts its own random stream from ``(seed, first_game + g)`` and resets its
state, so a game's result does not depend on the thread that plays it nor on the batch split.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.jit import U

from ..rules.rules import P_FINISH, P_MAX_ROUNDS
from .game import play_game, play_rounds
from .moves import pond_pushback
from ..engine.layout import (
    DECIDE_FN, DSCRIPT, DSCRIPT_LEN, GUIDE, LEAD, NDICE, PLAYERS, R_NDICE, R_ROWS, READY, ROLL, ROW, RSCRIPT,
    RSCRIPT_LEN, SID, USED, C_SQUARES, HEADER, OUT_ANXIETY, OUT_POND, PATIENCE, PMEMO, PMEMO_LEN,
    FINL, LAND, LAND_SLOTS, LUCK, LUCK_COLUMNS, LUCK_OFF, LUCK_ROW, LUCK_WEIGHTS, LUCKW, MAX_SEATS, R_TSET,
)
from ..strategies.dispatch import workspace_words
from ..engine.rng import stream_start
from .turn import roll_phase, score_dice

@njit(cache=True)
def make_workspace(R, sids, decide_fn):
    """A fresh workspace for one worker (no scripts); see heron_sim.engine.layout.
    ``decide_fn``: the address of the strategies' ``decide`` (heron_sim.loop.kernels)."""
    finish = R[P_FINISH]
    ncols = C_SQUARES + finish
    size = HEADER + ncols + finish + 2 * (R[P_MAX_ROUNDS] + 1)
    memo = workspace_words(R, sids)  # the seated strategies' own words (``WORKSPACE_WORDS``)
    w = np.zeros(size + memo, dtype=np.int64)
    w[PMEMO] = size
    w[PMEMO_LEN] = memo
    w[PLAYERS] = sids.shape[0]
    w[NDICE] = R[R_NDICE]
    w[ROW] = HEADER
    w[USED] = HEADER + ncols
    w[LEAD] = HEADER + ncols + finish
    w[RSCRIPT] = w.shape[0]
    w[DSCRIPT] = w.shape[0]
    w[RSCRIPT_LEN] = 0
    w[DSCRIPT_LEN] = 0
    w[DECIDE_FN] = decide_fn
    w[PATIENCE] = -1
    for s in range(sids.shape[0]):
        w[U(SID + s)] = sids[s]
    return w


@njit(cache=True, nogil=True, error_model="numpy")
def play_batch(seed, first_game, R, sids, sp, out, decide_fn):
    """Play ``out.shape[0]`` games: game g uses the stream (seed, first_game + g) and fills
    row g of ``out`` (int64[games, n_columns(finish)]). Releases the GIL: heron_sim.loop.batch
    runs several calls at once on disjoint rows (no ``prange``: a parallel kernel costs seconds
    more to compile, and gives nothing a thread per slice of games does not).

    Luck (heron_sim.strategies.luck_turn): ``out`` has LUCK_COLUMNS more columns, and ``sp`` one
    more row than seats, the luck row (heron_sim.strategies.expert_luck.luck_row: column 0 holds
    the offset of its luck block); with rules by guide, one more row in each block of a turn's
    rules (heron_sim.loop.game.turn_rules), the luck row of that block's rules (every luck row's
    block at the same offset). Those columns get each seat's luck in units of 2**-LUCK_SHIFT
    squares, then each seat's LUCK_WEIGHTS weighted lucks (heron_sim.strategies.luck_weights), then
    each seat's LAND_SLOTS landing lucks (heron_sim.strategies.luck_turn.land_luck), then each
    seat's finish luck (the same function).
    The games are the same either way."""
    n_games = out.shape[0]
    width = out.shape[1]
    w = make_workspace(R, sids, decide_fn)
    rng = np.zeros(3, dtype=np.uint64)
    row = w[ROW]
    ncols = C_SQUARES + R[P_FINISH]
    sets = 1  # blocks of a turn's rules in sp (rules by guide: Rules.turn_rows)
    rows = R[R_ROWS]
    if rows != 0:
        for g in range(7):
            sets = max(sets, R[U(rows * (g + 1) + R_TSET)] + 1)
    luck = width >= ncols + LUCK_COLUMNS and sp.shape[0] == sets * (sids.shape[0] + 1)
    if luck:
        w[LUCK_ROW] = sids.shape[0] + 1  # the row after the seats' (of each block)
        w[LUCK_OFF] = int(sp[U(sp.shape[0] - 1), 0])
    if width > ncols:
        width = ncols
    for g in range(n_games):
        stream_start(seed, first_game + g, rng)
        play_game(w, R, rng, sp)
        for k in range(width):
            out[g, k] = w[U(row + k)]
        if luck:
            for s in range(MAX_SEATS):
                out[g, ncols + s] = w[U(LUCK + s)]
            for k in range(MAX_SEATS * LUCK_WEIGHTS):  # the weighted lucks (strategies.luck_weights)
                out[g, ncols + MAX_SEATS + k] = w[U(LUCKW + k)]
            for k in range(MAX_SEATS * LAND_SLOTS):  # the landing lucks (strategies.luck_turn.land_luck)
                out[g, ncols + MAX_SEATS * (1 + LUCK_WEIGHTS) + k] = w[U(LAND + k)]
            for s in range(MAX_SEATS):  # the finish lucks (strategies.luck_turn.land_luck)
                out[g, ncols + MAX_SEATS * (1 + LUCK_WEIGHTS + LAND_SLOTS) + s] = w[U(FINL + s)]


@njit(cache=True, nogil=True)
def play_turns(seed, first_turn, R, guide, sid, sp_row, out, decide_fn):
    """Single turns from a fresh turn state (guide ready, no board): turn t uses the stream
    (seed, first_turn + t). out[t] = (outcome, value, last roll): value is the Pond's push-back
    for OUT_POND, else the turn's advance (0 for an unrescued Anxiety). Releases the GIL."""
    n_turns = out.shape[0]
    players = 2  # a dummy opponent, for decisions that look at one
    sids = np.full(players, sid, dtype=np.int64)
    sp = np.zeros((players, sp_row.shape[0]), dtype=np.float64)
    for p in range(players):
        sp[U(p), :] = sp_row
    w = make_workspace(R, sids, decide_fn)
    rng = np.zeros(3, dtype=np.uint64)
    w[U(GUIDE + 1)] = 6 if guide != 6 else 5
    seat = sids[0] - sid  # 0, typed like a seat (not a literal: one compiled turn for all)
    rows = R[R_ROWS]
    if rows != 0:  # rules by guide: the guide's row (the caller passes the parameter row of its
        R = R[rows * (guide + 1): rows * (guide + 2)]  # tables); sliced here, not by the hot
                                                      # game.turn_rules: a hot function returns
                                                      # no reference this kernel may release
    for t in range(n_turns):
        stream_start(seed, first_turn + t, rng)
        w[GUIDE] = guide
        w[READY] = 1
        w[U(READY + 1)] = 1
        outcome, value = roll_phase(seat, w, R, rng, sp)
        if outcome != OUT_POND and outcome != OUT_ANXIETY:
            value = score_dice(seat, w, R, rng, sp)
        if outcome == OUT_POND:
            value = pond_pushback(R, value)
        out[t, 0] = outcome
        out[t, 1] = value
        out[t, 2] = w[ROLL]


@njit(cache=True)
def play_scripted(first_seat, max_slots, w, R, rng, sp, decide_fn):
    """Play from a prepared workspace (positions, guides, scripts set by the caller)."""
    w[DECIDE_FN] = decide_fn
    return play_rounds(first_seat, max_slots, w, R, rng, sp)
