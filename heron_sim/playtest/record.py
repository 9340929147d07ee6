"""Record every turn decision of simulated games (``simulate --log-turns``), any player, any rules.

The games are played by the engine's own kernel, every seat through a small recording plug-in
(heron_sim.strategies.plugins) that hands each decision to the seat's real strategy (the shared
C-callable ``decide`` of heron_sim.strategies.decide_c, the seat's id and parameter row put back
for the call) and writes the decision and the dice it was taken on into a buffer. A plug-in seat
plays the generic roll loop (heron_sim.loop.turn.roll_phase), which lays the dice out at every
decision point; the fused turns of greedy, the expert family and prudent play the same games
with the same draws (tests/test_human.py, tests/test_calibrate.py check it game by game), so the
logged games are the games ``simulate`` plays with the same seed.

The seat rows get ``EXTRA`` columns at their end: the row's own column 0 (the plug-in's address
takes its place), the seat's strategy id, the address of the strategies' ``decide``, the buffer's
address and its capacity in records. Nothing is read from the games but what a person at the
table sees: the guide, whether it is ready, the roll, the rolls left, the dice showing, the
choice made, and the table (every seat's square, guide, whether it is ready and whether its pawn is protected: what the chance
of winning of each option depends on, heron_sim.playtest.chances).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import cfunc, types
from numba.extending import intrinsic

from .. import _numba_cache as cache
from ..engine.jit import hot
from ..engine.layout import (
    ACTIVE, C_PLAYED, D_KEEP, EAGLE_DIE, EAGLE_FACES, FACE, FREE, FRESH, GUIDE, KEEP, MAX_DICE,
    MAX_EAGLE_DRAWS, NDICE, NOMINAL, PLAYERS, POS, PROT, READY, ROLL, ROLLS_LEFT, ROW, SID, STATUS,
)
from ..strategies.decide_c import _view1, _view2
from ..strategies.dispatch import ADDRESS_COLUMN
from ..strategies.plugins import _C_SIG, call_address

EXTRA = 5  # columns added at the end of every seat row (see the module's docstring)
# One record: int64 fields.
R_KIND, R_SEAT, R_RESULT, R_TURN, R_GUIDE, R_READY, R_ROLL, R_ROLLS_LEFT, R_NOMINAL, R_EAGLE_DIE = range(10)
R_EAGLE_FACES = 10                       # [MAX_EAGLE_DRAWS]
R_KEPT = R_EAGLE_FACES + MAX_EAGLE_DRAWS  # bit mask of the free dice kept (D_KEEP, reroll)
R_ACTIVE = R_KEPT + 1                    # the seat whose turn it is
R_FACE = R_ACTIVE + 1                    # [MAX_DICE]
R_STATUS = R_FACE + MAX_DICE             # [MAX_DICE]
R_FRESH = R_STATUS + MAX_DICE            # [MAX_DICE]
R_PLAYERS = R_FRESH + MAX_DICE           # the table's number of players
R_SQUARES = R_PLAYERS + 1                # [7] every seat's square (its pawn, before this turn moves it)
R_GUIDES = R_SQUARES + 7                 # [7] every seat's guide card
R_READIES = R_GUIDES + 7                 # [7] every seat's guide ready (1) or exhausted (0)
R_PROTS = R_READIES + 7                  # [7] every seat's pawn protected (1) or not
REC = R_PROTS + 7
HEAD = 2  # buffer[0]: records written; buffer[1]: 1 when a record did not fit


@intrinsic
def _int64_pointer(typingctx, addr):
    """The int64 pointer at integer address ``addr``."""
    sig = types.CPointer(types.int64)(addr)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(64).as_pointer())

    return sig, codegen


@hot
def _record(kind, seat, result, w, buf, cap):
    n = buf[0]
    if n >= cap:
        buf[1] = 1
        return
    buf[0] = n + 1
    o = HEAD + n * REC
    buf[o + R_KIND] = kind
    buf[o + R_SEAT] = seat
    buf[o + R_RESULT] = result
    buf[o + R_TURN] = w[w[ROW] + C_PLAYED]
    buf[o + R_GUIDE] = w[GUIDE + seat]
    buf[o + R_READY] = w[READY + seat]
    buf[o + R_ROLL] = w[ROLL]
    buf[o + R_ROLLS_LEFT] = w[ROLLS_LEFT]
    buf[o + R_NOMINAL] = w[NOMINAL]
    buf[o + R_EAGLE_DIE] = w[EAGLE_DIE]
    for k in range(MAX_EAGLE_DRAWS):
        buf[o + R_EAGLE_FACES + k] = w[EAGLE_FACES + k]
    mask = 0
    if kind == D_KEEP and result != 0:
        for i in range(w[NDICE]):
            if w[STATUS + i] == FREE and w[KEEP + i] != 0:
                mask |= 1 << i
    buf[o + R_KEPT] = mask
    buf[o + R_ACTIVE] = w[ACTIVE]
    buf[o + R_PLAYERS] = w[PLAYERS]
    for j in range(w[PLAYERS]):
        buf[o + R_SQUARES + j] = w[POS + j]
        buf[o + R_GUIDES + j] = w[GUIDE + j]
        buf[o + R_READIES + j] = 1 if w[READY + j] != 0 else 0
        buf[o + R_PROTS + j] = 1 if w[PROT + j] != 0 else 0
    for i in range(MAX_DICE):
        buf[o + R_FACE + i] = w[FACE + i]
        buf[o + R_STATUS + i] = w[STATUS + i]
        buf[o + R_FRESH + i] = w[FRESH + i]


@hot
def log_decide(kind, seat, w, R, rng, sp):
    """The seat's own decision (its id and row put back for the call), recorded."""
    c = sp.shape[1] - EXTRA
    own = sp[seat, ADDRESS_COLUMN]
    sp[seat, ADDRESS_COLUMN] = sp[seat, c]
    sid = w[SID + seat]
    w[SID + seat] = int(sp[seat, c + 1])
    out = call_address(int(sp[seat, c + 2]), kind, seat, w, R, rng, sp)
    w[SID + seat] = sid
    sp[seat, ADDRESS_COLUMN] = own
    cap = int(sp[seat, c + 4])
    buf = _view1(_int64_pointer(int(sp[seat, c + 3])), HEAD + cap * REC, 0)
    _record(kind, seat, out, w, buf, cap)
    return out


@cfunc(_C_SIG, cache=cache.writable(), _nrt=False)
def log_decide_c(kind, seat, wp, wn, rp, rn, gp, spp, rows, cols):
    return log_decide(kind, seat, _view1(wp, wn, 0), _view1(rp, rn, 0), _view1(gp, 3, 0),
                      _view2(spp, rows, cols))


def recording_rows(sids: np.ndarray, sp: np.ndarray, buf: np.ndarray, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """The plug-in ids and the widened rows that make every seat record into ``buf``.

    With rules by guide ``sp`` holds one block of ``len(sids)`` seat rows per set of a turn's
    rules (heron_sim.strategies.seat_arrays, heron_sim.loop.game.turn_rules): every row of every
    block is widened, each with its own seat's strategy id, so a turn records whichever block
    it reads."""
    from ..strategies import decide_c
    from ..strategies.dispatch import PLUGIN

    players = len(sids)
    rows, width = sp.shape
    if players == 0 or rows % players:
        raise ValueError(f"recording_rows: {rows} parameter rows for {players} seats")
    out = np.zeros((rows, width + EXTRA), dtype=np.float64)
    out[:, :width] = sp
    out[:, width] = sp[:, ADDRESS_COLUMN]
    out[:, width + 1] = np.tile(np.asarray(sids, dtype=np.float64), rows // players)
    out[:, width + 2] = float(decide_c.address())
    out[:, width + 3] = float(buf.ctypes.data)
    out[:, width + 4] = float(cap)
    out[:, ADDRESS_COLUMN] = float(log_decide_c.address)
    return np.full(players, PLUGIN, dtype=np.int64), out


def record_game(seed: int, game: int, R: np.ndarray, sids: np.ndarray, sp: np.ndarray, width: int,
                cap: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Play game ``game`` of stream ``seed`` recording every decision: (records int64[n, REC],
    the game's output row, as heron_sim.simulation.simulate's kernel writes it)."""
    from ..loop.batch import play_batch
    from ..loop.kernels import shared_kernel

    while True:
        buf = np.zeros(HEAD + cap * REC, dtype=np.int64)
        rsids, rsp = recording_rows(sids, sp, buf, cap)
        out = np.zeros((1, width), dtype=np.int64)
        with shared_kernel():
            play_batch(np.uint64(seed), game, R, rsids, rsp, out)
        if buf[1] == 0:
            n = int(buf[0])
            return buf[HEAD : HEAD + n * REC].reshape(n, REC).copy(), out[0]
        cap *= 4
