"""The rules object of Fire Mountain: defaults (``data/defaults.toml``) + a TOML file + overrides."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import RulesError
from ..base import table_digest
from ..tables import merged_table

# Layout of the engine's scalar parameter vector (filled by FireMountainRules.kernel_params).
P_SPACES, P_TARGET, P_DICE, P_ROLLS, P_CROMAGNONS, P_SLOTS, P_MAX_TURNS, P_COPIES, \
    P_STEGO_VOLCANO, P_TRICE_GUARD, P_FREE_ORDER, P_END_ROUND, P_REPLAY_ORDERS, N_PARAMS = range(14)
# P_REPLAY_ORDERS is no rule: 1 plays free_order the plain way (every order tried, the best one
# replayed), the reference the tests compare the quick way with; the rules leave it 0.

#: Terrain codes (kernel): index = code.
TERRAINS = ("volcano", "prairie", "jungle", "hut", "cave", "lagoon")
VOLCANO, PRAIRIE, JUNGLE, HUT, CAVE, LAGOON = range(6)
_LETTERS = {"V": VOLCANO, "P": PRAIRIE, "J": JUNGLE, "H": HUT, "C": CAVE, "L": LAGOON}
_LETTER_OF = {code: letter for letter, code in _LETTERS.items()}

#: Die face codes (kernel).
FACES = ("volcano", "hut", "cave", "footprint", "egg")
F_VOLCANO, F_HUT, F_CAVE, F_FOOT, F_EGG = range(5)

#: Species codes (kernel).
SPECIES = ("tyrannosaurus", "triceratops", "pteranodon", "brontosaurus", "stegosaurus", "plesiosaurus")
TREX, TRICE, PTERA, BRONTO, STEGO, PLESIO = range(6)

MIN_PLAYERS, MAX_PLAYERS = 2, 4
_SCALARS = {"dice": (1, 10), "rolls": (1, 10), "cro_magnons": (1, 50), "dino_slots": (0, 8),
            "max_turns": (1, 100_000)}
_FLAGS = ("stegosaurus_on_volcano", "triceratops_guards", "free_order")
_ENDS = ("eruption", "round")
_TOP = ("layout", "volcano_spaces", "score_target", "faces", "species", *_SCALARS, *_FLAGS, "end")


def _merge(base: dict, over: dict, where: str = "") -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if key not in base:
            allowed = ", ".join(base) if base else "(none)"
            raise RulesError(f"{where}{key}: unknown key; allowed: {allowed}")
        if isinstance(base[key], dict) and key != "cost":
            if not isinstance(value, dict):
                raise RulesError(f"{where}{key}: expected a table; allowed: keys {', '.join(base[key])}")
            out[key] = _merge(base[key], value, f"{where}{key}.")
        elif key == "cost":
            if not isinstance(value, dict):
                raise RulesError(f"{where}cost: expected a table; allowed: {', '.join(SPECIES)}")
            for name in value:
                if name not in SPECIES:
                    raise RulesError(f"{where}cost.{name}: unknown species; allowed: {', '.join(SPECIES)}")
            out[key] = {**base[key], **value}
        else:
            out[key] = value
    return out


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RulesError(f"{field}: {value!r}; allowed: an integer {lo}..{hi}")
    return value


def _per_players(value: Any, field: str, lo: int, hi: int) -> tuple[int, ...]:
    n = MAX_PLAYERS - MIN_PLAYERS + 1
    if not isinstance(value, list) or len(value) != n:
        raise RulesError(f"{field}: {value!r}; allowed: a list of {n} integers (for 2..4 players)")
    return tuple(_int(v, f"{field}[{i}]", lo, hi) for i, v in enumerate(value))


@dataclass(frozen=True)
class FireMountainRules:
    """Every rule a designer can change; immutable and validated (see ``data/defaults.toml``)."""

    layout: tuple[int, ...]          # 16 terrain codes, row-major 4x4
    volcano_spaces: tuple[int, ...]  # by players 2..4
    score_target: tuple[int, ...]    # by players 2..4
    dice: int
    rolls: int
    cro_magnons: int
    dino_slots: int
    max_turns: int
    faces: tuple[int, ...]           # face code of each face of the die
    species: tuple[int, ...]         # species codes in play
    copies: int                      # copies of each species in the supply
    cost: tuple[int, ...]            # hatching cost, indexed by species code (all six)
    stegosaurus_on_volcano: bool = True
    triceratops_guards: bool = False
    free_order: bool = True
    end: str = "eruption"

    @classmethod
    def from_dict(cls, d: dict) -> "FireMountainRules":
        layout = d["layout"]
        if (not isinstance(layout, list) or len(layout) != 4
                or any(not isinstance(r, str) or len(r) != 4 for r in layout)):
            raise RulesError(f"layout: {layout!r}; allowed: four strings of four letters of VPJHCL")
        cells = []
        for row in layout:
            for ch in row.upper():
                if ch not in _LETTERS:
                    raise RulesError(f"layout: letter {ch!r}; allowed: V, P, J, H, C, L")
                cells.append(_LETTERS[ch])
        for code, letter in ((VOLCANO, "V"), (HUT, "H"), (CAVE, "C")):
            if cells.count(code) != 1:
                raise RulesError(f"layout: {cells.count(code)} tiles {letter}; allowed: exactly one {letter}")
        faces_tab = d["faces"]
        faces: list[int] = []
        for i, name in enumerate(FACES):
            faces += [i] * _int(faces_tab.get(name, 0), f"faces.{name}", 0, 12)
        if not 1 <= len(faces) <= 20 or F_VOLCANO not in faces:
            raise RulesError(f"faces: {len(faces)} faces; allowed: 1..20 faces, at least one volcano")
        sp = d["species"]
        names = sp["names"]
        if not isinstance(names, list) or not names or len(set(names)) != len(names):
            raise RulesError(f"species.names: {names!r}; allowed: distinct names among {', '.join(SPECIES)}")
        for n in names:
            if n not in SPECIES:
                raise RulesError(f"species.names: {n!r}; allowed: {', '.join(SPECIES)}")
        cost = tuple(_int(sp["cost"][s], f"species.cost.{s}", 1, 20) for s in SPECIES)
        for k in _FLAGS:
            if not isinstance(d[k], bool):
                raise RulesError(f"{k}: {d[k]!r}; allowed: true, false")
        if d["end"] not in _ENDS:
            raise RulesError(f"end: {d['end']!r}; allowed: {', '.join(_ENDS)}")
        return cls(
            **{k: d[k] for k in _FLAGS}, end=d["end"],
            layout=tuple(cells),
            volcano_spaces=_per_players(d["volcano_spaces"], "volcano_spaces", 1, 10),
            score_target=_per_players(d["score_target"], "score_target", 1, 500),
            faces=tuple(faces),
            species=tuple(SPECIES.index(n) for n in names),
            copies=_int(sp["copies"], "species.copies", 1, 8),
            cost=cost,
            **{k: _int(d[k], k, lo, hi) for k, (lo, hi) in _SCALARS.items()},
        )

    def to_table(self) -> dict:
        """The designer's table (the inverse of :meth:`from_dict`): every key of
        ``data/defaults.toml`` in its order and shape (the layout as four rows of letters, the
        faces as counts, species and costs by name); ``load_rules(None, table)`` (or a TOML file
        of it) rebuilds equal rules."""
        letters = "".join(_LETTER_OF[c] for c in self.layout)
        return {
            "layout": [letters[i:i + 4] for i in range(0, len(letters), 4)],
            "volcano_spaces": list(self.volcano_spaces),
            "score_target": list(self.score_target),
            **{k: getattr(self, k) for k in ("dice", "rolls", "cro_magnons", "dino_slots")},
            **{k: getattr(self, k) for k in _FLAGS},
            "end": self.end,
            "max_turns": self.max_turns,
            "faces": {name: self.faces.count(i) for i, name in enumerate(FACES)},
            "species": {"names": [SPECIES[c] for c in self.species], "copies": self.copies,
                        "cost": dict(zip(SPECIES, self.cost))},
        }

    def digest(self) -> str:
        """A short hash of :meth:`to_table` (the result files' ``rules``, the manifests' ``rules_hash``)."""
        return table_digest(self.to_table())

    def kernel_params(self, players: int) -> np.ndarray:
        """Scalar parameters for ``players`` players (int64[N_PARAMS], see P_* above)."""
        p = np.zeros(N_PARAMS, np.int64)
        i = players - MIN_PLAYERS
        p[P_SPACES], p[P_TARGET] = self.volcano_spaces[i], self.score_target[i]
        p[P_DICE], p[P_ROLLS], p[P_CROMAGNONS] = self.dice, self.rolls, self.cro_magnons
        p[P_SLOTS], p[P_MAX_TURNS], p[P_COPIES] = self.dino_slots, self.max_turns, self.copies
        p[P_STEGO_VOLCANO] = int(self.stegosaurus_on_volcano)
        p[P_TRICE_GUARD] = int(self.triceratops_guards)
        p[P_FREE_ORDER] = int(self.free_order)
        p[P_END_ROUND] = int(self.end == "round")
        return p


def load_rules(rules_file: str | None = None, overrides: dict | None = None) -> FireMountainRules:
    """Build the rules from the defaults, an optional TOML file and a dict of overrides."""
    return FireMountainRules.from_dict(merged_table(__package__, rules_file, overrides, merge=_merge))
