"""What a variant really changes against its base: one entry per rule (the "rules changed" count).

A rule is a top-level scalar key (``rolls``, ``bull_bonus``, ...), ``disabled_powers`` (the set),
one entry of ``combinations.advance`` / ``combinations.effect`` (``combinations.advance[3]``), a
key of one player count (``seats.5.start_squares``) or of one guide (``guide.heron.rolls``),
the dice (``dice.count`` when only the number of dice differs, else ``dice.faces``), or one
square of the board (``board.square.60``). A rule changed is a value that differs from the base:
keys listed in a study but left at the base's value are no change, and neither is a base value
restated — a by-seat list padded with zeros (``start_squares = [0, 0, 0, 0]`` is the rulings'
``[]``: a seat past the list gets 0), a ``[seats.N]`` list or a ``[guide.NAME]`` value equal to
the rule of every count or every player of the same rules (issue 58 item 4). ``players`` and
``mode`` are the table's, not rules a variant changes.

    >>> from heron_sim.rules import Rules
    >>> [c.key for c in rule_changes(Rules.build(), Rules.build(overrides={"rolls": 4}))]
    ['rolls']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..animals import NAMES as ANIMAL_NAMES
from ..rules import Rules


@dataclass(frozen=True)
class Change:
    key: str          # the rule, in --set's spelling ("combinations.advance[3]", "board.square.60")
    old: Any          # its value in the base rules (None: absent, e.g. a square with no effect)
    new: Any          # its value in the variant


_GUIDE_ORDER = ANIMAL_NAMES  # [guide.NAME] tables in the guides' order
#: The by-seat lists (seat 0 first): a seat past the end of the list gets 0.
_SEAT_LISTS = ("start_squares", "first_turn_extra_rolls")


def _seat_list(v, n: int = 7):
    """A by-seat list as the game reads it at ``n`` players: its first ``n`` entries, the zeros at
    its end dropped (they restate what a seat past the list gets). None stays None."""
    if v is None:
        return None
    out = list(v)[:n]
    while out and out[-1] == 0:
        out.pop()
    return out


def _own(table: dict, n: str, key: str):
    """The ``[seats.N]`` list of ``key`` in a rules table, or None where there is none or where it
    restates the list of every count at that count (no rule of its own)."""
    v = table.get("seats", {}).get(n, {}).get(key)
    if v is None or _seat_list(v, int(n)) == _seat_list(table.get(key, []), int(n)):
        return None
    return v


def _own_guide(table: dict, g: str, key: str):
    """A ``[guide.NAME]`` value, or None where there is none or it restates every player's."""
    v = table.get("guide", {}).get(g, {}).get(key)
    return None if v is None or v == table.get(key) else v


def rule_changes(base: Rules, variant: Rules) -> list[Change]:
    """Every rule whose value differs between ``base`` and ``variant`` (stable order)."""
    a, b = base.to_table(), variant.to_table()
    out: list[Change] = []
    for k, v in b.items():
        if k in ("mode", "players", "combinations", "dice", "board"):
            continue
        if k == "seats":  # one change per player count and key: seats.5.start_squares
            for n in sorted(set(v) | set(a.get(k, {})), key=int):
                keys = set(a.get(k, {}).get(n, {})) | set(v.get(n, {}))
                for key in sorted(keys):
                    x, y = _own(a, n, key), _own(b, n, key)
                    if _seat_list(x, int(n)) != _seat_list(y, int(n)):
                        out.append(Change(f"seats.{n}.{key}", x, y))
            continue
        if k == "guide":  # one change per guide and key: guide.heron.anxiety_threshold
            x_all = a.get(k, {})
            for g in sorted(set(v) | set(x_all), key=_GUIDE_ORDER.index):
                for key in sorted(set(x_all.get(g, {})) | set(v.get(g, {}))):
                    x, y = _own_guide(a, g, key), _own_guide(b, g, key)
                    if x != y:
                        out.append(Change(f"guide.{g}.{key}", x, y))
            continue
        if k in _SEAT_LISTS:  # [0, 0, 0, 0] is the rulings' []: no seat gets anything
            if _seat_list(v) != _seat_list(a.get(k, [])):
                out.append(Change(k, a.get(k), v))
            continue
        if k == "disabled_powers":
            if sorted(v) != sorted(a.get(k, [])):
                out.append(Change(k, sorted(a.get(k, [])), sorted(v)))
            continue
        if v != a.get(k):
            out.append(Change(k, a.get(k), v))
    for sub in ("advance", "effect"):
        x, y = a["combinations"][sub], b["combinations"][sub]
        # Sizes past the smaller number of dice cannot be rolled by one of the two: no change.
        n = min(len(x), len(y))
        for i in range(n):
            if x[i] != y[i]:
                out.append(Change(f"combinations.{sub}[{i}]", x[i], y[i]))
    fa, fb = a["dice"]["faces"], b["dice"]["faces"]
    if fa != fb:
        if len(fa) != len(fb) and (fb == fa[: len(fb)] or fa == fb[: len(fa)]):
            out.append(Change("dice.count", len(fa), len(fb)))
        else:
            out.append(Change("dice.faces", fa, fb))
    sa, sb = a["board"]["squares"], b["board"]["squares"]
    for sq in sorted(set(sa) | set(sb), key=int):
        if int(sq) >= b["finish"] and sq not in sb:
            continue  # a square past the variant's finish goes with the finish: no rule of its own
        if sa.get(sq) != sb.get(sq):
            out.append(Change(f"board.square.{sq}", sa.get(sq), sb.get(sq)))
    return out


def n_changed(base: Rules, variant: Rules) -> int:
    """The number of rules a variant changes against its base (the lab's tie-break)."""
    return len(rule_changes(base, variant))


def changes_text(base: Rules, variant: Rules) -> str:
    """``"rolls = 4, combinations.advance[3] = 2"`` (only what differs), or ``"none"``."""
    def fmt(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list) and len(str(v)) > 40:
            return f"[{len(v)} entries]"
        return "off" if v is None else str(v)
    parts = [f"{c.key} = {fmt(c.new)}" for c in rule_changes(base, variant)]
    return ", ".join(parts) if parts else "none"
