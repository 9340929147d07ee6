"""Metrics and intervals over result DataFrames."""

from .intervals import mean_interval, wilson
from .summary import summarize, summary_table

__all__ = ["mean_interval", "summarize", "summary_table", "wilson"]
