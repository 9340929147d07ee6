"""The base of the experiment kinds: it owns the bookkeeping, a kind says what is specific.

In the style of emcee's moves: a kind is a subclass of :class:`ExperimentKind` that declares

- ``name``: the ``kind = "..."`` of its experiment files;
- ``options``: its options model, a subclass of :class:`~heron_sim.runner.options.Experiment`
  with ``kind: Literal["<name>"]`` (the keys of its files, validated when the file is read);
- ``figures``: the figures it can draw (the ``figures`` key of a file chooses among them);
- ``intro`` (optional): the section's introduction when the file has no ``description``;

and implements ``jobs(exp, g)`` (the simulation jobs; ``g(n)`` and ``g.turns(n)`` apply the
--games override) and ``fill(exp, data, sec)`` (the section's tables, facts, findings and figures
from the stored results), or ``sections(exp, data)`` for a kind with sections of its own (kind
``games``: one per lighter game); and, to answer questions on the executive page,
``summary_rows(facts)`` (its rows, from the report's facts; default none).

The base registers the kind when its class is created (a kind name declared twice, an options
model whose ``kind`` literal is not the name, or figures that are not the options' are refused
with :class:`KindError`), applies the --games override, checks the planned jobs (every key
once), builds the :class:`~heron_sim.sections.Section` and its sample-size note, and gives the
analyses :meth:`ExperimentKind.want` (a figure chosen by the file; a name the kind did not
declare is an error, never a figure silently not drawn), :meth:`ExperimentKind.job` (a planned
job's manifest entry, or one line naming what is missing) and
:meth:`ExperimentKind.note_seating`.

A class that does not set ``name`` in its own body is a base for other kinds, not a kind.
"""

from __future__ import annotations

import typing
from typing import ClassVar

from ...errors import HeronSimError
from ...analysis.executive import Row
from ...analysis.judge import Problem
from ...sections import Fact, Section
from ..jobs import Job
from ..options import Experiment
from .common import _n, _seating_text

#: Single turns per game of the --games override: a quick check plays ``50 x games`` turns in a
#: batch of single turns (``heron-sim run --help``).
TURNS_PER_GAME = 50


class KindError(TypeError):
    """An experiment kind declared or coded wrong: a bug in the kind's module, not in an
    experiment file (those raise :class:`~heron_sim.errors.HeronSimError`)."""


#: kind name -> the kind (one instance of its class), in registration order
_REGISTRY: dict[str, "ExperimentKind"] = {}


def registry() -> dict[str, "ExperimentKind"]:
    """kind name -> the registered kind, sorted by name (the shipped kinds are registered when
    :mod:`heron_sim.runner.kinds` is imported)."""
    return {k: _REGISTRY[k] for k in sorted(_REGISTRY)}


def kind_of(name: str) -> "ExperimentKind":
    """The registered kind ``name`` (an unknown one: one line naming the kinds)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise HeronSimError(f"kind: {name!r} is not an experiment kind; allowed: {', '.join(sorted(_REGISTRY))}") from None


def unregister(name: str) -> None:
    """Forget kind ``name`` (a test's toy kind, or a kind redefined in a notebook)."""
    _REGISTRY.pop(name, None)


class Sizes:
    """The batch sizes of a plan under the --games override (None: each experiment's own):
    ``g(n)`` for a batch of ``n`` games, ``g(n, factor)`` scaled, ``g.turns(n)`` for a batch of
    ``n`` single turns (``TURNS_PER_GAME`` per overriding game)."""

    def __init__(self, override: int | None = None):
        self.override = override

    def __call__(self, n: int, factor: float = 1.0) -> int:
        return _n(n, self.override, factor)

    def turns(self, n: int) -> int:
        return _n(n, self.override, TURNS_PER_GAME)


class ExperimentKind:
    """An experiment kind (abstract: a subclass that sets ``name`` is one kind, registered when
    it is created): declare ``name``, ``options``, ``figures`` (and ``intro``); implement
    :meth:`jobs` and :meth:`fill` (or :meth:`sections`). The registry holds one instance per
    kind; :meth:`plan` and :meth:`analyse` are what the runner and the report call. See the
    module's doc."""

    name: ClassVar[str]
    options: ClassVar[type[Experiment]]
    figures: ClassVar[tuple[str, ...]] = ()
    #: the section's introduction when the experiment file has no ``description``
    intro: ClassVar[str] = ""

    # ------------------------------------------------------------ registration
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "name" not in cls.__dict__:
            return  # a base of other kinds
        _check_declaration(cls)
        if cls.name in _REGISTRY:
            old = type(_REGISTRY[cls.name])
            raise KindError(f"experiment kind {cls.name!r} is declared twice: {old.__module__}.{old.__qualname__} "
                            f"and {cls.__module__}.{cls.__qualname__}; a kind name must be unique")
        _REGISTRY[cls.name] = cls()

    @property
    def own_sections(self) -> bool:
        """Whether the kind makes its own sections (:meth:`sections`) instead of filling one."""
        return type(self).sections is not ExperimentKind.sections

    # ------------------------------------------------------------ what a kind implements
    def jobs(self, exp: Experiment, g: Sizes) -> list[Job]:
        """The simulation jobs of ``exp`` (``g(n)``: a batch of ``n`` games under the --games
        override; ``g.turns(n)``: of ``n`` single turns)."""
        raise NotImplementedError

    def fill(self, exp: Experiment, data, sec: Section) -> None:
        """Fill the section ``sec`` (its tables, facts, findings, figures) from the stored
        results of ``exp`` (``data``: a :class:`~heron_sim.runner.run.ExperimentData`, which this
        module does not import: the runner imports the kinds)."""
        raise NotImplementedError

    def sections(self, exp: Experiment, data) -> list[Section]:
        """A kind with sections of its own (instead of :meth:`fill`): every one of them."""
        raise NotImplementedError

    def summary_rows(self, facts: dict[str, Fact]) -> list[Row]:
        """The executive page's rows of this kind's questions, from every fact of the report
        (``facts``: id -> :class:`~heron_sim.sections.Fact`; a row may read other kinds' facts,
        e.g. the remedies the sensitivity batches measured), each a
        :class:`~heron_sim.analysis.executive.Row`; none whose facts are missing. Default: none
        (a kind whose figures answer no question of the page)."""
        return []

    def summary_problems(self, facts: dict[str, Fact]) -> list[Problem]:
        """The verdict's candidates of this kind (what may be wrong or fine with the game), each a
        :class:`~heron_sim.analysis.judge.Problem` with its ``order``; none whose facts are
        missing. Default: none."""
        return []

    # ------------------------------------------------------------ the bookkeeping
    def plan(self, exp: Experiment, games_override: int | None = None) -> list[Job]:
        """The checked jobs of ``exp``: each a :class:`Job`, each key once."""
        jobs = list(self.jobs(exp, Sizes(games_override)))
        seen = set()
        for job in jobs:
            if not isinstance(job, Job):
                raise KindError(f"kind {self.name}: jobs() returned {job!r}, not a Job")
            if job.key in seen:
                raise HeronSimError(f"{exp.source or exp.name}: kind {self.name} planned two jobs named {job.key!r}; "
                                    "each job needs its own key (is a name repeated in the file?)")
            seen.add(job.key)
        return jobs

    def analyse(self, exp: Experiment, data) -> Section | list[Section]:
        """The report section of ``exp`` (a kind with its own sections: the list of them)."""
        if self.own_sections:
            return self.sections(exp, data)
        sec = Section(key=exp.name, title=exp.title, intro=exp.description.strip() or self.intro)
        self.fill(exp, data, sec)
        sec.notes.append(sample_sizes(exp, data))
        return sec

    def want(self, exp: Experiment, figure: str) -> bool:
        """Whether the file asks for ``figure`` (default: every figure of the kind). A name the
        kind did not declare in ``figures`` is a bug in the kind: refused, never a figure silently
        not drawn."""
        if figure not in self.figures:
            raise KindError(f"kind {self.name}: figure {figure!r} is not declared in its figures "
                            f"({', '.join(self.figures) or 'none'})")
        return figure in getattr(exp, "figures", ())

    def job(self, data, key: str) -> dict:
        """The manifest entry of the planned job ``key`` (a run folder without it: one line)."""
        try:
            return data.jobs[key]
        except KeyError:
            raise HeronSimError(f"--from: {data.folder}: no job {key!r} of kind {self.name} in the run folder "
                                "(a run folder of another version of the kind? rerun it)") from None

    def note_seating(self, sec: Section, job: dict) -> None:
        """The section's "Seating:" note: who sat at the table of ``job`` (a manifest entry)."""
        sec.notes.append(f"Seating: {_seating_text(job)}.")

    def __repr__(self) -> str:
        return f"<experiment kind {self.name!r} ({type(self).__module__}.{type(self).__qualname__})>"


def sample_sizes(exp: Experiment, data) -> str:
    """The section's "Sample sizes" note: the distinct batch sizes, the seed, jobs and time."""
    sizes = sorted({(j["kind"], j["n"]) for j in data.entry["jobs"]})
    return ("Sample sizes: " + "; ".join(f"{n:,} {k} per job" for k, n in sizes)
            + f"; seed {exp.seed}; {len(data.entry['jobs'])} jobs; {data.seconds:.1f} s.")


def _check_declaration(cls) -> None:
    """A kind's declaration, checked when its class is created (each failure: a KindError)."""
    at = f"{cls.__module__}.{cls.__qualname__}"
    name = cls.__dict__["name"]
    if not isinstance(name, str) or not name.isidentifier():
        raise KindError(f"{at}: name {name!r} must be a word (the kind = \"...\" of its files)")
    options = getattr(cls, "options", None)
    if not (isinstance(options, type) and issubclass(options, Experiment)):
        raise KindError(f"{at}: kind {name}: options must be a subclass of heron_sim.runner.options.Experiment, "
                        f"not {options!r}")
    kind = options.model_fields["kind"]
    if typing.get_origin(kind.annotation) is not typing.Literal or typing.get_args(kind.annotation) != (name,) \
            or kind.default != name:
        raise KindError(f"{at}: kind {name}: its options model {options.__name__} must declare "
                        f"kind: Literal[{name!r}] = {name!r}, not {kind.annotation!r} = {kind.default!r}")
    figures = cls.figures
    if not isinstance(figures, tuple) or not all(isinstance(f, str) for f in figures):
        raise KindError(f"{at}: kind {name}: figures must be a tuple of names, not {figures!r}")
    field = options.model_fields.get("figures")
    declared = tuple(field.default) if field is not None else ()
    if declared != figures:
        raise KindError(f"{at}: kind {name}: figures {figures!r} are not its options' figures {declared!r} "
                        "(declare figures: figures_of(FIGURES) = FIGURES in the options model)")
    if cls.jobs is ExperimentKind.jobs:
        raise KindError(f"{at}: kind {name} must implement jobs(exp, g)")
    fills, own = cls.fill is not ExperimentKind.fill, cls.sections is not ExperimentKind.sections
    if fills == own:
        raise KindError(f"{at}: kind {name} must implement exactly one of fill(exp, data, sec) and sections(exp, data)")
