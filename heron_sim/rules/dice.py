"""Dice compositions: the D8 and the ten historic D6, loaded from ``data/dice.toml``."""

from __future__ import annotations

from functools import lru_cache

from ..animals import NAMES, animal_index
from ..errors import HeronSimError, RulesError
from ..tomlfile import package_toml, read_toml

REROLL_NAMES = {"reroll", "🔄", "relance"}


@lru_cache(maxsize=1)
def _default_dice() -> dict:
    return package_toml("heron_sim.rules", "data/dice.toml")


def parse_die(faces, field: str) -> tuple[int, ...]:
    """Animal faces of one die; ``reroll`` faces are dropped (rerolled until an animal shows)."""
    if not isinstance(faces, list) or not faces:
        raise RulesError(f"{field}: a die is a non-empty list of faces (animal names or 'reroll')")
    out = []
    for j, face in enumerate(faces):
        if isinstance(face, str) and face.strip().lower() in REROLL_NAMES:
            continue
        try:
            out.append(animal_index(face, f"{field}[{j}]"))
        except HeronSimError as err:
            raise RulesError(f"{err} or 'reroll'") from None
    if not out:
        raise RulesError(f"{field}: a die needs at least one animal face; allowed faces: {', '.join(NAMES)}")
    return tuple(out)


def parse_dice(dice, field: str) -> tuple[tuple[int, ...], ...]:
    if not isinstance(dice, list) or not dice:
        raise RulesError(f"{field}: expected a non-empty list of dice, each a list of faces")
    if len(dice) > 16:
        raise RulesError(f"{field}: {len(dice)} dice; allowed: 1..16")
    return tuple(parse_die(d, f"{field}[{i}]") for i, d in enumerate(dice))


def d8() -> tuple[int, ...]:
    """Faces of the D8 (the 🔄 face dropped): the seven animals."""
    return parse_die(_default_dice()["d8"], "dice.d8")


def historic_d6() -> tuple[tuple[int, ...], ...]:
    """The ten historic D6 of the mode 10d6."""
    return parse_dice(_default_dice()["historic_d6"], "dice.historic_d6")


def load_dice_file(path, field: str = "dice.file") -> tuple[tuple[int, ...], ...]:
    """Read a dice file: either ``dice = [[...], ...]`` or ``historic_d6 = [...]``."""
    data = read_toml(path, field)
    for key in ("dice", "historic_d6"):
        if key in data:
            return parse_dice(data[key], f"{field}:{key}")
    raise RulesError(f"{field}: {path} has no 'dice' list; allowed keys: dice, historic_d6")
