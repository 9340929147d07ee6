"""The one place where the compiled game loop asks a seat's strategy for a decision.

Every decision function has the signature ``(kind, seat, w, R, rng, sp) -> int``: ``w`` the
workspace and ``R`` the rules vector (heron_sim.engine.layout), ``rng`` the game's stream,
``sp`` float64[players, k] the strategies' parameters by seat. The strategy of a seat is the
integer id ``w[SID + seat]``. User plug-ins (heron_sim.strategies.plugins) share the id
``PLUGIN``: column 0 of the seat's row holds the address of their compiled wrapper.
"""

from __future__ import annotations

from ..engine.jit import hot

from ..engine.layout import SID
from .expert import expert_decide
from .greedy import greedy_decide
from .plugins import call_address
from .prudent import prudent_decide
from .racer import racer_decide
from .random_policy import random_decide
from .scripted import scripted_decide

GREEDY, RANDOM, SCRIPTED, EXPERT, PRUDENT, RACER = 0, 1, 2, 3, 4, 5
PLUGIN = 100
HAS_GREEDY = True  # the kernels generated per strategy set say whether greedy is seated
HAS_EXPERT = True  # ... and expert (heron_sim.engine.turn: its fused turn)


@hot
def decide(kind, seat, w, R, rng, sp):
    """Ask the strategy of ``seat`` for a decision of ``kind``; returns its integer answer."""
    sid = w[SID + seat]
    if sid == GREEDY:
        return greedy_decide(kind, seat, w)
    if sid == EXPERT:
        return expert_decide(kind, seat, w, R, rng, sp)
    if sid == RACER:
        return racer_decide(kind, seat, w, R, rng, sp)
    if sid == PRUDENT:
        return prudent_decide(kind, seat, w, R, rng, sp)
    if sid == RANDOM:
        return random_decide(kind, seat, w, R, rng)
    if sid == SCRIPTED:
        return scripted_decide(kind, seat, w)
    if sid == PLUGIN:
        return call_address(int(sp[seat, 0]), kind, seat, w, R, rng, sp)
    raise ValueError("unknown strategy id")
