"""Rules and data: dice, boards, variants, and the immutable :class:`Rules` object."""

from .rules import MODES, KernelRules, Rules

__all__ = ["MODES", "KernelRules", "Rules"]
