"""The few places where optuna 3, 4 and 5 differ, for the lab (pyproject.toml: ``optuna>=3.5,<6``).

- **Constraints.** optuna 5 records a trial's constraints on the trial itself
  (``Trial.set_constraint``, ``create_trial(constraints=...)``); optuna 3 and 4 compute them after
  the trial with the sampler's ``constraints_func`` and store them in the trial's system
  attribute ``"constraints"``. The lab keeps each trial's constraint values in its user attribute
  ``"constraints"`` under every version, so the older samplers read them back from there.
- **The journal file**: ``JournalFileBackend`` from optuna 4 on, ``JournalFileStorage`` in 3
  (:func:`heron_sim.lab.study.journal_storage`).

Which versions were tested, and how: docs/dependencies.md.
"""

from __future__ import annotations

from typing import Any


def trial_constraints() -> bool:
    """Whether this optuna records constraints on the trial (optuna 5 and later)."""
    import optuna

    return hasattr(optuna.trial.Trial, "set_constraint")


def sampler_kwargs(n_constraints: int) -> dict[str, Any]:
    """Extra keyword arguments of a constrained sampler: none on optuna 5, else a
    ``constraints_func`` that reads the trial's user attribute ``"constraints"`` (a trial pruned
    before it had any, e.g. rules that could not be built, counts as violating each)."""
    if trial_constraints() or n_constraints == 0:
        return {}

    def constraints_func(trial) -> list[float]:
        values = trial.user_attrs.get("constraints")
        return [float(v) for v in values] if values and len(values) == n_constraints else [1.0] * n_constraints

    return {"constraints_func": constraints_func}


def set_constraints(trial, values) -> None:
    """Record a running trial's constraint values for the sampler (its user attribute
    ``"constraints"`` is set by the caller under every version)."""
    if trial_constraints():
        for i, c in enumerate(values):
            trial.set_constraint(f"c{i}", float(c))


def create_trial_kwargs(values) -> dict[str, Any]:
    """The constraint arguments of ``optuna.trial.create_trial`` for a finished trial told to the
    study (the ladder's entries)."""
    if trial_constraints():
        return {"constraints": {f"c{i}": float(c) for i, c in enumerate(values)}}
    return {"system_attrs": {"constraints": [float(c) for c in values]}}
