"""Run to a precision: play batches until the headline win rates' 95 % intervals are that narrow.

The headline win rates are each seat's win rate and each guide's win rate when dealt (Wilson
intervals, as ``summarize`` reports them). Games are played in blocks on consecutive indices
(game i draws from stream (seed, i)), so the result is the same as one run of that many games.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import HeronSimError
from .metrics import matrix_from_rows, rate_halfwidths  # noqa: F401 - the same rates as the lab


def widest_halfwidth(df: pd.DataFrame) -> float:
    """Widest 95 % Wilson half-width over the seats' and guides' (when dealt) win rates."""
    from ..analysis import summarize

    s = summarize(df)
    widths = [(hi - lo) / 2 for lo, hi in s["win_rate_by_seat_ci"]]
    widths += [(hi - lo) / 2 for lo, hi in s["win_rate_by_guide_ci"].values()]
    # no finished game yet: the rates are NaN (wins / finished games), so not narrow at all
    widths = [w if w == w else float("inf") for w in widths]
    return float(max(widths)) if widths else float("inf")


def simulate_to_precision(rules, precision: float, seed: int = 1, strategies="greedy", *, block: int = 10_000,
                          max_games: int = 5_000_000, threads: int | None = None, progress=None) -> pd.DataFrame:
    """Play blocks of ``block`` games until :func:`widest_halfwidth` <= ``precision`` (or
    ``max_games``). ``df.attrs``: games_used, halfwidth, precision, reached."""
    from ..simulation import simulate

    if not 0 < precision < 0.5:
        raise HeronSimError(f"--precision: {precision}; allowed: a half-width between 0 and 0.5 (e.g. 0.005)")
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise HeronSimError(f"--games: {block}; allowed: >= 1 with --precision (the games per block)")
    parts: list[pd.DataFrame] = []
    done = 0
    width = float("inf")
    interrupted = False
    while done < max_games and width > precision:
        n = min(block, max_games - done)
        part = simulate(rules, n, seed, strategies, first_game=done, threads=threads, progress=progress)
        parts.append(part)
        done += len(part)
        if part.attrs.get("interrupted"):
            interrupted = True
            break
        width = widest_halfwidth(pd.concat(parts, ignore_index=True))
    df = pd.concat(parts, ignore_index=True)
    df.attrs.update({"games_used": int(len(df)), "halfwidth": float(width), "precision": float(precision),
                     "reached": bool(width <= precision), "interrupted": interrupted,
                     "max_games": int(max_games)})
    return df


def stop_reason(df: pd.DataFrame) -> str:
    """Why a precision run stopped, truly: interrupted, precision reached, or the game cap."""
    a = df.attrs
    if a.get("interrupted"):
        return "interrupted before the precision was reached"
    if a.get("reached"):
        return "precision reached"
    return f"not reached: game cap of {a.get('max_games', a.get('games_used', 0)):,} games"


__all__ = ["simulate_to_precision", "stop_reason", "widest_halfwidth", "np"]
