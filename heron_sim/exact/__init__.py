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
    "turn_upper_bound",
]
