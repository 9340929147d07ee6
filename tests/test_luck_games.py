"""Each seat's luck in the engine's games (heron_sim.strategies.luck_turn, docs/luck.md).

With luck on, every game is bit-identical to the golden file's (the same columns hash the same,
for every strategy and rule set of tests/golden_games.py), and each seat's luck has mean zero for
every strategy (4.5 σ, per-game sums) under three dice (8 D8, 7 D8, 10 D8).
"""

import numpy as np
import pytest

from heron_sim.rules import Rules
from heron_sim.simulation import simulate
from tests import golden_games as gg

pytestmark = pytest.mark.statistical

Z = 4.5


def _hashes(frame, columns):
    import hashlib

    out = []
    for row in frame[columns].to_numpy():
        blob = "|".join(repr(v.item() if isinstance(v, np.generic) else v) for v in row).encode()
        out.append(hashlib.sha256(blob).hexdigest()[:12])
    return out


@pytest.mark.exact
@pytest.mark.parametrize("name,overrides,mode,strategies", gg.CASES, ids=[c[0] for c in gg.CASES])
def test_games_with_luck_are_the_golden_games(name, overrides, mode, strategies):
    golden = gg.load()
    rules = Rules.build(mode=mode, overrides=overrides)
    seating = [strategies[i % len(strategies)] for i in range(rules.players)]
    frame = simulate(rules, gg.GAMES, seed=gg.SEED, strategies=seating, threads=1, luck=True)
    got = _hashes(frame, golden["columns"][name])
    moved = [i for i, (a, b) in enumerate(zip(got, golden["cases"][name])) if a != b]
    assert not moved, f"{name}: {len(moved)} games moved with luck on, the first is game {moved[0]}"
    has_luck = "luck_seat1" in frame.columns
    assert has_luck == (mode != "10d6" and not getattr(rules, "guides", ())), name
    if has_luck:
        assert frame["luck_seat1"].dtype == np.float64
        assert f"luck_seat{rules.players}" in frame.columns and f"luck_seat{rules.players + 1}" not in frame.columns


GAMES = {"8d8": 3000, "7d8": 2000, "10d8": 2000}
STRATEGIES = ["greedy", "prudent", "expert", "racer", "casual", "random"]


@pytest.mark.parametrize("mode", ["8d8", "7d8", pytest.param("10d8", marks=pytest.mark.slow)])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_seat_luck_has_mean_zero(mode, strategy):
    _zero_mean(mode, strategy, GAMES[mode])


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["8d8", "7d8", "10d8"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_seat_luck_has_mean_zero_over_many_games(mode, strategy):
    _zero_mean(mode, strategy, 60_000)  # ~10^6 turns a seat and strategy


def _zero_mean(mode, strategy, games):
    rules = Rules.build(mode=mode, players=4)
    frame = simulate(rules, games, seed=21, strategies=strategy, luck=True)
    for s in range(4):
        x = frame[f"luck_seat{s + 1}"].to_numpy()
        z = x.mean() / (x.std(ddof=1) / np.sqrt(x.size))
        assert abs(z) < Z, (mode, strategy, s, x.mean())


def test_a_biased_luck_is_caught():
    """Negative control: the same test on the luck plus 0.1 square a turn played (a biased after-roll value) fails."""
    rules = Rules.build(mode="8d8", players=4)
    frame = simulate(rules, GAMES["8d8"], seed=21, strategies="greedy", luck=True)
    x = frame["luck_seat1"].to_numpy() + 0.1 * frame["turns_0"].to_numpy()
    assert x.mean() / (x.std(ddof=1) / np.sqrt(x.size)) > Z


def test_luck_costs_nothing_when_not_asked():
    rules = Rules.build(mode="8d8", players=4)
    frame = simulate(rules, 50, seed=21, strategies="greedy")
    assert not any(c.startswith("luck_") for c in frame.columns)


@pytest.mark.cli
def test_simulate_luck_json_has_the_adjusted_win_rates():
    import json

    from typer.testing import CliRunner

    from heron_sim.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["simulate", "--games", "600", "--luck", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    for key in ("win_rate_by_seat", "win_rate_by_seat_ci", "win_rate_by_seat_adjusted",
                "win_rate_by_seat_adjusted_ci", "win_rate_by_guide_adjusted", "win_rate_by_guide_adjusted_ci",
                "first_player_advantage_adjusted_ci"):
        assert doc[key] is not None, key
    for (lo, hi), rate in zip(doc["win_rate_by_seat_adjusted_ci"], doc["win_rate_by_seat_adjusted"]):
        assert lo < rate < hi
    plain = json.loads(runner.invoke(app, ["simulate", "--games", "600", "--json"]).stdout)
    assert plain["win_rate_by_seat"] == doc["win_rate_by_seat"]  # the same games
    assert plain["win_rate_by_seat_adjusted"] is None
    bad = runner.invoke(app, ["simulate", "--games", "10", "--luck", "--precision", "0.01"])
    assert bad.exit_code != 0 and "error: --luck" in bad.output
