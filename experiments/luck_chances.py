"""Luck valued in winning chances through the worth of positions (issue 59 item 1): the prototype.

Each seat's luck per turn slot (heron_sim.strategies.luck_turn: the dice's luck in squares of the
turn, each term of mean zero given the past) is weighted by a *predictable* weight: the seat's
marginal winning chance of one square of the seat whose luck it is, read from the worth of
positions (heron_sim.analysis.worth) at the slot's start, after the mover's expected advance
(a finite difference of ``Worth.chances`` of ±``--h`` squares). A weight fixed before the slot's
rolls keeps each term of mean zero (a martingale transform), so the adjusted win rates stay
unbiased; the weight knows the race's threshold, as the worth does. The landing lucks by special
square are weighted the same way. Features: the own weighted luck, the others' summed, one per
special square; then the luck adjustment's cross-fitted regression (luck_adjust.adjusted_win_rates,
``features=``). Games are replayed slot by slot from their own streams (the games ``simulate``
plays), the luck read after every slot.

    python experiments/luck_chances.py --table ai --games 20000

Measured (docs/luck.md, "Luck in winning chances"): at the AI mix this weighting gives what the
20 monomial weights of heron_sim.strategies.luck_weights give (seats 1.79-1.84 without the
landings, 2.18-2.27 with them, against 1.76-1.87 and 2.15-2.28): how much a square is worth where
was not what was missing. The finish luck (the chance a turn reaches the finish, counted in the
engine) was.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

TABLES = {"ai": (4, ["greedy", "prudent", "expert", "racer"]),
          "ladder": (4, ["novice", "casual", "regular", "expert"]),
          "rungs-6": (6, ["novice", "casual", "regular", "expert", "novice", "casual"])}


def replay(rules, seating, seed: int, games: int) -> dict:
    """Per slot: the seat to move, every seat's square, Guide and power ready at its start, and
    every seat's luck (squares) and landing lucks gained in it."""
    from heron_sim.engine import layout as L
    from heron_sim.engine.pack import new_workspace, pack_rules
    from heron_sim.engine.rng import new_state, stream_start
    from heron_sim.loop.batch import play_scripted
    from heron_sim.loop.game import deal_guides, reset_game, seat_compensation
    from heron_sim.simulation import _with_luck_row
    from heron_sim.strategies import parse_seating, seat_arrays

    P = int(rules.players)
    seating = tuple(parse_seating(list(seating), P))
    sids, sp = seat_arrays(list(seating), rules)
    sp, _ = _with_luck_row(rules, sp, True)
    R = pack_rules(rules)
    rng = new_state()
    unit = float(1 << L.LUCK_SHIFT)
    nl = P * L.LAND_SLOTS
    rec = {k: [] for k in ("game", "to_move", "pos", "guide", "ready", "dl", "dland")}
    winners = []
    for g in range(games):
        w = new_workspace(R, sids)
        w[L.LUCK_ROW] = sids.shape[0] + 1
        w[L.LUCK_OFF] = int(sp[sp.shape[0] - 1, 0])
        stream_start(np.uint64(seed), g, rng)
        reset_game(w)
        deal_guides(w, rng)
        seat_compensation(w, R)
        seat, rnd, winner = 0, 1, -1
        luck, land = w[L.LUCK:L.LUCK + P].copy(), w[L.LAND:L.LAND + nl].copy()
        while rnd <= int(rules.max_rounds):
            for k, at in (("pos", L.POS), ("guide", L.GUIDE), ("ready", L.READY)):
                rec[k].append(w[at:at + P].copy())
            rec["to_move"].append(seat)
            rec["game"].append(g)
            winner = int(play_scripted(seat, 1, w, R, rng, sp))
            l2, d2 = w[L.LUCK:L.LUCK + P].copy(), w[L.LAND:L.LAND + nl].copy()
            rec["dl"].append((l2 - luck) / unit)
            rec["dland"].append(((d2 - land) / unit).reshape(P, L.LAND_SLOTS))
            luck, land = l2, d2
            if winner >= 0:
                break
            seat += 1
            if seat == P:
                seat, rnd = 0, rnd + 1
        winners.append(winner)
    out = {k: np.array(v) for k, v in rec.items()}
    out.update(winner=np.array(winners), players=P, finish=int(rules.finish), seating=seating)
    return out


def gradients(worth, d: dict, advance: int, h: int) -> np.ndarray:
    """[slots, i, j]: seat i's chance per square of seat j, at the slot's start with the mover
    moved ``advance`` squares and the next seat to move (fixed before the slot's rolls)."""
    pos = d["pos"].astype(np.int64)
    n, P = pos.shape
    F = d["finish"]
    m = d["to_move"].astype(np.int64)
    after = pos.copy()
    after[np.arange(n), m] = np.minimum(pos[np.arange(n), m] + advance, F - 1)
    nxt = (m + 1) % P
    g = np.zeros((n, P, P))
    for j in range(P):
        hi, lo = after.copy(), after.copy()
        hi[:, j] = np.minimum(after[:, j] + h, F - 1)
        lo[:, j] = np.maximum(after[:, j] - h, 0)
        den = np.maximum(hi[:, j] - lo[:, j], 1)
        g[:, :, j] = (worth.chances(hi, d["guide"], d["ready"], nxt)
                      - worth.chances(lo, d["guide"], d["ready"], nxt)) / den[:, None]
    return g


def features(d: dict, g: np.ndarray, land: bool = True) -> np.ndarray:
    """[games, players, k]: the own weighted luck, the others' summed, then one feature per
    special square (the landing lucks weighted alike), summed over each game's slots."""
    G, P = d["winner"].size, d["players"]
    own = np.einsum("nii,ni->ni", g, d["dl"])
    tot = np.einsum("nij,nj->ni", g, d["dl"])
    parts = [own, tot - own]
    if land:
        lt = np.einsum("nij,njq->niq", g, d["dland"])
        parts += [lt[:, :, q] for q in range(lt.shape[2]) if np.any(lt[:, :, q])]
    out = []
    for v in parts:
        s = np.zeros((G, P))
        np.add.at(s, d["game"], v)
        out.append(s)
    return np.stack(out, axis=2)


def main(argv=None) -> None:
    import pandas as pd

    from heron_sim.analysis.luck_adjust import adjusted_win_rates, variance_ratio
    from heron_sim.analysis.worth import worth_of
    from heron_sim.animals import NAMES
    from heron_sim.rules import Rules

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=sorted(TABLES), default="ai")
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--advance", type=int, default=8, help="the mover's expected advance (squares)")
    ap.add_argument("--h", type=int, default=4, help="half-width of the finite difference (squares)")
    a = ap.parse_args(argv)
    P, seats = TABLES[a.table]
    rules = Rules.build(mode="8d8", players=P)
    worth = worth_of(rules, seats)
    t = time.time()
    d = replay(rules, seats, a.seed, a.games)
    print(f"replayed {a.games:,} games, {d['game'].size:,} slots, {time.time() - t:.0f} s")
    g = gradients(worth, d, a.advance, a.h)
    df = pd.DataFrame({"players": P, "winner": d["winner"], "finished": d["winner"] >= 0})
    first = np.r_[0, np.flatnonzero(np.diff(d["game"])) + 1]
    for s in range(P):
        df[f"guide_{s}"] = pd.Categorical.from_codes(d["guide"][first, s], categories=list(NAMES))
    for land in (False, True):
        X = features(d, g, land)
        z = X.mean(axis=0) / (X.std(axis=0) / np.sqrt(X.shape[0]) + 1e-300)
        vr = variance_ratio(adjusted_win_rates(df, features=X))
        print(f"{'with' if land else 'without'} the landings: seats {np.round(vr['seat'], 2)}, guides "
              f"{ {k: round(v, 2) for k, v in vr['guide'].items()} }, features' largest |z| {np.abs(z).max():.2f}")


if __name__ == "__main__":
    main()
