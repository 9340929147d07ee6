"""The ``explore`` command: the local page of :mod:`heron_sim.explore` (docs/explore.md)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._app import app


@app.command("explore")
def explore_cmd(
    port: Annotated[Optional[int], typer.Option("--port", help="Port on 127.0.0.1 (default: a free one).")] = None,
    open_: Annotated[bool, typer.Option("--open", help="Open the page in the default browser.")] = False,
) -> None:
    """Serve a local page (127.0.0.1 only) where you change a rule and watch its effect: the
    rulings and the variant play the same games, with paired differences and 95 % intervals
    narrowing as games stream in. Prints the URL; Ctrl-C stops it."""
    from ..explore import serve

    serve(port=port, open_browser=open_, echo=lambda s: typer.echo(s, err=True))
