"""``decide`` for every strategy, compiled once as a C-callable function.

The shared kernel of heron_sim.loop.kernels (every strategy set but greedy alone) calls its
strategies through this function's address, stored in the workspace (``w[DECIDE_FN]``),
instead of linking their code into each of the engine's functions: numba then compiles the
strategies once (here), and the engine's functions stay as small to compile as greedy's. The
price is one indirect call per decision: the arrays are rebuilt from their data pointers
without reference counting (``_view1``, ``_view2``; numba's ``carray`` needs it, and its calls into the
runtime made each decision ~15 % dearer for the expert).

Importing this module compiles it (or loads it from the disk cache); heron_sim.loop.kernels
imports it only when a run needs the shared kernel.
"""

from __future__ import annotations

from numba import cfunc, types
from numba.extending import intrinsic

from .. import _numba_cache as cache
from .dispatch import decide
from .plugins import _C_SIG


def _array_view(ndim):
    """An intrinsic ``(ptr, rows, cols) -> array`` over ``ptr`` (``ndim`` 1: ``rows`` items;
    2: ``rows`` x ``cols``, C order) that owns nothing (no meminfo): valid while the caller's
    array lives."""

    @intrinsic
    def view(typingctx, ptr, rows, cols):
        arrty = types.Array(ptr.dtype, ndim, "C")

        def codegen(context, builder, signature, args):
            data, n_rows, n_cols = args
            ary = context.make_array(arrty)(context, builder)
            isize = context.get_constant(
                types.intp, context.get_abi_sizeof(context.get_data_type(arrty.dtype)))
            if ndim == 1:
                shape, strides = [n_rows], [isize]
            else:
                shape, strides = [n_rows, n_cols], [builder.mul(n_cols, isize), isize]
            context.populate_array(ary, data=data, shape=shape, strides=strides, itemsize=isize,
                                   meminfo=None)
            return ary._getvalue()

        return arrty(ptr, rows, cols), codegen

    return view


_view1, _view2 = _array_view(1), _array_view(2)


@cfunc(_C_SIG, cache=cache.writable(), _nrt=False)
def decide_c(kind, seat, wp, wn, rp, rn, gp, spp, rows, cols):
    """heron_sim.strategies.dispatch.decide over the arrays' data pointers and lengths."""
    return decide(kind, seat, _view1(wp, wn, 0), _view1(rp, rn, 0), _view1(gp, 3, 0),
                  _view2(spp, rows, cols))


def address() -> int:
    """The address of :func:`decide_c` in this process."""
    return decide_c.address
