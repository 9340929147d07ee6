"""Jobs and seatings: what the runner plays, declared without playing anything.

A leaf module (it imports the rules and the strategies' registry, nothing of the runner, the
report or the lab), so that the experiment kinds, the executor and the report can all use
:class:`Job`, :func:`seatings` and :func:`resolve_strategies` without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import HeronSimError
from ..rules import Rules
from ..strategies import REGISTRY


# ---------------------------------------------------------------- strategies at run time


def available_strategies() -> list[str]:
    """User-facing strategies registered now (the strategies issue may add more)."""
    return [n for n, s in REGISTRY.items() if s.user_facing]


def set_strategies() -> list[str]:
    """The strategies of the ``"all"`` set: the user-facing ones that declare themselves in the
    sets (not the ``human`` family and its rungs, which are seated by name)."""
    return [n for n, s in REGISTRY.items() if s.user_facing and s.in_sets]


def ai_strategies() -> list[str]:
    """The AI strategies: the ``"all"`` set except ``random`` (at least ``greedy``)."""
    out = [n for n in set_strategies() if n != "random"]
    return out or ["greedy"]


def resolve_strategies(spec, where: str = "seating") -> list[str]:
    """``"ai"``, ``"all"``, a comma string or a list -> registered strategy names.

    A name that is not a registered user-facing strategy (``"expret"``) is refused with one
    line naming ``where`` and the allowed names: never skipped, so that a typo cannot run
    another experiment than the one written.
    """
    from ..strategies import parse_strategy, split_names

    if isinstance(spec, str) and spec in ("ai", "all"):
        return ai_strategies() if spec == "ai" else set_strategies()
    names = split_names(spec) if isinstance(spec, str) else list(spec)
    names = [n.strip() for n in names]
    allowed = available_strategies()
    if not names or not all(names):
        raise HeronSimError(f"{where}: {spec!r}: an empty strategy name; allowed: \"ai\", \"all\" or names among {', '.join(allowed)}")
    if any(n.partition(":")[0].strip() not in allowed for n in names):
        from ..strategies import load_entry_points  # an installed package's plug-in?

        if load_entry_points():
            allowed = available_strategies()
    for n in names:
        base = n.partition(":")[0].strip()
        if base not in allowed:
            raise HeronSimError(f"{where}: {base!r} is not a strategy; allowed: \"ai\", \"all\" or names among {', '.join(allowed)}")
        try:
            parse_strategy(n)
        except HeronSimError as err:
            raise HeronSimError(f"{where}: {str(err).removeprefix('--strategy: ')}") from None
    return names


def seatings(names: list[str], players: int) -> list[list[str]]:
    """The seatings of a rotation, so that every strategy sits in every seat equally often.

    Fewer names than seats: the names are cycled over the seats, then rotated by one seat per
    chunk (``players`` seatings). As many names as seats or more: chunk ``r`` seats
    ``names[(r + s) % k]`` at seat ``s`` (``k`` seatings), so that no strategy is left out.
    One seating if every seat holds the same strategy.
    """
    k = len(names)
    if k >= players:
        return [[names[(r + s) % k] for s in range(players)] for r in range(k)]
    base = [names[i % k] for i in range(players)]
    if len(set(base)) == 1:
        return [base]
    return [[base[(s + r) % players] for s in range(players)] for r in range(players)]


# ---------------------------------------------------------------- jobs


@dataclass
class Job:
    """One batch of simulation: games under one rules set and a rotation of seatings, or
    single turns of one strategy and guide."""

    key: str
    kind: str  # "games" | "turns" | "tournament" | "light" (a lighter game of heron_sim.games)
    rules: Rules  # for "light": that game's own rules object
    n: int
    seed: int
    seatings: list[list[str]] = field(default_factory=list)
    strategy: str = "greedy"
    guide: str = "loup"
    labels: dict = field(default_factory=dict)

    def describe(self) -> dict:
        if self.kind == "light":
            return {"key": self.key, "kind": self.kind, "n": self.n, "seed": self.seed, "mode": None,
                    "players": self.labels.get("players"), "game": self.labels.get("game"),
                    "rules_hash": self.rules.digest(), "rules": light_rules_table(self.rules),
                    "seatings": self.seatings,
                    "strategy": "", "guide": "", "labels": self.labels}
        return {"key": self.key, "kind": self.kind, "n": self.n, "seed": self.seed,
                "mode": self.rules.mode, "players": self.rules.players,
                "rules_hash": self.rules.digest(), "rules": self.rules.to_table(),
                "seatings": self.seatings, "strategy": self.strategy, "guide": self.guide,
                "labels": self.labels}


def light_rules_table(rules) -> dict:
    """A lighter game's rules as the designer's table (the shape and keys of the game's
    ``data/defaults.toml``, :meth:`~heron_sim.games.base.LightRules.to_table`): the game's
    ``load_rules(None, table)`` rebuilds them, as :meth:`RunData.rules` does from a manifest."""
    return rules.to_table()


def _has_tournament() -> bool:
    """Always True: the tournament is part of the package (kept for the manifests' key)."""
    from .. import tournament  # noqa: F401  (a broken module fails here, loudly)

    return True
