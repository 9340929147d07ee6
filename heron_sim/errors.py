"""Domain errors raised by the library and turned into exit code 2 by the command line."""


class HeronSimError(ValueError):
    """Bad user input: one line naming the field and the allowed values."""


class RulesError(HeronSimError):
    """A rules object, a rules TOML file or an override is invalid."""


class OutputError(Exception):
    """A file could not be written (disk full, read-only, permission): exit code 1."""

