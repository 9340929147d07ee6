"""What a report is made of, as plain data: sections holding findings, tables, figures and
machine-readable facts.

A leaf below both the analyses and the report: the experiment kinds
(:mod:`heron_sim.runner.kinds`) compute sections from a run folder, and :mod:`heron_sim.report`
renders them (HTML, Markdown, findings.json). Tables are computed first (DataFrames of numbers);
a figure is its data and the name of the drawing that shows it (:class:`Plot`), drawn only by the
report (:func:`heron_sim.report.figures.draw`), so the analyses never import the drawing code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

#: The drawings of :mod:`heron_sim.report.figures` a :class:`Plot` may name (each is a function
#: of that module taking the plot's ``args`` and ``options``; a test checks the two agree).
PLOTS = ("grouped_rates", "length_distributions", "pushback", "hazard", "forest", "heatmap", "board",
         "chance_curves")


@dataclass
class Table:
    caption: str
    frame: pd.DataFrame  # display-ready (strings), index shown
    note: str = ""
    data: pd.DataFrame | None = None  # the numbers behind it (kept for tests and CSV)


@dataclass(frozen=True)
class Plot:
    """A drawing to make: the name of a function of :mod:`heron_sim.report.figures`
    (one of :data:`PLOTS`) and the data and options it is called with."""

    kind: str
    args: tuple = ()
    options: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in PLOTS:  # a programming error: refused where the figure is made
            raise ValueError(f"plot {self.kind!r}: unknown drawing; allowed: {', '.join(PLOTS)}")


def plot(kind: str, *args: Any, **options: Any) -> Plot:
    """``plot("forest", table, label="guide")``: the drawing ``kind`` of ``args`` and ``options``."""
    return Plot(kind, args, options)


@dataclass
class Figure:
    name: str  # file stem: figures/<section>-<name>.png
    caption: str
    plot: Plot  # what to draw; the report draws it (heron_sim.report.figures.draw)


@dataclass
class Fact:
    """One figure of the report, machine-readable (``results/findings.json``): an estimate with
    its 95 % interval, the sample size behind it and their units."""

    id: str                 # stable dotted id, e.g. "modes.length.8d8"
    label: str              # what it is, in words
    estimate: float
    low: float = math.nan
    high: float = math.nan
    n: int = 0
    unit: str = ""          # "share", "rounds", "squares per turn", "percentage points", ...
    n_unit: str = "games"   # what n counts
    p: float = math.nan     # p-value of the test named in note, when there is one
    note: str = ""

    def as_dict(self) -> dict:
        def clean(x):
            return None if isinstance(x, float) and not math.isfinite(x) else x
        return {"id": self.id, "label": self.label, "estimate": clean(float(self.estimate)),
                "interval": [clean(float(self.low)), clean(float(self.high))], "n": int(self.n),
                "n_unit": self.n_unit, "unit": self.unit, "p": clean(float(self.p)), "note": self.note}


@dataclass
class Section:
    key: str
    title: str
    intro: str = ""
    findings: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Markdown blocks shown as they are (headings demoted below the section's), e.g. a
    #: lighter game's own ``summarize(df)`` text
    markdown: list[str] = field(default_factory=list)
    #: machine-readable figures (results/findings.json, the executive page)
    facts: list[Fact] = field(default_factory=list)
    #: "heron" (the main report), "appendix" (a lighter game: a page of its own) or "lab" (the lab's page)
    part: str = "heron"
    #: a lighter game's verdict (:class:`heron_sim.analysis.game_verdict.GameVerdict`): its page opens on it
    verdict: Any = None

    def fact(self, id: str, label: str, estimate: float, low: float = math.nan, high: float = math.nan,
             n: int = 0, unit: str = "", **kw) -> Fact:
        f = Fact(id, label, float(estimate), float(low), float(high), int(n), unit, **kw)
        self.facts.append(f)
        return f


# ---------------------------------------------------------------- number formatting
def pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:.{digits}f} %"


def pct_ci(x: float, lo: float, hi: float, digits: int = 1) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return pct(x, digits)
    return f"{100 * x:.{digits}f} % [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def num_ci(x: float, lo: float, hi: float, digits: int = 2) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{x:.{digits}f}"
    return f"{x:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def signed_num(v: float, digits: int) -> str:
    """``v`` with a sign and ``digits`` decimals; a value that rounds to zero reads ``+0.00``
    (never ``-0.00``: the format's ``z``)."""
    return f"{v:+z.{digits}f}"


def signed_ci(x: float, lo: float, hi: float, digits: int = 3, scale: float = 1.0, unit: str = "") -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    lo_s = signed_num(scale * lo, digits) if math.isfinite(lo) else "n/a"
    hi_s = signed_num(scale * hi, digits) if math.isfinite(hi) else "n/a"
    return f"{signed_num(scale * x, digits)}{unit} [{lo_s}, {hi_s}]"
