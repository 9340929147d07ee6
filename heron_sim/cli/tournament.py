"""``heron-sim tournament``: every strategy against every other (see heron_sim.tournament)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._app import Interrupted, app, build_rules, check_user_strategies, dumps, interrupted_line


@app.command("tournament")
def tournament_cmd(
    strategies: Annotated[str, typer.Option("--strategies", "--strategy", help="Comma list of strategies (name or name:key=value), e.g. greedy,prudent,expert,racer,random.")] = "greedy,prudent,expert,racer,random",
    mode: Annotated[Optional[str], typer.Option("--mode", help="Dice mode: 8d8, 7d8, 10d8 or 10d6.")] = None,
    games: Annotated[int, typer.Option("--games", help="Two-player games per seating of each pair (each pair plays twice this, seats and guides mirrored).")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="Master seed (game i of every pairing uses the stream (seed, i)).")] = 1,
    rules: Annotated[Optional[Path], typer.Option("--rules", help="TOML file of rule changes.")] = None,
    set_: Annotated[Optional[list[str]], typer.Option("--set", help="Override one rule, TOML syntax (repeatable).")] = None,
    threads: Annotated[Optional[int], typer.Option("--threads", help="Worker threads. Results do not depend on it.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Round-robin of two-player games: head-to-head win rates with 95 % intervals, a
    Bradley–Terry rating, and each strategy's advance per turn and Anxiety rate."""
    from ..strategies import split_names
    from ..tournament import tournament

    r = build_rules(mode, rules, set_)
    names = [s for s in split_names(strategies) if s]
    for name in names:
        check_user_strategies(name, 1)
    res = tournament(r, names, games, seed, threads=threads)
    if as_json:
        typer.echo(dumps(res.to_dict()))
    else:
        typer.echo(res.to_text())
    if res.interrupted:
        raise Interrupted(interrupted_line(res.played, res.requested))
