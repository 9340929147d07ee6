"""The command line's frame: the typer ``app``, its one error boundary, the exit codes and the
options and helpers every command group shares.

Commands only declare their parameters and call the library; they raise the library's errors
and :class:`Interrupted`, and :class:`OneLineErrors` turns each into one line on stderr and an
:class:`ExitCode` (as pytest's ``ExitCode``).
"""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from .._deps import click
from ..errors import HeronSimError, OutputError, RunFailure


class ExitCode(enum.IntEnum):
    """Exit status of ``heron-sim``."""

    #: done
    OK = 0
    #: the run failed outside its input: a file could not be written (disk full, read-only,
    #: permission) or the Dask scheduler was lost; what was printed stands
    FAILURE = 1
    #: bad input: a usage error, a bad value, an unknown name (one ``error:`` line)
    USAGE = 2
    #: Ctrl-C or SIGTERM: the work already done is kept, written and labelled
    INTERRUPTED = 130


class Interrupted(Exception):
    """A command stopped by Ctrl-C/SIGTERM after keeping its finished work; ``str`` is the line
    printed on stderr (exit 130)."""


def interrupted_line(played: int, requested: int, what: str = "games", written: str | None = None) -> str:
    """The one line that says a run was cut short and what was kept."""
    from ..interrupt import signal_name

    where = f", written to {written}" if written else ""
    return (f"interrupted ({signal_name() or 'SIGINT'}): kept the {played:,} of {requested:,} "
            f"{what} already played{where}")


def boundary(call) -> int:
    """Run ``call()`` and map what it raises to an exit code, printing one line on stderr.

    The one place where domain errors become exit codes: :class:`HeronSimError` -> 2,
    :class:`OutputError` and :class:`RunFailure` -> 1, :class:`Interrupted` -> 130, the
    framework's usage errors -> 2.
    """
    try:
        rv = call()
        return int(rv) if isinstance(rv, int) else ExitCode.OK
    except click.exceptions.NoArgsIsHelpError as err:
        err.show()
        return ExitCode.USAGE
    except click.exceptions.UsageError as err:
        where = err.ctx.command_path if err.ctx is not None else "heron-sim"
        msg = " ".join(err.format_message().split())
        typer.echo(f"error: {where}: {msg} (see {where} --help)", err=True)
        return ExitCode.USAGE
    except click.ClickException as err:
        typer.echo(f"error: {' '.join(err.format_message().split())}", err=True)
        return err.exit_code
    except Interrupted as err:
        typer.echo(str(err), err=True)
        return ExitCode.INTERRUPTED
    except HeronSimError as err:
        typer.echo(f"error: {err}", err=True)
        return ExitCode.USAGE
    except (OutputError, RunFailure) as err:
        typer.echo(f"error: {err}", err=True)
        return ExitCode.FAILURE
    except typer.Abort as err:
        cause = err.__cause__ or err.__context__
        if isinstance(cause, EOFError):
            # click turns an EOFError into Abort: that is no interruption (no signal came).
            typer.echo(f"error: unexpected end of a file or of the input (EOFError: {cause})", err=True)
            return ExitCode.FAILURE
        from ..interrupt import stopped_at_once

        if not stopped_at_once():  # else the signal handler said it already
            typer.echo("interrupted: stopped at once; the games of the current batch are lost "
                       "and nothing was written", err=True)
        return ExitCode.INTERRUPTED


class OneLineErrors(TyperGroup):
    """Every error as one ``error:`` line and an :class:`ExitCode` (see :func:`boundary`)
    instead of a boxed usage block or a traceback; a second Ctrl-C exits 130."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        code = boundary(lambda: super(OneLineErrors, self).main(
            args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra))
        if standalone_mode:
            sys.exit(int(code))
        return code


app = typer.Typer(
    cls=OneLineErrors,
    name="heron-sim",
    help="Monte Carlo balance simulator for the Héron dice race (and four lighter games).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"heron-sim {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    plugins: Annotated[Optional[list[str]], typer.Option(
        "--plugin", help="Load a user strategy module (a module name or a .py file) before the "
        "command, e.g. --plugin experiments/plugin_strategy.py (repeatable).")] = None,
) -> None:
    """Monte Carlo balance simulator for the Héron dice race (and four lighter games).

    Every command takes --help. Exit codes: 0 done, 1 a file could not be written or the Dask scheduler was lost, 2 bad input
    (one error: line), 130 interrupted (finished work kept and labelled).
    """
    if plugins:
        from ..user_plugins import load_plugin

        for spec in plugins:
            load_plugin(spec)


def parse_overrides(items: list[str] | None) -> dict:
    """``key=value`` pairs; values are read as TOML values (numbers, booleans, lists, strings)."""
    import tomllib

    out = {}
    for item in items or []:
        if "=" not in item:
            raise HeronSimError(f"--set: {item!r} is not key=value (e.g. --set rolls=4)")
        key, raw = item.split("=", 1)
        bare = False
        try:
            doc = tomllib.loads(f"v = {raw}")
        except tomllib.TOMLDecodeError:
            doc, bare = {"v": raw}, True  # a bare word: a string
        if set(doc) != {"v"} or (bare and ("\n" in raw or "\r" in raw)):
            # "4\nfoo = 5": a second assignment would be dropped, or the lot read as one string
            raise HeronSimError(f"--set: {item!r} holds more than one value; allowed: one key=value per --set")
        out[key.strip()] = doc["v"]
    return out


def build_rules(mode, rules_file, sets, players=None, **extra):
    """The rules of a command: defaults, then ``--rules``, then ``--set``, then ``extra``."""
    from ..rules import Rules

    overrides = parse_overrides(sets)
    overrides.update({k: v for k, v in extra.items() if v is not None})
    rules = Rules.build(mode=mode, players=players, rules_file=rules_file, overrides=overrides)
    note = rules.seats_note()
    if note:  # [seats.N] tables set for other player counts: said, never silent
        print(f"note: {note}", file=sys.stderr)
    return rules


def check_user_strategies(spec: str, players: int) -> list[str]:
    """The seating of ``spec``; hidden strategies (``scripted``) are not accepted by name."""
    from ..simulation import user_strategies
    from ..strategies import parse_seating, parse_strategy

    seating = parse_seating(spec, players)
    for s in seating:
        if parse_strategy(s)[0] not in user_strategies():
            raise HeronSimError(f"--strategy: {s!r} is not a strategy; allowed: {', '.join(user_strategies())}")
    return seating


def strategy_names() -> str:
    """The user-facing Héron strategies, for help texts (from the registry)."""
    from ..strategies import names

    return ", ".join(names())


def dumps(doc, **kw) -> str:
    from ..io import dumps as _dumps

    return _dumps(doc, **kw)


def log(msg: str) -> None:
    typer.echo(msg, err=True)


# ---------------------------------------------------------------- options shared by commands
# One name, one meaning: --games is always a count of games (per mode, per rule set, per
# seating, per batch as each command's help says); --strategy one name or one per seat.
ModeOpt = Annotated[Optional[str], typer.Option("--mode", help="Dice mode: 8d8, 7d8, 10d8 or 10d6 (default: the rules file's, else 8d8).")]
RulesOpt = Annotated[Optional[Path], typer.Option("--rules", help="TOML file of rule changes (copy heron_sim/rules/data/defaults.toml).")]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="Override one rule, TOML syntax: --set rolls=4 --set exact_finish=true (repeatable).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Master seed: game i draws from its own stream (seed, i).")]
ThreadsOpt = Annotated[Optional[int], typer.Option("--threads", help="Worker threads (default: all cores). Results do not depend on it.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
PlayersOpt = Annotated[Optional[int], typer.Option("--players", help="Players, 2..7 (default 4).")]


def unwrap_help(application: typer.Typer) -> None:
    """Docstrings are wrapped for the source; join each paragraph's lines for the terminal."""
    import inspect

    for command in application.registered_commands:
        doc = inspect.getdoc(command.callback)
        if doc:
            command.callback.__doc__ = "\n\n".join(" ".join(p.split()) for p in doc.split("\n\n"))
    for group in application.registered_groups:
        unwrap_help(group.typer_instance)


def markdown_table(frame) -> str:
    """A GitHub Markdown table of ``frame``, its index as the first column (no optional
    dependency: the same text whether or not ``tabulate`` is installed)."""
    head = [str(frame.index.name or "")] + [str(c) for c in frame.columns]
    rows = [[str(i)] + ["" if v is None else str(v) for v in row]
            for i, row in zip(frame.index, frame.itertuples(index=False))]
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    return "\n".join([line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])
