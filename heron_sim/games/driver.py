"""A lighter game's ``simulate``, declared instead of written: the game names its kernel call
and its output arrays, :class:`Driver` does the rest.

What every game's driver did by hand: check the run's arguments and seat the strategies
(:func:`~.base.seat_strategies`), allocate one output array per result (a row per game),
play the games in slices on the threads (:func:`~.base.play_slices`; game ``i`` draws from its
own stream, so the result is the same for any split), and build the frame
(:func:`~.base.core_frame`: the core columns, then the game's). A game declares:

- ``outputs``: name -> :class:`Out` (dtype, and the shape after the games axis, ``"P"`` for the
  players: ``Out()`` one integer per game, ``Out(np.int64, ("P",))`` one per seat);
- ``kernel(arrays, seed, first, strat, out)``: plays the games ``first ..`` of ``seed`` into
  ``out`` (name -> the slice of each output for those games), ``strat`` the seats' strategy
  ids, ``arrays`` what ``prepare(rules, players)`` made of the rules (the rules themselves
  when no ``prepare`` is declared);
- optionally ``columns(out, rules, players)``: the game's columns in order (default: every
  output but the core ones, ``name`` for one value a game, ``name_i`` per seat ``i``,
  ``name_i_j`` for a larger shape), and ``core(out)``: the (winner, length, finished) arrays
  (default: the outputs of those names; :func:`packed_core` for a kernel that packs them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..errors import HeronSimError
from .base import core_frame, play_slices, seat_strategies

#: The outputs the core columns are read from when the game declares no ``core``.
CORE_OUTPUTS = ("winner", "length", "finished")


@dataclass(frozen=True)
class Out:
    """One output array of a game's kernel: ``dtype``, and ``shape`` after the games axis
    (``"P"`` stands for the number of players). Allocated zeroed."""

    dtype: Any = np.int64
    shape: tuple = ()

    def dims(self, players: int) -> tuple[int, ...]:
        return tuple(players if d == "P" else int(d) for d in self.shape)


def per_seat(name: str, values: np.ndarray) -> dict[str, np.ndarray]:
    """``{name_0: values[:, 0], name_1: ...}``: one column per seat of a [games, players] array."""
    return {f"{name}_{i}": values[:, i] for i in range(values.shape[1])}


def seat_fields(values: np.ndarray, names) -> dict[str, np.ndarray]:
    """One column per (field, seat) of a [games, players, fields] array, field by field in the
    order of ``names`` (``stone_0, stone_1, ..., plank_0, ...``)."""
    return {f"{name}_{i}": values[:, i, k] for k, name in enumerate(names) for i in range(values.shape[1])}


def packed_core(name: str, winner: int, length: int, finished: int) -> Callable[[dict], tuple]:
    """``core(out)`` for a kernel that packs a game's results in one [games, k] output ``name``:
    the columns ``winner``, ``length`` and ``finished`` of it."""
    def core(out: dict) -> tuple:
        a = out[name]
        return a[:, winner], a[:, length], a[:, finished]

    return core


def default_columns(out: dict[str, np.ndarray], outputs: dict[str, Out]) -> dict[str, np.ndarray]:
    """Every output but the core ones, in declaration order: ``name`` for one value a game,
    ``name_i`` per seat, ``name_i_j`` (indices joined) for a larger shape."""
    cols: dict[str, np.ndarray] = {}
    for name in outputs:
        if name in CORE_OUTPUTS:
            continue
        a = out[name]
        if a.ndim == 1:
            cols[name] = a
            continue
        for idx in np.ndindex(*a.shape[1:]):
            cols[name + "".join(f"_{i}" for i in idx)] = a[(slice(None), *idx)]
    return cols


@dataclass(frozen=True)
class Driver:
    """A game's ``simulate``, from its declaration (see the module's doc)."""

    strategies: tuple[str, ...]
    min_players: int
    max_players: int
    outputs: dict[str, Out]
    kernel: Callable[..., None]
    prepare: Callable[[Any, int], Any] | None = None
    columns: Callable[[dict, Any, int], dict] | None = None
    core: Callable[[dict], tuple] | None = None
    #: strategy name -> kernel id (default: the position in ``strategies``); the first key is
    #: the default strategy
    ids: dict[str, int] | None = None
    #: the most games per kernel call (smaller slices when several threads play)
    chunk: int = 1000
    doc: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.core is None and not set(CORE_OUTPUTS) <= set(self.outputs):
            raise HeronSimError(f"driver: outputs {', '.join(self.outputs)}; allowed: outputs that include "
                                f"{', '.join(CORE_OUTPUTS)}, or a core(out) that gives them")

    def strategy_ids(self) -> dict[str, int]:
        return dict(self.ids) if self.ids is not None else {s: i for i, s in enumerate(self.strategies)}

    def simulate(self, rules, games: int, players: int, seed: int, strategies=None,
                 progress: Callable[[int], None] | None = None, first_game: int = 0) -> pd.DataFrame:
        """Play ``games`` games (indices ``first_game ..``) of master ``seed`` and return one row
        per game: :data:`~.base.CORE_COLUMNS`, then the game's columns."""
        names, strat = seat_strategies(strategies, players, self.strategy_ids(), self.min_players,
                                       self.max_players, games, seed, first_game)
        arrays = self.prepare(rules, players) if self.prepare is not None else rules
        out = {name: np.zeros((games, *o.dims(players)), o.dtype) for name, o in self.outputs.items()}

        def play(a: int, b: int) -> None:
            self.kernel(arrays, seed, first_game + a, strat, {k: v[a:b] for k, v in out.items()})

        play_slices(games, self.chunk, play, progress)
        winner, length, finished = (self.core(out) if self.core is not None
                                    else (out["winner"], out["length"], out["finished"]))
        cols = self.columns(out, rules, players) if self.columns is not None else default_columns(out, self.outputs)
        return core_frame(seed, first_game, players, names, winner, length, finished, **cols)


__all__ = ["CORE_OUTPUTS", "Driver", "Out", "default_columns", "packed_core", "per_seat", "seat_fields"]
