"""The counted power scan (heron_sim.strategies.expert_scan) gives the reference scan's answer.

``power_scan_counted`` must return what heron_sim.strategies.expert_values.power_scan_runner returns on
the same dice, bit for bit: the best use's value, the die (and face or animal) it is used on
and the runner-up's value (what the tables store), for every roll-time guide (Wolf, Eagle, Deer, Héron's Patience), on dice drawn at random
(faces, held or free, fresh or not, every number of rolls left, herons up to an Anxiety: the
tables' answers and the general path's), under the rulings and the powers' variants, with
dice all alike and with the ten D6 that differ. A negative control shows the comparison
catches a scan that differs in one use.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from heron_sim.engine import layout as L
from heron_sim.engine.pack import pack_rules
from heron_sim.loop.loops import make_workspace
from heron_sim.rules import Rules
from heron_sim.strategies import seat_arrays
from heron_sim.strategies.expert import power_scan_runner
from heron_sim.strategies.expert_scan import power_scan_counted, power_scan_counted_runner

pytestmark = pytest.mark.exact

GUIDES = (L.LOUP, L.AIGLE, L.CERF, L.HERON)


@numba.njit
def _compare(w, R, sp, guides, faces, status, fresh, rolls, tamper):
    """For each drawn state: both scans; returns the index of the first state where they differ
    (value bits, action, or the runner-up's value), or -1, and how many states had a legal use."""
    n = w[L.NDICE]
    uses = 0
    for s in range(faces.shape[0]):
        w[L.GUIDE] = guides[s]
        w[L.READY] = 1
        w[L.PATIENCE] = -1
        w[L.ROLLS_LEFT] = rolls[s]
        for i in range(n):
            w[L.FACE + i] = faces[s, i]
            w[L.STATUS + i] = status[s, i]
            w[L.FRESH + i] = fresh[s, i]
        v1, a1, r1 = power_scan_runner(0, w, R, sp, -1e300)
        v2, a2, r2 = power_scan_counted_runner(0, w, R, sp, -1e300)
        v3, a3 = power_scan_counted(0, w, R, sp, -1e300)
        if tamper and a2 >= 0:
            v2 += 1e-12
        if a1 >= 0:
            uses += 1
        if a1 != a2 or not (v1 == v2) or not (r1 == r2) or a3 != a2 or not (v3 == v1):
            return s, uses
    return -1, uses


def _states(rules, count, seed):
    """Random laid-out dice: each die's face from its own faces, a heron reserved, any other
    die free or kept (at least one free), fresh or not, and the rolls left from 0 to the rules'
    rolls + 1."""
    rng = np.random.default_rng(seed)
    R = pack_rules(rules)
    n = int(R[L.R_NDICE])
    nf = np.array([R[L.R_NFACES + i] for i in range(n)])
    faces = np.empty((count, n), dtype=np.int64)
    for i in range(n):
        k = rng.integers(0, nf[i], size=count)
        faces[:, i] = R[L.R_FACES + L.MAX_FACES * i + k]
    # keep the herons below an Anxiety most of the time (the tables' answers), sometimes not
    kept = rng.random((count, n)) < 0.4
    status = np.where(faces == L.HERON, L.RESERVED, np.where(kept, L.KEPT, L.FREE)).astype(np.int64)
    status[:, 0] = np.where(faces[:, 0] == L.HERON, L.RESERVED, L.FREE)
    fresh = (rng.random((count, n)) < 0.5).astype(np.int64)
    rolls = rng.integers(0, rules.rolls + 2, size=count).astype(np.int64)
    guides = rng.choice(np.array(GUIDES, dtype=np.int64), size=count)
    return guides, faces, status, fresh, rolls


RULES = [
    dict(mode="8d8", players=4),
    dict(mode="8d8", players=3, overrides={"heron_patience_doubling": True, "patience_cost": 0,
                                           "eagle_draws": 3}),
    dict(mode="8d8", players=4, overrides={"patience_cost": 2, "eagle_draws": 1, "anxiety_threshold": 4}),
    dict(mode="7d8", players=5, overrides={"rolls": 4}),
    dict(mode="10d6", players=4),  # dice that differ
]


@pytest.mark.parametrize("spec", RULES, ids=lambda s: s["mode"] + "-" + "-".join(f"{k}={v}" for k, v in s.get("overrides", {}).items()))
def test_the_counted_scan_gives_the_reference_scans_answer(spec):
    rules = Rules.build(mode=spec["mode"], players=spec["players"], overrides=spec.get("overrides"))
    R = pack_rules(rules)
    sids, sp = seat_arrays(["regular"] * rules.players, rules)
    w = make_workspace(R, np.asarray(sids, dtype=np.int64), 0)
    states = _states(rules, 6000, seed=20261205)
    bad, uses = _compare(w, R, sp, *states, False)
    assert bad == -1, f"state {bad}: guide {states[0][bad]}, faces {states[1][bad]}, status {states[2][bad]}, " \
                      f"fresh {states[3][bad]}, rolls left {states[4][bad]}"
    assert uses > 3000  # most states have a legal use: the comparison compares answers


def test_the_comparison_catches_a_scan_that_differs():
    rules = Rules.build(mode="8d8", players=4)
    R = pack_rules(rules)
    sids, sp = seat_arrays(["regular"] * 4, rules)
    w = make_workspace(R, np.asarray(sids, dtype=np.int64), 0)
    bad, _ = _compare(w, R, sp, *_states(rules, 200, seed=1), True)
    assert bad >= 0
