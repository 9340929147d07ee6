"""Rampage (Terror in Meeple City): a dexterity game modelled as skill-dependent outcomes.

See ``docs/games/rampage.md`` for every rule modelled and every assumption.
"""

from __future__ import annotations

from .. import register
from ..base import LightGame
from .rules import RampageRules, load_rules
from .simulate import STRATEGIES, simulate
from .summary import summarize

GAME = register(LightGame(
    name="rampage",
    title="Rampage (Terror in Meeple City)",
    strategies=STRATEGIES,
    heuristics=("greedy", "wrecker"),
    min_players=2,
    max_players=4,
    load_rules=load_rules,
    simulate=simulate,
    summarize=summarize,
    doc="docs/games/rampage.md",
))

__all__ = ["GAME", "RampageRules", "load_rules", "simulate", "summarize"]
