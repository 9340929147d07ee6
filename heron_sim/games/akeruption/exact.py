"""Exact wall-hold probabilities by enumeration of the two dice (36 equally likely outcomes)."""

from __future__ import annotations

from fractions import Fraction


def hold_probability(bonus: int, sides: int = 6) -> Fraction:
    """P(white + bonus > orange) for two fair dice: the wall holds, a tie goes to the lava."""
    wins = sum(1 for white in range(1, sides + 1) for orange in range(1, sides + 1)
               if white + bonus > orange)
    return Fraction(wins, sides * sides)
