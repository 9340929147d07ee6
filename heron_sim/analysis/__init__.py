"""Metrics and intervals over result DataFrames."""

from .intervals import mean_interval, wilson

__all__ = ["mean_interval", "wilson"]
