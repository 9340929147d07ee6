"""Rampage (Terror in Meeple City): a dexterity game modelled as skill-dependent outcomes.

See ``docs/games/rampage.md`` for every rule modelled and every assumption. Declared with
:func:`~heron_sim.games.declare.light_game`: its rules dataclass (``rules.py``), its kernel's
call and columns (``simulate.py``), its summary (``summary.py``).
"""

from __future__ import annotations

from .. import register
from ..declare import kernel_parts, light_game
from . import simulate as _run
from .rules import RampageRules, load_rules
from .simulate import STRATEGIES
from .summary import summarize

GAME = register(light_game(
    name="rampage", title="Rampage (Terror in Meeple City)", package=__name__,
    strategies=STRATEGIES, heuristics=("greedy", "wrecker"), players=(2, 4),
    **kernel_parts(_run), load_rules=load_rules, summarize=summarize, doc="docs/games/rampage.md",
))
simulate = GAME.simulate  # one row per game: columns in simulate.py's doc

__all__ = ["GAME", "RampageRules", "load_rules", "simulate", "summarize"]
