"""Tune files: a study of rule variants, declared in TOML (see docs/tuning.md).

    name = "guides"                  # results/tune-guides/, runs/tune-guides/
    title = "Fair guides"
    mode = "8d8"
    players = 4
    seating = "greedy"               # one strategy, or one per seat (rotated over the games)
    seed = 20261130

    [rules]                          # the base rules: defaults, a rules file, overrides
    file = "my-rules.toml"
    set = { rolls = 3 }

    [reference]                      # optional: rules an objective or constraint may target
    mode = "8d8"

    [search]
    trials = 60                      # finished trials (the study stops there; resumable)
    games = 4000                     # games per candidate, the same seeds for every candidate
    sampler = "nsga2"                # or "tpe", "random"
    population = 16                  # NSGA-II population

    [racing]                         # re-evaluation of the front on fresh seeds
    rungs = [20000, 60000]           # games per rung (successive halving between rungs)
    keep = 6                         # at most this many candidates reach the last rung
    luck = false                     # the last rung luck-adjusted (narrower win-rate intervals, ~5x its CPU)

    [[param]]
    key = "bull_bonus"
    int = [0, 3]

    [[objective]]
    metric = "guide_spread"
    direction = "minimize"
    goal = 0.01

    [[constraint]]
    metric = "length"
    within = 0.05                    # relative to `of` (base or reference)
    of = "base"

Every bad value raises HeronSimError with one line naming the file, the field and what is
allowed.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import HeronSimError
from ..rules import MODES, Rules
from .metrics import METRICS, OBJECTIVE_METRICS, SKILL_METRICS
from .space import Param, check_params, parse_param

_TOP = {"game", "name", "title", "description", "mode", "players", "seating", "seed", "rules", "reference",
        "search", "racing", "param", "objective", "constraint", "panel", "scenario", "aggregate",
        "allow_inert_powers", "ladder", "check"}
#: The ladder of smallest changes (heron_sim.lab.ladder): one-key changes, then the best
#: combinations of up to ``max_keys`` keys; ``grid``: values tried of a range with more values;
#: ``top``: best one-key changes combined into pairs and triples.
_LADDER = {"max_keys": 3, "grid": 9, "top": 6}
_SEARCH = {"trials": 60, "games": 4000, "sampler": "nsga2", "population": 16, "batch_games": 5000,
           "time_limit": 0}
_RACING = {"rungs": [20000, 60000], "keep": 6, "max_candidates": 12, "report": 5, "max_games": 400_000,
           "luck": False}
SAMPLERS = ("nsga2", "tpe", "random")

#: What a search's time limit may be, in every place one is given: the study file's [search]
#: time_limit, ``tune(time_limit=...)`` and ``heron-sim tune --time-limit``.
TIME_LIMIT_ALLOWED = "seconds >= 0 (0 or inf: none)"


def is_time_limit(tl: Any) -> bool:
    """Whether ``tl`` is a search's time limit: seconds >= 0, 0 or inf meaning none. nan is not
    (it stopped nothing: the one reader, study._search_loop, stops once elapsed >= the limit, never
    true of nan: no limit, silently), nor a negative number, a bool, or an integer too large for a
    float; inf is kept on purpose: no limit, as 0, which that reader reads right."""
    return (not isinstance(tl, bool) and isinstance(tl, (int, float))
            and (0 <= tl <= sys.float_info.max or tl == math.inf))


#: How the sampler's randomness is derived (heron_sim.lab.study.make_sampler: a new sampler per
#: trial, seeded from the study's seed and the finished trials); part of the fingerprint, so a
#: study written under another scheme (the pickled sampler.pkl of older versions) is not resumed.
SAMPLER_SCHEME = "per-trial-seed/1"
#: Game indices of racing rung r start at (r + 1) * FRESH: seeds the search never plays.
FRESH = 1_000_000_000


@dataclass(frozen=True)
class RulesSource:
    mode: str | None = None
    file: str | None = None
    overrides: dict = field(default_factory=dict)

    def build(self, players: int | None) -> Rules:
        return Rules.build(mode=self.mode, players=players, rules_file=self.file, overrides=dict(self.overrides))


@dataclass(frozen=True)
class Objective:
    metric: str
    direction: str = "minimize"     # "minimize" | "maximize" | "target" | "at_most" | "at_least"
    target: Any = None              # a number, "base" or "reference" (target, at_most, at_least)
    relative: bool = False          # target: |value / target - 1| instead of |value - target|
    goal: float | None = None       # success threshold on the loss (the quantity minimised)
    scale: float = field(default=1.0, repr=False)  # a relative goal: target = scale × base (or reference), "0.8 * base"
    players: int | None = field(default=None, repr=False)  # measured at the tables of this player count only
    goal_from: str = field(default="", repr=False)  # the targets.toml margin the goal was read from

    def target_words(self) -> str:
        if not isinstance(self.target, str):
            return f"{self.target:g}"
        words = {"targets": "the designer's target (experiments/targets.toml)",
                 "fair": "the fair share (1 / players)"}.get(self.target, self.target)
        return words if self.scale == 1.0 else f"{self.scale:g} × {words}"

    def extra(self) -> str:
        """What the fingerprint adds for the fields a repr leaves out (none: nothing)."""
        return "".join(f" {k}={v!r}" for k, v in (("scale", self.scale), ("players", self.players),
                                                  ("goal_from", self.goal_from))
                       if v not in (1.0, None, ""))

    def describe(self) -> str:
        label = self.metric + (f" at {self.players} players" if self.players else "")
        if self.direction == "target":
            t = self.target_words()
            s = f"{label}: {'relative ' if self.relative else ''}distance to {t}"
        elif self.direction in ("at_most", "at_least"):
            t = self.target_words()
            word = "no more than" if self.direction == "at_most" else "no less than"
            s = f"{label}: {word} {t} ({'relative ' if self.relative else ''}excess minimised)"
        else:
            s = f"{label}: {self.direction}"
        if self.goal is None:
            return s
        return s + (f" (goal <= {self.goal:g}: the designer's margin, targets.toml {self.goal_from})" if self.goal_from
                    else f" (goal <= {self.goal:g})")


@dataclass(frozen=True)
class Constraint:
    metric: str
    min: float | None = None
    max: float | None = None
    within: float | None = None     # relative distance to `of`
    of: str = "base"

    def describe(self) -> str:
        if self.within is not None:
            return f"{self.metric} within ±{100 * self.within:g} % of {self.of}"
        parts = []
        if self.min is not None:
            parts.append(f"{self.metric} >= {self.min:g}")
        if self.max is not None:
            parts.append(f"{self.metric} <= {self.max:g}")
        return " and ".join(parts)


@dataclass(frozen=True)
class TuneSpec:
    name: str
    title: str
    description: str
    path: str
    players: int
    seating: tuple[tuple[str, ...], ...]
    seating_text: str
    seed: int
    base: Rules
    base_source: RulesSource
    reference: Rules | None
    params: tuple[Param, ...]
    objectives: tuple[Objective, ...]
    constraints: tuple[Constraint, ...]
    trials: int
    games: int
    sampler: str
    population: int
    batch_games: int
    time_limit: float
    rungs: tuple[int, ...]
    keep: int
    max_candidates: int
    report: int
    max_games: int
    #: the last rung played with the players' luck: the evidence's win-rate figures luck-adjusted
    #: where narrower (heron_sim.lab.metrics.adjusted_sums; docs/tuning.md "Luck-adjusted evidence")
    luck: bool = False
    panel: tuple = ()               # heron_sim.runner.panel.Scenario, one per table
    aggregate: str = "worst"
    allow_inert_powers: bool = False
    ladder_max_keys: int = 3
    ladder_grid: int = 9
    ladder_top: int = 6
    scenario_bases: tuple = ()      # the base rules of each scenario (its players, its mode)
    scenario_refs: tuple = ()       # the reference rules of each scenario (or None)
    #: the held-out check after racing (heron_sim.lab.heldout; ``[check]``): games a table (0: the
    #: smaller of heron_sim.lab.heldout.DEFAULT_GAMES and the last rung's), or None: no check
    check_games: int | None = 0
    #: the tune table as read (the held-out check builds its own study from it)
    table: Any = field(default=None, compare=False, repr=False, hash=False)

    def scenario_seed(self, i: int) -> int:
        """Scenario i plays the dice streams (seed + i, game): the same for every candidate."""
        return self.seed + i

    def rules_for(self, values: dict) -> tuple:
        """One candidate (optuna values by parameter name) as the rules of each scenario."""
        from .space import build_rules

        return tuple(build_rules(b, list(self.params), values) for b in self.scenario_bases)

    def fingerprint(self) -> str:
        """What a resumed study must share with the stored one (not trials or time limit)."""
        blob = {"base": self.base.digest(), "ref": self.reference.digest() if self.reference else None,
                "params": [repr(p) for p in self.params], "objectives": [repr(o) + o.extra() for o in self.objectives],
                "constraints": [repr(c) for c in self.constraints], "seating": self.seating, "seed": self.seed,
                "games": self.games, "sampler": self.sampler, "population": self.population,
                "sampler_scheme": SAMPLER_SCHEME,
                "engine": _engine_hash(), "panel": [repr(x) for x in self.panel], "aggregate": self.aggregate,
                "inert": self.allow_inert_powers, "columns": _columns(),
                "ladder": [self.ladder_max_keys, self.ladder_grid, self.ladder_top]}
        if self.target_values():  # only then: the fingerprints of studies that read no target stay as they were
            blob["targets"] = self.target_values()
        return hashlib.sha256(json.dumps(blob, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def target_values(self) -> dict:
        """The designer's targets the objectives read (``"targets"``), per objective and table:
        part of the fingerprint, so a study resumed after targets.toml changed is refused."""
        from ..analysis.targets import lab_target
        from .objectives import players_of

        return {f"{o.metric} {o.direction}": [o.scale * lab_target(o.metric, o.direction, P) for P in players_of(self)]
                for o in self.objectives if o.target == "targets"}

    def with_overrides(self, **kw) -> "TuneSpec":
        import dataclasses

        return dataclasses.replace(self, **{k: v for k, v in kw.items() if v is not None})


def _columns() -> int:
    """The per-game columns a trial's stored sums hold (heron_sim.lab.metrics.K): a journal of
    another layout is not resumed."""
    from .metrics import K

    return K


def _engine_hash() -> str:
    """The hash of the engine's sources: a study run by another engine is not resumed."""
    from .._numba_cache import _sources_hash

    return _sources_hash()


def _int(table, key, lo, hi, where):
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise HeronSimError(f"{where}{key}: {v!r}; allowed: an integer {lo}..{hi}")
    return v


def rules_file_and_set(table: Any, where: str, base_dir: Path, keys: tuple[str, ...] = ("file", "set", "mode"),
                       whose: str = "") -> tuple[str | None, dict]:
    """A tune file's rules table (``[rules]``, ``[reference]``; a lighter game's ``[rules]``
    with ``keys`` file and set): its ``file`` (relative to ``base_dir``; None: none) and its
    ``set`` table, unflattened; ``whose`` ("rampage's ") names the game in the ``set`` error."""
    if not isinstance(table, dict):
        raise HeronSimError(f"{where}: expected a table ({', '.join(keys)})")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise HeronSimError(f"{where}.{unknown[0]}: unknown field; allowed: {', '.join(keys)}")
    file = table.get("file")
    if file is not None:
        if not isinstance(file, str):
            raise HeronSimError(f"{where}.file: {file!r}; allowed: a path to a rules TOML file")
        p = Path(file)
        file = str(p if p.is_absolute() else base_dir / p)
    sets = table.get("set", {}) or {}
    if not isinstance(sets, dict):
        raise HeronSimError(f"{where}.set: expected a table of {whose}rules keys")
    return file, sets


def _rules_source(table: Any, where: str, base_dir: Path, mode: str | None) -> RulesSource:
    file, sets = rules_file_and_set(table, where, base_dir)
    from ..runner.config import _flatten

    m = table.get("mode", mode)
    if m is not None and m not in MODES:
        raise HeronSimError(f"{where}.mode: {m!r}; allowed: {', '.join(MODES)}")
    return RulesSource(mode=m, file=file, overrides=_flatten(sets))


def _parse_seating(value: Any, players: int, where: str) -> tuple[tuple[tuple[str, ...], ...], str]:
    from ..runner.run import seatings
    from ..runner.panel import seating_names

    names = list(seating_names(value, where))
    rot = seatings(names, players)
    return tuple(tuple(s) for s in rot), ",".join(names)


def parse_spec(data: dict, path: str | Path = "<tune>") -> TuneSpec:
    """Validate a tune table (a parsed tune file)."""
    path = Path(path)
    where = f"{path.name}: "
    game = data.get("game", "heron")
    if game != "heron":
        from ..games import available

        if game not in available():
            raise HeronSimError(f"{where}game: {game!r}; allowed: heron, {', '.join(available())}")
        raise HeronSimError(f"{where}game: {game!r}: a lighter game's study; `heron-sim tune` runs it "
                            "(heron_sim.lab.tune), this command reads the Héron race's studies only")
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise HeronSimError(f"{where}{unknown[0]}: unknown field; allowed: {', '.join(sorted(_TOP))}")
    name = data.get("name", path.stem.removeprefix("tune-"))
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_" for c in name):
        raise HeronSimError(f"{where}name: {name!r}; allowed: letters, digits, - and _")
    mode = data.get("mode")
    if mode is not None and mode not in MODES:
        raise HeronSimError(f"{where}mode: {mode!r}; allowed: {', '.join(MODES)}")
    players = _int(data, "players", 2, 7, where) if "players" in data else None
    seed = _int(data, "seed", 0, 2**63 - 1, where) if "seed" in data else 1
    src = _rules_source(data.get("rules", {}) or {}, f"{where}rules", path.parent, mode)
    try:
        base = src.build(players)
    except HeronSimError as err:
        raise HeronSimError(f"{where}rules: {err}") from None
    players = base.players
    ref = None
    if "reference" in data:
        rsrc = _rules_source(data["reference"], f"{where}reference", path.parent, None)
        try:
            ref = rsrc.build(players)
        except HeronSimError as err:
            raise HeronSimError(f"{where}reference: {err}") from None
    from ..runner.panel import parse_panel

    panel, aggregate = parse_panel(data, players if "players" in data else None, data.get("seating"), where)
    if "players" not in data:
        players = panel[0].players
    base0 = base
    bases, refs = [], []
    for i, sc in enumerate(panel):
        try:
            if sc.mode is None:
                b = base0 if sc.players == base0.players else base0.replace(players=sc.players)
            else:
                b = RulesSource(sc.mode, src.file, src.overrides).build(sc.players)
            r = rsrc.build(sc.players) if ref is not None else None
        except HeronSimError as err:
            raise HeronSimError(f"{where}scenario[{i}] ({sc.name}): {err}") from None
        bases.append(b)
        refs.append(r)
    base = bases[0]
    if ref is not None:
        ref = refs[0]
    seating, seating_text = _parse_seating(list(panel[0].strategies), players, where)
    inert = data.get("allow_inert_powers", False)
    if not isinstance(inert, bool):
        raise HeronSimError(f"{where}allow_inert_powers: {inert!r}; allowed: true, false")
    ladder = dict(_LADDER)
    l_in = data.get("ladder", {}) or {}
    if not isinstance(l_in, dict):
        raise HeronSimError(f"{where}ladder: expected a table")
    bad = sorted(set(l_in) - set(_LADDER))
    if bad:
        raise HeronSimError(f"{where}ladder.{bad[0]}: unknown field; allowed: {', '.join(_LADDER)}")
    ladder.update(l_in)
    for key, lo, hi in (("max_keys", 0, 3), ("grid", 2, 100), ("top", 1, 50)):
        _int(ladder, key, lo, hi, f"{where}ladder.")

    search = dict(_SEARCH)
    s_in = data.get("search", {}) or {}
    if not isinstance(s_in, dict):
        raise HeronSimError(f"{where}search: expected a table")
    bad = sorted(set(s_in) - set(_SEARCH))
    if bad:
        raise HeronSimError(f"{where}search.{bad[0]}: unknown field; allowed: {', '.join(_SEARCH)}")
    search.update(s_in)
    for key, lo, hi in (("trials", 1, 100_000), ("games", 10, FRESH - 1), ("population", 2, 10_000),
                        ("batch_games", 1, 10_000_000)):
        _int(search, key, lo, hi, f"{where}search.")
    if search["sampler"] not in SAMPLERS:
        raise HeronSimError(f"{where}search.sampler: {search['sampler']!r}; allowed: {', '.join(SAMPLERS)}")
    tl = search["time_limit"]
    if not is_time_limit(tl):
        raise HeronSimError(f"{where}search.time_limit: {tl!r}; allowed: {TIME_LIMIT_ALLOWED}")

    racing = dict(_RACING)
    r_in = data.get("racing", {}) or {}
    if not isinstance(r_in, dict):
        raise HeronSimError(f"{where}racing: expected a table")
    bad = sorted(set(r_in) - set(_RACING))
    if bad:
        raise HeronSimError(f"{where}racing.{bad[0]}: unknown field; allowed: {', '.join(_RACING)}")
    racing.update(r_in)
    rungs = racing["rungs"]
    if (not isinstance(rungs, list) or not rungs
            or any(isinstance(x, bool) or not isinstance(x, int) or not 10 <= x < FRESH for x in rungs)):
        raise HeronSimError(f"{where}racing.rungs: {rungs!r}; allowed: a non-empty list of game counts (10 or more)")
    for key, lo, hi in (("keep", 1, 1000), ("max_candidates", 1, 1000), ("report", 1, 100),
                        ("max_games", 10, FRESH - 1)):
        _int(racing, key, lo, hi, f"{where}racing.")
    if not isinstance(racing["luck"], bool):
        raise HeronSimError(f"{where}racing.luck: {racing['luck']!r}; allowed: true or false")

    raw_params = data.get("param", [])
    if not isinstance(raw_params, list) or not raw_params:
        raise HeronSimError(f"{where}param: at least one [[param]] table (key and int, float or choices)")
    params = [parse_param(p, f"{where}param[{i}]") for i, p in enumerate(raw_params)]
    for b in bases:
        check_params(b, params)

    counts = {sc.players for sc in panel}
    objectives = [_objective(o, f"{where}objective[{i}]", ref, counts)
                  for i, o in enumerate(_list(data, "objective", where))]
    for i, o in enumerate(objectives):
        _check_tables(o, f"{where}objective[{i}]", panel, counts)
    if not objectives:
        raise HeronSimError(f"{where}objective: at least one [[objective]] table (metric and direction or target)")
    constraints = [_constraint(c, f"{where}constraint[{i}]", ref)
                   for i, c in enumerate(_list(data, "constraint", where, required=False))]
    for i, c in enumerate(constraints):
        _check_tables(c, f"{where}constraint[{i}]", panel, counts)
    if any(x.metric in SKILL_METRICS for x in (*objectives, *constraints)):
        # the skill gap is measured on a table of its own (heron_sim.runner.panel.SKILL_SCENARIO)
        from ..runner.panel import SKILL_SCENARIO

        if any(sc.name == SKILL_SCENARIO.name for sc in panel):
            raise HeronSimError(f"{where}scenario: the name {SKILL_SCENARIO.name!r} is the skill gap's own table; "
                                "give your scenario another name")
        try:
            b = base0 if base0.players == 2 else base0.replace(players=2)
            r = rsrc.build(2) if ref is not None else None
            check_params(b, params)
        except HeronSimError as err:
            raise HeronSimError(f"{where}scenario {SKILL_SCENARIO.name} (the skill gap's table): {err}") from None
        panel = (*panel, SKILL_SCENARIO)
        bases.append(b)
        refs.append(r)
    title = data.get("title", f"Tuning study {name}")
    desc = data.get("description", "")
    if not isinstance(title, str) or not isinstance(desc, str):
        raise HeronSimError(f"{where}title/description: expected strings")
    check = data.get("check", {})
    if not isinstance(check, dict) or sorted(set(check) - {"held_out", "games"}):
        bad = sorted(set(check) - {"held_out", "games"}) if isinstance(check, dict) else ["(not a table)"]
        raise HeronSimError(f"{where}check.{bad[0]}: unknown field; allowed: held_out, games")
    if not isinstance(check.get("held_out", True), bool):
        raise HeronSimError(f"{where}check.held_out: {check['held_out']!r}; allowed: true, false")
    check_games = _int(check, "games", 10, 10**9, f"{where}check.") if "games" in check else 0
    if not check.get("held_out", True):
        check_games = None
    return TuneSpec(name=name, title=title, description=desc, path=str(path), players=players,
                    seating=seating, seating_text=seating_text, seed=seed, base=base, base_source=src,
                    reference=ref, params=tuple(params), objectives=tuple(objectives),
                    constraints=tuple(constraints), trials=search["trials"], games=search["games"],
                    sampler=search["sampler"], population=search["population"],
                    batch_games=search["batch_games"], time_limit=float(tl), rungs=tuple(rungs),
                    keep=racing["keep"], max_candidates=racing["max_candidates"], report=racing["report"],
                    max_games=racing["max_games"], luck=racing["luck"], panel=panel, aggregate=aggregate,
                    allow_inert_powers=inert, ladder_max_keys=ladder["max_keys"], ladder_grid=ladder["grid"],
                    ladder_top=ladder["top"], scenario_bases=tuple(bases), scenario_refs=tuple(refs),
                    check_games=check_games, table=data)


def _list(data, key, where, required=True):
    v = data.get(key, [])
    if not isinstance(v, list) or any(not isinstance(x, dict) for x in v):
        raise HeronSimError(f"{where}{key}: expected [[{key}]] tables")
    return v


_ONE = re.compile(r"(guide|seat)_(.+)_win_rate")


def _metric(entry, where):
    """A metric of the panel (OBJECTIVE_METRICS), or one guide's or one seat's win rate:
    ``guide_<name>_win_rate`` (the guide's French or English name) and ``seat_<k>_win_rate``
    (k = 0 for the first player, as the metric ids count), in their canonical spelling."""
    from ..animals import ENGLISH, NAMES

    m = entry.get("metric")
    one = _ONE.fullmatch(m) if isinstance(m, str) else None
    if one and one.group(1) == "guide":
        from ..animals import animal_index

        try:
            g = animal_index(one.group(2), "guide")
        except HeronSimError:
            g = None
        if g is None:
            raise HeronSimError(f"{where}.metric: {m!r}: no guide {one.group(2)!r}; allowed: guide_<name>_win_rate "
                                f"with name one of {', '.join(NAMES)} (or {', '.join(ENGLISH)})")
        return f"guide_{NAMES[g]}_win_rate"
    if one:
        k = one.group(2)
        if not k.isdigit() or int(k) > 6:
            raise HeronSimError(f"{where}.metric: {m!r}; allowed: seat_<k>_win_rate with k from 0 (the first "
                                "player) to 6")
        return f"seat_{int(k)}_win_rate"
    if m not in OBJECTIVE_METRICS:
        raise HeronSimError(f"{where}.metric: {m!r}; allowed: {', '.join(OBJECTIVE_METRICS)}, "
                            f"guide_<name>_win_rate (name: {', '.join(NAMES)}), seat_<k>_win_rate (k: 0..6)")
    return m


def _players(entry, where, panel_counts):
    """An objective's ``players`` (its tables: those of that count), or None (every table)."""
    n = entry.get("players")
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int) or n not in panel_counts:
        counts = ", ".join(str(c) for c in sorted(panel_counts))
        raise HeronSimError(f"{where}.players: {n!r}; allowed: a player count of the panel's tables ({counts})")
    return n


def _check_tables(o, where, panel, spec_counts):
    """A seat's win rate needs that seat at every table it is measured at."""
    if o.metric.startswith("seat_") and o.metric != "seat_balance":
        k = int(o.metric.split("_")[1])
        n = getattr(o, "players", None)
        short = sorted({sc.players for sc in panel if (n is None or sc.players == n)
                        and getattr(sc, "role", "") != "skill" and sc.players <= k})
        if short:
            raise HeronSimError(f"{where}.metric: {o.metric!r}: seat {k + 1} does not play at {short[0]} players "
                                f"(the panel's tables of {', '.join(map(str, short))} players); give players = N "
                                f"with N from {k + 1}, or a smaller seat")


def _number(v, where, field, allowed="a finite number"):
    """A number of the study file (None where it is left out), finite: TOML reads nan, inf and
    -inf as numbers, and an integer no float holds overflows; a loss, a goal test or a constraint
    compared with one of them reads NaN, or decides every candidate alike."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not abs(v) <= sys.float_info.max:
        raise HeronSimError(f"{where}.{field}: {v!r}; allowed: {allowed}")
    return float(v)


def _objective(entry, where, ref, counts=frozenset(range(2, 8))) -> Objective:
    unknown = sorted(set(entry) - {"metric", "direction", "target", "relative", "goal", "at_most", "at_least",
                                   "players"})
    if unknown:
        raise HeronSimError(f"{where}.{unknown[0]}: unknown field; allowed: metric, direction, target, at_most, "
                            "at_least, relative, goal, players")
    metric = _metric(entry, where)
    players = _players(entry, where, counts)
    sides = [k for k in ("target", "at_most", "at_least") if k in entry]
    if len(sides) > 1:
        raise HeronSimError(f"{where}: give one of target, at_most, at_least")
    if sides and sides[0] != "target":
        if "direction" in entry:
            raise HeronSimError(f"{where}: give direction or {sides[0]}, not both")
        entry = {**entry, "direction": sides[0], "target": entry[sides[0]]}
    has_t = bool(sides)
    direction = entry.get("direction", "target" if has_t else None)
    if direction not in ("minimize", "maximize", "target", "at_most", "at_least"):
        raise HeronSimError(f"{where}.direction: {direction!r}; allowed: minimize, maximize (or give target, "
                            "at_most or at_least = ...)")
    target = entry.get("target")
    scale = 1.0
    if direction in ("target", "at_most", "at_least"):
        rel = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*\*\s*(base|reference|targets)\s*", target) \
            if isinstance(target, str) else None
        if rel:
            scale, target = float(rel.group(1)), rel.group(2)
            if not 0 < scale <= sys.float_info.max:  # "1e999 * base" reads inf
                raise HeronSimError(f"{where}.{sides[0] if sides else 'target'}: {entry.get(sides[0] if sides else 'target')!r}; "
                                    "allowed: a finite factor above 0 (e.g. \"0.8 * base\")")
        if target == "fair":
            if not metric.endswith("_win_rate") or scale != 1.0:
                raise HeronSimError(f"{where}: \"fair\" (the fair share, 1 / players) is the target of a win rate "
                                    "(guide_<name>_win_rate, seat_<k>_win_rate), as it stands")
        elif target in ("base", "reference"):
            if target == "reference" and ref is None:
                raise HeronSimError(f"{where}.target: \"reference\" needs a [reference] table")
        elif target == "targets":
            from ..analysis.targets import LAB_TARGETS, lab_target

            if metric not in LAB_TARGETS or direction not in LAB_TARGETS[metric][0]:
                try:
                    lab_target(metric, direction, 4)
                except HeronSimError as err:
                    raise HeronSimError(f"{where}: {err}") from None
        else:
            if isinstance(target, str):
                side = sides[0] if sides else "target"
                raise HeronSimError(f"{where}.{side}: {target!r}; allowed: a number, \"base\", \"reference\", "
                                    "\"targets\" (experiments/targets.toml), \"fair\" (a win rate) or a factor of "
                                    "one (\"0.8 * base\")")
            target = _number(target, where, sides[0] if sides else "target",
                             'a finite number, "base", "reference", "targets" (experiments/targets.toml), '
                             '"fair" (a win rate) or a factor of one ("0.8 * base")')
            if target is None:
                raise HeronSimError(f"{where}.target: missing; allowed: a number, \"base\", \"reference\" "
                                    "or a factor of either (\"0.8 * base\")")
    elif has_t:
        raise HeronSimError(f"{where}: give direction or target, not both")
    if direction in ("at_most", "at_least") and "direction" in entry and sides == []:
        raise HeronSimError(f"{where}.direction: {direction!r} needs at_most = ... or at_least = ...")
    relative = entry.get("relative", False)
    if not isinstance(relative, bool):
        raise HeronSimError(f"{where}.relative: {relative!r}; allowed: true, false")
    goal_from = ""
    if entry.get("goal") == "targets" or ("goal" not in entry and direction in ("at_most", "at_least")
                                          and target in ("base", "reference") and margin_of(metric, relative)):
        # "No worse than today": the excess allowed is the designer's margin for this figure
        # (targets.toml), explicit (goal = "targets") or by default where the file has one
        goal_from = margin_of(metric, relative)
        if not goal_from:
            raise HeronSimError(f"{where}.goal: \"targets\": the designer's targets give no margin for "
                                f"{metric}{' (relative)' if relative else ''}; allowed: " + "; ".join(
                                    f"{m}: {t}" for m, t in MARGIN_WORDS.items()) + "; or a number")
        from ..analysis.targets import load_targets

        goal = float(load_targets()[goal_from])
    else:
        goal = _number(entry.get("goal"), where, "goal",
                       'a finite number, or "targets" (the designer\'s margin, experiments/targets.toml)')
    if goal is None and direction in ("at_most", "at_least"):
        goal = 0.0  # "no more than T" is met when nothing exceeds T (goal = an allowed excess)
    return Objective(metric, direction, target, relative, goal, scale, players, goal_from)


#: The designer's margins (experiments/targets.toml) a goal may read (``goal = "targets"``, and
#: the default of a one-sided goal against the base or the reference, "no worse than today"):
#: a win rate or a gap to fair within ``share_margin``, a length within ``length_margin``
#: (relative), the skill gap within ``skill_gap_margin``.
MARGIN_WORDS = {"guide_spread, first_player_advantage, seat_balance, guide_<name>_win_rate, seat_<k>_win_rate":
                "share_margin", "length (relative = true)": "length_margin", "skill_gap": "skill_gap_margin"}


def margin_of(metric: str, relative: bool) -> str:
    """The targets.toml margin of ``metric``'s loss, or "" where the file has none."""
    if metric in ("guide_spread", "first_player_advantage", "seat_balance") or (
            metric.endswith("_win_rate") and metric.startswith(("guide_", "seat_"))):
        return "" if relative else "share_margin"
    if metric == "length":
        return "length_margin" if relative else ""
    if metric == "skill_gap":
        return "" if relative else "skill_gap_margin"
    return ""


def _constraint(entry, where, ref) -> Constraint:
    unknown = sorted(set(entry) - {"metric", "min", "max", "within", "of"})
    if unknown:
        raise HeronSimError(f"{where}.{unknown[0]}: unknown field; allowed: metric, min, max, within, of")
    metric = _metric(entry, where)
    lo = _number(entry.get("min"), where, "min", "a finite number (leave min out: no lower bound)")
    hi = _number(entry.get("max"), where, "max", "a finite number (leave max out: no upper bound)")
    within = _number(entry.get("within"), where, "within", "a finite number >= 0 (e.g. 0.05 for ±5 %)")
    of = entry.get("of", "base")
    if of not in ("base", "reference") or (of == "reference" and ref is None):
        raise HeronSimError(f"{where}.of: {of!r}; allowed: base" + (", reference" if ref is not None else ""))
    if within is None and lo is None and hi is None:
        raise HeronSimError(f"{where}: give min, max or within (relative to `of`)")
    if within is not None and within < 0:
        raise HeronSimError(f"{where}.within: {within}; allowed: >= 0 (e.g. 0.05 for ±5 %)")
    return Constraint(metric, lo, hi, within, of)


def read_tune_table(path: str | Path) -> dict:
    """The table of a tune file, unvalidated (one ``error:`` line if it cannot be read)."""
    from ..io import read_text

    path = Path(path)
    if not path.is_file():
        raise HeronSimError(f"{path}: no such tune file")
    text = read_text(path, "tune file")  # the one reader: not UTF-8, a BOM, too large
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise HeronSimError(f"{path.name}: not valid TOML: {err}") from None
    except RecursionError:
        raise HeronSimError(f"{path.name}: TOML nested too deeply") from None


def load_spec(path: str | Path) -> TuneSpec:
    return parse_spec(read_tune_table(path), Path(path))


assert set(OBJECTIVE_METRICS) <= set(METRICS)
