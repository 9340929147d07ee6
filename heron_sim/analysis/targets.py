"""The designer's targets (issue 30 item 1): one file, ``experiments/targets.toml``, says what
"too long", "unfair", "no comeback" and "enough skill" mean; every value is *assumed* until the
designer sets it, and a verdict resting on an assumed value says so.

Each target is declared once here (:data:`TARGETS`: its name, the shape of its value, its
default, its words in French and English); the file gives the values. A name the table does not
know is refused with one line, never skipped; a target the file leaves out keeps its default and
counts as assumed.

Each lighter game has a section of its own (``[game.rampage]``, issue 34 item 2): its length in
rounds at each player count, how far a seat may sit from its fair share, the games the round cap
may stop (:data:`GAME_TARGETS`); a game the file leaves out keeps the defaults, every one assumed.
"""

from __future__ import annotations

import os
import sys
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from ..errors import HeronSimError

#: Where the report and the lab look for the designer's targets (``HERON_SIM_TARGETS`` overrides).
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "experiments" / "targets.toml"

PLAYER_COUNTS = range(2, 8)


def _fraction(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
        raise HeronSimError(f"{where}: {v!r}; allowed: a number from 0 to 1")
    return float(v)


def _positive(v: Any, where: str) -> float:
    # finite: TOML reads inf and nan as numbers (an infinite longest length put every game
    # within it, an infinite seconds per turn made every length 0 rounds in the lab), and a whole
    # number too large for a float raised OverflowError later; -inf and nan fail "above 0"
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= sys.float_info.max:
        raise HeronSimError(f"{where}: {v!r}; allowed: a finite number above 0")
    return v


def _range(v: Any, where: str, check: Callable[[Any, str], float]) -> tuple[float, float]:
    if not isinstance(v, list) or len(v) != 2:
        raise HeronSimError(f"{where}: {v!r}; allowed: [lowest, highest]")
    lo, hi = check(v[0], where), check(v[1], where)
    if lo > hi:
        raise HeronSimError(f"{where}: {v!r}; allowed: [lowest, highest] with lowest <= highest")
    return float(lo), float(hi)


def _minutes_by_players(v: Any, where: str) -> dict[int, tuple[float, float]]:
    if not isinstance(v, dict) or not v:
        raise HeronSimError(f"{where}: {v!r}; allowed: a table of player counts, e.g. {{ 4 = [30, 45] }}")
    out = {}
    for k, r in v.items():
        if not str(k).isdigit() or int(k) not in PLAYER_COUNTS:
            raise HeronSimError(f"{where}.{k}: unknown player count; allowed: 2 to 7")
        out[int(k)] = _range(r, f"{where}.{k}", _positive)
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class TargetKey:
    """One target: its name, how its value is read, its default, and what it means."""

    name: str
    parse: Callable[[Any, str], Any]
    default: Any
    en: str
    fr: str
    label: str = ""     # its name in a sentence of the report ("the share margin")


#: Every target, declared once. Adding one = a row here + its line in experiments/targets.toml.
TARGETS: tuple[TargetKey, ...] = (
    TargetKey("length_minutes", _minutes_by_players,
              {2: (15.0, 25.0), 3: (20.0, 35.0), 4: (30.0, 45.0), 5: (35.0, 55.0), 6: (40.0, 65.0), 7: (45.0, 75.0)},
              "minutes at the table for a whole game, by player count",
              "durée d'une partie en minutes, selon le nombre de joueurs", label="the length target"),
    TargetKey("seconds_per_turn", _positive, 40.0, "seconds one player's turn takes at the table",
              "secondes par tour d'un joueur à la table", label="the seconds per turn"),
    TargetKey("share_margin", _fraction, 0.01, "how far a win rate may sit from its fair share and be called fair",
              "écart toléré entre un taux de victoire et sa part équitable", label="the share margin"),
    TargetKey("length_margin", _fraction, 0.05, "the relative change of the mean length that counts as no change",
              "variation relative de la durée moyenne tenue pour nulle", label="the length margin"),
    TargetKey("comeback_floor", _fraction, 0.5,
              "the share of its fair share the player last at mid-game should still win",
              "part de sa chance équitable que le dernier à mi-partie doit encore gagner", label="the comeback floor"),
    TargetKey("dead_streak_ceiling", _fraction, 0.25,
              "the share of players who may go 3 turns in a row without moving",
              "part des joueurs qui peuvent rester 3 tours de suite sans avancer", label="the dead-turn ceiling"),
    TargetKey("skill_gap", lambda v, w: _range(v, w, _fraction), (0.7, 0.9),
              "the expert's win share against the novice at 2 players, [at least, at most]",
              "part des victoires de l'expert contre le novice à 2 joueurs, [au moins, au plus]", label="the skill gap to keep"),
    TargetKey("skill_gap_margin", _fraction, 0.01, "the change of the skill gap that counts as no change",
              "variation de l'écart de niveau tenue pour nulle", label="the skill-gap margin"),
)
_BY_NAME = {t.name: t for t in TARGETS}


def _counts(v: Any, where: str) -> dict[int, tuple[float, float]]:
    if not isinstance(v, dict) or not v:
        raise HeronSimError(f"{where}: {v!r}; allowed: a table of player counts, e.g. {{ 4 = [8, 15] }}")
    out = {}
    for k, r in v.items():
        if not str(k).isdigit() or int(k) not in PLAYER_COUNTS:
            raise HeronSimError(f"{where}.{k}: unknown player count; allowed: 2 to 7")
        out[int(k)] = _range(r, f"{where}.{k}", _positive)
    return dict(sorted(out.items()))


#: A lighter game's targets (``[game.NAME.KEY]``), declared once; a game's section may give any of
#: them; one it leaves out keeps this default and counts as assumed. ``length_rounds`` has no
#: default: a game without it is not judged on its length, and its verdict says so.
GAME_TARGETS: tuple[TargetKey, ...] = (
    TargetKey("length_rounds", _counts, None,
              "rounds a whole game lasts (every seat plays once a round), by player count: [shortest, longest]",
              "nombre de tours de table d'une partie, selon le nombre de joueurs : [le moins, le plus]",
              label="the length target"),
    TargetKey("share_margin", _fraction, 0.02, "how far a seat's win share may sit from its fair share and be called fair",
              "écart toléré entre la part de victoires d'une place et sa part équitable", label="the seat-share margin"),
    TargetKey("length_margin", _fraction, 0.05, "the relative distance past the length target that counts as one margin",
              "écart relatif au-delà de la durée visée qui compte pour une marge", label="the length margin"),
    TargetKey("unfinished_ceiling", _fraction, 0.01, "the share of games the round cap may stop unfinished",
              "part des parties que la limite de tours peut arrêter avant la fin", label="the unfinished ceiling"),
)
_GAME_BY_NAME = {t.name: t for t in GAME_TARGETS}
_GAME_NAME = __import__("re").compile(r"[a-z][a-z0-9-]*")


def default(name: str) -> Any:
    """A target's default (heron-sim's assumption), for the constants that stand for it."""
    return _BY_NAME[name].default


@dataclass(frozen=True)
class Target:
    key: TargetKey
    value: Any
    assumed: bool
    source: str


class _TargetSet:
    """What the Héron race's targets and a lighter game's have in common: ``items`` by name, a
    value read by name (an unknown name is one error line: each subclass words it in its
    ``_unknown(name)``), the assumed ones."""

    items: dict[str, Target]

    def __getitem__(self, name: str) -> Any:
        if name not in self.items:
            raise HeronSimError(self._unknown(name))
        return self.items[name].value

    def assumed(self, *names: str) -> list[str]:
        """The targets among ``names`` (all when none given) that are still assumed."""
        for n in names:
            self[n]
        return [n for n in (names or tuple(self.items)) if self.items[n].assumed]


@dataclass(frozen=True)
class GameTargets(_TargetSet):
    """One lighter game's targets (``[game.NAME]``; every key of :data:`GAME_TARGETS`)."""

    game: str
    items: dict[str, Target]
    #: whether the file has a section for this game
    in_file: bool = False

    def _unknown(self, name: str) -> str:
        return f"target {name!r} of game {self.game!r}: unknown; allowed: {', '.join(_GAME_BY_NAME)}"

    def rounds(self, players: int) -> tuple[float, float] | None:
        """The length target in rounds at ``players`` players (None: the file gives none)."""
        table = self["length_rounds"]
        return None if table is None else table.get(players)


def _game_items(game: str, data: Any, name: str) -> dict[str, Target]:
    where = f"{name}: [game.{game}]"
    if not isinstance(data, dict):
        raise HeronSimError(f"{where}: expected a table of targets; allowed: {', '.join(_GAME_BY_NAME)}")
    unknown = sorted(set(data) - set(_GAME_BY_NAME))
    if unknown:
        raise HeronSimError(f"{name}: [game.{game}.{unknown[0]}]: unknown target; allowed: {', '.join(_GAME_BY_NAME)}")
    return {k.name: _item(k, data.get(k.name), f"{name}: [game.{game}.{k.name}]") for k in GAME_TARGETS}


def game_defaults(game: str) -> GameTargets:
    """A game's targets when the file gives it no section: every default, every one assumed."""
    return GameTargets(game, {k.name: Target(k, k.default, True, "heron-sim's default (no [game] section)")
                              for k in GAME_TARGETS})


@dataclass(frozen=True)
class Targets(_TargetSet):
    """The designer's targets as read from a file (``path`` None: the defaults, all assumed)."""

    items: dict[str, Target]
    path: str | None = None
    #: the lighter games' sections (``[game.NAME]``), by the game's command-line name
    games: dict[str, GameTargets] = field(default_factory=dict)

    def game(self, name: str) -> GameTargets:
        """The targets of the lighter game ``name``: its section, or the defaults (all assumed)."""
        return self.games.get(name) or game_defaults(name)

    def check_games(self, known) -> None:
        """Refuse, in one line, a ``[game.NAME]`` section whose game is not among ``known``."""
        known = list(known)
        bad = sorted(set(self.games) - set(known))
        if bad:
            where = Path(self.path).name if self.path else "<targets>"
            raise HeronSimError(f"{where}: [game.{bad[0]}]: unknown game; allowed: {', '.join(known)}")

    def _unknown(self, name: str) -> str:
        return f"target {name!r}: unknown; allowed: {', '.join(_BY_NAME)}"

    def minutes(self, players: int) -> tuple[float, float]:
        """The length target in minutes at ``players`` players."""
        table = self["length_minutes"]
        if players not in table:
            raise HeronSimError(f"targets: no length_minutes for {players} players "
                                f"(the file gives {', '.join(map(str, table))})")
        return table[players]

    def to_minutes(self, rounds: float, players: int) -> float:
        """Minutes at the table for ``rounds`` rounds of ``players`` turns."""
        return rounds * players * self["seconds_per_turn"] / 60


#: The lab's metrics a tune file may hold to the designer's targets (``at_most = "targets"``):
#: metric -> (the sides it allows, the targets it reads). Declared once; the lab and its tests read it.
LAB_TARGETS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "length": (("at_most", "at_least", "target"), ("length_minutes", "seconds_per_turn")),
    "guide_spread": (("at_most",), ("share_margin",)),
    "first_player_advantage": (("at_most", "at_least", "target"), ("share_margin",)),
    "stuck_3_share": (("at_most",), ("dead_streak_ceiling",)),
    "comeback": (("at_least",), ("comeback_floor",)),
    "comeback_own": (("at_least",), ("comeback_floor",)),
    "skill_gap": (("at_most", "at_least", "target"), ("skill_gap",)),
}


def lab_target(metric: str, side: str, players: int, targets: "Targets | None" = None) -> float:
    """The designer's target for the lab's ``metric`` on side ``side`` (``at_most``, ``at_least``
    or ``target``) at a table of ``players``, in the metric's own unit:

    - ``length`` (rounds): the longest (at_most), shortest (at_least) or middle (target) of
      ``length_minutes`` at that count, turned into rounds at ``seconds_per_turn``;
    - ``guide_spread``: at most ``share_margin`` (the largest gap of a guide to fair);
    - ``first_player_advantage``: at most +``share_margin``, at least −``share_margin``, target 0;
    - ``stuck_3_share``: at most ``dead_streak_ceiling``;
    - ``comeback``: at least ``comeback_floor`` × the fair share (the player last at mid-game wins);
    - ``comeback_own``: at least ``comeback_floor`` (the player last at mid-game's wins against that
      player's own chance at the table: the same floor at a table of equal players, and one that
      holds a novice at a family table to a novice's chance);
    - ``skill_gap``: at least / at most the ends of ``skill_gap``, target its middle.

    Anything else raises :class:`HeronSimError` naming the metrics and sides that have a target."""
    if metric not in LAB_TARGETS or side not in LAB_TARGETS[metric][0]:
        allowed = "; ".join(f"{m} ({', '.join(s)})" for m, (s, _) in LAB_TARGETS.items())
        raise HeronSimError(f"{metric} {side} \"targets\": the designer's targets give no such goal; allowed: {allowed}")
    t = targets if targets is not None else load_targets()
    if metric == "length":
        lo, hi = (x * 60.0 / (t["seconds_per_turn"] * players) for x in t.minutes(players))
        return {"at_most": hi, "at_least": lo}.get(side, (lo + hi) / 2)
    if metric == "guide_spread":
        return float(t["share_margin"])
    if metric == "first_player_advantage":
        return {"at_most": 1.0, "at_least": -1.0}.get(side, 0.0) * float(t["share_margin"])
    if metric == "stuck_3_share":
        return float(t["dead_streak_ceiling"])
    if metric == "comeback":
        return float(t["comeback_floor"]) / players  # a share of the fair 1 / players
    if metric == "comeback_own":
        return float(t["comeback_floor"])  # a share of the player's own chance
    lo, hi = t["skill_gap"]
    return {"at_most": hi, "at_least": lo}.get(side, (lo + hi) / 2)


def _item(key: TargetKey, entry: Any, where: str) -> Target:
    """One target of the file (``entry``: its table, None when the file leaves it out)."""
    if entry is None:
        return Target(key, key.default, True, "heron-sim's default (not in the file)")
    if not isinstance(entry, dict):
        raise HeronSimError(f"{where}: expected a table with value, assumed, source")
    bad = sorted(set(entry) - {"value", "assumed", "source"})
    if bad:
        raise HeronSimError(f"{where}.{bad[0]}: unknown field; allowed: value, assumed, source")
    if "value" not in entry:
        raise HeronSimError(f"{where}.value: missing")
    assumed = entry.get("assumed", False)
    if not isinstance(assumed, bool):
        raise HeronSimError(f"{where}.assumed: {assumed!r}; allowed: true, false")
    source = entry.get("source", "")
    if not isinstance(source, str):
        raise HeronSimError(f"{where}.source: {source!r}; allowed: a string")
    return Target(key, key.parse(entry["value"], f"{where}.value"), assumed, source)


def parse_targets(data: dict, path: str = "<targets>") -> Targets:
    name = Path(path).name
    unknown = sorted(set(data) - set(_BY_NAME) - {"game"})
    if unknown:
        raise HeronSimError(f"{name}: [{unknown[0]}]: unknown target; allowed: {', '.join(_BY_NAME)}, game.NAME")
    items = {key.name: _item(key, data.get(key.name), f"{name}: [{key.name}]") for key in TARGETS}
    sections = data.get("game", {})
    if not isinstance(sections, dict):
        raise HeronSimError(f"{name}: [game]: expected one table per lighter game, e.g. [game.rampage]")
    games = {}
    for g, body in sections.items():
        if not _GAME_NAME.fullmatch(g):
            raise HeronSimError(f"{name}: [game.{g}]: not a game's name; allowed: its command-line name, e.g. rampage")
        games[g] = GameTargets(g, _game_items(g, body, name), in_file=True)
    return Targets(items, str(path), games)


def load_targets(path: str | Path | None = None) -> Targets:
    """The targets of ``path`` (None: ``$HERON_SIM_TARGETS``, else experiments/targets.toml, else
    the defaults, every one assumed)."""
    if path is None:
        env = os.environ.get("HERON_SIM_TARGETS")
        path = Path(env) if env else DEFAULT_PATH
        if not env and not path.is_file():
            return parse_targets({}, "<defaults>")
    return _load(str(Path(path)))


@lru_cache(maxsize=8)
def _load(path: str) -> Targets:
    from ..tomlfile import read_toml

    # the one reader of TOML files: a missing, unreadable, non-UTF-8, too large, malformed or too
    # deeply nested file is one line, as for rules files
    return parse_targets(read_toml(path, "targets"), path)


def targets_text(t: Targets, lang: str = "en") -> str:
    """The targets as a designer reads them, one per line, the assumed ones marked."""
    lines = [f"targets from {t.path or 'the defaults'}:"]
    for name, item in t.items.items():
        v = item.value
        if name == "length_minutes":
            v = "; ".join(f"{p} players {lo:g}-{hi:g} min" for p, (lo, hi) in v.items())
        elif isinstance(v, tuple):
            v = f"{v[0]:g} to {v[1]:g}"
        else:
            v = f"{v:g}"
        mark = "ASSUMED" if item.assumed else "set"
        words = item.key.fr if lang == "fr" else item.key.en
        lines.append(f"  {name} = {v}  [{mark}]  {words}" + (f" ({item.source})" if item.source else ""))
    for g, gt in t.games.items():
        lines.append(f"  [game.{g}]")
        for k, item in gt.items.items():
            v = item.value
            if v is None:
                v = "none (its length is not judged)"
            elif isinstance(v, dict):
                v = "; ".join(f"{p} players {lo:g}-{hi:g} rounds" for p, (lo, hi) in v.items())
            else:
                v = f"{v:g}"
            mark = "ASSUMED" if item.assumed else "set"
            words = item.key.fr if lang == "fr" else item.key.en
            lines.append(f"    {k} = {v}  [{mark}]  {words}" + (f" ({item.source})" if item.source else ""))
    n = len(t.assumed())
    lines.append(f"{n} of {len(t.items)} targets are assumed: verdicts resting on them say so." if n
                 else "every target is set by the designer.")
    if t.games:
        ga = sum(len(g.assumed()) for g in t.games.values())
        gn = sum(len(g.items) for g in t.games.values())
        lines.append(f"lighter games: {ga} of {gn} targets are assumed." if ga else
                     "lighter games: every target is set by the designer.")
    return "\n".join(lines)


__all__ = ["DEFAULT_PATH", "GAME_TARGETS", "TARGETS", "default", "game_defaults", "GameTargets", "Target", "TargetKey", "Targets", "load_targets", "parse_targets",
           "targets_text"]
