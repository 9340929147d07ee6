"""``heron-sim game``: the lighter games (``game list``, ``game simulate NAME``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from ._app import Interrupted, JsonOpt, app, dumps, interrupted_line


def _game_names() -> str:
    """The shipped games' names for the help, read from the folder (``fire_mountain`` is
    ``fire-mountain``): importing every game to write a help line cost about a second of every
    command's start (pandas, scipy); a game registered by a plug-in is listed by ``game list``."""
    folder = Path(__file__).resolve().parents[1] / "games"  # not imported: its __init__ loads every game
    return ", ".join(sorted(p.name.replace("_", "-") for p in folder.iterdir()
                            if p.is_dir() and p.joinpath("__init__.py").is_file()))


class _GameGroup(TyperGroup):
    """``game NAME [simulate] ...`` (the older spelling) is read as ``game simulate NAME ...``."""

    def parse_args(self, ctx, args):
        if args and not args[0].startswith("-") and args[0] not in self.commands:
            rest = args[2:] if len(args) > 1 and args[1] == "simulate" else args[1:]
            args = ["simulate", args[0], *rest]
        return super().parse_args(ctx, args)


game_app = typer.Typer(cls=_GameGroup, no_args_is_help=True,
                       help="The lighter games: `game list`, `game simulate NAME`.")
app.add_typer(game_app, name="game")


@game_app.command("list")
def list_cmd(as_json: JsonOpt = False) -> None:
    """List the lighter games: name, title, player range and strategies."""
    from .. import games as registry

    found = registry.available().values()
    if as_json:
        typer.echo(dumps([{"name": g.name, "title": g.title, "min_players": g.min_players,
                           "max_players": g.max_players, "strategies": list(g.strategies)} for g in found]))
        return
    for g in found:
        typer.echo(f"{g.name:16s} {g.title} (players {g.min_players}-{g.max_players}; strategies {', '.join(g.strategies)})")


@game_app.command("simulate")
def simulate_cmd(
    name: Annotated[str, typer.Argument(help=f"Game name: {_game_names()}.")],
    games: Annotated[int, typer.Option("--games", help="Number of games.")] = 1000,
    players: Annotated[Optional[int], typer.Option("--players", help="Number of players (default 4, within the game's range).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Master seed (game i uses the stream (seed, i)).")] = 1,
    strategy: Annotated[Optional[str], typer.Option("--strategy", help="One strategy, or a comma list, one per seat (see `game list`).")] = None,
    rules: Annotated[Optional[Path], typer.Option("--rules", help="A TOML file of rule changes.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Save per-game results (.parquet or .csv).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Simulate one of the lighter games and print its summary (Markdown, or JSON with --json)."""
    from .. import games as registry
    from ..io import TABLE_FORMATS, check_output
    from ..progress import progress_bar
    from ..simulation import simulate_game

    game = registry.get(name)
    if out is not None:
        check_output(out, "--out", TABLE_FORMATS)
    with progress_bar(games, game.name) as advance:
        run = simulate_game(game.name, games, players, seed, strategy, rules, out, progress=advance)
    df, played = run.frame, run.played
    if as_json:
        from ..games.base import light_summary

        summary = light_summary(df) if df is not None else {"games": 0}
        n_players = int(df["players"].iloc[0]) if df is not None and "players" in df else players
        typer.echo(dumps({"game": game.name, "players": n_players, "seed": seed, **summary,
                          "requested": int(games), "played": played, "interrupted": played < games}))
    else:
        typer.echo(game.summarize(df) if df is not None else "(no games played)")
        if played < games:
            typer.echo(f"(interrupted: this summary holds {played:,} of the {games:,} games requested)")
    if run.write_error is not None:
        raise run.write_error
    if played < games:
        raise Interrupted(interrupted_line(played, games, written=str(out) if run.written else None))
