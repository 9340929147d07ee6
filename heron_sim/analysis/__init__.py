"""Metrics and intervals over result DataFrames."""

from .intervals import wilson
from .metrics import (doubling_share, drama, game_metrics, guide_table, length_table, ludii_metrics,
                      rule_coverage, seat_table, strategy_table, variance_explained)
from .stats import (binom_test, bootstrap_interval, chi2_sf, eta_squared, holm, paired_difference,
                    t_interval, two_proportions)
from .summary import summarize, summary_table

__all__ = [
    "binom_test", "bootstrap_interval", "chi2_sf", "doubling_share", "drama", "eta_squared", "game_metrics",
    "guide_table", "holm", "length_table", "ludii_metrics", "paired_difference",
    "rule_coverage", "seat_table", "strategy_table", "summarize", "summary_table", "t_interval",
    "two_proportions", "variance_explained", "wilson",
]
