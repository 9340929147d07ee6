"""The expert's dynamic programme: exact against a brute force, against simulation, and
against the other strategies."""

from __future__ import annotations

import json
import os
import numpy as np
import pytest

from heron_sim.animals import CERF, HERON, LION, LOUP, TAUREAU
from heron_sim.exact import greedy_turn
from heron_sim.rules import Rules
from heron_sim.simulation import simulate_turns
from heron_sim.strategies import expert_build, expert_dp
from heron_sim.strategies.expert_build import optimal_turn_value

from .brute_force import brute_force_turn

pytestmark = [pytest.mark.exact, pytest.mark.statistical]

D8_MODES = ("7d8", "8d8", "10d8")


# ------------------------------------------------------------------ against the brute force (tests/brute_force.py)


SMALL = [
    (dict(dice={"count": 3}), LOUP),
    (dict(dice={"count": 3}, anxiety_threshold=2, pond_threshold=3), HERON),
    (dict(dice={"count": 4}), LOUP),
    (dict(dice={"count": 4}, anxiety_threshold=2, pond_threshold=3, rolls=4), LOUP),
    pytest.param(dict(dice={"count": 5}, rolls=2), LOUP, marks=pytest.mark.slow),
    pytest.param(dict(dice={"count": 6}, rolls=2), LOUP, marks=pytest.mark.slow),  # ~3 min
]


@pytest.mark.parametrize("overrides,guide", SMALL)
def test_dp_equals_brute_force(overrides, guide):
    # one advance table for every dice count, cut to the sizes these dice can make (a longer
    # list is refused: its extra entries would never be used)
    advance = [0, 1, 2, 4, 7, 9][: overrides["dice"]["count"] + 1]
    rules = Rules.build(mode="8d8", overrides=dict(overrides, combinations={"advance": advance}))
    dp = optimal_turn_value(rules, guide, powers=False)
    # 1e-10 relative: the two sums add up to 8**6 terms in different orders
    assert dp == pytest.approx(brute_force_turn(rules, guide), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("guide,flag", [(TAUREAU, "bull"), (LION, "lion")])
def test_dp_powers_equal_brute_force(guide, flag):
    rules = Rules.build(mode="8d8", overrides={"dice": {"count": 4}})
    dp = optimal_turn_value(rules, guide, powers=True)
    assert dp == pytest.approx(brute_force_turn(rules, guide, **{flag: True}), abs=1e-12)


# Rule variants the tables fold in (issue 17 item 1): each against the brute force, which reads
# the same keys independently. (rules overrides, guide, powers flag for the brute force)
VARIANTS = [
    ({"bull_bonus": 3, "bull_min_set": 2}, TAUREAU, "bull"),
    ({"heron_doubling_herons": 1, "heron_doubling_min_set": 2}, HERON, None),
    ({"consolation_no_set": 1, "consolation_anxiety": 2}, LOUP, None),
    ({"consolation_no_set": 1, "consolation_anxiety": 2, "anxiety_threshold": 2}, LION, "lion"),
    ({"combinations": {"advance": [0, 0, 1, 3, 6]}, "rolls": 4, "guide_power_doubling": False}, CERF, None),
]


@pytest.mark.parametrize("overrides,guide,flag", VARIANTS)
def test_dp_equals_brute_force_on_variants(overrides, guide, flag):
    rules = Rules.build(mode="8d8", overrides={"dice": {"count": 4}, **overrides})
    dp = optimal_turn_value(rules, guide, powers=flag is not None)
    bf = brute_force_turn(rules, guide, **({flag: True} if flag else {}))
    assert dp == pytest.approx(bf, rel=1e-10, abs=1e-12)
    # the variant matters: the rulings' value is another
    base = Rules.build(mode="8d8", overrides={"dice": {"count": 4}})
    assert abs(optimal_turn_value(base, guide, powers=flag is not None) - dp) > 1e-3


def test_tables_cache_key_covers_the_variant_keys():
    base = Rules.build()
    keys = {json.dumps(expert_dp._key(base), sort_keys=True)}
    for over in ({"bull_bonus": 3}, {"bull_min_set": 4}, {"heron_doubling_herons": 2},
                 {"heron_doubling_min_set": 3}, {"consolation_no_set": 1}, {"consolation_anxiety": 1},
                 {"eagle_draws": 3}, {"patience_cost": 0}, {"heron_patience_doubling": True},
                 {"first_turn_extra_rolls": [0, 3]}):
        keys.add(json.dumps(expert_dp._key(Rules.build(overrides=over)), sort_keys=True))
    assert len(keys) == 11
    # keys that cannot change a turn share the rulings' tables
    for over in ({"snake_advance": 3}, {"start_squares": [0, 2]}, {"pond_pushback_flat": 2},
                 {"first_turn_extra_rolls": [0, 1]}, {"finish": 54}):
        assert expert_dp._key(Rules.build(overrides=over)) == expert_dp._key(base)


def test_expert_plays_a_variant_as_its_tables_value_it():
    """The compiled expert on a Héron-doubling variant: its mean turn is the tables' optimum (and
    not the rulings' optimum)."""
    rules = Rules.build(mode="8d8", overrides={"heron_doubling_herons": 2, "powers": False})
    mean, se = _sim_mean(rules, "expert", turns=100_000, seed=8, guide="heron")
    assert abs(mean - optimal_turn_value(rules, HERON, powers=False)) < 5 * se
    base = Rules.build(mode="8d8", overrides={"powers": False})
    assert abs(mean - optimal_turn_value(base, HERON, powers=False)) > 5 * se


def test_brute_force_can_fail():
    """Negative control: the brute force tells a greedy turn from the optimum."""
    rules = Rules.build(mode="8d8", overrides={"dice": {"count": 4}})
    assert brute_force_turn(rules, LOUP) > greedy_turn(rules, LOUP, powers=False).expected_advance + 1e-3


# ------------------------------------------------------------------ DP vs the other players


@pytest.mark.parametrize("mode", D8_MODES)
@pytest.mark.parametrize("guide", [LOUP, TAUREAU, LION, HERON])
def test_expert_at_least_greedy_exactly(mode, guide):
    rules = Rules.build(mode=mode)
    for powers in (False, True):
        opt = optimal_turn_value(rules, guide, powers=powers)
        assert opt >= greedy_turn(rules, guide, powers=powers).expected_advance - 1e-12


# ------------------------------------------------------------------ simulation vs DP


def _turns_json(mode: str, turns: int, seed: int, strategy: str = "expert") -> dict:
    from typer.testing import CliRunner

    from heron_sim.cli import app

    res = CliRunner().invoke(app, ["turns", "--mode", mode, "--strategy", strategy, "--no-powers",
                                   "--turns", str(turns), "--seed", str(seed), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _mean_se(doc: dict) -> tuple[float, float]:
    n = doc["turns"]
    k = np.array([int(a) for a in doc["advance"]], dtype=float)
    c = np.array(list(doc["advance"].values()), dtype=float)
    mean = (k * c).sum() / n
    var = (k * k * c).sum() / n - mean**2
    return mean, np.sqrt(var / n)


@pytest.mark.parametrize("mode", D8_MODES)
def test_turns_cli_matches_dp(mode):
    doc = _turns_json(mode, 200_000, seed=11)
    mean, se = _mean_se(doc)
    rules = Rules.build(mode=mode, overrides={"powers": False})
    opt = optimal_turn_value(rules, LOUP, powers=False)
    assert abs(mean - opt) < 5 * se
    # Negative control: the same sample rejects greedy's exact value.
    assert abs(mean - greedy_turn(rules, LOUP, powers=False).expected_advance) > 5 * se


@pytest.mark.slow
@pytest.mark.parametrize("mode", D8_MODES)
def test_turns_cli_matches_dp_large(mode):
    doc = _turns_json(mode, 4_000_000, seed=12)
    mean, se = _mean_se(doc)
    rules = Rules.build(mode=mode, overrides={"powers": False})
    assert abs(mean - optimal_turn_value(rules, LOUP, powers=False)) < 5 * se


def _sim_mean(rules, strategy, turns=100_000, seed=5, guide="loup"):
    out = simulate_turns(rules, turns, seed, strategy, guide)
    v = np.where(out[:, 0] == 0, out[:, 1], 0).astype(float)
    return v.mean(), v.std() / np.sqrt(len(v))


def test_ordering_expert_prudent_random():
    """expert >= prudent >= random and expert >= greedy in mean advance per turn (powers off,
    so that every turn is a scored turn or a 0), 4 standard errors apart."""
    rules = Rules.build(mode="8d8", overrides={"powers": False})
    e, se_e = _sim_mean(rules, "expert")
    p, se_p = _sim_mean(rules, "prudent")
    g, se_g = _sim_mean(rules, "greedy")
    r, se_r = _sim_mean(rules, "random")
    assert e - p > 4 * np.hypot(se_e, se_p)
    assert e - g > 4 * np.hypot(se_e, se_g)
    assert p - r > 4 * np.hypot(se_p, se_r)


# ------------------------------------------------------------------ cache and 10d6


def test_tables_cache_roundtrip(tmp_path, monkeypatch):
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    expert_build._tables_cached.cache_clear()
    rules = Rules.build(mode="7d8")
    built = expert_build.expert_tables(rules)
    assert not built.loaded and list(tmp_path.glob("tables/expert-*.npz"))
    expert_build._tables_cached.cache_clear()
    loaded = expert_build.expert_tables(rules)  # its load time is measured by make bench
    assert loaded.loaded
    np.testing.assert_array_equal(built.row, loaded.row)
    expert_build._tables_cached.cache_clear()


def test_tables_in_memory_are_shared_by_rules_the_turn_does_not_read(tmp_path, monkeypatch):
    """The memory keeps tables by their key, not by the rules: the tables of 4 players serve 7
    (a study's tables of 2 to 7 players read one file once, not once a table); other turn rules
    get their own."""
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    expert_build._tables_cached.cache_clear()
    four = expert_build.expert_tables(Rules.build(mode="7d8", players=4))
    assert expert_build.expert_tables(Rules.build(mode="7d8", players=7)) is four
    other = expert_build.expert_tables(Rules.build(mode="7d8", overrides={"anxiety_threshold": 4}))
    assert other is not four and other.row.size != four.row.size
    expert_build._tables_cached.cache_clear()


def test_10d6_is_flagged_approximate():
    rules = Rules.build(mode="10d6")
    assert not expert_dp.dice_model(rules).exact
    assert expert_dp.dice_model(Rules.build(mode="8d8")).exact


# ------------------------------------------------------------------ perfect index, shared tables


@pytest.mark.parametrize("n", [3, 4, 7, 8, 10])
def test_state_rank_is_a_perfect_index(n):
    """The kernel's rank of a canonical state is a bijection onto 0..m-1 within each
    number of non-heron dice (the blocks of the tables are indexed by it)."""
    K, C, _ = expert_dp._post_states(n, n + 1)
    pidx, size, P, F = expert_dp._rank_tables(n)
    ranks = expert_dp._state_ranks(K, C, n, pidx, size, F)
    hs = n - (K + C).sum(axis=1)
    for h in range(n + 1):
        rk = ranks[hs == h]
        assert np.array_equal(np.sort(rk), np.arange(rk.size)) and rk.size == F[6, P, n - h]


@pytest.mark.parametrize("n", [3, 7, 8, 10])
def test_merged_rank_counts_give_the_same_ranks(n):
    """G[j, digit, rem] (ROW_G: what the look-ups read, one load a slot) is F[j, p(digit), rem]:
    the rank of every canonical state summed from G equals its rank from the pair index and F."""
    K, C, _ = expert_dp._post_states(n, n + 1)
    pidx, size, P, F = expert_dp._rank_tables(n)
    B = n + 1
    G = expert_dp.merged_rank_counts(n).reshape(7, B * B, n + 1)
    dig = K * B + C
    z = size[dig]
    rem = z.sum(axis=1)
    rank = G[6, dig[:, 0], rem]
    rem = rem - z[:, 0]
    for i in range(1, 6):
        rank = rank + G[6 - i, dig[:, i], rem]
        rem = rem - z[:, i]
    np.testing.assert_array_equal(rank, expert_dp._state_ranks(K, C, n, pidx, size, F))
    assert G.dtype == np.float64 and not G[:, pidx < 0, :].any()


def test_tables_with_other_merged_counts_are_refused():
    rules = Rules.build(mode="7d8")
    tab = expert_build.expert_tables(rules)
    assert expert_build.check_tables(tab, rules) is None
    go = int(tab.row[expert_dp.ROW_G])
    assert tab.row[expert_dp.ROW_FIRST] == go + expert_dp.merged_rank_counts(7).size  # the first rolls' columns follow
    bad = tab.row.copy()
    bad[go + 100] += 1.0
    assert "merged rank counts" in expert_build.check_tables(expert_dp.ExpertTables(bad, tab.value, tab.exact, 0.0, False), rules)


def test_table_seats_share_one_copy():
    from heron_sim.strategies import seat_arrays

    rules = Rules.build(mode="7d8")
    _, sp = seat_arrays(["greedy", "expert", "racer", "expert"], rules)
    row = expert_build.expert_tables(rules).row
    assert [sp[s, expert_dp.ROW_TSEAT] for s in (1, 2, 3)] == [1, 1, 1]
    np.testing.assert_array_equal(sp[1, expert_dp.ROW_DIR:row.size], row[expert_dp.ROW_DIR:])
    assert not sp[2:, expert_dp.ROW_DIR:].any()


def _play_rows(rules, seating, sp, games, seed):
    from heron_sim.engine import layout as L
    from heron_sim.loop.batch import play_batch
    from heron_sim.engine.pack import pack_rules
    from heron_sim.strategies import seat_arrays

    sids, _ = seat_arrays(seating, rules)
    out = np.zeros((games, L.n_columns(rules.finish)), dtype=np.int64)
    play_batch(np.uint64(seed), 0, pack_rules(rules), sids, sp, out)
    return out


@pytest.mark.parametrize("mode", ["7d8", "8d8"])
def test_stored_power_decisions_are_used_in_games(mode):
    """Games read the stored decisions (no scan) and do use every roll-time power."""
    from heron_sim.engine import layout as L
    from heron_sim.strategies import seat_arrays

    rules = Rules.build(mode=mode)
    seating = ["expert", "racer", "expert", "expert"]
    _, sp = seat_arrays(seating, rules)
    assert sp[0, expert_dp.ROW_POWERS] > 0
    rows = _play_rows(rules, seating, sp, 1500, 5)
    used = rows[:, L.C_POWERS + np.array([LOUP, 4, 5, HERON])].sum(axis=0)
    assert (used > 0).all(), used


def _random_decision_points(rules, count, seed):
    """Dice of random table states, shuffled, with random heron freshness (as in play)."""
    from heron_sim.engine import layout as L
    from heron_sim.strategies.expert_powers import _lay_out

    n, anx = rules.n_dice, rules.anxiety_threshold
    K, C, _ = expert_dp._post_states(n, anx)
    rng = np.random.default_rng(seed)
    for idx in rng.choice(len(K), count, replace=False):
        h = n - int((K[idx] + C[idx]).sum())
        fl = 1 if h > 0 else 0
        for g in (LOUP, 4, 5, HERON):
            for r in range(rules.rolls + 1):
                w = np.zeros(L.HEADER + 4096, dtype=np.int64)
                w[L.NDICE], w[L.GUIDE], w[L.READY], w[L.ROLLS_LEFT] = n, g, 1, r
                _lay_out(w, g, K[idx], C[idx], h, fl)
                perm = rng.permutation(n)
                for field in (L.FACE, L.STATUS, L.FRESH):
                    w[field : field + n] = w[field : field + n][perm]
                for i in range(n):
                    if w[L.FACE + i] == HERON and fl and rng.random() < 0.5:
                        w[L.FRESH + i] = 1
                yield g, r, w


@pytest.mark.parametrize("mode", ["7d8", "8d8"])
def test_stored_power_decisions_match_the_scan(mode):
    """At random decision points (dice shuffled, herons fresh or not), the stored decision
    and the full look-ahead agree: both use the power or neither does, and the two uses have
    the same look-ahead value (they may differ only between uses of equal value)."""
    from heron_sim.engine.pack import pack_rules
    from heron_sim.strategies import seat_arrays
    from heron_sim.strategies.expert import best_power, use_value
    from heron_sim.strategies.expert_dp import POWER_MARGIN

    rules = Rules.build(mode=mode)
    R = pack_rules(rules)
    _, sp = seat_arrays(["expert"] + ["greedy"] * (rules.players - 1), rules)
    slow = sp.copy()
    slow[:, expert_dp.ROW_POWERS] = 0.0
    uses = 0
    for g, r, w in _random_decision_points(rules, 120, seed=7):
        fast = best_power(0, w, R, sp, POWER_MARGIN)
        ref = best_power(0, w, R, slow, POWER_MARGIN)
        assert (fast < 0) == (ref < 0), (g, r, fast, ref)
        if fast >= 0:
            uses += 1
            assert use_value(0, w, R, sp, fast) == pytest.approx(use_value(0, w, R, sp, ref), abs=1e-12)
    assert uses > 20


@pytest.mark.parametrize("mode", ["7d8", "8d8"])
def test_stored_best_use_values_are_the_scans(mode):
    """At random decision points (dice shuffled, herons fresh or not), the stored value of the
    best use (expert_dp.BEST_VALUES, what the human's softmax weighs) is exactly the value the
    full look-ahead finds on the dice showing: the human's games do not depend on which one it
    reads (tests/test_human_golden.py)."""
    from heron_sim.engine.pack import pack_rules
    from heron_sim.strategies import seat_arrays
    from heron_sim.strategies.expert import lookup, power_column, power_scan
    from heron_sim.strategies.human import best_use_value

    rules = Rules.build(mode=mode)
    R = pack_rules(rules)
    _, sp = seat_arrays(["expert"] + ["greedy"] * (rules.players - 1), rules)
    checked = used = 0
    for g, r, w in _random_decision_points(rules, 120, seed=11):
        col = lookup(0, w, R, sp, r)
        if col < 0 or sp[0, col + power_column(g)] == -2:
            continue
        stored = best_use_value(sp, 0, col, g)
        v, action = power_scan(0, w, R, sp, -1e300)
        assert stored == v, (g, r, stored, v)
        checked += 1
        used += action >= 0
    assert checked > 500 and used > 500
    # a negative control: the Wolf's stored values are not the Heron's at the same states
    cols = [c for _, r, w in _random_decision_points(rules, 20, seed=3) if (c := lookup(0, w, R, sp, r)) >= 0]
    assert any(best_use_value(sp, 0, c, LOUP) != best_use_value(sp, 0, c, HERON) for c in cols)


@pytest.mark.parametrize("mode", ["7d8", "8d8"])
def test_a_stored_best_use_marked_unique_is_the_scans_on_any_order_of_the_dice(mode):
    """Where the tables mark a state's best use as the only use of its value (the human's
    counted turn plays it without laying the dice out, expert_turn), the full look-ahead on the
    dice shuffled (herons fresh or not) chooses a use of that kind; the stored kind decodes back
    (expert.stored_code / stored_use), and ties are marked (a negative control: some states are not)."""
    from heron_sim.engine import layout as L
    from heron_sim.engine.pack import pack_rules
    from heron_sim.strategies import seat_arrays
    from heron_sim.strategies.expert import lookup, power_column, power_scan, stored_code, stored_use
    from heron_sim.strategies.expert_powers import _canonical

    for kind in (-1, 0, 5, 300):  # the float codes read back, and int() still reads the decision
        for used in (False, True):
            for unique in (False, True):
                c = stored_code(kind, used, unique)
                assert int(c) == (kind if used and kind >= 0 else -1)
                assert stored_use(c) == (kind, unique and kind >= 0), (kind, used, unique, c)
    assert stored_use(-2.0) == (-1, False)
    rules = Rules.build(mode=mode)
    R = pack_rules(rules)
    _, sp = seat_arrays(["expert"] + ["greedy"] * (rules.players - 1), rules)
    unique_seen = ties = 0
    for g, r, w in _random_decision_points(rules, 150, seed=13):
        col = lookup(0, w, R, sp, r)
        if col < 0 or sp[0, col + power_column(g)] == -2:
            continue
        kind, unique = stored_use(sp[0, col + power_column(g)])
        fresh_herons = sum(1 for i in range(rules.n_dice) if w[L.FACE + i] == HERON and w[L.FRESH + i])
        if fresh_herons > 1 and g == LOUP:
            continue  # valued with one fresh heron at most: only the Wolf's reroll of a heron differs with more
        if not unique:
            ties += kind >= 0
            continue
        v, action = power_scan(0, w, R, sp, -1e300)
        lookup(0, w, R, sp, r)  # the slots of the dice showing, for the canonical form
        assert _canonical(w, R, g, action) == kind, (g, r, kind, action)
        unique_seen += 1
    assert unique_seen > 500 and ties > 0


@pytest.mark.parametrize("mode", ["7d8", "8d8"])
def test_the_near_uses_the_tables_name_give_the_scans_answer(mode):
    """Where the best use is not the only one of its value, the tables name the uses within
    UNIQUE_GAP of it (expert.stored_near); valuing those alone (expert.near_scan, what a human
    scans when it uses its power) gives the full look-ahead's value and use, bit for bit, on
    the dice shuffled and the animals other than the guide's relabelled (the order of the sums
    changes with the labels), herons fresh or not (a Wolf's dice with one fresh heron at most: the
    only use worth another value with more). A negative control: the best use alone is not the
    scan's answer."""
    from heron_sim.engine import layout as L
    from heron_sim.engine.pack import pack_rules
    from heron_sim.strategies import seat_arrays
    from heron_sim.strategies.expert import (
        NEAR_KINDS, kind_class, lookup, near_kind, near_pack, near_scan, power_column, power_scan, stored_code,
        stored_near, stored_use,
    )

    # the kinds of dice a use may take (expert_powers._canonical: (slot * 3 + status) * 2 + fresh):
    # each slot's kept dice (not fresh) and free dice (fresh), the herons reserved, old or fresh
    classes = ([(slot * 3 + L.KEPT) * 2 for slot in range(6)] + [(slot * 3 + L.FREE) * 2 + 1 for slot in range(6)]
               + [(6 * 3 + L.RESERVED) * 2 + fr for fr in (0, 1)])
    assert sorted(near_kind(c) for c in classes) == list(range(NEAR_KINDS))  # each kind once
    assert all(kind_class(near_kind(c)) == c for c in classes)
    rng = np.random.default_rng(31)
    for _ in range(200):  # the near uses read back, under the kind and the flag
        codes = [int(rng.choice(classes)) + 64 * int(rng.integers(7)) for _ in range(rng.integers(1, 9))]
        kind = codes[0]
        packed = near_pack(np.array(codes, dtype=np.int64), len(codes))
        for used in (False, True):
            c = stored_code(kind, used, False, packed)
            assert int(c) == (kind if used else -1) and stored_use(c) == (kind, False)
            assert stored_near(c) == packed
        for code in codes:
            assert (packed >> near_kind(code % 64)) & 1 and (packed >> (NEAR_KINDS + code // 64)) & 1
    rules = Rules.build(mode=mode)
    R = pack_rules(rules)
    _, sp = seat_arrays(["expert"] + ["greedy"] * (rules.players - 1), rules)
    checked = differs = 0
    for g, r, w in _random_decision_points(rules, 200, seed=29):
        others = [a for a in range(6) if a != (g if g < HERON else 0)]
        relabel = dict(zip(others, rng.permutation(others)))
        for i in range(rules.n_dice):
            w[L.FACE + i] = relabel.get(int(w[L.FACE + i]), w[L.FACE + i])
        col = lookup(0, w, R, sp, r)
        if col < 0 or sp[0, col + power_column(g)] == -2:
            continue
        code = sp[0, col + power_column(g)]
        kind, unique = stored_use(code)
        if unique or kind < 0:
            continue
        v, action = near_scan(0, w, R, sp, code)
        if action == -2:
            continue
        assert (v, action) == power_scan(0, w, R, sp, -1e300), (g, r, kind, stored_near(code))
        checked += 1
        lookup(0, w, R, sp, r)
        alone = stored_code(kind, int(code) >= 0, True)
        differs += near_scan(0, w, R, sp, alone)[1] != action
    assert checked > 300 and differs > 0, (checked, differs)


def test_tables_of_another_version_are_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    expert_build._tables_cached.cache_clear()
    rules = Rules.build(mode="7d8")
    tab = expert_build.expert_tables(rules)
    (path,) = (tmp_path / "tables").glob("expert-*.npz")
    np.savez(path, row=tab.row[:50], value=tab.value, exact=tab.exact, version=expert_dp.VERSION - 1)
    expert_build._tables_cached.cache_clear()
    again = expert_build.expert_tables(rules)
    assert not again.loaded and np.array_equal(again.row, tab.row)
    expert_build._tables_cached.cache_clear()


def test_tables_of_older_versions_are_deleted_when_new_ones_are_saved(tmp_path, monkeypatch):
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    folder = tmp_path / "tables"
    folder.mkdir()
    stale = folder / "expert-0123456789abcdef.npz"        # before versions were in the name
    older = folder / f"expert-v{expert_dp.VERSION - 1}-0123456789abcdef.npz"
    stale.write_bytes(b"x")
    older.write_bytes(b"x")
    expert_build._tables_cached.cache_clear()
    expert_build.expert_tables(Rules.build(mode="7d8"))
    expert_build._tables_cached.cache_clear()
    names = [p.name for p in folder.iterdir()]
    assert len(names) == 1 and names[0].startswith(f"expert-v{expert_dp.VERSION}-")


def test_the_tables_disk_cache_keeps_to_its_size_cap(tmp_path, monkeypatch):
    """The least recently used tables go first (a hit refreshes a file's time); the tables just
    written stay even when they alone exceed the cap; a bad cap is one error line."""
    from heron_sim.errors import HeronSimError

    files = [("a", 40, 1.0), ("b", 40, 3.0), ("c", 40, 2.0)]
    assert expert_build.to_evict(files, 80) == ["a"]
    assert expert_build.to_evict(files, 40) == ["a", "c"]
    assert expert_build.to_evict(files, 0, keep="a") == ["c", "b"]
    assert expert_build.to_evict(files, 120) == []
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    monkeypatch.setenv("HERON_SIM_TABLES_MB", "0")
    folder = tmp_path / "tables"
    folder.mkdir()
    old = folder / f"expert-v{expert_dp.VERSION}-old.npz"
    old.write_bytes(b"x" * 1000)
    other = folder / "unrelated.txt"
    other.write_text("not ours")
    expert_build._tables_cached.cache_clear()
    rules = Rules.build(mode="7d8")
    expert_build.expert_tables(rules)
    kept = sorted(p.name for p in folder.glob("expert-*.npz"))
    assert len(kept) == 1 and old.name not in kept and other.exists()  # cap 0: only the new ones
    # a hit refreshes the file's time of last use
    new = folder / kept[0]
    os.utime(new, (1.0, 1.0))
    expert_build._tables_cached.cache_clear()
    assert expert_build.expert_tables(rules).loaded and new.stat().st_mtime > 1.0
    for bad in ("-1", "lots", "1.5"):
        monkeypatch.setenv("HERON_SIM_TABLES_MB", bad)
        with pytest.raises(HeronSimError, match="HERON_SIM_TABLES_MB"):
            expert_build.cap_bytes()
    monkeypatch.delenv("HERON_SIM_TABLES_MB")
    assert expert_build.cap_bytes() == expert_build.TABLES_MB * 10**6
    # a folder filled before the cap existed is trimmed at a process's first look-up, a hit too
    monkeypatch.setenv("HERON_SIM_TABLES_MB", "0")
    old.write_bytes(b"x" * 1000)
    monkeypatch.setattr(expert_build, "_TRIMMED", [])
    expert_build._tables_cached.cache_clear()
    assert expert_build.expert_tables(rules).loaded and not old.exists() and new.exists()
    expert_build._tables_cached.cache_clear()
