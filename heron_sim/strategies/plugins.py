"""User strategies ("plug-ins"): a numba decision function of the user's own module, played
inside the compiled game loop.

A plug-in is a function with the engine's fixed signature::

    @numba.njit
    def my_decide(kind, seat, w, R, rng, sp) -> int: ...

(``kind`` a decision kind D_*, ``w`` the workspace and ``R`` the rules vector of
heron_sim.engine.layout, ``rng`` the game's stream, ``sp`` float64[players, k] the seats'
parameter rows; its own parameters are ``sp[seat, 1:]``). :func:`register_strategy` compiles a
C-callable wrapper of it (``numba.cfunc``) and records its address; the engine's dispatcher
(heron_sim.strategies.dispatch) reads the address from column 0 of the seat's row and calls it
directly. The engine itself is not recompiled and keeps its disk cache: registering costs one
compilation of the plug-in, and each decision one indirect call.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import cfunc, carray, types
from numba.core import cgutils
from numba.extending import intrinsic

_C_SIG = types.int64(
    types.int64, types.int64,
    types.CPointer(types.int64), types.int64,      # w, len(w)
    types.CPointer(types.int64), types.int64,      # R, len(R)
    types.CPointer(types.uint64),                  # rng state (3 words)
    types.CPointer(types.float64), types.int64, types.int64,  # sp, rows, columns
)


@intrinsic
def call_address(typingctx, addr, kind, seat, w, R, rng, sp):
    """Call the C function at ``addr`` (a wrapper made by :func:`compile_plugin`) with the
    decision's arguments (array data pointers and lengths)."""
    sig = types.int64(addr, kind, seat, w, R, rng, sp)

    def codegen(context, builder, signature, args):
        a_addr, a_kind, a_seat, a_w, a_R, a_rng, a_sp = args
        t_addr, t_kind, t_seat, t_w, t_R, t_rng, t_sp = signature.args
        i64 = ir.IntType(64)
        wa = context.make_array(t_w)(context, builder, a_w)
        ra = context.make_array(t_R)(context, builder, a_R)
        ga = context.make_array(t_rng)(context, builder, a_rng)
        sa = context.make_array(t_sp)(context, builder, a_sp)
        w_n = cgutils.unpack_tuple(builder, wa.shape)[0]
        r_n = cgutils.unpack_tuple(builder, ra.shape)[0]
        sp_shape = cgutils.unpack_tuple(builder, sa.shape)
        fnty = ir.FunctionType(i64, [i64, i64, wa.data.type, i64, ra.data.type, i64,
                                     ga.data.type, sa.data.type, i64, i64])
        fn = builder.inttoptr(context.cast(builder, a_addr, t_addr, types.int64), fnty.as_pointer())
        return builder.call(fn, [
            context.cast(builder, a_kind, t_kind, types.int64),
            context.cast(builder, a_seat, t_seat, types.int64),
            wa.data, w_n, ra.data, r_n, ga.data, sa.data, sp_shape[0], sp_shape[1],
        ])

    return sig, codegen


def compile_plugin(fn):
    """A ``numba.cfunc`` wrapper of the decision function ``fn`` (njit-compiled if needed)."""
    if not isinstance(fn, numba.core.registry.CPUDispatcher):
        fn = numba.njit(fn)

    @cfunc(_C_SIG)
    def wrapper(kind, seat, wp, wn, rp, rn, gp, spp, rows, cols):
        w = carray(wp, (wn,))
        R = carray(rp, (rn,))
        rng = carray(gp, (3,))
        sp = carray(spp, (rows, cols))
        return fn(kind, seat, w, R, rng, sp)

    return wrapper


def plugin_row(address: int, params: list[float]) -> np.ndarray:
    """A seat's parameter row for a plug-in: [address, params...]. Addresses of user space
    (< 2**53) are exact in float64."""
    if address >= 2**53:
        raise RuntimeError("plug-in address does not fit a float64")
    return np.array([float(address), *params], dtype=np.float64)
