"""A lighter game in one declaration: :func:`light_game` makes its :class:`~.base.LightGame`
from what only the game knows, the rest from the shared pieces.

A new game is one package of two files (and its ``data/defaults.toml``)::

    heron_sim/games/pig/__init__.py    # light_game(...) registered: rules, strategies, outputs
    heron_sim/games/pig/engine.py      # the numba kernel
    heron_sim/games/pig/data/defaults.toml

Its rules are a :class:`~.tables.TableRules` read from ``data/defaults.toml`` (no dataclass to
write), its ``simulate`` a :class:`~.driver.Driver` over its kernel, its summary
:func:`~.sections.default_summary` with the game's own questions. ``tests/fixtures/pig_game/``
is such a game. A larger game declares itself the same way and gives its own parts where it
needs them: a rules dataclass (``load_rules``), a ``summarize``, and its kernel's call and
columns in a module of their own (the four games under :mod:`heron_sim.games`: ``rules.py``,
``simulate.py``, ``summary.py``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .base import LightGame
from .driver import Driver, Out
from .sections import Question, summary_of
from .tables import table_loader


def light_game(*, name: str, title: str, package: str, strategies: tuple[str, ...], players: tuple[int, int],
               outputs: dict[str, Out], kernel: Callable[..., None], prepare: Callable[[Any, int], Any] | None = None,
               columns: Callable[[dict, Any, int], dict] | None = None, heuristics: tuple[str, ...] = (),
               limits: dict[str, tuple] | None = None, check: Callable | None = None, unit: str = "turns",
               questions: Iterable[Question] = (), load_rules: Callable | None = None,
               summarize: Callable | None = None, doc: str = "", chunk: int = 1000,
               ids: dict[str, int] | None = None, core: Callable[[dict], tuple] | None = None) -> LightGame:
    """The :class:`~.base.LightGame` of a game declared by its parts (register it with
    :func:`heron_sim.games.register`):

    - ``package``: the game's package (``__name__`` in its ``__init__``), where
      ``data/defaults.toml`` lies;
    - ``strategies`` (kernel ids in this order unless ``ids``; the first is the default),
      ``heuristics`` (its real players), ``players`` (the fewest and the most);
    - ``outputs``, ``kernel``, ``prepare``, ``columns``, ``core``, ``chunk``: its
      :class:`~.driver.Driver` (``core``: :func:`~.driver.packed_core` for a kernel that packs
      winner, length and finished in one output);
    - ``limits``, ``check``: its rules' bounds and own rule (:func:`~.tables.table_loader`), or
      its own ``load_rules``;
    - ``unit`` ("turns" or "rounds": what ``length`` counts), ``questions``: its summary
      (:func:`~.sections.summary_of`), or its own ``summarize``.
    """
    low, high = players
    driver = Driver(strategies=tuple(strategies), min_players=low, max_players=high, outputs=dict(outputs),
                    kernel=kernel, prepare=prepare, columns=columns, core=core, ids=ids, chunk=chunk)
    return LightGame(
        name=name, title=title, strategies=tuple(strategies), min_players=low, max_players=high,
        load_rules=load_rules or table_loader(package, limits, check),
        simulate=driver.simulate,
        summarize=summarize or summary_of(title, unit, questions),
        doc=doc, heuristics=tuple(heuristics), package=package,
    )


def kernel_parts(module) -> dict:
    """:func:`light_game`'s driver arguments from a larger game's module of them (its
    ``simulate.py``): ``OUTPUTS`` and ``kernel``, and where the module has them ``prepare``,
    ``columns``, ``CORE`` (``core``) and ``CHUNK`` (``chunk``)."""
    parts = {"outputs": module.OUTPUTS, "kernel": module.kernel}
    for key, name in (("prepare", "prepare"), ("columns", "columns"), ("core", "CORE"), ("chunk", "CHUNK")):
        if hasattr(module, name):
            parts[key] = getattr(module, name)
    return parts


__all__ = ["Driver", "Out", "kernel_parts", "light_game"]
