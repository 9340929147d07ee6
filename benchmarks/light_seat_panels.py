"""Seat win shares of each lighter game at 2 and 4 players with each real player alone (greedy,
then the game's second heuristic) and the two mixed (alternating round the table, rotated over
the seats: ``runner.jobs.seatings``), seed 2026, default rules (issue 34 item 1).

    python benchmarks/light_seat_panels.py GAMES OUT.json [game,game...]
"""
import json
import sys
import numpy as np
import pandas as pd

from heron_sim.games import available
from heron_sim.games.base import seat_rows
from heron_sim.runner.jobs import seatings

N = int(sys.argv[1])
out = {}
for name, g in available().items():
    if len(sys.argv) > 3 and name not in sys.argv[3].split(","):
        continue
    new = g.heuristics[1]
    r = g.load_rules(None, {})
    for P in (2, 4):
        for label, seats in (("greedy", [["greedy"] * P]), (new, [[new] * P]), ("mixed", seatings(["greedy", new], P))):
            b = np.linspace(0, N, len(seats) + 1).astype(int)
            df = pd.concat([g.simulate(r, games=int(b[i + 1] - b[i]), players=P, seed=2026, strategies=s, first_game=int(b[i]))
                            for i, s in enumerate(seats)], ignore_index=True)
            t = seat_rows(df)
            rows = [[float(x.win_rate), float(x.low), float(x.high), float(x.p_holm)] for x in t.itertuples()]
            out[f"{name}|{P}|{label}"] = {"n": N, "decided": int(t["games"].iloc[0]), "seats": rows}
            print(name, P, label, " ".join(f"{100*a:.1f}[{100*l:.1f},{100*h:.1f}]" for a, l, h, _ in rows), flush=True)
            json.dump(out, open(sys.argv[2], "w"), indent=1)
