"""Lighter simulators for the other games, behind one small interface (:mod:`.base`)."""

from __future__ import annotations

import importlib
import pkgutil

from ..errors import HeronSimError
from .base import CORE_COLUMNS, LightGame

_REGISTRY: dict[str, LightGame] = {}


def register(game: LightGame) -> LightGame:
    """Register ``game``; its ``load_rules`` goes through the typed check of :mod:`.shapes`
    (every key's shape from the game's ``data/defaults.toml``)."""
    if not getattr(game.load_rules, "checked", False):
        import dataclasses

        from .shapes import checked_loader

        package = game.load_rules.__module__.rsplit(".", 1)[0]
        game = dataclasses.replace(game, load_rules=checked_loader(game.load_rules, _defaults_of(package)))
    _REGISTRY[game.name] = game
    return game


def _defaults_of(package: str):
    import functools

    from ..tomlfile import package_toml

    @functools.lru_cache(maxsize=1)
    def table() -> dict:
        try:
            return package_toml(package, "data/defaults.toml")
        except (FileNotFoundError, ModuleNotFoundError):
            return {}

    return lambda: __import__("copy").deepcopy(table())


def _discover() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg:
            importlib.import_module(f"{__name__}.{info.name}")


def available() -> dict[str, LightGame]:
    """Every registered lighter game, by command-line name."""
    if not _REGISTRY:
        _discover()
    return dict(sorted(_REGISTRY.items()))


def get(name: str) -> LightGame:
    games = available()
    if name not in games:
        raise HeronSimError(f"game: {name!r} is not a game; allowed: {', '.join(games) or '(none)'}")
    return games[name]


__all__ = ["CORE_COLUMNS", "LightGame", "available", "get", "register"]
