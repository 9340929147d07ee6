"""Lighter simulators for the other games, behind one small interface (:mod:`.base`)."""

from __future__ import annotations

import importlib
import pkgutil

from ..errors import HeronSimError
from .base import CORE_COLUMNS, LightGame

_REGISTRY: dict[str, LightGame] = {}


def register(game: LightGame) -> LightGame:
    _REGISTRY[game.name] = game
    return game


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
