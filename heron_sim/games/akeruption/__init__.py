"""Akeruption: a lighter simulator on an abstract lava-flow board (docs/games/akeruption.md).

Declared with :func:`~heron_sim.games.declare.light_game`: its rules dataclass (``rules.py``),
its kernel's call and columns (``simulate.py``), its summary (``summary.py``)."""

from __future__ import annotations

from .. import register
from ..declare import kernel_parts, light_game
from . import simulate as _run
from .engine import STRATEGIES, STRATEGY_ID
from .exact import hold_probability
from .rules import MAX_PLAYERS, MIN_PLAYERS, AkeruptionRules, load_rules
from .summary import summarize

GAME = register(light_game(
    name="akeruption", title="Akeruption", package=__name__,
    strategies=STRATEGIES, ids={name: STRATEGY_ID[name] for name in STRATEGIES},
    heuristics=("greedy", "cautious"), players=(MIN_PLAYERS, MAX_PLAYERS),
    **kernel_parts(_run), load_rules=load_rules, summarize=summarize, doc="docs/games/akeruption.md",
))
simulate = GAME.simulate  # one row per game: columns in simulate.py's doc

__all__ = ["GAME", "AkeruptionRules", "hold_probability", "load_rules", "simulate", "summarize"]
