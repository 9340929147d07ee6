"""The rules object: every rule of the Héron dice race that a designer can change.

A :class:`Rules` is immutable and validated. Build it from the defaults
(``data/defaults.toml``), an optional TOML file and overrides::

    rules = Rules.build(mode="10d6", rules_file="variant.toml", overrides={"rolls": 4})
    arrays = rules.to_kernel()     # what the compiled engine reads
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..animals import NAMES as ANIMAL_NAMES
from ..errors import RulesError
from ..tomlfile import package_toml, read_toml
from . import board as _board
from . import dice as _dice

MODES: tuple[str, ...] = ("8d8", "7d8", "10d8", "10d6")
COMBO_EFFECTS: tuple[str, ...] = ("none", "regenerate", "swap", "choice")
EFFECT_NONE, EFFECT_REGENERATE, EFFECT_SWAP, EFFECT_CHOICE = range(4)

# Layout of the kernel's integer parameter vector.
P_ROLLS, P_POND, P_ANXIETY, P_DOUBLING, P_POWERS, P_FINISH, P_EXACT, P_SINGLE_USE, \
    P_MAX_ROUNDS, P_PLAYERS, P_POWERS_OFF, P_HERON_DOUBLING, P_BULL_BONUS, P_SNAKE_ADVANCE, \
    P_SNAKE_MAX_CANCEL, N_PARAMS = range(16)
#: P_HERON_DOUBLING packs heron_doubling_herons + HERON_SET_SHIFT * heron_doubling_min_set.
HERON_SET_SHIFT = 32

_SCALARS = {
    # name: (type, min, max)
    "players": (int, 2, 7),
    "rolls": (int, 1, 20),
    "pond_threshold": (int, 1, 99),
    "anxiety_threshold": (int, 1, 99),
    "guide_power_doubling": (bool, None, None),
    "powers": (bool, None, None),
    "finish": (int, 2, 1000),
    "exact_finish": (bool, None, None),
    "single_use_squares": (bool, None, None),
    "max_rounds": (int, 1, 1_000_000),
    # Guide variants (the lab's search keys; defaults = the rulings).
    "heron_doubling_herons": (int, 0, 16),
    "heron_doubling_min_set": (int, 0, 16),
    "bull_bonus": (int, 0, 20),
    "snake_advance": (int, 0, 20),
    "snake_max_cancel": (int, 0, 1000),
}
_TOP_KEYS = ("mode", *_SCALARS, "disabled_powers", "combinations", "dice", "board")


class KernelRules(NamedTuple):
    """The arrays the compiled engine reads (all int64)."""

    faces: np.ndarray       # [n_dice, max_faces] animal on each face (padded with -1)
    n_faces: np.ndarray     # [n_dice] number of faces of each die
    params: np.ndarray      # [N_PARAMS] scalars, indexed by the P_* constants
    combo_advance: np.ndarray  # [n_dice + 1] advance by set size
    combo_effect: np.ndarray   # [n_dice + 1] EFFECT_* code by set size
    board: np.ndarray       # [finish] square effect code (heron_sim.rules.board)


@lru_cache(maxsize=1)
def default_table() -> dict:
    """The defaults file as a dict (``heron_sim/rules/data/defaults.toml``)."""
    return package_toml("heron_sim.rules", "data/defaults.toml")


@lru_cache(maxsize=1)
def default_board() -> dict:
    return package_toml("heron_sim.rules", "data/board63.toml")["squares"]


def _check_scalar(name: str, value: Any) -> Any:
    kind, lo, hi = _SCALARS[name]
    if kind is bool:
        if not isinstance(value, bool):
            raise RulesError(f"{name}: {value!r} is not a boolean; allowed: true, false")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{name}: {value!r} is not an integer; allowed: {lo}..{hi}")
    if not lo <= value <= hi:
        raise RulesError(f"{name}: {value} is out of range; allowed: {lo}..{hi}")
    return value


def _extend(values: list, n: int) -> list:
    """Pad a by-size list to length n with its last value (sizes past the end use the last)."""
    return list(values[:n]) + [values[-1]] * max(0, n - len(values))


@dataclass(frozen=True)
class Rules:
    """Validated, immutable rules of one Héron race configuration.

    Build with :meth:`build` (defaults + TOML file + overrides) rather than directly.
    """

    mode: str = "8d8"
    players: int = 4
    dice: tuple[tuple[int, ...], ...] | None = None
    rolls: int = 3
    pond_threshold: int = 4
    anxiety_threshold: int = 3
    guide_power_doubling: bool = True
    powers: bool = True
    finish: int = 63
    exact_finish: bool = False
    single_use_squares: bool = False
    max_rounds: int = 500
    heron_doubling_herons: int = 0
    heron_doubling_min_set: int = 0
    bull_bonus: int = 2
    snake_advance: int = 1
    snake_max_cancel: int = 0
    combo_advance: tuple[int, ...] = (0, 0, 0, 1, 2, 5, 7, 9, 10)
    combo_effect: tuple[int, ...] = (0, 0, 0, 0, 0, 0, 1, 2, 3)
    squares: tuple[tuple[int, int], ...] | None = None
    disabled_powers: tuple[int, ...] = ()

    # ------------------------------------------------------------------ building
    @classmethod
    def build(
        cls,
        mode: str | None = None,
        players: int | None = None,
        rules_file: str | Path | None = None,
        overrides: dict[str, Any] | None = None,
    ) -> "Rules":
        """Defaults, then the TOML file, then ``overrides``, then ``mode``/``players``.

        Overrides use the TOML keys (``{"rolls": 4, "combinations.advance": [...]}``).
        """
        table = json.loads(json.dumps(default_table()))  # deep copy
        base_dir = Path(".")
        if rules_file is not None:
            path = Path(rules_file)
            _merge(table, read_toml(path, "--rules"), "")
            base_dir = path.parent
        for key, value in (overrides or {}).items():
            _merge(table, _nest(key, value), "")
        if mode is not None:
            table["mode"] = mode
        if players is not None:
            table["players"] = players
        return cls.from_table(table, base_dir)

    @classmethod
    def from_table(cls, table: dict, base_dir: Path = Path(".")) -> "Rules":
        """Validate a full table (the defaults file's shape) into a Rules."""
        unknown = sorted(set(table) - set(_TOP_KEYS))
        if unknown:
            raise RulesError(f"{unknown[0]}: unknown rules key; allowed: {', '.join(_TOP_KEYS)}")
        mode = table.get("mode", "8d8")
        if mode not in MODES:
            raise RulesError(f"mode: {mode!r} is not a mode; allowed: {', '.join(MODES)}")
        scalars = {name: _check_scalar(name, table[name]) for name in _SCALARS if name in table}
        finish = scalars.get("finish", 63)
        dice = _resolve_dice(mode, table.get("dice", {}) or {}, base_dir)
        advance, effect = _resolve_combinations(table.get("combinations", {}) or {}, len(dice))
        squares = _resolve_board(table.get("board", {}) or {}, finish, base_dir)
        disabled = _resolve_disabled_powers(table.get("disabled_powers", []))
        return cls(mode=mode, dice=dice, combo_advance=advance, combo_effect=effect,
                   squares=squares, disabled_powers=disabled, **scalars)

    def replace(self, **changes) -> "Rules":
        """A copy with some fields changed, validated again."""
        new = dataclasses.replace(self, **changes)
        new.validate()
        return new

    def validate(self) -> None:
        if self.mode not in MODES and self.mode != "custom":
            raise RulesError(f"mode: {self.mode!r} is not a mode; allowed: {', '.join(MODES)}")
        for name in _SCALARS:
            _check_scalar(name, getattr(self, name))
        if not self.dice:
            raise RulesError("dice: no dice")
        for square, code in self.squares:
            if not 1 <= square <= self.finish - 1:
                raise RulesError(f"board.squares: square {square} is out of range; allowed: 1..{self.finish - 1}")

    def __post_init__(self):
        if self.dice is None:
            object.__setattr__(self, "dice", _resolve_dice(self.mode, {}, Path(".")))
        if self.squares is None:
            object.__setattr__(self, "squares", _resolve_board({}, self.finish, Path(".")))
        n = len(self.dice) + 1
        object.__setattr__(self, "combo_advance", tuple(_extend(list(self.combo_advance), n)))
        object.__setattr__(self, "combo_effect", tuple(_extend(list(self.combo_effect), n)))
        self.validate()

    # ------------------------------------------------------------------ views
    @property
    def n_dice(self) -> int:
        return len(self.dice)

    def power_enabled(self, guide: int) -> bool:
        """True if the one-shot power of ``guide`` (animal index) can be used."""
        return self.powers and guide not in self.disabled_powers

    def square_effects(self) -> np.ndarray:
        """Effect code of every square 0..finish-1."""
        board = np.zeros(self.finish, dtype=np.int64)
        for square, code in self.squares:
            board[square] = code
        return board

    def to_kernel(self) -> KernelRules:
        """The arrays the compiled engine reads."""
        max_faces = max(len(d) for d in self.dice)
        faces = np.full((self.n_dice, max_faces), -1, dtype=np.int64)
        for i, die in enumerate(self.dice):
            faces[i, : len(die)] = die
        n_faces = np.array([len(d) for d in self.dice], dtype=np.int64)
        params = np.zeros(N_PARAMS, dtype=np.int64)
        params[P_ROLLS] = self.rolls
        params[P_POND] = self.pond_threshold
        params[P_ANXIETY] = self.anxiety_threshold
        params[P_DOUBLING] = int(self.guide_power_doubling)
        params[P_POWERS] = int(self.powers)
        params[P_FINISH] = self.finish
        params[P_EXACT] = int(self.exact_finish)
        params[P_SINGLE_USE] = int(self.single_use_squares)
        params[P_MAX_ROUNDS] = self.max_rounds
        params[P_PLAYERS] = self.players
        params[P_POWERS_OFF] = sum(1 << g for g in set(self.disabled_powers))
        params[P_HERON_DOUBLING] = self.heron_doubling_herons + HERON_SET_SHIFT * self.heron_doubling_min_set
        params[P_BULL_BONUS] = self.bull_bonus
        params[P_SNAKE_ADVANCE] = self.snake_advance
        params[P_SNAKE_MAX_CANCEL] = self.snake_max_cancel
        return KernelRules(
            faces=faces,
            n_faces=n_faces,
            params=params,
            combo_advance=np.array(self.combo_advance, dtype=np.int64),
            combo_effect=np.array(self.combo_effect, dtype=np.int64),
            board=self.square_effects(),
        )

    def to_table(self) -> dict:
        """A TOML-shaped dict that rebuilds these rules (names, not codes)."""
        return {
            "mode": self.mode,
            **{name: getattr(self, name) for name in _SCALARS},
            "disabled_powers": [ANIMAL_NAMES[g] for g in sorted(set(self.disabled_powers))],
            "combinations": {
                "advance": list(self.combo_advance),
                "effect": [COMBO_EFFECTS[c] for c in self.combo_effect],
            },
            "dice": {"faces": [[ANIMAL_NAMES[a] for a in die] for die in self.dice]},
            "board": {"squares": {str(s): _board.EFFECT_NAMES[c] for s, c in self.squares}},
        }

    def digest(self) -> str:
        """A short hash that identifies these rules (for reports and result files)."""
        blob = json.dumps(self.to_table(), sort_keys=True, ensure_ascii=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]


# ---------------------------------------------------------------------- helpers
def _nest(key: str, value: Any) -> dict:
    parts = key.split(".")
    out: dict = {}
    cur = out
    for part in parts[:-1]:
        cur = cur.setdefault(part, {})
    cur[parts[-1]] = value
    return out


def _merge(base: dict, extra: dict, prefix: str) -> None:
    for key, value in extra.items():
        name = f"{prefix}{key}"
        if prefix == "" and key not in _TOP_KEYS:
            raise RulesError(f"{name}: unknown rules key; allowed: {', '.join(_TOP_KEYS)}")
        if key in ("dice", "board") and prefix == "":
            if not isinstance(value, dict):
                raise RulesError(f"{name}: expected a table")
            # A composition given one way replaces the defaults' other ways.
            base[key] = dict(value)
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value, f"{name}.")
        else:
            base[key] = value


def _resolve_disabled_powers(names) -> tuple[int, ...]:
    from ..animals import animal_index
    from ..errors import HeronSimError

    if not isinstance(names, list):
        raise RulesError(f"disabled_powers: {names!r}; allowed: a list of guide names ({', '.join(ANIMAL_NAMES)})")
    out = []
    for i, name in enumerate(names):
        try:
            out.append(animal_index(name, f"disabled_powers[{i}]"))
        except HeronSimError as err:
            raise RulesError(str(err)) from None
    return tuple(sorted(set(out)))


def _resolve_dice(mode: str, table: dict, base_dir: Path) -> tuple[tuple[int, ...], ...]:
    allowed = ("count", "file", "faces")
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise RulesError(f"dice.{unknown[0]}: unknown key; allowed: {', '.join(allowed)}")
    if "faces" in table:
        dice = _dice.parse_dice(table["faces"], "dice.faces")
    elif "file" in table:
        path = Path(table["file"])
        if not path.is_absolute():
            path = base_dir / path
        dice = _dice.load_dice_file(path)
    elif mode == "10d6":
        dice = _dice.historic_d6()
    else:
        dice = (_dice.d8(),) * int(mode.split("d")[0])
    if "count" in table:
        count = table["count"]
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 16:
            raise RulesError(f"dice.count: {count!r}; allowed: an integer 1..16")
        if len(set(dice)) == 1:
            dice = (dice[0],) * count
        elif count <= len(dice):
            dice = dice[:count]
        else:
            raise RulesError(f"dice.count: {count} but the composition has {len(dice)} different dice; allowed: 1..{len(dice)}")
    return dice


def _resolve_combinations(table: dict, n_dice: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    allowed = ("advance", "effect")
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise RulesError(f"combinations.{unknown[0]}: unknown key; allowed: {', '.join(allowed)}")
    defaults = default_table()["combinations"]
    advance = table.get("advance", defaults["advance"])
    effect = table.get("effect", defaults["effect"])
    if not isinstance(advance, list) or not advance or any(
        isinstance(a, bool) or not isinstance(a, int) or a < 0 for a in advance
    ):
        raise RulesError(f"combinations.advance: {advance!r}; allowed: a non-empty list of integers >= 0 by set size")
    if not isinstance(effect, list) or not effect:
        raise RulesError(f"combinations.effect: {effect!r}; allowed: a list of {', '.join(COMBO_EFFECTS)} by set size")
    codes = []
    for i, name in enumerate(effect):
        if name not in COMBO_EFFECTS:
            raise RulesError(f"combinations.effect[{i}]: {name!r}; allowed: {', '.join(COMBO_EFFECTS)}")
        codes.append(COMBO_EFFECTS.index(name))
    n = n_dice + 1
    return tuple(_extend(advance, n)), tuple(_extend(codes, n))


def _resolve_board(table: dict, finish: int, base_dir: Path) -> tuple[tuple[int, int], ...]:
    allowed = ("file", "squares")
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise RulesError(f"board.{unknown[0]}: unknown key; allowed: {', '.join(allowed)}")
    if "squares" in table:
        squares = _board.parse_squares(table["squares"], finish, "board.squares")
    elif "file" in table:
        path = Path(table["file"])
        if not path.is_absolute():
            path = base_dir / path
        data = read_toml(path, "board.file")
        squares = _board.parse_squares(data.get("squares", {}), finish, "board.file:squares")
    else:
        # The default board loses the squares at or past a shorter finish (e.g. finish = 60).
        default = {k: v for k, v in default_board().items() if int(k) < finish}
        squares = _board.parse_squares(default, finish, "board")
    return tuple(sorted((s, c) for s, c in squares.items() if c != _board.NEUTRAL))
