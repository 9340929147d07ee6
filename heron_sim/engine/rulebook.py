"""The rules of a set's score, as compiled functions: one function per rule, called by the
generic turn (heron_sim.loop.turn), the greedy fused turn (heron_sim.strategies.greedy_turn) and
the strategies' own valuations (expert, prudent), so that no path keeps a private copy of a rule
(issue 29 item 2). The expert's programme (heron_sim.strategies.expert_dp, over its own packed
parameters) and the exact laws (heron_sim.exact.dice_laws, vectorised) are checked against these
functions on every input by tests/test_rulebook.py.

Each function reads the rules vector ``R`` (heron_sim.engine.layout) and plain values, never a
workspace it would write: a rule is a function of the rules and the dice.
"""

from __future__ import annotations

from .dice import heron_earns_doubling
from .jit import U, hot
from .layout import R_ADVANCE, TAUREAU, X_BULL_MIN, X_CONS_ANX, X_CONS_NOSET, X_PUSH_FLAT, X_PUSH_MAX, X_PUSH_PER
from ..rules.rules import P_BULL_BONUS, P_DOUBLING, P_POND, P_POWERS, P_POWERS_OFF


@hot
def power_enabled(R, guide):
    """The one-shot power of ``guide`` can be used (powers on, and this one not disabled)."""
    return R[P_POWERS] != 0 and (R[P_POWERS_OFF] >> guide) & 1 == 0


@hot
def guide_power_doubles(guide, dg, size, animal, w, R):
    """The Guide Power doubles the set: its animal is the one the guide doubles (``dg``,
    heron_sim.engine.dice.doubling_guide), or a Héron guide earns it by its herons (variant)."""
    return R[P_DOUBLING] != 0 and (animal == dg or heron_earns_doubling(guide, size, w, R))


@hot
def set_advance(R, size, doubled):
    """Squares of the largest set of ``size`` dice: the combination table, twice over when the
    Guide Power doubles it."""
    base = R[U(R_ADVANCE + size)]
    return 2 * base if doubled else base


@hot
def bull_applies(R, size, guide, ready):
    """The Taureau's power may add its bonus: a set of at least ``bull_min_set`` dice, for the
    holder of a ready Taureau guide whose power is enabled."""
    return size >= R[X_BULL_MIN] and guide == TAUREAU and ready != 0 and power_enabled(R, TAUREAU)


@hot
def bull_bonus(R):
    """Squares the Taureau's power adds (``bull_bonus``)."""
    return R[P_BULL_BONUS]


@hot
def consolation_no_set(R):
    """Squares after a scored turn worth 0 (``consolation_no_set``; no square effect)."""
    return R[X_CONS_NOSET]


@hot
def consolation_anxiety(R):
    """Squares after an Anxiety the Lion does not rescue (``consolation_anxiety``)."""
    return R[X_CONS_ANX]


@hot
def pond_opens(R, herons):
    """The first roll opens the Étang Paisible: at least ``pond_threshold`` herons."""
    return herons >= R[P_POND]


@hot
def pond_pushback(R, herons):
    """Squares each opponent moves back after a Pond of ``herons`` herons: the rulings' H, or
    ``pond_pushback_per_heron * H + pond_pushback_flat`` capped at ``pond_pushback_max`` (0: no
    cap); heron_sim.rules.Rules.pond_pushback is its Python mirror (tests/test_rulebook.py)."""
    back = R[X_PUSH_PER] * herons + R[X_PUSH_FLAT]
    if R[X_PUSH_MAX] > 0 and back > R[X_PUSH_MAX]:
        back = R[X_PUSH_MAX]
    return back
