"""The experiments of the seed's test plan, one module per kind: which jobs each kind plays,
and the tables, figures and findings it computes from them.

``plan_jobs(exp)`` lists the simulation jobs; ``analyse(exp, data)`` turns the stored results
(a :class:`~heron_sim.runner.run.ExperimentData`) into a report
:class:`~heron_sim.report.section.Section`. Analyses read only the run folder, so a report
re-renders without simulating.

Each kind module (``modes``, ``pond``, ``anxiety``, ``guides``, ``strategies``, ``games``,
``compare``, ``sensitivity``) has ``plan(exp, g, games_override)`` and ``analyse(exp, data[, sec])``;
``across`` summarises every batch of the run; ``common`` holds the shared helpers.
"""

from __future__ import annotations

from functools import partial

from ...sections import Section
from ..config import Experiment
from ..jobs import Job
from . import anxiety, compare, games, guides, modes, pond, sensitivity, strategies
from .across import across
from .common import NO_ANXIETY, _n
from .compare import KEY_METRICS, compare_display, compare_frames
from .games import light_unit
from .pond import _chi2
from .strategies import skill_strategy

KIND_MODULES = {"modes": modes, "pond": pond, "anxiety": anxiety, "guides": guides,
                "strategies": strategies, "games": games, "compare": compare, "sensitivity": sensitivity}

__all__ = ["KEY_METRICS", "KIND_MODULES", "NO_ANXIETY", "across", "analyse", "compare_display",
           "compare_frames", "light_unit", "plan_jobs", "skill_strategy", "_chi2"]


# ====================================================================== planning
def plan_jobs(exp: Experiment, games_override: int | None = None) -> list[Job]:
    mod = KIND_MODULES.get(exp.kind)
    if mod is None:
        return []
    return mod.plan(exp, partial(_n, override=games_override), games_override)


# ====================================================================== analysis
def analyse(exp: Experiment, data) -> Section | list[Section]:
    """The experiment's report section (kind games: a list, one section per lighter game)."""
    if exp.kind == "games":
        return games.analyse(exp, data)
    fn = {k: m.analyse for k, m in KIND_MODULES.items() if k != "games"}[exp.kind]
    sec = Section(key=exp.name, title=exp.title, intro=exp.description.strip())
    fn(exp, data, sec)
    sizes = sorted({(j["kind"], j["n"]) for j in data.entry["jobs"]})
    sec.notes.append("Sample sizes: " + "; ".join(f"{n:,} {k} per job" for k, n in sizes)
                     + f"; seed {exp.seed}; {len(data.entry['jobs'])} jobs; {data.seconds:.1f} s.")
    return sec
