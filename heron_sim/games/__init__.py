"""Lighter simulators for the other games, behind one small interface (:mod:`.base`).

A game is a package here that registers itself on import (:func:`register`); a new one can be
two files, its kernel and one declaration (:func:`heron_sim.games.declare.light_game`; see
``docs/games/adding-a-game.md``)."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

from ..errors import HeronSimError
from .base import CORE_COLUMNS, LightGame

_REGISTRY: dict[str, LightGame] = {}


def register(game: LightGame) -> LightGame:
    """Register ``game``; its ``load_rules`` goes through the typed check of :mod:`.shapes`
    (every key's shape from the game's ``data/defaults.toml``). Its default rules must be a
    :class:`~heron_sim.games.base.LightRules` whose table rebuilds them (``to_table()``,
    ``digest()``: the result files and the manifests carry them); else :class:`HeronSimError`."""
    if not getattr(game.load_rules, "checked", False):
        import dataclasses

        from .shapes import checked_loader

        package = game.package or game.load_rules.__module__.rsplit(".", 1)[0]
        game = dataclasses.replace(game, load_rules=checked_loader(game.load_rules, _defaults_of(package)))
    _check_rules_table(game)
    _REGISTRY[game.name] = game
    return game


def registered(name: str) -> Callable[[], LightGame]:
    """A function giving the game registered as ``name`` when called, for the modules of the
    game's own package (its summary's tidy frames): they are imported before the package
    registers the game, so they ask for it only when a frame is wanted (``game = registered(
    "rampage")`` at the top, ``game()`` in a function)."""
    def game() -> LightGame:
        return get(name)

    game.__doc__ = f"The game {name!r}, from the registry."
    return game


def _check_rules_table(game: LightGame) -> None:
    from .base import LightRules

    rules = game.load_rules(None, {})
    if not isinstance(rules, LightRules):
        raise HeronSimError(f"game {game.name!r}: its rules ({type(rules).__name__}) have no to_table() "
                            "and digest(); allowed: a rules object as heron_sim.games.base.LightRules declares")
    if game.load_rules(None, rules.to_table()) != rules:
        raise HeronSimError(f"game {game.name!r}: load_rules(None, rules.to_table()) does not rebuild its "
                            "default rules; allowed: a table in the shape of its data/defaults.toml")


def _defaults_of(package: str):
    """The package's defaults table, fresh on each call ({} for a game without a defaults file)."""
    from .tables import defaults_table

    def table() -> dict:
        try:
            return defaults_table(package)
        except (FileNotFoundError, ModuleNotFoundError):
            return {}

    return table


_discovered = False


def _discover() -> None:
    """Import every game package under this one (each registers itself on import). Done once,
    whatever was registered before: an empty registry is not the test, since importing one game
    (``import heron_sim.games.fire_mountain``) registers that game alone. A package that fails to
    import raises here, and discovery is tried again on the next call."""
    global _discovered
    if _discovered:
        return
    for info in pkgutil.iter_modules(__path__):
        if info.ispkg:
            importlib.import_module(f"{__name__}.{info.name}")
    _discovered = True


def available() -> dict[str, LightGame]:
    """Every lighter game, by command-line name: the packages of :mod:`heron_sim.games` (all
    imported on the first call) and any game registered with :func:`register`."""
    _discover()
    return dict(sorted(_REGISTRY.items()))


def get(name: str) -> LightGame:
    games = available()
    if name not in games:
        raise HeronSimError(f"game: {name!r} is not a game; allowed: {', '.join(games) or '(none)'}")
    return games[name]


__all__ = ["CORE_COLUMNS", "LightGame", "available", "get", "register", "registered"]
