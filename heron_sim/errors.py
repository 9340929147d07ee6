"""Domain errors raised by the library and turned into exit code 2 by the command line."""


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
