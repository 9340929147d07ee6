"""A lighter game's rules table: its ``data/defaults.toml``, a ``--rules`` file and overrides,
merged and checked in one place.

Every game reads its defaults with :func:`defaults_table` and merges the layers with
:func:`merged_table` (a game with a rules dataclass then builds it from the merged table). A
game that needs no dataclass declares none: :func:`table_loader` gives its ``load_rules``,
whose rules are a :class:`TableRules` (frozen, one attribute per key of the defaults,
``to_table()`` and ``digest()`` for free). Every bad input is one
:class:`~heron_sim.errors.RulesError` line: an unknown key (the allowed ones named), a value
not in the shape of its default (:mod:`.shapes`), a number outside its declared limits.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Callable

from ..errors import RulesError
from .base import merge_tables, rules_layers, table_digest
from .shapes import check_like, plain_like


@functools.lru_cache(maxsize=None)
def _read_defaults(package: str) -> dict:
    from ..tomlfile import package_toml

    return package_toml(package, "data/defaults.toml")


def defaults_table(package: str) -> dict:
    """A fresh copy of the package's ``data/defaults.toml`` (read once; the copy is the caller's)."""
    return copy.deepcopy(_read_defaults(package))


def merged_table(package: str, rules_file=None, overrides: dict | None = None,
                 merge: Callable[[dict, dict], dict] | None = None) -> dict:
    """The package's defaults with the ``--rules`` file's keys, then ``overrides`` (each layer
    through ``merge(values, layer) -> values``; default: :func:`~.base.merge_tables`, nested
    tables merged key by key, an unknown key refused with the allowed ones named)."""
    values = defaults_table(package)
    for layer in rules_layers(rules_file, overrides):
        values = merge(values, layer) if merge is not None else merge_tables(values, layer)
    return values


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return TableRules._of({k: v for k, v in value.items()})
    return value


class TableRules:
    """Rules read from a game's table with no dataclass: one read-only attribute per key of its
    ``data/defaults.toml`` (``rules.target``; a list is a tuple, a table another
    :class:`TableRules`), equal when their tables are, and a :class:`~.base.LightRules`:
    :meth:`to_table` gives the table back in the defaults' shape and order, :meth:`digest` its
    hash. Built by :func:`table_loader` (values already checked against the defaults)."""

    __slots__ = ("_table",)

    def __init__(self, table: dict, defaults: dict) -> None:
        plain = {key: plain_like(table[key], default) for key, default in defaults.items()}
        object.__setattr__(self, "_table", plain)

    @classmethod
    def _of(cls, plain: dict) -> "TableRules":
        self = object.__new__(cls)
        object.__setattr__(self, "_table", plain)
        return self

    def __getattr__(self, key: str) -> Any:
        table = object.__getattribute__(self, "_table")
        if key in table:
            return _frozen(table[key])
        raise AttributeError(f"rules: no key {key!r}; allowed: {', '.join(table)}")

    def __getitem__(self, key: str) -> Any:
        return self.__getattr__(key)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"rules are read-only ({key}); give another table to load_rules instead")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"rules are read-only ({key})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TableRules) and self.to_table() == other.to_table()

    def __hash__(self) -> int:
        return hash(self.digest())

    def __repr__(self) -> str:
        return f"TableRules({self._table!r})"

    def __dir__(self):
        return [*object.__dir__(self), *self._table]

    def keys(self):
        return self._table.keys()

    def to_table(self) -> dict:
        """The designer's table: every key of the defaults, in their order and shape (a copy)."""
        return copy.deepcopy(self._table)

    def digest(self) -> str:
        """``table_digest(self.to_table())``."""
        return table_digest(self._table)


def _check_limits(table: dict, limits: dict[str, tuple]) -> None:
    for key, (lo, hi) in limits.items():
        value = table
        for part in key.split("."):
            value = value[part]
        for i, v in enumerate(value if isinstance(value, list) else [value]):
            if not lo <= v <= hi:
                where = f"{key}[{i}]" if isinstance(value, list) else key
                kind = "an integer" if isinstance(lo, int) and isinstance(hi, int) else "a number"
                raise RulesError(f"{where}: {v!r}; allowed: {kind} in {lo}..{hi}")


def table_loader(package: str, limits: dict[str, tuple] | None = None,
                 check: Callable[[TableRules], None] | None = None) -> Callable[..., TableRules]:
    """``load_rules(rules_file=None, overrides=None) -> TableRules`` for the game of ``package``:
    its defaults, the file, the overrides (:func:`merged_table`), each key checked against the
    shape of its default (:func:`~.shapes.check_like`), each key of ``limits`` (dotted under a
    table: ``{"target": (1, 1000)}``; a list's items each) within its bounds, then ``check(rules)``
    (the game's own rule, raising :class:`RulesError`). :func:`heron_sim.games.register`
    accepts it as it is (it is checked already)."""
    limits = dict(limits or {})
    known = _read_defaults(package)
    for key in limits:
        node = known
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                raise RulesError(f"limits: {key}: not a key of {package}'s defaults.toml")
            node = node[part]

    def load_rules(rules_file=None, overrides: dict | None = None) -> TableRules:
        defaults = defaults_table(package)
        table = defaults
        for layer in rules_layers(rules_file, overrides):
            check_like(layer, defaults)
            table = merge_tables(table, layer)
        _check_limits(table, limits)
        rules = TableRules(table, defaults)
        if check is not None:
            try:
                check(rules)
            except RulesError:
                raise
            except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError) as err:
                raise RulesError(f"invalid rules ({type(err).__name__}: {err}); see the game's defaults.toml "
                                 "for every key's shape") from None
        return rules

    load_rules.checked = True
    load_rules.package = package
    load_rules.__doc__ = (f"The rules of {package}: its data/defaults.toml, the --rules file's keys, then "
                          "the overrides; checked (one RulesError line).")
    return load_rules


__all__ = ["TableRules", "defaults_table", "merged_table", "table_loader"]
