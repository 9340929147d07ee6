"""The golden file of game hashes: every game of a fixed set of rule sets, strategies and
seatings, hashed, so that a refactor of the engine proves every game bit-identical before and
after (tests/test_golden_games.py compares; ``python -m tests.golden_games`` rewrites the file,
only when a change of the games is intended and said in the commit).

Each case plays ``GAMES`` games and keeps one short hash per game (the game's row of the results
frame, every column the file names: a new column added later is not in the old hashes, every
old column must stay identical), so a failure names the first game that moved."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np

FILE = Path(__file__).parent / "data" / "games_golden.json.gz"
GAMES = 120
SEED = 2029

#: (name, rules overrides, mode, strategies seated in order; a shorter list is cycled)
CASES: list[tuple[str, dict, str, list[str]]] = [
    ("rulings-greedy-4", {}, "8d8", ["greedy"]),
    ("rulings-mix-4", {}, "8d8", ["greedy", "prudent", "expert", "racer"]),
    ("rulings-ladder-4", {}, "8d8", ["novice", "casual", "regular", "expert"]),
    ("rulings-random-3", {"players": 3}, "8d8", ["random", "greedy", "human:temp=1;caution=0.5;forget=0.2"]),
    ("10d6-mix-5", {"players": 5}, "10d6", ["greedy", "prudent", "expert", "racer", "novice"]),
    ("7d8-mix-2", {"players": 2}, "7d8", ["expert", "prudent"]),
    ("10d8-mix-7", {"players": 7}, "10d8", ["greedy", "prudent", "expert", "racer", "novice", "casual", "regular"]),
    ("bull-and-consolations", {"bull_bonus": 4, "bull_min_set": 4, "consolation_anxiety": 1,
                               "consolation_no_set": 1}, "8d8", ["greedy", "prudent", "expert", "regular"]),
    ("pond-and-heron", {"pond_threshold": 3, "pond_pushback_per_heron": 0, "pond_pushback_flat": 4,
                        "pond_pushback_max": 3, "heron_doubling_herons": 2, "heron_patience_doubling": True},
     "8d8", ["greedy", "prudent", "expert", "casual"]),
    ("anxiety-rolls-powers", {"anxiety_threshold": 4, "rolls": 4, "eagle_draws": 3, "patience_cost": 0,
                              "snake_advance": 2, "snake_max_cancel": 3, "disabled_powers": ["lion"]},
     "8d8", ["greedy", "prudent", "expert", "racer"]),
    ("board-variants", {"exact_finish": True, "single_use_squares": True, "guide_power_doubling": False,
                        "start_squares": [0, 1, 1, 2], "first_turn_extra_rolls": [0, 0, 1, 1]},
     "8d8", ["greedy", "expert", "regular", "prudent"]),
]


def case_frame(overrides: dict, mode: str, strategies: list[str]):
    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate

    rules = Rules.build(mode=mode, overrides=overrides)
    seating = [strategies[i % len(strategies)] for i in range(rules.players)]
    return simulate(rules, GAMES, seed=SEED, strategies=seating, threads=1)


def case_hashes(overrides: dict, mode: str, strategies: list[str], columns: list[str] | None = None) -> list[str]:
    frame = case_frame(overrides, mode, strategies)
    missing = sorted(set(columns or []) - set(frame.columns))
    if missing:
        raise AssertionError(f"columns of the golden file no longer in the frame: {missing}")
    values = frame[columns].to_numpy() if columns else frame.to_numpy()
    out = []
    for row in values:
        blob = "|".join(repr(v.item() if isinstance(v, np.generic) else v) for v in row).encode()
        out.append(hashlib.sha256(blob).hexdigest()[:12])
    return out


def compute() -> dict:
    columns = {name: list(case_frame(o, m, s).columns) for name, o, m, s in CASES}
    return {"games": GAMES, "seed": SEED, "columns": columns,
            "cases": {name: case_hashes(o, m, s, columns[name]) for name, o, m, s in CASES}}


def load() -> dict:
    with gzip.open(FILE, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def main() -> None:
    data = compute()
    FILE.parent.mkdir(parents=True, exist_ok=True)
    tmp = FILE.with_suffix(".tmp")
    with gzip.GzipFile(tmp, "wb", mtime=0) as fh:
        fh.write(json.dumps(data, indent=0, sort_keys=True).encode())
    tmp.replace(FILE)
    print(f"wrote {FILE}: {len(data['cases'])} cases of {GAMES} games")


if __name__ == "__main__":
    main()
