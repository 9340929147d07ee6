"""Playing candidates: sums for the search, per-game columns and replicate sums for racing.

Every candidate of a phase plays the same games (common random numbers): the search plays
game indices ``0 .. games - 1``, racing rung ``r`` plays ``(r + 1) * FRESH ..`` (streams the
search never used). Batches go through an executor (heron_sim.runner.executor).
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ..io import mkdir, read_arrays, write_arrays
from dataclasses import dataclass

from ..runner.executor import Batch, split_games
from .metrics import IX, K, Bootstrap, batch_matrix, batch_matrix_luck, luck_adjusted_columns, rate_halfwidths

BOOT_B = 1000


def batch_sums(batch) -> np.ndarray:
    """Play one batch; return the column sums (int64[K]) — all the search needs."""
    return batch_matrix(batch).sum(axis=0, dtype=np.int64)


@dataclass(frozen=True)
class TableBatch(Batch):
    """A batch of one table of a panel: its kinds (the table's distinct strategies, in order)
    name the kinds' columns (heron_sim.lab.metrics.matrix_from_rows)."""

    kinds: tuple = ()


def _table_batch(b, kinds: tuple, streak_every: int) -> "TableBatch":
    import dataclasses

    kw = {f.name: getattr(b, f.name) for f in dataclasses.fields(b)}
    if streak_every:
        kw["streak_every"] = streak_every
    return TableBatch(**kw, kinds=kinds)


class Evaluator:
    """Plays candidates over the study's panel. A *candidate* is a tuple of rules, one per
    scenario (:meth:`heron_sim.lab.spec.TuneSpec.rules_for`); its sums are ``[n_scenarios, K]``.
    Scenario i plays its seatings on the streams (``spec.scenario_seed(i)``, game)."""

    def __init__(self, spec, executor, cache_dir: Path | None = None, progress=None, log=None):
        self.spec = spec
        self.executor = executor
        self.log = log or (lambda s: None)
        self.cache = Path(cache_dir) if cache_dir else None
        if self.cache:
            mkdir(self.cache)
        self.progress = progress  # called with the games of each finished batch
        self.games_played = 0
        #: games not replayed: a scenario's rules played like rules already played (:meth:`sums`)
        self.games_reused = 0
        self._played: dict = {}  # (scenario, behaviour digest, first game, games, streaks) -> sums
        self.panel = list(spec.panel) or [None]
        # the dead-turn streaks need games replayed turn by turn: only for a study that names them
        from .metrics import STREAK_EVERY, STREAK_METRICS

        named = {x.metric for x in (*getattr(spec, "objectives", ()), *getattr(spec, "constraints", ()))}
        self.streak_every = STREAK_EVERY if named & set(STREAK_METRICS) else 0

    def _seatings(self, i):
        sc = self.panel[i]
        return self.spec.seating if sc is None else tuple(tuple(x) for x in sc.seatings())

    def _kinds(self, i) -> tuple:
        """The table's distinct strategies in a fixed order (heron_sim.lab.metrics: the kinds'
        columns, the same in every seating of its rotation)."""
        sc = self.panel[i]
        names = [n for s in self._seatings(i) for n in s] if sc is None else list(sc.strategies)
        return tuple(dict.fromkeys(names))

    def _batches(self, rules, i, first_game, games, luck: bool = False):
        out = split_games(rules, self._seatings(i), self.spec.scenario_seed(i), games, first_game=first_game,
                          batch_games=self.spec.batch_games, threads=None, luck=luck)
        kinds = self._kinds(i)
        return [_table_batch(b, kinds, self.streak_every) for b in out]

    def _tick(self, batch):
        self.games_played += batch.games
        if self.progress is not None:
            self.progress(batch.games)

    # ------------------------------------------------------------ search: sums only
    def sums(self, cands, first_game: int, games: int) -> list[np.ndarray]:
        """Column sums ``[n_scenarios, K]`` of each candidate over the same games.

        A scenario whose rules play like rules already played on these games (the same
        ``Rules.behaviour()``: they differ only by a key that changes nothing there, e.g.
        ``heron_doubling_min_set`` while ``heron_doubling_herons = 0``) is not replayed: its sums
        are those games' sums, the same numbers playing them would give."""
        batches, owner, new, copies = [], [], {}, []
        for j, cand in enumerate(cands):
            for i, r in enumerate(cand):
                key = (i, r.behaviour().digest(), first_game, games, self.streak_every)
                if key in self._played or key in new:
                    copies.append((j, i, key))
                    continue
                new[key] = (j, i)
                for b in self._batches(r, i, first_game, games):
                    batches.append(b)
                    owner.append((j, i))
        res = self.executor.map(batch_sums, batches, progress=self._tick)
        out = [np.zeros((len(c), K), dtype=np.int64) for c in cands]
        for (j, i), s in zip(owner, res):
            out[j][i] += s
        for key, (j, i) in new.items():  # every batch finished (an interruption raises above)
            self._played[key] = out[j][i].copy()
        for j, i, key in copies:
            out[j][i] = self._played[key].copy()
            self.games_reused += games
            if self.progress is not None:
                self.progress(games)
        return out

    def cached_sums(self, key: str, cand, first_game: int, games: int) -> np.ndarray:
        path = self.cache / f"sums-{key}-{self._key(cand, first_game, games)}.arrays" if self.cache else None
        z = self._load(path)
        if z is not None and "sums" in z:
            return z["sums"]
        s = self.sums([cand], first_game, games)[0]
        if path is not None:
            write_arrays(path, sums=s)
        return s

    def _load(self, path):
        """A cached evaluation (checksummed, heron_sim.io.write_arrays), or None: missing, or
        damaged (then recomputed; one line says so)."""
        if path is None or not path.exists():
            return None
        z = read_arrays(path)
        if z is None:
            self.log(f"{path}: damaged cached evaluation (checksum); recomputing it")
        return z

    # ------------------------------------------------------------ racing: columns + bootstrap
    def _key(self, cand, first_game, games, luck: bool = False) -> str:
        from .._numba_cache import _sources_hash

        # The engine's source hash too: a changed engine never re-uses a cached evaluation.
        sc = [(r.digest(), self._seatings(i), self.spec.scenario_seed(i)) for i, r in enumerate(cand)]
        blob = f"{sc}|{first_game}|{games}|{BOOT_B}|{K}|{_sources_hash()}" + ("|luck-adjusted/1" if luck else "")
        return hashlib.sha256(blob.encode()).hexdigest()[:20]

    def replicates(self, cands, first_game: int, games: int, boot_seed: int, luck: bool = False):
        """(sums [n_sc, K], replicate sums [n_sc, B, K]) of each candidate over the same games,
        the replicates of a scenario under the same Poisson weights for every candidate (so
        contrasts are paired by game). Cached per candidate in the run folder: an interrupted
        rung resumes without replaying. ``luck``: the games are played with their luck and the
        sums have :data:`~heron_sim.lab.metrics.KA` columns, the luck-adjusted wins after the K
        plain ones (:meth:`_luck_columns`; the same games, the same weights)."""
        out: list = [None] * len(cands)
        todo = []
        for j, c in enumerate(cands):
            path = (self.cache / f"boot-{self._key(c, first_game, games, luck)}-{boot_seed}.arrays"
                    if self.cache else None)
            z = self._load(path)
            if z is not None and {"sums", "reps"} <= set(z):
                out[j] = (z["sums"], z["reps"])
            else:
                todo.append((j, path))
        if todo:
            n_sc = len(cands[todo[0][0]])
            if not luck:
                batches, owner = [], []
                for j, _ in todo:
                    for i, r in enumerate(cands[j]):
                        for b in self._batches(r, i, first_game, games):
                            batches.append(b)
                            owner.append((j, i))
                res = self.executor.map(batch_matrix, batches, progress=self._tick)
            sums = {j: [] for j, _ in todo}
            reps = {j: [] for j, _ in todo}
            def boot_of(i):  # scenario i's bootstrap (its own seed: the same whatever the order)
                if luck:  # a table's games played now, candidate by candidate, and let go after
                    X = [self._luck_columns(cands[j][i], i, first_game, games) for j, _ in todo]
                else:
                    X = [np.concatenate([m for o, m in zip(owner, res) if o == (j, i)]).astype(np.int16)
                         for j, _ in todo]
                return Bootstrap(X, B=BOOT_B, seed=boot_seed + 104_729 * i)

            if luck:  # the games' batches keep the cores busy: one table after the other
                boots = [boot_of(i) for i in range(n_sc)]
            else:
                # the scenarios' bootstraps side by side (their weights' draws and products release
                # the GIL): the cores were idle while one thread drew them, scenario after scenario
                with ThreadPoolExecutor(max_workers=max(1, min(n_sc, os.cpu_count() or 1))) as pool:
                    boots = list(pool.map(boot_of, range(n_sc)))
            for i, boot in enumerate(boots):
                for k, (j, _) in enumerate(todo):
                    sums[j].append(boot.sums[k])
                    reps[j].append(boot.reps[k])
            for j, path in todo:
                out[j] = (np.stack(sums[j]), np.stack(reps[j]))
                if path is not None:
                    write_arrays(path, sums=out[j][0], reps=out[j][1])
        return out

    def _luck_columns(self, rules, i: int, first_game: int, games: int) -> np.ndarray:
        """float32[games, KA]: one candidate's games of scenario ``i`` played with their luck,
        the K plain columns then the luck-adjusted wins
        (:func:`~heron_sim.lab.metrics.luck_adjusted_columns`, cross-fitted on these games); the
        plain wins again where the luck is not measured (dice that differ). One candidate and
        table at a time: the luck features (48 floats a seat and game) never pile up."""
        parts = self.executor.map(batch_matrix_luck, self._batches(rules, i, first_game, games, luck=True),
                                  progress=self._tick)
        X = np.concatenate([p[0] for p in parts])
        F = None if any(p[1].size == 0 for p in parts) else np.concatenate([p[1] for p in parts])
        H = np.concatenate([p[2] for p in parts])
        A = luck_adjusted_columns(X, F, H)
        return np.hstack([X.astype(np.float32), A.astype(np.float32)])


def max_rate_halfwidth(sums: np.ndarray, players) -> float:
    """Widest headline win-rate half-width; over every scenario when ``sums`` is [n_sc, K]
    and ``players`` a list (one per scenario)."""
    sums = np.asarray(sums)
    if sums.ndim == 1:
        return max(rate_halfwidths(sums, players).values())
    return max(max(rate_halfwidths(sums[i], p).values()) for i, p in enumerate(players))


__all__ = ["Evaluator", "batch_sums", "max_rate_halfwidth", "IX"]
