"""Playing one job: a batch of games (Héron or a lighter game), single turns, or a tournament,
as one labelled frame. Imported by the runner and by the warm-up (heron_sim.runner.warm)
without either importing the other."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from ..errors import HeronSimError
from .jobs import Job


def play_job(job: Job, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Simulate one job and return its raw rows (games, or turns). A plan seats many strategy
    sets: every one but greedy alone plays in the engine's shared kernel (compiled once, not
    once per set; heron_sim.loop.kernels.shared_kernel), with the same results."""
    from ..loop.kernels import shared_kernel

    with shared_kernel():
        return _play_job(job, progress)


def _play_job(job: Job, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    from ..simulation import simulate, simulate_turns

    if job.kind == "games":
        from .executor import current, play_games_job

        if current() is not None:  # --scheduler: the same frame, batches on a Dask cluster
            return play_games_job(job, current())
        chunks = len(job.seatings)
        bounds = np.linspace(0, job.n, chunks + 1).astype(int)
        parts = []
        for r, seating in enumerate(job.seatings):
            lo, hi = int(bounds[r]), int(bounds[r + 1])
            if hi > lo:
                part = simulate(job.rules, hi - lo, job.seed, seating, first_game=lo, progress=progress,
                                luck=bool(job.labels.get("luck", False)))
                parts.append(part)
                if part.attrs.get("interrupted"):
                    break
        df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        for col in [c for c in df.columns if c.startswith("strategy_")] + ["strategies", "winner_strategy"]:
            if col in df:
                df[col] = df[col].astype(str)
        return _label(df, job.n, len(df))
    if job.kind == "light":
        return play_light(job, progress)
    if job.kind == "turns":
        out = simulate_turns(job.rules, job.n, job.seed, job.strategy, job.guide, progress=progress)
        df = pd.DataFrame({"outcome": out[:, 0].astype(np.int8), "value": out[:, 1].astype(np.int16),
                           "roll": out[:, 2].astype(np.int8)})
        return _label(df, job.n, len(df))
    if job.kind == "tournament":
        from .. import tournament as tmod  # type: ignore[attr-defined]

        res = tmod.tournament(job.rules, job.labels["strategies"], job.n, job.seed)
        df = _as_frame(res)
        requested = getattr(res, "requested", job.n)
        return _label(df, requested, getattr(res, "played", requested))
    raise HeronSimError(f"job kind {job.kind!r}")


def _label(df: pd.DataFrame, requested: int, played: int) -> pd.DataFrame:
    """Record in ``df.attrs`` how many games (turns) were asked for and really played."""
    df.attrs.update(requested=int(requested), played=int(played), interrupted=int(played) < int(requested))
    return df


def play_light(job: Job, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """A lighter game's batch: chunk ``r`` of the games plays seating ``r`` on game indices
    ``lo..hi-1`` (streams ``(seed, i)``), as the Héron jobs do."""
    from ..games import get

    from ..games.base import simulate_chunks

    game = get(job.labels["game"])
    players = int(job.labels["players"])
    bounds = np.linspace(0, job.n, len(job.seatings) + 1).astype(int)
    parts = []
    for r, seating in enumerate(job.seatings):
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        if hi > lo:
            parts.extend(simulate_chunks(game, job.rules, hi - lo, players, job.seed, list(seating),
                                         progress, first_game=lo))
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    for col in ("seats", "strategies"):
        if col in df:
            df[col] = df[col].astype(str)
    return _label(df, job.n, len(df))


def _as_frame(res) -> pd.DataFrame:
    """A tournament's result as one long frame with a ``table`` column: ``ranking`` rows, then
    ``pair`` rows (strategy, opponent, wins, win_rate, low, high). Only a
    :class:`~heron_sim.tournament.TournamentResult` is accepted (no guessing at attributes)."""
    from ..tournament import TournamentResult

    if not isinstance(res, TournamentResult):
        raise TypeError(f"a tournament job returned {type(res).__name__}, not a TournamentResult")
    rk = res.ranking.assign(table="ranking")
    names = list(res.win_rate.index)
    wins = np.asarray(res.wins)
    pairs = [{"table": "pair", "strategy": a, "opponent": b, "wins": int(wins[i, j]),
              "win_rate": float(res.win_rate.loc[a, b]), "low": float(res.low.loc[a, b]),
              "high": float(res.high.loc[a, b])}
             for i, a in enumerate(names) for j, b in enumerate(names) if a != b]
    out = pd.concat([rk, pd.DataFrame(pairs)], ignore_index=True)
    out.attrs = {}
    return out
