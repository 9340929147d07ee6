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
from .keys import BY_GUIDE_KEYS, KEYS, SCALAR_KEYS, SEAT_KEYS

MODES: tuple[str, ...] = ("8d8", "7d8", "10d8", "10d6")
COMBO_EFFECTS: tuple[str, ...] = ("none", "regenerate", "swap", "choice")
EFFECT_NONE, EFFECT_REGENERATE, EFFECT_SWAP, EFFECT_CHOICE = range(4)

# Layout of the kernel's integer parameter vector.
P_ROLLS, P_POND, P_ANXIETY, P_DOUBLING, P_POWERS, P_FINISH, P_EXACT, P_SINGLE_USE, \
    P_MAX_ROUNDS, P_PLAYERS, P_POWERS_OFF, P_HERON_DOUBLING, P_BULL_BONUS, P_SNAKE_ADVANCE, \
    P_SNAKE_MAX_CANCEL, N_PARAMS = range(16)
#: P_HERON_DOUBLING packs heron_doubling_herons + HERON_SET_SHIFT * heron_doubling_min_set.
HERON_SET_SHIFT = 32

#: The scalar keys' validation, from the table of rules keys (heron_sim.rules.keys):
#: ``{name: (type, min, max)}``.
_SCALARS = {k.name: (k.python_type, k.lo, k.hi) for k in SCALAR_KEYS}
#: By-seat lists (seat 0 first; seats past the end of a list get 0, entries for seats that are
#: not at the table are ignored, so one list serves every player count).
_SEAT_LISTS = tuple(k.name for k in SEAT_KEYS)
MAX_EXTRA_ROLLS = 10
#: Player counts a ``[seats.N]`` table may name (the rules' ``players`` range).
SEAT_COUNTS = range(2, 8)
#: Keys added after the first release of the rules file: left out of :meth:`Rules.digest` while
#: they hold their default, so the digest of every rule set that existed before is unchanged.
_LATER_KEYS = {
    **{k.name: (list(k.default) if k.kind == "seats" else k.default) for k in KEYS.values() if k.later},
    "seats": {},
    "guide": {},
}
_TOP_KEYS = ("mode", *_SCALARS, "disabled_powers", *_SEAT_LISTS, "seats", "guide", "combinations", "dice", "board")


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


_EXAMPLE_KEY = {"dice": "count=9", "combinations": "advance=[0,0,0,1,2,5,7,9,10]",
                "board": "file=my-board.toml", "seats": "5.start_squares=[0,1,1,2,2]",
                "guide": "heron.anxiety_threshold=4"}


def mode_dice(mode: str) -> tuple[tuple[int, ...], ...]:
    """The dice of a standard mode (``8d8``: eight D8; ``10d6``: the ten historic D6)."""
    if mode == "10d6":
        return _dice.historic_d6()
    return (_dice.d8(),) * int(mode.split("d")[0])


def dice_label(dice) -> str:
    """What the dice are: ``<n>d8`` for n D8, ``10d6`` for the historic D6, else
    ``<n>d<k>*``: n dice of another composition with k animal faces each (``<lo>-<hi>`` when
    the dice differ in size), e.g. ``2d1-3*`` for a 3-face and a 1-face die."""
    if dice and all(tuple(d) == _dice.d8() for d in dice):
        return f"{len(dice)}d8"
    if dice and tuple(tuple(d) for d in dice) == _dice.historic_d6():
        return "10d6"
    sizes = [len(d) for d in dice or ()]
    if not sizes:
        return "0d0*"
    k = str(sizes[0]) if min(sizes) == max(sizes) else f"{min(sizes)}-{max(sizes)}"
    return f"{len(sizes)}d{k}*"


def _default_squares(finish: int) -> tuple[tuple[int, int], ...]:
    return _resolve_board({}, finish, Path("."))


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
    pond_pushback_per_heron: int = 1
    pond_pushback_flat: int = 0
    pond_pushback_max: int = 0
    consolation_anxiety: int = 0
    consolation_no_set: int = 0
    bull_min_set: int = 3
    eagle_draws: int = 2
    patience_cost: int = 1
    heron_patience_doubling: bool = False
    start_squares: tuple[int, ...] = ()
    first_turn_extra_rolls: tuple[int, ...] = ()
    #: By-seat lists for one player count (``[seats.5] start_squares = [...]``): sorted
    #: ``(players, key, values)``; at that count they replace the list of every count.
    seats: tuple[tuple[int, str, tuple[int, ...]], ...] = ()
    #: Rules by guide (``[guide.heron] anxiety_threshold = 4``): sorted ``(guide, key, value)``;
    #: for the turns of the player who holds that guide at the start of the turn, the key takes
    #: this value (keys: heron_sim.rules.keys.BY_GUIDE_KEYS).
    guides: tuple[tuple[int, str, Any], ...] = ()
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
        for key in ("dice", "combinations", "board", "seats", "guide"):
            if not isinstance(table.get(key, {}) or {}, dict):
                raise RulesError(f"{key}: {table[key]!r} is not a table; allowed: a [{key}] table "
                                 f"(e.g. --set {key}.{_EXAMPLE_KEY[key]})")
        dice_table = table.get("dice", {}) or {}
        custom = any(k in dice_table for k in ("faces", "file")) or (
            "count" in dice_table and table.get("mode", "8d8") in MODES)
        mode = table.get("mode", "8d8")
        if not isinstance(mode, str) or (mode not in MODES and not custom):
            raise RulesError(f"mode: {mode!r} is not a mode; allowed: {', '.join(MODES)}")
        scalars = {name: _check_scalar(name, table[name]) for name in _SCALARS if name in table}
        finish = scalars.get("finish", 63)
        dice = _resolve_dice(mode if mode in MODES else "8d8", dice_table, base_dir)
        if custom:
            mode = dice_label(dice)  # labelled by what the dice are, not by the mode asked
        advance, effect = _resolve_combinations(table.get("combinations", {}) or {}, len(dice))
        squares = _resolve_board(table.get("board", {}) or {}, finish, base_dir)
        disabled = _resolve_disabled_powers(table.get("disabled_powers", []))
        lists = {name: _resolve_seat_list(name, table[name], finish) for name in _SEAT_LISTS if name in table}
        seats = _resolve_seats(table.get("seats", {}) or {}, finish)
        guides = _resolve_guides(table.get("guide", {}) or {})
        seats, guides = _without_restatements(cls, seats, guides, scalars, lists)
        return cls(mode=mode, dice=dice, combo_advance=advance, combo_effect=effect,
                   squares=squares, disabled_powers=disabled, seats=seats, guides=guides, **scalars, **lists)

    def replace(self, **changes) -> "Rules":
        """A copy with some fields changed, validated again.

        What depends on a changed field is rebuilt: a new ``mode`` brings its dice (unless
        ``dice`` is given too; refused if these rules' dice are not their mode's own), new dice
        relabel the mode and resize the combination tables, a new ``finish`` drops the default
        board's squares past it. Unknown fields are refused.
        """
        fields = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - fields)
        if unknown:
            raise RulesError(f"{unknown[0]}: not a field of Rules; allowed: {', '.join(sorted(fields))}")
        if "mode" in changes and "dice" not in changes and changes["mode"] != self.mode:
            if self.mode not in MODES or self.dice != mode_dice(self.mode):
                raise RulesError(f"mode: these rules' dice are not those of mode {self.mode!r}; "
                                 "give dice= with the new mode")
            changes["dice"] = None
        if "dice" in changes and changes["dice"] is not None and "mode" not in changes:
            changes["mode"] = dice_label(tuple(tuple(d) for d in changes["dice"]))
        if "finish" in changes and "squares" not in changes and self.squares == _default_squares(self.finish):
            changes["squares"] = None
        new = dataclasses.replace(self, **changes)
        return new

    def validate(self) -> None:
        """Check every field's type and range (the constructor calls it)."""
        if not isinstance(self.mode, str) or (self.mode not in MODES and self.mode != dice_label(self.dice)):
            raise RulesError(f"mode: {self.mode!r} is not a mode; allowed: {', '.join(MODES)}")
        for name in _SCALARS:
            _check_scalar(name, getattr(self, name))
        if not self.dice or len(self.dice) > 16:
            raise RulesError(f"dice: {len(self.dice or ())} dice; allowed: 1..16")
        for i, die in enumerate(self.dice):
            if not die or any(isinstance(f, bool) or not isinstance(f, (int, np.integer)) or not 0 <= f < 7
                              for f in die):
                raise RulesError(f"dice[{i}]: {die!r}; allowed: a non-empty tuple of animal indices 0..6")
        n = len(self.dice) + 1
        for name, values, hi in (("combo_advance", self.combo_advance, None),
                                 ("combo_effect", self.combo_effect, len(COMBO_EFFECTS) - 1)):
            if len(values) != n or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0
                                       or (hi is not None and v > hi) for v in values):
                what = f"integers 0..{hi}" if hi is not None else "integers >= 0"
                raise RulesError(f"{name}: {values!r}; allowed: {n} {what} (one per set size 0..{n - 1})")
        for item in self.squares:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise RulesError(f"squares: {item!r}; allowed: (square, effect code) pairs")
            square, code = item
            if isinstance(square, bool) or not isinstance(square, (int, np.integer)) or not 1 <= square <= self.finish - 1:
                raise RulesError(f"board.squares: square {square!r} is out of range; allowed: 1..{self.finish - 1}")
            if isinstance(code, bool) or not isinstance(code, (int, np.integer)) or not 0 <= code < len(_board.EFFECT_NAMES):
                raise RulesError(f"board.squares.{square}: effect code {code!r}; allowed: 0..{len(_board.EFFECT_NAMES) - 1}")
        if len({s for s, _ in self.squares}) != len(self.squares):
            raise RulesError("board.squares: a square is listed twice")
        for name in _SEAT_LISTS:
            _resolve_seat_list(name, list(getattr(self, name)), self.finish)
        if not isinstance(self.seats, tuple) or not all(isinstance(x, tuple) and len(x) == 3 for x in self.seats):
            raise RulesError(f"seats: {self.seats!r}; allowed: (players, key, values) triples")
        _resolve_seats({str(n): {k: list(v)} for n, k, v in self.seats}, self.finish)
        if len({(n, k) for n, k, _ in self.seats}) != len(self.seats):
            raise RulesError("seats: a player count's key is given twice")
        if not isinstance(self.guides, tuple) or not all(isinstance(x, tuple) and len(x) == 3 for x in self.guides):
            raise RulesError(f"guide: {self.guides!r}; allowed: (guide, key, value) triples")
        if len({(g, k) for g, k, _ in self.guides}) != len(self.guides):
            raise RulesError("guide: a guide's key is given twice")
        for g, k, v in self.guides:
            if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or not 0 <= g < 7:
                raise RulesError(f"guide: {g!r}; allowed: animal indices 0..6")
            _resolve_guides({ANIMAL_NAMES[g]: {k: v}})
        for g in self.disabled_powers:
            if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or not 0 <= g < 7:
                raise RulesError(f"disabled_powers: {g!r}; allowed: animal indices 0..6")

    def __post_init__(self):
        if not isinstance(self.mode, str):
            raise RulesError(f"mode: {self.mode!r} is not a mode; allowed: {', '.join(MODES)}")
        if self.dice is None:
            if self.mode not in MODES:
                raise RulesError(f"mode: {self.mode!r} is not a mode; allowed: {', '.join(MODES)}")
            object.__setattr__(self, "dice", mode_dice(self.mode))
        elif not isinstance(self.dice, (tuple, list)) or not all(isinstance(d, (tuple, list)) for d in self.dice):
            raise RulesError(f"dice: {self.dice!r}; allowed: a tuple of dice, each a tuple of animal indices")
        else:
            object.__setattr__(self, "dice", tuple(tuple(d) for d in self.dice))
            if self.mode not in MODES or self.dice != mode_dice(self.mode):
                object.__setattr__(self, "mode", dice_label(self.dice))  # named by what they are
        if isinstance(self.finish, int) and not isinstance(self.finish, bool) and self.squares is None:
            object.__setattr__(self, "squares", _default_squares(self.finish))
        elif self.squares is None:
            object.__setattr__(self, "squares", ())
        if isinstance(self.seats, (tuple, list)):
            object.__setattr__(self, "seats", tuple(sorted(
                (n, k, tuple(v)) if isinstance(v, (tuple, list)) else (n, k, v) for n, k, v in self.seats)))
        if isinstance(self.guides, (tuple, list)):
            object.__setattr__(self, "guides", tuple(sorted(tuple(x) for x in self.guides)))
        for name in ("combo_advance", "combo_effect", "squares", "disabled_powers", *_SEAT_LISTS):
            value = getattr(self, name)
            if not isinstance(value, (tuple, list)):
                raise RulesError(f"{name}: {value!r}; allowed: a tuple")
            object.__setattr__(self, name, tuple(tuple(v) if isinstance(v, list) else v for v in value))
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

    def seat_list(self, name: str, players: int | None = None) -> tuple[int, ...]:
        """The by-seat list ``name`` in force at ``players`` players (default: these rules'):
        the ``[seats.N]`` list for that count if there is one, else the list of every count."""
        n = self.players if players is None else players
        for count, key, values in self.seats:
            if count == n and key == name:
                return tuple(values)
        return tuple(getattr(self, name))

    def seat_values(self, name: str) -> tuple[int, ...]:
        """A by-seat list key (``start_squares``, ``first_turn_extra_rolls``) for the seats at the
        table: ``players`` values, 0 past the end of the list (the ``[seats.N]`` list for this
        player count where there is one)."""
        values = self.seat_list(name)[: self.players]
        return values + (0,) * (self.players - len(values))

    def seats_note(self) -> str | None:
        """One line when ``[seats.N]`` tables are set but none for this player count (the list of
        every count applies then, which a designer may not expect), else None."""
        counts = sorted({n for n, _, _ in self.seats})
        if not counts or self.players in counts:
            return None
        named = ", ".join(f"[seats.{n}]" for n in counts)
        return (f"seats: {named} set, but this table has {self.players} players: no [seats.{self.players}] "
                "table, so the by-seat lists of every count apply")

    def guide_rules(self, guide: int) -> "Rules":
        """The rules of a turn of the player who holds ``guide`` (animal index): these rules with
        that guide's ``[guide.NAME]`` keys applied, and no rules by guide left."""
        own = {k: v for g, k, v in self.guides if g == guide}
        return dataclasses.replace(self, guides=(), **own) if (own or self.guides) else self

    def turn_rows(self) -> tuple[tuple["Rules", ...], tuple[int, ...]]:
        """The distinct rules of a turn that a strategy's tables depend on, and which one each
        guide's holder plays: ``(sets, set_of_guide)``. ``sets[0]`` is these rules without rules
        by guide; a guide whose keys change only what no single turn's tables read (the Pond's
        push-back: ``turn_free`` keys) shares its set. Without rules by guide: ``((self,), (0,) * 7)``."""
        if not self.guides:
            return (self,), (0,) * 7
        base = self.guide_rules(-1)
        tabled = [k for k in BY_GUIDE_KEYS if not KEYS[k].turn_free]
        sets, keys, of = [base], [tuple(getattr(base, k) for k in tabled)], []
        for g in range(7):
            row = self.guide_rules(g)
            key = tuple(getattr(row, k) for k in tabled)
            if key not in keys:
                keys.append(key)
                sets.append(row)
            of.append(keys.index(key))
        return tuple(sets), tuple(of)

    def pond_pushback(self, herons: int) -> int:
        """Squares each opponent moves back after a Pond of ``herons`` herons (rulings §3: H;
        variants: per heron, flat, cap)."""
        back = self.pond_pushback_per_heron * herons + self.pond_pushback_flat
        return min(back, self.pond_pushback_max) if self.pond_pushback_max > 0 else back

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
            **{name: list(getattr(self, name)) for name in _SEAT_LISTS},
            "seats": {str(n): {k: list(v) for m, k, v in self.seats if m == n}
                      for n in sorted({n for n, _, _ in self.seats})},
            "guide": {ANIMAL_NAMES[g]: {k: v for h, k, v in self.guides if h == g}
                      for g in sorted({g for g, _, _ in self.guides})},
            "combinations": {
                "advance": list(self.combo_advance),
                "effect": [COMBO_EFFECTS[c] for c in self.combo_effect],
            },
            "dice": {"faces": [[ANIMAL_NAMES[a] for a in die] for die in self.dice]},
            "board": {"squares": {str(s): _board.EFFECT_NAMES[c] for s, c in self.squares}},
        }

    def digest(self) -> str:
        """A short hash that identifies these rules (for reports and result files)."""
        table = {k: v for k, v in self.to_table().items()
                 if not (k in _LATER_KEYS and v == _LATER_KEYS[k])}
        blob = json.dumps(table, sort_keys=True, ensure_ascii=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    def behaviour(self) -> "Rules":
        """These rules with every key that cannot change a game reset (``Key.inert_while``:
        ``heron_doubling_min_set`` while ``heron_doubling_herons = 0``): the same games, seed for
        seed, whatever the strategies. A key of the game's rules is reset where no turn reads it
        (the game's rules and every guide's holder's rules have the key that switches it off); a
        ``[guide.NAME]`` value where that guide's holder's rules switch it off. Two rules with
        the same ``behaviour().digest()`` play bit-identical games (the lab plays only one of
        them: heron_sim.lab.evaluate)."""
        inert = [k for k in KEYS.values() if k.inert_while is not None]
        if not inert:
            return self
        rows = [self] + [self.guide_rules(g) for g in sorted({g for g, _, _ in self.guides})]
        top = {k.name: k.default for k in inert
               if getattr(self, k.name) != k.default
               and all(getattr(r, k.inert_while[0]) == k.inert_while[1] for r in rows)}
        guides = tuple((g, key, v) for g, key, v in self.guides
                       if not (KEYS[key].inert_while is not None
                               and getattr(self.guide_rules(g), KEYS[key].inert_while[0]) == KEYS[key].inert_while[1]))
        if not top and guides == self.guides:
            return self
        return dataclasses.replace(self, guides=guides, **top)


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
        if key in ("dice", "board", "combinations") and prefix == "" and not isinstance(value, dict):
            raise RulesError(f"{name}: {value!r} is not a table; allowed: a [{key}] table "
                             f"(e.g. --set {key}.{_EXAMPLE_KEY[key]})")
        if key in ("dice", "board") and prefix == "":
            # A composition given one way replaces the defaults' other ways.
            base[key] = dict(value)
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value, f"{name}.")
        else:
            base[key] = value


def _resolve_seat_list(name: str, values, finish: int) -> tuple[int, ...]:
    """A by-seat list key: at most 7 integers (seat 0 first)."""
    hi = finish - 1 if name == "start_squares" else MAX_EXTRA_ROLLS
    allowed = f"a list of at most 7 integers 0..{hi} by seat (seat 0 first), e.g. [0, 0, 1, 1]"
    if not isinstance(values, (list, tuple)) or len(values) > 7:
        raise RulesError(f"{name}: {values!r}; allowed: {allowed}")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v <= hi:
            raise RulesError(f"{name}[{i}]: {v!r} is out of range; allowed: {allowed}")
    return tuple(int(v) for v in values)


def _resolve_seats(table: dict, finish: int) -> tuple[tuple[int, str, tuple[int, ...]], ...]:
    """``[seats.N]`` tables: by-seat lists (``start_squares``, ``first_turn_extra_rolls``) for the
    games played at N players (2..7)."""
    out = []
    counts = ", ".join(str(n) for n in SEAT_COUNTS)
    for count, sub in table.items():
        if not (isinstance(count, str) and count.isdigit() and int(count) in SEAT_COUNTS):
            raise RulesError(f"seats.{count}: not a player count; allowed: [seats.N] with N in {counts}")
        if not isinstance(sub, dict):
            raise RulesError(f"seats.{count}: {sub!r} is not a table; allowed: a [seats.{count}] table "
                             f"of {', '.join(_SEAT_LISTS)}")
        for key, values in sub.items():
            if key not in _SEAT_LISTS:
                raise RulesError(f"seats.{count}.{key}: unknown key; allowed: {', '.join(_SEAT_LISTS)}")
            try:
                resolved = _resolve_seat_list(key, values, finish)
            except RulesError as err:
                raise RulesError(f"seats.{count}.{err}") from None
            if len(resolved) > int(count):
                raise RulesError(f"seats.{count}.{key}: {len(resolved)} entries for {count} players; "
                                 f"allowed: at most {count}")
            out.append((int(count), key, resolved))
    return tuple(sorted(out))


def _resolve_guides(table: dict) -> tuple[tuple[int, str, Any], ...]:
    """``[guide.NAME]`` tables: keys of a player's own turn (BY_GUIDE_KEYS) for the holder of
    guide NAME (French or English name)."""
    from ..animals import animal_index
    from ..errors import HeronSimError

    out = []
    keys = ", ".join(BY_GUIDE_KEYS)
    for name, sub in table.items():
        try:
            g = animal_index(name, f"guide.{name}") if isinstance(name, str) else animal_index("?", f"guide.{name}")
        except HeronSimError as err:
            raise RulesError(f"{err}; as in [guide.heron]") from None
        if not isinstance(sub, dict):
            raise RulesError(f"guide.{name}: {sub!r} is not a table; allowed: a [guide.{name}] table of {keys}")
        for key, value in sub.items():
            if key not in BY_GUIDE_KEYS:
                why = "not a rule of the player's own turn" if key in _TOP_KEYS else "unknown key"
                raise RulesError(f"guide.{name}.{key}: {why}; allowed: {keys}")
            try:
                out.append((g, key, _check_scalar(key, value)))
            except RulesError as err:
                raise RulesError(f"guide.{name}.{err}") from None
    if len({(g, k) for g, k, _ in out}) != len(out):
        raise RulesError("guide: a guide's key is given twice (under its French and English names)")
    return tuple(sorted(out))


def _without_restatements(cls, seats, guides, scalars, lists):
    """Drop a ``[seats.N]`` list that gives the N seats what the list of every count gives them,
    and a ``[guide.NAME]`` rule equal to every player's: the same game, so the same rules (the
    same digest, no rule changed on a sheet; the lab's per-count and per-guide levers then have a
    value that is no change)."""
    fields = cls.__dataclass_fields__

    def every(name):
        if name in lists:
            return lists[name]
        if name in scalars:
            return scalars[name]
        f = fields[name]
        return f.default if f.default_factory is dataclasses.MISSING else f.default_factory()

    def at(values, n):
        values = tuple(values)[:n]
        return values + (0,) * (n - len(values))

    seats = tuple(s for s in seats if at(s[2], s[0]) != at(every(s[1]), s[0]))
    guides = tuple(g for g in guides if g[2] != every(g[1]))
    return seats, guides


def _resolve_disabled_powers(names) -> tuple[int, ...]:
    from ..animals import animal_index
    from ..errors import HeronSimError

    if not isinstance(names, list):
        raise RulesError(f"disabled_powers: {names!r}; allowed: a list of guide names ({', '.join(ANIMAL_NAMES)})")
    out = []
    for i, name in enumerate(names):
        if not isinstance(name, str):
            # An index (1) would silently be read as a guide (the Taureau): names only.
            raise RulesError(f"disabled_powers[{i}]: {name!r} is not a guide name; allowed: "
                             f"{', '.join(ANIMAL_NAMES)} (or their English names)")
        try:
            out.append(animal_index(name, f"disabled_powers[{i}]"))
        except HeronSimError as err:
            raise RulesError(str(err)) from None
    return tuple(sorted(set(out)))


def _file_path(value, field: str, base_dir: Path) -> Path:
    if not isinstance(value, str) or not value:
        raise RulesError(f"{field}: {value!r}; allowed: a file name (a string)")
    path = Path(value)
    return path if path.is_absolute() else base_dir / path


def _resolve_dice(mode: str, table: dict, base_dir: Path) -> tuple[tuple[int, ...], ...]:
    allowed = ("count", "file", "faces")
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise RulesError(f"dice.{unknown[0]}: unknown key; allowed: {', '.join(allowed)}")
    if "faces" in table:
        dice = _dice.parse_dice(table["faces"], "dice.faces")
    elif "file" in table:
        path = _file_path(table["file"], "dice.file", base_dir)
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
        if not isinstance(name, str) or name not in COMBO_EFFECTS:
            raise RulesError(f"combinations.effect[{i}]: {name!r}; allowed: {', '.join(COMBO_EFFECTS)}")
        codes.append(COMBO_EFFECTS.index(name))
    n = n_dice + 1
    for key, values in (("advance", advance), ("effect", effect)):
        if len(values) > n and values != defaults[key]:
            raise RulesError(f"combinations.{key}: {len(values)} entries but {n_dice} dice make sets "
                             f"of size 0..{n_dice}; allowed: at most {n} entries (sizes past the end "
                             "use the last value)")
    return tuple(_extend(advance, n)), tuple(_extend(codes, n))


def _is_default_board(squares) -> bool:
    """``squares`` (a {square: effect name} table) is the default board, or the default board
    cut at some finish (every square as on the default board, every default square below the
    largest one given present)."""
    if not isinstance(squares, dict) or not squares:
        return False
    try:
        given = _board.parse_squares(squares, 10**6, "board.squares")
        default = _board.parse_squares(default_board(), 10**6, "board")
    except RulesError:
        return False
    given = {s: c for s, c in given.items() if c != _board.NEUTRAL}
    default = {s: c for s, c in default.items() if c != _board.NEUTRAL}
    top = max(given, default=0)
    return all(default.get(s) == c for s, c in given.items()) and all(
        s in given for s in default if s <= top)


def _resolve_board(table: dict, finish: int, base_dir: Path) -> tuple[tuple[int, int], ...]:
    allowed = ("file", "squares")
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise RulesError(f"board.{unknown[0]}: unknown key; allowed: {', '.join(allowed)}")
    if "squares" in table:
        given = table["squares"]
        if _is_default_board(given):
            # The default board spelled out (as to_table writes it, e.g. a study's base rules)
            # loses its squares at or past a shorter finish, as the default board does.
            given = {k: v for k, v in given.items() if int(k) < finish}
        squares = _board.parse_squares(given, finish, "board.squares")
    elif "file" in table:
        path = _file_path(table["file"], "board.file", base_dir)
        data = read_toml(path, "board.file")
        squares = _board.parse_squares(data.get("squares", {}), finish, "board.file:squares")
    else:
        # The default board loses the squares at or past a shorter finish (e.g. finish = 60).
        default = {k: v for k, v in default_board().items() if int(k) < finish}
        squares = _board.parse_squares(default, finish, "board")
    return tuple(sorted((s, c) for s, c in squares.items() if c != _board.NEUTRAL))
