"""The counted roll (greedy_turn.roll_counts) draws exactly the dice that rolling them one by one
(rng.draw_index, the engine's per-die draw) gives: the same faces, the same stream position.
It reads four dice from each draw while none of the draw's chunks is rejected, and hands over
to draw_index at a draw with a rejected chunk (2 in 65,536 chunks for the 7-faced die): both
paths are checked, the second on draws chosen to hold a rejected chunk."""

from __future__ import annotations

import numpy as np
import pytest

from heron_sim.engine.layout import R_FACES, R_NFACES, R_REJECT
from heron_sim.engine.pack import pack_rules
from heron_sim.engine.rng import draw_index, stream_start
from heron_sim.rules import Rules
from heron_sim.strategies.greedy_turn import roll_counts

GOLDEN = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def _one_by_one(nf, R, state):
    """The dice rolled one at a time, packed 8 bits a lane by face; the chunks rejected."""
    s, bits, chunks = state[0], np.uint64(0), 0
    packed = 0
    faces, reject = np.uint64(R[R_NFACES]), np.uint64(R[R_REJECT])
    for _ in range(nf):
        k, s, bits, chunks = draw_index(faces, reject, np.uint64(s), np.uint64(bits), chunks)
        packed += 1 << (8 * int(R[R_FACES + k]))
    draws = (int(s) - int(state[0])) * pow(GOLDEN, -1, 1 << 64) % (1 << 64)
    state[0] = np.uint64(s)
    return packed, draws


def _mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def _rejecting_counters(faces, reject, count):
    """Stream counters whose next draw holds a rejected chunk (low product below ``reject``)."""
    found = []
    c = 12345
    while len(found) < count:
        c = (c + GOLDEN) & MASK64
        x = _mix64((c + GOLDEN) & MASK64)
        if any((((x >> (16 * j)) & 0xFFFF) * faces) & 0xFFFF < reject for j in range(4)):
            found.append(c)
    return found


@pytest.mark.parametrize("mode", ["8d8", "7d8", "10d8", "10d6"])
def test_counted_roll_is_the_dice_rolled_one_by_one(mode):
    R = pack_rules(Rules.build(mode=mode))
    n = Rules.build(mode=mode).n_dice
    a = np.zeros(3, dtype=np.uint64)
    b = np.zeros(3, dtype=np.uint64)
    seen = set()
    for game in range(400):
        stream_start(11, game, a)
        stream_start(11, game, b)
        for nf in (n, n - 3, 1, 0, 5, 4, n - 1, 2):  # several rolls from one stream, as a turn
            got = int(roll_counts(nf, R, a))
            want, _ = _one_by_one(nf, R, b)
            assert got == want, (mode, game, nf)
            assert a[0] == b[0]
            seen.add(got)
    assert len(seen) > 1000  # real rolls, not a constant


@pytest.mark.parametrize("mode", ["8d8", "10d6"])
def test_counted_roll_at_a_draw_with_a_rejected_chunk(mode):
    R = pack_rules(Rules.build(mode=mode))
    faces, reject = int(R[R_NFACES]), int(R[R_REJECT])
    assert reject > 0
    extra = 0
    for c in _rejecting_counters(faces, reject, 30):
        for nf in (4, 5, 8, 10):
            a = np.array([c, 0, 0], dtype=np.uint64)
            b = a.copy()
            got = int(roll_counts(nf, R, a))
            want, draws = _one_by_one(nf, R, b)
            assert got == want, (c, nf)
            assert a[0] == b[0]
            extra += draws > -(-nf // 4)  # the rejection cost the roll one more draw
    assert extra > 0
