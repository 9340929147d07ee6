"""Typed validation of a lighter game's rules file, from the shape of its defaults.

Every key of a game's ``data/defaults.toml`` declares its type by its default value: a boolean,
an integer, a number (float), a string, a table (checked key by key) or a list whose items have
the shape of the default's items (``adjacency = [[1, 2], [0]]`` is a list of lists of integers,
so a flat ``[1, 2, 3, 4, 0]`` is refused). :func:`checked_loader` wraps a game's
``load_rules``: the file and the overrides are checked against the defaults first (one
:class:`~heron_sim.errors.RulesError` line naming the key and the allowed shape), then the
game's own validators check the values; anything they let through that still fails is one
line too, never a traceback.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ..errors import HeronSimError, RulesError


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "table"
    if isinstance(v, list):
        return "list"
    return type(v).__name__


def describe(default: Any) -> str:
    """The allowed shape of a key whose default is ``default``, in words."""
    k = _kind(default)
    if k == "bool":
        return "true or false"
    if k == "int":
        return "an integer"
    if k == "number":
        return "a number"
    if k == "string":
        return "a string"
    if k == "table":
        return f"a table with keys {', '.join(default)}"
    if k == "list":
        item = _item_default(default)
        return "a list" if item is None else f"a list of {_plural(describe(item))}"
    return k


def _plural(text: str) -> str:
    for a, b in (("an integer", "integers"), ("a number", "numbers"), ("a string", "strings"),
                 ("true or false", "booleans"), ("a list of", "lists of"), ("a table", "tables")):
        if text.startswith(a):
            return b + text[len(a):]
    return text


def _item_default(default: list):
    """A representative item of a default list (None if empty); a mix of integers and
    numbers counts as numbers."""
    if not default:
        return None
    kinds = {_kind(x) for x in default}
    if kinds <= {"int", "number"} and "number" in kinds:
        return 0.0
    return default[0] if len(kinds) == 1 else None


def _fits(value: Any, default: Any) -> bool:
    k, v = _kind(default), _kind(value)
    if k == "number":
        return v in ("int", "number")
    if k != v:
        return False
    if k == "list":
        item = _item_default(default)
        return item is None or all(_fits(x, item) for x in value)
    return True


def check_like(layer: dict, defaults: dict, where: str = "") -> None:
    """Refuse (one line) every key of ``layer`` whose value has not the shape of its default.
    Keys unknown to ``defaults`` are left to the game (which names the allowed keys)."""
    if not isinstance(layer, dict):
        raise RulesError(f"{where or 'rules'}: {layer!r}; allowed: a table of rules keys")
    for key, value in layer.items():
        if key not in defaults:
            continue
        default = defaults[key]
        name = f"{where}{key}"
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise RulesError(f"{name}: {_short(value)}; allowed: {describe(default)}")
            check_like(value, default, f"{name}.")
        elif not _fits(value, default):
            raise RulesError(f"{name}: {_short(value)}; allowed: {describe(default)} (as in defaults.toml)")


def plain_like(value: Any, default: Any) -> Any:
    """``value`` (a rules field: tuples, numbers) as a TOML/JSON value in the shape of
    ``default`` (its key's default): tuples as lists, an integer as a float where the default
    is a number, item by item; so that equal rules give one table (and one digest)."""
    k = _kind(default)
    if k == "number" and not isinstance(value, bool) and isinstance(value, (int, float)):
        return float(value)
    if k == "table" and isinstance(value, dict):
        return {key: plain_like(v, default.get(key)) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        item = _item_default(default) if k == "list" else None
        return [plain_like(v, item) for v in value]
    return value


def table_like(rules: Any, defaults: dict) -> dict:
    """The table of a rules object whose fields are named as the keys of ``defaults`` (every
    key, in the defaults' order and shape, see :func:`plain_like`)."""
    return {key: plain_like(getattr(rules, key), default) for key, default in defaults.items()}


def _short(value: Any, n: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def checked_loader(load_rules: Callable, defaults: Callable[[], dict]) -> Callable:
    """``load_rules(rules_file, overrides)`` with the typed check of the file and overrides
    first, and a one-line error for anything the game's validators miss."""
    from ..tomlfile import read_toml

    @functools.wraps(load_rules)
    def load(rules_file=None, overrides=None):
        table = defaults()
        if rules_file is not None:
            check_like(read_toml(rules_file, "--rules"), table)
        if overrides:
            check_like(dict(overrides), table)
        try:
            return load_rules(rules_file, overrides)
        except HeronSimError:
            raise
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError) as err:
            where = f"--rules: {rules_file}: " if rules_file is not None else ""
            raise RulesError(f"{where}invalid rules ({type(err).__name__}: {err}); see the game's "
                             "defaults.toml for every key's shape") from None

    load.checked = True
    return load
