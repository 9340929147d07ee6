"""The worth of a position: each seat's chance of winning the game from the start of a turn.

Model
-----
A seat's journey is a Markov chain on what it holds at the start of each of its own turns: its
square, its Guide and whether the Guide's power is ready. The chain's step, from one of its turns
to its next, is *measured* on self-play games (heron_sim.analysis.positions replays them turn
slot by turn slot): it contains the seat's own turn (its dice, its powers, the squares, the
Angoisse, its own Étang) and what the other players did to it before its next turn (an Étang's
push-back, a swap). The step is counted separately for each Guide, power state and square, so the
board's special squares, the Guides' powers and the rules file's values are in it as the games
played them -- no value of a square or a power is written here. Sparse counts are smoothed
towards the same square and power state over every Guide, then towards the same square.

From the chain, each state's law of the number of own turns to reach the finish
(:attr:`Worth.hit`, by iterating the step). At the start of a slot the seats finish in turn
order, so seat ``i`` wins when it finishes at its ``t``-th turn and every seat before it in the
order (from the seat to move) needs more than ``t`` turns and every seat after it ``t`` or more:

    P(i wins) = sum_t h_i(t) * prod_{j before i} S_j(t) * prod_{j after i} S_j(t - 1)

(``h``: the law of the turns to finish, ``S``: its survival). The seats' chains are taken as
independent given the state (the measured step already contains the others' average effect);
what this misses is measured and corrected: taken alone, the independent chains are too sure of a
lead (a lead is less safe than they say, most of all early: the Étang, the Aigle's swap and the
Guides' powers tie the seats together), so the chances are recalibrated: for each stage of the
game (the leader's square, in eighths of the board) and separately for the seat to move and the
others, the build's own self-play positions are cut into ``BINS`` equal groups by chance, and a
chance is mapped to the share of wins of the groups around it (linear between the groups' mean
chances, made non-decreasing), then normalised over the seats. :func:`reliability` then
compares the chances with the observed winners on held-out games, decile by decile
(docs/worth.md).

The model is built for one rule set (its digest), one number of players and the strategies
seated, and cached on disk beside the expert's tables.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from ..animals import N_ANIMALS
from ..errors import HeronSimError

#: Turns followed by the hitting laws: beyond it a seat is taken as never finishing (the round
#: cap of the rulings is 500; the survival left there is reported by :meth:`Worth.tail`).
HORIZON = 400
#: Weight, in observed steps, of the smoothing prior of a state's step.
PRIOR_WEIGHT = 20.0
#: Version of the model and of its cache files.
VERSION = 3
#: Self-play games a model is built from by default.
BUILD_GAMES = 20_000
#: Stages of the game for the recalibration (the leader's square, in equal parts of the board).
STAGES = 8
#: Groups of positions by chance, per stage and role (to move or not), of the recalibration.
BINS = 25


@dataclass
class Worth:
    """The worth of positions for one rule set, number of players and seating.

    ``hit[k]``: float64[HORIZON + 1, N_ANIMALS, 2, finish] for the k-th strategy of
    ``strategies``: ``hit[k][t, g, r, s]`` = P(the seat finishes at its t-th turn from now | it
    holds Guide g, power ready r, on square s, at the start of its turn). ``steps[k]``: the
    observed steps the chain was counted from; ``calibration``: float64[2, STAGES, 2, BINS], the
    recalibration's map by stage of the game and role (0: the seat to move, 1: the others):
    ``calibration[0]`` the groups' mean chance, ``calibration[1]`` their share of wins
    (:func:`identity_calibration`: the chains' own chances)."""

    digest: str
    players: int
    finish: int
    seating: tuple
    strategies: tuple
    hit: tuple
    steps: tuple
    games: int
    seed: int
    calibration: np.ndarray

    def chances(self, pos, guide, ready, to_move) -> np.ndarray:
        """Each seat's chance of winning (float64[n, players]) from ``n`` positions at the start
        of a slot: squares, Guides, powers ready (int[n, players]) and the seat to move (int[n])."""
        raw = self.raw_chances(pos, guide, ready, to_move)
        pos = np.atleast_2d(np.asarray(pos))
        role = roles(np.atleast_1d(np.asarray(to_move)), pos.shape[1])
        return recalibrated(raw, stage_of(pos, self.finish), role, self.calibration)

    def raw_chances(self, pos, guide, ready, to_move) -> np.ndarray:
        """The independent chains' chances, untempered (see the module's docstring)."""
        pos = np.atleast_2d(np.asarray(pos, dtype=np.int64))
        guide = np.atleast_2d(np.asarray(guide, dtype=np.int64))
        ready = np.atleast_2d(np.asarray(ready, dtype=np.int64))
        to_move = np.atleast_1d(np.asarray(to_move, dtype=np.int64))
        n, P = pos.shape
        if P != self.players or guide.shape != pos.shape or ready.shape != pos.shape or to_move.shape != (n,):
            raise HeronSimError(f"positions of {P} seats given to a worth of {self.players} players")
        if n and (pos.min() < 0 or pos.max() >= self.finish or guide.min() < 0 or guide.max() >= N_ANIMALS
                  or ready.min() < 0 or ready.max() > 1 or to_move.min() < 0 or to_move.max() >= P):
            raise HeronSimError("a position out of range (squares 0 .. finish - 1, Guides 0 .. 6, "
                                "ready 0 or 1, seat to move 0 .. players - 1)")
        kind = np.array([self.strategies.index(s) for s in self.seating], dtype=np.int64)
        hit, surv = self._tables()
        F = self.finish
        n_states = N_ANIMALS * 2 * F
        # a seat's row of the tables: its strategy's block, then (Guide * 2 + ready) * F + square
        x = kind[None, :] * n_states + (guide * 2 + ready) * F + pos
        out = np.empty((n, P), dtype=np.float64)
        _race(hit, surv, x, to_move, out)
        return out

    def _tables(self):
        """The hitting laws and survivals of every strategy, stacked: float64[strategies *
        states, T] (state = (Guide * 2 + ready) * finish + square)."""
        if getattr(self, "_cache", None) is None:
            hs = [np.ascontiguousarray(h.reshape(h.shape[0], -1).T) for h in self.hit]
            hit = np.vstack(hs)
            surv = np.clip(1.0 - np.cumsum(hit, axis=1), 0.0, 1.0)
            self._cache = (hit, np.ascontiguousarray(surv))
        return self._cache

    def tail(self) -> float:
        """The largest chance, over every state, of not finishing within the horizon."""
        return max(float(1.0 - h.sum(axis=0).min()) for h in self.hit)

    # -------------------------------------------------------------- cache
    def save(self, path: Path) -> None:
        arrays = {f"hit{k}": h for k, h in enumerate(self.hit)}
        arrays.update({f"steps{k}": s for k, s in enumerate(self.steps)})
        meta = {"digest": self.digest, "players": self.players, "finish": self.finish,
                "seating": list(self.seating), "strategies": list(self.strategies),
                "games": self.games, "seed": self.seed, "version": VERSION,
                "calibration": self.calibration.tolist()}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> "Worth":
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if meta.get("version") != VERSION:
                raise ValueError("old version")
            k = len(meta["strategies"])
            return cls(meta["digest"], meta["players"], meta["finish"], tuple(meta["seating"]),
                       tuple(meta["strategies"]), tuple(z[f"hit{i}"] for i in range(k)),
                       tuple(z[f"steps{i}"] for i in range(k)), meta["games"], meta["seed"],
                       np.array(meta["calibration"], dtype=np.float64))


@njit(cache=True)
def _race(hit, surv, x, to_move, out):
    """Each seat's chance of finishing first (see the module's docstring), stopped once every
    seat's chance of still racing is below 1e-13."""
    n, P = x.shape
    T = hit.shape[1]
    before = np.empty(P)
    for i in range(n):
        for j in range(P):
            out[i, j] = 0.0
        m = to_move[i]
        for t in range(1, T):
            # prefix: seats earlier in the order need more than t turns; suffix: later ones t - 1
            acc = 1.0
            for k in range(P):
                before[k] = acc
                acc *= surv[x[i, (m + k) % P], t]
            acc = 1.0
            for k in range(P - 1, -1, -1):
                seat = (m + k) % P
                out[i, seat] += hit[x[i, seat], t] * before[k] * acc
                acc *= surv[x[i, seat], t - 1]
            if acc < 1e-13:  # every seat's chance of racing on at t - 1, multiplied
                break


def stage_of(pos: np.ndarray, finish: int) -> np.ndarray:
    """The stage of the game (0 .. STAGES - 1) of positions (int[n, players]): the leader's
    square in equal parts of the board."""
    return np.minimum(pos.max(axis=1) * STAGES // finish, STAGES - 1).astype(np.int64)


def roles(to_move: np.ndarray, players: int) -> np.ndarray:
    """int[n, players]: 0 for the seat to move, 1 for the others."""
    return (np.arange(players)[None, :] != np.asarray(to_move)[:, None]).astype(np.int64)


def identity_calibration() -> np.ndarray:
    """The recalibration that keeps the chains' chances (:attr:`Worth.calibration`)."""
    grid = np.linspace(0.0, 1.0, BINS)
    return np.broadcast_to(grid, (2, STAGES, 2, BINS)).copy()


def recalibrated(p: np.ndarray, stage: np.ndarray, role: np.ndarray, cal: np.ndarray) -> np.ndarray:
    """The chances ``p`` (float[n, players]) through the map ``cal`` of their stage (int[n]) and
    role (int[n, players]), normalised over the seats."""
    q = np.empty_like(p)
    for k in range(STAGES):
        rows = stage == k
        if not rows.any():
            continue
        for r in (0, 1):
            sel = rows[:, None] & (role == r)
            q[sel] = np.interp(p[sel], cal[0, k, r], cal[1, k, r])
    q = np.maximum(q, 1e-9)
    return q / q.sum(axis=1, keepdims=True)


def fit_calibration(raw: np.ndarray, won: np.ndarray, stage: np.ndarray, role: np.ndarray,
                    least: int = 2000) -> np.ndarray:
    """The map (see :attr:`Worth.calibration`) from positions of known outcome: per stage and
    role, ``BINS`` equal groups by chance, each group's mean chance and share of wins (the
    shares made non-decreasing); the identity where a stage and role have fewer than ``least``
    seat-positions."""
    cal = identity_calibration()
    for k in range(STAGES):
        rows = stage == k
        for r in (0, 1):
            sel = rows[:, None] & (role == r)
            p, y = raw[sel], won[sel].astype(np.float64)
            if p.size < least:
                continue
            order = np.argsort(p, kind="stable")
            group = np.empty(p.size, dtype=np.int64)
            group[order] = np.arange(p.size) * BINS // p.size
            n = np.bincount(group, minlength=BINS)
            cal[0, k, r] = np.bincount(group, weights=p, minlength=BINS) / n
            cal[1, k, r] = np.maximum.accumulate(np.bincount(group, weights=y, minlength=BINS) / n)
    return cal


# ------------------------------------------------------------------ the chain
def count_steps(trace, strategies) -> list[np.ndarray]:
    """Each strategy's observed steps: int64[N_ANIMALS, 2, finish, finish + 1, 2], a seat's
    (Guide, ready, square) at the start of one of its turns against (square, ready) at the start
    of its next turn (square ``finish``: it won in between, on its own turn). A seat whose next
    turn never came because another seat won is not counted (the step is cut, not observed)."""
    P, F = trace.players, trace.finish
    counts = [np.zeros((N_ANIMALS, 2, F, F + 1, 2), dtype=np.int64) for _ in strategies]
    kind = [strategies.index(s) for s in trace.seating]
    game, move = trace.game.astype(np.int64), trace.to_move.astype(np.int64)
    rows = np.arange(len(game))
    for j in range(P):
        mine = rows[move == j]
        if mine.size == 0:
            continue
        g0 = game[mine]
        same = g0[1:] == g0[:-1]
        a, b = mine[:-1][same], mine[1:][same]
        c = counts[kind[j]]
        np.add.at(c, (trace.guide[a, j], trace.ready[a, j], trace.pos[a, j], trace.pos[b, j],
                      trace.ready[b, j]), 1)
        # the seat's last turn of each game: won on it, or cut by another seat's win
        last = mine[np.r_[~same, True]]
        won = trace.winner[game[last]] == j
        last = last[won]
        np.add.at(c, (trace.guide[last, j], trace.ready[last, j], trace.pos[last, j], F, 0), 1)
    return counts


def _normalise(c: np.ndarray, prior: np.ndarray, weight: float) -> np.ndarray:
    """(counts + weight * prior) / (total + weight), over the last two axes."""
    total = c.sum(axis=(-2, -1), keepdims=True)
    return (c + weight * prior) / (total + weight)


def chain_of(counts: np.ndarray, weight: float = PRIOR_WEIGHT) -> np.ndarray:
    """The smoothed step: float64[N_ANIMALS, 2, finish, finish + 1, 2], each (Guide, ready,
    square) row a law over (square, ready) at the next turn. Priors: the same (ready, square)
    over every Guide, then the same square, then the mean advance seen anywhere."""
    c = counts.astype(np.float64)
    F = c.shape[2]
    by_square = c.sum(axis=(0, 1))                      # [F, F + 1, 2]
    # last prior: the advance law over every square, shifted (finish when it reaches it)
    adv = np.zeros(2 * F + 1)
    for s in range(F):
        row = by_square[s].sum(axis=1)
        adv[F + np.arange(-s, F + 1 - s)] += row
    adv = adv / max(adv.sum(), 1.0)
    shifted = np.zeros((F, F + 1, 2))
    for s in range(F):
        d = np.arange(-s, F + 1 - s)
        law = adv[F + d].copy()
        law[-1] += adv[F + (F + 1 - s):].sum()  # beyond the finish: the finish
        law = law / max(law.sum(), 1e-300)
        shifted[s, :, 1] = law  # ready state unknown here: taken as ready
    k_square = _normalise(by_square, shifted, weight)
    by_ready = c.sum(axis=0)                            # [2, F, F + 1, 2]
    k_ready = _normalise(by_ready, k_square[None], weight)
    return _normalise(c, k_ready[None], weight)


def hitting_laws(chain: np.ndarray, horizon: int = HORIZON) -> np.ndarray:
    """float64[horizon + 1, N_ANIMALS, 2, finish]: P(finish at exactly the t-th turn from now),
    t = 0 (never: the seat is not on the finish at a turn's start) .. horizon."""
    G, _, F = chain.shape[:3]
    hit = np.zeros((horizon + 1, G, 2, F))
    for g in range(G):
        # transient states (r, s) -> index r * F + s
        m = chain[g][:, :, :F, :].transpose(0, 1, 3, 2).reshape(2 * F, 2 * F)
        finish = chain[g][:, :, F, :].sum(axis=-1).reshape(2 * F)
        v = finish.copy()
        for t in range(1, horizon + 1):
            hit[t, g] = v.reshape(2, F)
            v = m @ v
    return hit


#: The seed of the self-play games a worth is built from (the reports use others).
BUILD_SEED = 20_261_207


class BuildInterrupted(HeronSimError):
    """The build was stopped before its games were all played: nothing is kept."""


def build(rules, seating, games: int = BUILD_GAMES, seed: int = BUILD_SEED,
          progress=None, stop=None) -> Worth:
    """The worth of positions for ``rules`` and ``seating`` (strategy names by seat), from
    ``games`` self-play games of ``seed``. ``progress(k)``/``stop()``: as for
    :func:`heron_sim.analysis.positions.trace_turn_starts`; a stopped build raises
    :class:`BuildInterrupted` (a model from fewer games is not the one asked for)."""
    from .positions import trace_turn_starts

    if games < 100:
        raise HeronSimError(f"the worth of positions needs at least 100 self-play games (got {games})")
    seating = tuple(str(s) for s in seating)
    strategies = tuple(dict.fromkeys(seating))
    trace = trace_turn_starts(rules, seating, seed, games, stop=stop, progress=progress)
    if trace.games < games:
        raise BuildInterrupted(f"the worth of positions was not built: stopped after {trace.games:,} "
                               f"of its {games:,} self-play games (nothing kept)")
    def chains(tr):
        counts = count_steps(tr, list(strategies))
        hit = tuple(hitting_laws(chain_of(c)) for c in counts)
        return Worth(rules.digest(), int(rules.players), int(rules.finish), seating, strategies, hit,
                     tuple(counts), tr.games, int(seed), identity_calibration())

    # the recalibration is fitted out of sample (cross-fitting): each half of the games is valued
    # by the chains counted on the other half, so the map learns how sure the chains may be on
    # games they have not seen, not on their own
    raws, won, stage, role = [], [], [], []
    halves = (trace.subset(trace.game_numbers() % 2 == 0), trace.subset(trace.game_numbers() % 2 == 1))
    for fit_on, value_on in ((halves[0], halves[1]), (halves[1], halves[0])):
        w_half = chains(fit_on)
        done = np.flatnonzero(value_on.winner[value_on.game] >= 0)
        raws.append(w_half.raw_chances(value_on.pos[done], value_on.guide[done], value_on.ready[done],
                                       value_on.to_move[done]))
        won.append(value_on.won()[done])
        stage.append(stage_of(value_on.pos[done], int(rules.finish)))
        role.append(roles(value_on.to_move[done], int(rules.players)))
    w = chains(trace)
    w.games = games
    w.calibration = fit_calibration(np.concatenate(raws), np.concatenate(won), np.concatenate(stage),
                                    np.concatenate(role))
    return w


def cache_path(rules, seating, games: int, seed: int) -> Path:
    from ..strategies.expert_dp import cache_folder

    key = json.dumps({"v": VERSION, "rules": rules.digest(), "players": int(rules.players),
                      "seating": list(seating), "games": games, "seed": seed}, sort_keys=True)
    return cache_folder() / f"worth-v{VERSION}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.npz"


def cached(rules, seating, games: int | None = None, seed: int = BUILD_SEED) -> Worth | None:
    """The worth already built for these, or None (``games``: default :data:`BUILD_GAMES`)."""
    games = BUILD_GAMES if games is None else games
    path = cache_path(rules, tuple(str(s) for s in seating), games, seed)
    if path.exists():
        try:
            return Worth.load(path)
        except (OSError, ValueError, KeyError):
            return None  # a damaged or old file: built again
    return None


def worth_of(rules, seating, games: int | None = None, seed: int = BUILD_SEED,
             progress=None, stop=None) -> Worth:
    """:func:`build`, cached on disk (keyed on the rules' digest, the seating, games and seed;
    ``games``: default :data:`BUILD_GAMES`)."""
    games = BUILD_GAMES if games is None else games
    seating = tuple(str(s) for s in seating)
    w = cached(rules, seating, games, seed)
    if w is not None:
        return w
    path = cache_path(rules, seating, games, seed)
    w = build(rules, seating, games, seed, progress=progress, stop=stop)
    try:
        w.save(path)
    except OSError:
        pass  # a read-only cache: the model is still returned
    return w


# ------------------------------------------------------------------ the check
@dataclass
class Reliability:
    """Predicted chances against observed wins, decile by decile of the predicted chance.

    The seat-positions (every seat at every slot start of the finished held-out games) are
    sorted by predicted chance and cut into ``bins`` groups of equal size. Per group: ``n``,
    ``lowest``/``highest`` (its range of predicted chances), ``predicted`` (their mean),
    ``observed`` (the share that won), ``low``/``high`` (95 % interval of observed minus
    predicted, games taken as clusters: the positions of one game are not independent)."""

    lowest: np.ndarray
    highest: np.ndarray
    n: np.ndarray
    predicted: np.ndarray
    observed: np.ndarray
    low: np.ndarray
    high: np.ndarray
    games: int
    positions: int
    brier: float

    @property
    def error(self) -> np.ndarray:
        return self.observed - self.predicted

    def worst(self) -> float:
        """The largest |observed - predicted| over the groups."""
        e = np.abs(self.error[self.n > 0])
        return float(e.max()) if e.size else math.nan

    def rows(self) -> list[dict]:
        return [{"decile": b + 1, "lowest": float(self.lowest[b]), "highest": float(self.highest[b]),
                 "positions": int(self.n[b]), "predicted": float(self.predicted[b]),
                 "observed": float(self.observed[b]), "error": float(self.error[b]),
                 "error_low": float(self.low[b]), "error_high": float(self.high[b])}
                for b in range(len(self.n))]


def reliability(worth: Worth, trace, bins: int = 10) -> Reliability:
    """Check ``worth`` on ``trace`` (held-out games: another seed than the build's): every seat
    at every slot start of the finished games, by ``bins`` equal groups of predicted chance."""
    done = trace.winner[trace.game] >= 0
    p = worth.chances(trace.pos[done], trace.guide[done], trace.ready[done], trace.to_move[done])
    y = trace.won()[done].astype(np.float64)
    game = np.repeat(trace.game[done][:, None], trace.players, axis=1).ravel().astype(np.int64)
    p, y = p.ravel(), y.ravel()
    order = np.argsort(p, kind="stable")
    which = np.empty(p.size, dtype=np.int64)
    which[order] = np.arange(p.size) * bins // max(p.size, 1)
    n = np.bincount(which, minlength=bins)
    pred = np.bincount(which, weights=p, minlength=bins) / np.maximum(n, 1)
    obs = np.bincount(which, weights=y, minlength=bins) / np.maximum(n, 1)
    lowest, highest = np.full(bins, np.nan), np.full(bins, np.nan)
    low, high = np.full(bins, np.nan), np.full(bins, np.nan)
    n_games = int(game.max()) + 1 if game.size else 0
    for b in range(bins):
        sel = which == b
        if n[b] < 2:
            continue
        lowest[b], highest[b] = float(p[sel].min()), float(p[sel].max())
        # cluster-robust variance of the mean of (y - p) over the group, clusters = games
        resid = np.bincount(game[sel], weights=y[sel] - p[sel], minlength=n_games)
        half = 1.96 * math.sqrt(float((resid ** 2).sum())) / n[b]
        e = obs[b] - pred[b]
        low[b], high[b] = e - half, e + half
    brier = float(np.mean((p - y) ** 2)) if p.size else math.nan
    return Reliability(lowest, highest, n, pred, obs, low, high, int(trace.games), int(p.size), brier)
