"""What a report is made of: sections holding findings, tables and figures.

Tables are computed first (DataFrames of numbers), then shown as text and drawn; a figure is
kept as a function that draws it, so a section can be rendered to HTML, Markdown, or both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd


@dataclass
class Table:
    caption: str
    frame: pd.DataFrame  # display-ready (strings), index shown
    note: str = ""
    data: pd.DataFrame | None = None  # the numbers behind it (kept for tests and CSV)


@dataclass
class Figure:
    name: str  # file stem: figures/<section>-<name>.png
    caption: str
    draw: Callable[[], object]  # returns a matplotlib Figure


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


def signed_ci(x: float, lo: float, hi: float, digits: int = 3, scale: float = 1.0, unit: str = "") -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    lo_s = f"{scale * lo:+.{digits}f}" if math.isfinite(lo) else "n/a"
    hi_s = f"{scale * hi:+.{digits}f}" if math.isfinite(hi) else "n/a"
    return f"{scale * x:+.{digits}f}{unit} [{lo_s}, {hi_s}]"
