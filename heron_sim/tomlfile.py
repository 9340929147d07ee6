"""Reading TOML files with one-line errors (every rules, dice, board, game and experiment file)."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from .errors import HeronSimError, RulesError
from .io import read_text


def read_toml(path: str | Path, field: str) -> dict:
    """The table of the TOML file ``path``; a missing, unreadable, non-UTF-8 or malformed file
    raises a one-line :class:`~heron_sim.errors.RulesError` that starts with ``field``."""
    try:
        text = read_text(path, field)
    except HeronSimError as err:
        raise RulesError(str(err)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"{field}: malformed TOML in {path}: {err}") from None
    except RecursionError:
        raise RulesError(f"{field}: {path}: TOML nested too deeply") from None


def package_toml(package: str, relative: str) -> dict:
    """A TOML data file shipped inside ``package`` (e.g. its ``data/defaults.toml``)."""
    text = resources.files(package).joinpath(relative).read_text(encoding="utf-8")
    return tomllib.loads(text)
