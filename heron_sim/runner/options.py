"""The options of an experiment file, as typed models: the keys every kind shares (here) and
each kind's own model (in its module, :mod:`heron_sim.runner.kinds`), joined by
:mod:`heron_sim.runner.config` into one union keyed by ``kind``.

A kind declares its options by subclassing :class:`Experiment` (the keys every experiment has)
or :class:`HeronExperiment` (plus the Héron batches' ``games``, ``modes``, ``players`` and
``[rules]``) and adding its keys with the field types below::

    class PondExperiment(HeronExperiment):
        kind: Literal["pond"] = "pond"
        figures: figures_of(FIGURES) = FIGURES
        turns: Turns = 100_000
        seating: Seating = "ai"
        guide: Guide = "loup"

Unknown keys are refused (``extra="forbid"``), never skipped. A bad value raises
:class:`~heron_sim.errors.HeronSimError` with one line naming the file, the key and what is
allowed: the validators below raise it themselves, with the file's name from the validation
context (``{"where": ..., "base_dir": ..., "check": ...}``), and
:func:`heron_sim.runner.config.parse_experiment` turns the framework's own errors (unknown key,
wrong type) into the same one line.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationInfo, WithJsonSchema, model_validator

from ..errors import HeronSimError
from ..rules import MODES, Rules


@dataclass(frozen=True)
class RulesSpec:
    """Where an experiment's rules come from: defaults, then ``file``, then ``overrides``."""

    file: str | None = None
    overrides: dict = field(default_factory=dict)
    label: str = ""
    #: play the mode of the file (or of the ``mode`` override), not the experiment's: what
    #: ``heron-sim compare A.toml B.toml`` does without --mode
    own_mode: bool = False

    def build(self, mode: str | None = None, players: int | None = None) -> Rules:
        return Rules.build(mode=None if self.own_mode else mode, players=players, rules_file=self.file,
                           overrides=dict(self.overrides))

    def as_table(self) -> dict:
        """The table this spec is read from (``file``, ``set``, ``label``, ``own_mode``)."""
        return {"file": self.file, "set": dict(self.overrides), "label": self.label, "own_mode": self.own_mode}


# ---------------------------------------------------------------- the validation context
def where(info: ValidationInfo) -> str:
    """The file being read (the validation context's ``where``), to start a one-line error."""
    return (info.context or {}).get("where", "experiment")


def _check(info: ValidationInfo) -> bool:
    """Check what lies outside the file (rules files exist, strategy names registered)."""
    return (info.context or {}).get("check", True)


def _base_dir(info: ValidationInfo) -> Path | None:
    return (info.context or {}).get("base_dir")


# ---------------------------------------------------------------- field types
def _count(lo: int, hi: int, what: str):
    """An integer ``lo..hi`` (a bool, a float or a string is refused, never converted)."""

    def check(v: Any, info: ValidationInfo) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise HeronSimError(f"{where(info)}: {info.field_name}: {v!r}; allowed: an integer {lo}..{hi}")
        return v

    return Annotated[int, Field(ge=lo, le=hi, description=what), BeforeValidator(check)]


def _text(what: str):
    def check(v: Any, info: ValidationInfo) -> str:
        if not isinstance(v, str):
            raise HeronSimError(f"{where(info)}: {info.field_name}: must be a string")
        return v

    return Annotated[str, Field(description=what), BeforeValidator(check)]


def _name(v: Any, info: ValidationInfo) -> str:
    if not isinstance(v, str) or not v or any(c in v for c in "/\\ "):
        raise HeronSimError(f"{where(info)}: name: {v!r} must be a word (no spaces or slashes)")
    return v


def _modes(v: Any, info: ValidationInfo) -> tuple[str, ...]:
    at = where(info)
    if isinstance(v, str):
        v = list(MODES) if v == "all" else [v]
    if not isinstance(v, (list, tuple)) or not v:
        raise HeronSimError(f"{at}: modes: {v!r}; allowed: a list of {', '.join(MODES)} or \"all\"")
    for m in v:
        if m not in MODES:
            raise HeronSimError(f"{at}: modes: {m!r} is not a mode; allowed: {', '.join(MODES)}")
    return tuple(v)


def _strategy_names(v: Any, info: ValidationInfo):
    """``"ai"``, ``"all"``, or strategy names (a list, or one string of comma-separated names),
    checked against the registry when the file is loaded (and its plug-ins with it)."""
    at = where(info)
    key = info.field_name
    if not (isinstance(v, str) or (isinstance(v, (list, tuple)) and v and all(isinstance(x, str) for x in v))):
        raise HeronSimError(f"{at}: {key}: {v!r}; allowed: \"ai\", \"all\", or strategy names")
    if _check(info):
        from .jobs import resolve_strategies

        resolve_strategies(v, f"{at}: {key}")  # an unknown name: one line, now
    return v if isinstance(v, str) else list(v)


def _rung_names(v: Any, info: ValidationInfo) -> tuple[str, ...]:
    """A list of strategy names (the skill ladder's rungs: ``["novice", "casual", "regular",
    "expert"]``), each played alone at every seat of a batch of its own; each checked against the
    registry when the file is loaded, none twice."""
    at = f"{where(info)}: {info.field_name}"
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) and x.strip() for x in v):
        raise HeronSimError(f"{at}: {v!r}; allowed: a list of strategy names, e.g. [\"novice\", \"regular\", \"expert\"]")
    names = [x.strip() for x in v]
    twice = sorted({x for x in names if names.count(x) > 1})
    if twice:
        raise HeronSimError(f"{at}: {twice[0]!r} is given twice")
    for x in names:
        if "," in x:
            raise HeronSimError(f"{at}: {x!r}; allowed: one strategy name per entry (each sits alone at the table)")
    if _check(info):
        from .jobs import resolve_strategies

        for x in names:
            resolve_strategies([x], at)
    return tuple(names)


def _guide(v: Any, info: ValidationInfo):
    from ..animals import animal_index

    animal_index(v, f"{where(info)}: guide")
    return v


def _light_games(v: Any, info: ValidationInfo):
    """``"all"`` or a list of names of :func:`heron_sim.games.available` (checked now)."""
    from ..games import available

    at = where(info)
    names = list(available())
    if v == "all":
        return "all"
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, (list, tuple)) or not v or not all(isinstance(x, str) for x in v):
        raise HeronSimError(f"{at}: light_games: {v!r}; allowed: \"all\" or a list of {', '.join(names)}")
    for g in v:
        if g not in names:
            raise HeronSimError(f"{at}: light_games: {g!r} is not a game; allowed: {', '.join(names)}")
    return tuple(v)


def _plugins(v: Any, info: ValidationInfo) -> tuple[str, ...]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, (list, tuple)) or not all(isinstance(p, str) and p for p in v):
        raise HeronSimError(f"{where(info)}: plugins: {v!r}; allowed: a list of module names or .py files")
    return tuple(v)


def flatten(d: dict, prefix: str = "") -> dict:
    """Nested rules overrides as dotted keys (``{"a": {"b": 1}}`` -> ``{"a.b": 1}``); the
    ``squares`` table stays whole."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and k not in ("squares",):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


_RULES_KEYS = ("file", "set", "label", "own_mode")
_RULES_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "description": "Rules: the defaults, then `file` (relative to the experiment file), then the overrides `set`.",
    "properties": {"file": {"type": "string", "description": "a rules TOML file"},
                   "set": {"type": "object", "description": "overrides: keys of heron_sim/rules/data/defaults.toml"},
                   "label": {"type": "string"}, "own_mode": {"type": "boolean"}},
}


def _rules_spec(default_label: str):
    def check(v: Any, info: ValidationInfo) -> RulesSpec:
        return rules_spec_of(v, info, f"{where(info)}: {info.field_name}", default_label)

    return Annotated[RulesSpec, BeforeValidator(check), WithJsonSchema(_RULES_SCHEMA)]


def rules_spec_of(v: Any, info: ValidationInfo, at: str, default_label: str = "") -> RulesSpec:
    """One rules table of an experiment file (``file``, ``set``, ``label``, ``own_mode``) as a
    :class:`RulesSpec`; ``at`` starts its one-line errors (the file and the key)."""
    if isinstance(v, RulesSpec):
        return v
    if v is None:
        return RulesSpec(label=default_label)
    if not isinstance(v, dict):
        raise HeronSimError(f"{at}: must be a table with keys file, set, label")
    unknown = sorted(set(v) - set(_RULES_KEYS))
    if unknown:
        raise HeronSimError(f"{at}.{unknown[0]}: unknown key; allowed: {', '.join(_RULES_KEYS)}")
    own = v.get("own_mode", False)
    if not isinstance(own, bool):
        raise HeronSimError(f"{at}.own_mode: {own!r}; allowed: true or false")
    file = v.get("file")
    if file is not None:
        if not isinstance(file, str):
            raise HeronSimError(f"{at}.file: {file!r} is not a path")
        p = Path(file)
        base = _base_dir(info)
        if base is not None and not p.is_absolute():
            p = base / p
        if _check(info) and not p.is_file():
            raise HeronSimError(f"{at}.file: rules file not found: {p}")
        file = str(p)
    overrides = v.get("set", {}) or {}
    if not isinstance(overrides, dict):
        raise HeronSimError(f"{at}.set: must be a table of rule overrides (e.g. set = {{ rolls = 4 }})")
    return RulesSpec(file=file, overrides=flatten(overrides), label=str(v.get("label", default_label)), own_mode=own)


def figures_of(names: tuple[str, ...]):
    """The ``figures`` key of a kind drawing ``names``: a list of some of them (default all)."""

    def check(v: Any, info: ValidationInfo) -> tuple[str, ...]:
        at = where(info)
        kind = info.data.get("kind", "?")
        allowed = ", ".join(names) or "none (the kind draws no figures: figures = [])"
        if not isinstance(v, (list, tuple)):
            raise HeronSimError(f"{at}: figures: must be a list; allowed: {allowed}")
        for f in v:
            if f not in names:
                raise HeronSimError(f"{at}: figures: {f!r}; allowed for kind {kind}: {allowed}")
        return tuple(v)

    # an empty Literal is no type (pydantic refuses it): a kind that draws nothing takes names
    # of type str, every one refused by check
    item = Literal[names] if names else str
    return Annotated[tuple[item, ...], BeforeValidator(check),
                     Field(description="the figures to draw (default: all of the kind's)")]


Games = _count(1, 10_000_000, "games per batch")
Turns = _count(1, 100_000_000, "single turns per batch")
Players = _count(2, 7, "players per game")


def _player_counts(v: Any, info: ValidationInfo) -> tuple[int, ...]:
    if not isinstance(v, (list, tuple)) or any(isinstance(x, bool) or not isinstance(x, int) or not 2 <= x <= 7 for x in v):
        raise HeronSimError(f"{where(info)}: {info.field_name}: {v!r}; allowed: a list of player counts 2..7")
    return tuple(sorted(set(v)))


PlayerCounts = Annotated[tuple[int, ...], BeforeValidator(_player_counts),
                         Field(description="player counts, each 2..7")]
Extra = _count(0, 10_000_000, "games of this batch (0: as many as `games`)")
People = _count(0, 10_000_000, "games a table of the lab's default panel of people, under the rulings (0: none)")
Seed = _count(0, 2**63 - 1, "game i of every batch draws from stream (seed, i)")
_Names = Annotated[str | list[str], BeforeValidator(_strategy_names)]
Seating = Annotated[_Names, Field(description='"ai" (the AIs), "all", or strategy names (cycled over the seats, rotated)')]
Strategies = Annotated[_Names, Field(description='the strategies compared: "ai", "all", or names')]
RungNames = Annotated[tuple[str, ...], BeforeValidator(_rung_names),
                      Field(description="strategies (the skill ladder's rungs), each alone at every seat of its own batch")]
Guide = Annotated[str | int, BeforeValidator(_guide), Field(description="guide of the single-turn batches (an animal)")]
Modes = Annotated[tuple[Literal[tuple(MODES)], ...], BeforeValidator(_modes),
                  WithJsonSchema({"anyOf": [{"enum": [*MODES, "all"]}, {"type": "array", "items": {"enum": list(MODES)}}],
                                  "description": "dice modes: a list, or \"all\""})]
RulesTable = _rules_spec("")
RulesA = _rules_spec("A")
RulesB = _rules_spec("B")
LightGames = Annotated[str | tuple[str, ...], BeforeValidator(_light_games),
                       Field(description='the lighter games of heron_sim.games: "all" or names')]


# ---------------------------------------------------------------- the models
class Experiment(BaseModel):
    """The keys every experiment file has; a kind's model adds its own (see the module's doc)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, arbitrary_types_allowed=True)

    kind: str
    name: Annotated[str, Field(description="the run sub-folder and the section id (default: the file's name)"),
                    BeforeValidator(_name)] = ""
    title: _text("the section's title (default: the name)") = ""
    description: _text("the section's introduction") = ""
    seed: Seed = 1
    #: user strategy modules or files loaded before the seating is read (heron_sim.user_plugins)
    plugins: Annotated[tuple[str, ...], BeforeValidator(_plugins),
                       Field(description="strategy plug-ins: module names or .py files (relative to the file)")] = ()
    _source: str = PrivateAttr("")

    @model_validator(mode="before")
    @classmethod
    def _defaults(cls, data):
        """``name`` defaults to the kind (a file's loader gives its stem), ``title`` to the name."""
        if isinstance(data, dict):
            data = dict(data)
            data.setdefault("name", data.get("kind"))
            if "title" not in data and isinstance(data["name"], str):
                data["title"] = data["name"]
        return data

    @property
    def source(self) -> str:
        """The file (or manifest) the experiment was read from."""
        return self._source

    def to_dict(self) -> dict:
        """The experiment as plain JSON data (the run folder's manifest; read back by
        :func:`heron_sim.runner.config.experiment_from_dict`)."""
        d = {}
        for key in type(self).model_fields:
            v = getattr(self, key)
            d[key] = (v.as_table() if isinstance(v, RulesSpec)
                      else [x.as_table() if isinstance(x, RulesSpec) else x for x in v] if isinstance(v, tuple) else v)
        d["source"] = self.source
        return d


class HeronExperiment(Experiment):
    """An experiment of Héron batches: its games, dice modes, players and rules."""

    games: Games = 1000
    modes: Modes = ("8d8",)
    players: Players = 4
    rules: RulesTable = Field(default_factory=RulesSpec)
