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
) -> None:
    """Simulate one of the lighter games and print its summary (Markdown)."""
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
        typer.echo(game.summarize(df))
    except HeronSimError as err:
        _fail(str(err))


def _save(df, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".csv":
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path, index=False)


def main() -> None:
    """Entry point of the ``heron-sim`` console script."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
