"""The page's rules form, generated from ``defaults.toml`` and the rules' validation, and the
reading of what the page sends back into validated :class:`~heron_sim.rules.Rules`.

Nothing here lists the rules keys by hand: every key of ``heron_sim/rules/data/defaults.toml``
becomes a field, typed and bounded by the rules' own validation table
(``heron_sim.rules.rules._SCALARS``: type, min, max, from the table of rules keys
heron_sim.rules.keys), labelled, explained (the rule at the rulings' value, in the booklet's
words) and grouped as the booklet is from that table, in French or English (the file's comment,
under "other rules", for a key the table does not hold). A key the form does not know how to draw (a new table, a
list) becomes a TOML text field validated by :meth:`Rules.build` like any other. So a key added
to the rules (and to ``defaults.toml``) appears on the page without a change here.

Every bad value is one message tied to its field (``{"anxiety_threshold": "anxiety_threshold:
0 is out of range; allowed: 1..99"}``), never an exception out of this module.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ..animals import NAMES as ANIMALS
from ..errors import HeronSimError
from ..runner.panel import AI_MIX, DEFAULT_PANEL, LADDER, MIXED_TABLES, PLAYER_WORDS, Scenario, table_words
from ..rules import MODES, Rules
from ..rules import rules as _R
from ..rules.board import EFFECT_NAMES
from ..i18n import FIELD_LABELS, game_words, gettext, number
from ..rules.keys import GROUPS, KEYS
from ..rules.words import EFFECTS, GUIDES, SQUARES

#: Keys the page sets above the rules form (they describe the table, not a rule change).
SCENARIO_KEYS = ("mode", "players")
#: Games per side the page offers (the run stops there; the copied command plays as many).
GAMES_CHOICES = (20_000, 50_000, 100_000, 200_000, 500_000)
DEFAULT_GAMES = 100_000
#: The games per side a request may ask (the page's choices span it).
GAMES_RANGE = (20_000, 500_000)
#: A text field where any other rules TOML may be written (dice faces, a key the form lacks).
EXTRA = "extra"


# ---------------------------------------------------------------- defaults.toml, read as text
@lru_cache(maxsize=1)
def _defaults_text() -> str:
    return resources.files("heron_sim.rules").joinpath("data/defaults.toml").read_text(encoding="utf-8")


_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)(?:\s+#\s?(.*))?$")
_TABLE_LINE = re.compile(r"^\[([A-Za-z_][A-Za-z0-9_.]*)\]\s*$")


@lru_cache(maxsize=1)
def file_layout() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(help of each key, group title of each key, help of each table) from the comments of
    ``defaults.toml``: a key's trailing comment and the indented comment lines under it; at the
    top level a comment line at the left margin between keys opens a group; in a ``[table]`` the
    comment lines before a key are its help (those before the first key, the table's), and
    commented-out keys (``# count = 9``) are examples, skipped."""
    helps: dict[str, str] = {}
    groups: dict[str, str] = {}
    tables: dict[str, str] = {}
    group = "The race"
    last_key: str | None = None
    table: str | None = None
    seen_key = False
    pending: list[str] = []
    first_in_table = False
    for raw in _defaults_text().splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        m = _TABLE_LINE.match(line)
        if m:
            table, last_key, pending, first_in_table = m.group(1), None, [], True
            tables.setdefault(table, "")
            continue
        if line.lstrip().startswith("#"):
            text = line.lstrip()[1:].strip()
            if raw[:1].isspace() and last_key is not None:
                helps[last_key] = (helps.get(last_key, "") + " " + text).strip()
            elif table is not None:
                if not _COMMENTED_KEY.match(text):
                    pending.append(text)
            elif seen_key:
                group = text.rstrip(":").strip()
                last_key = None
            continue
        m = _KEY_LINE.match(line)
        if m:
            key = m.group(1) if table is None else f"{table}.{m.group(1)}"
            seen_key = True
            parts = list(pending) + ([m.group(3).strip()] if m.group(3) else [])
            if table is not None and pending and first_in_table:
                tables[table] = " ".join(pending)
                parts = parts[len(pending):]
            first_in_table = False
            if parts:
                helps[key] = " ".join(parts)
            pending = []
            if table is None:
                groups[key] = group
            last_key = key
    return helps, groups, tables


_COMMENTED_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\s*=\s*(\[|\"|\d|\{|true|false)")


# ---------------------------------------------------------------- the schema the page draws
def validation_table() -> dict:
    """The rules' validation of each scalar key: ``{key: (type, min, max)}``."""
    return _R._SCALARS


def rules_table() -> dict:
    """The rules' defaults (``defaults.toml`` as a table): the form has one field per key."""
    return _R.default_table()


def _key_words(key: str, lang: str = "en") -> dict:
    """A rules key's words from the table of rules keys (heron_sim.rules.keys): its label (the
    rule's name on a rule sheet, in ``lang``), the rule at the rulings' value in the booklet's
    words (``explain``), its booklet group and its name in both languages; nothing for a key the
    table does not hold (it keeps the defaults file's comment)."""
    k = KEYS.get(key)
    if k is None:
        return {}
    base = {"fr": k.title_fr, "en": game_words(k.title_en)}
    return {"help": k.help, "group_id": k.group, "title": base, "label": base[lang]}


def explain(key: str, value: Any, lang: str) -> str:
    """The rule of ``key`` at ``value`` in the booklet's words ("" for a key the table lacks)."""
    k = KEYS.get(key)
    if k is None:
        return ""
    try:
        text = k.sentence(tuple(value) if k.kind == "seats" else value, lang)
    except (TypeError, ValueError, KeyError):
        return ""
    return text if lang == "fr" else game_words(text)


def allowed(f: dict, lang: str) -> str:
    """The values a field takes, in words: ``de 1 à 99`` / ``1 to 99``, ``oui ou non``."""
    t = f.get("type")
    if t == "bool":
        return tr("on or off", lang)
    if t in ("int", "float") and f.get("min") is not None:
        lo = number(f["min"], 0, lang)
        if f.get("max") is None:
            return tr("{lo} or more", lang).format(lo=lo)
        return tr("{lo} to {hi}", lang).format(lo=lo, hi=number(f["max"], 0, lang))
    return ""


def _label(key: str) -> str:
    return key.split(".")[-1].replace("_", " ")


#: Fields the table of rules keys does not hold: (group id, English label, English explanation).
#: Their French is in the catalogue (heron_sim/locale/fr.po).
OTHER_FIELDS = {
    "disabled_powers": ("guides", FIELD_LABELS["disabled_powers"],
                        "Switch off some guides' one-shot powers only (the Puissance du Guide stays)."),
    "combinations.advance": ("combinaisons", FIELD_LABELS["combinations.advance"],
                             "The squares a turn gains, by the size of its largest set of one animal (herons "
                             "aside); a larger set than the list holds gains its last value."),
    "combinations.effect": ("combinaisons", FIELD_LABELS["combinations.effect"],
                            "What a large set does besides moving: regenerate your guide, swap it, or choose."),
    "dice.count": ("lancer", FIELD_LABELS["dice.count"],
                   "The dice rolled each turn (8 D8: that many D8; 10 D6: the first dice of the ten)."),
    "board.squares": ("cases", FIELD_LABELS["board.squares"],
                      "A square's number and its effect; “no effect” removes a special square."),
    EXTRA: ("autres", FIELD_LABELS[EXTRA],
            "Any other rules in TOML, applied last, e.g. [dice] faces = [[...], ...]"),
}
#: The groups of the form, in the booklet's order (heron_sim.rules.keys.GROUPS), then the rest.
FORM_GROUPS = tuple(g[0] for g in GROUPS) + ("autres",)


def group_title(gid: str, lang: str) -> str:
    for g, fr, en in GROUPS:
        if g == gid:
            return fr if lang == "fr" else game_words(en)
    return tr("Other rules", lang) if gid == "autres" else gid


def tr(msgid: str, lang: str) -> str:
    """``msgid`` (English) in ``lang``, from the catalogue."""
    return gettext(msgid, lang)


def strategy_labels(lang: str) -> dict[str, str]:
    """Each seat's player in words (the input keeps the player's name, which the command line
    takes: ``novice``, ``expert``, ``human:temp=...``)."""
    words = {
        "reckless": tr("bold beginner: the novice's skill, rerolls nearly whenever allowed", lang),
        "novice": tr("novice player (ladder rung 1)", lang),
        "casual": tr("casual player (ladder rung 2)", lang),
        "regular": tr("regular player (ladder rung 3)", lang),
        "expert": tr("expert player (ladder rung 4)", lang),
        "human": tr("human-like player (temp, caution, forget)", lang),
        "greedy": tr("greedy bot: the rulings' reference", lang),
        "prudent": tr("prudent bot", lang),
        "racer": tr("racer bot (the expert, racing)", lang),
        "champion": tr("champion: plays every decision for its chance of winning the game", lang),
        "random": tr("random choices (not a player)", lang),
    }
    from ..simulation import user_strategies

    return {n: words.get(n, n) for n in user_strategies()}


def _scalar_field(key: str, default: Any, helps: dict, lang: str = "en") -> dict:
    spec = validation_table().get(key)
    f: dict[str, Any] = {"key": key, "label": _label(key), "help": helps.get(key, ""), "default": default,
                         **_key_words(key, lang)}
    if spec is not None and isinstance(spec, tuple) and len(spec) == 3:
        kind, lo, hi = spec
        if kind is bool:
            f["type"] = "bool"
        elif kind in (int, float):
            f.update(type="int" if kind is int else "float", min=lo, max=hi)
        else:
            f.update(type="toml", default=_toml(default))
        return f
    # a key the validation table does not describe: typed by its default (bounds: the rules')
    if isinstance(default, bool):
        f["type"] = "bool"
    elif isinstance(default, int):
        f["type"] = "int"
    elif isinstance(default, float):
        f["type"] = "float"
    else:
        f.update(type="toml", default=_toml(default))
    return f


def _other(key: str, lang: str, **f) -> dict:
    gid, label, words = OTHER_FIELDS[key]
    return {"key": key, "group_id": gid, "label": tr(label, lang), "explain": tr(words, lang), **f}


def schema(mode: str = "8d8", players: int = 4, lang: str = "en") -> dict:
    """What the page draws for ``mode`` and ``players``: the scenario fields (mode, players,
    seats, seed, games) and the rules form in the booklet's groups (heron_sim.rules.keys.GROUPS),
    each field with its type, default (the rulings for this mode), allowed values, its label
    and the rule in the booklet's words in ``lang`` (``fr`` or ``en``), and the defaults file's
    help line."""
    from ..simulation import user_strategies

    base = Rules.build(mode=mode, players=players)
    full = base.to_table()
    table = rules_table()
    # the defaults file's comment headers no longer group the form: the booklet's groups do (issue 33)
    helps, _file_groups, table_help = file_layout()
    groups: dict[str, list[dict]] = {}

    def add(f: dict) -> None:
        f.setdefault("group_id", "autres")
        if f["key"] in KEYS:
            f.setdefault("explain", explain(f["key"], f["default"], lang))
        f["allowed"] = allowed(f, lang)
        groups.setdefault(f["group_id"], []).append(f)

    guides = GUIDES[lang]
    for key, default in table.items():
        if key in SCENARIO_KEYS:
            continue
        if key == "disabled_powers":
            add(_other(key, lang, type="multi", choices=list(ANIMALS), help=helps.get(key, ""),
                       choice_labels={a: guides.get(a, a) for a in ANIMALS}, default=list(full.get(key, default))))
        elif key == "combinations":
            n = base.n_dice + 1
            sizes = [tr("set of {n}", lang).format(n=s) for s in range(n)]
            add(_other("combinations.advance", lang, type="list-int", min=0, max=None, labels=sizes,
                       default=list(full["combinations"]["advance"]), help=table_help.get("combinations", "")))
            add(_other("combinations.effect", lang, type="list-choice", choices=list(_R.COMBO_EFFECTS), labels=sizes,
                       choice_labels={e: EFFECTS[lang].get(e, e) for e in _R.COMBO_EFFECTS},
                       default=list(full["combinations"]["effect"]), help=helps.get("combinations.effect", "")))
        elif key == "dice":
            add(_other("dice.count", lang, type="int", min=1, max=16, default=base.n_dice,
                       help="change the number of dice of the mode (a D8 mode: that many D8; 10d6: the first N "
                            "historic D6)"))
        elif key == "board":
            add(_other("board.squares", lang, type="squares", choices=list(EFFECT_NAMES), min=1, max=base.finish - 1,
                       choice_labels={e: square_name(e, lang) for e in EFFECT_NAMES},
                       default=dict(full["board"]["squares"]), help="square number and effect; 'neutral' removes a square"))
        elif key in getattr(_R, "_SEAT_LISTS", {}):  # a value by seat: one box per seat at the table
            values = list(base.seat_values(key)) if hasattr(base, "seat_values") else [0] * players
            add({"key": key, "label": _label(key), "type": "list-int", "min": 0, "max": None,
                 "labels": [tr("player {n}", lang).format(n=s + 1) for s in range(players)], "default": values,
                 "help": helps.get(key, ""), **_key_words(key, lang)})
        elif isinstance(default, dict):  # a table the form does not know: one TOML field per key
            for sub, v in default.items():
                add(_scalar_field(f"{key}.{sub}", v, helps, lang))
        else:
            add(_scalar_field(key, full.get(key, default), helps, lang))
    # validated keys that the defaults file does not list (still part of the rules)
    for key in validation_table():
        if key not in table and key not in SCENARIO_KEYS:
            add(_scalar_field(key, getattr(base, key, None), helps, lang))
    add(_other(EXTRA, lang, type="text", default="",
               help="any other rules keys in TOML, applied last, e.g. [dice] faces = [[...], ...]"))
    order = [g for g in FORM_GROUPS if g in groups] + [g for g in groups if g not in FORM_GROUPS]
    return {
        "lang": lang,
        "scenario": {
            "mode": {"key": "mode", "type": "choice", "choices": list(MODES), "default": mode,
                     "help": helps.get("mode", "")},
            "players": {"key": "players", "type": "int", "min": _R._SCALARS["players"][1],
                        "max": _R._SCALARS["players"][2], "default": players, "help": helps.get("players", "")},
            "strategies": user_strategies(),
            "strategy_labels": strategy_labels(lang),
            "ai_mix": list(AI_MIX),
            "people": [n for n in PEOPLE if n in user_strategies()],
            "bots": [n for n in BOTS if n in user_strategies()],
            "player_names": player_names(lang),
            "tables": page_tables(lang),
            "default_table": DEFAULT_TABLE,
            "seats": default_seats(players),
            "games": list(GAMES_CHOICES),
            "default_games": DEFAULT_GAMES,
        },
        "groups": [{"id": g, "title": group_title(g, lang), "fields": groups[g]} for g in order],
        "base_digest": base.digest(),
    }


def square_name(effect: str, lang: str) -> str:
    """A special square's effect in a word or two (the select's options): the guide's name for
    an animal square, the square's own name otherwise (heron_sim.rules.words.SQUARES)."""
    if effect in GUIDES[lang]:
        return GUIDES[lang][effect]
    words = SQUARES[lang].get(effect, effect)
    return words.split(":")[0].strip() if ":" in words else words


#: The players of the skill ladder, weakest first, and the bold beginner (heron_sim.runner.panel's
#: people): the page offers them first, by their names in the page's language; ``expert`` is the
#: top of the ladder (there is no champion above it, heron_sim.runner.panel).
PEOPLE = ("novice", "casual", "regular", "reckless", "expert")
#: The bots (and the parametrised player), offered below the people.
BOTS = ("greedy", "prudent", "racer", "human", "random")


def _page_tables() -> list[tuple[str, str, Scenario]]:
    """The tables the page opens on: (id, group, table), one player a seat (a rotation of more
    names than seats cannot be one name a seat): the lab's default panel at 4 players, the skill
    ladder's four rungs at one table, the lab's mixed tables (heron_sim.runner.panel.MIXED_TABLES),
    and the bots' AI mix last."""
    out = [(sc.name, "panel", sc) for sc in DEFAULT_PANEL if len(set(sc.strategies)) == 1]
    out.append(("rungs-4", "panel", Scenario("rungs-4", 4, LADDER)))
    out += [(name, "mixed", sc) for name, sc in MIXED_TABLES.items()]
    out.append(("mix-4", "bots", Scenario("mix-4", 4, AI_MIX)))
    return out


#: The table the page opens on: the lab's default panel's « 4 habitués » (people, not bots).
DEFAULT_TABLE = "regular-4"


def page_tables(lang: str) -> list[dict]:
    """The tables the page offers, in ``lang``'s words (heron_sim.runner.panel.table_words): id,
    group (``panel``, ``mixed``, ``bots``), label, players and one player name a seat."""
    out = []
    for tid, group, sc in _page_tables():
        seats = [sc.strategies[i % len(sc.strategies)] for i in range(sc.players)]
        out.append({"id": tid, "group": group, "label": table_words(sc, lang), "players": sc.players, "seats": seats})
    return out


def player_names(lang: str) -> dict[str, str]:
    """Each player's name in ``lang`` (« débutant », « habitué », « robot gourmand »: the lab's
    words, heron_sim.runner.panel.PLAYER_WORDS), for the seats' choices."""
    words = {n: w[0] for n, w in PLAYER_WORDS[lang].items()}
    words["human"] = tr("parametrised player", lang)
    return {n: words.get(n, n) for n in PEOPLE + BOTS}


def default_seats(players: int) -> list[str]:
    """The page's default table (:data:`DEFAULT_TABLE`: people, the lab's regulars) at
    ``players`` seats."""
    sc = next(sc for tid, _, sc in _page_tables() if tid == DEFAULT_TABLE)
    return [sc.strategies[i % len(sc.strategies)] for i in range(players)]


def _toml(v: Any) -> str:
    from ..lab.outputs import _toml_value

    try:
        return _toml_value(v)
    except TypeError:
        return repr(v)


# ---------------------------------------------------------------- what the page sends back
@dataclass
class Setup:
    """A validated request of the page: the table (mode, players, seating) and the two rule sets."""

    mode: str
    players: int
    seats: list[str]
    rotate: bool
    seed: int
    games: int
    overrides: dict
    base: Rules
    variant: Rules
    seatings: list[list[str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.base != self.variant


class FormErrors(HeronSimError):
    """Bad values of the page, by field (``errors``: {field key: one-line message})."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(errors.values()))
        self.errors = errors


_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _coerce(value: Any, kind: str | None) -> Any:
    """A field's value as typed in the page (strings from inputs) in the rules' types; what does
    not convert is passed on unchanged so that the rules' validation names it."""
    if isinstance(value, str):
        s = value.strip()
        if kind in ("int", "float") and _INT.match(s):
            return int(s)
        if kind == "float" and _FLOAT.match(s):
            return float(s)
        if kind == "bool" and s.lower() in ("true", "false"):
            return s.lower() == "true"
        if kind == "toml":
            try:
                doc = tomllib.loads(f"v = {s}")
            except tomllib.TOMLDecodeError:
                return s
            # "[1]\nx = 2" holds a second assignment: passed on as typed (the validation names
            # it) rather than cut to its first value in silence
            return doc["v"] if set(doc) == {"v"} else s
        return s
    if isinstance(value, float) and kind == "int" and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_coerce(v, "int" if kind == "list-int" else None) for v in value]
    return value


def _field_types(mode: str, players: int) -> dict[str, str]:
    try:
        sch = schema(mode, players)
    except HeronSimError:
        sch = schema()
    return {f["key"]: f["type"] for g in sch["groups"] for f in g["fields"]}


def _where(message: str, keys) -> str:
    """The field a rules message is about: the longest known key that starts the message."""
    head = message.split(":", 1)[0].strip()
    best = ""
    for k in keys:
        if (head == k or head.startswith(k + ".") or head.startswith(k + "[")) and len(k) > len(best):
            best = k
    if not best:
        top = head.split(".")[0].split("[")[0]
        best = next((k for k in keys if k.split(".")[0] == top), EXTRA)
    return best


def overrides_of(values: dict, types: dict[str, str]) -> tuple[dict, dict[str, str]]:
    """The rules overrides (TOML keys) of the form's values, and the errors of what could not
    be read (the extra TOML text)."""
    out: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key, raw in (values or {}).items():
        if key == EXTRA:
            if raw is not None and not isinstance(raw, str):
                errors[EXTRA] = f"other rules: expected TOML text, got {type(raw).__name__}"
                continue
            text = (raw or "").strip()
            if not text:
                continue
            try:
                extra = tomllib.loads(text)
            except tomllib.TOMLDecodeError as err:
                errors[EXTRA] = f"other rules: malformed TOML: {err}"
                continue
            for k, v in _flatten(extra).items():
                out[k] = v
            continue
        if key in SCENARIO_KEYS:
            errors[key] = f"{key}: set it above the rules form"
            continue
        if key not in types:
            errors.setdefault(EXTRA, f"{key}: unknown rules key; allowed: {', '.join(sorted(types))}")
            continue
        kind = types[key]
        v = _coerce(raw, kind)
        if kind == "squares" and isinstance(v, dict):
            v = {str(k): e for k, e in v.items() if not (isinstance(e, str) and e == "neutral")}
        out[key] = v
    return out, errors


def _flatten(table: dict, prefix: str = "") -> dict:
    """``{"dice": {"count": 9}}`` -> ``{"dice.count": 9}``; the board's and the dice's own tables
    (squares, faces) stay whole."""
    out = {}
    for k, v in table.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and name not in ("board.squares",):
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def parse_setup(doc: dict) -> Setup:
    """Validate what the page sends (mode, players, seats, rotate, seed, games, values) into a
    :class:`Setup`; raises :class:`FormErrors` with every bad field's message."""
    from ..runner.run import seatings as rotation
    from ..simulation import MAX_SEED, user_strategies
    from ..strategies import parse_strategy

    if not isinstance(doc, dict):
        raise FormErrors({EXTRA: "request: expected a JSON object"})
    errors: dict[str, str] = {}
    mode = doc.get("mode", "8d8")
    if mode not in MODES:
        errors["mode"] = f"mode: {mode!r} is not a mode; allowed: {', '.join(MODES)}"
        mode = "8d8"
    players = _coerce(doc.get("players", 4), "int")
    lo, hi = _R._SCALARS["players"][1:]
    if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
        errors["players"] = f"players: {players!r}; allowed: {lo}..{hi}"
        players = 4
    seed = _coerce(doc.get("seed", 1), "int")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        errors["seed"] = f"seed: {seed!r}; allowed: 0..{MAX_SEED}"
        seed = 1
    games = _coerce(doc.get("games", DEFAULT_GAMES), "int")
    g_lo, g_hi = GAMES_RANGE
    if isinstance(games, bool) or not isinstance(games, int) or not g_lo <= games <= g_hi:
        errors["games"] = f"games: {games!r}; allowed: {g_lo}..{g_hi} games per side"
        games = DEFAULT_GAMES
    seats = doc.get("seats") or default_seats(players)
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        errors["seats"] = "seats: expected one strategy name per seat"
        seats = default_seats(players)
    seats = [s.strip() for s in seats][:players]
    seats += default_seats(players)[len(seats):]
    known = user_strategies()
    for i, s in enumerate(seats):
        try:
            name, _ = parse_strategy(s)
            if name not in known:
                raise HeronSimError(f"{s!r} is not a strategy; allowed: {', '.join(known)}")
        except HeronSimError as err:
            msg = str(err)
            errors[f"seat.{i}"] = f"seat {i + 1}: {msg.split(': ', 1)[-1] if msg.startswith('--strategy') else msg}"
    rotate = doc.get("rotate", True)
    if not isinstance(rotate, bool):
        errors["rotate"] = f"rotate: {rotate!r}; allowed: true, false"
        rotate = True
    types = _field_types(mode, players)
    values = doc.get("values")
    if values is None:
        values = {}
    if not isinstance(values, dict):
        errors["values"] = f"values: expected an object of rules keys and their values, got {type(values).__name__}"
        values = {}
    overrides, errs = overrides_of(values, types)
    errors.update(errs)
    # each key alone first (so that every bad field gets its own message), then all together
    keys = list(types) + [EXTRA]
    # the dice first (the combination table's length depends on them), then every other key
    # with the dice, so that each bad field gets its own message
    context: dict = {}
    order = sorted(overrides, key=lambda k: not k.startswith("dice."))
    for key in order:
        v = overrides[key]
        try:
            Rules.build(mode=mode, players=players, overrides={**context, key: v})
            if key.startswith("dice."):
                context[key] = v
        except HeronSimError as err:
            errors[key if key in types else EXTRA] = str(err)
            del overrides[key]
    try:
        base = Rules.build(mode=mode, players=players)
        variant = Rules.build(mode=mode, players=players, overrides=overrides)
    except HeronSimError as err:
        errors.setdefault(_where(str(err), keys), str(err))
        base = variant = None
    if errors:
        raise FormErrors(errors)
    seating = rotation(seats, players) if rotate else [seats]
    return Setup(mode, players, seats, rotate, seed, games, overrides, base, variant, seating)


def form_values(rules: Rules) -> tuple[dict, str]:
    """The form's values that rebuild ``rules`` (its differences from the rulings) and the TOML
    text of what the form has no field for (the 'other rules' field)."""
    table = variant_diff(rules)
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for k, v in table.items():
        if k in SCENARIO_KEYS:
            continue
        if k == "combinations":
            for sub, lst in v.items():
                values[f"combinations.{sub}"] = lst
        elif k == "board":
            values["board.squares"] = v["squares"]
        elif k == "dice":
            count = _dice_count(rules)
            if count is not None:
                values["dice.count"] = count
            else:
                extra["dice"] = {"faces": v["faces"]}
        elif k in ("guide", "seats"):  # rules by guide or by player count: their tables
            for sub, x in v.items():   # ([guide.heron], [seats.5]) in the other rules' text
                extra[f"{k}.{sub}"] = x
        elif isinstance(v, dict):
            for sub, x in v.items():
                values[f"{k}.{sub}"] = x
        else:
            values[k] = v
    text = ""
    if extra:
        from ..lab.outputs import _toml_value

        text = "\n".join(f"[{t}]\n" + "\n".join(f"{k} = {_toml_value(x)}" for k, x in sub.items())
                         for t, sub in extra.items())
    return values, text


def load_variant(text: str) -> dict:
    """A rules TOML file's text (a variant file, a lab proposal) as the page's settings: mode,
    players and the form's values. Bad files raise :class:`FormErrors` (field ``file``)."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise FormErrors({"file": f"file: malformed TOML: {err}"}) from None
    dice = table.get("dice") or {}
    if isinstance(dice, dict) and "file" in dice or isinstance(table.get("board"), dict) and "file" in table["board"]:
        raise FormErrors({"file": "file: it names another file (dice.file or board.file); load a file "
                                  "with the dice faces or the board's squares written in it"})
    import json

    full = json.loads(json.dumps(_R.default_table()))
    try:
        _R._merge(full, table, "")
        rules = Rules.from_table(full)
    except HeronSimError as err:
        raise FormErrors({"file": f"file: {err}"}) from None
    values, extra = form_values(rules)
    if extra:
        values[EXTRA] = extra
    return {"mode": page_mode(rules),
            "players": rules.players, "values": values}


def _dice_count(rules: Rules) -> int | None:
    """The ``dice.count`` that gives these rules' dice from a standard mode (None: none does)."""
    from ..rules.rules import mode_dice

    for m in MODES:
        full = mode_dice(m)
        if len(set(full)) == 1 and len(set(rules.dice)) == 1 and rules.dice[0] == full[0]:
            return None if rules.n_dice == len(full) and rules.mode == m else rules.n_dice
        if len(set(full)) > 1 and rules.dice == full[: rules.n_dice] and rules.n_dice < len(full):
            return rules.n_dice
    return None


def page_mode(rules: Rules) -> str:
    """The mode the page shows for ``rules`` (the standard mode their dice come from)."""
    if rules.mode in MODES:
        return rules.mode
    from ..rules.rules import mode_dice

    if len(set(rules.dice)) == 1 and rules.dice[0] == mode_dice("8d8")[0]:
        return "8d8"
    if rules.dice == mode_dice("10d6")[: rules.n_dice]:
        return "10d6"
    return "8d8"


def variant_diff(rules: Rules) -> dict:
    """The rules tables of ``rules`` that differ from the rulings at the same page mode and
    players (``dice`` as faces, ``board`` as squares), as :func:`heron_sim.lab.outputs.variant_table`
    but also for dice that are not a standard mode's."""
    full = rules.to_table()
    default = Rules.build(mode=page_mode(rules), players=rules.players).to_table()
    out: dict = {}
    for k, v in full.items():
        if k in ("mode", "players"):
            continue
        if isinstance(v, dict):
            sub = {s: x for s, x in v.items() if x != default.get(k, {}).get(s)}
            if sub:
                out[k] = sub
        elif v != default.get(k):
            out[k] = v
    return out
