"""The ``tune`` command: search the rules for better-balanced variants (docs/tuning.md).

Registered on the ``app`` of :mod:`heron_sim.cli._app` when :mod:`heron_sim.cli` imports it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import HeronSimError
from ._app import Interrupted, app, log


def parse_duration(text: str | None) -> float | None:
    """``"90"``, ``"90s"``, ``"10m"``, ``"1h"`` -> seconds; ``"0"`` or ``"inf"``: no limit, as
    the study file's [search] time_limit (heron_sim.lab.spec.is_time_limit). nan, which stopped
    nothing (silently no limit), and a negative time are refused."""
    if text is None:
        return None
    from ..lab.spec import is_time_limit

    t = text.strip().lower()
    mult = {"s": 1, "m": 60, "h": 3600}.get(t[-1:], None)
    num = t[:-1] if mult else t
    try:
        v = float(num) * (mult or 1)
    except ValueError:
        v = math.nan
    if not is_time_limit(v):
        raise HeronSimError(f"--time-limit: {text!r}; allowed: seconds >= 0, or a number with s, m or h, "
                            "e.g. 10m (0 or inf: none)")
    return v


def parse_rungs(text: str | None) -> tuple[int, ...] | None:
    """``"400,800"`` -> (400, 800)."""
    if text is None:
        return None
    try:
        out = tuple(int(x) for x in text.split(","))
    except ValueError:
        out = ()
    if not out or any(x < 10 for x in out):
        raise HeronSimError(f"--rungs: {text!r}; allowed: game counts of 10 or more, comma-separated (e.g. 400,800)")
    return out


@app.command("tune")
def tune_cmd(
    files: Annotated[Optional[list[Path]], typer.Argument(metavar="FILE", help="Tune file, e.g. experiments/tune-guides.toml, or a lighter game's (game = \"rampage\": experiments/tune-rampage.toml; docs/tuning.md). With --combine: the studies' answers, a results folder (results/), studies' folders or variant rules files.")] = None,
    trials: Annotated[Optional[int], typer.Option("--trials", help="Finished trials to reach (default: the file's).")] = None,
    games: Annotated[Optional[int], typer.Option("--games", help="Games per candidate in the search, the same seeds for all (default: the file's). With --combine: games a table (default 20000).")] = None,
    time_limit: Annotated[Optional[str], typer.Option("--time-limit", help="Stop the search after this long (e.g. 600, 10m; 0 or inf: no limit); the front is then raced and reported.")] = None,
    precision: Annotated[Optional[float], typer.Option("--precision", help="Play the last racing rung until every headline win rate's 95 % half-width is at most this (e.g. 0.005).")] = None,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="Where games run: local (this process, default), local-cluster[:N] (embedded Dask on 127.0.0.1) or tcp://HOST:PORT (an existing Dask scheduler).")] = None,
    run_dir: Annotated[Optional[Path], typer.Option("--run-dir", help="Folder of the study (journal and cached evaluations); default runs/tune-<name>. With --combine: where its evaluations are kept (default: none kept).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Folder of the results; default results/tune-<name> (with --combine: results/rulebook).")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Start the study over (delete the stored trials).")] = False,
    rungs: Annotated[Optional[str], typer.Option("--rungs", help="Racing rungs' games, e.g. 400,800 (default: the file's; a quick look at a study with small budgets).")] = None,
    luck: Annotated[Optional[bool], typer.Option("--luck/--no-luck", help="Play the last racing rung with the players' luck and use the luck-adjusted win-rate figures where their interval is narrower (about 2x fewer games for the same interval, about 5x the rung's CPU; default: the file's [racing] luck, false; docs/tuning.md).")] = None,
    check: Annotated[bool, typer.Option("--check", help="No search: the held-out check of the study's stored answer (results/tune-<name>/variants/<name>-1-*.toml, or --out's) at the held-out tables, fresh games; writes held-out.json, held-out.fr.md and held-out.en.md beside it (docs/tuning.md).")] = False,
    check_games: Annotated[Optional[int], typer.Option("--check-games", help="With --check: games a held-out table (default 100000).")] = None,
    lang: Annotated[str, typer.Option("--lang", help="With --check or --combine: the language printed, fr or en.")] = "en",
    combine: Annotated[bool, typer.Option("--combine", help="No search: merge the studies' answers (each study's variant ranked first; no-change and no-better studies skipped) into one rules set, play it with each answer alone and the base at every table of their panels, and write the revised rulebook, « Règles, 2e édition », with its evidence (default --out results/rulebook; docs/tuning.md).")] = False,
    seed: Annotated[Optional[int], typer.Option("--seed", help="With --combine: the seed of the fresh games (default 20261212).")] = None,
    panel: Annotated[Optional[str], typer.Option("--panel", help="With --combine: tables added to the studies' own: default, bots, family, club, expert or held-out.")] = None,
    fixes_only: Annotated[bool, typer.Option("--fixes-only", help="With --combine: merge only the answers that meet every goal of their study (not the closest changes).")] = False,
) -> None:
    """Search rule variants (optuna, multi-objective) on common random numbers, re-evaluate the
    front on fresh seeds, and write the front, figures and variant rules files. Ctrl-C keeps the
    finished trials; the same command resumes."""
    from ..lab import TuneInterrupted, tune

    if combine:
        _combine(files or [], games, seed, panel, fixes_only, scheduler, run_dir, out, lang,
                 given=[n for n, v in (("--check", check or None), ("--trials", trials), ("--time-limit", time_limit),
                                       ("--precision", precision), ("--fresh", fresh or None), ("--rungs", rungs),
                                       ("--luck", luck), ("--check-games", check_games)) if v is not None])
        return
    given = [n for n, v in (("--seed", seed), ("--panel", panel), ("--fixes-only", fixes_only or None)) if v is not None]
    if given:
        raise HeronSimError(f"{given[0]}: only with --combine")
    if not files or len(files) != 1:
        raise HeronSimError("tune: one tune file (several paths only with --combine)")
    file = files[0]
    if check:
        _check_stored(file, out, check_games, lang)
        return
    if check_games is not None:
        raise HeronSimError("--check-games: only with --check")

    try:
        res = tune(file, trials=trials, games=games, time_limit=parse_duration(time_limit), precision=precision,
                   scheduler=scheduler, run_dir=run_dir, out=out, fresh=fresh, log=log, rungs=parse_rungs(rungs),
                   luck=luck)
    except TuneInterrupted as err:
        raise Interrupted(str(err)) from None
    typer.echo(res["paths"]["front_md"].read_text(encoding="utf-8"))


def _combine(paths, games, seed, panel, fixes_only, scheduler, run_dir, out, lang, given) -> None:
    """``tune --combine PATHS``: the studies' answers merged, played together, and the revised
    rulebook written (heron_sim.lab.combine)."""
    from ..lab.combine import DEFAULT_GAMES, DEFAULT_SEED, CombineInterrupted, combine

    if given:
        raise HeronSimError(f"{given[0]}: not with --combine")
    if lang not in ("fr", "en"):
        raise HeronSimError(f"--lang: {lang!r}; allowed: fr, en")
    try:
        res = combine(paths or [Path("results")], games=DEFAULT_GAMES if games is None else games,
                      seed=DEFAULT_SEED if seed is None else seed, out=out, panel=panel, fixes_only=fixes_only,
                      scheduler=scheduler, run_dir=run_dir, log=log)
    except CombineInterrupted as err:
        raise Interrupted(str(err)) from None
    typer.echo(res["paths"][f"{lang}.md"].read_text(encoding="utf-8"))


def _check_stored(file: Path, out: Optional[Path], games: Optional[int], lang: str) -> None:
    """``tune FILE --check``: the held-out check of the answer a study already wrote."""
    import json

    from ..io import write_text
    from ..lab.heldout import DEFAULT_GAMES, check_text, held_out_check, summary_of
    from ..lab.spec import parse_spec, read_tune_table
    from ._app import dumps

    if lang not in ("fr", "en"):
        raise HeronSimError(f"--lang: {lang!r}; allowed: fr, en")
    data = dict(read_tune_table(file))
    spec = parse_spec(data, file)
    folder = out or Path("results") / f"tune-{spec.name}"
    found = sorted((folder / "variants").glob(f"{spec.name}-1-*.toml"))
    if not found:
        raise HeronSimError(f"{folder / 'variants'}: no answer {spec.name}-1-*.toml to check (run the study first; "
                            "a 'no change needed' study proposes none)")
    res = held_out_check(file, found[0], games=DEFAULT_GAMES if games is None else games, log=log, data=data,
                         spec=spec)
    keep = summary_of(res)
    write_text(folder / "held-out.json", dumps(keep))
    for lg in ("fr", "en"):
        write_text(folder / f"held-out.{lg}.md", check_text(keep, lg) + "\n")
    typer.echo(check_text(keep, lang))


@app.command("replay")
def replay_cmd(
    tune_file: Annotated[Path, typer.Argument(metavar="TUNE.toml", help="The study whose goals, constraints and panel judge the proposal.")],
    variant: Annotated[Path, typer.Argument(metavar="VARIANT.toml", help="A rules file, e.g. results/tune-guides/variants/guides-1-L28.toml.")],
    seed: Annotated[int, typer.Option("--seed", help="The seed of the fresh games (use one the study never used).")] = 99,
    games: Annotated[Optional[int], typer.Option("--games", help="Games a table, base and variant on the same games (default 20000; with --held-out 100000).")] = None,
    panel: Annotated[Optional[str], typer.Option("--panel", help="Another panel of tables: default (the ladder's rungs), bots, or the designer's audience: family, club, expert (default: the study's).")] = None,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="local (default), local-cluster[:N] or tcp://HOST:PORT.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole evidence as JSON.")] = False,
    luck: Annotated[Optional[bool], typer.Option("--luck/--no-luck", help="Play the games with the players' luck and use the luck-adjusted win-rate figures where narrower (default: the study's [racing] luck).")] = None,
    held_out: Annotated[bool, typer.Option("--held-out", help="The held-out check: the tables the study never saw (mixed skill, 3, 4 and 6 players), each goal at the designer's margin, comebacks against each player's own chance, every seat's share with its interval (docs/tuning.md).")] = False,
    lang: Annotated[str, typer.Option("--lang", help="With --held-out: fr or en.")] = "en",
) -> None:
    """Replay a proposal at every table of the study's panel (or another), on fresh games of
    another seed, judged as the study judged its finalists: each goal as an equivalence test at
    the designer's margin, every constraint and the seven-powers check at every table, and where
    it moves the unfairness. Says which tables it was measured on and whether it holds at all."""
    from ..lab.replay import replay, replay_text
    from ._app import dumps

    if held_out:
        from ..lab.heldout import check_text, held_out_check, summary_of

        if lang not in ("fr", "en"):
            raise HeronSimError(f"--lang: {lang!r}; allowed: fr, en")
        if panel is not None:
            raise HeronSimError("--panel: not with --held-out (the held-out tables are its panel)")
        if not variant.is_file():
            raise HeronSimError(f"{variant}: no such rules file")
        from ..lab.heldout import DEFAULT_GAMES

        res = held_out_check(tune_file, variant, seed=seed, games=DEFAULT_GAMES if games is None else games,
                             scheduler=scheduler, log=log)
        typer.echo(dumps(summary_of(res)) if as_json else check_text(res, lang))
        return
    res = replay(tune_file, variant, seed=seed, games=20000 if games is None else games, panel=panel, scheduler=scheduler, log=log, luck=luck)
    if as_json:
        ev = dict(res["evidence"])
        ev.pop("rules", None)
        typer.echo(dumps({**res, "evidence": ev}))
        return
    typer.echo(replay_text(res))
