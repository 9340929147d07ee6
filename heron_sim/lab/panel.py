"""Panels of tables: the scenarios a balance claim or a rule change is judged on.

A proposal must hold at every table, not at one. A *scenario* is one table: a player count and
the strategies seated there (rotated over the seats so that every strategy sits in every seat
equally often, :func:`heron_sim.runner.run.seatings`), optionally in another dice mode than the
study's. A *panel* is a list of scenarios; the lab aggregates each objective over its panel.

The default Héron panel (issue 17): four players with the AI mix (greedy, prudent, expert,
racer rotated), four greedy players (the rulings' reference), four expert players, and the AI
mix at 2, 3, 5 and 6 players.

    >>> [s.name for s in DEFAULT_PANEL]
    ['mix-4', 'greedy-4', 'expert-4', 'mix-2', 'mix-3', 'mix-5', 'mix-6']
    >>> DEFAULT_PANEL[3].seatings()[:2]
    [['greedy', 'prudent'], ['prudent', 'expert']]
"""

from __future__ import annotations

from dataclasses import dataclass

#: The AI mix: the four standard players, rotated over the seats.
AI_MIX: tuple[str, ...] = ("greedy", "prudent", "expert", "racer")


@dataclass(frozen=True)
class Scenario:
    """One table of a panel.

    Attributes
    ----------
    name : str
        Short identifier, used in file names and tables (``"mix-4"``).
    players : int
        Number of seats (2..7).
    strategies : tuple of str
        Strategy names (with parameters, e.g. ``"prudent:risk=0.6"``), rotated over the seats.
    mode : str or None
        Dice mode of this table; None: the study's own mode.
    """

    name: str
    players: int
    strategies: tuple[str, ...]
    mode: str | None = None

    def seatings(self) -> list[list[str]]:
        """The rotation of seatings this scenario plays (one list of names per seating)."""
        from ..runner.run import seatings

        return seatings(list(self.strategies), self.players)

    def describe(self) -> str:
        """The table in words: ``"4 players: greedy, prudent, expert, racer (rotated)"``."""
        names = list(dict.fromkeys(self.strategies))
        who = names[0] if len(names) == 1 else ", ".join(names) + " (rotated)"
        mode = f", {self.mode}" if self.mode else ""
        return f"{self.players} players{mode}: {who}"


DEFAULT_PANEL: tuple[Scenario, ...] = (
    Scenario("mix-4", 4, AI_MIX),
    Scenario("greedy-4", 4, ("greedy",)),
    Scenario("expert-4", 4, ("expert",)),
    Scenario("mix-2", 2, AI_MIX),
    Scenario("mix-3", 3, AI_MIX),
    Scenario("mix-5", 5, AI_MIX),
    Scenario("mix-6", 6, AI_MIX),
)
