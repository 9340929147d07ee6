"""Per-seat Pond counters: they add up to the per-game ones, and the Pond kind's per-seat analysis
(push-back received, win rate of the roller and of the players hit) on data with a known answer."""

import numpy as np
import pandas as pd
import pytest

from heron_sim.report.section import Section
from heron_sim.rules import Rules
from heron_sim.runner.kinds.pond import _seat_ponds
from heron_sim.simulation import simulate

pytestmark = pytest.mark.exact


def test_per_seat_pond_counters_add_up_to_the_game_counters():
    df = simulate(Rules.build(mode="8d8", players=4), 2000, seed=5)
    rolls = sum(df[f"pond_rolls_{s}"] for s in range(4))
    back = sum(df[f"pond_back_{s}"] for s in range(4))
    hits = sum(df[f"pond_hits_{s}"] for s in range(4))
    assert (rolls == df["ponds"]).all() and df["ponds"].sum() > 100
    assert (hits <= 3 * df["ponds"]).all() and (back <= 3 * df["pushback"]).all()
    assert (back > 0).sum() > 100 and (back < 3 * df["pushback"]).any()  # floors and protection do bite sometimes


def _frame(n=400, seed=0):
    """Two seats; exactly one seat rolls a Pond (of 4) in each game, and that seat wins."""
    rng = np.random.default_rng(seed)
    roller = rng.integers(0, 2, n)
    d = {"players": 2, "winner": roller}
    for s in range(2):
        d[f"pond_rolls_{s}"] = (roller == s).astype(int)
        d[f"pond_hits_{s}"] = (roller != s).astype(int)
        d[f"pond_back_{s}"] = 4 * (roller != s)
        d[f"strategy_{s}"] = "greedy"
    df = pd.DataFrame(d)
    df.loc[:9, "winner"] = -1  # unfinished games are left out of the win analysis
    return df


def test_seat_pond_analysis_known_answer():
    df = _frame()
    sec = Section("pond", "Pond")
    seats, assoc = _seat_ponds(df, "8d8", sec)
    assert [r["back"] for r in seats] == pytest.approx([df["pond_back_0"].mean(), df["pond_back_1"].mean()])
    a = {r["group"]: r for r in assoc}
    assert a["rolled"]["win_yes"] == 1.0 and a["rolled"]["win_no"] == 0.0 and a["rolled"]["n_yes"] == len(df) - 10
    assert a["hit"]["win_yes"] == 0.0 and a["hit"]["win_no"] == 1.0
    assert a["per_pond_rolled"]["estimate"] == pytest.approx(1.0)
    assert a["per_square_lost"]["estimate"] == pytest.approx(-0.25)  # the other seat lost 4 squares and lost
    ids = {f.id for f in sec.facts}
    assert {"pond.win_per_pond_rolled.8d8", "pond.win_if_rolled.8d8", "pond.seat_pushback.8d8.seat2"} <= ids
