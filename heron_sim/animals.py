"""The seven animals (faces and guides) and their names.

Animals are indexed as in the rulings: 0 Loup (Wolf), 1 Taureau (Bull), 2 Serpent (Snake),
3 Lion, 4 Aigle (Eagle), 5 Cerf (Deer), 6 Héron (Heron). Ties "by lowest index" use this order.
"""

from __future__ import annotations

import unicodedata

from .errors import HeronSimError

LOUP, TAUREAU, SERPENT, LION, AIGLE, CERF, HERON = range(7)
N_ANIMALS = 7

#: Canonical (French, ASCII) names, indexed by animal.
NAMES: tuple[str, ...] = ("loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron")
#: English names, indexed by animal.
ENGLISH: tuple[str, ...] = ("wolf", "bull", "snake", "lion", "eagle", "deer", "heron")

_ALIASES: dict[str, int] = {}
for _i, (_fr, _en) in enumerate(zip(NAMES, ENGLISH)):
    _ALIASES[_fr] = _i
    _ALIASES[_en] = _i


def _fold(name: str) -> str:
    """Lower case without accents, so that 'Héron' and 'heron' are the same name."""
    decomposed = unicodedata.normalize("NFKD", str(name).strip().lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def animal_index(name: str | int, field: str = "animal") -> int:
    """Index 0..6 of an animal given by French or English name (accents optional) or index."""
    if isinstance(name, bool):
        raise HeronSimError(f"{field}: {name!r} is not an animal; allowed: {', '.join(NAMES)}")
    if isinstance(name, int):
        if 0 <= name < N_ANIMALS:
            return name
        raise HeronSimError(f"{field}: {name} is not an animal index; allowed: 0..6 or {', '.join(NAMES)}")
    key = _fold(name)
    if key in _ALIASES:
        return _ALIASES[key]
    raise HeronSimError(
        f"{field}: {name!r} is not an animal; allowed: {', '.join(NAMES)} (English: {', '.join(ENGLISH)})"
    )
