"""Run experiments: seeding, chunking, collection, and the run folder on disk.

Seeding: every game (or single turn) draws from its own stream ``(seed, index)``; a job of
``n`` games plays indices ``0..n-1``, split into contiguous chunks when the seating rotates
(chunk ``r`` plays with the seating rotated by ``r`` seats). Two jobs with the same seed and
games therefore play the same dice streams (common random numbers): modes, power ablations
and rule variants are compared on the same seeds.

A run folder (``runs/NAME/``) holds ``manifest.json`` (experiments, jobs, rules tables,
timing, metadata) and one Parquet file per job under ``<experiment>/<job>.parquet``. The
tables and the report are computed from that folder alone (``heron-sim report --from``).
"""

from __future__ import annotations

import datetime as _dt
import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ..errors import HeronSimError
from ..rules import Rules
from ..strategies import REGISTRY
from .config import Experiment

# ---------------------------------------------------------------- strategies at run time


def available_strategies() -> list[str]:
    """User-facing strategies registered now (the strategies issue may add more)."""
    return [n for n, s in REGISTRY.items() if s.user_facing]


def ai_strategies() -> list[str]:
    """The AI strategies: every registered one except ``random`` (at least ``greedy``)."""
    out = [n for n in available_strategies() if n != "random"]
    return out or ["greedy"]


def resolve_strategies(spec) -> list[str]:
    """``"ai"``, ``"all"``, a comma string or a list -> registered strategy names."""
    if isinstance(spec, str) and spec in ("ai", "all"):
        return ai_strategies() if spec == "ai" else available_strategies()
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [n.strip() for n in names]
    # Names not registered (yet) are skipped, so that a plan written for strategies still being
    # built runs with whatever exists; it fails only if nothing is left.
    known = [n for n in names if n in REGISTRY and REGISTRY[n].user_facing]
    if not known:
        raise HeronSimError(f"seating: none of {names} is a registered strategy; allowed: {', '.join(available_strategies())}")
    return known


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
            table = light_rules_table(self.rules)
            return {"key": self.key, "kind": self.kind, "n": self.n, "seed": self.seed, "mode": None,
                    "players": self.labels.get("players"), "game": self.labels.get("game"),
                    "rules_hash": _digest(table), "rules": table, "seatings": self.seatings,
                    "strategy": "", "guide": "", "labels": self.labels}
        return {"key": self.key, "kind": self.kind, "n": self.n, "seed": self.seed,
                "mode": self.rules.mode, "players": self.rules.players,
                "rules_hash": self.rules.digest(), "rules": self.rules.to_table(),
                "seatings": self.seatings, "strategy": self.strategy, "guide": self.guide,
                "labels": self.labels}


def play_job(job: Job, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Simulate one job and return its raw rows (games, or turns)."""
    from ..simulation import simulate, simulate_turns

    if job.kind == "games":
        from .executor import current, play_games_job

        if current() is not None:  # --scheduler: the same frame, batches on a Dask cluster
            return play_games_job(job, current())
        chunks = len(job.seatings)
        bounds = np.linspace(0, job.n, chunks + 1).astype(int)
        parts = []
        for r, seating in enumerate(job.seatings):
            lo, hi = int(bounds[r]), int(bounds[r + 1])
            if hi > lo:
                parts.append(simulate(job.rules, hi - lo, job.seed, seating, first_game=lo, progress=progress))
        df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        for col in [c for c in df.columns if c.startswith("strategy_")] + ["strategies", "winner_strategy"]:
            df[col] = df[col].astype(str)
        return df
    if job.kind == "light":
        return play_light(job, progress)
    if job.kind == "turns":
        out = simulate_turns(job.rules, job.n, job.seed, job.strategy, job.guide)
        if progress is not None:
            progress(job.n)
        return pd.DataFrame({"outcome": out[:, 0].astype(np.int8), "value": out[:, 1].astype(np.int16),
                             "roll": out[:, 2].astype(np.int8)})
    if job.kind == "tournament":
        from .. import tournament as tmod  # type: ignore[attr-defined]

        res = tmod.tournament(job.rules, job.labels["strategies"], job.n, job.seed)
        return _as_frame(res)
    raise HeronSimError(f"job kind {job.kind!r}")


def light_rules_table(rules) -> dict:
    """A lighter game's rules as a JSON-able table (dataclass fields; arrays as lists)."""
    import dataclasses

    def conv(v):
        if hasattr(v, "tolist"):
            return v.tolist()
        if isinstance(v, dict):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v if isinstance(v, (int, float, str, bool)) or v is None else repr(v)

    if dataclasses.is_dataclass(rules):
        return {f.name: conv(getattr(rules, f.name)) for f in dataclasses.fields(rules)}
    return {"repr": repr(rules)}


def _digest(table: dict) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(table, sort_keys=True, default=str).encode()).hexdigest()[:12]


def play_light(job: Job, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """A lighter game's batch: chunk ``r`` of the games plays seating ``r`` on game indices
    ``lo..hi-1`` (streams ``(seed, i)``), as the Héron jobs do."""
    from ..games import get

    game = get(job.labels["game"])
    players = int(job.labels["players"])
    bounds = np.linspace(0, job.n, len(job.seatings) + 1).astype(int)
    parts = []
    for r, seating in enumerate(job.seatings):
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        if hi > lo:
            parts.append(game.simulate(job.rules, games=hi - lo, players=players, seed=job.seed,
                                       strategies=list(seating), progress=progress, first_game=lo))
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    for col in ("seats", "strategies"):
        if col in df:
            df[col] = df[col].astype(str)
    return df


def _as_frame(res) -> pd.DataFrame:
    """Whatever the tournament returns, as a DataFrame (a table, or an object holding one).

    A ``TournamentResult`` (ranking + pair matrices) becomes one long frame with a ``table``
    column: ``ranking`` rows, then ``pair`` rows (row strategy, column strategy, wins, rate,
    low, high)."""
    ranking = getattr(res, "ranking", None)
    if isinstance(ranking, pd.DataFrame) and isinstance(getattr(res, "win_rate", None), pd.DataFrame):
        rk = ranking.assign(table="ranking")
        pairs = []
        names = list(res.win_rate.index)
        wins = np.asarray(getattr(res, "wins", np.zeros((len(names), len(names)))))
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if a != b:
                    pairs.append({"table": "pair", "strategy": a, "opponent": b, "wins": int(wins[i, j]),
                                  "win_rate": float(res.win_rate.loc[a, b]), "low": float(res.low.loc[a, b]),
                                  "high": float(res.high.loc[a, b])})
        out = pd.concat([rk, pd.DataFrame(pairs)], ignore_index=True)
        out.attrs = {}
        return out
    if isinstance(res, pd.DataFrame):
        return res.reset_index() if not isinstance(res.index, pd.RangeIndex) else res
    for attr in ("ranking", "table", "frame", "standings", "to_frame", "summary"):
        val = getattr(res, attr, None)
        if callable(val):
            try:
                val = val()
            except TypeError:
                continue
        if isinstance(val, pd.DataFrame):
            return _as_frame(val)
    if isinstance(res, dict):
        try:
            return pd.DataFrame(res)
        except ValueError:
            return pd.DataFrame({"key": list(res), "value": [str(v) for v in res.values()]})
    return pd.DataFrame({"result": [str(res)]})


# ---------------------------------------------------------------- the run folder


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=5, cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() if out.returncode == 0 else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def package_version() -> str:
    try:
        from importlib.metadata import version

        return version("heron-sim")
    except Exception:  # noqa: BLE001 - metadata missing in a bare checkout
        return "unknown"


def new_run_dir(root: str | Path = "runs", name: str | None = None) -> Path:
    stamp = name or _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path(root) / stamp
    path.mkdir(parents=True, exist_ok=True)
    return path


def run_experiments(experiments: list[Experiment], run_dir: Path,
                    log: Callable[[str], None] | None = None,
                    games: int | None = None) -> dict:
    """Plan and play every experiment's jobs, write Parquet and ``manifest.json``.

    ``games`` scales every experiment down (or up) to that many games per job (and turns to
    50 x games), for quick checks. Returns the manifest.
    """
    from .kinds import plan_jobs

    log = log or (lambda s: None)
    run_dir = Path(run_dir)
    manifest = {"version": 1, "package_version": package_version(), "git_commit": git_commit(),
                "started": _dt.datetime.now().isoformat(timespec="seconds"),
                "strategies_available": available_strategies(),
                "tournament_available": _has_tournament(), "experiments": []}
    t_all = time.perf_counter()
    for exp in experiments:
        t0 = time.perf_counter()
        jobs = plan_jobs(exp, games_override=games)
        (run_dir / exp.name).mkdir(parents=True, exist_ok=True)
        described = []
        for job in jobs:
            tj = time.perf_counter()
            df = play_job(job)
            df.to_parquet(run_dir / exp.name / f"{job.key}.parquet", index=False)
            d = job.describe()
            d["seconds"] = round(time.perf_counter() - tj, 3)
            d["rows"] = len(df)
            described.append(d)
        sec = time.perf_counter() - t0
        log(f"{exp.name}: {len(jobs)} jobs, {sum(j.n for j in jobs if j.kind in ('games', 'light')):,} games, "
            f"{sum(j.n for j in jobs if j.kind == 'turns'):,} turns in {sec:.1f} s")
        manifest["experiments"].append({"experiment": exp.to_dict(), "jobs": described,
                                        "seconds": round(sec, 2)})
    manifest["seconds"] = round(time.perf_counter() - t_all, 2)
    manifest["finished"] = _dt.datetime.now().isoformat(timespec="seconds")
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=1, default=_jsonable), encoding="utf-8")
    return manifest


def _jsonable(x):
    if hasattr(x, "item"):
        return x.item()
    if isinstance(x, tuple):
        return list(x)
    raise TypeError(type(x))


def _has_tournament() -> bool:
    try:
        from .. import tournament  # noqa: F401

        return hasattr(tournament, "tournament")
    except ImportError:
        return False


# ---------------------------------------------------------------- reading a run back


class RunData:
    """A run folder read back: the manifest, and each job's frame on demand."""

    def __init__(self, run_dir: str | Path):
        self.dir = Path(run_dir)
        path = self.dir / "manifest.json"
        if not path.is_file():
            raise HeronSimError(f"--from: {self.dir} is not a run folder (no manifest.json)")
        try:
            self.manifest = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise HeronSimError(f"--from: {path}: unreadable manifest: {err}") from None
        self._cache: dict = {}

    def experiments(self) -> list[tuple[Experiment, "ExperimentData"]]:
        out = []
        for entry in self.manifest["experiments"]:
            exp = Experiment.from_dict(entry["experiment"])
            out.append((exp, ExperimentData(self.dir / exp.name, entry)))
        return out


class ExperimentData:
    """The jobs of one experiment in a run folder."""

    def __init__(self, folder: Path, entry: dict):
        self.folder = folder
        self.entry = entry
        self.jobs = {j["key"]: j for j in entry["jobs"]}
        self._frames: dict[str, pd.DataFrame] = {}

    def frame(self, key: str) -> pd.DataFrame:
        if key not in self._frames:
            path = self.folder / f"{key}.parquet"
            if not path.is_file():
                raise HeronSimError(f"--from: missing result file {path}")
            self._frames[key] = pd.read_parquet(path)
        return self._frames[key]

    def rules(self, key: str) -> Rules:
        j = self.jobs[key]
        return Rules.from_table(j["rules"])

    def select(self, **labels) -> list[dict]:
        """Jobs whose labels match every given ``label=value``."""
        return [j for j in self.entry["jobs"] if all(j["labels"].get(k) == v for k, v in labels.items())]

    @property
    def seconds(self) -> float:
        return float(self.entry.get("seconds", 0.0))


def run_experiment_files(paths: list[str | Path], run_dir: Path, log=None, games: int | None = None) -> dict:
    from .config import load_experiment

    exps = [load_experiment(p) for p in paths]
    names = [e.name for e in exps]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise HeronSimError(f"two experiments named {sorted(dup)[0]!r}; names must be unique in a run")
    return run_experiments(exps, run_dir, log=log, games=games)
