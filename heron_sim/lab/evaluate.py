"""Playing candidates: sums for the search, per-game columns and replicate sums for racing.

Every candidate of a phase plays the same games (common random numbers): the search plays
game indices ``0 .. games - 1``, racing rung ``r`` plays ``(r + 1) * FRESH ..`` (streams the
search never used). Batches go through an executor (heron_sim.runner.executor).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..io import mkdir, read_arrays, write_arrays
from ..runner.executor import split_games
from .metrics import IX, K, Bootstrap, batch_matrix, rate_halfwidths

BOOT_B = 1000


def batch_sums(batch) -> np.ndarray:
    """Play one batch; return the column sums (int64[K]) — all the search needs."""
    return batch_matrix(batch).sum(axis=0, dtype=np.int64)


class Evaluator:
    def __init__(self, spec, executor, cache_dir: Path | None = None, progress=None, log=None):
        self.spec = spec
        self.executor = executor
        self.log = log or (lambda s: None)
        self.cache = Path(cache_dir) if cache_dir else None
        if self.cache:
            mkdir(self.cache)
        self.progress = progress  # called with the games of each finished batch
        self.games_played = 0

    def _batches(self, rules, first_game, games):
        return split_games(rules, self.spec.seating, self.spec.seed, games, first_game=first_game,
                           batch_games=self.spec.batch_games, threads=None)

    def _tick(self, batch):
        self.games_played += batch.games
        if self.progress is not None:
            self.progress(batch.games)

    # ------------------------------------------------------------ search: sums only
    def sums(self, rules_list, first_game: int, games: int) -> list[np.ndarray]:
        """Column sums of each rules set over the same games."""
        batches, owner = [], []
        for j, r in enumerate(rules_list):
            for b in self._batches(r, first_game, games):
                batches.append(b)
                owner.append(j)
        res = self.executor.map(batch_sums, batches, progress=self._tick)
        out = [np.zeros(K, dtype=np.int64) for _ in rules_list]
        for j, s in zip(owner, res):
            out[j] += s
        return out

    def cached_sums(self, key: str, rules, first_game: int, games: int) -> np.ndarray:
        path = self.cache / f"sums-{key}-{self._key(rules, first_game, games)}.arrays" if self.cache else None
        z = self._load(path)
        if z is not None and "sums" in z:
            return z["sums"]
        s = self.sums([rules], first_game, games)[0]
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
    def _key(self, rules, first_game, games) -> str:
        from .._numba_cache import _sources_hash

        # The engine's source hash too: a changed engine never re-uses a cached evaluation.
        blob = f"{rules.digest()}|{self.spec.seating}|{self.spec.seed}|{first_game}|{games}|{BOOT_B}|{_sources_hash()}"
        return hashlib.sha256(blob.encode()).hexdigest()[:20]

    def replicates(self, rules_list, first_game: int, games: int, boot_seed: int):
        """(sums [K], replicate sums [B, K]) of each rules set over the same games, the
        replicates under the same Poisson weights (so contrasts are paired by game). Cached
        per rules set in the run folder: an interrupted rung resumes without replaying."""
        out: list = [None] * len(rules_list)
        todo = []
        for j, r in enumerate(rules_list):
            path = self.cache / f"boot-{self._key(r, first_game, games)}-{boot_seed}.arrays" if self.cache else None
            z = self._load(path)
            if z is not None and {"sums", "reps"} <= set(z):
                out[j] = (z["sums"], z["reps"])
            else:
                todo.append((j, path))
        if todo:
            batches, owner = [], []
            for j, _ in todo:
                for b in self._batches(rules_list[j], first_game, games):
                    batches.append(b)
                    owner.append(j)
            res = self.executor.map(batch_matrix, batches, progress=self._tick)
            X = {j: np.concatenate([m for o, m in zip(owner, res) if o == j]).astype(np.int16) for j, _ in todo}
            boot = Bootstrap([X[j] for j, _ in todo], B=BOOT_B, seed=boot_seed)
            for k, (j, path) in enumerate(todo):
                out[j] = (boot.sums[k], boot.reps[k])
                if path is not None:
                    write_arrays(path, sums=boot.sums[k], reps=boot.reps[k])
        return out


def max_rate_halfwidth(sums: np.ndarray, players: int) -> float:
    return max(rate_halfwidths(sums, players).values())


__all__ = ["Evaluator", "batch_sums", "max_rate_halfwidth", "IX"]
