"""Rampage's rules object: the defaults of ``data/defaults.toml`` merged with a user TOML file.

:class:`RampageRules` is frozen and validated; :meth:`RampageRules.kernel_arrays` turns it into
the arrays the kernels read (integer parameters, per-seat probabilities, the city layout).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from ...errors import RulesError
from ..base import merge_flat, table_digest
from ..shapes import table_like
from ..tables import defaults_table, merged_table

#: Skill-dependent probabilities: each is a pair [at skill 0, at skill 1], in this kernel order.
SKILL_PAIRS: tuple[str, ...] = (
    "move_success", "move_off", "move_topple",
    "throw_hit_building", "throw_hit_monster", "throw_q", "vehicle_off", "throw_escape",
    "drop_hit", "drop_q", "drop_escape", "drop_topple",
    "blow_q", "blow_escape", "blow_street", "blow_topple",
)

# Integer keys and their allowed ranges.
_INT_RANGES = {
    "line_length": (1, 15), "zone_size": (1, 15), "start_teeth": (0, 20), "cards": (1, 5),
    "meeples_per_colour": (1, 40), "meeples_per_level": (1, 8), "roof_meeples": (1, 8),
    "districts": (2, 12), "stadium_district": (0, 11), "end_buildings": (0, 20),
    "max_rounds": (1, 1000), "set_points": (0, 100), "floor_points": (0, 100),
    "tooth_points": (0, 100), "character_points": (0, 100),
    "throw_trials": (0, 20), "drop_trials": (0, 20), "blow_trials": (0, 20),
}
_FACES = ("A", "B")


@dataclass(frozen=True)
class RampageRules:
    """Every rule parameter of the Rampage simulator (see ``data/defaults.toml`` for meanings)."""

    escape_face: str
    line_length: int
    zone_size: int
    start_teeth: int
    cards: int
    meeples_per_colour: int
    meeples_per_level: int
    roof_meeples: int
    districts: int
    adjacency: tuple
    building_district: tuple
    building_floors: tuple
    corner_district: tuple
    vehicle_home: tuple
    stadium_district: int
    end_buildings: int
    max_rounds: int
    set_points: int
    floor_points: int
    tooth_points: int
    character_points: int
    default_skill: float
    skills: tuple
    move_success: tuple
    move_off: tuple
    move_topple: tuple
    throw_hit_building: tuple
    throw_hit_monster: tuple
    far_factor: float
    throw_trials: int
    throw_q: tuple
    vehicle_off: tuple
    throw_escape: tuple
    drop_hit: tuple
    drop_trials: int
    drop_q: tuple
    drop_escape: tuple
    drop_topple: tuple
    blow_trials: int
    blow_q: tuple
    blow_escape: tuple
    blow_street: tuple
    blow_topple: tuple
    edible: str = "free"
    seat_teeth: tuple = (0, 0, 0, 0)
    fallen_obstacles: bool = True
    obstacle_pass: float = 0.5

    def __post_init__(self) -> None:
        _validate(self)

    def to_table(self) -> dict:
        """The designer's table: every key of ``data/defaults.toml``, in its order and shape;
        ``load_rules(None, table)`` (or a TOML file of it) rebuilds equal rules."""
        table = table_like(self, _default_table())
        table["skills"] = [float(x) for x in self.skills]  # its default [] names no item type
        return table

    def digest(self) -> str:
        """A short hash of :meth:`to_table` (the result files' ``rules``, the manifests' ``rules_hash``)."""
        return table_digest(self.to_table())

    def seat_skills(self, players: int) -> np.ndarray:
        """Skill of each seat, float64[players]: ``skills`` then ``default_skill``."""
        out = np.full(players, self.default_skill, dtype=np.float64)
        given = np.asarray(self.skills[:players], dtype=np.float64)
        out[: given.size] = given
        return out

    def kernel_arrays(self, players: int) -> dict[str, np.ndarray]:
        """The arrays the kernels read: ``ip`` (int64 parameters), ``pp`` (float64
        [players, len(SKILL_PAIRS)] probabilities at each seat's skill), ``fp`` (float64 other
        parameters) and the city layout."""
        skill = self.seat_skills(players)
        pairs = np.array([getattr(self, k) for k in SKILL_PAIRS], dtype=np.float64)  # [K, 2]
        pp = pairs[None, :, 0] + (pairs[None, :, 1] - pairs[None, :, 0]) * skill[:, None]
        ip = np.array([
            0 if self.escape_face == "A" else 1, self.line_length, self.zone_size,
            self.start_teeth, self.cards, self.meeples_per_colour, self.meeples_per_level,
            self.roof_meeples, self.stadium_district,
            self.end_buildings or len(self.building_floors), self.max_rounds,
            self.set_points, self.floor_points, self.tooth_points, self.character_points,
            self.throw_trials, self.drop_trials, self.blow_trials,
            1 if self.edible == "free" else 0, 1 if self.fallen_obstacles else 0,
            *self.seat_teeth,
        ], dtype=np.int64)
        adj = np.zeros((self.districts, self.districts), dtype=np.int64)
        for d, row in enumerate(self.adjacency):
            for e in row:
                adj[d, e] = 1
                adj[e, d] = 1  # a flick can go both ways
        return {
            "ip": ip, "pp": np.ascontiguousarray(pp), "fp": np.array([self.far_factor, self.obstacle_pass]),
            "adj": adj,
            "b_dist": np.array(self.building_district, dtype=np.int64),
            "b_floors": np.array(self.building_floors, dtype=np.int64),
            "corner": np.array(self.corner_district, dtype=np.int64),
            "veh_home": np.array(self.vehicle_home, dtype=np.int64),
        }


def _field_error(name: str, value, allowed: str) -> RulesError:
    return RulesError(f"{name}: {value!r}; allowed: {allowed}")


def _validate(r: RampageRules) -> None:
    if r.escape_face not in _FACES:
        raise _field_error("escape_face", r.escape_face, "A, B")
    for name, (lo, hi) in _INT_RANGES.items():
        v = getattr(r, name)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise _field_error(name, v, f"an integer in {lo}..{hi}")
    for name in SKILL_PAIRS:
        v = getattr(r, name)
        if (len(v) != 2 or any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in v)
                or not all(0.0 <= x <= 1.0 for x in v)):
            raise _field_error(name, list(v), "a pair [at skill 0, at skill 1] of probabilities in 0..1")
    if r.edible not in ("free", "street"):
        raise _field_error("edible", r.edible, "free, street")
    if not isinstance(r.fallen_obstacles, bool):
        raise _field_error("fallen_obstacles", r.fallen_obstacles, "true, false")
    for name in ("default_skill", "far_factor", "obstacle_pass"):
        v = getattr(r, name)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
            raise _field_error(name, v, "a number in 0..1")
    if any(isinstance(x, bool) or not isinstance(x, (int, float)) or not 0.0 <= x <= 1.0 for x in r.skills):
        raise _field_error("skills", list(r.skills), "a list of numbers in 0..1, one per seat")
    if len(r.seat_teeth) != 4 or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 8 for x in r.seat_teeth):
        raise _field_error("seat_teeth", list(r.seat_teeth), "four integers in 0..8 (extra teeth of seats 1 to 4)")
    nd = r.districts

    def check_districts(name, values, min_len=1):
        if len(values) < min_len or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < nd for x in values):
            raise _field_error(name, list(values), f"a list of district indices in 0..{nd - 1}")

    if len(r.adjacency) != nd:
        raise _field_error("adjacency", list(r.adjacency), f"one list of neighbours per district ({nd})")
    for d, row in enumerate(r.adjacency):
        check_districts(f"adjacency[{d}]", row)
    check_districts("building_district", r.building_district)
    check_districts("corner_district", r.corner_district, 4)
    check_districts("vehicle_home", r.vehicle_home)
    if len(r.corner_district) != 4:
        raise _field_error("corner_district", list(r.corner_district), "four district indices (one per corner)")
    if len(r.building_floors) != len(r.building_district) or any(
            isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 6 for x in r.building_floors):
        raise _field_error("building_floors", list(r.building_floors),
                           "one floor count in 1..6 per building of building_district")
    if r.stadium_district >= nd:
        raise _field_error("stadium_district", r.stadium_district, f"0..{nd - 1}")
    if r.end_buildings > len(r.building_floors):
        raise _field_error("end_buildings", r.end_buildings, f"0..{len(r.building_floors)} (0 = all)")
    used = sum(r.meeples_per_level * f + r.roof_meeples for f in r.building_floors)
    if used > 6 * r.meeples_per_colour:
        raise _field_error("meeples_per_colour", r.meeples_per_colour,
                           f"at least {-(-used // 6)} (the buildings hold {used} meeples)")


def _tupled(value):
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value


def defaults() -> dict:
    """The default rules as a plain dict (from the packaged ``data/defaults.toml``)."""
    return defaults_table(__package__)


def _default_table() -> dict:
    """The defaults, for the shape and key order of :meth:`RampageRules.to_table`."""
    return defaults_table(__package__)


def load_rules(rules_file: str | Path | None = None, overrides: dict | None = None) -> RampageRules:
    """Defaults, then the keys of ``rules_file``, then ``overrides`` (flat keys, :func:`~..base.merge_flat`); validated."""
    known = {f.name for f in fields(RampageRules)}
    values = merged_table(__package__, rules_file, overrides, merge=lambda v, layer: merge_flat(v, [layer], known))
    return RampageRules(**{k: _tupled(v) for k, v in values.items()})
