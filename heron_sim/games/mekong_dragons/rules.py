"""Les Dragons du Mékong's rules object (defaults of ``data/defaults.toml`` + a user TOML file)
and the board geometry the kernels read."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from ...errors import RulesError
from ..base import merge_flat, table_digest
from ..shapes import table_like
from ..tables import defaults_table, merged_table

#: Card names, in kernel-id order (the nine action cards, then the dragon).
CARDS: tuple[str, ...] = ("stone", "stones2", "plank", "planks2", "remove_stone", "remove_plank",
                          "move", "move2", "jump", "dragon")
#: Villages around the delta, in board order (village v faces village v + 3 mod 6).
VILLAGES: tuple[str, ...] = ("black", "blue", "green", "white", "yellow", "red")
#: Colours in play by number of players (the seed), in seat order.
COLOURS_BY_PLAYERS: dict[int, tuple[str, ...]] = {
    2: ("black", "white"),
    3: ("white", "red", "blue"),
    4: ("red", "blue", "green", "yellow"),
    5: ("white", "red", "blue", "green", "yellow"),
    6: ("black", "white", "red", "blue", "green", "yellow"),
}


@dataclass(frozen=True)
class MekongRules:
    """Every rule parameter of the Mekong simulator (see ``data/defaults.toml``)."""

    radius: int
    plank_unit: float
    stones: int
    max_planks_per_stone: int
    judgement_error: float
    cards_programmed: int
    max_dragons_programmed: int
    forbidden_cards: tuple
    max_rounds: int
    dragon_step: str = "guess"
    board_rotation: int = 0

    def __post_init__(self) -> None:
        def bad(name, allowed):
            return RulesError(f"{name}: {getattr(self, name)!r}; allowed: {allowed}")

        for name, lo, hi in (("radius", 2, 12), ("stones", 1, 200), ("max_planks_per_stone", 1, 12),
                             ("cards_programmed", 1, 9), ("max_dragons_programmed", 0, 5),
                             ("max_rounds", 1, 10000)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise bad(name, f"an integer in {lo}..{hi}")
        for name, lo, hi in (("plank_unit", 0.1, 10.0), ("judgement_error", 0.0, 0.9)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                raise bad(name, f"a number in {lo}..{hi}")
        if self.dragon_step not in ("guess", "first"):
            raise bad("dragon_step", '"guess" or "first"')
        v = self.board_rotation
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 5:
            raise bad("board_rotation", "an integer in 0..5")
        if any(c not in CARDS for c in self.forbidden_cards):
            raise bad("forbidden_cards", f"a list of card names among {', '.join(CARDS)}")

    def to_table(self) -> dict:
        """The designer's table: every key of ``data/defaults.toml``, in its order and shape;
        ``load_rules(None, table)`` (or a TOML file of it) rebuilds equal rules."""
        return table_like(self, _default_table())

    def digest(self) -> str:
        """A short hash of :meth:`to_table` (the result files' ``rules``, the manifests' ``rules_hash``)."""
        return table_digest(self.to_table())

    def geometry(self) -> dict[str, np.ndarray]:
        """Board arrays: ``xy`` float64[N, 2] node positions (nodes 0..5 the villages in
        :data:`VILLAGES` order, then the islands) and ``dist`` float64[N, N] in plank units."""
        r = self.radius
        corners = [(r, 0), (0, r), (-r, r), (-r, 0), (0, -r), (r, -r)]
        axial = list(corners)
        for q in range(-r, r + 1):
            for s in range(max(-r, -q - r), min(r, -q + r) + 1):
                if (q, s) not in corners:
                    a, b = q, s
                    for _ in range(self.board_rotation):  # 60° turns: the same islands, renumbered
                        a, b = -b, a + b
                    axial.append((a, b))
        a = np.array(axial, dtype=np.float64)
        xy = np.stack([a[:, 0] + 0.5 * a[:, 1], (np.sqrt(3) / 2) * a[:, 1]], axis=1)
        dist = np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(axis=2)) / self.plank_unit
        return {"xy": xy, "dist": dist}

    def kernel_params(self) -> np.ndarray:
        """Integer parameters: stones, max per stone, cards programmed, dragons, max rounds,
        then a 0/1 flag per card forbidden to seat 0, then 1 if greedy guesses its dragon's step."""
        flags = [1 if c in self.forbidden_cards else 0 for c in CARDS]
        return np.array([self.stones, self.max_planks_per_stone, self.cards_programmed,
                         self.max_dragons_programmed, self.max_rounds, *flags,
                         1 if self.dragon_step == "guess" else 0], dtype=np.int64)


def defaults() -> dict:
    """The default rules as a plain dict (from the packaged ``data/defaults.toml``)."""
    return defaults_table(__package__)


def _default_table() -> dict:
    """The defaults, for the shape and key order of :meth:`MekongRules.to_table`."""
    return defaults_table(__package__)


def load_rules(rules_file: str | Path | None = None, overrides: dict | None = None) -> MekongRules:
    """Defaults, then the keys of ``rules_file``, then ``overrides`` (flat keys, :func:`~..base.merge_flat`); validated."""
    known = {f.name for f in fields(MekongRules)}
    values = merged_table(__package__, rules_file, overrides,
                          merge=lambda v, layer: merge_flat(v, [layer], known, strings=False))
    values["forbidden_cards"] = tuple(values["forbidden_cards"])
    return MekongRules(**values)
