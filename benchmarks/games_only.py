"""Games a second of the games alone: the batch kernels with no frame built and no rows kept.

``simulate`` adds the frame's columns and the seats' preparation (about 20 ms for 50,000 ladder
games); this times what the engine itself does, the figure the engine's changes are compared on
in docs/strategies.md ("the ladder's games alone").

    python benchmarks/games_only.py [SEATS] [--threads 2] [--games 50000] [--repeats 5]

SEATS is a comma list (default: the ladder's table, novice,casual,regular,expert).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import heron_sim.simulation as S
from heron_sim.loop.batch import play_games
from heron_sim.rules import Rules


def games_per_second(seats: list[str], threads: int, games: int, repeats: int, mode: str = "8d8") -> tuple[float, list[float]]:
    """Median games a second over ``repeats`` runs of ``games`` games, and each run's seconds."""
    rules = Rules.build(mode=mode, players=len(seats))
    S.simulate(rules, 2000, seed=1, strategies=seats, threads=threads)  # load or compile the kernels
    _, sids, sp, R = S._prepare(rules, games, 1, seats, S.DEFAULT_BATCH)
    sp, width = S._with_luck_row(rules, sp, False)
    S._set_threads(threads)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        with S._threads(threads):
            play_games(np.uint64(1), 0, R, sids, sp, (games, width), S.DEFAULT_BATCH, None, None,
                       after=lambda a, b, rows: None)
        times.append(time.perf_counter() - t)
    return games / float(np.median(times)), times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seats", nargs="?", default="novice,casual,regular,expert", help="comma list of strategies")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    seats = args.seats.split(",")
    rate, times = games_per_second(seats, args.threads, args.games, args.repeats)
    print(f"{args.seats} on {args.threads} threads: {rate:,.0f} games a second "
          f"(median of {args.repeats}: {', '.join(f'{t:.3f}' for t in times)} s)")


if __name__ == "__main__":
    main()
