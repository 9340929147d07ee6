"""The ``explore`` command: the local page of heron_sim.explore (imported by heron_sim.cli)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .cli import _fail, app
from .errors import HeronSimError


@app.command("explore")
def explore_cmd(
    port: Annotated[Optional[int], typer.Option("--port", help="Port on 127.0.0.1 (default: a free one).")] = None,
    open_: Annotated[bool, typer.Option("--open", help="Open the page in the default browser.")] = False,
) -> None:
    """Serve a local page (127.0.0.1 only) where you change a rule and watch its effect: the
    rulings and the variant play the same games, with paired differences and 95 % intervals
    narrowing as games stream in. Prints the URL; Ctrl-C stops it."""
    from .explore import serve

    try:
        serve(port=port, open_browser=open_, echo=lambda s: typer.echo(s, err=True))
    except HeronSimError as err:
        _fail(str(err))
