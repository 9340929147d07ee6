"""The champion: plays to win the game (issue 57 item 2; heron_sim.strategies.champion).

Its tables are exact where they can be (every reroll's law of the turn's final advance is the
expert's programme's: its mean is the table's stored reroll value, its mass 1), its games are the
same whatever the threads and batches, and it beats the racer and the expert head to head with
seats and guides mirrored (a fast version here, the issue's 20,000 paired games in ``slow``). Its
choice among every legal keep is checked exactly in tests/test_chances.py (each keep valued alone)
and, fused turn against the generic path, in tests/test_calibrate.py (its logged games are its
simulated games)."""

from __future__ import annotations

import numpy as np
import pytest

import heron_sim.simulation  # noqa: F401  (registers the champion's tables' builder)
from heron_sim.champion_tables import _laws
from heron_sim.rules import Rules
from heron_sim.simulation import simulate
from heron_sim.strategies.expert_build import expert_tables
from heron_sim.strategies.expert_dp import ENTRY, N_TABLES, ROW_DIR, dir_index, table_rolls
from heron_sim.strategies.expert_luck import AMAX
from heron_sim.tournament import tournament


@pytest.mark.parametrize("mode", ["8d8", "7d8"])
def test_each_reroll_points_at_the_programmes_law_of_the_turn(mode):
    """For every stored post-roll state of every table: a column where the programme would reroll
    (its best reroll's action >= 0, rolls left) points at a law whose mass is 1 and whose mean is
    the table's own expected advance of that reroll (to 1e-9); every other column points nowhere."""
    rules = Rules.build(mode=mode, players=2)
    table = expert_tables(rules).row
    ptr, laws = _laws(rules, table)
    rmax, anx = table_rolls(rules), min(rules.anxiety_threshold, rules.n_dice + 1)
    a = np.arange(AMAX)
    checked = 0
    for t in range(N_TABLES):
        for r in range(rmax + 1):
            for h in range(anx):
                for fl in range(2):
                    d = dir_index(t, r, h, fl, rmax, anx)
                    start, size = int(table[ROW_DIR + 2 * d]), int(table[ROW_DIR + 2 * d + 1])
                    for col in range(start, start + ENTRY * size, ENTRY):
                        p = int(ptr[col // ENTRY])
                        if r == 0 or table[col + 2] < 0:
                            assert p == -1, (t, r, h, fl, col)
                            continue
                        law = laws[p: p + AMAX]
                        assert law.sum() == pytest.approx(1.0, abs=1e-12)
                        assert float(a @ law) == pytest.approx(table[col + 3], abs=1e-9), (t, r, h, fl, col)
                        checked += 1
    assert checked > 10_000


def test_the_same_games_whatever_the_threads_and_the_batches():
    rules = Rules.build(mode="8d8", players=3)
    seats = ["champion", "racer", "expert"]
    one = simulate(rules, 600, 11, seats, threads=1, batch_size=600)
    two = simulate(rules, 600, 11, seats, threads=2, batch_size=97)
    pd_cols = [c for c in one.columns if c not in ("seconds",)]
    assert one[pd_cols].equals(two[pd_cols])
    # a game is played from its own stream: the games 300.. alone are the same games
    late = simulate(rules, 300, 11, seats, first_game=300, threads=2)
    assert one[pd_cols].iloc[300:].reset_index(drop=True).equals(late[pd_cols].reset_index(drop=True))


def _share(res, a, b):
    return res.win_rate.loc[a, b], res.low.loc[a, b], res.high.loc[a, b]


def test_it_beats_the_racer_and_the_expert_head_to_head():
    """Fast version: 6,000 games a seating (12,000 a pair, seats and guides mirrored), seed 5: the
    champion's share against the racer (measured 55.4 % at 20,000 a pair, docs/strategies.md) has
    its 95 % interval above the issue's 52 % (about 0.9 point wide each side here), against the
    expert above one half."""
    res = tournament(Rules.build(mode="8d8", players=2), ["champion", "racer", "expert"], 6000, seed=5)
    rate, low, high = _share(res, "champion", "racer")
    assert low > 0.52, (rate, low, high)
    rate, low, high = _share(res, "champion", "expert")
    assert low > 0.5, (rate, low, high)


@pytest.mark.slow
def test_it_beats_the_racer_over_twenty_thousand_paired_games():
    """The issue's measure: 10,000 games a seating, 20,000 a pair, on another seed than the docs':
    at least 54 % against the racer with the 95 % interval above 52 %; and the keep chosen by its
    chance of winning is what lifts it: above its first version (``keeps=0``, the expert's keep)
    with the interval above one half."""
    res = tournament(Rules.build(mode="8d8", players=2), ["champion", "racer", "champion:keeps=0"], 10_000, seed=7)
    rate, low, high = _share(res, "champion", "racer")
    assert rate >= 0.54 and low > 0.52, (rate, low, high)
    rate, low, high = _share(res, "champion", "champion:keeps=0")
    assert low > 0.5, (rate, low, high)


def test_the_replayed_games_are_the_engines_games():
    """A champion seated in a game replayed slot by slot (heron_sim.analysis.positions: the worth's
    build, ``simulate --trace``) has its scratch in that workspace too (strategies.memo_words) and
    plays the very games of the engine: the same winners and final squares."""
    from heron_sim.analysis.positions import trace_turn_starts

    rules = Rules.build(mode="8d8", players=3)
    seats = ["champion", "prudent", "champion"]  # prudent's memo and the champion's scratch side by side
    df = simulate(rules, 120, 4, seats)
    tr = trace_turn_starts(rules, seats, 4, 120)
    assert list(tr.winner) == list(df["winner"])
    assert (tr.final == df[[f"pos_{s}" for s in range(3)]].to_numpy()).all()


def test_its_block_column_is_the_strategies_one():
    """The champion reads where its block starts from the column the seats' rows write it to."""
    from heron_sim.strategies import SEAT_BLOCK_COLUMN, N_STRATEGY_PARAMS
    from heron_sim.strategies import champion

    assert champion.SEAT_BLOCK_COLUMN == SEAT_BLOCK_COLUMN and len(champion.PARAMS) <= SEAT_BLOCK_COLUMN < N_STRATEGY_PARAMS


@pytest.mark.parametrize("spec, words", [
    ("champion:keeps=0.5", "keeps = 0.5; allowed: a whole number in 0..1"),
    ("champion:keeps=2", "keeps = 2; allowed: 0..1"),
    ("champion:steps=1.5", "steps = 1.5; allowed: a whole number in 1..3"),
    ("champion:keep=1", "bad parameter 'keep=1'; allowed: steps=<number>, keeps=<number>"),
])
def test_a_bad_parameter_is_one_line(spec, words):
    from heron_sim.errors import HeronSimError
    from heron_sim.strategies import parse_strategy

    with pytest.raises(HeronSimError) as err:
        parse_strategy(spec)
    assert words in str(err.value) and "\n" not in str(err.value)
    assert parse_strategy("champion:keeps=0") == ("champion", {"steps": 1, "keeps": 0.0})
    # a parameter of real values (the human's) keeps its fractions
    assert parse_strategy("human:caution=1.5")[1]["caution"] == 1.5
