"""Exact computations by enumeration (no sampling): the reference values of the tests.

Independent of the compiled engine: everything here is computed from a
:class:`~heron_sim.rules.Rules` by enumerating dice outcomes.
"""

from .dice_laws import (
    TurnLaw,
    first_roll_herons,
    greedy_turn,
    heron_probabilities,
    p_first_roll_anxiety,
    p_pond,
    pond_pushback,
    pond_pushback_unconditional,
)
from .turn_bound import TurnBound, turn_upper_bound


def exact_figures(rules, guide: str | int = "loup", optimal: bool = False) -> dict:
    """The figures of ``heron-sim exact`` as one JSON-ready dict: P(Pond), the Pond's push-back
    law, the first roll's Herons and Anxiety, the greedy turn's law for ``guide``, and with
    ``optimal`` the optimal turn with powers off (or its exact upper bound, ~25 s for 10d6).
    Under rules by guide, every figure is that of a turn of ``guide``'s holder."""
    from ..animals import animal_index

    g = animal_index(guide, "--guide")
    rules = rules.guide_rules(g)  # rules by guide: the rules of a turn of g's holder
    law = greedy_turn(rules, g)
    doc = {
        "mode": rules.mode,
        "p_pond": p_pond(rules),
        "pond_pushback": {str(k): v for k, v in pond_pushback(rules).items()},
        "first_roll_herons": list(map(float, first_roll_herons(rules))),
        "p_first_roll_anxiety": p_first_roll_anxiety(rules),
        "greedy_turn": {"guide": guide, "powers": rules.powers, "p_pond": law.p_pond,
                        "p_anxiety": law.p_anxiety, "expected_advance": law.expected_advance,
                        "advance": {str(k): v for k, v in sorted(law.advance.items())}},
    }
    if optimal:
        b = turn_upper_bound(rules, g)
        doc["optimal_turn"] = {"guide": guide, "powers": False, "exact": b.exact,
                               "value" if b.exact else "upper_bound": b.value}
    return doc

__all__ = [
    "TurnLaw",
    "first_roll_herons",
    "greedy_turn",
    "heron_probabilities",
    "p_first_roll_anxiety",
    "p_pond",
    "pond_pushback",
    "pond_pushback_unconditional",
    "TurnBound",
    "exact_figures",
    "turn_upper_bound",
]
