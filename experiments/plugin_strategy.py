"""An example user strategy ("plug-in"), written outside the package.

``satisficer`` plays like ``greedy`` but stops as soon as the dice showing reach a set of
``stop_at`` (its parameter, default 4) — a simple human-like rule. Register it, then use its
name wherever a strategy name goes (in the same Python process)::

    import sys; sys.path.insert(0, "experiments")
    import plugin_strategy
    plugin_strategy.register()
    simulate(Rules.build(), 1000, 1, "satisficer:stop_at=5,greedy,greedy,greedy")

The decision function has the engine's fixed signature ``(kind, seat, w, R, rng, sp) -> int``
(heron_sim.engine.layout lists the decision kinds and the workspace fields) and is compiled by
numba; it may call the engine's compiled helpers. Its parameters are ``sp[seat, 1:]``.
"""

from __future__ import annotations

from numba import njit

from heron_sim.engine.dice import best_set, count_animals
from heron_sim.engine.layout import D_KEEP, GUIDE, KEEP, NDICE
from heron_sim.strategies import register_strategy
from heron_sim.strategies.greedy import greedy_decide, greedy_keep

NAME = "satisficer"


@njit
def satisficer_decide(kind, seat, w, R, rng, sp):
    if kind == D_KEEP:
        count_animals(w)
        size, _ = best_set(w, w[GUIDE + seat])
        if size >= sp[seat, 1]:          # stop_at
            for i in range(w[NDICE]):
                w[KEEP + i] = 0
            return 0
        return greedy_keep(seat, w)
    return greedy_decide(kind, seat, w)


def register(replace: bool = True):
    """Register ``satisficer`` (idempotent with ``replace=True``)."""
    return register_strategy(NAME, satisficer_decide,
                             description="greedy, but stops once a set of stop_at is showing",
                             params={"stop_at": 4.0}, replace=replace)
