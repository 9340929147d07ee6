"""The human rungs' and the expert's games, hashed: the golden file tests/data/human_golden.json
(issue 28 item 6: the human's turn made faster without changing a game).

    python tests/human_golden.py          # prints the hashes of every case
    python tests/human_golden.py --write  # rewrites tests/data/human_golden.json (a deliberate change only)

Each case plays ``games`` games with heron_sim.loop.batch.play_batch (one thread) and hashes
the whole output array (every counter of every game, int64 little-endian) with SHA-256.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).parent / "data" / "human_golden.json"
LADDER = ["novice", "casual", "regular", "expert"]

#: (name, mode, players, rule overrides, seating, seed, games)
CASES = [
    ("ladder-8d8", "8d8", 4, {}, LADDER, 1, 1500),
    ("ladder-8d8-seed2", "8d8", 4, {}, ["expert", "regular", "casual", "novice"], 2, 1500),
    ("novice-8d8", "8d8", 4, {}, ["novice"] * 4, 3, 800),
    ("casual-8d8", "8d8", 4, {}, ["casual"] * 4, 4, 800),
    ("regular-8d8", "8d8", 4, {}, ["regular"] * 4, 5, 800),
    ("expert-8d8", "8d8", 4, {}, ["expert"] * 4, 6, 800),
    ("mixed-7d8-3p", "7d8", 3, {}, ["casual", "greedy", "novice"], 7, 800),
    ("rungs-2p", "8d8", 2, {}, ["novice", "regular"], 8, 1000),
    ("variants-5p", "8d8", 5, {"anxiety_threshold": 4, "eagle_draws": 3, "patience_cost": 0,
                               "heron_patience_doubling": True, "consolation_no_set": 1,
                               "consolation_anxiety": 1},
     ["novice", "casual", "regular", "expert", "racer"], 9, 800),
    ("params-8d8", "8d8", 3, {"bull_bonus": 3},
     ["human:temp=2;caution=0;forget=0.2", "human:temp=0;caution=0.7;forget=0",
      "human:temp=0.05;caution=0.1;forget=0.9"], 10, 800),
    ("ladder-10d6", "10d6", 3, {}, ["novice", "casual", "regular"], 11, 300),  # dice that differ: scans
]


def play(mode, players, overrides, seating, seed, games) -> np.ndarray:
    from heron_sim.engine import layout as L
    from heron_sim.loop.batch import play_batch
    from heron_sim.engine.pack import pack_rules
    from heron_sim.rules import Rules
    from heron_sim.simulation import _threads
    from heron_sim.strategies import seat_arrays

    rules = Rules.build(mode=mode, overrides=dict(overrides, players=players))
    sids, sp = seat_arrays(seating, rules)
    out = np.zeros((games, L.n_columns(rules.finish)), dtype=np.int64)
    with _threads(1):
        play_batch(np.uint64(seed), 0, pack_rules(rules), np.asarray(sids, dtype=np.int64), sp, out)
    return out


def digest(out: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(out, dtype="<i8").tobytes()).hexdigest()


def hashes() -> dict[str, str]:
    return {name: digest(play(*case)) for name, *case in CASES}


if __name__ == "__main__":
    got = hashes()
    if "--write" in sys.argv:
        GOLDEN.write_text(json.dumps(got, indent=1) + "\n")
    print(json.dumps(got, indent=1))
