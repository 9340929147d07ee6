"""Tournaments: the library function, the command line, and the strategies' ordering."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from heron_sim.rules import Rules
from heron_sim.tournament import bradley_terry, tournament

pytestmark = [pytest.mark.statistical, pytest.mark.cli]


def test_bradley_terry_known_answer():
    # i beats j with probability p_i / (p_i + p_j): with p = (4, 1), wins 80:20.
    r = bradley_terry(np.array([[0, 8000], [2000, 0]]))
    assert r[0] - r[1] == pytest.approx(400 * np.log10(4), abs=1.0)


def test_mirror_symmetry_same_strategy_labels():
    """Two copies of one strategy (distinct specs, same play) split the wins exactly: the
    mirrored seating makes every game count once for each side."""
    res = tournament(Rules.build(mode="8d8"), ["prudent:risk=0.3", "prudent:risk=0.30"], 300, 2)
    assert res.wins[0, 1] == res.wins[1, 0]


def test_ordering_small():
    """racer > expert > greedy and every AI > random, significantly, in a short run."""
    res = tournament(Rules.build(mode="8d8"), ["greedy", "expert", "racer", "random"], 1500, 1)
    lo = res.low
    assert lo.loc["expert", "greedy"] > 0.5
    assert lo.loc["racer", "expert"] > 0.5
    assert lo.loc["greedy", "random"] > 0.9
    assert list(res.ranking["strategy"]) == ["racer", "expert", "greedy", "random"]


@pytest.mark.slow
def test_ordering_large():
    res = tournament(Rules.build(mode="8d8"), ["greedy", "prudent", "expert", "racer", "random"], 10_000, 7)
    assert res.low.loc["racer", "expert"] > 0.5
    assert res.low.loc["expert", "prudent"] > 0.5
    assert res.low.loc["prudent", "random"] > 0.5


def test_cli_tournament_json():
    res = CliRunner().invoke(app, ["tournament", "--strategies", "greedy,random", "--games", "50",
                                   "--seed", "3", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["strategies"] == ["greedy", "random"] and doc["ranking"][0]["strategy"] == "greedy"


@pytest.mark.parametrize("args", [
    ["--strategies", "greedy"],
    ["--strategies", "greedy,nobody"],
    ["--strategies", "greedy,prudent:risk=2"],
    ["--strategies", "greedy,random", "--games", "0"],
])
def test_cli_tournament_bad_input(args):
    res = CliRunner().invoke(app, ["tournament", *args])
    assert res.exit_code == 2
    assert res.output.strip().startswith("error:") and len(res.output.strip().splitlines()) == 1
