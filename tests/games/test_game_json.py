"""`heron-sim game NAME simulate --json`: the headline figures in the key style of `simulate --json`."""

import json

import pytest
from typer.testing import CliRunner

from heron_sim.cli import app

pytestmark = pytest.mark.cli


@pytest.mark.parametrize("name,players", [("akeruption", 3), ("fire-mountain", 2), ("mekong-dragons", 3),
                                          ("rampage", 4)])
def test_game_simulate_json(name, players):
    r = CliRunner().invoke(app, ["game", name, "simulate", "--games", "40", "--players", str(players),
                                 "--seed", "3", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout.strip().splitlines()[-1])
    assert doc["game"] == name and doc["games"] == 40 and doc["players"] == players
    assert len(doc["win_rate_by_seat"]) == players and len(doc["win_rate_by_seat_ci"]) == players
    if doc["decided"]:
        assert sum(doc["win_rate_by_seat"]) == pytest.approx(1.0)   # shares of decided games
    for lo, hi in doc["win_rate_by_seat_ci"]:
        assert 0 <= lo <= hi <= 1
    assert doc["fair"] == pytest.approx(1 / players)
    assert {"finished", "decided", "shared", "length_mean", "length_median", "length_p90",
            "win_rate_by_seat_p_holm"} <= doc.keys()


def test_game_simulate_json_strategy_rates():
    r = CliRunner().invoke(app, ["game", "mekong-dragons", "simulate", "--games", "30", "--players", "2",
                                 "--strategy", "greedy,random", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(doc["win_rate_by_strategy"]) == {"greedy", "random"}
