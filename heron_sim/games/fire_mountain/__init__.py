"""La Colère de la Montagne de Feu (Fire Mountain): a lighter simulator (docs/games/fire-mountain.md)."""

from __future__ import annotations

from .. import register
from ..base import LightGame
from .engine import STRATEGIES
from .rules import MAX_PLAYERS, MIN_PLAYERS, FireMountainRules, load_rules
from .simulate import simulate
from .summary import summarize

GAME = register(LightGame(
    name="fire-mountain",
    title="La Colère de la Montagne de Feu",
    strategies=STRATEGIES,
    heuristics=("greedy", "hatcher"),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    load_rules=load_rules,
    simulate=simulate,
    summarize=summarize,
    doc="docs/games/fire-mountain.md",
))

__all__ = ["GAME", "FireMountainRules", "load_rules", "simulate", "summarize"]
