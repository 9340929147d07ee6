"""The lab on a lighter game (issue 34 item 3): ``game = "rampage"`` in a tune file.

The same questions as the Héron race's lab (docs/tuning.md), asked of a lighter game through
what every game declares in its package (:class:`heron_sim.games.base.LightGame`): its rules
table (``load_rules(...).to_table()``, the keys a study may change), its real players
(``heuristics``) and player counts (``min_players`` .. ``max_players``), and its words
(``data/words.toml``, :func:`heron_sim.games.base.rules_words`). The metrics come from the
frame every game writes (:data:`heron_sim.games.base.CORE_COLUMNS`: winner, length, finished,
seats), so the lab knows no game by hand:

- ``first_player_advantage``: seat 1's win share (over decided games, a shared win 1/k) − 1/players;
- ``seat_gap``: the largest |seat's share − 1/players| (the largest seat gap to fair);
- ``seat_spread``: the largest seat share − the smallest;
- ``length``: the mean length of finished games, in the game's unit (rounds or turns: its doc);
- ``unfinished``: the share of games stopped by the game's safety cap;
- ``shared_wins``: the share of finished games won by several seats tied.

A study: the panel (every real player alone and the first two mixed, rotated over the seats, ×
every player count the game allows, or the file's ``players`` / ``seatings`` / ``[[scenario]]``);
the ladder of smallest changes (every one-key change, then the best two- and three-key ones) on
the search games (indices 0 .. games−1, the same for every candidate); ``trials`` random
candidates of the space; racing on fresh seeds (rung r on indices from (r+1)·10⁹, successive
halving); the evidence from the last rung only, paired by game with the base (Poisson bootstrap,
each table's own weights shared by every candidate); equivalence at the designer's margin
(``goal``); the designer's order (do the rulings meet the goals; then the fewest rules among the
variants that meet them, then the fewest side effects). Outputs: :mod:`.light_outputs`.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import HeronSimError, RulesError
from .decide import dominates, goal_test, holm_over_family, race_key
from .space import Param, parse_param
from .spec import rules_file_and_set

#: Game indices of racing rung r start at (r + 1) * FRESH: seeds the search never plays.
FRESH = 1_000_000_000
#: Bootstrap replicates of the last rung's evidence.
BOOT = 400

#: Metric -> (what it measures, unit kind): every one computed from the core frame.
LIGHT_METRICS: dict[str, tuple[str, str]] = {
    "first_player_advantage": ("seat 1's win share minus the fair 1/players", "share"),
    "seat_gap": ("the largest gap between a seat's win share and the fair 1/players", "share"),
    "seat_spread": ("the largest seat win share minus the smallest", "share"),
    "length": ("mean length of the finished games (the game's unit)", "length"),
    "unfinished": ("share of games stopped by the safety cap", "share"),
    "shared_wins": ("share of finished games won by several seats tied", "share"),
}
#: Headline figures whose moves count as side effects in the designer's order.
HEADLINE = ("first_player_advantage", "seat_gap", "length", "unfinished")
SEAT_METRICS = {"first_player_advantage", "seat_gap", "seat_spread"}

_TOP = {"game", "name", "title", "description", "seed", "players", "seatings", "scenario", "rules",
        "search", "racing", "param", "objective", "constraint", "aggregate", "ladder", "panel"}
_LADDER = {"max_keys": 3, "grid": 9, "top": 6}
_SEARCH = {"trials": 20, "games": 2000, "sampler": "random"}
_RACING = {"rungs": [4000, 16000], "keep": 4, "max_candidates": 8, "report": 4}


@dataclass(frozen=True)
class Table:
    """One table of the panel: a player count and the players seated, rotated over the seats."""
    name: str
    players: int
    seating: tuple[str, ...]

    def rotations(self) -> list[list[str]]:
        k = len(self.seating)
        if k == 1:
            return [[self.seating[0]] * self.players]
        rots = []
        for r in range(self.players):
            s = [self.seating[(i + r) % k] for i in range(self.players)]
            if s not in rots:
                rots.append(s)
        return rots


@dataclass(frozen=True)
class LightObjective:
    metric: str
    direction: str = "minimize"      # minimize | maximize | target | at_most | at_least
    target: float | None = None
    goal: float | None = None

    def loss(self, v):
        if self.direction == "minimize":
            return v
        if self.direction == "maximize":
            return -v
        if self.direction == "target":
            return np.abs(v - self.target)
        if self.direction == "at_most":
            return np.maximum(0.0, v - self.target)
        return np.maximum(0.0, self.target - v)

    def describe(self) -> str:
        s = {"minimize": "minimize", "maximize": "maximize"}.get(self.direction)
        if s is None:
            word = {"target": "distance to", "at_most": "no more than", "at_least": "no less than"}[self.direction]
            s = f"{word} {self.target:g}"
        return f"{self.metric}: {s}" + (f" (goal <= {self.goal:g})" if self.goal is not None else "")


@dataclass(frozen=True)
class LightConstraint:
    metric: str
    min: float | None = None
    max: float | None = None
    within: float | None = None       # relative distance to the base's value, at every table

    def describe(self) -> str:
        if self.within is not None:
            return f"{self.metric} within ±{100 * self.within:g} % of base"
        parts = [f"{self.metric} >= {self.min:g}"] if self.min is not None else []
        parts += [f"{self.metric} <= {self.max:g}"] if self.max is not None else []
        return " and ".join(parts)

    def holds(self, v: float, b: float) -> bool:
        if not math.isfinite(v):
            return False
        if self.within is not None:
            return abs(v - b) <= self.within * abs(b) + 1e-12
        return (self.min is None or v >= self.min) and (self.max is None or v <= self.max)


@dataclass(frozen=True)
class LightSpec:
    game: Any                          # the LightGame
    name: str
    title: str
    description: str
    path: str
    seed: int
    rules_file: str | None
    rules_set: dict
    tables: tuple[Table, ...]
    params: tuple[Param, ...]
    objectives: tuple[LightObjective, ...]
    constraints: tuple[LightConstraint, ...]
    aggregate: str = "worst"
    trials: int = 20
    games: int = 2000
    rungs: tuple[int, ...] = (4000, 16000)
    keep: int = 4
    max_candidates: int = 8
    report: int = 4
    ladder_max_keys: int = 3
    ladder_grid: int = 9
    ladder_top: int = 6
    base_table: dict = field(default_factory=dict, repr=False)

    def with_overrides(self, trials=None, games=None, rungs=None) -> "LightSpec":
        import dataclasses

        return dataclasses.replace(self, trials=self.trials if trials is None else trials,
                                   games=self.games if games is None else games,
                                   rungs=self.rungs if rungs is None else tuple(rungs))

    def build(self, changes: dict):
        """The rules of the base with ``changes`` (dotted key -> value)."""
        over = copy.deepcopy(self.rules_set)
        for k, v in changes.items():
            _set_path(over, k, v)
        return self.game.load_rules(self.rules_file, over)

    def fingerprint(self) -> str:
        blob = json.dumps({"game": self.game.name, "seed": self.seed, "base": self.base_table,
                           "tables": [(t.name, t.players, t.seating) for t in self.tables],
                           "games": self.games}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _set_path(d: dict, key: str, value) -> None:
    parts = key.split(".")
    for p in parts[:-1]:
        d = d.setdefault(p, {})
    d[parts[-1]] = value


def _get_path(d: dict, key: str):
    for p in key.split("."):
        if not isinstance(d, dict) or p not in d:
            raise KeyError(key)
        d = d[p]
    return d


def _leaf_keys(d: dict, prefix: str = "") -> list[str]:
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            out += _leaf_keys(v, f"{prefix}{k}.")
        else:
            out.append(f"{prefix}{k}")
    return out


def game_of(data: dict) -> str:
    """The game a tune table names (``game``; default ``"heron"``)."""
    g = data.get("game", "heron")
    return g


def _int(table, key, lo, hi, where):
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise HeronSimError(f"{where}{key}: {v!r}; allowed: an integer {lo}..{hi}")
    return v


def _number(v, where, allowed="a finite number"):
    """A number of the study file (None where it is left out), finite, as in the Héron lab's
    parser (heron_sim.lab.spec._number): TOML reads nan, inf and -inf as numbers, and an integer
    no float holds overflows; a loss, a goal test or a constraint compared with one of them reads
    NaN, or decides every candidate alike."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not abs(v) <= sys.float_info.max:
        raise HeronSimError(f"{where}: {v!r}; allowed: {allowed}")
    return float(v)


def _sub(data, key, defaults, where):
    t = data.get(key, {}) or {}
    if not isinstance(t, dict):
        raise HeronSimError(f"{where}{key}: expected a table")
    bad = sorted(set(t) - set(defaults))
    if bad:
        raise HeronSimError(f"{where}{key}.{bad[0]}: unknown field; allowed: {', '.join(defaults)}")
    return {**defaults, **t}


def _metric(entry, where, game) -> str:
    m = entry.get("metric")
    if m not in LIGHT_METRICS:
        raise HeronSimError(f"{where}.metric: {m!r} is not a metric of {game}; allowed: {', '.join(LIGHT_METRICS)}")
    return m


def parse_light_spec(data: dict, path: str | Path = "<tune>") -> LightSpec:
    """Validate a lighter game's tune table; every bad value is one :class:`HeronSimError` line."""
    from ..games import get

    path = Path(path)
    where = f"{path.name}: "
    gname = data.get("game")
    if not isinstance(gname, str):
        raise HeronSimError(f"{where}game: {gname!r}; allowed: heron or a lighter game's name")
    try:
        game = get(gname)
    except HeronSimError as err:
        raise HeronSimError(f"{where}{err}") from None
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise HeronSimError(f"{where}{unknown[0]}: unknown field for a lighter game's study; "
                            f"allowed: {', '.join(sorted(_TOP))}")
    name = data.get("name", path.stem.removeprefix("tune-"))
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_" for c in name):
        raise HeronSimError(f"{where}name: {name!r}; allowed: letters, digits, - and _")
    seed = _int(data, "seed", 0, 2**63 - 1, where) if "seed" in data else 1
    title = data.get("title", f"Tuning study {name} ({game.title})")
    desc = data.get("description", "")
    if not isinstance(title, str) or not isinstance(desc, str):
        raise HeronSimError(f"{where}title/description: expected strings")
    # -- the base rules
    rfile, rset = rules_file_and_set(data.get("rules", {}) or {}, f"{where}rules", path.parent, ("file", "set"),
                                     f"{gname}'s ")
    try:
        base = game.load_rules(rfile, copy.deepcopy(rset))
    except HeronSimError as err:
        raise HeronSimError(f"{where}rules: {err}") from None
    base_table = base.to_table()
    # -- the panel
    tables = _parse_panel(data, game, where)
    # -- ladder, search, racing
    lad = _sub(data, "ladder", _LADDER, where)
    for key, lo, hi in (("max_keys", 0, 3), ("grid", 2, 100), ("top", 1, 50)):
        _int(lad, key, lo, hi, f"{where}ladder.")
    se = _sub(data, "search", {**_SEARCH, "population": 0, "batch_games": 0, "time_limit": 0}, where)
    for key, lo, hi in (("trials", 0, 100_000), ("games", 10, FRESH - 1)):
        _int(se, key, lo, hi, f"{where}search.")
    if se["sampler"] != "random":
        raise HeronSimError(f"{where}search.sampler: {se['sampler']!r}; allowed: random (a lighter game's "
                            "search draws its trials at random after the ladder)")
    ra = _sub(data, "racing", {**_RACING, "max_games": 0}, where)
    rungs = ra["rungs"]
    if (not isinstance(rungs, list) or not rungs
            or any(isinstance(x, bool) or not isinstance(x, int) or not 10 <= x < FRESH for x in rungs)):
        raise HeronSimError(f"{where}racing.rungs: {rungs!r}; allowed: a non-empty list of game counts (10 or more)")
    if any(b < a for a, b in zip(rungs, rungs[1:])):
        raise HeronSimError(f"{where}racing.rungs: {rungs!r}; allowed: game counts that do not shrink")
    for key, lo, hi in (("keep", 1, 1000), ("max_candidates", 1, 1000), ("report", 1, 100)):
        _int(ra, key, lo, hi, f"{where}racing.")
    aggregate = data.get("aggregate", "worst")
    if aggregate not in ("worst", "mean"):
        raise HeronSimError(f"{where}aggregate: {aggregate!r}; allowed: worst, mean")
    # -- the space: every key one of the game's rules keys, every value one its rules accept
    raw = data.get("param", [])
    if not isinstance(raw, list) or not raw:
        raise HeronSimError(f"{where}param: at least one [[param]] table (key and int, float or choices)")
    params = [parse_param(p, f"{where}param[{i}]") for i, p in enumerate(raw)]
    known = _leaf_keys(base_table)
    seen = set()
    for i, p in enumerate(params):
        try:
            _get_path(base_table, p.key)
        except KeyError:
            raise HeronSimError(f"{where}param[{i}].key: {p.key!r} is not a rules key of {gname}; "
                                f"allowed: {', '.join(known)}") from None
        if p.key in seen:
            raise HeronSimError(f"{where}param[{i}].key: {p.key!r} is searched by two parameters")
        seen.add(p.key)
    spec = LightSpec(game=game, name=name, title=title, description=desc, path=str(path), seed=seed,
                     rules_file=rfile, rules_set=copy.deepcopy(rset), tables=tables, params=tuple(params),
                     objectives=(), constraints=(), aggregate=aggregate, trials=se["trials"], games=se["games"],
                     rungs=tuple(rungs), keep=ra["keep"], max_candidates=ra["max_candidates"], report=ra["report"],
                     ladder_max_keys=lad["max_keys"], ladder_grid=lad["grid"], ladder_top=lad["top"],
                     base_table=base_table)
    for i, p in enumerate(params):
        for v in p.corners():
            try:
                spec.build({p.key: p.value_of(v)})
            except HeronSimError as err:
                raise HeronSimError(f"{where}param[{i}] ({p.key} = {p.value_of(v)!r}): {err}") from None
    objectives = [_objective(o, f"{where}objective[{i}]", gname) for i, o in enumerate(_list(data, "objective", where))]
    if not objectives:
        raise HeronSimError(f"{where}objective: at least one [[objective]] table (metric and direction or target)")
    constraints = [_constraint(c, f"{where}constraint[{i}]", gname)
                   for i, c in enumerate(_list(data, "constraint", where))]
    import dataclasses

    return dataclasses.replace(spec, objectives=tuple(objectives), constraints=tuple(constraints))


def _list(data, key, where):
    v = data.get(key, [])
    if not isinstance(v, list) or any(not isinstance(x, dict) for x in v):
        raise HeronSimError(f"{where}{key}: expected [[{key}]] tables")
    return v


def _objective(entry, where, game) -> LightObjective:
    allowed = {"metric", "direction", "target", "goal", "at_most", "at_least"}
    bad = sorted(set(entry) - allowed)
    if bad:
        raise HeronSimError(f"{where}.{bad[0]}: unknown field; allowed: {', '.join(sorted(allowed))}")
    m = _metric(entry, where, game)
    sides = [k for k in ("target", "at_most", "at_least") if k in entry]
    if len(sides) > 1:
        raise HeronSimError(f"{where}: give one of target, at_most, at_least")
    if sides:
        if "direction" in entry and entry["direction"] != sides[0]:
            raise HeronSimError(f"{where}: give direction or {sides[0]}, not both")
        direction, target = sides[0], _number(entry[sides[0]], f"{where}.{sides[0]}")
    else:
        direction, target = entry.get("direction", "minimize"), None
        if direction not in ("minimize", "maximize"):
            raise HeronSimError(f"{where}.direction: {direction!r}; allowed: minimize, maximize (or give target, "
                                "at_most or at_least = a number)")
    goal = _number(entry.get("goal"), f"{where}.goal")
    if goal is None and direction in ("at_most", "at_least"):
        goal = 0.0
    return LightObjective(m, direction, target, goal)


def _constraint(entry, where, game) -> LightConstraint:
    bad = sorted(set(entry) - {"metric", "min", "max", "within", "of"})
    if bad:
        raise HeronSimError(f"{where}.{bad[0]}: unknown field; allowed: metric, min, max, within, of")
    m = _metric(entry, where, game)
    if entry.get("of", "base") != "base":
        raise HeronSimError(f"{where}.of: {entry['of']!r}; allowed: base")
    lo = _number(entry.get("min"), f"{where}.min", "a finite number (leave min out: no lower bound)")
    hi = _number(entry.get("max"), f"{where}.max", "a finite number (leave max out: no upper bound)")
    within = _number(entry.get("within"), f"{where}.within", "a finite number >= 0 (e.g. 0.05 for ±5 %)")
    if within is None and lo is None and hi is None:
        raise HeronSimError(f"{where}: give min, max or within (relative to the base)")
    if within is not None and within < 0:
        raise HeronSimError(f"{where}.within: {within}; allowed: >= 0 (e.g. 0.05 for ±5 %)")
    if lo is not None and hi is not None and lo > hi:
        raise HeronSimError(f"{where}: min {lo:g} > max {hi:g}")
    return LightConstraint(m, lo, hi, within)


def _parse_panel(data, game, where) -> tuple[Table, ...]:
    """Players × player counts: ``[[scenario]]`` tables, or ``players`` (a count or a list; default
    every count the game allows) × ``seatings`` (names of the game's strategies, or ``"mixed"``:
    its first two real players alternating; default each real player alone, then mixed)."""
    strategies = tuple(game.strategies)
    if "panel" in data and data["panel"] != "default":
        raise HeronSimError(f"{where}panel: {data['panel']!r}; allowed: default (or [[scenario]] tables)")
    if "scenario" in data:
        if "players" in data or "seatings" in data:
            raise HeronSimError(f"{where}scenario: give [[scenario]] tables or players/seatings, not both")
        out = []
        for i, sc in enumerate(_list(data, "scenario", where)):
            w = f"{where}scenario[{i}]"
            bad = sorted(set(sc) - {"name", "players", "seating"})
            if bad:
                raise HeronSimError(f"{w}.{bad[0]}: unknown field; allowed: name, players, seating")
            P = _int(sc, "players", game.min_players, game.max_players, f"{w}.") if "players" in sc else None
            if P is None:
                raise HeronSimError(f"{w}.players: missing; allowed: {game.min_players}..{game.max_players}")
            seat = _seating(sc.get("seating", game.real_players()[0]), strategies, game, f"{w}.seating")
            out.append(Table(sc.get("name") or _table_name(seat, P), P, seat))
        if not out:
            raise HeronSimError(f"{where}scenario: at least one [[scenario]] table")
        return tuple(out)
    ps = data.get("players", list(range(game.min_players, game.max_players + 1)))
    ps = [ps] if isinstance(ps, int) and not isinstance(ps, bool) else ps
    if (not isinstance(ps, list) or not ps or any(isinstance(p, bool) or not isinstance(p, int)
                                                  or not game.min_players <= p <= game.max_players for p in ps)):
        raise HeronSimError(f"{where}players: {data.get('players')!r}; allowed: player counts in "
                            f"{game.min_players}..{game.max_players} (a number or a list)")
    real = game.real_players()
    default = [[r] for r in real] + ([list(real[:2])] if len(real) >= 2 else [])
    raw = data.get("seatings")
    if raw is None:
        seatings = [tuple(s) for s in default]
    else:
        if not isinstance(raw, list) or not raw:
            raise HeronSimError(f"{where}seatings: {raw!r}; allowed: a list of strategies of {game.name} "
                                f"({', '.join(strategies)}), lists of them, or \"mixed\"")
        seatings = [_seating(s, strategies, game, f"{where}seatings") for s in raw]
    return tuple(Table(_table_name(s, P), P, s) for s in seatings for P in ps)


def _seating(v, strategies, game, where) -> tuple[str, ...]:
    if v == "mixed":
        real = game.real_players()
        if len(real) < 2:
            raise HeronSimError(f"{where}: \"mixed\" needs two real players; {game.name} declares {', '.join(real)}")
        return tuple(real[:2])
    names = [v] if isinstance(v, str) else v
    if (not isinstance(names, list) or not names or any(not isinstance(n, str) or n not in strategies for n in names)):
        raise HeronSimError(f"{where}: {v!r}; allowed: strategies of {game.name} ({', '.join(strategies)}), "
                            "a list of them (rotated over the seats) or \"mixed\"")
    return tuple(names)


def _table_name(seat: tuple[str, ...], P: int) -> str:
    return f"{'+'.join(seat) if len(seat) > 1 else seat[0]}-{P}"


# ---------------------------------------------------------------- playing a candidate
@dataclass
class Games:
    """Per-game figures of one table: win share of each seat (float[n, P], a shared win 1/k),
    finished (bool[n]) and length (float[n])."""
    shares: np.ndarray
    finished: np.ndarray
    length: np.ndarray


class Evaluator:
    """Plays candidates (memoised in memory and in ``evals/``: a resumed study replays nothing)."""

    def __init__(self, spec: LightSpec, folder: Path | None = None, log: Callable[[str], None] = lambda s: None):
        self.spec, self.folder, self.log = spec, folder, log
        self.cache: dict = {}
        self.games_played = 0   # games played by this process
        self.games_total = 0    # games the study's evaluations hold (played now or read from evals/)

    def play(self, rules, first: int, n: int) -> list[Games]:
        return [self._table(rules, t, first, n) for t in self.spec.tables]

    def _table(self, rules, t: Table, first: int, n: int) -> Games:
        from ..interrupt import stop_requested

        key = hashlib.sha256(json.dumps([rules.digest(), t.players, t.seating, self.spec.seed, first, n]).encode()
                             ).hexdigest()[:20]
        if key in self.cache:
            return self.cache[key]
        self.games_total += n
        path = self.folder / f"{key}.npz" if self.folder else None
        if path is not None and path.exists():
            try:
                z = np.load(path)
                g = Games(z["shares"], z["finished"], z["length"])
                self.cache[key] = g
                return g
            except Exception:  # noqa: BLE001 - a damaged cache file is replayed
                self.log(f"cached evaluation {path.name} unreadable: played again")
        if stop_requested():
            raise KeyboardInterrupt
        from ..analysis.metrics import light_win_shares
        from ..games.base import simulate_chunks

        rots = t.rotations()
        parts = []
        start = first
        for r, seats in enumerate(rots):
            m = n // len(rots) + (1 if r < n % len(rots) else 0)
            for df in simulate_chunks(self.spec.game, rules, m, t.players, self.spec.seed, seats, first_game=start):
                parts.append((light_win_shares(df), df["finished"].to_numpy(bool),
                              df["length"].to_numpy(np.float64)))
            start += m
        if stop_requested():
            raise KeyboardInterrupt
        g = Games(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                  np.concatenate([p[2] for p in parts]))
        self.games_played += n
        self.cache[key] = g
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".part.npz")
            np.savez(tmp, shares=g.shares, finished=g.finished, length=g.length)
            tmp.replace(path)
        return g


def metric_values(metric: str, g: Games, W: np.ndarray | None = None) -> np.ndarray:
    """The metric of one table: a float (``W`` None) or one value per column of the weights
    ``W`` (float[n, B], a bootstrap's)."""
    S, fin, L = g.shares, g.finished.astype(np.float64), g.length
    P = S.shape[1]
    if W is None:
        W = np.ones((len(fin), 1))
        single = True
    else:
        single = False
    with np.errstate(invalid="ignore", divide="ignore"):
        dec = (S.sum(axis=1) > 0.5).astype(np.float64)
        nd = W.T @ dec
        if metric in ("first_player_advantage", "seat_gap", "seat_spread"):
            sh = (W.T @ S) / nd[:, None]
            if metric == "first_player_advantage":
                out = sh[:, 0] - 1.0 / P
            elif metric == "seat_gap":
                out = np.abs(sh - 1.0 / P).max(axis=1)
            else:
                out = sh.max(axis=1) - sh.min(axis=1)
        elif metric == "length":
            out = (W.T @ (L * fin)) / (W.T @ fin)
        elif metric == "unfinished":
            out = (W.T @ (1.0 - fin)) / W.sum(axis=0)
        elif metric == "shared_wins":
            shared = (((S > 0) & (S < 1)).any(axis=1)).astype(np.float64) * fin
            out = (W.T @ shared) / (W.T @ fin)
        else:  # pragma: no cover - the spec refuses it
            raise HeronSimError(f"metric: {metric!r}; allowed: {', '.join(LIGHT_METRICS)}")
    return float(out[0]) if single else out


def _finite(x) -> float:
    x = float(x)
    return x if math.isfinite(x) else float("inf")


def normalised_sum(losses: dict, base_losses: dict) -> float:
    """The score of the race key: the sum over objectives of each loss divided by
    ``max(|base loss|, 1e-9)`` (the lighter games' own normalisation: a base loss of 0, an
    ``at_least`` goal the rulings meet, weighs that objective first)."""
    return sum(losses[m] / max(abs(base_losses[m]), 1e-9) for m in losses)


@dataclass
class Candidate:
    id: str
    source: str                 # "ladder" | "search"
    changes: dict               # dotted key -> rules value
    labels: dict                # dotted key -> the value's label (choices) or value
    rules: Any
    n_changed: int
    search: dict = field(default_factory=dict)   # objective metric -> loss; feasible; values


def changed_keys(a: dict, b: dict) -> list[str]:
    """Dotted keys whose value differs between two rules tables."""
    return [k for k in _leaf_keys(a) if _get_path(a, k) != _get_path(b, k)]


class Study:
    def __init__(self, spec: LightSpec, ev: Evaluator, log: Callable[[str], None] = lambda s: None):
        self.spec, self.ev, self.log = spec, ev, log
        self.base = spec.build({})
        self.base_digest = self.base.digest()
        self.seen: dict[str, Candidate] = {}

    # -- on the search games
    def judge(self, games: list[Games], base: list[Games]) -> dict:
        sp = self.spec
        losses = {}
        for o in sp.objectives:
            per = [_finite(o.loss(metric_values(o.metric, g))) for g in games]
            losses[o.metric] = max(per) if sp.aggregate == "worst" else float(np.mean(per))
        feas = all(c.holds(metric_values(c.metric, g), metric_values(c.metric, b))
                   for c in sp.constraints for g, b in zip(games, base))
        return {"losses": losses, "feasible": bool(feas)}

    def candidate(self, changes: dict, labels: dict, source: str, cid: str) -> Candidate | None:
        try:
            rules = self.spec.build(changes)
        except HeronSimError:
            return None
        d = rules.digest()
        if d == self.base_digest or d in self.seen:
            return None
        n = len(changed_keys(self.spec.base_table, rules.to_table()))
        c = Candidate(cid, source, dict(changes), dict(labels), rules, n)
        self.seen[d] = c
        return c

    def score(self, c: Candidate, base_losses: dict) -> tuple:
        """The lab's race key (:func:`heron_sim.lab.decide.race_key`) on the search games."""
        return race_key(c.search["feasible"], normalised_sum(c.search["losses"], base_losses), c.n_changed)

    def run_search_phase(self) -> tuple[list[Candidate], dict, list[Candidate]]:
        """The ladder then the random trials, on the search games; returns (every candidate
        played, the base's judgement, the ladder's picks for k = 1, 2, 3 keys)."""
        from .ladder import grid_values

        sp = self.spec
        base_g = self.ev.play(self.base, 0, sp.games)
        base_j = self.judge(base_g, base_g)
        played: list[Candidate] = []

        def play(c):
            c.search = self.judge(self.ev.play(c.rules, 0, sp.games), base_g)
            played.append(c)

        # the ladder: one key, then the best values of the top keys two and three at a time
        best_by_param: dict[str, Candidate] = {}
        if sp.ladder_max_keys:
            i = 0
            for p in sp.params:
                for raw in grid_values(p, sp.ladder_grid):
                    i += 1
                    c = self.candidate({p.key: p.value_of(raw)}, {p.key: raw}, "ladder", f"L{i}")
                    if c is None:
                        continue
                    play(c)
                    if p.key not in best_by_param or self.score(c, base_j["losses"]) < self.score(
                            best_by_param[p.key], base_j["losses"]):
                        best_by_param[p.key] = c
            top = sorted(best_by_param.values(), key=lambda c: self.score(c, base_j["losses"]))[:sp.ladder_top]
            for k in range(2, sp.ladder_max_keys + 1):
                for combo in itertools.combinations(top, k):
                    ch, lab = {}, {}
                    for c in combo:
                        ch.update(c.changes)
                        lab.update(c.labels)
                    i += 1
                    c = self.candidate(ch, lab, "ladder", f"L{i}")
                    if c is not None:
                        play(c)
            self.log(f"ladder: {len(played)} rule sets played on {sp.games:,} games a table")
        # the search: random rule sets of the space, never one already played
        rng = np.random.default_rng([sp.seed, 34])
        t, misses = 0, 0
        while t < sp.trials and misses < 50:
            ch, lab = {}, {}
            for p in sp.params:
                if p.kind == "choice":
                    raw = p.labels[int(rng.integers(len(p.labels)))]
                elif p.kind == "int":
                    raw = int(p.low) + p.step * int(rng.integers((int(p.high) - int(p.low)) // p.step + 1))
                else:
                    lo, hi = float(p.low), float(p.high)
                    raw = float(math.exp(rng.uniform(math.log(lo), math.log(hi))) if p.log else rng.uniform(lo, hi))
                v = p.value_of(raw)
                if v != _get_path(sp.base_table, p.key):
                    ch[p.key], lab[p.key] = v, raw
            c = self.candidate(ch, lab, "search", f"t{t}") if ch else None
            if c is None:
                misses += 1
                continue
            misses = 0
            t += 1
            play(c)
        if sp.trials:
            self.log(f"search: {t} random rule sets played" + (" (the space holds no further one)" if t < sp.trials else ""))
        picks = []
        lad = [c for c in played if c.source == "ladder"]
        for k in range(1, sp.ladder_max_keys + 1):
            within = [c for c in lad if c.n_changed <= k]
            if within:
                b = min(within, key=lambda c: self.score(c, base_j["losses"]))
                if b not in picks:
                    picks.append(b)
        return played, base_j, picks

    def front(self, played: list[Candidate], base_j: dict, picks: list[Candidate]) -> list[Candidate]:
        """The ladder's picks, then the feasible non-dominated candidates, then the best by score,
        up to ``max_candidates``."""
        sp = self.spec
        feas = [c for c in played if c.search["feasible"]]
        ms = [o.metric for o in sp.objectives]

        def dominated(c):
            return any(dominates([d.search["losses"][m] for m in ms], [c.search["losses"][m] for m in ms])
                       for d in feas if d is not c)

        nd = sorted([c for c in feas if not dominated(c)], key=lambda c: self.score(c, base_j["losses"]))
        rest = sorted(played, key=lambda c: self.score(c, base_j["losses"]))
        out = list(picks)
        for c in nd + rest:
            if len(out) >= max(sp.max_candidates, len(picks)):
                break
            if c not in out:
                out.append(c)
        return out

    def race(self, cands: list[Candidate], base_j: dict, picks: list[Candidate]):
        sp = self.spec
        alive = list(cands)
        for r, n in enumerate(sp.rungs):
            first = (r + 1) * FRESH
            base_g = self.ev.play(self.base, first, n)
            games = {c.id: self.ev.play(c.rules, first, n) for c in alive}
            self.log(f"racing rung {r + 1}/{len(sp.rungs)}: {len(alive)} candidates x {n:,} fresh games a table")
            if r == len(sp.rungs) - 1:
                return alive, base_g, games, n
            judged = {c.id: self.judge(games[c.id], base_g) for c in alive}

            def key(c):
                j = judged[c.id]
                return race_key(j["feasible"], normalised_sum(j["losses"], base_j["losses"]), c.n_changed)

            ranked = sorted(alive, key=key)
            keep = ranked[:sp.keep]
            alive = keep + [c for c in picks if c in alive and c not in keep]
        return alive, None, {}, 0  # pragma: no cover - rungs is never empty


# ---------------------------------------------------------------- evidence on the last rung
def _weights(spec: LightSpec, n: int, i: int) -> np.ndarray:
    rng = np.random.default_rng([spec.seed, 7, i, n])
    return rng.poisson(1.0, size=(n, BOOT)).astype(np.float64)


def _ci(x: np.ndarray) -> tuple[float, float]:
    x = x[np.isfinite(x)]
    if not len(x):
        return float("nan"), float("nan")
    return float(np.percentile(x, 2.5)), float(np.percentile(x, 97.5))


def _agg(spec, per: list[np.ndarray]) -> np.ndarray:
    A = np.vstack(per)
    return A.max(axis=0) if spec.aggregate == "worst" else A.mean(axis=0)


def evidence(spec: LightSpec, cands: list[Candidate], base_g: list[Games], games: dict, n: int) -> tuple[list[dict], dict]:
    """Paired evidence of every candidate on the last rung, and the base's (do the rulings meet
    the goals?)."""
    Ws = [_weights(spec, n, i) for i in range(len(spec.tables))]
    names = [t.name for t in spec.tables]
    metrics = sorted({o.metric for o in spec.objectives} | {c.metric for c in spec.constraints} | set(HEADLINE))

    def values(gs):
        return {m: [(metric_values(m, g), metric_values(m, g, W)) for g, W in zip(gs, Ws)] for m in metrics}

    bv = values(base_g)
    base = {"objectives": [], "games": n}
    for o in spec.objectives:
        est = _agg(spec, [np.array([o.loss(bv[o.metric][i][0])]) for i in range(len(names))])[0]
        boot = _agg(spec, [o.loss(bv[o.metric][i][1]) for i in range(len(names))])
        lo, hi = _ci(boot)
        lo, hi = min(lo, est), max(hi, est)
        base["objectives"].append({"metric": o.metric, "loss": float(est), "loss_low": lo, "loss_high": hi,
                                   "goal": o.goal, "goal_met_95": o.goal is not None and hi <= o.goal,
                                   "values": {names[i]: bv[o.metric][i][0] for i in range(len(names))}})
    base["meets"] = bool(spec.objectives) and all(o["goal"] is not None and o["goal_met_95"] for o in base["objectives"])
    base["headline"] = {m: {names[i]: bv[m][i][0] for i in range(len(names))} for m in metrics}
    from .light_page import page_check

    base["page"] = page_check(spec, base_g, Ws, n)  # the game page's own targets, table by table
    out = []
    for c in cands:
        vv = values(games[c.id])
        e = {"id": c.id, "source": c.source, "changes": _changes_text(c), "changes_table": c.changes,
             "labels": c.labels, "n_changed": c.n_changed, "digest": c.rules.digest(), "games": n,
             "objectives": [], "constraints": [], "side_effects": [], "scenarios": names}
        for o in spec.objectives:
            m = o.metric
            est = float(_agg(spec, [np.array([o.loss(vv[m][i][0])]) for i in range(len(names))])[0])
            boot = _agg(spec, [o.loss(vv[m][i][1]) for i in range(len(names))])
            bboot = _agg(spec, [o.loss(bv[m][i][1]) for i in range(len(names))])
            b_est = next(x["loss"] for x in base["objectives"] if x["metric"] == m)
            lo, hi = _ci(boot)
            lo, hi = min(lo, est), max(hi, est)
            dlo, dhi = _ci(boot - bboot)
            verdict = "better" if dhi < 0 else "worse" if dlo > 0 else "no clear difference"
            # games a table that would tell the variant from the base if the difference held (the
            # paired interval's half-width shrinking as 1/sqrt(n))
            tell = (int(math.ceil(n * ((dhi - dlo) / 2 / abs(est - b_est)) ** 2))
                    if verdict == "no clear difference" and abs(est - b_est) > 1e-12 and math.isfinite(dhi - dlo)
                    else None)
            ob = {"metric": m, "objective": o.describe(), "loss": est, "loss_low": lo, "loss_high": hi,
                  "base_loss": b_est, "diff": est - b_est, "diff_low": dlo, "diff_high": dhi, "verdict": verdict,
                  "games_to_tell": tell, "goal": o.goal,
                  "tables": [{"table": names[i], "base": bv[m][i][0], "variant": vv[m][i][0]} for i in range(len(names))]}
            if o.goal is not None:
                ob.update(_decision(est, lo, hi, o.goal, n))
                # one-sided bootstrap p of "the loss exceeds the goal" (Holm's correction below)
                ok = boot[np.isfinite(boot)]
                ob["p_goal"] = float((np.sum(ok > o.goal) + 1) / (len(ok) + 1))
            e["objectives"].append(ob)
        for cst in spec.constraints:
            m = cst.metric
            for i in range(len(names)):
                v, b = vv[m][i][0], bv[m][i][0]
                if cst.within is not None:
                    rel = (vv[m][i][1] - bv[m][i][1]) / np.abs(bv[m][i][1])
                    lo, hi = _ci(rel)
                    e["constraints"].append({"constraint": cst.describe(), "metric": m, "table": names[i],
                                             "relative_change": (v - b) / abs(b) if b else float("nan"),
                                             "low": lo, "high": hi, "holds": cst.holds(v, b)})
                else:
                    lo, hi = _ci(vv[m][i][1])
                    e["constraints"].append({"constraint": cst.describe(), "metric": m, "table": names[i],
                                             "estimate": v, "low": lo, "high": hi, "holds": cst.holds(v, b)})
        e["feasible"] = all(x["holds"] for x in e["constraints"])
        own = {o.metric for o in spec.objectives}
        if own & SEAT_METRICS:  # a study of the seats: every seat figure is its own measure
            own |= SEAT_METRICS
        for m in HEADLINE:
            if m in own:
                continue
            for i in range(len(names)):
                d = vv[m][i][1] - bv[m][i][1]
                lo, hi = _ci(d)
                if lo > 0 or hi < 0:
                    hw = max((hi - lo) / 2, 1e-12)
                    e["side_effects"].append({"metric": m, "table": names[i], "base": bv[m][i][0],
                                              "variant": vv[m][i][0], "diff": vv[m][i][0] - bv[m][i][0],
                                              "low": lo, "high": hi, "size": abs(vv[m][i][0] - bv[m][i][0]) / hw})
        goals = [o for o in e["objectives"] if o["goal"] is not None]
        e["goals_met_95"] = sum(o["decision"] == "passes" for o in goals)
        e["meets"] = bool(goals) and e["goals_met_95"] == len(goals) and e["feasible"]
        e["page"] = page_check(spec, games[c.id], Ws, n)
        out.append(e)
    holm_over_family(out)  # one-sided bootstrap p of "the loss exceeds the goal" (p_goal above)
    return designer_order(spec, out), base


def _decision(est, lo, hi, goal, n) -> dict:
    """The lab's goal test (:func:`heron_sim.lab.decide.goal_test`) of a loss against its goal
    (the goal is on the loss: met when ``est <= goal``), with whether the estimate meets it and
    whether it does with 95 % confidence."""
    return {**goal_test(est, lo, hi, goal, n), "goal_met": est <= goal, "goal_met_95": hi <= goal}


def designer_order(spec: LightSpec, fin: list[dict]) -> list[dict]:
    """The designer's order: the variants that meet every goal with 95 % confidence (and every
    constraint) first, those that also meet the game page's own targets at every table before the
    others (:mod:`.light_page`), fewest rules first, then fewest and smallest side effects; then the others:
    feasible, most goals met, most objectives where they cannot be told from the best, fewest
    rules; the estimates last (sum of ranks over the objectives)."""
    if not fin:
        return fin
    ranks = {e["id"]: 0 for e in fin}
    for k in range(len(spec.objectives)):
        for r, e in enumerate(sorted(fin, key=lambda e: e["objectives"][k]["loss"])):
            ranks[e["id"]] += r
    best = [min(e["objectives"][k]["loss"] for e in fin) for k in range(len(spec.objectives))]

    def key(e):
        if e["meets"]:
            return (0, not (e.get("page") or {}).get("meets", True), e["n_changed"], len(e["side_effects"]), sum(x["size"] for x in e["side_effects"]),
                    ranks[e["id"]])
        alike = sum(o["loss_low"] <= best[k] for k, o in enumerate(e["objectives"]))
        return (1, not e["feasible"], -e["goals_met_95"], -alike, e["n_changed"], ranks[e["id"]])

    out = sorted(fin, key=key)
    for r, e in enumerate(out, 1):
        e["rank"] = r
    return out


def _changes_text(c: Candidate) -> str:
    parts = []
    for k, v in c.changes.items():
        lab = c.labels.get(k)
        plain = isinstance(lab, str) and lab in (json.dumps(v), str(v))
        parts.append(f"{k} = {json.dumps(v)}" + (f" ({lab})" if isinstance(lab, str) and not plain else ""))
    return ", ".join(parts)


# ---------------------------------------------------------------- the finding
def _fmt(metric: str, x: float, unit: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    if LIGHT_METRICS[metric][1] == "share":
        return f"{100 * x:.1f}" + (" points" if unit else "")
    return f"{x:.2f}"


def _iv(metric: str, lo: float, hi: float) -> str:
    return f"[{_fmt(metric, lo, False)}, {_fmt(metric, hi, False)}]"


def _fmt_v(metric: str, x: float) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{100 * x:.1f} %" if LIGHT_METRICS[metric][1] == "share" else f"{x:.2f}"


def seed_reading(game: str, changes: dict | None) -> str | None:
    """The name of the reading of the rules text (the game's summary module's ``READINGS``:
    "end when all buildings are captured (old)") that sets exactly ``changes``, or None: such a
    change is a reading of the booklet the game's page already plays, not a new rule."""
    import importlib

    if not changes:
        return None
    module = f"heron_sim.games.{game.replace('-', '_')}.summary"
    try:
        readings = getattr(importlib.import_module(module), "READINGS", {}) or {}
    except ModuleNotFoundError as err:
        if err.name != module:
            raise
        return None
    return next((name for name, sets in readings.items() if sets and dict(sets) == dict(changes)), None)


#: What the finding says of an answer that is a reading of the rules text (issue 58 item 7).
READING_WORDS = {
    "en": ("This change is a reading of the rules text (\"{reading}\", one of the readings the game's page "
           "plays), not a new rule: adopt it only if it is what the rules mean; its figures here are its "
           "consequences. "),
    "fr": ("Ce changement est une lecture du livret (« {reading} », l'une des lectures que la page du jeu joue), "
           "pas une règle nouvelle : à adopter seulement si c'est ce que le livret veut dire ; ses chiffres en "
           "sont les conséquences."),
}


def finding_text(spec: LightSpec, fin: list[dict], base: dict) -> str:
    tables = f"{len(spec.tables)} tables ({spec.aggregate} over the panel)" if len(spec.tables) > 1 else "one table"
    objs = "; ".join(f"{o['metric']} loss {_fmt(o['metric'], o['loss'])} {_iv(o['metric'], o['loss_low'], o['loss_high'])}" + (f", goal <= {_fmt(o['metric'], o['goal'])}"
                                                               if o["goal"] is not None else "")
                     for o in base["objectives"])
    if base["meets"]:
        text = (f"No change needed: the rulings already meet every goal with 95 % confidence on {tables} "
                f"({objs}; {base['games']:,} fresh games a table). The variants below are shown for information. ")
    elif any(o["goal"] is not None for o in base["objectives"]):
        missed = [o["metric"] for o in base["objectives"] if o["goal"] is not None and not o["goal_met_95"]]
        text = f"The rulings do not meet every goal (not with 95 % confidence on {', '.join(missed)}: {objs}). "
    else:
        text = f"The rulings: {objs}. "
    if not fin:
        return text + "No candidate was re-evaluated."
    best = fin[0]
    nothing = not any(o["verdict"] == "better" for e in fin for o in e["objectives"])
    if nothing:  # not "keep the rulings": the rulings miss the study's goals (else "no change needed")
        missed = [o["metric"] for o in base["objectives"] if o["goal"] is not None and not o["goal_met_95"]]
        text += ("No re-evaluated variant is shown better than the rulings on any objective (paired 95 % intervals "
                 "on fresh seeds): the study found no change of its space that fixes "
                 + (f"{', '.join(missed)}" if missed else "what it measures")
                 + "; this does not show the rulings fine. ")
        tell = [o["games_to_tell"] for o in best["objectives"] if o.get("games_to_tell")]
        if tell:
            text += (f"Telling its best variant from the rulings would take about {min(tell):,} games a table "
                     f"(from the spread observed on {best['games']:,}, if the difference held). ")
    if base.get("page") and not base["page"]["meets"] and (nothing or not best["meets"]):
        from .light_page import page_words

        text += page_words(base["page"], "en", "rulings") + " "
    if best["meets"]:
        text += (f"Smallest change that meets every goal of the study with 95 % confidence on {tables}: `{best['id']}` "
                 f"({best['n_changed']} rule{'s' if best['n_changed'] != 1 else ''}: {best['changes']}). ")
    else:
        if any(o.goal is not None for o in spec.objectives):
            text += ("No re-evaluated variant meets every goal with 95 % confidence at every table (ladder of up to "
                     f"{spec.ladder_max_keys} rules and {spec.trials} random trials, at this precision). ")
        text += (f"Ranked first: `{best['id']}` ({best['n_changed']} rule{'s' if best['n_changed'] != 1 else ''} "
                 f"changed: {best['changes']}). ")
    reading = seed_reading(spec.game.name, best.get("changes_table"))
    if reading:
        text += READING_WORDS["en"].format(reading=reading)
    parts = []
    for o in best["objectives"]:
        worst = max(o["tables"], key=lambda t: _finite(abs(t["variant"])))
        s = (f"{o['metric']} loss {_fmt(o['metric'], o['loss'])} {_iv(o['metric'], o['loss_low'], o['loss_high'])} "
             f"against {_fmt(o['metric'], o['base_loss'])} for the base ({o['verdict']}; paired difference "
             f"{_fmt(o['metric'], o['diff'])} {_iv(o['metric'], o['diff_low'], o['diff_high'])})")
        if len(o["tables"]) > 1:
            s += f"; e.g. {worst['table']}: {_fmt_v(o['metric'], worst['base'])} → {_fmt_v(o['metric'], worst['variant'])}"
        if "decision" in o:
            s += f"; goal test: {o['decision']}"
            if o.get("games_needed"):
                s += f" (about {o['games_needed']:,} games a table would decide it if the estimate held)"
        parts.append(s)
    text += f"On {best['games']:,} fresh games a table paired with the base: " + "; ".join(parts) + "."
    bad = [c for c in best["constraints"] if not c["holds"]]
    if spec.constraints:
        text += (" Constraints hold at every table." if not bad else " Constraint violated: " + "; ".join(
            f"{c['constraint']} at {c['table']}" for c in bad[:4]) + ".")
    if best["meets"]:
        holm = all(o.get("goal_met_holm") for o in best["objectives"] if o["goal"] is not None)
        text += (f" It passes the equivalence test at every goal, and {'still' if holm else 'not'} after Holm's "
                 f"correction over the {best['holm_family']} goal tests of the finalists.")
    if best["side_effects"]:
        text += " Side effects (paired 95 % interval excluding zero): " + "; ".join(
            f"{x['metric']} at {x['table']} {_fmt_v(x['metric'], x['base'])} → {_fmt_v(x['metric'], x['variant'])}"
            for x in best["side_effects"][:6]) + (f"; and {len(best['side_effects']) - 6} more"
                                                  if len(best["side_effects"]) > 6 else "") + "."
    page = best.get("page")
    if page:
        from .light_page import page_words

        text += " " + page_words(page, "en")
        if best["meets"] and not page["meets"]:
            misses = any(s == "misses" for s in page["tables"].values())
            text += (" So it meets the study's goals but " + ("misses the page's targets" if misses else
                     "is not shown to meet the page's targets") + ": it is not a fix of the game's problems.")
    return text
