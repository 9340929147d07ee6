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
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ..errors import HeronSimError
from ..io import check_output, clean_json, mkdir, read_text, write_frame, write_text
from ..rules import Rules
from .config import Experiment, experiment_from_dict

from .jobs import (Job, _has_tournament, ai_strategies, available_strategies,  # noqa: F401
                   light_rules_table, resolve_strategies, seatings)  # (re-exported: their home is the leaf .jobs)


from .play import _as_frame, _label, play_job, play_light  # noqa: E402,F401  (re-exported)


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
    """A new, empty run folder ``root/<timestamp>`` (``-2``, ``-3``... if that one is taken)."""
    stamp = name or _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path, k = Path(root) / stamp, 1
    while path.exists() and any(path.iterdir()):
        k += 1
        path = Path(root) / f"{stamp}-{k}"
    mkdir(path)
    return path


MANIFEST = "manifest.json"
#: Status of a run folder in its manifest: a folder is complete only once its last job is written.
IN_PROGRESS, INTERRUPTED, COMPLETE = "in_progress", "interrupted", "complete"


def check_run_dir(run_dir: str | Path, resume: bool = False) -> dict | None:
    """Check ``run_dir`` before any game is played: an empty or new folder, or (``resume``) a
    run folder to finish. Returns the manifest to resume from (None for a new run)."""
    run_dir = Path(run_dir)
    check_output(run_dir, "--run-dir", folder=True)
    from ..runlock import is_lock_file

    if not run_dir.exists() or not any(not is_lock_file(p) for p in run_dir.iterdir()):
        if resume:
            raise HeronSimError(f"--resume: {run_dir} holds no run to finish")
        return None
    if not resume:
        what = "a run folder" if (run_dir / MANIFEST).exists() else "a folder that is not empty"
        raise HeronSimError(f"--run-dir: {run_dir} is {what} already; pass --resume to finish that "
                            "run, or choose a new folder")
    manifest = read_manifest(run_dir, "--resume")
    if manifest.get("status") == COMPLETE:
        raise HeronSimError(f"--resume: {run_dir} is complete already; nothing to finish")
    return manifest


def prepare_run(files, run_dir: str | Path | None = None, games: int | None = None,
                resume: bool = False) -> tuple[list[Experiment], dict | None]:
    """Every check of a run before any game is played or any folder is made: the experiment
    files (or, resuming with no files, the run folder's own), unique names, the run folder, and
    for ``resume`` that the files and ``games`` are those the run was started with.

    Returns the experiments and the manifest to resume from (None for a new run); one-line
    :class:`HeronSimError` otherwise.
    """
    from .config import load_experiment

    if games is not None and (isinstance(games, bool) or games < 1):
        raise HeronSimError(f"--games: {games}; allowed: >= 1")
    if resume and run_dir is None:
        raise HeronSimError("--resume: give the run folder to finish with --run-dir")
    manifest = check_run_dir(run_dir, resume) if run_dir is not None else None
    if manifest is not None and not files:
        try:
            exps = [experiment_from_dict(e["experiment"]) for e in manifest["experiments"]]
        except (TypeError, KeyError, AttributeError) as err:
            raise HeronSimError(f"--resume: {run_dir}: damaged manifest ({type(err).__name__}: {err})") from None
    else:
        if not files:
            raise HeronSimError("experiments: give at least one experiment file (or --resume --run-dir RUN)")
        exps = [load_experiment(p) for p in files]  # validate everything before creating a folder
    names = [e.name for e in exps]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise HeronSimError(f"two experiments named {dup[0]!r}; names must be unique in a run")
    if manifest is not None:
        old = [e["experiment"].get("name") for e in manifest["experiments"]]
        if names != old:
            raise HeronSimError(f"--resume: the run folder holds experiments {old}, not {names}")
        if games is not None and games != manifest.get("games_override"):
            raise HeronSimError(f"--games: {games}, but the run was started with --games "
                                f"{manifest.get('games_override')}; leave it out to resume")
    return exps, manifest


def read_manifest(run_dir: Path, field: str) -> dict:
    """The manifest of a run folder, checked for shape (one-line errors)."""
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise HeronSimError(f"{field}: {run_dir} is not a run folder (no {MANIFEST})")
    try:
        manifest = json.loads(read_text(path, field))
    except json.JSONDecodeError as err:
        raise HeronSimError(f"{field}: {path}: damaged manifest ({err})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("experiments"), list) or not all(
            isinstance(e, dict) and isinstance(e.get("experiment"), dict) and isinstance(e.get("jobs"), list)
            for e in manifest["experiments"]):
        raise HeronSimError(f"{field}: {path}: damaged manifest (experiments and jobs missing)")
    return manifest


def run_experiments(experiments: list[Experiment], run_dir: Path,
                    log: Callable[[str], None] | None = None,
                    games: int | None = None, resume: dict | None = None) -> dict:
    """Plan and play every experiment's jobs, write Parquet and ``manifest.json``.

    ``games`` scales every experiment down (or up) to that many games per job (and turns to
    50 x games), for quick checks. The manifest is rewritten (atomically) after every job, with
    ``status`` ``in_progress`` until the last job is written (``complete``), ``interrupted``
    if a stop was requested (SIGINT/SIGTERM): the finished jobs are kept, a job cut short is
    written with ``played < requested`` and replayed by a resume. ``resume`` (a manifest read
    by :func:`check_run_dir`) skips the jobs it records as complete. Returns the manifest.
    """
    from ..runlock import RunLock

    log = log or (lambda s: None)
    run_dir = Path(run_dir)
    # A run folder has one owner: a second process on it is refused with one line.
    with RunLock(run_dir, "--run-dir", log=log):
        if resume is None and (run_dir / MANIFEST).exists():  # another run took it meanwhile
            raise HeronSimError(f"--run-dir: {run_dir} is a run folder already; pass --resume to finish "
                                "that run, or choose a new folder")
        return _run_experiments(experiments, run_dir, log, games, resume)


def _run_experiments(experiments, run_dir, log, games, resume) -> dict:
    from ..interrupt import stop_requested
    from ..errors import RunFailure
    from .executor import ClusterLost
    from .kinds import plan_jobs

    done_jobs: dict[tuple[str, str], dict] = {}
    if resume is not None:
        games = resume.get("games_override", games)
        for e in resume["experiments"]:
            for j in e["jobs"]:
                path = run_dir / e["experiment"].get("name", "") / f"{j.get('key')}.parquet"
                if j.get("status") == COMPLETE and path.is_file():
                    done_jobs[(e["experiment"].get("name"), j.get("key"))] = j
    manifest = {"version": 2, "package_version": package_version(), "git_commit": git_commit(),
                "started": (resume or {}).get("started") or _dt.datetime.now().isoformat(timespec="seconds"),
                "strategies_available": available_strategies(),
                "tournament_available": _has_tournament(), "games_override": games,
                "status": IN_PROGRESS, "requested": 0, "played": 0, "interrupted": False,
                "experiments": [{"experiment": e.to_dict(), "jobs": [], "seconds": 0.0} for e in experiments]}
    plans = [plan_jobs(exp, games_override=games) for exp in experiments]
    manifest["requested"] = sum(_job_requested(j) for jobs in plans for j in jobs)
    manifest["jobs_total"] = sum(len(jobs) for jobs in plans)
    _write_manifest(run_dir, manifest)
    t_all = time.perf_counter()
    from .warm import compile_ahead

    compile_ahead([job for exp, jobs in zip(experiments, plans) for job in jobs
                   if (exp.name, job.key) not in done_jobs], log=log)
    interrupted = False
    for exp, jobs, entry in zip(experiments, plans, manifest["experiments"]):
        t0 = time.perf_counter()
        mkdir(run_dir / exp.name)
        described = entry["jobs"]
        for job in jobs:
            old = done_jobs.get((exp.name, job.key))
            if old is not None and _same_job(old, job):
                described.append(old)
                continue
            if stop_requested():
                interrupted = True
                break
            tj = time.perf_counter()
            try:
                df = play_job(job)
            except ClusterLost as err:
                # The scheduler went away: the finished jobs are kept, the folder is marked
                # interrupted and resumable; one line says so.
                manifest["status"], manifest["interrupted"] = INTERRUPTED, True
                manifest["stopped"] = "scheduler lost"
                _write_manifest(run_dir, _totals(manifest))
                raise RunFailure(f"{err}; the {manifest['jobs_done']} finished jobs are kept in {run_dir}; "
                                    f"finish it with: heron-sim run --resume --run-dir {run_dir}") from None
            played = int(df.attrs.get("played", len(df)))
            cut = bool(df.attrs.get("interrupted", False))
            d = job.describe()
            d.update(seconds=round(time.perf_counter() - tj, 3), rows=len(df), requested=_job_requested(job),
                     played=played, interrupted=cut, status=INTERRUPTED if cut else COMPLETE)
            if played > 0 or not cut:
                # What the file stands for travels with it: `report --from` refuses a file that
                # holds another job's games (a file swapped in from another mode or run).
                write_frame(df, run_dir / exp.name / f"{job.key}.parquet",
                            {k: d[k] for k in _FILE_LABELS if d.get(k) is not None})
                described.append(d)
            _write_manifest(run_dir, _totals(manifest))
            if cut:
                interrupted = True
                break
        sec = time.perf_counter() - t0
        entry["seconds"] = round(entry.get("seconds", 0.0) + sec, 2)
        log(f"{exp.name}: {sum(j.get('status') == COMPLETE for j in described)} of {len(jobs)} jobs complete, "
            f"{sum(j['played'] for j in described if j['kind'] in ('games', 'light', 'tournament')):,} games, "
            f"{sum(j['played'] for j in described if j['kind'] == 'turns'):,} turns in {sec:.1f} s")
        if interrupted:
            break
    manifest["seconds"] = round(time.perf_counter() - t_all, 2)
    manifest["finished"] = _dt.datetime.now().isoformat(timespec="seconds")
    _totals(manifest)
    complete = not interrupted and manifest["jobs_done"] == manifest["jobs_total"]
    manifest["status"] = COMPLETE if complete else INTERRUPTED
    manifest["interrupted"] = not complete
    _write_manifest(run_dir, manifest)
    return manifest


def _same_job(old: dict, job: Job) -> bool:
    """A finished job of the manifest is the planned one (same size, seed, rules, seatings)."""
    new = json.loads(json.dumps(clean_json(job.describe()), default=_jsonable))
    return all(old.get(k) == new.get(k) for k in ("kind", "n", "seed", "rules_hash", "seatings", "strategy", "guide"))


def _job_requested(job: Job) -> int:
    """Games (turns) a job plays: a tournament job plays ``n`` per ordered pair of strategies."""
    if job.kind == "tournament":
        k = len(job.labels.get("strategies", ()))
        return job.n * k * (k - 1)
    return job.n


def _totals(manifest: dict) -> dict:
    jobs = [j for e in manifest["experiments"] for j in e["jobs"]]
    manifest["played"] = sum(int(j.get("played", j.get("n", 0))) for j in jobs)
    manifest["jobs_done"] = sum(1 for j in jobs if j.get("status", COMPLETE) == COMPLETE)
    return manifest


def _write_manifest(run_dir: Path, manifest: dict) -> None:
    write_text(Path(run_dir) / MANIFEST, json.dumps(clean_json(manifest), indent=1, default=_jsonable))


def _jsonable(x):
    if hasattr(x, "item"):
        return x.item()
    if isinstance(x, tuple):
        return list(x)
    raise TypeError(type(x))


# ---------------------------------------------------------------- reading a run back


#: The job's labels written into its result file's metadata and checked when it is read back.
_FILE_LABELS = ("key", "kind", "mode", "players", "seed", "game", "rules_hash", "requested", "played",
                "interrupted")
#: The labels that must agree between a result file and the manifest's job.
_CHECKED_LABELS = ("key", "kind", "mode", "players", "seed", "game", "rules_hash")


class RunData:
    """A run folder read back: the manifest, and each job's frame on demand."""

    def __init__(self, run_dir: str | Path, allow_partial: bool = False):
        self.dir = Path(run_dir)
        self.manifest = read_manifest(self.dir, "--from")
        status = self.manifest.get("status", COMPLETE)  # version-1 manifests: written at the end
        if status != COMPLETE and not allow_partial:
            m = self.manifest
            raise HeronSimError(
                f"--from: {self.dir} is a partial run ({status}: {m.get('jobs_done', '?')} of "
                f"{m.get('jobs_total', '?')} jobs, {m.get('played', 0):,} of {m.get('requested', 0):,} "
                f"games and turns played); finish it with: heron-sim run --resume --run-dir {self.dir}")
        self._cache: dict = {}

    def experiments(self) -> list[tuple[Experiment, "ExperimentData"]]:
        out = []
        for entry in self.manifest["experiments"]:
            try:
                exp = experiment_from_dict(entry["experiment"])
            except (TypeError, KeyError, AttributeError) as err:
                raise HeronSimError(f"--from: {self.dir}: damaged manifest entry ({err})") from None
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
            try:
                df = pd.read_parquet(path)
            except Exception as err:  # noqa: BLE001 - pyarrow raises several kinds on a damaged file
                raise HeronSimError(f"--from: {path}: damaged result file ({type(err).__name__})") from None
            want = self.jobs.get(key, {}).get("rows")
            if want is not None and len(df) != want:
                raise HeronSimError(f"--from: {path}: {len(df)} rows, the manifest says {want}")
            _check_file_labels(path, df, self.jobs.get(key, {}))
            self._frames[key] = df
        return self._frames[key]

    def rules(self, key: str):
        """The rules of job ``key``, rebuilt from the manifest's table: a :class:`Rules`, or for
        a lighter game's job (kind ``light``) that game's rules object."""
        j = self.jobs[key]
        if j.get("kind") == "light":
            from .. import games as registry

            return registry.get(j["game"]).load_rules(None, j["rules"])
        return Rules.from_table(j["rules"])

    def select(self, **labels) -> list[dict]:
        """Jobs whose labels match every given ``label=value``."""
        return [j for j in self.entry["jobs"] if all(j["labels"].get(k) == v for k, v in labels.items())]

    @property
    def seconds(self) -> float:
        return float(self.entry.get("seconds", 0.0))


def _check_file_labels(path: Path, df: pd.DataFrame, job: dict) -> None:
    """Refuse a result file that holds another job's games than the manifest's ``job`` (its
    metadata's key, mode, players, seed, game or rules hash, or its ``mode`` column, differ):
    a file swapped in from another mode or another run is never read under the wrong label."""
    from ..io import read_meta

    try:
        meta = read_meta(path, check=False)
    except HeronSimError:
        meta = {}
    found = {k: meta[k] for k in _CHECKED_LABELS if k in meta}
    if "mode" not in found and "mode" in df.columns and job.get("mode") is not None and len(df):
        modes = sorted(set(df["mode"].astype(str)))
        found["mode"] = modes[0] if len(modes) == 1 else ",".join(modes)
    for k, v in found.items():
        if job.get(k) is not None and v != job[k]:
            what = f"job {v}" if k == "key" else f"{k} {v}"
            want = "" if k == "key" else f" ({k} {job[k]})"
            raise HeronSimError(
                f"--from: {path}: holds the games of {what}, not those of job {job.get('key')}{want} that "
                "the manifest names; allowed: the run folder's own result files (run the experiment again)")


def run_experiment_files(paths: list[str | Path], run_dir: Path, log=None, games: int | None = None) -> dict:
    """Load experiment files and run them into ``run_dir`` (see :func:`run_experiments`)."""
    from .config import load_experiment

    exps = [load_experiment(p) for p in paths]
    names = [e.name for e in exps]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise HeronSimError(f"two experiments named {sorted(dup)[0]!r}; names must be unique in a run")
    return run_experiments(exps, run_dir, log=log, games=games)
