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


# ---- the powers' draws (the Wolf's reroll, the Eagle's draws: luck_turn.power_luck) ----------
POWER_TABLES = {"expert": ["expert"] * 4, "ladder": ["novice", "casual", "regular", "expert"]}
POWER_GAMES = 4000


def _power_luck_frame(monkeypatch, seats, bias=0.0, games=POWER_GAMES):
    """Games whose luck columns hold the powers' draws only (expert_luck.powers_only), each with
    ``bias`` added to its value after."""
    from heron_sim.strategies import expert_luck

    made = expert_luck.luck_row
    monkeypatch.setattr(expert_luck, "luck_row", lambda rules: expert_luck.powers_only(made(rules), bias))
    return simulate(Rules.build(mode="8d8", players=4), games, seed=31, strategies=seats, luck=True)


@pytest.mark.parametrize("table", list(POWER_TABLES))
def test_the_powers_draws_luck_has_mean_zero(monkeypatch, table):
    """Each seat's luck from the powers' draws alone has mean zero (4.5 σ, per-game sums: the
    expert, and each rung of the ladder, a power ready whenever its guide is one), and it is
    counted exactly where a Wolf or an Eagle was used."""
    frame = _power_luck_frame(monkeypatch, POWER_TABLES[table])
    L = frame[[f"luck_seat{s + 1}" for s in range(4)]].to_numpy()
    used = frame["power_loup"].to_numpy() + frame["power_aigle"].to_numpy()
    assert not L[used == 0].any()  # no draw, no term (the rolls are not counted here)
    assert (L[used > 0] != 0).any(axis=1).mean() > 0.9  # each use adds a term (0 exactly: rare ties)
    for s in range(4):
        x = L[:, s]
        assert (x != 0).sum() > 500, (table, s)  # enough draws to test the seat
        z = x.mean() / (x.std(ddof=1) / np.sqrt(x.size))
        assert abs(z) < Z, (table, s, x.mean())


def test_a_biased_power_value_is_caught(monkeypatch):
    """Negative control: the same test with 0.05 square added to each draw's value after fails
    (z > 4.5 on the pooled seats)."""
    frame = _power_luck_frame(monkeypatch, POWER_TABLES["ladder"], bias=0.05)
    x = frame[[f"luck_seat{s + 1}" for s in range(4)]].to_numpy().sum(axis=1)
    assert x.mean() / (x.std(ddof=1) / np.sqrt(x.size)) > Z
