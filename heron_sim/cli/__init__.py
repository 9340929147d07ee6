"""The ``heron-sim`` command line: thin typer commands that call the library.

One module per command group, each adding its commands to the ``app`` of :mod:`._app` (which
imports none of them): :mod:`.play` (simulate, turns, modes), :mod:`.exact` (exact, rules),
:mod:`.game` (game list, game simulate), :mod:`.calibrate` (calibrate, coach), :mod:`.plan` (run, plan, report, compare, experiment-schema),
:mod:`.tournament`, :mod:`.tune`, :mod:`.explore`, :mod:`.worth`. Errors become exit codes in one place
(:func:`._app.boundary`, :class:`ExitCode`).
"""

from __future__ import annotations

import sys

from ._app import ExitCode, Interrupted, app, unwrap_help
from . import calibrate, exact, explore, game, play, plan, targets, tournament, tune, worth  # noqa: E402,F401  (register their commands)

unwrap_help(app)


def main() -> None:
    """Entry point of the ``heron-sim`` console script (exit codes: :class:`ExitCode`)."""
    import typer

    from ..interrupt import handle_signals, quiet_exit_on_signal, stopped_at_once

    try:
        try:
            # hard_exit: a second signal exits at once (130, one line), wherever it lands
            with handle_signals(hard_exit=True):
                app()
        finally:
            quiet_exit_on_signal()  # the work is done: a late signal exits 130, no traceback
    except KeyboardInterrupt:
        if not stopped_at_once():
            typer.echo("interrupted: stopped at once; nothing of the current batch was written", err=True)
        sys.exit(ExitCode.INTERRUPTED)


__all__ = ["ExitCode", "Interrupted", "app", "main"]
