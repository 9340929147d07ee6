"""Commands that play Héron: ``simulate`` (whole games), ``turns`` (single turns), ``modes``
(the four dice modes side by side)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._app import (Interrupted, JsonOpt, ModeOpt, PlayersOpt, RulesOpt, SeedOpt, SetOpt, ThreadsOpt,
                   app, build_rules, check_user_strategies, dumps, interrupted_line, log,
                   markdown_table, strategy_names)


def _summarize(frame):
    """The summary of a run's frame or sums (heron_sim.analysis.summary.SummaryCounts)."""
    from ..analysis import summarize

    if frame is None:
        import pandas as pd

        frame = pd.DataFrame({"players": [], "finished": [], "winner": []})
    return summarize(frame)


@app.command("simulate")
def simulate_cmd(
    mode: ModeOpt = None,
    games: Annotated[int, typer.Option("--games", help="Number of games.")] = 10_000,
    players: PlayersOpt = None,
    strategy: Annotated[str, typer.Option("--strategy", help=f"One strategy for every seat, or a comma list, one per seat ({strategy_names()}).")] = "greedy",
    seed: SeedOpt = 1,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Save the per-game results (.parquet or .csv).")] = None,
    as_json: JsonOpt = False,
    precision: Annotated[Optional[float], typer.Option("--precision", help="Play blocks of --games games until every win rate's (seat, guide when dealt) 95 % half-width is at most this, e.g. 0.005; reports the games used.")] = None,
    log_turns: Annotated[Optional[Path], typer.Option("--log-turns", help="Also write every turn decision of the games played (dice, keep/stop, powers) as the CSV turn log that heron-sim calibrate reads (docs/calibrate.md).")] = None,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="Where the games run, with no --out: local (this process, default), local-cluster[:N] (embedded Dask on 127.0.0.1) or tcp://HOST:PORT (a Dask scheduler); each worker adds up its games' sums; the same figures.")] = None,
    trace: Annotated[Optional[Path], typer.Option("--trace", help="Also write each seat's chance of winning at the start of every turn of the first --trace-games games (the same games; .parquet or .csv) and report when the games were decided: lead changes, the decisive round (the winner past 80 %), comebacks from below 10 %, uncertainty (docs/worth.md). The first use for a rules file and table builds its worth of positions from 20,000 self-play games (about a minute at 4 players; cached).")] = None,
    trace_games: Annotated[int, typer.Option("--trace-games", help="How many games --trace follows (the first ones).")] = 1000,
    luck: Annotated[bool, typer.Option("--luck", help="Measure each seat's luck on the expert's tables (luck_seat1 ... columns, and 20 luck_seat1_<weight> columns a seat weighted by the squares at each turn's start; identical dice, rules by guide included) and report the luck-adjusted win rates beside the plain ones, with luck_variance_ratio in --json (docs/luck.md): the same games, on the generic turn (slower), after building the luck's tables (seconds).")] = False,
) -> None:
    """Play whole games and print the summary: win rates by seat and guide (95 % intervals),
    game length, Pond, Anxiety and advance per played turn. Results stream to --out batch by
    batch (memory bounded by the batch); Ctrl-C keeps, writes and labels the games played.
    --log-turns writes the turn log of the same games (docs/calibrate.md)."""
    from ..analysis import summary_table
    from ..io import TABLE_FORMATS, check_distinct, check_output
    from ..progress import progress_bar

    r = build_rules(mode, rules, set_, players)
    if out is not None:
        check_output(out, "--out", TABLE_FORMATS)
    if log_turns is not None:
        from ..errors import HeronSimError
        from ..playtest import check_log_path

        if precision is not None:
            raise HeronSimError("--log-turns: not with --precision (the games used are not known in advance); "
                                "allowed: --log-turns with --games")
        check_log_path(log_turns)
    if trace is not None:
        from ..errors import HeronSimError

        if precision is not None:
            raise HeronSimError("--trace: not with --precision (the games used are not known in advance); "
                                "allowed: --trace with --games")
        if trace_games < 1:
            raise HeronSimError(f"--trace-games: {trace_games}; allowed: 1 or more")
        check_output(trace, "--trace", TABLE_FORMATS)
    check_distinct({"--out": out, "--log-turns": log_turns, "--trace": trace}, {"--rules": rules})
    if luck and precision is not None:
        from ..errors import HeronSimError

        raise HeronSimError("--luck: not with --precision (its blocks are played without luck); "
                            "allowed: --luck with --games")
    if luck:
        from ..errors import HeronSimError
        from ..strategies.expert_luck import luck_unmeasured

        why = luck_unmeasured(r)
        if why is not None:
            raise HeronSimError(f"--luck: not measured with {why}; allowed: identical dice (8 D8, 7 D8, 10 D8), "
                                "rules by guide included")
    if scheduler not in (None, "local"):
        from ..errors import HeronSimError

        given = [n for n, v in (("--out", out), ("--precision", precision), ("--log-turns", log_turns),
                                ("--luck", luck or None), ("--threads", threads)) if v is not None]
        if given:
            raise HeronSimError(f"--scheduler: not with {given[0]} (a cluster sends back the summary's sums only); "
                                "allowed: --scheduler with --games, --json and the rules' options")
    precision_cut = False
    if precision is not None:
        # --precision plays blocks of --games until the win rates are that narrow: the games
        # used are not known in advance, so they are kept in memory and written once at the end.
        from ..errors import HeronSimError
        from ..io import write_frame
        from ..lab.precision import simulate_to_precision, stop_reason

        if games < 1:
            raise HeronSimError(f"--games: {games}; allowed: >= 1 with --precision (the games per block)")
        frame = simulate_to_precision(r, precision, seed, strategy, block=games, threads=threads)
        precision_cut = bool(frame.attrs.get("interrupted"))
        log(f"precision {precision}: {frame.attrs['games_used']:,} games used, widest win-rate half-width "
            f"{frame.attrs['halfwidth']:.4f} ({stop_reason(frame)})")
        # `requested` is the number asked, as in the file's metadata: the game cap of the blocks
        requested = int(frame.attrs.get("max_games", len(frame)))
        games = played = len(frame)
        error = None
        if out is not None and (played or not precision_cut):
            try:
                from ..provenance import git_commit
                from ..strategies import parse_seating

                write_frame(frame, out, meta={"requested": requested,
                                              "played": played, "interrupted": precision_cut,
                                              "stopped": stop_reason(frame),
                                              "seed": int(seed), "mode": r.mode, "rules": r.digest(),
                                              "strategies": ",".join(parse_seating(strategy, r.players)),
                                              "git_commit": git_commit(),
                                              "rules_table": r.to_table()})
            except (HeronSimError, OSError) as err:  # printed after the summary, as for streamed runs
                error = err
        written = out is not None and error is None and bool(played or not precision_cut)
    elif out is None and not luck:
        # no file: only the summary's sums are kept, in the threads (memory flat in the games)
        from ..simulation import simulate_counts

        check_user_strategies(strategy, r.players)
        if scheduler not in (None, "local"):  # the same sums, added up on the cluster's workers
            from ..runner.executor import count_games, get_executor

            with get_executor(scheduler) as ex, progress_bar(games, f"{r.mode} games") as advance:
                counted = count_games(r, games, seed, strategy, ex, progress=advance)
        else:
            with progress_bar(games, f"{r.mode} games") as advance:
                counted = simulate_counts(r, games, seed, strategy, threads=threads, progress=advance)
        frame, played, error, written = counted.counts, counted.played, None, False
        requested = int(games)
    else:
        from ..simulation import simulate_to_file

        check_user_strategies(strategy, r.players)
        with progress_bar(games, f"{r.mode} games") as advance:
            run = simulate_to_file(r, games, seed, strategy, out, threads=threads, progress=advance, luck=luck,
                                   counts=True)
        frame, played, error, written = run.frame, run.played, run.write_error, run.written
        requested = int(games)
    summary = _summarize(frame)
    cut = precision_cut or played < games
    summary.update(requested=requested, played=int(played), interrupted=cut)
    if precision is not None:
        summary["stopped"] = stop_reason(frame)
    traced = None
    if trace is not None:
        if cut:
            log(f"note: --trace: {trace} not written (the run was interrupted)")
        elif not played:
            log(f"note: --trace: {trace} not written (no game was played)")
        else:
            traced = _write_trace(trace, r, min(trace_games, int(played)), seed, strategy)
            summary["trace"] = traced.measures
    if as_json:
        typer.echo(dumps(summary))
    else:
        table = summary_table({r.mode: summary})
        if cut:  # the table itself says that it holds an interrupted run (as modes' does)
            table.loc["interrupted"] = [f"yes ({played:,} games)" if precision_cut
                                        else f"yes ({played:,} of {games:,} games)"]
        typer.echo(markdown_table(table))
        if traced is not None:
            typer.echo(_trace_lines(traced.measures))
    if log_turns is not None:
        if cut:
            log(f"note: --log-turns: {log_turns} not written (the run was interrupted)")
        else:
            _write_turn_log(log_turns, r, played, seed, strategy)
    if traced is not None and traced.interrupted:
        raise Interrupted(interrupted_line(traced.games, min(trace_games, int(played)), "games' traces",
                                           written=str(trace)))
    if error is not None:
        raise error
    if precision_cut:
        from ..interrupt import signal_name

        raise Interrupted(f"interrupted ({signal_name() or 'SIGINT'}): kept the {played:,} games played "
                          "before the precision was reached" + (f", written to {out}" if written else ""))
    if cut:
        raise Interrupted(interrupted_line(played, games, written=str(out) if written else None))


def _write_trace(path, r, games, seed, strategy):
    """The trace of the first ``games`` games just played (the same seed: the same games),
    written atomically with its metadata; the worth of positions built first if need be."""
    from ..analysis.drama import trace_games
    from ..analysis import worth as W
    from ..errors import HeronSimError
    from ..interrupt import stop_requested
    from ..io import write_frame
    from ..progress import progress_bar
    from ..provenance import git_commit
    from ..strategies import parse_seating
    from .worth import worth_built

    seating = parse_seating(strategy, r.players)
    worth, _ = worth_built(r, seating, interrupted=f"; --trace: {path} not written")
    with progress_bar(games, "trace") as advance:
        traced = trace_games(r, seating, seed, games, worth=worth, progress=advance, stop=stop_requested)
    if traced.games == 0:
        raise HeronSimError(f"--trace: {path} not written (interrupted before any game was traced)")
    write_frame(traced.frame, path, meta={
        "requested": int(games), "played": int(traced.games), "interrupted": bool(traced.interrupted),
        "seed": int(seed), "mode": r.mode, "rules": r.digest(), "strategies": ",".join(seating),
        "git_commit": git_commit(), "rules_table": r.to_table(), "measures": traced.measures,
        "worth": {"games": worth.games, "seed": worth.seed, "built_on": "self-play of the same seating"}})
    log(f"saved the trace of {traced.games:,} games ({len(traced.frame):,} rows) to {path}")
    return traced


def _trace_lines(m: dict) -> str:
    """The trace's measures, a line each, for a person."""
    def f(key, pct=False, digits=1):
        v = m[key]
        k = 100 if pct else 1
        unit = " %" if pct else ""
        return f"{k * v['value']:.{digits}f}{unit} [{k * v['low']:.{digits}f}, {k * v['high']:.{digits}f}]"

    return "\n".join([
        f"Traced games: {m['games']:,} finished ({m['unfinished']:,} unfinished), winning chances at every turn",
        f"  lead changes per game (best chance):       {f('lead_changes')}",
        f"  decisive round (winner past {100 * m['decided_at']:.0f} %):          {f('decisive_round')}",
        f"  decided before the last round:             {f('decided_before_last_round', True)}",
        f"  comebacks (winner once below {100 * m['long_shot']:.0f} %):         {f('comebacks', True)}",
        f"  uncertainty (1: open, 0: decided):         {f('uncertainty', digits=3)}",
        f"  decisiveness (share played once decided):  {f('decisiveness', digits=3)}",
    ])


def _write_turn_log(path, r, games, seed, strategy) -> None:
    """The turn log of the ``games`` games just played (the same seed: the same games)."""
    from ..interrupt import stop_requested
    from ..playtest import write_turn_log
    from ..progress import progress_bar

    with progress_bar(games, "turn log") as advance:
        tl = write_turn_log(path, r, games, seed, strategy, progress=advance, stop=stop_requested)
    log(f"saved the turn log of {tl.games:,} games ({tl.turns:,} turns, {tl.decisions:,} decisions) to {path}")
    if tl.interrupted:
        raise Interrupted(interrupted_line(tl.games, games, "games' turn logs", written=str(path)))


@app.command("turns")
def turns_cmd(
    mode: ModeOpt = None,
    strategy: Annotated[str, typer.Option("--strategy", help=f"Strategy that plays the turns ({strategy_names()}).")] = "greedy",
    guide: Annotated[str, typer.Option("--guide", help="The player's guide: loup taureau serpent lion aigle cerf heron (or English names).")] = "loup",
    rolls: Annotated[Optional[int], typer.Option("--rolls", help="Rolls per turn (default: the rules', 3).")] = None,
    turns: Annotated[int, typer.Option("--turns", help="Number of single turns.")] = 1_000_000,
    seed: SeedOpt = 1,
    no_powers: Annotated[bool, typer.Option("--no-powers", help="Switch off one-shot powers (Guide Power doubling stays).")] = False,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    threads: ThreadsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Play single turns from a fresh turn state (guide ready, no board) and count Ponds,
    Anxieties (Lion rescues included), advances and Pond push-backs."""
    from ..progress import progress_bar
    from ..simulation import count_turns

    r = build_rules(mode, rules, set_, rolls=rolls, powers=False if no_powers else None)
    with progress_bar(turns, f"{r.mode} turns") as advance:
        report = count_turns(r, turns, seed, strategy, guide, threads=threads, progress=advance)
    played = report["played"]
    if as_json:
        typer.echo(dumps(report))
    else:
        n = max(played, 1)
        label = f"{played:,} turns" + (f" of {turns:,} requested (interrupted)" if played < turns else "")
        typer.echo(f"{r.mode}, {strategy}, guide {report['guide']}, {r.rolls} rolls, powers {'on' if r.powers else 'off'}: {label}")
        typer.echo(f"  Pond     {report['pond']:>10,}  {100 * report['pond'] / n:6.2f} %")
        typer.echo(f"  Anxiety  {report['anxiety']:>10,}  {100 * report['anxiety'] / n:6.2f} %")
        total = sum(int(k) * v for k, v in report["advance"].items())
        typer.echo(f"  mean advance per turn: {total / n:.4f}")
        for k, v in report["advance"].items():
            typer.echo(f"  advance {k:>3}  {v:>10,}  {100 * v / n:6.2f} %")
        for k, v in report["pond_pushback"].items():
            typer.echo(f"  push-back {k:>3}  {v:>8,}")
    if played < turns:
        raise Interrupted(interrupted_line(played, turns, "turns"))


@app.command("modes")
def modes_cmd(
    games: Annotated[int, typer.Option("--games", help="Games per mode.")] = 10_000,
    players: PlayersOpt = None,
    strategy: Annotated[str, typer.Option("--strategy", help=f"Strategy for every seat, or one per seat ({strategy_names()}).")] = "greedy",
    seed: SeedOpt = 1,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Write PREFIX.csv (the table) and PREFIX.md.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Compare the four dice modes (8d8, 7d8, 10d8, 10d6) side by side, same seeds."""
    from ..analysis import summary_table
    from ..io import check_output, write_text
    from ..progress import progress_bar
    from ..rules import MODES
    from ..simulation import simulate_counts

    if out is not None:
        check_output(out.with_suffix(".csv"), "--out")
    built = [build_rules(m, rules, set_, players) for m in MODES]  # every mode checked first
    check_user_strategies(strategy, built[0].players)
    summaries, played = {}, {}
    for mode, r in zip(MODES, built):
        with progress_bar(games, f"{mode} games") as advance:
            run = simulate_counts(r, games, seed, strategy, threads=threads, progress=advance)
        n = run.played
        if n == 0:
            break
        summaries[mode] = _summarize(run.counts)
        summaries[mode].update(requested=int(games), played=int(n), interrupted=n < games)
        played[mode] = n
        if n < games:
            break
    total = sum(played.values())
    requested = games * len(MODES)
    table = summary_table(summaries) if summaries else None
    if table is not None and total < requested:
        table.loc["requested games"] = [f"{games:,}"] * len(table.columns)
        table.loc["interrupted"] = ["yes" if summaries[m]["interrupted"] else "no" for m in table.columns]
    text = table.to_string() if table is not None else "(no games played)"
    if as_json:
        typer.echo(dumps({**summaries, "requested": requested, "played": total,
                          "interrupted": total < requested}))
    else:
        typer.echo(text)
    if out is not None and table is not None:
        sizes = ("; ".join(f"{m}: {n:,}" for m, n in played.items())
                 if total < requested else f"{games:,} games per mode")
        note = (f"**Interrupted**: {total:,} of {requested:,} games played "
                f"({len(played)} of {len(MODES)} modes).\n\n" if total < requested else "")
        header = (f"# Dice modes compared\n\n{note}{sizes}, {built[0].players} players, "
                  f"strategy {strategy}, seed {seed}. Rates with 95 % Wilson intervals.\n\n")
        write_text(out.with_suffix(".csv"), table.to_csv())
        write_text(out.with_suffix(".md"), header + "```\n" + text + "\n```\n")
        log(f"saved {out.with_suffix('.csv')} and {out.with_suffix('.md')}")
    if total < requested:
        raise Interrupted(interrupted_line(total, requested))
