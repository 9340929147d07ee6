"""Strategies: declared here by name, dispatched inside the kernel by an integer id.

Each strategy module declares ``NAME``, ``DESCRIPTION`` and a compiled decision function; the
id below is what ``heron_sim.strategies.dispatch.decide`` switches on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import HeronSimError
from . import greedy, random_policy, scripted
from .dispatch import GREEDY, RANDOM, SCRIPTED

N_STRATEGY_PARAMS = 4  # width of the per-seat parameter rows


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    sid: int
    description: str
    user_facing: bool = True


REGISTRY: dict[str, StrategyInfo] = {
    greedy.NAME: StrategyInfo(greedy.NAME, GREEDY, greedy.DESCRIPTION),
    random_policy.NAME: StrategyInfo(random_policy.NAME, RANDOM, random_policy.DESCRIPTION),
    scripted.NAME: StrategyInfo(scripted.NAME, SCRIPTED, scripted.DESCRIPTION, user_facing=False),
}


def names(user_facing_only: bool = True) -> list[str]:
    return [n for n, s in REGISTRY.items() if s.user_facing or not user_facing_only]


def parse_seating(spec: str | list[str], players: int) -> list[str]:
    """One name for every seat, or a comma list with one name per seat."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    items = [s.strip() for s in items]
    if len(items) == 1:
        items = items * players
    if len(items) != players:
        raise HeronSimError(
            f"--strategy: {len(items)} names for {players} players; give one name or one per seat"
        )
    for s in items:
        if s not in REGISTRY or not REGISTRY[s].user_facing and s != "scripted":
            raise HeronSimError(f"--strategy: {s!r} is not a strategy; allowed: {', '.join(names())}")
    return items


def seat_arrays(seating: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strategy ids and parameter rows by seat, as the kernel reads them."""
    sids = np.array([REGISTRY[s].sid for s in seating], dtype=np.int64)
    sp = np.zeros((len(seating), N_STRATEGY_PARAMS), dtype=np.float64)
    return sids, sp
