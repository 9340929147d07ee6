"""The ``heron-sim`` command line: thin typer commands that call the library."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

try:  # typer >= 0.25 vendors click as typer._click
    from typer import _click as click
except ImportError:  # pragma: no cover
    import click
import typer
from typer.core import TyperGroup

from .errors import HeronSimError, OutputError


class OneLineErrors(TyperGroup):
    """Usage errors of the command-line framework (``--games abc``, an unknown option) as one
    ``error:`` line, exit 2, instead of a boxed usage block; a second Ctrl-C exits 130."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                              standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
        except click.exceptions.NoArgsIsHelpError as err:
            err.show()
            code = 2
        except click.exceptions.UsageError as err:
            where = err.ctx.command_path if err.ctx is not None else "heron-sim"
            msg = " ".join(err.format_message().split())
            typer.echo(f"error: {where}: {msg} (see {where} --help)", err=True)
            code = 2
        except click.ClickException as err:
            typer.echo(f"error: {' '.join(err.format_message().split())}", err=True)
            code = err.exit_code
        except typer.Abort:
            typer.echo("interrupted: stopped at once; the games of the current batch are lost "
                       "and nothing was written", err=True)
            code = 130
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    cls=OneLineErrors,
    name="heron-sim",
    help="Monte Carlo balance simulator for the Héron dice race (and four lighter games).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Monte Carlo balance simulator for the Héron dice race (and four lighter games).

    Every command takes --help. Bad input exits with code 2 and a one-line message.
    """


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=code)


def _fail_io(err: OutputError) -> None:
    """A file that could not be written: one line, exit 1 (after what was printed)."""
    _fail(str(err), code=1)


def _interrupted(played: int, requested: int, what: str = "games", written: str | None = None) -> None:
    """Say in one line that the run was cut short, and exit 130."""
    from .interrupt import signal_name

    where = f", written to {written}" if written else ""
    typer.echo(f"interrupted ({signal_name() or 'SIGINT'}): kept the {played:,} of {requested:,} "
               f"{what} already played{where}", err=True)
    raise typer.Exit(code=130)


def _parse_overrides(items: list[str] | None) -> dict:
    """``key=value`` pairs; values are read as TOML values (numbers, booleans, lists, strings)."""
    import tomllib

    out = {}
    for item in items or []:
        if "=" not in item:
            raise HeronSimError(f"--set: {item!r} is not key=value (e.g. --set rolls=4)")
        key, raw = item.split("=", 1)
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw  # a bare word: a string
        out[key.strip()] = value
    return out


# ---------------------------------------------------------------- options shared by commands
ModeOpt = Annotated[Optional[str], typer.Option("--mode", help="Dice mode: 8d8, 7d8, 10d8 or 10d6 (default: the rules file's, else 8d8).")]
RulesOpt = Annotated[Optional[Path], typer.Option("--rules", help="TOML file of rule changes (copy heron_sim/rules/data/defaults.toml).")]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="Override one rule, TOML syntax: --set rolls=4 --set exact_finish=true (repeatable).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Master seed: game i draws from its own stream (seed, i).")]
ThreadsOpt = Annotated[Optional[int], typer.Option("--threads", help="Worker threads (default: all cores). Results do not depend on it.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _rules(mode, rules_file, sets, players=None, **extra):
    from .rules import Rules

    overrides = _parse_overrides(sets)
    overrides.update({k: v for k, v in extra.items() if v is not None})
    return Rules.build(mode=mode, players=players, rules_file=rules_file, overrides=overrides)


def _check_user_strategies(spec: str, players: int) -> list[str]:
    """The seating of ``spec``; hidden strategies (``scripted``) are not accepted by name."""
    from .simulation import user_strategies
    from .strategies import parse_seating, parse_strategy

    seating = parse_seating(spec, players)
    for s in seating:
        if parse_strategy(s)[0] not in user_strategies():
            raise HeronSimError(f"--strategy: {s!r} is not a strategy; allowed: {', '.join(user_strategies())}")
    return seating


def _stream_games(rules, games, seed, strategy, threads, label, out=None):
    """Play ``games`` games batch by batch: each batch goes to ``out`` (a row group) and only
    the columns of the summary stay in memory. Returns (summary frame, played, write error).

    A write that fails stops the writing (the temporary file is removed, the old file kept)
    but not the games, so that the summary is still printed before the error.
    """
    import pandas as pd

    from .io import FrameWriter
    from .progress import progress_bar
    from .simulation import simulate_batches, summary_columns

    from .simulation import check_memory

    _check_user_strategies(strategy, rules.players)
    # Only the summary's columns stay in memory (~9 bytes per seat and 30 per game), twice
    # while they are joined at the end.
    check_memory(2 * games * (30 + 9 * rules.players), f"--games: {games:,} games",
                 "play fewer games per command (results on disk are streamed)")
    meta = {"requested": int(games), "seed": int(seed), "mode": rules.mode, "rules": rules.digest(),
            "strategies": strategy}
    writer = FrameWriter(out, meta) if out is not None else None
    if writer is not None:
        writer.__enter__()
    parts, played, error = [], 0, None
    try:
        with progress_bar(games, label) as advance:
            for batch in simulate_batches(rules, games, seed, strategy, threads=threads, progress=advance):
                parts.append(summary_columns(batch))
                played += len(batch)
                if writer is not None and error is None:
                    try:
                        writer.write(batch)
                    except OutputError as err:
                        error = err
        if writer is not None:
            writer.meta.update(played=played, interrupted=played < games)
            if error is not None:
                raise error
            if played == 0 and games > 0:  # stopped before the first batch: keep the old file
                writer.__exit__(InterruptedError, None, None)
                writer = None
            else:
                writer.__exit__(None, None, None)
    except OutputError as err:
        error = error or err
        if writer is not None:
            writer.__exit__(type(err), err, err.__traceback__)
    except BaseException as err:
        if writer is not None:
            writer.__exit__(type(err), err, err.__traceback__)
        raise
    frame = pd.concat(parts, ignore_index=True) if parts else None
    return frame, played, error


def _summarize(frame):
    from .analysis import summarize

    if frame is None:
        import pandas as pd

        frame = pd.DataFrame({"players": [], "finished": [], "winner": []})
    return summarize(frame)


def _json_default(x):
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(type(x))


def _dumps(doc, **kw) -> str:
    from .io import dumps

    return dumps(doc, **kw)


@app.command("simulate")
def simulate_cmd(
    mode: ModeOpt = None,
    games: Annotated[int, typer.Option("--games", help="Number of games.")] = 10_000,
    players: Annotated[Optional[int], typer.Option("--players", help="Players, 2..7 (default 4).")] = None,
    strategy: Annotated[str, typer.Option("--strategy", help="One strategy for every seat, or a comma list, one per seat (greedy, random).")] = "greedy",
    seed: SeedOpt = 1,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Save the per-game results (.parquet or .csv).")] = None,
    as_json: JsonOpt = False,
    precision: Annotated[Optional[float], typer.Option("--precision", help="Play blocks of --games games until every win rate's (seat, guide when dealt) 95 % half-width is at most this, e.g. 0.005; reports the games used.")] = None,
) -> None:
    """Play whole games and print the summary: win rates by seat and guide (95 % intervals),
    game length, Pond, Anxiety and advance per played turn. Results stream to --out batch by
    batch (memory bounded by the batch); Ctrl-C keeps, writes and labels the games played."""
    from .analysis import summary_table
    from .io import TABLE_FORMATS, check_output

    try:
        r = _rules(mode, rules, set_, players)
        if out is not None:
            check_output(out, "--out", TABLE_FORMATS)
        if precision is not None:
            # --precision plays blocks of --games until the win rates are that narrow: the games
            # used are not known in advance, so they are kept in memory and written once at the end.
            from .io import write_frame
            from .lab.precision import simulate_to_precision

            frame = simulate_to_precision(r, precision, seed, strategy, block=games, threads=threads)
            typer.echo(f"precision {precision}: {frame.attrs['games_used']:,} games used, widest win-rate half-width "
                       f"{frame.attrs['halfwidth']:.4f}" + ("" if frame.attrs["reached"] else " (not reached: game cap)"),
                       err=True)
            games = played = len(frame)
            error = None
            if out is not None:
                try:
                    write_frame(frame, out, meta={"requested": games, "played": played, "interrupted": False})
                except (HeronSimError, OSError) as err:  # printed after the summary, as for streamed runs
                    error = err
        else:
            frame, played, error = _stream_games(r, games, seed, strategy, threads, f"{r.mode} games", out)
        summary = _summarize(frame)
        summary.update(requested=int(games), played=int(played), interrupted=played < games)
        if as_json:
            typer.echo(_dumps(summary))
        else:
            table = summary_table({r.mode: summary})
            typer.echo(table.to_markdown() if _has_tabulate() else table.to_string())
        if error is not None:
            _fail_io(error)
        if played < games:
            _interrupted(played, games, written=str(out) if out is not None and played else None)
    except HeronSimError as err:
        _fail(str(err))


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
        return True
    except ImportError:
        return False


@app.command("turns")
def turns_cmd(
    mode: ModeOpt = None,
    strategy: Annotated[str, typer.Option("--strategy", help="Strategy that plays the turns.")] = "greedy",
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
    from .progress import progress_bar
    from .simulation import count_turns

    try:
        r = _rules(mode, rules, set_, rolls=rolls, powers=False if no_powers else None)
        with progress_bar(turns, f"{r.mode} turns") as advance:
            report = count_turns(r, turns, seed, strategy, guide, threads=threads, progress=advance)
        played = report["played"]
        if as_json:
            typer.echo(_dumps(report))
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
            _interrupted(played, turns, "turns")
    except HeronSimError as err:
        _fail(str(err))


@app.command("modes")
def modes_cmd(
    games: Annotated[int, typer.Option("--games", help="Games per mode.")] = 10_000,
    players: Annotated[Optional[int], typer.Option("--players", help="Players, 2..7 (default 4).")] = None,
    strategy: Annotated[str, typer.Option("--strategy", help="Strategy for every seat, or one per seat.")] = "greedy",
    seed: SeedOpt = 1,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    threads: ThreadsOpt = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Write PREFIX.csv (the table) and PREFIX.md.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Compare the four dice modes (8d8, 7d8, 10d8, 10d6) side by side, same seeds."""
    from .analysis import summary_table
    from .io import check_output, write_text
    from .rules import MODES

    try:
        if out is not None:
            check_output(out.with_suffix(".csv"), "--out")
        built = [_rules(m, rules, set_, players) for m in MODES]  # every mode checked first
        summaries, played = {}, {}
        for mode, r in zip(MODES, built):
            frame, n, _ = _stream_games(r, games, seed, strategy, threads, f"{mode} games")
            if n == 0:
                break
            summaries[mode] = _summarize(frame)
            summaries[mode].update(requested=int(games), played=int(n), interrupted=n < games)
            played[mode] = n
            if n < games:
                break
        total = sum(played.values())
        requested = games * len(MODES)
        if as_json:
            typer.echo(_dumps({**summaries, "requested": requested, "played": total,
                               "interrupted": total < requested}))
        else:
            table = summary_table(summaries) if summaries else None
            if table is not None and total < requested:
                table.loc["requested games"] = [f"{games:,}"] * len(table.columns)
                table.loc["interrupted"] = ["yes" if summaries[m]["interrupted"] else "no" for m in table.columns]
            text = table.to_string() if table is not None else "(no games played)"
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
                typer.echo(f"saved {out.with_suffix('.csv')} and {out.with_suffix('.md')}", err=True)
        if total < requested:
            _interrupted(total, requested)
    except HeronSimError as err:
        _fail(str(err))
    except OutputError as err:
        _fail_io(err)


@app.command("exact")
def exact_cmd(
    mode: ModeOpt = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    guide: Annotated[str, typer.Option("--guide", help="Guide of the greedy turn law.")] = "loup",
    optimal: Annotated[bool, typer.Option(
        "--optimal", help="Also the optimal turn with powers off (the expert's programme; with "
        "dice that differ, as 10d6, an exact upper bound instead, ~25 s).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Exact figures by enumeration: P(Pond), the Pond's push-back law, first-roll Anxiety,
    and the greedy turn's law (no sampling)."""
    from .animals import animal_index
    from .exact import first_roll_herons, greedy_turn, p_first_roll_anxiety, p_pond, pond_pushback

    try:
        r = _rules(mode, rules, set_)
        law = greedy_turn(r, animal_index(guide, "--guide"))
        doc = {
            "mode": r.mode,
            "p_pond": p_pond(r),
            "pond_pushback": {str(k): v for k, v in pond_pushback(r).items()},
            "first_roll_herons": list(map(float, first_roll_herons(r))),
            "p_first_roll_anxiety": p_first_roll_anxiety(r),
            "greedy_turn": {"guide": guide, "powers": r.powers, "p_pond": law.p_pond,
                            "p_anxiety": law.p_anxiety, "expected_advance": law.expected_advance,
                            "advance": {str(k): v for k, v in sorted(law.advance.items())}},
        }
        if optimal:
            from .exact import turn_upper_bound

            b = turn_upper_bound(r, animal_index(guide, "--guide"))
            doc["optimal_turn"] = {"guide": guide, "powers": False, "exact": b.exact,
                                   "value" if b.exact else "upper_bound": b.value}
        if as_json:
            typer.echo(_dumps(doc))
        else:
            typer.echo(f"{r.mode}: P(Pond) = {100 * doc['p_pond']:.4f} %, P(first-roll Anxiety) = {100 * doc['p_first_roll_anxiety']:.4f} %")
            typer.echo("Pond push-back (given a Pond): " + ", ".join(f"{k}: {100 * v:.2f} %" for k, v in doc["pond_pushback"].items()))
            g = doc["greedy_turn"]
            typer.echo(f"greedy turn (guide {guide}): P(Pond) {100 * g['p_pond']:.3f} %, P(Anxiety) {100 * g['p_anxiety']:.3f} %, E[advance] {g['expected_advance']:.4f}")
            if optimal:
                o = doc["optimal_turn"]
                what = "optimal turn" if o["exact"] else "optimal turn <= (exact upper bound, dice differ)"
                typer.echo(f"{what} (guide {guide}, powers off): E[advance] {o.get('value', o.get('upper_bound')):.4f}")
    except HeronSimError as err:
        _fail(str(err))


@app.command("rules")
def rules_cmd(
    mode: ModeOpt = None,
    players: Annotated[Optional[int], typer.Option("--players", help="Players, 2..7.")] = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
) -> None:
    """Print the effective rules (defaults + file + overrides) as JSON, and their hash."""
    try:
        r = _rules(mode, rules, set_, players)
        typer.echo(json.dumps(r.to_table(), indent=2, ensure_ascii=False))
        typer.echo(f"# rules hash {r.digest()}", err=True)
    except HeronSimError as err:
        _fail(str(err))


# ---------------------------------------------------------------- lighter games
@app.command("game")
def game_cmd(
    name: Annotated[str, typer.Argument(help="Game name (see `heron-sim game list`).")],
    action: Annotated[str, typer.Argument(help="What to do: simulate.")] = "simulate",
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 1000,
    players: Annotated[Optional[int], typer.Option(help="Number of players.")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Master seed (game i uses the stream (seed, i)).")] = 1,
    strategy: Annotated[Optional[str], typer.Option(help="One strategy, or a comma list, one per seat.")] = None,
    rules: Annotated[Optional[Path], typer.Option(help="A TOML file of rule changes.")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Save per-game results (.parquet or .csv).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Simulate one of the lighter games and print its summary (Markdown, or JSON with --json)."""
    from . import games as registry
    from .progress import progress_bar

    try:
        if name == "list":
            for g in registry.available().values():
                typer.echo(f"{g.name:16s} {g.title} (players {g.min_players}-{g.max_players}; strategies {', '.join(g.strategies)})")
            return
        game = registry.get(name)
        if action != "simulate":
            raise HeronSimError(f"action: {action!r}; allowed: simulate")
        n_players = players if players is not None else game.min_players if game.min_players > 2 else 4
        n_players = max(game.min_players, min(game.max_players, n_players)) if players is None else players
        if not game.min_players <= n_players <= game.max_players:
            raise HeronSimError(f"--players: {n_players}; allowed: {game.min_players}..{game.max_players}")
        names = (strategy or game.strategies[0]).split(",")
        if len(names) == 1:
            names = names * n_players
        if len(names) != n_players:
            raise HeronSimError(f"--strategy: {len(names)} names for {n_players} players; give one name or one per seat")
        for s in names:
            if s not in game.strategies:
                raise HeronSimError(f"--strategy: {s!r}; allowed: {', '.join(game.strategies)}")
        from .games.base import MAX_SEED, simulate_chunks
        from .io import TABLE_FORMATS, FrameWriter, check_output

        if seed > MAX_SEED:
            raise HeronSimError(f"--seed: {seed}; allowed: 0..{MAX_SEED}")
        if out is not None:
            check_output(out, "--out", TABLE_FORMATS)
        game_rules = game.load_rules(str(rules) if rules else None, {})
        import pandas as pd

        parts, error = [], None
        meta = {"requested": int(games), "seed": int(seed), "game": game.name, "seats": ",".join(names)}
        with progress_bar(games, f"{game.name}") as advance:
            from .simulation import check_memory

            for df in simulate_chunks(game, game_rules, games, n_players, seed, names, advance):
                if not parts and len(df) < games:  # the first chunk gives the size of a game's row
                    per_game = df.memory_usage(deep=True).sum() / max(len(df), 1)
                    check_memory(2 * games * per_game, f"--games: {games:,} games",
                                 "play fewer games per command")
                parts.append(df)
        df = pd.concat(parts, ignore_index=True) if parts else None
        played = 0 if df is None else len(df)
        if out is not None and df is not None:
            try:
                with FrameWriter(out, {**meta, "played": played, "interrupted": played < games}) as w:
                    w.write(df)
            except OutputError as err:
                error = err
        if as_json:
            from .games.base import light_summary

            summary = light_summary(df) if df is not None else {"games": 0}
            typer.echo(_dumps({"game": game.name, "players": n_players, "seed": seed, **summary,
                               "requested": int(games), "played": played, "interrupted": played < games}))
        else:
            typer.echo(game.summarize(df) if df is not None else "(no games played)")
            if played < games:
                typer.echo(f"(interrupted: this summary holds {played:,} of the {games:,} games requested)")
        if error is not None:
            _fail_io(error)
        if played < games:
            _interrupted(played, games, written=str(out) if out is not None and df is not None else None)
    except HeronSimError as err:
        _fail(str(err))


def _register_command_modules() -> None:
    """Commands that live in their own modules (each adds itself to ``app`` on import)."""
    import importlib

    for name in ("cli_tournament", "cli_report", "cli_tune", "cli_explore"):
        try:
            importlib.import_module(f"heron_sim.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"heron_sim.{name}":
                raise


_register_command_modules()


def _unwrap_help() -> None:
    """Docstrings are wrapped for the source; join each paragraph's lines for the terminal."""
    import inspect

    for command in app.registered_commands:
        doc = inspect.getdoc(command.callback)
        if doc:
            command.callback.__doc__ = "\n\n".join(" ".join(p.split()) for p in doc.split("\n\n"))


_unwrap_help()


def main() -> None:
    """Entry point of the ``heron-sim`` console script.

    Exit codes: 0 done; 2 bad input (one ``error:`` line); 1 a file could not be written; 130
    interrupted (Ctrl-C or SIGTERM: the games already played are kept, written and labelled).
    """
    from .interrupt import handle_signals

    try:
        with handle_signals():
            app()
    except KeyboardInterrupt:
        typer.echo("interrupted: stopped at once; nothing of the current batch was written", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
