"""Where an expert seat's time goes (``make bench``): nanoseconds per roll phase.

    python benchmarks/roll_phase.py [--turns 300000]

Single 8 D8 roll phases from a fresh turn (the guide ready), seat 0 of a four-seat workspace,
the tables shared as in a game: greedy's fused roll phase; the expert's fused roll phase
(heron_sim.strategies.expert_turn) with a guide whose power is not used while rolling (the
Serpent) and with each guide whose power is (Wolf, Eagle, Deer, Heron), whose stored uses the
fused turn plays on the counted dice (the share of turns still handed to the generic loop, and
the whole roll phase); then the roll-time power uses per game of four experts. Minimum of three
runs (a shared machine is noisy). A figure to explain the AI mix's games per second, not a
target.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from heron_sim.strategies.greedy_turn import greedy_roll_phase
from heron_sim.engine.layout import AIGLE, CERF, GUIDE, HERON, LOUP, READY, SERPENT
from heron_sim.loop.loops import make_workspace
from heron_sim.engine.pack import pack_rules
from heron_sim.engine.rng import stream_start
from heron_sim.loop.turn import roll_phase
from heron_sim.rules import Rules
from heron_sim.strategies import seat_arrays
from heron_sim.strategies.declared import sid_of
from heron_sim.strategies.expert_turn import CONTINUE, expert_roll_phase


@numba.njit
def _phases(n, R, sp, w, guide, how):
    """``n`` roll phases of seat 0 (how: 0 greedy's fused, 1 the expert's fused up to a
    hand-over, 2 the whole roll phase); returns the turns handed over (how 1)."""
    rng = np.zeros(3, dtype=np.uint64)
    handed = 0
    for t in range(n):
        stream_start(7, t, rng)
        w[GUIDE] = guide
        w[READY] = 1
        if how == 0:
            greedy_roll_phase(0, w, R, rng)
        elif how == 1:
            handed += expert_roll_phase(0, w, R, rng, sp) == CONTINUE
        else:
            roll_phase(0, w, R, rng, sp)
    return handed


def figures(turns: int = 300_000) -> list[tuple[str, str]]:
    rules = Rules.build(mode="8d8")
    R = pack_rules(rules)
    _, sp = seat_arrays(["expert"] * 4, rules)
    rows = []

    def ns(w, guide, how):
        _phases(100, R, sp, w, guide, how)
        best, handed = float("inf"), 0
        for _ in range(3):
            t = time.perf_counter()
            handed = _phases(turns, R, sp, w, guide, how)
            best = min(best, time.perf_counter() - t)
        return best / turns * 1e9, handed / turns

    greedy = make_workspace(R, np.full(4, sid_of("greedy"), dtype=np.int64), 0)
    expert = make_workspace(R, np.full(4, sid_of("expert"), dtype=np.int64), 0)
    g, _ = ns(greedy, SERPENT, 0)
    rows.append(("greedy's fused roll phase", f"{g:.0f} ns"))
    for name, guide in (("Serpent", SERPENT), ("Wolf", LOUP), ("Eagle", AIGLE), ("Deer", CERF), ("Heron", HERON)):
        fused, share = ns(expert, guide, 1)
        whole, _ = ns(expert, guide, 2)
        extra = f"; {(whole - fused * (1 - share)) / share:.0f} ns a handed-over turn" if share > 0.01 else ""
        rows.append((f"expert's roll phase, {name} ready: fused / whole",
                     f"{fused:.0f} / {whole:.0f} ns, {share:.0%} handed over{extra}"))
    from heron_sim.simulation import simulate

    df = simulate(rules, 4000, seed=1, strategies="expert", threads=1)
    uses = sum(df[f"power_{a}"].mean() for a in ("loup", "aigle", "cerf", "heron"))
    rows.append(("roll-time power uses per game of four experts",
                 f"{uses:.2f} in {4 * df['rounds'].mean():.0f} turns"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300_000)
    for label, value in figures(parser.parse_args().turns):
        print(f"{label:<62} {value}")


if __name__ == "__main__":
    main()
