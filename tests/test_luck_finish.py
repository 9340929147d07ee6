"""The finish luck (issue 59 item 1, docs/luck.md "Luck in winning chances"): at every roll, the
chance that the turn reaches the finish under the expert's programme, after the roll minus before.
A win is reaching the finish, so this is the luck of the race's threshold, in chances. Each
seat's sum has mean zero for every player family, for rules by guide and at 2 and 6 players; a
law read one square off (a valuation that is not the expectation of the value after) is caught by
the same test; the games are the same with it; and it narrows the win rates' intervals."""

import numpy as np
import pytest

from heron_sim.analysis.luck_adjust import adjusted_win_rates, variance_ratio
from heron_sim.rules import Rules
from heron_sim.simulation import simulate

pytestmark = pytest.mark.statistical

Z = 4.5

FAMILIES = [
    ("greedy", 4, {}),
    ("expert", 4, {}),
    ("greedy,prudent,expert,racer", 4, {}),
    ("novice,casual,regular,expert", 4, {}),
    ("novice,casual,regular,expert", 4, {"guide": {"heron": {"anxiety_threshold": 4, "rolls": 4}},
                                         "guide.taureau.bull_bonus": 4}),
    ("novice,casual", 2, {}),
    ("novice,casual,regular,expert,novice,casual", 6, {}),
    ("greedy,prudent,expert,racer", 4, {"exact_finish": True}),
]
IDS = ["greedy", "expert", "ai-mix", "ladder", "ladder-rules-by-guide", "rungs-2", "rungs-6", "mix-exact-finish"]


def _z(x):
    sd = x.std(ddof=1)
    return 0.0 if sd == 0 else x.mean() / (sd / np.sqrt(x.size))


def _finish(frame, players):
    return frame[[f"luck_seat{s + 1}_finish" for s in range(players)]].to_numpy(dtype=float)


def _check(strategies, players, overrides, games, seed):
    rules = Rules.build(mode="8d8", players=players, overrides=overrides)
    frame = simulate(rules, games, seed=seed, strategies=strategies, luck=True)
    F = _finish(frame, players)
    assert (F.std(axis=0) > 0).all()
    z = [_z(F[:, s]) for s in range(players)]
    assert max(abs(v) for v in z) < Z, (strategies, overrides, z)
    assert abs(_z(F.sum(axis=1))) < Z, (strategies, overrides)
    return frame


@pytest.mark.parametrize("strategies,players,overrides", FAMILIES, ids=IDS)
def test_every_finish_luck_has_mean_zero(strategies, players, overrides):
    """Each seat's finish luck, and their sum, within 4.5 σ of 0 (3,000 games)."""
    _check(strategies, players, overrides, 3000, 71)


@pytest.mark.slow
@pytest.mark.parametrize("strategies,players,overrides", FAMILIES, ids=IDS)
def test_every_finish_luck_has_mean_zero_over_many_games(strategies, players, overrides):
    """The same over 40,000 games."""
    _check(strategies, players, overrides, 40_000, 73)


def _shifted(made):
    from heron_sim.strategies import expert_luck as EL

    def shifted(rules):
        row, lo = made(rules)
        row = row.copy()
        at, amax = int(row[lo + EL.LK_LAND]), int(row[lo + EL.LK_AMAX])
        block = row[at:].reshape(-1, amax)
        block[:, 1:] = block[:, :-1].copy()
        block[:, 0] = 0.0
        row[at:] = block.ravel()
        return row, lo
    return shifted


def test_a_law_read_one_square_off_is_caught(monkeypatch):
    """Negative control: the laws before each roll read one square off (each moved up by one
    square: the chance before of reaching the finish too high, not the expectation of the chance
    after) leave 4.5 σ on the same test (the AI mix)."""
    from heron_sim.strategies import expert_luck as EL

    monkeypatch.setattr(EL, "luck_row", _shifted(EL.luck_row))
    frame = simulate(Rules.build(mode="8d8", players=4), 3000, seed=71, strategies="greedy,prudent,expert,racer",
                     luck=True)
    F = _finish(frame, 4)
    assert abs(_z(F.sum(axis=1))) > Z, _z(F.sum(axis=1))


def test_the_games_are_the_same_with_the_finish_luck():
    """The frame's game columns equal those of the same games without luck."""
    rules = Rules.build(mode="8d8", players=4)
    a = simulate(rules, 300, seed=5, strategies="novice,casual,regular,expert", luck=True)
    b = simulate(rules, 300, seed=5, strategies="novice,casual,regular,expert")
    assert a[list(b.columns)].equals(b)


def test_the_finish_luck_narrows_the_intervals():
    """On 10,000 games of the AI mix the finish lucks raise every seat's variance ratio above
    the other lucks' alone (the same games, the finish columns dropped), and past 2 (measured
    2.18-2.60 on these games: below the 3 the issue asks, docs/luck.md)."""
    frame = simulate(Rules.build(mode="8d8", players=4), 10_000, seed=63, strategies="greedy,prudent,expert,racer",
                     luck=True)
    without = frame.drop(columns=[c for c in frame.columns if c.endswith("_finish")])
    full = variance_ratio(adjusted_win_rates(frame))["seat"]
    base = variance_ratio(adjusted_win_rates(without))["seat"]
    assert all(f > b for f, b in zip(full, base)), (full, base)
    assert min(full) > 2.0, full


def test_a_valuation_that_peeks_at_the_outcome_is_caught():
    """Negative control: the finish luck counted only where it turned out positive (a weight that
    peeks at the dice's outcome: 1 where the rolls went the seat's way) leaves 4.5 σ on the same
    test, each seat, where the honest luck of the same games stays within it."""
    frame = simulate(Rules.build(mode="8d8", players=4), 3000, seed=71, strategies="greedy,prudent,expert,racer",
                     luck=True)
    F = _finish(frame, 4)
    assert max(abs(_z(F[:, s])) for s in range(4)) < Z
    peek = np.where(F > 0, F, 0.0)
    assert min(_z(peek[:, s]) for s in range(4)) > Z
