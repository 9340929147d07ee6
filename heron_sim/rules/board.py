"""Special squares: names, codes and the loading of a board file."""

from __future__ import annotations

import unicodedata

from ..errors import RulesError

# Effect codes read by the kernel (heron_sim/loop/squares.py).
NEUTRAL, WOLF_ROLL, EXCHANGE, BULL_ALL, WONDER, SNAKE_JOIN, ROTATION, LION_ALL, PROTECTION, \
    EAGLE_SWAP, DEER_TOTEM, REGENERATION, HERON_BACK = range(13)

#: Canonical name of each effect code.
EFFECT_NAMES: tuple[str, ...] = (
    "neutral", "loup", "echange", "taureau", "emerveillement", "serpent", "rotation",
    "lion", "protection", "aigle", "cerf", "regeneration", "heron",
)
_ENGLISH = (
    "neutral", "wolf", "exchange", "bull", "wonder", "snake", "rotation",
    "lion", "protection", "eagle", "deer", "regeneration", "heron",
)
_ALIASES = {name: i for i, name in enumerate(EFFECT_NAMES)}
_ALIASES.update({name: i for i, name in enumerate(_ENGLISH)})
_ALIASES.update({"🔄": EXCHANGE, "🌀": ROTATION, "✨": REGENERATION, "🛡️": PROTECTION,
                 "🛡": PROTECTION, "🌿": WONDER, "marvel": WONDER, "swap": EXCHANGE})


def _fold(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", str(name).strip().lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def effect_code(name: str, field: str) -> int:
    """Code of a square effect given by its French or English name."""
    key = _fold(name) if isinstance(name, str) else None
    if key is not None and key in _ALIASES:
        return _ALIASES[key]
    raise RulesError(f"{field}: {name!r} is not a square effect; allowed: {', '.join(EFFECT_NAMES)}")


def parse_squares(squares: dict, finish: int, field: str) -> dict[int, int]:
    """Validate a ``{square: effect name}`` table and return ``{square: code}``.

    Squares must lie strictly between the start (0) and the finish.
    """
    if not isinstance(squares, dict):
        raise RulesError(f"{field}: expected a table {{square = effect}}, got {type(squares).__name__}")
    out: dict[int, int] = {}
    for key, name in squares.items():
        try:
            square = int(key)
        except (TypeError, ValueError):
            raise RulesError(f"{field}: square {key!r} is not an integer; allowed: 1..{finish - 1}") from None
        if not 1 <= square <= finish - 1:
            raise RulesError(f"{field}: square {square} is out of range; allowed: 1..{finish - 1}")
        out[square] = effect_code(name, f"{field}.{square}")
    return out
