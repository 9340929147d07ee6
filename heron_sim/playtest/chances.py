"""Each logged keep-or-stop decision valued in **chances of winning the game**, as the champion
values it (heron_sim.strategies.champion), and the loss of winning chance a player's decisions
cost against the champion's (issue 57 items 4 and 5).

At a keep decision of a log that records the table (every seat's square, guide, readiness and
protection: ``squares``, ``guides``, ``guides_ready``, ``protected``, docs/calibrate.md), three
options are valued with the champion's own compiled functions on its own tables, seated at a
table of the log's size among players of one kind (``opponents``):

- **stop**: the chance of winning from where the pawn lands with the dice showing;
- **the champion's reroll**: its best keep (every legal keep of the dice, each by its chance
  averaged over the exact law of the turn's final advance after it: heron_sim.champion_tables;
  the expert's keep alone for ``champion:keeps=0``), and the dice it keeps (``C_KEEP``);
- **the logged choice**: stop, or the dice the player kept, valued the same way from the law of
  the kept dice (every kept vector of the expert's tables has its law, not only the best).

The champion takes the better of the first two. The **loss** of a decision is the champion's
choice's chance minus the logged choice's, in points of winning chance: 0 where the player chose
as the champion does, never negative (the champion's choice is the best of the same options;
negative only against ``champion:keeps=0``, whose reroll is the expert's keep). A forced stop
(no roll left, no legal reroll) is no decision and is not counted.

Assumption, named as such: the other seats are valued as players of one kind (``opponents``;
the champion's own future turns as the racer's, as when it plays), whatever the logged players
really were; for a simulated log of one kind of player, give that kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..engine.dice import count_animals
from ..engine.layout import (
    COUNTS, D_KEEP, FACE, FREE, GUIDE, HERON, KEEP, NDICE, PLAYERS, PMEMO, PMEMO_LEN, POS, PROT, READY, STATUS,
)
from ..errors import HeronSimError
from ..strategies.champion import (
    CH_AMAX, CH_PTR, CH_T, SEAT_BLOCK_COLUMN, S_TRY, S_WORDS, _others_behind, _same_state, best_keep, keep_law,
    law_chance, note_dice, stop_chance,
)
from ..strategies.expert import KEEP_STOP, keep_column
from ..strategies.expert_dp import ACTION_BITS, ENTRY
from .values import S_KIND, S_NDICE, lay_out

# out columns
C_FLAG, C_STOP, C_REROLL, C_LOGGED, C_BEST, C_KEEP = range(6)
C_WIDTH = 6
#: C_KEEP: the dice the champion's reroll keeps (bit i: die i of the row's dice).
#: C_FLAG: 1 valued; 0 no decision (forced stop, not a keep, no table); 2 dice the tables do not
#: hold; 3 no law for the champion's reroll here; 4 a logged keep with no law (every die kept)
VALUED = 1


@njit(cache=True)
def keep_chances(R, sp, w, state, seat_of, table_players, squares, guides, readies, prots, choice, kept, out):
    """out[m] (``C_*``) for every row ``m`` of ``state`` (heron_sim.playtest.values) at a table of
    w[PLAYERS] seats: the champion's seat 0 of ``sp`` plays the deciding seat, the others follow
    in their seat order (players of one kind: any order values the same)."""
    base = int(sp[0, SEAT_BLOCK_COLUMN])
    T = int(sp[0, base + CH_T])
    amax = int(sp[0, base + CH_AMAX])
    ptr0 = int(sp[0, base + CH_PTR])
    at = w[PMEMO] + w[PMEMO_LEN] - S_WORDS  # the champion's scratch (the last words of the workspace)
    p = w[PLAYERS]
    for m in range(state.shape[0]):
        for c in range(C_WIDTH):
            out[m, c] = 0.0
        if state[m, S_KIND] != D_KEEP or table_players[m] != p:
            continue
        s = seat_of[m]
        k = 1
        for j in range(p):
            d = 0 if j == s else k
            if j != s:
                k += 1
            w[POS + d] = squares[m, j]
            w[GUIDE + d] = guides[m, j]
            w[READY + d] = readies[m, j]
            w[PROT + d] = prots[m, j]
        lay_out(w, 0, state, m)
        col = keep_column(0, w, R, sp)
        if col == KEEP_STOP:
            continue
        if col < 0:
            out[m, C_FLAG] = 2.0
            continue
        count_animals(w)
        reroll = int(sp[0, col + 2])
        if reroll < 0:
            continue  # no legal reroll: a forced stop
        law = int(sp[0, ptr0 + col // ENTRY])
        if law < 0:
            out[m, C_FLAG] = 3.0
            continue
        if not _same_state(0, w, at):
            _others_behind(0, w, sp, base, T, at)
        pos = w[POS]
        note_dice(w, at)
        stop = stop_chance(0, w, R, sp, base, T, at, pos)
        go = law_chance(0, w, R, sp, base, T, at, pos, law, amax)
        go, action = best_keep(0, w, R, sp, base, T, at, pos, law, go, reroll)
        logged = stop
        if choice[m] == 1:
            n = w[NDICE]
            for j in range(6):
                w[at + S_TRY + j] = 0
            for i in range(n):
                f = w[FACE + i]
                if f != HERON and w[STATUS + i] == FREE and (kept[m] >> i) & 1:
                    w[at + S_TRY + w[KEEP + 6 + f]] += 1
            lw = keep_law(0, w, sp, base, at, law, n)
            if lw < 0:
                out[m, C_FLAG] = 4.0
                continue
            logged = law_chance(0, w, R, sp, base, T, at, pos, lw, amax)
        out[m, C_FLAG] = 1.0
        out[m, C_STOP] = stop
        out[m, C_REROLL] = go
        out[m, C_LOGGED] = logged
        out[m, C_BEST] = go if go > stop + 1e-12 else stop  # the champion's rule (champion_action)
        out[m, C_KEEP] = keep_mask(w, action)
    return out


@njit(cache=True)
def keep_mask(w, action):
    """The dice (bit i: die i) a keep action takes, as expert.apply_keep_action takes them: of
    each animal, the first free dice, as many as the action's count for its slot."""
    mask = 0
    for a in range(6):
        w[COUNTS + a] = (action >> (ACTION_BITS * w[KEEP + 6 + a])) & 15
    for i in range(w[NDICE]):
        f = w[FACE + i]
        if f != HERON and w[STATUS + i] == FREE and w[COUNTS + f] > 0:
            mask |= 1 << i
            w[COUNTS + f] -= 1
    return mask


def _valuer(rules, players: int, opponents: str, champion: str = "champion"):
    """(R, sp, w) of a ``champion`` (its name and parameters) at seat 0 among ``players - 1``
    seats of ``opponents`` under ``rules`` at that many players."""
    from .. import champion_tables  # noqa: F401  (registers the champion's block)
    from ..engine.pack import new_workspace, pack_rules
    from ..strategies import memo_words, parse_seating, seat_arrays

    if getattr(rules, "guides", ()):
        raise HeronSimError("the chances of winning of logged decisions: rules by guide are not valued yet "
                            "(the champion's worth is that of one set of rules)")
    r = rules.replace(players=players) if rules.players != players else rules
    seating = parse_seating([champion] + [opponents] * (players - 1), players)
    sids, sp = seat_arrays(seating, r)
    R = pack_rules(r)
    w = new_workspace(R, sids, memo=memo_words(R, sids))
    return R, sp, w


def log_chances(log, rules, opponents: str = "regular", champion: str = "champion") -> np.ndarray:
    """``C_*`` for every decision of ``log`` (heron_sim.playtest.log.Log) under ``rules`` (the
    rules the games were played with), the other seats valued as ``opponents``, by ``champion``
    (``champion:keeps=0``: its first version, whose reroll is the expert's keep)."""
    from ..interrupt import check

    out = np.zeros((len(log), C_WIDTH))
    if log.table_players is None:
        return out
    for players in sorted({int(x) for x in log.table_players if x > 0}):
        R, sp, w = _valuer(rules, players, opponents, champion)
        rows = np.flatnonzero(log.table_players == players)
        for lo in range(0, rows.size, 8192):
            check()
            sel = rows[lo: lo + 8192]
            part = np.zeros((sel.size, C_WIDTH))
            keep_chances(R, sp, w, np.ascontiguousarray(log.state[sel]), log.seat[sel], log.table_players[sel],
                         log.squares[sel], log.guides[sel], log.readies[sel], log.protected[sel], log.choice[sel],
                         log.kept[sel], part)
            out[sel] = part
    return out


@dataclass
class Loss:
    """The mean loss of winning chance per keep-or-stop decision against the champion."""

    points: float          # mean loss, points of winning chance (100 x chance)
    low: float             # 95 % interval (games as clusters)
    high: float
    decisions: int         # decisions valued
    games: int             # games they come from
    agree: float           # share of decisions where the player chose as the champion

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("points", "low", "high", "decisions", "games", "agree")}


def loss_of(values: np.ndarray, game: np.ndarray, mask: np.ndarray | None = None) -> Loss | None:
    """The mean loss of the valued decisions (``values`` from :func:`log_chances`; ``mask``: those
    to count), with a 95 % normal interval that takes the games as clusters (the decisions of
    one game share its positions): the ratio estimator's delta-method variance."""
    ok = values[:, C_FLAG] == VALUED
    if mask is not None:
        ok &= mask
    if not ok.any():
        return None
    loss = 100.0 * (values[ok, C_BEST] - values[ok, C_LOGGED])
    g = np.asarray(game)[ok]
    ids, inv = np.unique(g, return_inverse=True)
    sums = np.bincount(inv, weights=loss)
    counts = np.bincount(inv).astype(float)
    mean = sums.sum() / counts.sum()
    G = ids.size
    if G > 1:
        var = G / (G - 1) * ((sums - mean * counts) ** 2).sum() / counts.sum() ** 2
        half = 1.959963984540054 * math.sqrt(var)
    else:
        half = math.inf
    agree = float(np.mean(np.abs(values[ok, C_BEST] - values[ok, C_LOGGED]) <= 1e-12))
    return Loss(float(mean), float(mean - half), float(mean + half), int(ok.sum()), int(G), agree)


__all__ = ["keep_chances", "log_chances", "loss_of", "Loss", "C_FLAG", "C_STOP", "C_REROLL", "C_LOGGED", "C_BEST",
           "VALUED"]
