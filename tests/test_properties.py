"""Hypothesis properties where they pay (issue 19, item 9): the rules' round-trip and hash,
seatings, batch splits, Holm, intervals and ``--set`` parsing.

Each property states something the code must keep whatever the input; sizes are tiny and
``max_examples`` small so the file stays well under 20 s (the batch-split property plays a few
dozen games per example on the cached greedy and shared kernels).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from heron_sim.errors import HeronSimError

pytestmark = pytest.mark.exact

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- rules: round-trip and hash
def _scalar_values(name: str):
    from heron_sim.rules.rules import _SCALARS

    kind, lo, hi = _SCALARS[name]
    if kind is bool:
        return st.booleans()
    return st.integers(lo, min(hi, lo + 40))


@st.composite
def rules_overrides(draw) -> dict:
    """A valid overrides table: some scalars, a mode and player count, by-seat lists, a
    combination table, some guides' powers off."""
    from heron_sim.animals import NAMES
    from heron_sim.rules import MODES
    from heron_sim.rules.rules import _SCALARS

    names = draw(st.lists(st.sampled_from(sorted(set(_SCALARS) - {"finish"})), unique=True, max_size=6))
    ov = {n: draw(_scalar_values(n)) for n in names}
    ov["mode"] = draw(st.sampled_from(MODES))
    finish = draw(st.integers(20, 100))
    ov["finish"] = finish
    if draw(st.booleans()):
        ov["start_squares"] = draw(st.lists(st.integers(0, finish - 1), max_size=7))
    if draw(st.booleans()):
        ov["first_turn_extra_rolls"] = draw(st.lists(st.integers(0, 10), max_size=7))
    if draw(st.booleans()):  # at most 8 entries: every mode has 7 dice or more (sizes 0..7)
        ov["combinations.advance"] = draw(st.lists(st.integers(0, 20), min_size=1, max_size=8))
    if draw(st.booleans()):
        ov["combinations.effect"] = draw(st.lists(st.sampled_from(["none", "regenerate", "swap", "choice"]),
                                                  min_size=1, max_size=8))
    if draw(st.booleans()):
        ov["disabled_powers"] = draw(st.lists(st.sampled_from(list(NAMES)), unique=True, max_size=3))
    return ov


@FAST
@given(rules_overrides())
def test_rules_round_trip_through_table_and_toml_keeps_rules_and_digest(ov):
    from heron_sim.lab.outputs import rules_toml
    from heron_sim.rules import Rules

    rules = Rules.build(overrides=ov)
    again = Rules.from_table(rules.to_table())
    assert again == rules and again.digest() == rules.digest()
    # The TOML file the lab writes for a variant rebuilds the same rules with the same hash.
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "variant.toml"
        path.write_text(rules_toml(rules, ["property"]), encoding="utf-8")
        from_file = Rules.build(rules_file=path)
    assert from_file == rules and from_file.digest() == rules.digest()
    # The digest is a function of the rules alone: building them again gives the same hash.
    assert Rules.build(overrides=dict(ov)).digest() == rules.digest()


@FAST
@given(rules_overrides(), st.data())
def test_changing_one_rule_changes_the_digest(ov, data):
    from heron_sim.rules import Rules
    from heron_sim.rules.rules import _SCALARS

    rules = Rules.build(overrides=ov)
    name = data.draw(st.sampled_from(sorted(set(_SCALARS) - {"finish", "players"})))
    value = data.draw(_scalar_values(name).filter(lambda v: v != getattr(rules, name)))
    other = rules.replace(**{name: value})
    assert other != rules and other.digest() != rules.digest()


# ---------------------------------------------------------------- seatings
def _user_strategies() -> list[str]:
    from heron_sim.runner.jobs import available_strategies

    return available_strategies()


@FAST
@given(st.data())
def test_a_seating_reads_the_same_as_a_list_a_comma_string_or_one_name(data):
    from heron_sim.runner.jobs import resolve_strategies
    from heron_sim.strategies import parse_seating

    names = data.draw(st.lists(st.sampled_from(_user_strategies()), min_size=1, max_size=7))
    pad = data.draw(st.sampled_from(["", " ", "  "]))
    assert resolve_strategies(names) == names
    assert resolve_strategies((pad + "," + pad).join(names)) == names
    players = len(names)
    assert parse_seating(",".join(names), players) == names
    assert parse_seating(names[0], players) == [names[0]] * players
    with pytest.raises(HeronSimError) as err:  # one name too many: refused, never cut
        parse_seating(names + [names[0]], players)
    assert "\n" not in str(err.value) and str(err.value).startswith("--strategy:")


@FAST
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8))
def test_an_unknown_strategy_name_is_refused_in_one_line(name):
    from heron_sim.runner.jobs import resolve_strategies

    if name in _user_strategies() or name in ("ai", "all"):
        return
    with pytest.raises(HeronSimError) as err:
        resolve_strategies(["greedy", name], where="seating")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("seating:") and repr(name) in msg


@FAST
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=8), st.integers(2, 7))
def test_rotations_seat_every_strategy_in_every_seat_equally_often(names, players):
    from heron_sim.runner.jobs import seatings

    rot = seatings(names, players)
    assert rot and all(len(s) == players for s in rot)
    assert all(x in names for s in rot for x in s)
    per_seat = [Counter(s[i] for s in rot) for i in range(players)]
    assert all(c == per_seat[0] for c in per_seat)  # every seat sees the same strategies as often
    assert set(per_seat[0]) == set(names)  # no strategy left out


# ---------------------------------------------------------------- batch splits
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games=st.integers(1, 24), players=st.integers(2, 4), seed=st.integers(0, 2**32),
       first_game=st.integers(0, 10**6), batch_games=st.integers(1, 24), threads=st.sampled_from([1, 2]),
       slice_=st.integers(1, 4), data=st.data())
def test_any_split_of_the_games_gives_bit_identical_rows(games, players, seed, first_game, batch_games,
                                                          threads, slice_, data):
    """Batches of any size, played on one or two threads cut into slices of any size, give the
    rows of one batch of all the games: game i's result depends on (seed, i) alone."""
    from heron_sim.loop import batch as engine_batch
    from heron_sim.rules import Rules
    from heron_sim.runner.executor import play_rows, split_games

    seating = tuple(data.draw(st.lists(st.sampled_from(["greedy", "random", "prudent"]),
                                       min_size=players, max_size=players)))
    rules = Rules.build(players=players)
    whole = play_rows(split_games(rules, [seating], seed, games, first_game=first_game,
                                  batch_games=games, threads=1)[0])
    with mock.patch.object(engine_batch, "SLICE", slice_):  # so that tiny batches are cut too
        parts = [play_rows(b) for b in split_games(rules, [seating], seed, games, first_game=first_game,
                                                   batch_games=batch_games, threads=threads)]
    assert np.array_equal(np.concatenate(parts), whole)


@FAST
@given(games=st.integers(0, 80), n_seatings=st.integers(1, 5), batch_games=st.integers(1, 30),
       first_game=st.integers(0, 10**9))
def test_split_games_covers_every_game_once_in_order(games, n_seatings, batch_games, first_game):
    from heron_sim.rules import Rules
    from heron_sim.runner.executor import split_games

    rules = Rules.build(players=2)
    seats = [(f"s{r}", "greedy") for r in range(n_seatings)]
    batches = split_games(rules, seats, 3, games, first_game=first_game, batch_games=batch_games)
    covered = [g for b in batches for g in range(b.first_game, b.first_game + b.games)]
    assert covered == list(range(first_game, first_game + games))
    assert all(1 <= b.games <= batch_games for b in batches)
    bounds = np.linspace(0, games, n_seatings + 1).astype(int)
    for b in batches:  # seating r plays the r-th contiguous share, as play_job does
        r = int(b.seating[0][1:])
        assert bounds[r] <= b.first_game - first_game and b.first_game - first_game + b.games <= bounds[r + 1]


# ---------------------------------------------------------------- Holm
pvalues = st.lists(st.floats(0, 1) | st.sampled_from([0.0, 0.01, 0.05, 1.0]), min_size=1, max_size=12)


@FAST
@given(pvalues, st.randoms(use_true_random=False))
def test_holm_is_monotone_never_below_raw_and_capped(p, rnd):
    from heron_sim.analysis.stats import holm

    p = np.array(p)
    adj = holm(p)
    assert adj.shape == p.shape
    assert np.all(adj >= p) and np.all(adj <= 1.0)
    order = np.argsort(p, kind="mergesort")
    assert np.all(np.diff(adj[order]) >= 0)  # a smaller raw p never gets a larger adjusted one
    perm = list(range(len(p)))
    rnd.shuffle(perm)
    assert np.array_equal(holm(p[perm]), adj[perm])  # the order given does not matter
    assert adj.min() == pytest.approx(min(1.0, len(p) * p.min()))  # the smallest: Bonferroni


@settings(max_examples=25, deadline=None)
@given(pvalues)
def test_holm_matches_statsmodels(p):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    from heron_sim.analysis.stats import holm

    from unittest import mock

    with mock.patch("gc.collect", lambda *args, **kwargs: 0):  # statsmodels' Holm collects the heap at every call
        ref = multitest.multipletests(np.array(p), method="holm")[1]
    assert np.allclose(holm(p), ref, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------- intervals
@FAST
@given(st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))), st.integers(2, 5))
def test_wilson_contains_the_rate_and_narrows_with_more_games(kn, c):
    from heron_sim.analysis.intervals import clopper_pearson, wilson

    k, n = kn
    rate, lo, hi = wilson(k, n)
    assert rate == k / n and 0 <= lo <= rate <= hi <= 1
    _, lo2, hi2 = wilson(c * k, c * n)  # the same rate over c times the games
    assert hi2 - lo2 < hi - lo
    rate, lo, hi = clopper_pearson(k, n)
    assert 0 <= lo <= rate <= hi <= 1


@FAST
@given(st.lists(st.integers(-50, 50), min_size=2, max_size=40), st.integers(2, 4))
def test_mean_intervals_contain_the_mean_and_narrow_with_more_games(xs, c):
    from heron_sim.analysis.stats import quantile_interval, t_interval

    x = np.array(xs, float)
    for f in (t_interval,):  # the one mean interval (issue 29: the normal one is gone)
        m, lo, hi = f(x)
        assert m == pytest.approx(x.mean()) and lo <= m <= hi
        _, lo2, hi2 = f(np.tile(x, c))
        if x.std() > 0:
            assert hi2 - lo2 < hi - lo
        else:
            assert hi2 - lo2 == hi - lo == 0
    q, lo, hi = quantile_interval(x, 0.5)
    assert lo <= q <= hi


# ---------------------------------------------------------------- --set parsing
def _toml(v) -> str:
    """A TOML value written by hand (strings: every control character escaped)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        body = "".join(c if c >= " " and c not in '"\\\x7f' else f"\\u{ord(c):04x}" for c in v)
        return f'"{body}"'
    return "[" + ", ".join(_toml(x) for x in v) + "]"


toml_values = st.recursive(
    st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4), max_leaves=8)
keys = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10),
                min_size=1, max_size=2).map(".".join)


@FAST
@given(st.dictionaries(keys, toml_values, min_size=1, max_size=4), st.sampled_from(["", " "]))
def test_set_key_value_round_trips(table, pad):
    from heron_sim.cli._app import parse_overrides

    items = [f"{pad}{k}{pad}={pad}{_toml(v)}" for k, v in table.items()]
    assert parse_overrides(items) == table


@FAST
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=10))
def test_set_bare_word_is_its_text_or_its_toml_value(word):
    import tomllib

    from heron_sim.cli._app import parse_overrides

    try:
        expected = tomllib.loads(f"v = {word}")["v"]
    except tomllib.TOMLDecodeError:
        expected = word  # "8d8", "greedy": a bare word is a string
    assert parse_overrides([f"mode={word}"]) == {"mode": expected}


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 9), keys)
@example(4, "foo")
def test_set_with_a_second_assignment_is_refused_not_cut(n, other):
    """``--set 'rolls=4<newline>foo=5'`` used to set rolls = 4 and drop the rest in silence."""
    from heron_sim.cli._app import parse_overrides

    with pytest.raises(HeronSimError) as err:
        parse_overrides([f"rolls={n}\n{other} = 5"])
    assert str(err.value).startswith("--set:") and "\n" not in str(err.value)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["rolls", "pond_threshold", "bull_bonus", "finish"]), st.integers(2, 9))
def test_set_builds_the_rules_it_names(key, value):
    from heron_sim.cli._app import build_rules

    r = build_rules(None, None, [f"{key}={value}"])
    assert getattr(r, key) == value
