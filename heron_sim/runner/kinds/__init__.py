"""The experiments of the seed's test plan, one module per kind: its options, which jobs it
plays, and the tables, figures and findings it computes from them.

A kind is one module of this package that declares

- ``FIGURES``: the figures it can draw (the ``figures`` key of a file chooses among them);
- its options model, a subclass of :class:`~heron_sim.runner.options.Experiment` with
  ``kind: Literal["<name>"]`` (found here by that field: adding a kind touches its module only);
- ``plan(exp, g, games_override)``: the simulation jobs (``g(n)`` applies the --games override);
- ``analyse(exp, data, sec)``: fills the report :class:`~heron_sim.sections.Section` ``sec`` from
  the stored results (a :class:`~heron_sim.runner.run.ExperimentData`); kind ``games`` returns
  a list of sections instead (``analyse(exp, data)``, one per lighter game).

Analyses read only the run folder, so a report re-renders without simulating; they return plain
data (tables, facts, figures as :class:`~heron_sim.sections.Plot`), drawn and rendered by
:mod:`heron_sim.report`, which this package never imports. ``across`` summarises every batch of
the run; ``common`` holds the shared helpers.
"""

from __future__ import annotations

import importlib
import pkgutil
import typing
from functools import partial

from ...sections import Section
from ..jobs import Job
from ..options import Experiment
from .across import across
from .common import NO_ANXIETY, _n
from .compare import KEY_METRICS, compare_display, compare_frames
from .games import light_unit
from .pond import _chi2
from .strategies import skill_strategy


def _discover() -> tuple[dict, dict]:
    """The kind modules of this package and their options models, by kind name (sorted)."""
    modules, models = {}, {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        for obj in vars(mod).values():
            if (isinstance(obj, type) and issubclass(obj, Experiment) and obj.__module__ == mod.__name__
                    and typing.get_origin(obj.model_fields["kind"].annotation) is typing.Literal):
                kind, = typing.get_args(obj.model_fields["kind"].annotation)
                modules[kind], models[kind] = mod, obj
    return modules, models


#: kind name -> its module, and -> its options model
KIND_MODULES, KIND_MODELS = _discover()

__all__ = ["KEY_METRICS", "KIND_MODELS", "KIND_MODULES", "NO_ANXIETY", "across", "analyse", "compare_display",
           "compare_frames", "light_unit", "plan_jobs", "skill_strategy", "_chi2"]


# ====================================================================== planning
def plan_jobs(exp: Experiment, games_override: int | None = None) -> list[Job]:
    mod = KIND_MODULES[exp.kind]  # the kind was checked where the file was read
    return mod.plan(exp, partial(_n, override=games_override), games_override)


# ====================================================================== analysis
def analyse(exp: Experiment, data) -> Section | list[Section]:
    """The experiment's report section (kind games: a list, one section per lighter game)."""
    mod = KIND_MODULES[exp.kind]
    if getattr(mod, "OWN_SECTIONS", False):  # kind games: a section per lighter game
        return mod.analyse(exp, data)
    sec = Section(key=exp.name, title=exp.title, intro=exp.description.strip())
    mod.analyse(exp, data, sec)
    sizes = sorted({(j["kind"], j["n"]) for j in data.entry["jobs"]})
    sec.notes.append("Sample sizes: " + "; ".join(f"{n:,} {k} per job" for k, n in sizes)
                     + f"; seed {exp.seed}; {len(data.entry['jobs'])} jobs; {data.seconds:.1f} s.")
    return sec
