"""Exact dice laws (heron_sim.exact): closed forms and independent brute force.

The brute force below enumerates every ordered outcome sequence of explicit dice (each face
of each die equiprobable) and plays ``greedy`` die by die, written from the rulings (§2-4, §7)
without any code from heron_sim.exact.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from heron_sim.exact import (
    first_roll_herons,
    greedy_turn,
    heron_probabilities,
    p_first_roll_anxiety,
    p_pond,
    pond_pushback,
    pond_pushback_unconditional,
)
from heron_sim.rules import Rules

pytestmark = pytest.mark.exact

HERON = 6


def binom_tail(n: int, q: Fraction, k0: int) -> Fraction:
    return sum((math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(k0, n + 1)), Fraction(0))


# ---------------------------------------------------------------- first roll and Pond


def test_p_pond_8d8_closed_form():
    rules = Rules.build(mode="8d8")
    exact = binom_tail(8, Fraction(1, 7), 4)
    assert exact == Fraction(14839, 823543)
    assert abs(p_pond(rules) - float(exact)) < 1e-12
    assert round(100 * p_pond(rules), 2) == 1.80  # the seed's figure


@pytest.mark.parametrize("mode,n,q", [("7d8", 7, Fraction(1, 7)), ("10d8", 10, Fraction(1, 7)),
                                      ("10d6", 10, Fraction(1, 6))])
def test_p_pond_other_modes(mode, n, q):
    assert abs(p_pond(Rules.build(mode=mode)) - float(binom_tail(n, q, 4))) < 1e-12


def test_heron_probabilities():
    assert np.allclose(heron_probabilities(Rules.build(mode="8d8")), [1 / 7] * 8, rtol=0, atol=1e-15)
    h = heron_probabilities(Rules.build(mode="10d6"))
    assert h.shape == (10,)
    assert np.allclose(h, 1 / 6, rtol=0, atol=1e-15)
    # A user die with repeated faces: 2 herons out of 4 faces.
    rules = Rules.build(overrides={"dice.faces": [["heron", "heron", "loup", "cerf"], ["loup", "heron"]]})
    assert np.allclose(heron_probabilities(rules), [0.5, 0.5])


def test_first_roll_law():
    law = first_roll_herons(Rules.build(mode="8d8"))
    assert law.shape == (9,)
    assert abs(law.sum() - 1) < 1e-12
    for k in range(9):
        assert abs(law[k] - math.comb(8, k) * (1 / 7) ** k * (6 / 7) ** (8 - k)) < 1e-14
    # Poisson-binomial of different dice: P(0 herons) = product of the misses.
    rules = Rules.build(overrides={"dice.faces": [["heron", "loup"], ["heron", "loup", "cerf"], ["loup", "cerf"]]})
    law = first_roll_herons(rules)
    assert np.allclose(law, [1 / 3, 1 / 2, 1 / 6, 0.0], rtol=0, atol=1e-15)


def test_first_roll_anxiety():
    rules = Rules.build(mode="8d8")
    expected = math.comb(8, 3) * (1 / 7) ** 3 * (6 / 7) ** 5  # exactly 3 herons
    assert abs(p_first_roll_anxiety(rules) - expected) < 1e-14
    rules = Rules.build(mode="10d6")
    expected = math.comb(10, 3) * (1 / 6) ** 3 * (5 / 6) ** 7
    assert abs(p_first_roll_anxiety(rules) - expected) < 1e-14


def brute_pond(dice, threshold):
    """Joint law of (Pond, H) by explicit enumeration of every die (no grouping)."""
    out: dict[int, Fraction] = {}

    def chain(reserved: frozenset, h: int, p: Fraction):
        free = [i for i in range(len(dice)) if i not in reserved]
        if not free:
            out[h] = out.get(h, 0) + p
            return
        q = p / math.prod(len(dice[i]) for i in free)
        for faces in product(*(dice[i] for i in free)):
            new = [i for i, f in zip(free, faces) if f == HERON]
            if not new:
                out[h] = out.get(h, 0) + q
            else:
                chain(reserved | frozenset(new), h + len(new), q)

    q0 = Fraction(1, math.prod(len(d) for d in dice))
    for faces in product(*dice):
        herons = [i for i, f in enumerate(faces) if f == HERON]
        if len(herons) >= threshold:
            chain(frozenset(herons), len(herons), q0)
    return out


def test_pushback_brute_force_distinct_dice():
    faces = [["heron", "loup"], ["heron", "loup", "cerf"], ["heron", "heron", "lion"], ["aigle", "heron"]]
    rules = Rules.build(overrides={"dice.faces": faces, "pond_threshold": 2})
    expected = brute_pond(rules.dice, 2)
    got = pond_pushback_unconditional(rules)
    assert set(got) == set(expected)
    for k, p in expected.items():
        assert abs(got[k] - float(p)) < 1e-14
    total = float(sum(expected.values()))
    assert abs(p_pond(rules) - total) < 1e-14
    cond = pond_pushback(rules)
    for k, p in expected.items():
        assert abs(cond[k] - float(p) / total) < 1e-14


@pytest.mark.parametrize("mode,top", [("8d8", 8), ("7d8", 7), ("10d8", 10), ("10d6", 10)])
def test_pushback_support(mode, top):
    rules = Rules.build(mode=mode)
    law = pond_pushback(rules)
    assert sorted(law) == list(range(4, top + 1))
    assert abs(sum(law.values()) - 1) < 1e-12
    joint = pond_pushback_unconditional(rules)
    assert abs(sum(joint.values()) - p_pond(rules)) < 1e-12


def test_pushback_8d8_all_reserved():
    # H = 8 on 8 D8 from h = 8 at once, or h < 8 then herons until all are reserved.
    law = pond_pushback(Rules.build(mode="8d8"))
    p8_first = (1 / 7) ** 8 / p_pond(Rules.build(mode="8d8"))
    assert law[8] > p8_first  # the chain adds mass: the push-back is not just the first roll
    assert law[4] > law[5] > law[6] > law[7] > law[8]


def test_no_pond_possible():
    rules = Rules.build(mode="8d8", overrides={"pond_threshold": 9})
    assert p_pond(rules) == 0.0
    assert pond_pushback(rules) == {}


# ---------------------------------------------------------------- greedy turn, brute force


def brute_greedy(rules: Rules, guide: int, rolls: int, powers: bool) -> dict:
    """Law of one greedy turn, enumerating every ordered outcome of explicit dice.

    Keys: ("pond",), ("anx", rescued advance), ("adv", advance).
    """
    dice = rules.dice
    n = len(dice)
    table = rules.combo_advance

    def best(counts):
        s = max(counts[:6])
        if guide < 6 and counts[guide] == s:
            return s, guide
        return s, counts[:6].index(s)

    def score(showing):
        counts = [showing.count(a) for a in range(7)]
        s, a = best(counts)
        adv = table[min(s, len(table) - 1)]
        if s >= 3 and a == guide and rules.guide_power_doubling:
            adv *= 2
        if s >= 3 and powers and guide == 1:
            adv += 2
        return adv

    law: dict = {}

    def add(key, p):
        law[key] = law.get(key, 0.0) + p

    def play(showing, kept, roll, p):
        free = [i for i in range(n) if not kept[i]]
        q = p / math.prod(len(dice[i]) for i in free)
        for faces in product(*(dice[i] for i in free)):
            now = list(showing)
            for i, f in zip(free, faces):
                now[i] = f
            herons_rolled = [i for i in free if now[i] == HERON]
            if roll == 0 and len(herons_rolled) >= rules.pond_threshold:
                add(("pond",), q)
                continue
            kept2 = list(kept)
            for i in herons_rolled:
                kept2[i] = True
            if sum(1 for i in range(n) if kept2[i] and now[i] == HERON) >= rules.anxiety_threshold:
                rescued = score(now) if (powers and guide == 3) else 0
                add(("anx", rescued), q)
                continue
            counts = [now.count(a) for a in range(7)]
            _, t = best(counts)
            newly = len(herons_rolled)
            for i in free:
                if now[i] == t:
                    kept2[i] = True
                    newly += 1
            if roll + 1 < rolls and not all(kept2) and newly >= 1:
                play(now, kept2, roll + 1, q)
            else:
                add(("adv", score(now)), q)

    play([None] * n, [False] * n, 0, 1.0)
    return law


def compare(rules, guide, rolls, powers):
    law = greedy_turn(rules, guide, rolls=rolls, powers=powers)
    brute = brute_greedy(rules, guide, rolls, powers)
    assert abs(law.p_pond - brute.get(("pond",), 0.0)) < 1e-12
    anx = {k[1]: p for k, p in brute.items() if k[0] == "anx"}
    adv = {k[1]: p for k, p in brute.items() if k[0] == "adv"}
    assert abs(law.p_anxiety - sum(anx.values())) < 1e-12
    assert set(law.advance) == set(adv)
    for a, p in adv.items():
        assert abs(law.advance[a] - p) < 1e-12, (a, law.advance[a], p)
    assert set(law.anxiety_advance) == set(anx)
    for a, p in anx.items():
        assert abs(law.anxiety_advance[a] - p) < 1e-12
    mean = sum(a * p for a, p in adv.items()) + sum(a * p for a, p in anx.items())
    assert abs(law.expected_advance - mean) < 1e-12
    assert abs(law.p_pond + law.p_anxiety + sum(law.advance.values()) - 1) < 1e-12
    return law


@pytest.mark.parametrize("guide,powers", [(0, False), (1, True), (3, True), (6, True)])
def test_greedy_brute_force_3d8_3_rolls(guide, powers):
    # Lower thresholds so that Pond, Anxiety and combinations all happen with 3 dice.
    rules = Rules.build(mode="8d8", overrides={"dice.count": 3, "pond_threshold": 3,
                                               "anxiety_threshold": 2})
    law = compare(rules, guide, 3, powers)
    assert law.p_pond > 0 and law.p_anxiety > 0 and max(law.advance) > 0


def test_greedy_brute_force_4d8_2_rolls_lion():
    # At Anxiety (2 herons) at most 2 dice are left: give pairs an advance so rescues score.
    rules = Rules.build(mode="8d8", overrides={"dice.count": 4, "anxiety_threshold": 2,
                                               "combinations.advance": [0, 1, 2, 3, 4]})
    law = compare(rules, 3, 2, True)
    assert law.p_pond > 0 and law.anxiety_advance[1] > 0 and law.anxiety_advance[2] > 0


@pytest.mark.parametrize("guide", [0, 4, 5])
def test_greedy_brute_force_distinct_dice(guide):
    # Four different dice, two of them identical, repeated faces, an animal on no die.
    faces = [["loup", "loup", "heron", "taureau"], ["loup", "serpent", "heron"],
             ["loup", "serpent", "heron"], ["cerf", "taureau", "aigle", "heron", "cerf"]]
    rules = Rules.build(overrides={"dice.faces": faces, "pond_threshold": 3, "anxiety_threshold": 2,
                                   "combinations.advance": [0, 1, 2, 4, 8]})
    compare(rules, guide, 3, True)


def test_greedy_brute_force_10d6_dice():
    # The first three historic D6 (all different) with 3 rolls.
    rules = Rules.build(mode="10d6", overrides={"dice.count": 3, "pond_threshold": 3,
                                                "anxiety_threshold": 2,
                                                "combinations.advance": [0, 1, 2, 5]})
    compare(rules, 2, 3, False)


# ---------------------------------------------------------------- greedy turn, properties


@pytest.mark.parametrize("mode", ["8d8", "7d8"])
def test_greedy_totals(mode):
    rules = Rules.build(mode=mode)
    law = greedy_turn(rules, 0, rolls=3, powers=False)
    assert abs(law.p_pond + law.p_anxiety + sum(law.advance.values()) - 1) < 1e-12
    assert abs(law.p_pond - p_pond(rules)) < 1e-12
    assert abs(sum(law.pushback.values()) - p_pond(rules)) < 1e-12
    assert law.p_anxiety > p_first_roll_anxiety(rules)  # rerolls add Anxieties
    assert greedy_turn(rules, 0, rolls=3, powers=False) is law  # cached


def test_greedy_one_roll_is_first_roll():
    rules = Rules.build(mode="8d8")
    law = greedy_turn(rules, 0, rolls=1, powers=False)
    assert abs(law.p_anxiety - p_first_roll_anxiety(rules)) < 1e-12
    # More rolls help: the mean advance grows with the number of rolls.
    means = [greedy_turn(rules, 0, rolls=r, powers=False).expected_advance for r in (1, 2, 3, 4)]
    assert means == sorted(means) and means[0] < means[-1]


def test_greedy_mixed_dice_totals():
    rules = Rules.build(mode="10d6", overrides={"dice.count": 6})
    law = greedy_turn(rules, 5, rolls=3, powers=True)
    assert abs(law.p_pond + law.p_anxiety + sum(law.advance.values()) - 1) < 1e-12
    assert abs(law.p_pond - p_pond(rules)) < 1e-12


def test_bull_shift():
    rules = Rules.build(mode="8d8")
    off = greedy_turn(rules, 1, powers=False)
    on = greedy_turn(rules, 1, powers=True)
    assert on.p_anxiety == pytest.approx(off.p_anxiety, abs=1e-14)
    # s <= 2 advances 0 and stays; every set of 3+ gains 2, not doubled.
    assert on.advance[0] == pytest.approx(off.advance[0], abs=1e-14)
    for a, p in off.advance.items():
        if a > 0:
            assert on.advance[a + 2] == pytest.approx(p, abs=1e-14)
    assert set(on.advance) == {0} | {a + 2 for a in off.advance if a > 0}
    success = sum(p for a, p in off.advance.items() if a > 0)
    assert on.expected_advance - off.expected_advance == pytest.approx(2 * success, abs=1e-12)


def test_lion_rescue():
    rules = Rules.build(mode="8d8")
    off = greedy_turn(rules, 3, powers=False)
    on = greedy_turn(rules, 3, powers=True)
    assert on.p_anxiety == pytest.approx(off.p_anxiety, abs=1e-14)
    for a, p in off.advance.items():
        assert on.advance[a] == pytest.approx(p, abs=1e-14)
    rescued = sum(a * p for a, p in on.anxiety_advance.items())
    assert rescued > 0
    assert off.anxiety_advance == {0: pytest.approx(off.p_anxiety, abs=1e-14)}
    assert on.expected_advance == pytest.approx(off.expected_advance + rescued, abs=1e-12)


def test_guide_doubling_switch():
    rules = Rules.build(mode="8d8")
    plain = greedy_turn(rules.replace(guide_power_doubling=False), 0, powers=False)
    doubled = greedy_turn(rules, 0, powers=False)
    assert doubled.expected_advance > plain.expected_advance
    assert max(doubled.advance) == 20 and max(plain.advance) == 10
