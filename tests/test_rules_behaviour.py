"""Rules that play like other rules (``Key.inert_while``, ``Rules.behaviour``): the games are
bit-identical, so the lab may tell a candidate the sums of rules already played.

Every key declared inert while another key has a value is checked: at that value, the key at
other values gives the same kernel output rows, game by game, for greedy, the expert and the
four human rungs (the players whose tables might read it), and the same seats' arrays; under
rules by guide too. The negative control: with the switching key on, the key changes games and
``behaviour`` keeps it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from heron_sim.rules import Rules
from heron_sim.rules.keys import KEYS

INERT = [k for k in KEYS.values() if k.inert_while is not None]
SEATINGS = (("greedy", "expert", "novice", "casual"), ("regular", "expert", "casual", "novice"))
GAMES = 600


def _rows(r: Rules, seating) -> np.ndarray:
    from heron_sim.runner.executor import Batch, play_rows

    return play_rows(Batch(r, seating, 31, 0, GAMES))


def _other_values(k):
    vals = [v for v in (k.lo, 1, 2, 3, 4, k.hi) if v != k.default and k.lo <= v <= k.hi] if k.kind == "int" \
        else [not k.default]
    return sorted(set(vals))[:2]


def test_a_key_is_declared_inert():
    assert [k.name for k in INERT] == ["heron_doubling_min_set"]


@pytest.mark.parametrize("key", [k.name for k in INERT])
def test_an_inert_key_changes_no_game(key):
    from heron_sim.engine.pack import pack_rules
    from heron_sim.strategies import parse_seating, seat_arrays

    k = KEYS[key]
    ctrl, off = k.inert_while
    base = dataclasses.replace(Rules.build(mode="8d8"), **{ctrl: off})
    for v in _other_values(k):
        r = dataclasses.replace(base, **{key: v})
        assert r.digest() != base.digest()
        assert r.behaviour().digest() == base.digest()
        assert np.array_equal(pack_rules(r.behaviour()), pack_rules(base))
        for seating in SEATINGS:
            a = seat_arrays(parse_seating(list(seating), 4), base)
            b = seat_arrays(parse_seating(list(seating), 4), r)
            assert all(np.array_equal(x, y) for x, y in zip(a, b))
            assert np.array_equal(_rows(r, seating), _rows(base, seating))


def test_an_inert_key_under_rules_by_guide():
    """The Héron guide's holder rolls 4 times; the smallest doubled set, for everyone and as a
    rule of the Héron's holder, changes nothing while no one doubles on herons."""
    base = _by_guide({"heron": {"rolls": 4}})
    r = dataclasses.replace(base, heron_doubling_min_set=3)
    g = _by_guide({"heron": {"rolls": 4, "heron_doubling_min_set": 5}})
    for x in (r, g):
        assert x.digest() != base.digest()
        assert x.behaviour().digest() == base.digest()
        for seating in SEATINGS:
            assert np.array_equal(_rows(x, seating), _rows(base, seating))


def _by_guide(table: dict) -> Rules:
    return Rules.build(mode="8d8", overrides={f"guide.{g}.{k}": v for g, kv in table.items() for k, v in kv.items()})


def test_negative_control_the_key_matters_once_switched_on():
    k = KEYS["heron_doubling_min_set"]
    on = dataclasses.replace(Rules.build(mode="8d8"), **{k.inert_while[0]: 1})
    r = dataclasses.replace(on, heron_doubling_min_set=4)
    assert r.behaviour() is r and r.behaviour().digest() != on.digest()
    seating = SEATINGS[0]
    assert not np.array_equal(_rows(r, seating), _rows(on, seating))
    # a guide's own value is kept where that guide's holder doubles on herons
    g = _by_guide({"heron": {"heron_doubling_herons": 1, "heron_doubling_min_set": 4}})
    assert g.behaviour().digest() == g.digest()


class _Counting:
    """A local executor that counts the batches it plays."""

    def __init__(self):
        from heron_sim.runner.executor import LocalExecutor

        self.inner, self.batches = LocalExecutor(), 0

    def map(self, fn, items, progress=None):
        items = list(items)
        self.batches += len(items)
        return self.inner.map(fn, items, progress=progress)


def test_the_lab_does_not_replay_rules_that_play_alike():
    """The evaluator tells rules that play like rules already played their sums without playing
    them (no batch), the same numbers a fresh evaluator gets by playing them; rules that differ
    are played."""
    from heron_sim.lab import parse_spec
    from heron_sim.lab.evaluate import Evaluator

    spec = parse_spec({"name": "t", "mode": "8d8", "players": 4, "seating": "casual,greedy,expert,novice",
                       "seed": 5, "search": {"trials": 2, "games": 400},
                       "param": [{"key": "heron_doubling_min_set", "int": [0, 6]}],
                       "objective": [{"metric": "guide_spread", "direction": "minimize"}]}, "t.toml")
    base = tuple(spec.scenario_bases)
    alike = tuple(dataclasses.replace(r, heron_doubling_min_set=4) for r in base)
    other = tuple(dataclasses.replace(r, heron_doubling_min_set=4, heron_doubling_herons=1) for r in base)
    ex = _Counting()
    ev = Evaluator(spec, ex)
    (S0,) = ev.sums([base], 0, 400)
    played = ex.batches
    assert played > 0 and ev.games_played == 400 * len(base)
    S1, S2 = ev.sums([alike, other], 0, 400)
    assert ex.batches == 2 * played  # only `other` was played
    assert ev.games_reused == 400 * len(base)
    fresh = Evaluator(spec, _Counting())
    (F1,) = fresh.sums([alike], 0, 400)
    assert np.array_equal(S1, F1) and np.array_equal(S1, S0)
    assert not np.array_equal(S2, S0)
    # other games (another first game) are played, not taken from the first ones
    ev.sums([alike], 400, 400)
    assert ex.batches == 3 * played
