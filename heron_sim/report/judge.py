"""The report's judgements, re-exported from their home :mod:`heron_sim.analysis.judge` (pure
functions over statistics, below the analyses and the report)."""

from ..analysis.judge import (LENGTH_MARGIN, READINGS, SHARE_MARGIN, Problem, balance_interval,  # noqa: F401
                              fair_floor, fair_floor_dealt, family_readings, guide_flag, lower_bound_size,
                              rank, reading, guide_spread_interval)
