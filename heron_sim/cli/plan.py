"""Commands of the test plan and the balance report: run, plan, report, compare, experiment-schema.

Registered on the ``app`` of :mod:`heron_sim.cli._app` when :mod:`heron_sim.cli` imports it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import HeronSimError
from ..io import check_distinct, check_output
from ._app import Interrupted, app, log as _log

PLAN_ORDER = ("modes", "pond", "anxiety", "guides", "strategies", "skill", "sensitivity")
#: Experiment files of experiments/ that the plan (run and report of a folder) leaves out: they are
#: run by name (``heron-sim run experiments/NAME.toml``). None today.
OPTIONAL: tuple[str, ...] = ()
#: Files of the experiments folder that are not experiments: the designer's targets
#: (heron_sim.analysis.targets), read by the report and the lab.
NOT_EXPERIMENTS: tuple[str, ...] = ("targets",)

GamesOpt = Annotated[Optional[int], typer.Option("--games", help="Games per batch for a quick check (turns: 50 x games); default: each experiment's own sizes.")]
RunDirOpt = Annotated[Optional[Path], typer.Option("--run-dir", help="Run folder for the raw Parquet results (default runs/<timestamp>).")]
OutOpt = Annotated[Path, typer.Option("--out", help="Folder of report.html, report.md (the brief), report-annex.html, report-annex.md and figures/.")]
PlanDirOpt = Annotated[Path, typer.Option("--experiments", help="Folder of the plan's experiment files.")]
PathsJsonOpt = Annotated[bool, typer.Option("--json", help="Print the paths written (report.html, report.md, figures, run folder) as JSON.")]
LangOpt = Annotated[str, typer.Option("--lang", help="Language of report.html, report.md, the annex report-annex.html and .md, index.html, the lighter games' pages game-NAME.html and the figures figures/NAME.png: fr (default) or en; the other language's are written beside them (report.en.html, report-annex.en.html, game-NAME.en.html, figures/NAME.en.png, or .fr).")]
SchedulerOpt = Annotated[Optional[str], typer.Option("--scheduler", help="Where games jobs run: local (default), local-cluster[:N] or tcp://HOST:PORT (Dask); same results.")]


def plan_files(folder: Path) -> list[Path]:
    """The plan's experiment files: the seed's five first, then the others by name."""
    if not folder.is_dir():
        raise HeronSimError(f"--experiments: {folder} is not a folder")
    files = sorted(p for p in folder.glob("*.toml")
                   if not p.stem.startswith("tune-") and p.stem not in OPTIONAL + NOT_EXPERIMENTS)  # tune files: `tune`
    if not files:
        raise HeronSimError(f"--experiments: no experiment files (*.toml) in {folder}")
    rank = {n: i for i, n in enumerate(PLAN_ORDER)}
    return sorted(files, key=lambda p: (rank.get(p.stem, len(rank)), p.stem))


def _use_scheduler(scheduler) -> None:
    from ..runner.executor import use_scheduler

    use_scheduler(scheduler)


def _run(files, run_dir, games, resume: bool = False):
    """Check everything, play the experiments into the run folder; on an interruption say what
    was kept and exit 130 (the folder is marked interrupted; ``run --resume`` finishes it)."""
    from ..runner import new_run_dir, run_experiments
    from ..runner.run import prepare_run

    exps, manifest = prepare_run(files, run_dir, games, resume)
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


def _report(run_dir, out, started=None, lang: str = "fr"):
    from ..report import report_from_run

    t0 = time.perf_counter()
    paths = report_from_run(run_dir, out, started=started, lang=lang)
    _log(f"report: {paths['html']} and {paths['md']} (the brief), {paths['annex_html']} and {paths['annex_md']} "
         f"(the annex; {len(paths['figures'])} figures, {time.perf_counter() - t0:.1f} s)")
    if paths.get("timings"):
        from ..report import timings_line

        _log(timings_line(paths["timings"]))
    if paths.get("missing"):  # a French page would show these in English: say so, never silently
        _log(f"{len(paths['missing'])} phrases have no French entry in heron_sim/locale/fr.po and stay English on the "
             "French pages; the first: " + " | ".join(paths["missing"][:5]))
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
    check_distinct({"--run-dir": run_dir, "--out": out})
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
    as_json: PathsJsonOpt = False,
    lang: LangOpt = "fr",
) -> None:
    """Run the whole test plan (every experiment file of the folder) and write the report."""
    _use_scheduler(scheduler)
    check_output(out, "--out", folder=True)
    check_distinct({"--run-dir": run_dir, "--out": out}, {"--experiments": folder})
    if lang not in ("fr", "en"):
        raise HeronSimError(f"--lang: {lang!r}; allowed: fr, en")
    started = time.perf_counter()
    folder_run = _run(plan_files(folder), run_dir, games)
    _echo_paths(_report(folder_run, out, started, lang=lang), folder_run, as_json)


@app.command("report")
def report_cmd(
    from_: Annotated[Optional[Path], typer.Option("--from", help="Re-render from this run folder, without simulating.")] = None,
    out: OutOpt = Path("results"),
    folder: PlanDirOpt = Path("experiments"),
    games: GamesOpt = None,
    run_dir: RunDirOpt = None,
    as_json: PathsJsonOpt = False,
    lang: LangOpt = "fr",
) -> None:
    """Write results/index.html (links every page), report.html and report.md (the designer's brief:
    the verdict, what to change, the answers; a few A4 pages), report-annex.html and report-annex.md
    (every table, self-contained), one page per lighter game and findings.json: runs the plan first
    unless --from names a run folder."""
    check_output(out, "--out", folder=True)
    check_distinct({"--run-dir": run_dir, "--out": out}, {"--experiments": folder if from_ is None else None})
    if lang not in ("fr", "en"):
        raise HeronSimError(f"--lang: {lang!r}; allowed: fr, en")
    if from_ is not None:
        _echo_paths(_report(from_, out, lang=lang), from_, as_json)
    else:
        started = time.perf_counter()
        folder_run = _run(plan_files(folder), run_dir, games)
        _echo_paths(_report(folder_run, out, started, lang=lang), folder_run, as_json)


def _echo_paths(paths: dict, run_dir, as_json: bool) -> None:
    """With --json, the files written (the report's and the run folder) as JSON on stdout."""
    if as_json:
        from ..io import dumps

        typer.echo(dumps({"run_dir": str(run_dir), **{k: v for k, v in paths.items() if k not in ("sections", "meta")}}, indent=1))


@app.command("compare")
def compare_cmd(
    a: Annotated[Path, typer.Argument(help="Rules file A (like heron_sim/rules/data/defaults.toml), an experiment file, or alone an experiment file of kind compare (its [a] and [b]).")],
    b: Annotated[Optional[Path], typer.Argument(help="Rules file B (or an experiment file).")] = None,
    games: Annotated[Optional[int], typer.Option("--games", help="Games per rule set, the same seeds under both (default: the experiment's, else 10000).")] = None,
    mode: Annotated[Optional[str], typer.Option("--mode", help="Dice mode for both (default: each file's own, else 8d8).")] = None,
    players: Annotated[Optional[int], typer.Option("--players", help="Players for both, 2..7 (default: each file's own; they must agree).")] = None,
    seating: Annotated[Optional[str], typer.Option("--strategy", help="Strategies: ai, all, or names (one per seat, rotated); default ai.")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Master seed: game i draws from stream (seed, i) under both rules (default 1).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Also write compare.md / report.html to this folder.")] = None,
    run_dir: RunDirOpt = None,
    scheduler: SchedulerOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings (every figure with id, estimate, interval, n, unit) as JSON.")] = False,
) -> None:
    """Run the same seeds under two rule sets and print every metric side by side with the
    difference B - A, its 95 % interval (paired by seed) and a Holm-corrected p-value. Each
    file plays its own mode and players; the first line says what was played."""
    from ..report import build_sections, markdown_table, run_metadata, write_report
    from ..runner.compare_rules import compare_experiment, compare_rules, describe_pair

    _use_scheduler(scheduler)
    exp = compare_experiment(a, b, games=games, mode=mode, players=players, seating=seating, seed=seed)
    if out is not None:
        check_output(out, "--out", folder=True)
    played = describe_pair(exp)
    run = compare_rules(a, b, games=games, mode=mode, players=players, seating=seating, seed=seed,
                        run_dir=run_dir, log=_log)
    m = run.manifest
    if m["status"] != "complete":
        raise Interrupted(f"interrupted: kept {m['played']:,} of {m['requested']:,} games in {run.dir} (marked "
                          "interrupted); no comparison is printed from a partial run")
    sections = build_sections(run)[:1]
    if as_json:
        from ..io import dumps
        from ..report.render import findings_json

        typer.echo(dumps({"played": played, **findings_json(sections, run_metadata(run))}, ensure_ascii=False, indent=1))
    else:
        typer.echo(played)
        for sec in sections:
            for f in sec.findings:
                typer.echo(f"- {f}")
            for t in sec.tables:
                typer.echo(f"\n**{t.caption}**\n\n{markdown_table(t.frame)}\n\n*{t.note}*")
    if out is not None:
        paths = write_report(sections, run_metadata(run), out, title=exp.title)
        _log(f"report: {paths['html']} and {paths['md']}")


@app.command("experiment-schema")
def experiment_schema_cmd() -> None:
    """Print the JSON schema of an experiment file (one model per kind, chosen by ``kind``):
    for an editor's completion and checks, e.g. with the TOML extension of your editor."""
    from ..io import dumps
    from ..runner.config import experiment_schema

    typer.echo(dumps(experiment_schema(), ensure_ascii=False, indent=1))
