"""The rules object of Akeruption: defaults (``data/defaults.toml``) + a TOML file + overrides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import RulesError
from ..base import table_digest
from ..tables import merged_table

WALLS = ("straw", "wood", "stone")
TILES = ("dead_end", "straight", "fork")
MIN_PLAYERS, MAX_PLAYERS = 2, 4

# Layout of the kernel's integer parameters.
(P_BURNT, P_START_T, P_FLOW_HEAT, P_BREAK_HEAT, P_PENALTY, P_COOLING, P_HAND, P_VILLAGES, P_SIDES,
 P_MAX_TURNS, P_OUTLETS, P_DMIN, P_DMAX, P_STRICT, P_BYPASS, P_EVERY_WALL, P_FIRST_RANDOM,
 N_PARAMS) = range(18)
#: Readings of the seed, each a true/false key (see data/defaults.toml): parameter index.
_FLAGS = {"strict_zones": P_STRICT, "wall_bypass": P_BYPASS, "test_every_wall": P_EVERY_WALL}
_INTS = {  # name: (parameter index, min, max)
    "burnt": (P_BURNT, 10, 10_000), "start_temperature": (P_START_T, 0, 10_000),
    "flow_heat": (P_FLOW_HEAT, 0, 1000), "wall_break_heat": (P_BREAK_HEAT, 0, 1000),
    "eruption_penalty": (P_PENALTY, 0, 1000), "card_cooling": (P_COOLING, 0, 1000),
    "hand_limit": (P_HAND, 0, 20), "villages": (P_VILLAGES, MAX_PLAYERS, 8),
    "sides": (P_SIDES, 1, 12), "max_turns": (P_MAX_TURNS, 1, 1_000_000),
}


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RulesError(f"{field}: {value!r}; allowed: an integer {lo}..{hi}")
    return value


@dataclass(frozen=True)
class AkeruptionRules:
    """Every rule a designer can change; immutable and validated (see ``data/defaults.toml``)."""

    params: tuple[int, ...]        # kernel integers, indexed by the P_* constants
    critical: tuple[int, ...]      # the three critical zones, °C, increasing
    wall_bonus: tuple[int, ...]    # white-die bonus per wall kind
    start_walls: tuple[int, ...]   # per wall kind
    tiles: tuple[int, ...]         # pile composition per tile kind
    village_share: float
    resource_probability: float
    resource_weights: tuple[int, ...]  # per wall kind (resources and action cards)

    @classmethod
    def from_dict(cls, d: dict) -> "AkeruptionRules":
        params = [0] * N_PARAMS
        for name, (i, lo, hi) in _INTS.items():
            params[i] = _int(d[name], name, lo, hi)
        crit = d["critical"]
        if (not isinstance(crit, list) or len(crit) != 3
                or any(isinstance(c, bool) or not isinstance(c, int) for c in crit)
                or not 0 < crit[0] < crit[1] < crit[2] < params[P_BURNT]):
            raise RulesError(f"critical: {crit!r}; allowed: three increasing integers between 0 and burnt")
        for name, i in _FLAGS.items():
            if not isinstance(d[name], bool):
                raise RulesError(f"{name}: {d[name]!r}; allowed: true, false")
            params[i] = int(d[name])
        if d["first_player"] not in ("seat0", "random"):
            raise RulesError(f"first_player: {d['first_player']!r}; allowed: seat0, random")
        params[P_FIRST_RANDOM] = int(d["first_player"] == "random")
        geo = d["geometry"]
        params[P_OUTLETS] = _int(geo["eruption_outlets"], "geometry.eruption_outlets", 1, 8)
        params[P_DMIN] = _int(geo["min_distance"], "geometry.min_distance", 1, 20)
        params[P_DMAX] = _int(geo["max_distance"], "geometry.max_distance", params[P_DMIN], 20)
        share = geo["village_share"]
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
            raise RulesError(f"geometry.village_share: {share!r}; allowed: a number 0..1")
        res = d["resources"]
        prob = res["probability"]
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
            raise RulesError(f"resources.probability: {prob!r}; allowed: a number 0..1")
        weights = tuple(_int(res[w], f"resources.{w}", 0, 1000) for w in WALLS)
        if sum(weights) == 0:
            raise RulesError("resources: all weights 0; allowed: at least one positive weight")
        tiles = tuple(_int(d["tiles"][t], f"tiles.{t}", 0, 1000) for t in TILES)
        if sum(tiles) == 0:
            raise RulesError("tiles: an empty pile; allowed: at least one tile")
        return cls(
            params=tuple(params), critical=tuple(crit),
            wall_bonus=tuple(_int(d["walls"][w], f"walls.{w}", -6, 6) for w in WALLS),
            start_walls=tuple(_int(d["start_walls"][w], f"start_walls.{w}", 0, 50) for w in WALLS),
            tiles=tiles, village_share=float(share), resource_probability=float(prob),
            resource_weights=weights,
        )

    def to_table(self) -> dict:
        """The designer's table (the inverse of :meth:`from_dict`): every key of
        ``data/defaults.toml`` in its order and shape, the kernel's ``params`` read back into
        names; ``load_rules(None, table)`` (or a TOML file of it) rebuilds equal rules."""
        p = self.params
        return {
            "critical": list(self.critical),
            **{name: p[i] for name, (i, _, _) in _INTS.items()},
            **{name: bool(p[i]) for name, i in _FLAGS.items()},
            "first_player": "random" if p[P_FIRST_RANDOM] else "seat0",
            "walls": dict(zip(WALLS, self.wall_bonus)),
            "start_walls": dict(zip(WALLS, self.start_walls)),
            "tiles": dict(zip(TILES, self.tiles)),
            "geometry": {"eruption_outlets": p[P_OUTLETS], "village_share": float(self.village_share),
                         "min_distance": p[P_DMIN], "max_distance": p[P_DMAX]},
            "resources": {"probability": float(self.resource_probability),
                          **dict(zip(WALLS, self.resource_weights))},
        }

    def digest(self) -> str:
        """A short hash of :meth:`to_table` (the result files' ``rules``, the manifests' ``rules_hash``)."""
        return table_digest(self.to_table())

    def kernel_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(params, critical, wall_bonus, start_walls, tiles, resource_weights, floats[2])."""
        i64 = lambda x: np.array(x, np.int64)  # noqa: E731
        return (i64(self.params), i64(self.critical), i64(self.wall_bonus), i64(self.start_walls),
                i64(self.tiles), i64(self.resource_weights),
                np.array([self.village_share, self.resource_probability], np.float64))


def load_rules(rules_file: str | None = None, overrides: dict | None = None) -> AkeruptionRules:
    """Build the rules from the defaults, an optional TOML file and a dict of overrides."""
    return AkeruptionRules.from_dict(merged_table(__package__, rules_file, overrides))
