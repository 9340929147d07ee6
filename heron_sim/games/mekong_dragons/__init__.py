"""Les Dragons du Mékong: programmed actions, stones and planks across a delta.

See ``docs/games/mekong-dragons.md`` for every rule modelled and every assumption.
"""

from __future__ import annotations

from .. import register
from ..base import LightGame
from .rules import MekongRules, load_rules
from .simulate import STRATEGIES, simulate
from .summary import summarize

GAME = register(LightGame(
    name="mekong-dragons",
    title="Les Dragons du Mékong",
    strategies=STRATEGIES,
    heuristics=("greedy", "blocker"),
    min_players=2,
    max_players=6,
    load_rules=load_rules,
    simulate=simulate,
    summarize=summarize,
    doc="docs/games/mekong-dragons.md",
))

__all__ = ["GAME", "MekongRules", "load_rules", "simulate", "summarize"]
