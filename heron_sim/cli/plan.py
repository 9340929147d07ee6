"""Commands of the test plan and the balance report: run, plan, report, compare.

Registered on the ``app`` of :mod:`heron_sim.cli._app` when :mod:`heron_sim.cli` imports it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import HeronSimError
from ..io import check_output
from ._app import Interrupted, app, log as _log

PLAN_ORDER = ("modes", "pond", "anxiety", "guides", "strategies", "sensitivity")

GamesOpt = Annotated[Optional[int], typer.Option("--games", help="Games per batch for a quick check (turns: 50 x games); default: each experiment's own sizes.")]
RunDirOpt = Annotated[Optional[Path], typer.Option("--run-dir", help="Run folder for the raw Parquet results (default runs/<timestamp>).")]
OutOpt = Annotated[Path, typer.Option("--out", help="Folder of report.html, report.md and figures/.")]
PlanDirOpt = Annotated[Path, typer.Option("--experiments", help="Folder of the plan's experiment files.")]
SchedulerOpt = Annotated[Optional[str], typer.Option("--scheduler", help="Where games jobs run: local (default), local-cluster[:N] or tcp://HOST:PORT (Dask); same results.")]


def plan_files(folder: Path) -> list[Path]:
    """The plan's experiment files: the seed's five first, then the others by name."""
    if not folder.is_dir():
        raise HeronSimError(f"--experiments: {folder} is not a folder")
    files = sorted(p for p in folder.glob("*.toml") if not p.stem.startswith("tune-"))  # tune files: `tune`
    if not files:
        raise HeronSimError(f"--experiments: no experiment files (*.toml) in {folder}")
    rank = {n: i for i, n in enumerate(PLAN_ORDER)}
    return sorted(files, key=lambda p: (rank.get(p.stem, len(rank)), p.stem))


def _use_scheduler(scheduler) -> None:
    from ..runner.executor import use_scheduler

    use_scheduler(scheduler)


def _check_games(games):
    if games is not None and games < 1:
        raise HeronSimError(f"--games: {games}; allowed: >= 1")


def _run(files, run_dir, games, resume: bool = False):
    """Check everything, play the experiments into the run folder; on an interruption say what
    was kept and exit 130 (the folder is marked interrupted; ``run --resume`` finishes it)."""
    from ..runner import load_experiment, new_run_dir, run_experiments
    from ..runner.config import Experiment
    from ..runner.run import check_run_dir

    _check_games(games)
    if resume and run_dir is None:
        raise HeronSimError("--resume: give the run folder to finish with --run-dir")
    manifest = check_run_dir(run_dir, resume) if run_dir is not None else None
    if manifest is not None and not files:
        try:
            exps = [Experiment.from_dict(e["experiment"]) for e in manifest["experiments"]]
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
    run_dir = Path(run_dir) if run_dir else new_run_dir()
    t0 = time.perf_counter()
    m = run_experiments(exps, run_dir, log=_log, games=games, resume=manifest)
    if m["status"] != "complete":
        from ..interrupt import signal_name

        raise Interrupted(
            f"interrupted ({signal_name() or 'SIGINT'}): kept {m['jobs_done']} of {m['jobs_total']} jobs "
            f"({m['played']:,} of {m['requested']:,} games and turns) in {run_dir}, marked interrupted; "
            f"finish it with: heron-sim run --resume --run-dir {run_dir}")
    _log(f"raw results in {run_dir} ({time.perf_counter() - t0:.1f} s)")
    return run_dir


def _report(run_dir, out, started=None):
    from ..report import report_from_run

    t0 = time.perf_counter()
    paths = report_from_run(run_dir, out, started=started)
    _log(f"report: {paths['html']} and {paths['md']} ({len(paths['figures'])} figures, {time.perf_counter() - t0:.1f} s)")
    return paths


@app.command("run")
def run_cmd(
    experiments: Annotated[Optional[list[Path]], typer.Argument(help="Experiment file(s), e.g. experiments/modes.toml (none with --resume: the run folder's).")] = None,
    games: GamesOpt = None,
    run_dir: RunDirOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Also write a report of these experiments to this folder.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Finish the interrupted run in --run-dir without replaying its finished jobs.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the machine-readable findings (every figure with id, estimate, interval, n, unit) as JSON instead of Markdown.")] = False,
    scheduler: SchedulerOpt = None,
) -> None:
    """Run one or more experiment files: raw per-game Parquet under the run folder, then print
    each experiment's findings and tables (Markdown), or with --json the findings as JSON."""
    from ..report import build_sections, markdown_table, run_metadata
    from ..report.render import findings_json
    from ..runner import RunData

    _use_scheduler(scheduler)
    if out is not None:
        check_output(out, "--out", folder=True)
    folder = _run(experiments, run_dir, games, resume)
    run = RunData(folder)
    sections = build_sections(run)
    if as_json:
        from ..io import dumps

        typer.echo(dumps(findings_json(sections, run_metadata(run)), ensure_ascii=False, indent=1))
        sections = []
    for sec in sections:
        typer.echo(f"\n## {sec.title}\n")
        for f in sec.findings:
            typer.echo(f"- {f}")
        for t in sec.tables:
            typer.echo(f"\n**{t.caption}**\n\n{markdown_table(t.frame)}")
    if out is not None:
        _report(folder, out)


@app.command("plan")
def plan_cmd(
    folder: PlanDirOpt = Path("experiments"),
    games: GamesOpt = None,
    run_dir: RunDirOpt = None,
    out: OutOpt = Path("results"),
    scheduler: SchedulerOpt = None,
) -> None:
    """Run the whole test plan (every experiment file of the folder) and write the report."""
    _use_scheduler(scheduler)
    check_output(out, "--out", folder=True)
    started = time.perf_counter()
    folder_run = _run(plan_files(folder), run_dir, games)
    _report(folder_run, out, started)


@app.command("report")
def report_cmd(
    from_: Annotated[Optional[Path], typer.Option("--from", help="Re-render from this run folder, without simulating.")] = None,
    out: OutOpt = Path("results"),
    folder: PlanDirOpt = Path("experiments"),
    games: GamesOpt = None,
    run_dir: RunDirOpt = None,
) -> None:
    """Write results/index.html (links every page), report.html (the Héron report, self-contained),
    one page per lighter game, report.md and findings.json: runs the plan first unless --from
    names a run folder."""
    check_output(out, "--out", folder=True)
    if from_ is not None:
        _report(from_, out)
    else:
        started = time.perf_counter()
        folder_run = _run(plan_files(folder), run_dir, games)
        _report(folder_run, out, started)


@app.command("compare")
def compare_cmd(
    a: Annotated[Path, typer.Argument(help="Rules file A (like heron_sim/rules/data/defaults.toml) or an experiment file.")],
    b: Annotated[Path, typer.Argument(help="Rules file B.")],
    games: Annotated[int, typer.Option("--games", help="Games per rule set (same seeds under both).")] = 10_000,
    mode: Annotated[Optional[str], typer.Option("--mode", help="Dice mode (default: each file's, else 8d8).")] = None,
    players: Annotated[Optional[int], typer.Option("--players", help="Players, 2..7.")] = None,
    seating: Annotated[str, typer.Option("--strategy", help="Strategies: ai, all, or names (one per seat, rotated).")] = "ai",
    seed: Annotated[int, typer.Option("--seed", help="Master seed: game i draws from stream (seed, i) under both rules.")] = 1,
    out: Annotated[Optional[Path], typer.Option("--out", help="Also write compare.md / report.html to this folder.")] = None,
    run_dir: RunDirOpt = None,
    scheduler: SchedulerOpt = None,
) -> None:
    """Run the same seeds under two rule sets and print every metric side by side with the
    difference B - A, its 95 % interval (paired by seed) and a Holm-corrected p-value."""
    from ..report import build_sections, markdown_table, write_report
    from ..runner import RunData, run_experiments
    from ..runner.config import Experiment, RulesSpec

    _use_scheduler(scheduler)
    if games < 1:
        raise HeronSimError(f"--games: {games}; allowed: >= 1")
    specs = [_rules_source(p, label) for p, label in ((a, a.stem), (b, b.stem))]
    m = mode or specs[0].build(None, players).mode
    exp = Experiment(name="compare", kind="compare", title=f"Rule variant: {b.stem} vs {a.stem}",
                     seed=seed, games=games, modes=(m,), players=players or specs[0].build(m).players,
                     seating=seating, figures=("differences",), a=specs[0], b=specs[1])
    for s in specs:
        s.build(m, exp.players)
    from ..runner import new_run_dir
    from ..runner.run import check_run_dir

    if out is not None:
        check_output(out, "--out", folder=True)
    if run_dir is not None:
        check_run_dir(run_dir)
    folder = Path(run_dir) if run_dir else new_run_dir(name=f"compare-{time.strftime('%Y%m%d-%H%M%S')}")
    m = run_experiments([exp], folder, log=_log)
    if m["status"] != "complete":
        _log(f"interrupted: kept {m['played']:,} of {m['requested']:,} games in {folder} (marked "
             "interrupted); no comparison is printed from a partial run")
        raise typer.Exit(code=130)
    run = RunData(folder)
    sections = build_sections(run)[:1]
    for sec in sections:
        for f in sec.findings:
            typer.echo(f"- {f}")
        for t in sec.tables:
            typer.echo(f"\n**{t.caption}**\n\n{markdown_table(t.frame)}\n\n*{t.note}*")
    if out is not None:
        from ..report import run_metadata

        paths = write_report(sections, run_metadata(run), out, title=exp.title)
        _log(f"report: {paths['html']} and {paths['md']}")


def _rules_source(path: Path, label: str):
    """A rules file, or an experiment file (its [rules] table), as a RulesSpec."""
    from ..runner.config import RulesSpec
    from ..tomlfile import read_toml

    table = read_toml(path, label)
    if "kind" in table:  # an experiment file
        r = table.get("rules", {}) or {}
        file = r.get("file")
        if file is not None:
            file = str(path.parent / file)
        from ..runner.config import _flatten

        return RulesSpec(file=file, overrides=_flatten(r.get("set", {}) or {}), label=label)
    return RulesSpec(file=str(path), label=label)
