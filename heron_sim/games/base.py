"""The small interface every lighter game shares with the Héron engine.

A lighter game is a module under ``heron_sim/games/<name>/`` whose package ``__init__`` builds
one :class:`LightGame` and registers it with :func:`heron_sim.games.register`. The command
``heron-sim game <name> simulate`` and the reports only use this interface.

Contract (the same as the Héron engine's):
- rules: an immutable, validated object built from the game's defaults, an optional TOML file
  and overrides (``load_rules(rules_file, overrides)``); bad input raises
  :class:`heron_sim.errors.RulesError` with a one-line message naming the field and the allowed
  values;
- reproducible batches: game ``i`` of a run with master seed ``s`` draws only from its own
  stream ``heron_sim.engine.rng.stream_start(s, i, state)``, so results are bit-identical
  whatever the threads or batch split;
- results: one row per game in a pandas DataFrame whose first columns are
  :data:`CORE_COLUMNS`, then game-specific columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..errors import HeronSimError

MAX_SEED = 2**63 - 1
#: Games per call of a game's ``simulate`` when :func:`simulate_chunks` drives it: the stop
#: flag (Ctrl-C, SIGTERM) is read between chunks.
GAME_CHUNK = 20_000

#: Columns every per-game result table starts with.
#: seed (int), game (index, int), players (int), seats (str, strategy by seat, e.g.
#: "greedy,random,greedy"), strategies (str, sorted unique strategy names joined by ","), winner (seat index, -1 if none), length (rounds or
#: turns, say which in the game's doc), finished (bool).
CORE_COLUMNS: tuple[str, ...] = (
    "seed", "game", "players", "seats", "strategies", "winner", "length", "finished",
)


@dataclass(frozen=True)
class LightGame:
    """One lighter game, as the command line and the reports see it."""

    name: str                      # command-line name, e.g. "fire-mountain"
    title: str                     # e.g. "La Colère de la Montagne de Feu"
    strategies: tuple[str, ...]    # names accepted by --strategy; the first is the default
    min_players: int
    max_players: int
    #: load_rules(rules_file: str | None, overrides: dict) -> rules object
    load_rules: Callable[..., Any]
    #: simulate(rules, games: int, players: int, seed: int, strategies: list[str],
    #:          progress: Callable[[int], None] | None = None) -> DataFrame (CORE_COLUMNS first)
    simulate: Callable[..., pd.DataFrame]
    #: summarize(df) -> Markdown text answering the game's questions, with intervals
    summarize: Callable[[pd.DataFrame], str]
    doc: str = ""                  # path of docs/games/<name>.md, relative to the repository
    extra: dict = field(default_factory=dict)


def seat_strategies(strategies, players: int, ids: dict[str, int], min_players: int,
                    max_players: int, games: int = 0, seed: int = 0,
                    first_game: int = 0) -> tuple[list[str], np.ndarray]:
    """Validate a run's arguments; return the strategy name and id of each seat
    (``list[str]``, ``int64[players]``).

    ``strategies`` is one name per seat, or one name for every seat (None: the first of ``ids``).
    Raises :class:`~heron_sim.errors.HeronSimError` with a one-line message otherwise.
    """
    if not min_players <= players <= max_players:
        raise HeronSimError(f"players: {players}; allowed: {min_players}..{max_players}")
    if games < 0 or seed < 0 or first_game < 0:
        raise HeronSimError("games, seed, first_game: negative; allowed: integers >= 0")
    if seed > MAX_SEED or first_game + games > MAX_SEED:
        raise HeronSimError(f"seed: {seed}; allowed: 0..{MAX_SEED} (and game indices below it)")
    names = list(strategies) if strategies else [next(iter(ids))] * players
    if len(names) == 1:
        names = names * players
    if len(names) != players or any(n not in ids for n in names):
        raise HeronSimError(f"strategies: {names!r}; allowed: {players} names among {', '.join(ids)}")
    return names, np.array([ids[n] for n in names], np.int64)


def check_core_columns(df: pd.DataFrame) -> None:
    """Raise AssertionError unless ``df`` starts with the core columns."""
    head = tuple(df.columns[: len(CORE_COLUMNS)])
    assert head == CORE_COLUMNS, f"result columns must start with {CORE_COLUMNS}, got {head}"


def simulate_chunks(game: LightGame, rules, games: int, players: int, seed: int, strategies,
                    progress: Callable[[int], None] | None = None, first_game: int = 0,
                    chunk: int = GAME_CHUNK):
    """Yield ``game.simulate`` frames of at most ``chunk`` games (indices ``first_game ..``),
    stopping between chunks once a stop was requested (Ctrl-C or SIGTERM under the command
    line). Game ``i`` draws from its own stream, so the chunks join into the frame one call
    would give."""
    from ..interrupt import stop_requested

    if not 0 <= seed <= MAX_SEED:
        raise HeronSimError(f"--seed: {seed}; allowed: 0..{MAX_SEED}")
    done = 0
    while done < games and not stop_requested():
        n = min(chunk, games - done)
        yield game.simulate(rules, games=n, players=players, seed=seed, strategies=list(strategies),
                            progress=progress, first_game=first_game + done)
        done += n
