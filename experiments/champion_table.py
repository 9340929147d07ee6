"""One champion among three other players of one kind, seats rotated (docs/strategies.md,
« champion »; issue 57 item 2: "beats expert at 4 players").

    .venv/bin/python experiments/champion_table.py [OTHERS] [GAMES] [SEED]
    .venv/bin/python experiments/champion_table.py expert 10000 21

Plays GAMES four-player games (8 D8, the rulings) with the champion at each seat in turn and
OTHERS at the three others (4 x GAMES games, seed SEED) and prints the champion's share of the
wins with its 95 % Wilson interval (a fair share is 25 %; no game is unfinished at 8 D8, and an
unfinished one would count as not won).
"""
from __future__ import annotations

import sys

from heron_sim.analysis.intervals import wilson
from heron_sim.rules import Rules
from heron_sim.simulation import simulate


def main() -> None:
    others = sys.argv[1] if len(sys.argv) > 1 else "expert"
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 21
    rules = Rules.build(mode="8d8", players=4)
    wins = 0
    for seat in range(4):
        seats = [others] * 4
        seats[seat] = "champion"
        df = simulate(rules, games, seed, seats)
        wins += int((df["winner"].to_numpy() == seat).sum())
    n = 4 * games
    _, low, high = wilson(wins, n)
    print(f"champion among three {others}: {100 * wins / n:.1f} % [{100 * low:.1f}, {100 * high:.1f}] "
          f"of {n:,} games (fair share 25 %)")


if __name__ == "__main__":
    main()
