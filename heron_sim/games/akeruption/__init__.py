"""Akeruption: a lighter simulator on an abstract lava-flow board (docs/games/akeruption.md)."""

from __future__ import annotations

from .. import register
from ..base import LightGame
from .engine import STRATEGIES
from .exact import hold_probability
from .rules import MAX_PLAYERS, MIN_PLAYERS, AkeruptionRules, load_rules
from .simulate import simulate
from .summary import summarize

GAME = register(LightGame(
    name="akeruption",
    title="Akeruption",
    strategies=STRATEGIES,
    heuristics=("greedy", "cautious"),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    load_rules=load_rules,
    simulate=simulate,
    summarize=summarize,
    doc="docs/games/akeruption.md",
))

__all__ = ["GAME", "AkeruptionRules", "hold_probability", "load_rules", "simulate", "summarize"]
