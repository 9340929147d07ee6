"""Checks of a whole tune spec (after the command line's overrides), before anything is made.

Each is one ``error:`` line (:class:`~heron_sim.errors.HeronSimError`): a constraint whose
``min`` exceeds its ``max`` (nothing could satisfy it), one rules key searched by two
parameters (the second silently overrides the first), racing rungs that shrink (a later rung
must play at least as many games as the one before), and a trial count beyond the file's limit
(``--trials 10^9``).
"""

from __future__ import annotations

from ..errors import HeronSimError

MAX_TRIALS = 100_000


def check_spec(spec) -> None:
    where = f"{spec.path.rsplit('/', 1)[-1]}: " if getattr(spec, "path", None) else ""
    if not 1 <= spec.trials <= MAX_TRIALS:
        raise HeronSimError(f"--trials: {spec.trials}; allowed: 1..{MAX_TRIALS:,}")
    for i, c in enumerate(spec.constraints):
        if c.min is not None and c.max is not None and c.min > c.max:
            raise HeronSimError(f"{where}constraint[{i}]: min {c.min:g} > max {c.max:g}; allowed: min <= max")
    seen: dict[str, str] = {}
    for p in spec.params:
        key = _canonical(p.key)
        if key in seen:
            raise HeronSimError(f"{where}param: the rules key {p.key!r} is searched twice (parameters "
                                f"{seen[key]!r} and {p.name!r}); allowed: one parameter per key")
        seen[key] = p.name
    rungs = list(spec.rungs)
    for a, b in zip(rungs, rungs[1:]):
        if b < a:
            raise HeronSimError(f"{where}racing.rungs: {rungs}; allowed: games per rung that never "
                                "decrease (each rung re-plays the survivors on more games)")


def _canonical(key: str) -> str:
    return "".join(key.split())
