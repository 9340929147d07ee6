"""What limits the champion (docs/strategies.md, « champion »; issue 57 item 2): the winning chance
it leaves by rerolling with the expert's keep (the best for the turn's expected advance) rather
than with the keep of highest chance of winning.

    .venv/bin/python experiments/champion_keeps.py PLAYERS SEATING OPPONENTS GAMES
    .venv/bin/python experiments/champion_keeps.py 2 champion,racer racer 200

Measured on the champion's first version, whose reroll was the expert's keep (``champion:keeps=0``
since it chooses among every keep: give that seating to replay the figures of the docs).
Plays GAMES games of SEATING (8 D8, the rulings, seed 5) logging every decision
(heron_sim.playtest.log_turns), then at each keep-or-stop decision of seat 0 values every legal
keep of the dice (each from its own law of the turn's final advance, as
heron_sim.playtest.chances values a logged keep; the others valued as OPPONENTS) and prints the
mean gain, in points of winning chance, of the best keep over the champion's choice, how much of
it the single-animal keeps and the keeps of highest expected advance would catch, and where on
the board it lies. A measure of the valuation, not of play: a gain here is one the champion's own
chances promise.
"""
import pathlib
import sys
import tempfile

import numpy as np
from numba import njit
from heron_sim.rules import Rules
from heron_sim.playtest import log_turns
from heron_sim.playtest.log import read_log
from heron_sim.playtest.chances import _valuer, S_WORDS
from heron_sim.strategies.champion import law_chance as _law_chance
from heron_sim.strategies.expert_dp import _pre_states
from heron_sim.playtest.values import lay_out, S_KIND
from heron_sim.engine.layout import (
    D_KEEP, FACE, FREE, FRESH, GUIDE, HERON, KEEP, KEPT, NDICE, PLAYERS, PMEMO, PMEMO_LEN, POS, PROT, READY, STATUS,
)
from heron_sim.engine.dice import count_animals
from heron_sim.strategies.champion import CH_AMAX, CH_LAW, CH_PTR, CH_T, SEAT_BLOCK_COLUMN, _same_state, _others_behind, _chance_after
from heron_sim.strategies.expert import keep_column, counted_advance
from heron_sim.strategies.expert_dp import ENTRY, _pre_code

@njit(cache=False)
def gains(R, sp, w, state, seat_of, squares, guides, readies, prots, pre_index, npre, anx, out):
    base = int(sp[0, SEAT_BLOCK_COLUMN]); T = int(sp[0, base + CH_T]); amax = int(sp[0, base + CH_AMAX])
    law0 = int(sp[0, base + CH_LAW]); ptr0 = int(sp[0, base + CH_PTR])
    at = w[PMEMO] + w[PMEMO_LEN] - S_WORDS
    p = w[PLAYERS]
    slots = np.zeros(6, dtype=np.int64); C = np.zeros(6, dtype=np.int64); K = np.zeros(6, dtype=np.int64); S = np.zeros(6, dtype=np.int64)
    for m in range(state.shape[0]):
        out[m, 0] = -1.0
        if state[m, S_KIND] != D_KEEP: continue
        s = seat_of[m]; k = 1
        for j in range(p):
            d = 0 if j == s else k
            if j != s: k += 1
            w[POS + d] = squares[m, j]; w[GUIDE + d] = guides[m, j]; w[READY + d] = readies[m, j]; w[PROT + d] = prots[m, j]
        lay_out(w, 0, state, m)
        col = keep_column(0, w, R, sp)
        if col < 0: continue
        count_animals(w)
        if int(sp[0, col + 2]) < 0: continue
        law = int(sp[0, ptr0 + col // ENTRY])
        if law < 0: continue
        if not _same_state(0, w, at): _others_behind(0, w, sp, base, T, at)
        pos = w[POS]
        go = _law_chance(0, w, R, sp, base, T, at, pos, law, amax)
        s0 = counted_advance(0, w, R)
        stop = _chance_after(0, w, R, sp, base, T, at, pos, s0) if s0 > 0 else _chance_after(0, w, R, sp, base, T, at, pos, 0)
        idx = (law - law0) // amax; h = idx % anx; tr = idx // anx // npre
        n = w[NDICE]
        for j in range(6): C[j] = 0; K[j] = 0
        fl = 0
        for i in range(n):
            f = w[FACE + i]; st = w[STATUS + i]
            if f == HERON:
                if w[FRESH + i] != 0: fl = 1
                continue
            if st == KEPT: K[w[KEEP + 6 + f]] += 1
            elif st == FREE: C[w[KEEP + 6 + f]] += 1
        csum = 0
        for j in range(6): csum += C[j]
        best = -1.0
        out[m, 3] = -1.0
        for r in range(4):
            out[m, 4 + 2 * r] = -1.0; out[m, 5 + 2 * r] = -1.0
        for j in range(6): S[j] = 0
        while True:
            ssum = 0
            for j in range(6): ssum += S[j]
            if ssum < csum and ssum + fl >= 1:
                for j in range(6): slots[j] = K[j] + S[j]
                code = _pre_code(slots, n + 1)
                q = pre_index[code] if code < pre_index.size else -1
                if q >= 0:
                    v = _law_chance(0, w, R, sp, base, T, at, pos, law0 + ((tr * npre + q) * anx + h) * amax, amax)
                    if v > best: best = v
                    nz = 0
                    for j in range(6):
                        if S[j] > 0: nz += 1
                    if nz <= 1 and v > out[m, 3]: out[m, 3] = v
                    lw = law0 + ((tr * npre + q) * anx + h) * amax
                    mean = 0.0
                    for a in range(amax): mean += a * sp[0, lw + a]
                    # insert (mean, v) into the top-4 by mean (columns 4..11)
                    for r in range(4):
                        if mean > out[m, 4 + 2 * r] + 1e-12:
                            for r2 in range(3, r, -1):
                                out[m, 4 + 2 * r2] = out[m, 4 + 2 * (r2 - 1)]; out[m, 5 + 2 * r2] = out[m, 5 + 2 * (r2 - 1)]
                            out[m, 4 + 2 * r] = mean; out[m, 5 + 2 * r] = v
                            break
            j = 0
            while j < 6:
                if S[j] < C[j]:
                    S[j] += 1; break
                S[j] = 0; j += 1
            if j == 6: break
        out[m, 0] = stop; out[m, 1] = go; out[m, 2] = best
    return out

def main() -> None:
    players = int(sys.argv[1]); seating = sys.argv[2]; opp = sys.argv[3]; games = int(sys.argv[4])
    rules = Rules.build(mode="8d8", players=players)
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "log.csv"
        path.write_text(log_turns(rules, games, 5, seating).text, encoding="utf-8")
        log = read_log(path, rules)
    R, sp, w = _valuer(rules, players, opp)
    pre_T, pre_index = _pre_states(rules.n_dice)
    npre, anx = pre_T.shape[0], min(rules.anxiety_threshold, rules.n_dice + 1)
    sel = np.flatnonzero((log.table_players == players) & (log.seat == 0))
    out = np.zeros((sel.size, 12))
    gains(R, sp, w, np.ascontiguousarray(log.state[sel]), log.seat[sel], log.squares[sel], log.guides[sel], log.readies[sel], log.protected[sel], pre_index, npre, anx, out)
    ok = out[:, 0] >= 0
    stop, go, best, single = out[ok][:, :4].T
    tops = out[ok][:, 5::2]
    dist = rules.finish - log.squares[sel][ok, 0]
    champ = np.maximum(stop, go)
    opt = np.maximum(stop, best)
    g = 100 * (opt - champ)
    print("decisions", ok.sum(), "mean gain (points)", g.mean(), "share with gain>0.01pt", (g > 0.01).mean(), "share where a keep beats stop but expert's doesn't", ((best > stop) & (go <= stop)).mean())
    games_of = log.game[sel][ok]
    ids, inv = np.unique(games_of, return_inverse=True)
    sums, counts = np.bincount(inv, weights=g), np.bincount(inv).astype(float)
    half = 1.96 * np.sqrt(ids.size / (ids.size - 1) * ((sums - g.mean() * counts) ** 2).sum()) / counts.sum()
    print(f"mean gain {g.mean():.3f} points a decision [{g.mean() - half:.3f}, {g.mean() + half:.3f}] (95 %, games as clusters)")
    print("quantiles", np.quantile(g, [0.5, 0.9, 0.99, 1.0]))
    for K in (1, 2, 3, 4):
        bk = np.max(tops[:, :K], axis=1)
        print(f"top-{K} keeps by expected advance: mean gain", (100 * (np.maximum(stop, np.maximum(go, bk)) - champ)).mean())
    g1 = 100 * (np.maximum(stop, single) - champ)
    print("single-animal keeps: mean gain", g1.mean())
    for lo, hi in ((0, 10), (10, 20), (20, 30), (30, 45), (45, 64)):
        mk = (dist > lo) & (dist <= hi)
        print(f"distance {lo}-{hi}: decisions {mk.sum()}, gain sum share {g[mk].sum() / g.sum():.2f}, mean {g[mk].mean():.3f}")


if __name__ == "__main__":
    main()
