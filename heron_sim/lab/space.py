"""The search space: parameters over rules keys, applied to a rules table.

A parameter names a rules key (``rolls``, ``combinations.advance[4]``, ``dice.count``), a special
square's effect (``board.square.60``: an effect name, or ``neutral``) or position
(``board.position.60``: the square whose effect the square 60 holds in the base rules moves to;
the effect that was there moves to 60 — a swap, so the board keeps its effects), and a domain:
``int = [low, high]`` (``step``), ``float = [low, high]`` (``log``) or ``choices = [...]`` (any
TOML values, e.g. whole dice compositions; ``labels`` names them in the results).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

from ..errors import HeronSimError, RulesError
from ..rules import Rules

_INDEX = re.compile(r"^(?P<key>[A-Za-z_][\w.]*)\[(?P<i>\d+)\]$")


@dataclass(frozen=True)
class Param:
    name: str               # optuna's parameter name (unique)
    key: str                # the rules key it sets
    kind: str               # "int" | "float" | "choice"
    low: float | None = None
    high: float | None = None
    step: int = 1
    log: bool = False
    choices: tuple = ()
    labels: tuple[str, ...] = ()

    def suggest(self, trial):
        if self.kind == "int":
            return trial.suggest_int(self.name, int(self.low), int(self.high), step=self.step)
        if self.kind == "float":
            return trial.suggest_float(self.name, float(self.low), float(self.high), log=self.log)
        return trial.suggest_categorical(self.name, list(self.labels))

    def value_of(self, raw):
        """The rules value of an optuna value (a choice label -> its TOML value)."""
        if self.kind == "choice":
            return self.choices[self.labels.index(raw)]
        return raw

    def corners(self) -> list:
        """Values to validate up front: the ends of a range, every choice."""
        if self.kind == "int":
            return [int(self.low), int(self.high)]
        if self.kind == "float":
            return [float(self.low), float(self.high)]
        return list(self.labels)

    def describe(self) -> str:
        if self.kind == "choice":
            return f"{self.key} in {{{', '.join(self.labels)}}}"
        return f"{self.key} in [{self.low}, {self.high}]" + (f" step {self.step}" if self.step != 1 else "")


def parse_param(entry: Any, where: str) -> Param:
    if not isinstance(entry, dict):
        raise HeronSimError(f"{where}: expected a table with key and one of int, float, choices")
    allowed = {"key", "name", "int", "float", "choices", "labels", "step", "log"}
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise HeronSimError(f"{where}.{unknown[0]}: unknown field; allowed: {', '.join(sorted(allowed))}")
    key = entry.get("key")
    if not isinstance(key, str) or not key:
        raise HeronSimError(f"{where}.key: missing; e.g. key = \"rolls\" or \"combinations.advance[4]\"")
    name = entry.get("name", key)
    if not isinstance(name, str) or not name:
        raise HeronSimError(f"{where}.name: {name!r}; allowed: a non-empty string")
    domains = [d for d in ("int", "float", "choices") if d in entry]
    if len(domains) != 1:
        raise HeronSimError(f"{where} ({key}): give exactly one of int = [low, high], float = [low, high], choices = [...]")
    d = domains[0]
    if d in ("int", "float"):
        rng = entry[d]
        num = int if d == "int" else (int, float)
        if (not isinstance(rng, list) or len(rng) != 2 or any(isinstance(v, bool) or not isinstance(v, num) for v in rng)
                or rng[0] > rng[1]):
            raise HeronSimError(f"{where}.{d} ({key}): {rng!r}; allowed: [low, high] with low <= high ({d}s)")
        step = entry.get("step", 1)
        if d == "int" and (isinstance(step, bool) or not isinstance(step, int) or step < 1):
            raise HeronSimError(f"{where}.step ({key}): {step!r}; allowed: an integer >= 1")
        log = entry.get("log", False)
        if not isinstance(log, bool) or (log and rng[0] <= 0):
            raise HeronSimError(f"{where}.log ({key}): {log!r}; allowed: true or false (true needs low > 0)")
        return Param(name, key, d, rng[0], rng[1], step=step if d == "int" else 1, log=log)
    choices = entry["choices"]
    if not isinstance(choices, list) or not choices:
        raise HeronSimError(f"{where}.choices ({key}): {choices!r}; allowed: a non-empty list")
    labels = entry.get("labels")
    if labels is None:
        labels = [_label(c) for c in choices]
    if (not isinstance(labels, list) or len(labels) != len(choices) or any(not isinstance(x, str) for x in labels)
            or len(set(labels)) != len(labels)):
        raise HeronSimError(f"{where}.labels ({key}): give one distinct string label per choice")
    return Param(name, key, "choice", choices=tuple(choices), labels=tuple(labels))


def _label(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return str(v)
    text = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------- applying values
#: Rules lists by seat (seat 0 first, missing seats 0): ``start_squares[2]`` sets the third
#: seat's entry, padding the list with zeros.
SEAT_LISTS = ("start_squares", "first_turn_extra_rolls")


def apply(table: dict, key: str, value: Any) -> None:
    """Set ``key`` to ``value`` in a full rules table (the shape of ``Rules.to_table()``)."""
    if key.startswith("board.square.") or key.startswith("board.position."):
        kind, _, sq = key[len("board."):].partition(".")
        if not sq.isdigit():
            raise RulesError(f"{key}: expected board.{kind}.<square number>")
        squares = table.setdefault("board", {}).setdefault("squares", {})
        src = sq
        if kind == "square":
            if value == "neutral":
                squares.pop(src, None)
            else:
                squares[src] = value
            return
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"{key}: {value!r} is not a square number")
        dst = str(value)
        a, b = squares.get(src), squares.get(dst)
        for s, eff in ((dst, a), (src, b)):
            if eff is None:
                squares.pop(s, None)
            else:
                squares[s] = eff
        return
    if key == "finish":
        _finish_board(table, value)
    m = _INDEX.match(key)
    index = None
    if m:
        key, index = m.group("key"), int(m.group("i"))
    parts = key.split(".")
    cur = table
    for p in parts[:-1]:
        nxt = cur.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[p] = nxt
        cur = nxt
    last = parts[-1]
    if index is None:
        if key == "mode":  # a mode brings its own dice
            table.pop("dice", None)
        cur[last] = copy.deepcopy(value)
        return
    lst = cur.get(last)
    if not isinstance(lst, list):
        raise RulesError(f"{key}[{index}]: {key} is not a list in the rules")
    if key in SEAT_LISTS and index < 7:
        lst = list(lst) + [0] * (index + 1 - len(lst))  # by seat: missing seats are 0
    if index >= len(lst):
        raise RulesError(f"{key}[{index}]: index out of range; allowed: 0..{len(lst) - 1}")
    lst = list(lst)
    lst[index] = value
    cur[last] = lst


def _finish_board(table: dict, finish) -> None:
    """A new finish on the default board keeps the default board's squares before it (as
    ``--set finish=54`` does); a board of the study's own is left as it is (and validated)."""
    from ..rules import board as _board
    from ..rules.rules import _default_squares

    if isinstance(finish, bool) or not isinstance(finish, int) or finish < 2:
        return
    def names(sq):
        return {str(s): _board.EFFECT_NAMES[c] for s, c in sq}
    squares = table.get("board", {}).get("squares")
    if squares is not None and squares == names(_default_squares(int(table.get("finish", 63)))):
        table["board"]["squares"] = names(_default_squares(finish))


def build_rules(base: Rules, params: list[Param], values: dict[str, Any]) -> Rules:
    """The base rules with each parameter's (optuna) value applied, validated."""
    table = copy.deepcopy(base.to_table())
    for p in params:
        if p.name in values:
            apply(table, p.key, p.value_of(values[p.name]))
    return Rules.from_table(table)


def check_params(base: Rules, params: list[Param]) -> None:
    """Every end of every range and every choice must give valid rules (one ``error:`` line)."""
    names = [p.name for p in params]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise HeronSimError(f"param: two parameters named {dup[0]!r}; give one a different name = \"...\"")
    for i, p in enumerate(params):
        for v in p.corners():
            try:
                build_rules(base, [p], {p.name: v})
            except (RulesError, HeronSimError) as err:
                raise HeronSimError(f"param[{i}] ({p.key} = {p.value_of(v)!r}): {err}") from None
