"""The ``heron-sim`` command line: thin typer commands that call the library."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .errors import HeronSimError

app = typer.Typer(
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


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


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


def _run_games(rules, games, seed, strategy, threads, label):
    from .progress import progress_bar
    from .simulation import simulate

    with progress_bar(games, label) as advance:
        df = simulate(rules, games, seed, strategy, threads=threads, progress=advance)
    if df.attrs.get("interrupted"):
        typer.echo(f"interrupted: keeping the {len(df):,} games already played", err=True)
    return df


def _json_default(x):
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(type(x))


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
    game length, Pond, Anxiety and advance per played turn."""
    from .analysis import summarize, summary_table

    try:
        r = _rules(mode, rules, set_, players)
        if precision is not None:
            from .lab.precision import simulate_to_precision

            df = simulate_to_precision(r, precision, seed, strategy, block=games, threads=threads)
            typer.echo(f"precision {precision}: {df.attrs['games_used']:,} games used, widest win-rate half-width "
                       f"{df.attrs['halfwidth']:.4f}" + ("" if df.attrs["reached"] else " (not reached: game cap)"), err=True)
        else:
            df = _run_games(r, games, seed, strategy, threads, f"{r.mode} games")
        if out is not None:
            _save(df, out)
        summary = summarize(df)
        if as_json:
            typer.echo(json.dumps(summary, default=_json_default))
        else:
            typer.echo(summary_table({r.mode: summary}).to_markdown() if _has_tabulate()
                       else summary_table({r.mode: summary}).to_string())
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
    from .simulation import simulate_turns, turns_report

    try:
        r = _rules(mode, rules, set_, rolls=rolls, powers=False if no_powers else None)
        out = simulate_turns(r, turns, seed, strategy, guide, threads=threads)
        report = turns_report(r, turns, seed, strategy, guide, out)
        if as_json:
            typer.echo(json.dumps(report))
        else:
            n = max(turns, 1)
            typer.echo(f"{r.mode}, {strategy}, guide {report['guide']}, {r.rolls} rolls, powers {'on' if r.powers else 'off'}: {turns:,} turns")
            typer.echo(f"  Pond     {report['pond']:>10,}  {100 * report['pond'] / n:6.2f} %")
            typer.echo(f"  Anxiety  {report['anxiety']:>10,}  {100 * report['anxiety'] / n:6.2f} %")
            total = sum(int(k) * v for k, v in report["advance"].items())
            typer.echo(f"  mean advance per turn: {total / n:.4f}")
            for k, v in report["advance"].items():
                typer.echo(f"  advance {k:>3}  {v:>10,}  {100 * v / n:6.2f} %")
            for k, v in report["pond_pushback"].items():
                typer.echo(f"  push-back {k:>3}  {v:>8,}")
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
    from .analysis import summarize, summary_table
    from .rules import MODES

    try:
        summaries = {}
        for mode in MODES:
            r = _rules(mode, rules, set_, players)
            df = _run_games(r, games, seed, strategy, threads, f"{mode} games")
            summaries[mode] = summarize(df)
        if as_json:
            typer.echo(json.dumps(summaries, default=_json_default))
            return
        table = summary_table(summaries)
        text = table.to_string()
        typer.echo(text)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            table.to_csv(out.with_suffix(".csv"))
            header = (f"# Dice modes compared\n\n{games:,} games per mode, {r.players} players, "
                      f"strategy {strategy}, seed {seed}. Rates with 95 % Wilson intervals.\n\n")
            out.with_suffix(".md").write_text(header + "```\n" + text + "\n```\n", encoding="utf-8")
            typer.echo(f"saved {out.with_suffix('.csv')} and {out.with_suffix('.md')}", err=True)
    except HeronSimError as err:
        _fail(str(err))


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
            typer.echo(json.dumps(doc))
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
        game_rules = game.load_rules(str(rules) if rules else None, {})
        with progress_bar(games, f"{game.name}") as advance:
            df = game.simulate(game_rules, games=games, players=n_players, seed=seed,
                               strategies=names, progress=advance)
        if out is not None:
            _save(df, out)
        if as_json:
            from .games.base import light_summary

            typer.echo(json.dumps({"game": game.name, "players": n_players, "seed": seed, **light_summary(df)},
                                  default=_json_default))
        else:
            typer.echo(game.summarize(df))
    except HeronSimError as err:
        _fail(str(err))


def _save(df, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".csv":
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path, index=False)


def _register_command_modules() -> None:
    """Commands that live in their own modules (each adds itself to ``app`` on import)."""
    import importlib

    for name in ("cli_tournament", "cli_report", "cli_tune"):
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
    """Entry point of the ``heron-sim`` console script."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
