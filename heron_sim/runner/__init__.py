"""Declarative experiments: load an experiment file, run it into a run folder, read it back.

    from heron_sim.runner import load_experiment, run_experiments, RunData
    exp = load_experiment("experiments/modes.toml")
    manifest = run_experiments([exp], Path("runs/try"))
"""

from .config import Experiment, RulesSpec, experiment_schema, load_experiment
from .run import (Job, RunData, available_strategies, new_run_dir, play_job, resolve_strategies,
                  run_experiment_files, run_experiments, seatings)

__all__ = ["FIGURES", "KINDS", "Experiment", "Job", "RulesSpec", "RunData", "available_strategies",
           "experiment_schema", "load_experiment", "new_run_dir", "play_job", "resolve_strategies", "run_experiment_files",
           "run_experiments", "seatings"]


def __getattr__(name: str):
    if name in ("KINDS", "FIGURES"):  # computed from the kinds' models on first use (heron_sim.runner.config)
        from . import config

        return getattr(config, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
