"""Counter-based random streams: one independent stream per (seed, game index).

Every game (or single turn) starts its own SplitMix64 stream from ``stream_start(seed, index)``,
so its draws depend on nothing but (seed, index): results are bit-identical whatever the number
of threads, the batch split or the machine. A stream's state is a ``uint64[3]`` array
``[counter, buffered 64-bit word, has-buffered-half flag]``; two dice are cut from one 64-bit
draw (32 bits each), with Lemire's rejection step so that every face is exactly equiprobable.

Never numba's global ``np.random`` here: it is not NumPy's generator and ignores NumPy seeding.
"""

from __future__ import annotations

import numpy as np
from .jit import hot, hot_inline

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_MASK32 = np.uint64(0xFFFFFFFF)
_MASK16 = np.uint64(0xFFFF)
_INDEX_KEY = np.uint64(0xD1B54A32D192ED03)
_S30, _S27, _S31, _S32, _S11, _S16 = (np.uint64(k) for k in (30, 27, 31, 32, 11, 16))
_ONE = np.uint64(1)
_TWO = np.uint64(2)
_FOUR = np.uint64(4)
_ZERO = np.uint64(0)


@hot
def mix64(z):
    """SplitMix64's finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@hot
def stream_start(seed, index, state):
    """Start in ``state`` (uint64[3]) the stream of draw-unit ``index`` under master ``seed``."""
    s = mix64(np.uint64(seed) + _GOLDEN)
    state[0] = mix64(s ^ (np.uint64(index) * _INDEX_KEY + _GOLDEN))
    state[1] = _ZERO
    state[2] = _ZERO


@hot
def next_u64(state):
    state[0] += _GOLDEN
    return mix64(state[0])


@hot
def _next_u32(state):
    if state[2] != _ZERO:
        state[2] = _ZERO
        return state[1] >> _S32
    x = next_u64(state)
    state[1] = x
    state[2] = _ONE
    return x & _MASK32


@hot
def below(state, n):
    """An integer uniform on 0..n-1 (exactly: Lemire's multiply with rejection), 1 <= n < 2**32."""
    nn = np.uint64(n)
    m = _next_u32(state) * nn
    low = m & _MASK32
    if low < nn:
        threshold = ((_MASK32 + _ONE) - nn) % nn
        while low < threshold:
            m = _next_u32(state) * nn
            low = m & _MASK32
    return np.int64(m >> _S32)


@hot_inline
def next_draw(s):
    """The stream's next 64-bit draw from its counter ``s``: (counter after, draw)."""
    s += _GOLDEN
    return s, mix64(s)


@hot_inline
def chunk_product(bits, j, faces):
    """Lemire's product of 16-bit chunk ``j`` (0-3) of the draw ``bits`` by ``faces``, as
    :func:`draw_index` forms it: the face index is its high 16 bits (:func:`chunk_face`), and the
    chunk is rejected where its low 16 bits are below ``65536 mod faces`` (:func:`accepted`)."""
    return ((bits >> np.uint64(16 * j)) & _MASK16) * faces


@hot_inline
def accepted(m, reject):
    return (m & _MASK16) >= reject


@hot_inline
def chunk_face(m):
    return np.int64(m >> _S16)


@hot
def draw_index(faces, reject, s, bits, chunks):
    """One die's face index, uniform on 0..faces-1: the next 16-bit chunk of the buffered
    64-bit draw ``bits`` (``chunks`` left; a new draw of the stream counter ``s`` when none),
    by Lemire's multiply-and-shift, rejecting chunks whose low product is below ``reject``
    (``65536 mod faces``) so that every face is exactly equiprobable. Every roll of the engine
    cuts its dice this way (four dice a draw, unused chunks dropped at the end of the roll).
    Returns (index, s, bits, chunks); the caller stores ``s`` back in ``state[0]``."""
    while True:
        if chunks == 0:
            s, bits = next_draw(s)
            chunks = 4
        m = chunk_product(bits, 0, faces)
        bits = bits >> _S16
        chunks -= 1
        if accepted(m, reject):
            return chunk_face(m), s, bits, chunks


@hot
def uniform(state):
    """A float uniform on [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> _S11) * (1.0 / 9007199254740992.0)


def new_state() -> np.ndarray:
    """An empty stream state (start it with :func:`stream_start`)."""
    return np.zeros(3, dtype=np.uint64)
