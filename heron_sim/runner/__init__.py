"""Declarative experiments: load an experiment file, run it into a run folder, read it back.

    from heron_sim.runner import load_experiment, run_experiments, RunData
    exp = load_experiment("experiments/modes.toml")
    manifest = run_experiments([exp], Path("runs/try"))
"""

# Imported on first use (PEP 562): a Dask worker imports heron_sim.runner.executor and
# heron_sim.runner.tasks, and importing this package no longer loads pandas and the run folder's
# code with them (half a second of every worker's start, issue 61).
_LAZY = {"Experiment": "config", "RulesSpec": "config", "experiment_schema": "config", "load_experiment": "config",
         "Job": "run", "RunData": "run", "available_strategies": "run", "new_run_dir": "run", "play_job": "run",
         "resolve_strategies": "run", "run_experiment_files": "run", "run_experiments": "run", "seatings": "run"}

__all__ = ["FIGURES", "KINDS", "Experiment", "Job", "RulesSpec", "RunData", "available_strategies",
           "experiment_schema", "load_experiment", "new_run_dir", "play_job", "resolve_strategies", "run_experiment_files",
           "run_experiments", "seatings"]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    if name in ("KINDS", "FIGURES"):  # computed from the kinds' models on first use (heron_sim.runner.config)
        from . import config

        return getattr(config, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
