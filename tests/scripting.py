"""Helpers to write scripted-dice tests of the Héron rules."""

from heron_sim.animals import NAMES
from heron_sim.engine.layout import POWER_ARG
from heron_sim.loop.scripted import play_script
from heron_sim.rules import Rules

NON_HERON = NAMES[:6]
STOP = -1        # D_KEEP: stop
NO = 0
YES = 1
NONE = -1        # no power / no target / regenerate / +1 for me


def rules(**overrides):
    mode = overrides.pop("mode", None)
    players = overrides.pop("players", None)
    return Rules.build(mode=mode, players=players, overrides=overrides)


def set_of(animal, size, n=8):
    """n dice: ``size`` of ``animal`` and distinct other non-heron animals (no larger set)."""
    others = [a for a in NON_HERON if a != animal]
    fill = []
    k = 0
    while len(fill) < n - size:
        fill.append(others[k % len(others)])
        k += 1
    return [animal] * size + fill


def power(die, arg=0):
    return die + POWER_ARG * arg


def keep(*dice):
    return sum(1 << d for d in dice)


__all__ = ["play_script", "rules", "set_of", "power", "keep", "STOP", "NO", "YES", "NONE"]
