"""The ``human`` family and the ladder's rungs (issue 28, items 1 and 2).

- exact: ``human:temp=0,caution=0,forget=0`` plays the expert's games, game by game (alone, and
  seated among other strategies in the shared kernel); the same seed gives the same games for
  any batch size and thread count (the rungs draw from the game's own stream);
- parsing: every bad parameter is one message;
- statistical: each rung beats the one below (2 players, seats and guides mirrored; a fast
  check against the documented shares within 4.5 standard errors, the full one at the
  documented size marked slow), novice loses to greedy, every rung uses every power.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from heron_sim import simulate
from heron_sim.errors import HeronSimError
from heron_sim.rules import Rules
from heron_sim.strategies import REGISTRY, parse_seating, parse_strategy
from heron_sim.strategies.human import RUNGS
from heron_sim.tournament import tournament

ZERO = "human:temp=0;caution=0;forget=0"
LADDER = "novice,casual,regular,expert"


def _same_games(a, b):
    """Every column but the strategies' names agrees, game by game."""
    named = {"strategies", "winner_strategy"} | {c for c in a.columns if c.startswith("strategy_")}
    cols = [c for c in a.columns if c not in named]
    assert list(a.columns) == list(b.columns)
    for c in cols:
        assert np.array_equal(a[c].astype(str).to_numpy(), b[c].astype(str).to_numpy()), c


@pytest.mark.exact
@pytest.mark.parametrize("mode,players,seating", [
    ("8d8", 4, [ZERO] * 4),
    ("7d8", 3, [ZERO, "greedy", ZERO]),  # beside another strategy: the shared kernel
    ("10d6", 2, [ZERO] * 2),             # dice that differ: the expert scans its powers
])
def test_family_at_zero_plays_the_experts_games(mode, players, seating):
    rules = Rules.build(mode=mode, players=players)
    games = 150 if mode == "10d6" else 300
    human = simulate(rules, games, 41, seating, threads=1)
    expert = simulate(rules, games, 41, [("expert" if s == ZERO else s) for s in seating], threads=1)
    _same_games(human, expert)
    assert human["strategy_0"].astype(str).iloc[0] == ZERO
    # a negative control: a rung (it draws) does not play the expert's games
    other = simulate(rules, games, 41, [("regular" if s == ZERO else s) for s in seating], threads=1)
    assert not np.array_equal(other["rounds"].to_numpy(), expert["rounds"].to_numpy())


@pytest.mark.exact
def test_same_games_whatever_the_batches_and_threads():
    rules = Rules.build(mode="8d8", players=4)
    a = simulate(rules, 240, 7, LADDER, threads=1)
    b = simulate(rules, 240, 7, LADDER, threads=2, batch_size=17)
    c = simulate(rules, 120, 7, LADDER, threads=1, batch_size=5, first_game=120)
    _same_games(a, b)
    _same_games(a.iloc[120:].reset_index(drop=True), c)


@pytest.fixture(scope="module")
def generic_human():
    """``human_decide`` as a plug-in (the generic path's human). A plug-in's row holds its
    address in column 0, where a human seat keeps ``temp``: the wrapper puts ``temp`` (kept in
    column 3 by the test) back in place for the decision and the address after it."""
    from numba import njit

    from heron_sim.strategies.human import human_decide
    from heron_sim.strategies.plugins import compile_plugin

    @njit
    def shifted(kind, seat, w, R, rng, sp):
        address = sp[seat, 0]
        sp[seat, 0] = sp[seat, 3]
        out = human_decide(kind, seat, w, R, rng, sp)
        sp[seat, 0] = address
        return out

    wrapper = compile_plugin(shifted)
    return wrapper, wrapper.address


@pytest.mark.exact
@pytest.mark.parametrize("mode,players,spec", [
    ("8d8", 4, "novice"), ("8d8", 3, "regular"), ("8d8", 2, "human:temp=0;caution=0.7;forget=0"),
    ("10d6", 3, "casual"),
])
def test_fused_turn_plays_the_generic_paths_games(mode, players, spec, generic_human):
    """A human seat takes the expert's fused turn (its keep/stop softmax and Lion on the dice
    counted; the generic loop from a ready roll-time power on): the same games, counter by
    counter, as human_decide on the generic path, the same draws of the same stream."""
    from heron_sim.engine import layout as L
    from heron_sim.loop.batch import play_batch
    from heron_sim.engine.pack import pack_rules
    from heron_sim.strategies import seat_arrays
    from heron_sim.strategies.declared import sid_of
    from heron_sim.strategies.dispatch import PLUGIN
    HUMAN = sid_of("human")

    rules = Rules.build(mode=mode, players=players)
    _, address = generic_human

    def games(sid):
        sids, sp = seat_arrays([spec] * players, rules)
        if sid == PLUGIN:
            sp[:, 3] = sp[:, 0]
            sp[:, 0] = float(address)
        out = np.zeros((600, L.n_columns(rules.finish)), dtype=np.int64)
        play_batch(np.uint64(13), 0, pack_rules(rules), np.full(players, sid, dtype=np.int64), sp, out)
        return out

    fused, generic = games(HUMAN), games(PLUGIN)
    assert fused[:, L.C_PLAYED].sum() > 5_000
    np.testing.assert_array_equal(fused, generic)


def test_rungs_are_documented_parameter_sets():
    for name, values in RUNGS.items():
        assert parse_strategy(name) == (name, values)
        assert REGISTRY[name].rung_of == "human" and REGISTRY[name].sid == REGISTRY["human"].sid
    assert parse_strategy("novice:forget=0.2")[1] == {**RUNGS["novice"], "forget": 0.2}
    assert parse_seating(LADDER, 4) == LADDER.split(",")
    # the family and the rungs are seated by name, never by the "ai" or "all" sets
    from heron_sim.runner.jobs import resolve_strategies

    for spec in ("ai", "all"):
        assert not {"human", *RUNGS} & set(resolve_strategies(spec))
    assert resolve_strategies("novice,expert") == ["novice", "expert"]


@pytest.mark.parametrize("spec,field", [
    ("human:temp=-1", "temp = -1; allowed: 0..100"),
    ("human:caution=-100.5", "caution = -100.5; allowed: -100..100"),
    ("human:forget=1.5", "forget = 1.5; allowed: 0..1"),
    ("human:forget=nan", "forget = nan; allowed: 0..1"),
    ("human:temp=warm", "temp must be a number, got 'warm'"),
    ("human:tmp=1", "bad parameter 'tmp=1'; allowed: temp=<number>, caution=<number>, forget=<number>"),
    ("human:temp=1;temp=2", "parameter temp given twice"),
    ("novice:temp=inf", "temp = inf; allowed: 0..100"),
    ("beginner", "'beginner' is not a strategy"),
])
def test_bad_parameters_are_one_message(spec, field):
    with pytest.raises(HeronSimError) as err:
        parse_strategy(spec)
    msg = str(err.value)
    assert field in msg and "\n" not in msg and msg.startswith("--strategy:"), msg


@pytest.mark.cli
def test_cli_bad_parameter_is_one_error_line():
    from typer.testing import CliRunner

    from heron_sim.cli import app

    res = CliRunner().invoke(app, ["simulate", "--games", "10", "--strategy", "human:forget=2"])
    lines = [x for x in res.output.strip().splitlines() if x]
    assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error:") and "forget" in lines[0]


# The ladder as docs/strategies.md documents it (2 players, 8d8, seed 28, 8,000 games per
# seating): the row's win share against the column.
DOCUMENTED = {("casual", "novice"): 0.6334, ("regular", "casual"): 0.6408, ("expert", "regular"): 0.5401,
              ("greedy", "novice"): 0.7231}


def _share(a, b, games, seed):
    res = tournament(Rules.build(mode="8d8", players=2), [a, b], games=games, seed=seed, threads=1)
    n = int(res.wins[0, 1] + res.wins[1, 0])
    return float(res.win_rate.loc[a, b]), float(res.low.loc[a, b]), n


@pytest.mark.statistical
@pytest.mark.parametrize("upper,lower", list(DOCUMENTED))
def test_each_rung_beats_the_one_below_fast(upper, lower):
    """1,500 games a seating (another seed than the documented run): the share is above one
    half and within 4.5 standard errors of the documented one (a drift check that fails when a
    rung's parameters or the family's decisions change the ladder)."""
    share, _, n = _share(upper, lower, 1500, 3)
    doc = DOCUMENTED[(upper, lower)]
    se = math.sqrt(doc * (1 - doc) / n)
    assert share > 0.5, (upper, lower, share)
    assert abs(share - doc) < 4.5 * se, (upper, lower, share, doc, se)


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize("upper,lower", list(DOCUMENTED))
def test_each_rung_beats_the_one_below_full(upper, lower):
    """The documented run itself: 8,000 games a seating, the lower end of the 95 % interval
    above one half, the share as documented."""
    share, low, _ = _share(upper, lower, 8000, 28)
    assert low > 0.5 and abs(share - DOCUMENTED[(upper, lower)]) < 5e-5, (upper, lower, share, low)


@pytest.mark.statistical
@pytest.mark.parametrize("rung", ["novice", "casual", "regular", "expert"])
def test_every_rung_uses_every_power(rung):
    rules = Rules.build(mode="8d8", players=4)
    df = simulate(rules, 400, 17, rung, threads=1)
    from heron_sim.analysis.summary import power_uses_per_game_dealt

    uses = power_uses_per_game_dealt(df)
    assert set(uses["power_uses_per_game_dealt"]) == {"loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron"}
    assert min(uses["power_uses_per_game_dealt"].values()) > 0.2, uses
    assert uses["power_uses_per_game_dealt_by_strategy"][rung] == uses["power_uses_per_game_dealt"]


@pytest.mark.cli
def test_simulate_json_reports_power_uses_by_strategy_for_any_seating():
    from typer.testing import CliRunner

    from heron_sim.cli import app

    res = CliRunner().invoke(app, ["simulate", "--games", "300", "--seed", "3", "--strategy", LADDER, "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    by = doc["power_uses_per_game_dealt_by_strategy"]
    assert set(by) == {"novice", "casual", "regular", "expert"}
    for rung, uses in by.items():
        assert len(uses) == 7 and all(v >= 0 for v in uses.values()), (rung, uses)
    assert set(doc["power_uses_per_game_dealt"]) == {"loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron"}


# ---------------------------------------------------------------- a bold player (issue 57, item 4)
def _anxiety_rate(spec: str, games: int, seed: int) -> tuple[float, float]:
    """The Angoisse per played turn of four ``spec`` players (8d8) and its standard error (the
    ratio of the games' totals, by the delta method over the games: the games are independent,
    the turns of one game are not)."""
    df = simulate(Rules.build(mode="8d8", players=4), games, seed, ",".join([spec] * 4), threads=2)
    a = df[[f"anxiety_{i}" for i in range(4)]].sum(axis=1).to_numpy(float)
    t = df["played_turns"].to_numpy(float)
    rate = a.sum() / t.sum()
    resid = a - rate * t
    return rate, math.sqrt((resid ** 2).sum()) / t.sum()


#: docs/strategies.md, "A bold beginner": Angoisse per played turn, four identical players,
#: 8d8, seed 7, 20,000 games each.
DOCUMENTED_ANXIETY = {"reckless": 0.33095, "expert": 0.32572, "novice": 0.15512}


@pytest.mark.statistical
@pytest.mark.parametrize("spec", list(DOCUMENTED_ANXIETY))
def test_the_bold_beginner_meets_the_angoisse_as_documented_fast(spec):
    """3,000 games (another seed than the documented run): within 4.5 standard errors of the
    documented rate; the reckless beginner meets the Angoisse twice as often as the timid one."""
    rate, se = _anxiety_rate(spec, 3000, 3)
    assert abs(rate - DOCUMENTED_ANXIETY[spec]) < 4.5 * se, (spec, rate, se)
    if spec == "reckless":
        novice, nse = _anxiety_rate("novice", 3000, 3)
        assert rate - novice > 4.5 * math.hypot(se, nse), (rate, novice)


@pytest.mark.slow
@pytest.mark.statistical
def test_the_bold_beginner_meets_the_angoisse_more_than_the_expert_full():
    """40,000 games each: the reckless beginner's Angoisse rate is above the expert's, the
    difference's lower end at 4.5 standard errors above zero."""
    bold, bse = _anxiety_rate("reckless", 40_000, 29)
    expert, ese = _anxiety_rate("expert", 40_000, 29)
    assert bold - expert > 4.5 * math.hypot(bse, ese), (bold, expert, bse, ese)


def test_caution_goes_both_ways():
    """A negative caution is a bold player (it rerolls where the expert stops); the bounds are
    symmetric."""
    assert REGISTRY["human"].bounds["caution"] == (-100.0, 100.0)
    assert parse_strategy("human:caution=-2")[1]["caution"] == -2.0
    assert parse_strategy("reckless")[1]["caution"] < 0 < RUNGS["novice"]["caution"]
