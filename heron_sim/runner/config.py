"""Experiment files: load and validate a declarative experiment (TOML).

An experiment file names its analysis (``kind``), its rules (defaults, a rules file and
overrides), the dice modes, players, strategy seating, games, seed, and the figures it draws::

    name = "modes"
    kind = "modes"
    title = "Dice modes compared"
    seed = 1
    games = 10000
    modes = ["8d8", "7d8", "10d8", "10d6"]
    players = 4
    seating = "ai"          # "ai", "all", or strategy names (one per seat, cycled, rotated)

    [rules]                 # optional
    file = "my-rules.toml"  # relative to this file
    set = { rolls = 3 }     # overrides, TOML keys of heron_sim/rules/data/defaults.toml

Every bad value raises :class:`heron_sim.errors.HeronSimError` with a one-line message that
names the file, the key and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import HeronSimError
from ..rules import MODES, Rules

KINDS = ("modes", "pond", "anxiety", "guides", "strategies", "compare", "games", "sensitivity")

#: Figures each kind can draw (the ``figures`` key chooses among them; default: all).
FIGURES = {
    "modes": ("length", "combos", "seats", "pace"),
    "pond": ("pushback", "pond_rate"),
    "anxiety": ("per_roll", "per_strategy"),
    "guides": ("win_rate", "ablation", "doubling"),
    "strategies": ("head_to_head", "per_mode", "variance"),
    "compare": ("differences",),
    "games": ("seats", "length", "strategies"),
    "sensitivity": ("sensitivity",),
}

_KEYS = {"name", "kind", "title", "description", "seed", "games", "turns", "modes", "players",
         "seating", "strategies", "guide", "figures", "rules", "a", "b", "skill_games",
         "h2h_games", "ablation_games", "mixed_games", "light_games", "plugins"}
_INT_LIMITS = {"seed": (0, 2**63 - 1), "games": (1, 10_000_000), "turns": (1, 100_000_000),
               "players": (2, 7), "skill_games": (0, 10_000_000), "h2h_games": (0, 10_000_000),
               "ablation_games": (0, 10_000_000), "mixed_games": (0, 10_000_000)}


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


@dataclass(frozen=True)
class Experiment:
    name: str
    kind: str
    title: str
    description: str = ""
    seed: int = 1
    games: int = 1000
    turns: int = 100_000
    modes: tuple[str, ...] = ("8d8",)
    players: int = 4
    seating: Any = "ai"
    strategies: Any = "all"
    guide: str = "loup"
    figures: tuple[str, ...] = ()
    rules: RulesSpec = field(default_factory=RulesSpec)
    a: RulesSpec | None = None
    b: RulesSpec | None = None
    skill_games: int = 0
    h2h_games: int = 0
    ablation_games: int = 0
    mixed_games: int = 0
    light_games: Any = "all"  # kind games: "all" or names of heron_sim.games
    #: user strategy modules or files loaded before the seating is read (heron_sim.user_plugins)
    plugins: tuple[str, ...] = ()
    source: str = ""

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("name", "kind", "title", "description", "seed", "games",
                                            "turns", "players", "seating", "strategies", "guide",
                                            "skill_games", "h2h_games", "ablation_games", "mixed_games",
                                            "source")}
        d["light_games"] = self.light_games if isinstance(self.light_games, str) else list(self.light_games)
        d["modes"] = list(self.modes)
        d["figures"] = list(self.figures)
        d["plugins"] = list(self.plugins)
        for key in ("rules", "a", "b"):
            spec = getattr(self, key)
            d[key] = None if spec is None else {"file": spec.file, "set": dict(spec.overrides), "label": spec.label,
                                                "own_mode": spec.own_mode}
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Experiment":
        d = {k: v for k, v in d.items() if k != "source" and v is not None}
        for key in ("rules", "a", "b"):
            if key in d:
                d[key] = {k: v for k, v in d[key].items() if v is not None}
        return parse_experiment(d, "<manifest>", base_dir=None, check=False)


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate one experiment file."""
    from ..tomlfile import read_toml

    path = Path(path)
    table = read_toml(path, "experiment")
    table.setdefault("name", path.stem)
    return parse_experiment(table, str(path), base_dir=path.parent)


def _rules_spec(value: Any, where: str, base_dir: Path | None, label: str = "",
                check: bool = True) -> RulesSpec:
    if value is None:
        return RulesSpec(label=label)
    if not isinstance(value, dict):
        raise HeronSimError(f"{where}: must be a table with keys file, set, label")
    unknown = set(value) - {"file", "set", "label", "own_mode"}
    if unknown:
        raise HeronSimError(f"{where}.{sorted(unknown)[0]}: unknown key; allowed: file, set, label, own_mode")
    own = value.get("own_mode", False)
    if not isinstance(own, bool):
        raise HeronSimError(f"{where}.own_mode: {own!r}; allowed: true or false")
    file = value.get("file")
    if file is not None:
        if not isinstance(file, str):
            raise HeronSimError(f"{where}.file: {file!r} is not a path")
        p = Path(file)
        if base_dir is not None and not p.is_absolute():
            p = base_dir / p
        if check and not p.is_file():
            raise HeronSimError(f"{where}.file: rules file not found: {p}")
        file = str(p)
    overrides = value.get("set", {}) or {}
    if not isinstance(overrides, dict):
        raise HeronSimError(f"{where}.set: must be a table of rule overrides (e.g. set = {{ rolls = 4 }})")
    flat = _flatten(overrides)
    return RulesSpec(file=file, overrides=flat, label=str(value.get("label", label)), own_mode=own)


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and k not in ("squares",):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _light_games(value: Any, where: str):
    """``"all"`` or a list of names of :func:`heron_sim.games.available` (checked now)."""
    from ..games import available

    names = list(available())
    if value == "all":
        return "all"
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(x, str) for x in value):
        raise HeronSimError(f"{where}: light_games: {value!r}; allowed: \"all\" or a list of {', '.join(names)}")
    for v in value:
        if v not in names:
            raise HeronSimError(f"{where}: light_games: {v!r} is not a game; allowed: {', '.join(names)}")
    return tuple(value)


def parse_experiment(table: dict, where: str, base_dir: Path | None, check: bool = True) -> Experiment:
    """Validate a table read from TOML (or a manifest) into an :class:`Experiment`."""
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise HeronSimError(f"{where}: {unknown[0]}: unknown key; allowed: {', '.join(sorted(_KEYS))}")
    plugins = table.get("plugins", [])
    if isinstance(plugins, str):
        plugins = [plugins]
    if not isinstance(plugins, list) or not all(isinstance(p, str) and p for p in plugins):
        raise HeronSimError(f"{where}: plugins: {plugins!r}; allowed: a list of module names or .py files")
    from ..user_plugins import load_plugin

    resolved = []
    for spec in plugins:  # before the seating is read: it may name their strategies
        is_file = spec.endswith(".py") or "/" in spec
        if is_file and base_dir is not None and not Path(spec).is_absolute():
            spec = str((base_dir / spec).resolve())
        load_plugin(spec, field=f"{where}: plugins")
        resolved.append(spec)
    kind = table.get("kind")
    if kind not in KINDS:
        raise HeronSimError(f"{where}: kind: {kind!r}; allowed: {', '.join(KINDS)}")
    name = table.get("name", kind)
    if not isinstance(name, str) or not name or any(c in name for c in "/\\ "):
        raise HeronSimError(f"{where}: name: {name!r} must be a word (no spaces or slashes)")
    ints = {}
    for key, (lo, hi) in _INT_LIMITS.items():
        if key in table:
            v = table[key]
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise HeronSimError(f"{where}: {key}: {v!r}; allowed: an integer {lo}..{hi}")
            ints[key] = v
    modes = table.get("modes", ["8d8"])
    if isinstance(modes, str):
        modes = list(MODES) if modes == "all" else [modes]
    if not isinstance(modes, list) or not modes:
        raise HeronSimError(f"{where}: modes: {modes!r}; allowed: a list of {', '.join(MODES)} or \"all\"")
    for m in modes:
        if m not in MODES:
            raise HeronSimError(f"{where}: modes: {m!r} is not a mode; allowed: {', '.join(MODES)}")
    figures = table.get("figures", list(FIGURES[kind]))
    if not isinstance(figures, list):
        raise HeronSimError(f"{where}: figures: must be a list; allowed: {', '.join(FIGURES[kind])}")
    for f in figures:
        if f not in FIGURES[kind]:
            raise HeronSimError(f"{where}: figures: {f!r}; allowed for kind {kind}: {', '.join(FIGURES[kind])}")
    for key in ("seating", "strategies"):
        v = table.get(key)
        if v is not None and not (isinstance(v, str) or (isinstance(v, list) and v and all(isinstance(x, str) for x in v))):
            raise HeronSimError(f"{where}: {key}: {v!r}; allowed: \"ai\", \"all\", or strategy names")
        if v is not None and check:
            from .jobs import resolve_strategies

            resolve_strategies(v, f"{where}: {key}")  # an unknown name: one line, now
    guide = table.get("guide", "loup")
    from ..animals import animal_index
    animal_index(guide, f"{where}: guide")
    for key in ("title", "description"):
        if key in table and not isinstance(table[key], str):
            raise HeronSimError(f"{where}: {key}: must be a string")
    light = table.get("light_games", "all")
    if kind == "games":
        light = _light_games(light, where)
        r = table.get("rules") or {}
        if (isinstance(r, dict) and (r.get("file") or r.get("set"))) or "a" in table or "b" in table:
            raise HeronSimError(f"{where}: kind games plays each lighter game under its own default rules; "
                                "remove [rules], [a] and [b]")
    elif table.get("light_games", "all") != "all":
        raise HeronSimError(f"{where}: light_games: only for kind games")
    rules = _rules_spec(table.get("rules"), f"{where}: rules", base_dir, check=check)
    a = b = None
    if kind == "compare":
        if "a" not in table or "b" not in table:
            raise HeronSimError(f"{where}: kind compare needs tables [a] and [b] (each with file and/or set)")
        a = _rules_spec(table["a"], f"{where}: a", base_dir, "A", check)
        b = _rules_spec(table["b"], f"{where}: b", base_dir, "B", check)
    exp = Experiment(
        name=name, kind=kind, title=table.get("title", name), description=table.get("description", ""),
        modes=tuple(modes), seating=table.get("seating", "ai"), strategies=table.get("strategies", "all"),
        guide=guide, figures=tuple(figures), rules=rules, a=a, b=b, light_games=light,
        plugins=tuple(resolved), source=where, **ints,
    )
    # Build the rules once, now, so that a bad rules key fails at load time.
    players = exp.players
    for table_name, spec in (() if not check else (("rules", exp.rules), ("a", exp.a), ("b", exp.b))):
        if spec is not None:
            for m in exp.modes:
                try:
                    spec.build(m, players)
                except HeronSimError as err:  # name the experiment file and its table
                    msg = str(err)
                    raise type(err)(msg if msg.startswith(where) else f"{where}: [{table_name}]: {msg}") from None
    return exp
