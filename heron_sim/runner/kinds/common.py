"""Helpers shared by the experiment kinds: display tables, sample sizes, names."""

from __future__ import annotations

import pandas as pd

from ...analysis.judge import TARGETS

NO_ANXIETY = 99  # anxiety_threshold that never triggers (ablation)

#: Time of one player's turn at the table (roll up to three times, keep, move, apply a square),
#: from the designer's targets (``seconds_per_turn``: 40 s assumed until a timed playtest sets it);
#: lengths in minutes scale with it.
SECONDS_PER_TURN = TARGETS["seconds_per_turn"]

#: The game's own names of the guides (animals), by code name.
GUIDE_FR = {"loup": "Loup", "taureau": "Taureau", "serpent": "Serpent", "lion": "Lion", "aigle": "Aigle",
            "cerf": "Cerf", "heron": "Héron", "all": "all"}

#: Modes in the report's order.
MODE_ORDER = ("8d8", "7d8", "10d8", "10d6")


def minutes(rounds: float, players: int) -> float:
    """Minutes at the table for ``rounds`` rounds of ``players`` turns at SECONDS_PER_TURN each."""
    return rounds * players * SECONDS_PER_TURN / 60


def mode_sorted(modes) -> list:
    """Modes in the report's order (8 D8, 7 D8, 10 D8, 10 D6), unknown ones last."""
    rank = {m: i for i, m in enumerate(MODE_ORDER)}
    return sorted(dict.fromkeys(modes), key=lambda m: (rank.get(m, len(rank)), m))


def _disp(cols: dict, index=None) -> pd.DataFrame:
    """A display table from columns that may be Series with a different index than ``index``
    (values are taken by position, never aligned)."""
    cols = {k: (v.to_numpy() if isinstance(v, pd.Series) else v) for k, v in cols.items()}
    if isinstance(index, pd.Series):
        index = pd.Index(index.to_numpy(), name=index.name)
    return pd.DataFrame(cols, index=index)


def _n(exp_n: int, override: int | None, factor: float = 1.0) -> int:
    return max(1, int(override * factor)) if override is not None else exp_n


def _seating_text(job: dict) -> str:
    s = job["seatings"]
    if not s:
        return job.get("strategy", "")
    if len(s) == 1:
        return ", ".join(s[0])
    names = list(dict.fromkeys(x for seating in s for x in seating))
    if set(names) != set(s[0]):  # more strategies than seats: name every one, not the first seating's
        return ", ".join(names) + f" ({len(s[0])} seats at a time, rotated over {len(s)} seatings)"
    return ", ".join(s[0]) + f" (rotated over {len(s)} seatings)"


def _mode_name(m: str) -> str:
    n, d = m.split("d")
    return f"{n} D{d}"


def _fmt_cell(x):
    if isinstance(x, float):
        return f"{x:.4g}"
    return x


