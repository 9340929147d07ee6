"""Akeruption: each rule on hand-made states, exact hold probabilities, reproducibility, CLI."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from heron_sim.errors import RulesError
from heron_sim.games.akeruption import engine as E
from heron_sim.games.akeruption import hold_probability, load_rules, simulate, summarize
from heron_sim.games.base import check_core_columns

pytestmark = [pytest.mark.exact, pytest.mark.statistical, pytest.mark.cli]

I = np.int64
RULES = load_rules(None, {})
PARAMS, CRIT, BONUS, START_WALLS, TILES, RES_W, FL = RULES.kernel_arrays()
P, S = 3, 6
#: The old model's readings: zones at or above their threshold, only walls facing a flow tested.
OLD = PARAMS.copy()
OLD[E.P_STRICT] = 0
OLD[E.P_EVERY_WALL] = 0
OLD[E.P_BYPASS] = 0


def state(seed=0, index=0):
    from heron_sim.engine.rng import stream_start
    st = np.zeros(3, np.uint64)
    stream_start(seed, index, st)
    return st


# ---------------------------------------------------------------- walls and dice
def test_hold_probabilities_exact_by_enumeration():
    assert hold_probability(0) == Fraction(15, 36)
    assert hold_probability(1) == Fraction(21, 36)
    assert hold_probability(2) == Fraction(26, 36)
    assert hold_probability(6) == 1 and hold_probability(-6) == 0


def _hold_rate(bonus, n, seed):
    st = state(seed)
    return sum(E.wall_holds(st, bonus) for _ in range(n)) / n


@pytest.mark.parametrize("bonus", [0, 1, 2])
def test_dice_test_matches_the_exact_rate(bonus):
    n = 20000
    p = float(hold_probability(bonus))
    assert abs(_hold_rate(bonus, n, 7 + bonus) - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_dice_test_negative_control_detects_a_wrong_tie_rule():
    # if ties went to the wall, straw would hold 21/36: the straw sample must reject that
    n = 20000
    wrong = 21 / 36
    assert abs(_hold_rate(0, n, 7) - wrong) > 5 * math.sqrt(wrong * (1 - wrong) / n)


def test_simulated_hold_frequencies_match_exact_rates():
    df = simulate(RULES, games=1500, players=4, seed=3)
    for kind, bonus in (("straw", 0), ("wood", 1), ("stone", 2)):
        n, k = df[f"tests_{kind}"].sum(), df[f"holds_{kind}"].sum()
        p = float(hold_probability(bonus))
        assert n > 1000
        assert abs(k / n - p) < 5 * math.sqrt(p * (1 - p) / n), kind


# ---------------------------------------------------------------- damage and heat
def test_damage_flows_walls_and_broken_walls():
    flow, vwall = np.zeros((4, S), I), np.zeros((4, S), I)
    kst = np.zeros((3, E.N_KCOUNT), I)
    flow[0, :3] = 1                     # three flows into village 0
    vwall[0, 1] = E.STONE + 1           # one of them faces a stone wall
    vwall[0, 5] = E.STRAW + 1           # a wall with no lava behind is not tested
    bonus_hold = np.array([0, 1, 99], I)   # the stone wall always holds
    assert E.damage(0, state(), flow, vwall, bonus_hold, kst, OLD) == 2 * 20
    assert kst[E.STONE, E.K_TESTS] == 1 and kst[E.STRAW, E.K_TESTS] == 0
    bonus_break = np.array([0, 1, -99], I)  # now it always breaks: +10, and the side is open
    assert E.damage(0, state(), flow, vwall, bonus_break, kst, OLD) == 2 * 20 + 10
    assert vwall[0, 1] == 0 and vwall[0, 5] == E.STRAW + 1
    assert E.damage(0, state(), flow, vwall, bonus_break, kst, OLD) == 3 * 20


def test_seed_reading_every_village_wall_is_tested():
    """"Test de résistance de chaque mur du village": the wall with no lava behind it is
    tested too (and can break: +10 °C); the old reading left it alone."""
    flow, vwall = np.zeros((4, S), I), np.zeros((4, S), I)
    kst = np.zeros((3, E.N_KCOUNT), I)
    flow[0, 0] = 1
    vwall[0, 5] = E.STRAW + 1               # no lava behind it
    always_break = np.array([-99, -99, -99], I)
    assert RULES.params[E.P_EVERY_WALL] == 1
    assert E.damage(0, state(), flow, vwall, always_break, kst, PARAMS) == 20 + 10
    assert vwall[0, 5] == 0 and kst[E.STRAW, E.K_TESTS] == 1 and kst[E.STRAW, E.K_STOPS] == 0
    vwall[0, 5] = E.STRAW + 1
    assert E.damage(0, state(), flow, vwall, always_break, kst, OLD) == 20 and vwall[0, 5] == E.STRAW + 1


def test_seed_reading_zones_are_strictly_above_their_thresholds():
    """"zone critique >50°C": 50 °C is not in the first zone, 51 °C is; the old reading
    (>=) erupted at 50."""
    assert RULES.params[E.P_STRICT] == 1 and not E.in_zone(50, 50, 1) and E.in_zone(51, 50, 1)
    h = _heat_state()
    E.add_heat(0, 50, h["temp"], h["entered"], h["taken"], CRIT, state(), h["ends"], h["meta"], PARAMS, FL, P)
    assert h["meta"][E.M_ERUPTIONS] == 0 and h["temp"][:3].tolist() == [50, 0, 0]
    E.add_heat(0, 1, h["temp"], h["entered"], h["taken"], CRIT, state(), h["ends"], h["meta"], PARAMS, FL, P)
    assert h["meta"][E.M_ERUPTIONS] == 1 and h["temp"][:3].tolist() == [51, 30, 30]
    h = _heat_state()
    E.add_heat(0, 50, h["temp"], h["entered"], h["taken"], CRIT, state(), h["ends"], h["meta"], OLD, FL, P)
    assert h["meta"][E.M_ERUPTIONS] == 1


def _heat_state():
    return dict(temp=np.zeros(4, I), entered=np.zeros((P, 3), I), taken=np.zeros(3, I),
                ends=np.zeros((E.MAX_ENDS, 3), I), meta=np.zeros(E.N_META, I))


def test_first_into_a_zone_erupts_and_the_others_take_30():
    h = _heat_state()
    st = state()
    E.add_heat(0, 50, h["temp"], h["entered"], h["taken"], CRIT, st, h["ends"], h["meta"], OLD, FL, P)
    assert h["temp"][:3].tolist() == [50, 30, 30] and h["taken"].tolist() == [1, 0, 0]
    assert h["meta"][E.M_ERUPTIONS] == 1 and h["meta"][E.M_NENDS] == PARAMS[E.P_OUTLETS]
    # player 1 enters the first zone second: no eruption, no penalty
    E.add_heat(1, 20, h["temp"], h["entered"], h["taken"], CRIT, st, h["ends"], h["meta"], OLD, FL, P)
    assert h["temp"][:3].tolist() == [50, 50, 30] and h["meta"][E.M_ERUPTIONS] == 1
    # a chain: player 2 first into 120 pushes player 0 to 80 and player 1 to 80 (no new zone)
    E.add_heat(2, 90, h["temp"], h["entered"], h["taken"], CRIT, st, h["ends"], h["meta"], OLD, FL, P)
    assert h["temp"][:3].tolist() == [80, 80, 120] and h["meta"][E.M_ERUPTIONS] == 2
    assert h["entered"][2].tolist() == [1, 1, 0]


def test_penalty_can_carry_another_player_first_into_the_next_zone():
    h = _heat_state()
    h["temp"][:3] = [110, 45, 0]
    h["entered"][0, 0] = 1
    h["taken"][0] = 1
    st = state()
    E.add_heat(0, 10, h["temp"], h["entered"], h["taken"], CRIT, st, h["ends"], h["meta"], OLD, FL, P)
    # player 0 is first into 120: +30 to the others; player 1 reaches 75 (zone 50 already taken)
    assert h["temp"][:3].tolist() == [120, 75, 30] and h["meta"][E.M_ERUPTIONS] == 1


def test_heat_is_clipped_to_the_gauge():
    h = _heat_state()
    h["taken"][:] = 1
    E.add_heat(0, 999, h["temp"], h["entered"], h["taken"], CRIT, state(), h["ends"], h["meta"], PARAMS, FL, P)
    assert h["temp"][0] == PARAMS[E.P_BURNT]
    E.add_heat(1, -30, h["temp"], h["entered"], h["taken"], CRIT, state(), h["ends"], h["meta"], PARAMS, FL, P)
    assert h["temp"][1] == 0


# ---------------------------------------------------------------- lava tiles
def _board():
    return dict(ends=np.zeros((E.MAX_ENDS, 3), I), meta=np.zeros(E.N_META, I), flow=np.zeros((4, S), I),
                walls=np.zeros((P, 3), I), hand=np.zeros((P, 3), I), kst=np.zeros((3, E.N_KCOUNT), I))


def test_a_flow_reaching_a_village_enters_it_and_gives_a_card_even_without_player():
    b = _board()
    b["ends"][0] = [3, 1, 0]            # one tile from village 3 (no player at 3 players)
    b["meta"][E.M_NENDS] = 1
    pile = np.array([0, 5, 0], I)       # straights only
    fl = np.array([0.75, 0.0])          # no resources
    cards = E.extend(0, 0, state(), b["ends"], b["meta"], pile, b["flow"], b["walls"], b["hand"], RES_W, PARAMS, fl)
    assert cards == 1 and b["hand"][0].sum() == 1 and b["flow"][3].sum() == 1
    assert pile.tolist() == [0, 4, 0] and b["meta"][E.M_NENDS] == 0


def test_tiles_continue_flows_forks_branch_dead_ends_stop_resources_give_walls():
    b = _board()
    b["ends"][0] = [1, 3, 0]
    b["meta"][E.M_NENDS] = 1
    E.extend(0, 0, state(), b["ends"], b["meta"], np.array([0, 1, 0], I), b["flow"], b["walls"],
             b["hand"], RES_W, PARAMS, np.array([0.75, 1.0]))
    assert b["ends"][0].tolist() == [1, 2, 0] and b["walls"][0].sum() == 1   # on a resource
    E.extend(0, 0, state(), b["ends"], b["meta"], np.array([0, 0, 1], I), b["flow"], b["walls"],
             b["hand"], RES_W, PARAMS, np.array([0.75, 0.0]))
    assert b["meta"][E.M_NENDS] == 2 and b["ends"][0].tolist() == [1, 1, 0]  # fork: two ends
    E.extend(0, 0, state(), b["ends"], b["meta"], np.array([1, 0, 0], I), b["flow"], b["walls"],
             b["hand"], RES_W, PARAMS, np.array([0.75, 0.0]))
    assert b["meta"][E.M_NENDS] == 1 and b["flow"].sum() == 0                 # dead end


def test_walled_end_must_be_beaten_or_the_tile_goes_elsewhere():
    b = _board()
    b["ends"][0] = [1, 1, E.STONE + 1]      # greedy's favourite end, walled
    b["ends"][1] = [-1, 3, 0]               # open land
    b["meta"][E.M_NENDS] = 2
    pile = np.array([0, 5, 0], I)
    fl = np.array([0.75, 0.0])
    always = np.array([0, 1, 99], I)        # the wall holds: the tile goes to the other end
    E.place_tile(0, E.S_GREEDY, state(), b["ends"], b["meta"], pile, b["flow"], b["walls"], b["hand"],
                 RES_W, always, b["kst"], PARAMS, fl, P)
    assert b["flow"][1].sum() == 0 and b["ends"][0].tolist() == [1, 1, E.STONE + 1]
    assert b["ends"][1].tolist() == [-1, 2, 0] and b["kst"][E.STONE, E.K_TESTS] == 1
    never = np.array([0, 1, -99], I)        # the lava wins: wall destroyed, the flow enters
    E.place_tile(0, E.S_GREEDY, state(), b["ends"], b["meta"], pile, b["flow"], b["walls"], b["hand"],
                 RES_W, never, b["kst"], PARAMS, fl, P)
    assert b["flow"][1].sum() == 1 and b["hand"][0].sum() == 1


def test_seed_reading_a_wall_fed_from_another_side_is_destroyed_untested():
    """"Si la tuile peut être alimentée en lave par un autre côté ... le mur est détruit sans
    test": a tile that brings another flow to the walled end's place (same village, same tiles
    left) destroys the wall with no dice test; the old reading kept it."""
    for params, kept in ((PARAMS, False), (OLD, True)):
        b = _board()
        b["ends"][0] = [1, 2, E.STONE + 1]     # walled, two tiles from village 1
        b["ends"][1] = [1, 3, 0]               # another flow, three tiles from it
        b["meta"][E.M_NENDS] = 2
        E.extend(0, 1, state(), b["ends"], b["meta"], np.array([0, 1, 0], I), b["flow"], b["walls"],
                 b["hand"], RES_W, params, np.array([0.75, 0.0]))
        walled = [e for e in b["ends"][: b["meta"][E.M_NENDS]].tolist() if e[2] > 0]
        assert (len(walled) == 1) == kept
        assert b["meta"][E.M_BYPASSED] == (0 if kept else 1)


def test_wall_on_end_is_tested_at_once_and_needs_an_empty_zone():
    ends = np.zeros((E.MAX_ENDS, 3), I)
    ends[0] = [1, 1, 0]                     # last tile before village 1: zone not empty
    ends[1] = [1, 2, 0]
    ends[2] = [-1, 1, 0]                    # open land
    assert not E.wall_ok_on_end(ends, 0) and E.wall_ok_on_end(ends, 1) and E.wall_ok_on_end(ends, 2)
    walls, built, kst = np.ones((P, 3), I), np.zeros((P, 3), I), np.zeros((3, E.N_KCOUNT), I)
    assert not E.wall_on_end(0, 1, E.STRAW, state(), ends, walls, np.array([-99, 0, 0], I), kst, built)
    assert ends[1, 2] == 0 and walls[0, E.STRAW] == 0 and built[0, E.STRAW] == 1
    assert E.wall_on_end(0, 1, E.WOOD, state(), ends, walls, np.array([0, 99, 0], I), kst, built)
    assert ends[1, 2] == E.WOOD + 1 and not E.wall_ok_on_end(ends, 1)   # never two walls


# ---------------------------------------------------------------- winner
def test_coolest_village_wins_then_tie_points():
    walls, vwall, flow = np.zeros((P, 3), I), np.zeros((4, S), I), np.zeros((4, S), I)
    temp = np.array([80, 60, 60, 0], I)     # village 3 is neutral: not a player
    walls[1] = [1, 0, 1]                    # 1 + 3 = 4
    walls[2] = [0, 2, 0]                    # 4 ...
    vwall[2, 0] = E.STRAW + 1               # + 1 around the village
    flow[2, 1] = 1                          # - 1 per flow in contact
    assert E.tie_points(1, walls, vwall, flow) == 4 and E.tie_points(2, walls, vwall, flow) == 4
    assert E.winner_of(temp, walls, vwall, flow, P) == -1
    vwall[2, 2] = E.STONE + 1
    assert E.winner_of(temp, walls, vwall, flow, P) == 2
    temp[0] = 10
    assert E.winner_of(temp, walls, vwall, flow, P) == 0


# ---------------------------------------------------------------- whole games
def test_end_conditions_and_columns():
    df = simulate(RULES, games=300, players=3, seed=2, strategies=["greedy", "random", "greedy"])
    check_core_columns(df)
    assert df["finished"].all() and set(df["end"]) <= {"burnt", "pile"}
    temps = df[["temp_0", "temp_1", "temp_2"]].to_numpy()
    burnt = df["end"] == "burnt"
    assert (temps[burnt.to_numpy()].max(axis=1) == PARAMS[E.P_BURNT]).all()
    won = df["winner"] >= 0
    assert (temps[won.to_numpy(), df.loc[won, "winner"]] == temps[won.to_numpy()].min(axis=1)).all()
    # an empty pile: every player plays once more, so the game lasts at least the pile / 2 turns
    assert df.loc[~burnt, "length"].min() >= sum(RULES.tiles) // 2


def test_batches_are_reproducible_whatever_the_split():
    whole = simulate(RULES, games=60, players=4, seed=5)
    parts = [simulate(RULES, games=35, players=4, seed=5),
             simulate(RULES, games=25, players=4, seed=5, first_game=35)]
    pd.testing.assert_frame_equal(whole, pd.concat(parts, ignore_index=True))
    assert not whole["length"].equals(simulate(RULES, games=60, players=4, seed=6)["length"])


def test_greedy_beats_random():
    # 400 two-player games, greedy in both seats half the time; fair = 0.5, sd 0.025
    a = simulate(RULES, games=200, players=2, seed=3, strategies=["greedy", "random"])
    b = simulate(RULES, games=200, players=2, seed=4, strategies=["random", "greedy"])
    wins = (a["winner"] == 0).sum() + (b["winner"] == 1).sum()
    assert wins / 400 > 0.5 + 5 * 0.025


def test_summary_answers_the_questions():
    text = summarize(simulate(RULES, games=200, players=4, seed=1))
    for needle in ("Seat advantage", "win share", "Game length", "Strategy win shares", "stone", "0.7222", "exact"):
        assert needle in text


# ---------------------------------------------------------------- rules and command line
@pytest.mark.parametrize("over, field", [
    ({"colour": 1}, "colour"),
    ({"critical": [50, 40, 200]}, "critical"),
    ({"walls": {"stone": 9}}, "walls.stone"),
    ({"tiles": {"fork": -1}}, "tiles.fork"),
    ({"resources": {"probability": 2}}, "resources.probability"),
    ({"villages": 1}, "villages"),
])
def test_bad_rules_name_the_field(over, field):
    with pytest.raises(RulesError, match=f"^{field}.*allowed"):
        load_rules(None, over)


def test_cli_bad_input_exit_code_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[walls]\nmarble = 3\n")
    runner = CliRunner()
    for args in (["--rules", str(bad)], ["--players", "1"], ["--strategy", "greedy,oops"]):
        res = runner.invoke(app, ["game", "akeruption", "simulate", "--games", "3", *args])
        assert res.exit_code == 2, res.output
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:")


def test_cli_simulates_with_a_rules_file(tmp_path):
    good = tmp_path / "v.toml"
    good.write_text("[walls]\nstraw = 1\n")
    res = CliRunner().invoke(app, ["game", "akeruption", "simulate", "--games", "50", "--rules", str(good)])
    assert res.exit_code == 0, res.output
    assert "0.5833" in res.output   # straw now holds 21/36: the summary's exact rate follows the rules


@pytest.mark.slow
def test_hold_frequencies_at_scale():
    df = simulate(RULES, games=20000, players=4, seed=21, strategies=["random"])
    for kind, bonus in (("straw", 0), ("wood", 1), ("stone", 2)):
        n, k = df[f"tests_{kind}"].sum(), df[f"holds_{kind}"].sum()
        p = float(hold_probability(bonus))
        assert abs(k / n - p) < 5 * math.sqrt(p * (1 - p) / n), kind


# ---------------------------------------------------------------- negative control
def _random_first(games, players, seed):
    rules = load_rules(None, {"first_player": "random"})
    return simulate(rules, games=games, players=players, seed=seed)


def _assert_exchangeable(df, z=4.5):
    """With the first player drawn at random every seat is the same: each seat's win share is
    1/players within z standard errors (a shared win counts 1/k)."""
    from heron_sim.analysis.metrics import light_win_shares
    sh = light_win_shares(df)
    sh = sh[sh.sum(axis=1) > 0.5]
    n, players = sh.shape
    for s in range(players):
        se = math.sqrt(sh[:, s].var(ddof=1) / n)
        assert abs(sh[:, s].mean() - 1 / players) < z * se, (s, sh[:, s].mean())


def test_negative_control_random_first_player_makes_seats_equal():
    for players in (2, 4):
        _assert_exchangeable(_random_first(1500, players, 5))


@pytest.mark.slow
def test_negative_control_random_first_player_makes_seats_equal_long():
    for players in (2, 3, 4):
        _assert_exchangeable(_random_first(20000, players, 6))
