"""Reading TOML files with one-line errors (every rules, dice, board and experiment file)."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from .errors import RulesError


def read_toml(path: str | Path, field: str) -> dict:
    """The table of the TOML file ``path``; a missing or malformed file raises a one-line
    :class:`~heron_sim.errors.RulesError` that starts with ``field``."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise RulesError(f"{field}: file not found: {path}; allowed: an existing TOML file") from None
    except IsADirectoryError:
        raise RulesError(f"{field}: {path} is a folder; allowed: a TOML file") from None
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"{field}: malformed TOML in {path}: {err}") from None


def package_toml(package: str, relative: str) -> dict:
    """A TOML data file shipped inside ``package`` (e.g. its ``data/defaults.toml``)."""
    text = resources.files(package).joinpath(relative).read_text(encoding="utf-8")
    return tomllib.loads(text)
