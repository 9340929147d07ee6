"""Les Dragons du Mékong: programmed actions, stones and planks across a delta.

See ``docs/games/mekong-dragons.md`` for every rule modelled and every assumption. Declared with
:func:`~heron_sim.games.declare.light_game`: its rules dataclass (``rules.py``), its kernel's
call and columns (``simulate.py``), its summary (``summary.py``).
"""

from __future__ import annotations

from .. import register
from ..declare import kernel_parts, light_game
from . import simulate as _run
from .rules import MekongRules, load_rules
from .simulate import STRATEGIES
from .summary import summarize

GAME = register(light_game(
    name="mekong-dragons", title="Les Dragons du Mékong", package=__name__,
    strategies=STRATEGIES, heuristics=("greedy", "blocker"), players=(2, 6),
    **kernel_parts(_run), load_rules=load_rules, summarize=summarize, doc="docs/games/mekong-dragons.md",
))
simulate = GAME.simulate  # one row per game: columns in simulate.py's doc

__all__ = ["GAME", "MekongRules", "load_rules", "simulate", "summarize"]
