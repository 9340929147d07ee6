"""The strategies the package declares: every module of this folder with a top-level ``SID``.

A strategy module declares itself once, at its top::

    NAME = "greedy"                 # its name everywhere (command line, files, frames)
    DESCRIPTION = "..."             # one line for the help and the docs
    PARAMS = {"risk": 0.3}          # optional: its parameters and defaults, in row order
    SID = 0                         # its integer id in the kernels (unique)
    DECIDE = "greedy_decide"        # its decision function, (kind, seat, w[, R, rng[, sp]]) -> int
    ORDER = 0                       # optional: where it is listed (default: after the others)
    TABLES = False                  # optional: its seat row carries the expert's tables
    SEAT_BLOCK = False              # optional (with TABLES): and after them a block of its own,
                                    # built by the function registered for its name
                                    # (heron_sim.strategies.register_seat_block)
    USER_FACING = True              # optional: False hides it from names and "all"
    IN_SETS = True                  # optional: False leaves it out of the "ai" and "all" sets
    BOUNDS = {"risk": (0.0, 1.0)}   # optional: each parameter's allowed range (inclusive); written
                                    # with whole numbers, e.g. (1, 3), it takes whole numbers only
    RUNGS = {"novice": {...}}       # optional: named parameter sets, each a name of its own
    RUNG_DESCRIPTIONS = {...}       # optional: their one-line descriptions
    STYLES = {"reckless": {...}}    # optional: named parameter sets beside the ladder (a style,
                                    # not a step of skill), each a name of its own; described in
                                    # RUNG_DESCRIPTIONS too
    FUSED_TURN = "greedy_turn.greedy_fused_turn"  # optional: its own turn, (seat, w, R, rng, sp)
                                    # -> code (heron_sim.engine.layout, ``TURN_*``)
    FUSED_SCORE = "greedy_turn.greedy_score"      # optional: its own scoring, (seat, w, R) ->
                                    # advance or ``SCORE_GENERIC*`` (needs FUSED_TURN)
    WORKSPACE_WORDS = "prudent.memo_words"        # optional: the words it needs at the end of
                                    # the workspace, (R, players) -> int
    OWN_KERNEL = True               # optional: seated alone, always its own kernel (not the
                                    # shared one; heron_sim.loop.kernels)

``FUSED_TURN``, ``FUSED_SCORE`` and ``WORKSPACE_WORDS`` name functions of this folder as
``module.function`` (strings: the strategy module need not import its turn). The game loop
(heron_sim.loop) calls them through functions generated from these declarations
(heron_sim.strategies.dispatch.fused_source): it names no strategy.

The registry (heron_sim.strategies.REGISTRY), the dispatcher's ids and branches
(heron_sim.strategies.dispatch) and the kernel generator's table (heron_sim.loop.kernels)
are all derived from these declarations: adding a strategy touches its own module only.
Modules are found by reading the folder's sources (not by importing every helper module).
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_DECLARES = re.compile(r"^SID\s*=\s*\d+", re.M)


@dataclass(frozen=True)
class Declaration:
    """One built-in strategy as its module declares it."""

    name: str
    sid: int
    module: str         # e.g. heron_sim.strategies.greedy
    decide: str         # the decision function's name in ``module``
    args: str           # its arguments, e.g. "kind, seat, w"
    description: str
    params: tuple       # ((name, default), ...)
    order: int
    tables: bool
    user_facing: bool
    in_sets: bool = True
    bounds: tuple = ()  # ((name, (low, high)), ...)
    rungs: tuple = ()   # ((name, ((param, value), ...), description), ...): RUNGS, then STYLES
    fused_turn: str = ""       # "module.function" of this folder, or ""
    fused_score: str = ""      # "module.function" of this folder, or ""
    workspace_words: str = ""  # "module.function" of this folder, or ""
    own_kernel: bool = False
    seat_block: bool = False


def _args_of(fn) -> str:
    py = getattr(fn, "py_func", fn)
    return ", ".join(inspect.signature(py).parameters)


def _named(mod, attr: str) -> str:
    """A ``module.function`` declaration of this folder, checked to exist."""
    value = getattr(mod, attr, "")
    if not value:
        return ""
    module, _, fn = value.rpartition(".")
    if not module or not hasattr(importlib.import_module(f"{__package__}.{module}"), fn):
        raise RuntimeError(f"{mod.__name__}: {attr} = {value!r} names no function of heron_sim.strategies")
    return value


@lru_cache(maxsize=None)
def declarations() -> tuple[Declaration, ...]:
    """Every declared strategy, in listing order (``ORDER``, then name)."""
    found = []
    for path in sorted(_HERE.glob("*.py")):
        if path.stem.startswith("_") or not _DECLARES.search(path.read_text(encoding="utf-8")):
            continue
        mod = importlib.import_module(f"{__package__}.{path.stem}")
        fn = getattr(mod, mod.DECIDE)
        found.append(Declaration(
            name=mod.NAME, sid=int(mod.SID), module=mod.__name__, decide=mod.DECIDE, args=_args_of(fn),
            description=mod.DESCRIPTION, params=tuple(getattr(mod, "PARAMS", {}).items()),
            order=int(getattr(mod, "ORDER", 10_000)), tables=bool(getattr(mod, "TABLES", False)),
            user_facing=bool(getattr(mod, "USER_FACING", True)),
            in_sets=bool(getattr(mod, "IN_SETS", True)),
            bounds=tuple(getattr(mod, "BOUNDS", {}).items()),
            rungs=tuple((n, tuple(v.items()), getattr(mod, "RUNG_DESCRIPTIONS", {}).get(n, f"{mod.NAME} {v}"))
                        for n, v in {**getattr(mod, "RUNGS", {}), **getattr(mod, "STYLES", {})}.items()),
            fused_turn=_named(mod, "FUSED_TURN"), fused_score=_named(mod, "FUSED_SCORE"),
            workspace_words=_named(mod, "WORKSPACE_WORDS"), own_kernel=bool(getattr(mod, "OWN_KERNEL", False)),
            seat_block=bool(getattr(mod, "SEAT_BLOCK", False))))
    half = [d.name for d in found if d.fused_score and not d.fused_turn]
    if half:
        raise RuntimeError(f"heron_sim.strategies: {half[0]} declares FUSED_SCORE without FUSED_TURN")
    sids = [d.sid for d in found]
    names = [d.name for d in found] + [r[0] for d in found for r in d.rungs]
    dup = {s for s in sids if sids.count(s) > 1} | {n for n in names if names.count(n) > 1}
    if dup:
        raise RuntimeError(f"heron_sim.strategies: two strategies declare {sorted(map(str, dup))[0]}")
    return tuple(sorted(found, key=lambda d: (d.order, d.name)))


def sid_of(name: str) -> int:
    return next(d.sid for d in declarations() if d.name == name)
