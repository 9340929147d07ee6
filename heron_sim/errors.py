"""Domain errors raised by the library: bad input (:class:`HeronSimError`, exit code 2 on the
command line), a file that could not be written (:class:`OutputError`, exit 1) and a run that
failed for a reason outside the input (:class:`RunFailure`, exit 1: a lost Dask scheduler)."""


def _one_line(args: tuple) -> tuple:
    """A message is one line whatever it quotes: a newline or a carriage return in a quoted
    key or value (a hostile rules file) is written as ``\\n`` / ``\\r``."""
    if args and isinstance(args[0], str):
        return (args[0].replace("\r", "\\r").replace("\n", "\\n"),) + args[1:]
    return args


class HeronSimError(ValueError):
    """Bad user input: one line naming the field and the allowed values."""

    def __init__(self, *args):
        super().__init__(*_one_line(args))


class RulesError(HeronSimError):
    """A rules object, a rules TOML file or an override is invalid."""


class OutputError(Exception):
    """A file could not be written (disk full, read-only, permission): exit code 1."""

    def __init__(self, *args):
        super().__init__(*_one_line(args))


class RunFailure(Exception):
    """The run failed for a reason outside its input (the Dask scheduler went away): one line,
    exit code 1; the work already finished is kept where the message says."""

    def __init__(self, *args):
        super().__init__(*_one_line(args))
