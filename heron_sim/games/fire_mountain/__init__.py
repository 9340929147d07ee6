"""La Colère de la Montagne de Feu (Fire Mountain): a lighter simulator (docs/games/fire-mountain.md).

Declared with :func:`~heron_sim.games.declare.light_game`: its rules dataclass (``rules.py``),
its kernel's call and columns (``simulate.py``), its summary (``summary.py``)."""

from __future__ import annotations

from .. import register
from ..declare import kernel_parts, light_game
from . import simulate as _run
from .engine import STRATEGIES, STRATEGY_ID
from .rules import MAX_PLAYERS, MIN_PLAYERS, FireMountainRules, load_rules
from .summary import summarize

GAME = register(light_game(
    name="fire-mountain", title="La Colère de la Montagne de Feu", package=__name__,
    strategies=STRATEGIES, ids={name: STRATEGY_ID[name] for name in STRATEGIES},
    heuristics=("greedy", "hatcher"), players=(MIN_PLAYERS, MAX_PLAYERS),
    **kernel_parts(_run), load_rules=load_rules, summarize=summarize, doc="docs/games/fire-mountain.md",
))
simulate = GAME.simulate  # one row per game: columns in simulate.py's doc

__all__ = ["GAME", "FireMountainRules", "load_rules", "simulate", "summarize"]
