"""The report's data types, re-exported from their home :mod:`heron_sim.sections` (a leaf
below the analyses and the report, so that the experiment kinds never import the report)."""

from ..sections import PLOTS, Fact, Figure, Plot, Section, Table, num_ci, pct, pct_ci, plot, signed_ci  # noqa: F401
