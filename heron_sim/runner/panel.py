"""Panels of tables: the scenarios a balance claim or a rule change is judged on.

A proposal must hold at every table, not at one. A *scenario* is one table: a player count and
the strategies seated there (rotated over the seats so that every strategy sits in every seat
equally often, :func:`heron_sim.runner.run.seatings`), optionally in another dice mode than the
study's. A *panel* is a list of scenarios; the lab aggregates each objective over its panel.

The default Héron panel (issue 58 item 1) seats people at the tables they sit at: players of
one skill (four casual, four regular, four expert players), families of mixed skill (an expert
with novices at 3, 4 and 6 players, two experts and two novices), a bold beginner among regulars,
and the skill ladder's rungs (heron_sim.strategies.human: ``novice``, ``casual``, ``regular``,
``expert`` on top) in turn at 2, 5 and 7 players. A proposal must hold for novices and for experts
alike, at the family table as at the club, and no table of the panel is a player nobody is.

    >>> [s.name for s in DEFAULT_PANEL]  # doctest: +NORMALIZE_WHITESPACE
    ['casual-4', 'regular-4', 'expert-4', 'family-4', 'pairs-4', 'bold-4', 'family-3', 'family-6',
     'rungs-2', 'rungs-5', 'rungs-7']
    >>> FAMILY_4.seatings()[:2]
    [['expert', 'novice', 'novice', 'novice'], ['novice', 'novice', 'novice', 'expert']]

The ladder's panel (``panel = "ladder"``) is the default panel of issue 28, kept table for table
so that a study of that time replays its games:

    >>> [s.name for s in LADDER_PANEL]
    ['casual-4', 'regular-4', 'expert-4', 'rungs-2', 'rungs-3', 'rungs-5', 'rungs-6', 'rungs-7']

The panel of bots (``panel = "bots"`` in a tune file) is the default panel of issue 17, kept
table for table so that a study of that time replays its games: four players with the AI mix
(greedy, prudent, expert, racer rotated), four greedy players (the rulings' exact reference),
four expert players, and the AI mix at 2, 3, 5 and 6 players.

    >>> [s.name for s in BOTS_PANEL]
    ['mix-4', 'greedy-4', 'expert-4', 'mix-2', 'mix-3', 'mix-5', 'mix-6']
"""

from __future__ import annotations

from dataclasses import dataclass

from ..glossary import MIXED_TABLE_PLAYERS, PLAYER_WORDS  # each player's words, re-exported (the glossary holds them)

#: The AI mix: the four standard players, rotated over the seats.
AI_MIX: tuple[str, ...] = ("greedy", "prudent", "expert", "racer")
#: The skill ladder's rungs, weakest first (heron_sim.strategies.human.RUNGS; ``expert`` on top).
LADDER: tuple[str, ...] = ("novice", "casual", "regular", "expert")


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
    role : str
        ``""`` for a table of the panel; ``"skill"`` for the skill scenario the lab adds when an
        objective or a constraint names a skill metric (:data:`SKILL_SCENARIO`): only those
        metrics are measured there, and only there.
    """

    name: str
    players: int
    strategies: tuple[str, ...]
    mode: str | None = None
    role: str = ""

    def seatings(self) -> list[list[str]]:
        """The rotation of seatings this scenario plays (one list of names per seating)."""
        from .run import seatings

        return seatings(list(self.strategies), self.players)

    def describe(self) -> str:
        """The table in words: ``"4 players: greedy, prudent, expert, racer (rotated)"``."""
        names = list(dict.fromkeys(self.strategies))
        if len(names) > 1 and len(self.strategies) == self.players:  # one player a seat: said with counts
            return f"{self.players} players{f', {self.mode}' if self.mode else ''}: " \
                f"{table_words(Scenario(self.name, self.players, self.strategies), 'en')} (seats rotated)"
        who = names[0] if len(names) == 1 else ", ".join(names) + " (rotated)"
        mode = f", {self.mode}" if self.mode else ""
        return f"{self.players} players{mode}: {who}"


def seating_names(value, where: str = "") -> tuple[str, ...]:
    """A tune file's ``seating`` (one name, a comma string or a list of names) as strategy names,
    each checked (an unknown name or parameter is one error naming ``where``)."""
    from ..errors import HeronSimError
    from ..strategies import parse_strategy

    if isinstance(value, str):
        names = [s.strip() for s in value.split(",")]
    elif isinstance(value, list) and value and all(isinstance(s, str) for s in value):
        names = list(value)
    else:
        raise HeronSimError(f"{where}seating: {value!r}; allowed: a strategy name or a list of names")
    for n in names:
        try:
            parse_strategy(n)
        except HeronSimError as err:
            raise HeronSimError(f"{where}seating: {err}") from None
    return tuple(names)


#: The ladder's panel (issue 28; the default panel until issue 58): four casual, four regular and
#: four expert players, and the ladder's four rungs rotated over the seats at 2, 3, 5, 6 and 7
#: players, kept table for table (``panel = "ladder"``) so that a study of that time replays.
LADDER_PANEL: tuple[Scenario, ...] = (
    Scenario("casual-4", 4, ("casual",)),
    Scenario("regular-4", 4, ("regular",)),
    Scenario("expert-4", 4, ("expert",)),
    *(Scenario(f"rungs-{p}", p, LADDER) for p in (2, 3, 5, 6, 7)),
)

#: The panel of bots (the default panel of issue 17, table for table).
BOTS_PANEL: tuple[Scenario, ...] = (
    Scenario("mix-4", 4, AI_MIX),
    Scenario("greedy-4", 4, ("greedy",)),
    Scenario("expert-4", 4, ("expert",)),
    Scenario("mix-2", 2, AI_MIX),
    Scenario("mix-3", 3, AI_MIX),
    Scenario("mix-5", 5, AI_MIX),
    Scenario("mix-6", 6, AI_MIX),
)


#: Tables people sit at (issue 58 item 1): players of different skill at one table, one player
#: per name, the seating rotated so that every player sits in every seat equally often — the
#: tables of :data:`heron_sim.glossary.MIXED_TABLE_PLAYERS`, declared there once with their words.
MIXED_TABLES: dict[str, Scenario] = {name: Scenario(name, len(names), names)
                                     for name, names in MIXED_TABLE_PLAYERS.items()}
FAMILY_3, FAMILY_4, PAIRS_4, FAMILY_5, FAMILY_6, FAMILY_7 = (
    MIXED_TABLES[n] for n in ("family-3", "family-4", "pairs-4", "family-5", "family-6", "family-7"))
BOLD_4, CLUB_3, CLUB_4, CLUB_6 = (MIXED_TABLES[n] for n in ("bold-4", "club-3", "club-4", "club-6"))
EXPERTS_REGULARS_4, CHAMPION_2 = MIXED_TABLES["experts-regulars-4"], MIXED_TABLES["champion-2"]

#: The default Héron panel (issue 58 item 1): the tables people sit at — players of one skill at
#: 4 (casual, regular, expert), the family tables (1 expert and 3 novices, 2 experts and 2 novices
#: at 4; 1 expert and 2 novices at 3; 2 experts and 4 novices at 6), a bold beginner among three
#: regulars, and the ladder's four rungs in turn at 2, 5 and 7 players: every count 2 to 7.
DEFAULT_PANEL: tuple[Scenario, ...] = (
    Scenario("casual-4", 4, ("casual",)),
    Scenario("regular-4", 4, ("regular",)),
    Scenario("expert-4", 4, ("expert",)),
    FAMILY_4, PAIRS_4, BOLD_4, FAMILY_3, FAMILY_6,
    *(Scenario(f"rungs-{p}", p, LADDER) for p in (2, 5, 7)),
)

#: Panels by the designer's audience (``panel = "family"``, ``"club"``, ``"expert"``): the tables
#: the game will be played at.
FAMILY_PANEL: tuple[Scenario, ...] = (Scenario("casual-4", 4, ("casual",)), FAMILY_3, FAMILY_4, PAIRS_4, FAMILY_6)
CLUB_PANEL: tuple[Scenario, ...] = (Scenario("regular-4", 4, ("regular",)), CLUB_3, CLUB_4, BOLD_4, CLUB_6)
EXPERT_PANEL: tuple[Scenario, ...] = (Scenario("expert-2", 2, ("expert",)), Scenario("expert-3", 3, ("expert",)),
                                      Scenario("expert-4", 4, ("expert",)), Scenario("expert-6", 6, ("expert",)),
                                      EXPERTS_REGULARS_4)

#: The held-out tables of the check before "fix" (issue 58 item 2): mixed skill at 2 to 7 players,
#: none of them in the default panel — club tables at 3, 4 and 6, 2 experts and 2 regulars, the
#: family tables at 5 and 7, and the champion against a regular (the strongest player there is,
#: seated where its worth of positions is built for two rules sets only: the study's and its
#: answer's). A table the study's panel already holds (the same count and the same players) is left
#: out of its check (:func:`held_out_tables`).
HELD_OUT: tuple[Scenario, ...] = (CLUB_3, CLUB_4, EXPERTS_REGULARS_4, FAMILY_5, CLUB_6, FAMILY_7, CHAMPION_2)


def _same_table(a: "Scenario", b: "Scenario") -> bool:
    from collections import Counter

    return a.players == b.players and (a.mode or "") == (b.mode or "") and (
        Counter(a.strategies) == Counter(b.strategies)
        or sorted(map(sorted, a.seatings())) == sorted(map(sorted, b.seatings())))


def held_out_tables(panel) -> tuple[Scenario, ...]:
    """:data:`HELD_OUT` less the tables ``panel`` already holds (the same count and players)."""
    return tuple(h for h in HELD_OUT if not any(_same_table(h, sc) for sc in panel or ()))


def player_words(name: str, n: int, lang: str) -> str:
    """``n`` players of strategy ``name`` in words: "2 experts", « 3 débutants »."""
    base = name.split(":")[0]
    one, many = PLAYER_WORDS[lang].get(base, (name, name))
    return f"{n} {one if n == 1 else many}"


def table_words(sc: "Scenario", lang: str = "en") -> str:
    """A table in a designer's words, never its id: "1 expert and 3 novices", « 2 experts et 2
    débutants », "4 casual players", « 4 joueurs occasionnels »; a rotation of more names than
    seats (the ladder's rungs): "5 players: novice, casual, regular, expert in turn"."""
    from ..glossary import counted_players

    if lang not in ("en", "fr"):
        from ..errors import HeronSimError

        raise HeronSimError(f"--lang: {lang!r}; allowed: fr, en")
    names = list(sc.strategies)
    mode = f" ({sc.mode})" if sc.mode else ""
    if len(set(names)) == 1:
        return player_words(names[0], sc.players, lang) + mode
    if len(names) == sc.players:
        return counted_players(names, lang) + mode
    one = [PLAYER_WORDS[lang].get(n.split(":")[0], (n, n))[0] for n in dict.fromkeys(names)]
    return ({"fr": f"{sc.players} joueurs : {', '.join(one)} à tour de rôle",
             "en": f"{sc.players} players: {', '.join(one)} in turn"}[lang]) + mode


#: The table of the skill gap (heron_sim.lab.metrics.SKILL_METRICS): the expert against the novice,
#: 2 players, in the study's mode, seats (and the guides dealt to them) rotated.
SKILL_SCENARIO = Scenario("skill-2", 2, ("expert", "novice"), None, "skill")

#: The panels a tune file names (``panel = "..."``).
PANELS: dict[str, tuple[Scenario, ...]] = {"default": DEFAULT_PANEL, "ladder": LADDER_PANEL, "bots": BOTS_PANEL,
                                           "family": FAMILY_PANEL, "club": CLUB_PANEL, "expert": EXPERT_PANEL}

#: How an objective's per-scenario losses become the study's one loss.
AGGREGATES = ("worst", "mean")


def parse_panel(data: dict, players: int | None, seating, where: str, *, mode: str | None = None
                ) -> tuple[tuple[Scenario, ...], str]:
    """The panel of a tune file: ``panel = "default"`` (:data:`DEFAULT_PANEL`, the ladder's
    rungs) or ``panel = "bots"`` (:data:`BOTS_PANEL`), ``[[scenario]]`` tables (name, players,
    seating, optional mode), or neither: a panel of one built from the top-level ``players`` and
    ``seating``. Returns (scenarios, aggregate)."""
    from ..errors import HeronSimError
    from ..rules import MODES

    aggregate = data.get("aggregate", "worst")
    if aggregate not in AGGREGATES:
        raise HeronSimError(f"{where}aggregate: {aggregate!r}; allowed: {', '.join(AGGREGATES)}")
    panel = data.get("panel")
    raw = data.get("scenario")
    if panel is not None and raw is not None:
        raise HeronSimError(f"{where}panel: give panel = {panel!r} or [[scenario]] tables, not both")
    if panel is not None:
        if not isinstance(panel, str) or panel not in PANELS:
            raise HeronSimError(f"{where}panel: {panel!r}; allowed: "
                                + ", ".join(f'"{k}"' for k in PANELS) + " (or [[scenario]] tables)")
        if "players" in data or "seating" in data:
            raise HeronSimError(f"{where}players/seating: the {panel} panel sets its own tables; "
                                "remove players and seating (or give [[scenario]] tables)")
        return PANELS[panel], aggregate

    names_of = seating_names

    if raw is None:
        names = names_of(seating if seating is not None else "greedy", where)
        return (Scenario("table", players or 4, names),), aggregate
    if not isinstance(raw, list) or not raw or any(not isinstance(x, dict) for x in raw):
        raise HeronSimError(f"{where}scenario: expected [[scenario]] tables")
    if "players" in data or "seating" in data:
        raise HeronSimError(f"{where}players/seating: give them in each [[scenario]] table instead")
    out: list[Scenario] = []
    for i, s in enumerate(raw):
        w = f"{where}scenario[{i}]."
        unknown = sorted(set(s) - {"name", "players", "seating", "mode"})
        if unknown:
            raise HeronSimError(f"{w}{unknown[0]}: unknown field; allowed: name, players, seating, mode")
        p = s.get("players")
        if isinstance(p, bool) or not isinstance(p, int) or not 2 <= p <= 7:
            raise HeronSimError(f"{w}players: {p!r}; allowed: an integer 2..7")
        names = names_of(s.get("seating", "greedy"), w)
        m = s.get("mode")
        if m is not None and m not in MODES:
            raise HeronSimError(f"{w}mode: {m!r}; allowed: {', '.join(MODES)}")
        name = s.get("name", f"{'mix' if len(set(names)) > 1 else names[0].split(':')[0]}-{p}"
                     + (f"-{m}" if m else ""))
        if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_" for c in name):
            raise HeronSimError(f"{w}name: {name!r}; allowed: letters, digits, - and _")
        if any(x.name == name for x in out):
            raise HeronSimError(f"{w}name: {name!r} is used twice; give each scenario its own name")
        out.append(Scenario(name, p, names, m))
    return tuple(out), aggregate
