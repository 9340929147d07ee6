"""``heron-sim tournament``: every strategy against every other (see heron_sim.tournament)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .cli import _fail, _rules, app
from .errors import HeronSimError


@app.command("tournament")
def tournament_cmd(
    strategies: Annotated[str, typer.Option("--strategies", help="Comma list of strategies (name or name:key=value), e.g. greedy,prudent,expert,racer,random.")] = "greedy,prudent,expert,racer,random",
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
    from .tournament import tournament

    try:
        r = _rules(mode, rules, set_)
        names = [s for s in strategies.split(",") if s.strip()]
        from .cli import _check_user_strategies, _interrupted
        from .io import dumps

        for name in names:
            _check_user_strategies(name, 1)
        res = tournament(r, names, games, seed, threads=threads)
        if as_json:
            typer.echo(dumps(res.to_dict()))
        else:
            typer.echo(res.to_text())
        if res.interrupted:
            _interrupted(res.played, res.requested)
    except HeronSimError as err:
        _fail(str(err))
