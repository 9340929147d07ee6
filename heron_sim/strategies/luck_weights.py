"""Each seat's luck weighted by the race's state: the basis, and the turn slot's sums (docs/luck.md).

A seat's luck (heron_sim.strategies.luck_turn) counts every roll in squares of the turn. A square
early in a race and a square in a close finish are not worth the same chance to win, so a control
variate linear in the luck sums removes only part of a win's variance (in a model race of normal,
independent progress, a variance ratio of 1.89 at most at 4 players: docs/luck.md). Weighting each slot's luck by a function of the positions *at the slot's
start* keeps the mean zero (every roll's luck has mean zero given the state before it, and the
weight is fixed before any roll of the slot: a martingale transform) and lets the regression of
heron_sim.analysis.luck_adjust learn, from the games, how much a square is worth where.

For seat ``s`` at each turn slot (whoever plays it), with ``x`` its square ÷ the finish, ``m`` the
best opponent's and, for each opponent ``j``, ``x_j`` its square ÷ the finish and ``t_j`` = 1 when
``j`` is at least as far as every other opponent of ``s`` (0 else), the slot's luck gains (``Δ_s``
for ``s``, ``Δ_j`` for ``j``: its own turn's rolls, or the Étang's push-back as the others' luck)
are added with the weights:

- ``OWN``: ``x^a·m^b`` times ``Δ_s``, each monomial of degree 1 to 3 (9);
- ``OTHER``: ``x_j^a·x^b`` (degree 1 or 2) and ``t_j·x_j^a·x^b`` (degree 0 to 2), times ``Δ_j``,
  summed over the opponents (11).

The weights of degree 0 (``Δ_s`` itself, and the opponents' ``Δ_j`` summed) are the plain lucks
(``luck_seat1`` …), which the analysis adds. The basis was chosen on two pilot runs (the AI mix
and the skill ladder, 40,000 four-player games each, seeds 11 and 12: monomials of degree 3 for
``OWN`` and 2 for ``OTHER`` gave 97–98 % of the variance ratio of a larger basis; docs/luck.md).
Monomials by repeated products (no ``pow``): the same bits on every machine.
"""

from __future__ import annotations

import numpy as np

from ..engine.jit import U, hot
from ..engine.layout import LUCK, LUCK_SLOT, LUCK_WEIGHTS, LUCKW, MAX_SEATS, PLAYERS, POS, POS_SLOT
from ..rules.rules import P_FINISH

#: (a, b): the weight x^a·m^b of a seat's own luck
OWN = np.array([(a, b) for a in range(4) for b in range(4 - a) if a + b > 0], dtype=np.int64)
#: (a, b, c): the weight t_j^c·x_j^a·x^b of an opponent j's luck
OTHER = np.array([(a, b, c) for c in (0, 1) for a in range(3) for b in range(3 - a) if a + b + c > 0],
                 dtype=np.int64)
#: the weighted lucks' names (the frame's ``luck_seat<s>_<name>`` columns)
NAMES = tuple([f"x{a}m{b}" for a, b in OWN] + [f"j{a}s{b}" + ("t" if c else "") for a, b, c in OTHER])
assert len(NAMES) == LUCK_WEIGHTS, "engine.layout.LUCK_WEIGHTS is the basis's size"
assert MAX_SEATS == 7, "slot_end reads seven shares"
N_OWN = len(OWN)


@hot
def _share(w, R, s):
    """Seat ``s``'s square at the slot's start ÷ the finish (in [0, 1])."""
    return min(max(float(w[U(POS_SLOT + s)]) / float(R[P_FINISH]), 0.0), 1.0)


@hot
def slot_start(w):
    """Note each seat's luck and square before a turn slot."""
    for s in range(w[PLAYERS]):
        w[U(LUCK_SLOT + s)] = w[U(LUCK + s)]
        w[U(POS_SLOT + s)] = w[U(POS + s)]


@hot
def _powers(x):
    """(1, x, x², x³) by repeated products (``p *= x`` from 1.0: ``1.0 * x`` is ``x`` exactly), the
    same bits on every machine."""
    x2 = x * x
    return (1.0, x, x2, x2 * x)


@hot
def slot_end(w, R):
    """Add each seat's weighted lucks of the slot just played (weights from the squares noted by
    :func:`slot_start`; each term rounded to the luck's fixed point). Each seat's share of the
    finish and its powers are computed once a slot (tests/test_luck_weights.py: the terms of the
    documented weights, bit for bit; tests/test_luck_games.py: the luck values' golden hashes)."""
    P = w[PLAYERS]
    sh = (_share(w, R, 0), _share(w, R, 1), _share(w, R, 2), _share(w, R, 3), _share(w, R, 4),
          _share(w, R, 5), _share(w, R, 6))  # MAX_SEATS: the seats past P are never read
    for s in range(P):
        x = sh[s]
        m = 0.0
        for o in range(P):
            if o != s:
                m = max(m, sh[o])
        xs = _powers(x)
        base = LUCKW + s * LUCK_WEIGHTS
        ds = float(w[U(LUCK + s)] - w[U(LUCK_SLOT + s)])
        if ds != 0.0:
            ms = _powers(m)
            for k in range(N_OWN):
                w[U(base + k)] += int(round(ds * xs[OWN[k, 0]] * ms[OWN[k, 1]]))
        for j in range(P):
            if j == s:
                continue
            dj = float(w[U(LUCK + j)] - w[U(LUCK_SLOT + j)])
            if dj == 0.0:
                continue
            xj = sh[j]
            top = 1
            for o in range(P):
                if o != s and o != j and sh[o] > xj:
                    top = 0
            js = _powers(xj)
            for k in range(OTHER.shape[0]):
                if OTHER[k, 2] == 1 and top == 0:
                    continue
                w[U(base + N_OWN + k)] += int(round(dj * js[OTHER[k, 0]] * xs[OTHER[k, 1]]))


@hot
def reset(w):
    """Clear the weighted lucks (a new game)."""
    for k in range(MAX_SEATS * LUCK_WEIGHTS):
        w[U(LUCKW + k)] = 0
