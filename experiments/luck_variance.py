"""The luck-adjusted win rates on a race of real turns (issue 32 item 2): variance ratio measured.

Each game is a race to ``--finish`` squares between ``--players`` seats playing, in seat order,
single turns of heron_sim.strategies.expert_luck (real dice, the expert's tables; no board, no
Pond push-back on the others, no powers: the engine's games do not record luck yet). Each seat's
luck is the sum of its turns' luck. Prints the plain and the adjusted win rates by seat and by a
random "guide" label, and the variance ratio (plain ÷ adjusted).

    python experiments/luck_variance.py --games 20000 --players 4 --mode 8d8

``--engine``: the engine's own games instead (heron_sim.simulation.simulate with luck: the board,
the Ponds, the powers), seated with ``--strategies`` (default: the AI mix), e.g.

    python experiments/luck_variance.py --engine --games 20000 --strategies greedy,prudent,expert,racer

``--no-squares`` (with ``--engine``): the same on a board without its special squares (a control:
the squares' effects are chance the luck does not see, docs/luck.md). ``--plain-lucks``: the
adjustment on the plain lucks only (the weighted lucks' columns dropped).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
import pandas as pd

from heron_sim.analysis.luck_adjust import adjusted_win_rates, variance_ratio
from heron_sim.animals import NAMES
from heron_sim.rules import Rules
from heron_sim.strategies.expert_luck import POLICIES, luck_tables, simulate_turn_luck


def race_frame(mode: str, games: int, players: int, policies: list[str], finish: int, seed: int) -> pd.DataFrame:
    """A frame shaped like the engine's (players, winner, finished, guide_s, luck_seatN)."""
    T = luck_tables(Rules.build(mode=mode))
    rng = np.random.default_rng(seed)
    need = games * 40  # turns per seat at most (a race to 30 squares lasts ~15 turns)
    pools = {p: simulate_turn_luck(T, need, seed=seed + 17 * k, policy=p) for k, p in enumerate(sorted(set(policies)))}
    ptr = {p: 0 for p in pools}
    winner = np.full(games, -1)
    luck = np.zeros((games, players))
    for g in range(games):
        pos = np.zeros(players)
        done = False
        for _ in range(60):
            for s in range(players):
                pol = policies[s % len(policies)]
                i = ptr[pol]
                ptr[pol] = i + 1
                luck[g, s] += pools[pol][0][i]
                pos[s] += pools[pol][1][i]
                if pos[s] >= finish:
                    winner[g] = s
                    done = True
                    break
            if done:
                break
    frame = {"players": np.full(games, players), "winner": winner, "finished": winner >= 0}
    deal = np.argsort(rng.random((games, len(NAMES))), axis=1)[:, :players]
    for s in range(players):
        frame[f"guide_{s}"] = pd.Categorical.from_codes(deal[:, s], categories=list(NAMES))
        frame[f"luck_seat{s + 1}"] = luck[:, s]
    return pd.DataFrame(frame)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--mode", default="8d8")
    ap.add_argument("--policies", default="expert,greedy,random,expert")
    ap.add_argument("--finish", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", action="store_true", help="the engine's games (simulate with luck)")
    ap.add_argument("--strategies", default="greedy,prudent,expert,racer", help="with --engine: seats' strategies")
    ap.add_argument("--no-squares", action="store_true", help="with --engine: a board without its special squares")
    ap.add_argument("--plain-lucks", action="store_true", help="adjust on the plain lucks only (no weighted lucks)")
    a = ap.parse_args(argv)
    if a.engine:
        from heron_sim.errors import HeronSimError
        from heron_sim.simulation import simulate

        try:
            rules = Rules.build(mode=a.mode, players=a.players,
                                overrides={"board": {"squares": {}}} if a.no_squares else None)
            df = simulate(rules, a.games, seed=a.seed, strategies=a.strategies, luck=True)
        except HeronSimError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        if "luck_seat1" not in df.columns:
            print(f"error: --mode {a.mode}: the engine does not measure luck there yet (docs/luck.md)", file=sys.stderr)
            return 2
        if a.plain_lucks:
            df = df.drop(columns=[c for c in df.columns if c.startswith("luck_seat") and "_" in c[len("luck_seat"):]])
        adj = adjusted_win_rates(df)
        plain = [float((df.winner == s).sum() / df.finished.sum()) for s in range(a.players)]
        print(json.dumps({"games": len(df), "strategies": a.strategies, "board": "no squares" if a.no_squares else
                          "the rulings'", "win_rate_by_seat": plain, **adj,
                          "variance_ratio": variance_ratio(adj)}, indent=1))
        return 0
    pols = a.policies.split(",")
    for p in pols:
        if p not in POLICIES:
            print(f"error: --policies: unknown policy {p!r}; allowed: {', '.join(POLICIES)}", file=sys.stderr)
            return 2
    df = race_frame(a.mode, a.games, a.players, pols, a.finish, a.seed)
    adj = adjusted_win_rates(df)
    plain = [float((df.winner == s).sum() / df.finished.sum()) for s in range(a.players)]
    print(json.dumps({"win_rate_by_seat": plain, **adj, "variance_ratio": variance_ratio(adj)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
