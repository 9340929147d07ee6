"""The experiments of the seed's test plan, one kind per module: its options, which jobs it
plays, and the tables, figures and findings it computes from them.

A kind is a small subclass of :class:`~heron_sim.runner.kinds.base.ExperimentKind`, in the style
of emcee's moves: the base owns the bookkeeping, the kind says only what is its own::

    class Pond(ExperimentKind):
        name = "pond"                   # the kind = "pond" of its files
        options = PondExperiment        # its options model: kind: Literal["pond"], its keys
        figures = FIGURES               # the figures it can draw (the file's figures key chooses)
        intro = "The Peaceful Pond's push-back, simulated beside the exact law."

        def jobs(self, exp, g):         # the simulation jobs; g(n), g.turns(n): the --games override
            ...
        def fill(self, exp, data, sec): # the section, from the stored results alone
            ... if self.want(exp, "pushback"): sec.figures.append(...)
        def summary_rows(self, facts):  # its questions on the executive page (optional)
            return rows_of(facts, pond_row, dead_turns_row)
        def summary_problems(self, facts):  # its candidates for the verdict (optional)
            return problems_of(facts, pond_problem)

(kind ``games`` implements ``sections(exp, data)`` instead: one section per lighter game.) The
class registers itself when it is created; this package imports every module of its folder, so
adding a kind touches its module only. The base refuses a kind name declared twice, an options
model whose ``kind`` is not the name, a planned job key used twice, and a figure name the kind
did not declare; it builds the :class:`~heron_sim.sections.Section` (title, introduction, the
"Sample sizes" note) around ``fill``. A module of this folder that fails when imported is one
:class:`~heron_sim.errors.HeronSimError` line naming it (:func:`import_kinds`). :func:`plan_jobs` and :func:`analyse` hand an experiment to
its kind; :data:`KIND_MODELS` and :data:`KIND_MODULES` are read from the registry
(:func:`~heron_sim.runner.kinds.base.registry`).

Analyses read only the run folder (a :class:`~heron_sim.runner.run.ExperimentData`), so a report
re-renders without simulating; they return plain data (tables, facts, figures as
:class:`~heron_sim.sections.Plot`), drawn and rendered by :mod:`heron_sim.report`, which this
package never imports. ``across`` summarises every batch of the run; ``common`` holds the shared
helpers.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Mapping

from ...errors import HeronSimError
from ...sections import Section
from ..jobs import Job
from ..options import Experiment
from .base import ExperimentKind, KindError, Sizes, kind_of, registry
from .common import NO_ANXIETY



def import_kinds(path, package: str) -> None:
    """Import every module of the folder ``path`` (package ``package``), in name order: each kind
    registers itself. A module that fails (a kind declared wrong: :class:`KindError`, or any
    other error of its code) is one :class:`~heron_sim.errors.HeronSimError` line naming it (the
    command line prints ``error: ...``, exit 2), never a traceback at import."""
    for info in sorted(pkgutil.iter_modules(path), key=lambda i: i.name):
        name = f"{package}.{info.name}"
        try:
            importlib.import_module(name)
        except HeronSimError:
            raise
        except Exception as err:  # noqa: BLE001 -- a kind's module: one line naming it
            msg = " ".join(str(err).split())
            raise HeronSimError(f"experiment kind module {name} cannot be loaded: {type(err).__name__}: {msg} "
                                "(a bug in the kind's declaration: fix or remove the module)") from None


import_kinds(__path__, __name__)

# after the kinds are imported, so that a kind's broken module is one line, not a traceback here
from .across import across  # noqa: E402
from .compare import KEY_METRICS, compare_display, compare_frames  # noqa: E402
from .games import light_unit  # noqa: E402
from .pond import _chi2  # noqa: E402
from .strategies import skill_strategy  # noqa: E402


class _View(Mapping):
    """kind name -> ``get(kind)``, read from the registry at each use (sorted by name)."""

    def __init__(self, get):
        self._get = get

    def __getitem__(self, name):
        return self._get(registry()[name])

    def __iter__(self):
        return iter(registry())

    def __len__(self):
        return len(registry())

    def __repr__(self):
        return repr(dict(self))


#: kind name -> the module that declares it, and -> its options model
KIND_MODULES: Mapping = _View(lambda kind: sys.modules[type(kind).__module__])
KIND_MODELS: Mapping = _View(lambda kind: kind.options)

__all__ = ["KEY_METRICS", "KIND_MODELS", "KIND_MODULES", "NO_ANXIETY", "ExperimentKind", "KindError", "Sizes", "across",
           "analyse", "compare_display", "compare_frames", "import_kinds", "kind_of", "light_unit", "plan_jobs", "registry",
           "skill_strategy", "_chi2"]


# ====================================================================== planning
def plan_jobs(exp: Experiment, games_override: int | None = None) -> list[Job]:
    """The simulation jobs of ``exp`` (checked by its kind: every key once)."""
    return kind_of(exp.kind).plan(exp, games_override)


# ====================================================================== analysis
def analyse(exp: Experiment, data) -> Section | list[Section]:
    """The experiment's report section (kind games: a list, one section per lighter game)."""
    return kind_of(exp.kind).analyse(exp, data)
