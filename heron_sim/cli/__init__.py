"""The ``heron-sim`` command line: thin typer commands that call the library.

One module per command group, each adding its commands to the ``app`` of :mod:`._app` (which
imports none of them): :mod:`.play` (simulate, turns, modes), :mod:`.exact` (exact, rules),
:mod:`.game` (game list, game simulate), :mod:`.plan` (run, plan, report, compare),
:mod:`.tournament`, :mod:`.tune`. Errors become exit codes in one place
(:func:`._app.boundary`, :class:`ExitCode`).
"""

from __future__ import annotations

import sys

from ._app import ExitCode, Interrupted, app, unwrap_help
from . import exact, game, play, plan, tournament, tune  # noqa: E402,F401  (register their commands)

unwrap_help(app)


def main() -> None:
    """Entry point of the ``heron-sim`` console script (exit codes: :class:`ExitCode`)."""
    import typer

    from ..interrupt import handle_signals

    try:
        with handle_signals():
            app()
    except KeyboardInterrupt:
        typer.echo("interrupted: stopped at once; nothing of the current batch was written", err=True)
        sys.exit(ExitCode.INTERRUPTED)


__all__ = ["ExitCode", "Interrupted", "app", "main"]
