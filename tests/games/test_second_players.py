"""The second real player of each lighter game (issue 34 item 1): declared beside greedy, and on
a scripted position it chooses otherwise than greedy, each as its documented priorities say."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heron_sim.engine.rng import new_state as rng_state, stream_start
from heron_sim.games import available

pytestmark = [pytest.mark.exact]
I = np.int64


def _state(seed=7):
    st = rng_state()
    stream_start(seed, 0, st)
    return st


def test_every_game_declares_two_real_players_greedy_first():
    for name, g in available().items():
        assert len(g.heuristics) == 2 and g.heuristics[0] == "greedy" == g.strategies[0], name
        assert g.heuristics[1] in g.strategies and "random" not in g.heuristics, name
        assert g.real_players() == g.heuristics


def test_rampage_wrecker_goes_for_the_richest_building_greedy_drops_on_the_one_at_hand():
    from heron_sim.games.rampage import engine as E, load_rules

    rules = load_rules(None, {})
    ka = rules.kernel_arrays(2)
    st = E.new_state(2, rules)
    pl, fl = st["pl"], st["fl"]
    pl[:, E.TEETH] = 4
    pl[0, E.DIST], pl[1, E.DIST] = 4, 0
    fl[:] = 0
    fl[6] = 1            # a one-floor building here, in district 4
    fl[2] = 3            # the richest: three floors next door, in district 1
    st["veh"][:] = 3     # no vehicle at hand
    choose = lambda strat: E.choose_action(0, pl, ka["pp"], ka["ip"], ka["fp"], ka["adj"], fl, ka["b_dist"],
                                           st["ground"], st["veh"], np.array([strat, strat], I), _state())
    assert choose(E.S_WRECKER) == (E.MOVE, 1)          # towards building 2
    assert choose(E.S_GREEDY) == (E.DROP, 6)           # the building at hand
    st["veh"][:] = 4                                   # a vehicle at hand: the wrecker throws it
    assert choose(E.S_WRECKER) == (E.THROW, 2)
    fl[:] = 0                                          # nothing stands: greedy's choice
    assert choose(E.S_WRECKER) == choose(E.S_GREEDY)


def test_mekong_blocker_cuts_an_equal_leaders_way_greedy_only_a_nearer_one():
    from heron_sim.games.mekong_dragons import engine as E, load_rules
    from tests.games.test_mekong_dragons import Board, N

    b = Board(players=2)
    for q in (0, 1):     # both pawns one plank from their target village: equal leaders
        isl = b.island(b.target[q], b.home[q], 0.2)
        b.stone[isl] = 1
        b.loc[q] = b.plank(b.target[q], isl)
    hops = [E.pawn_hops(b.loc[q], b.target[q], E.support_hops(b.target[q], b.pa, b.pb, b.pon, N), b.pa, b.pb)
            for q in (0, 1)]
    assert hops[0] == hops[1] < 4
    ip = load_rules(None, {"radius": 3, "dragon_step": "first"}).kernel_params()

    def programme(block):
        prog, dtarget = np.full((2, 9), -1, I), np.full(2, -1, I)
        E.program_greedy(0, prog, dtarget, ip, b.loc, b.target, b.pa, b.pb, b.pon, b.res, b.gs, N, _state(),
                         block)
        return list(prog[0, :5]), int(dtarget[0])

    greedy, blocker = programme(False), programme(True)
    assert greedy == ([E.DRAGON, E.MOVE2, E.MOVE, E.PLANK, E.STONE], 1)
    assert blocker == ([E.DRAGON, E.RM_PLANK, E.MOVE2, E.MOVE, E.PLANK], 1)


def test_akeruption_cautious_sends_lava_to_a_neutral_village_greedy_to_a_rival():
    from heron_sim.games.akeruption import engine as E, load_rules

    params, crit, bonus, _, _, res_w, _ = load_rules(None, {}).kernel_arrays()
    P, S = 3, 6

    def place(strat):
        ends, meta = np.zeros((E.MAX_ENDS, 3), I), np.zeros(E.N_META, I)
        flow = np.zeros((4, S), I)
        ends[0] = [1, 1, 0]          # one tile from rival 1's village
        ends[1] = [3, 1, 0]          # one tile from the neutral village 3 (3 players)
        meta[E.M_NENDS] = 2
        E.place_tile(0, strat, _state(), ends, meta, np.array([0, 5, 0], I), flow, np.zeros((P, 3), I),
                     np.zeros((P, 3), I), res_w, bonus, np.zeros((3, E.N_KCOUNT), I), params,
                     np.array([0.75, 0.0]), P)
        return [int(v) for v in flow.sum(axis=1)]

    assert place(E.S_GREEDY) == [0, 1, 0, 0]
    assert place(E.S_CAUTIOUS) == [0, 0, 0, 1]


def test_fire_mountain_hatcher_hatches_the_cheapest_greedy_the_brontosaurus():
    from heron_sim.games.fire_mountain import engine as E, load_rules
    from heron_sim.games.fire_mountain.rules import BRONTO, PTERA

    rules = load_rules(None, {})
    species, cost = np.array(rules.species, I), np.array(rules.cost, I)
    egg, supply = np.array([3, 0, 0], I), np.full(6, 1, I)
    dsp = -np.ones((3, E.MAX_SLOTS), I)
    pick = lambda strat: E.pick_species(0, egg, dsp, supply, species, cost, 4, np.zeros(3, np.uint64), strat)
    assert pick(E.S_GREEDY) == BRONTO        # greedy's preference (cost 3)
    assert pick(E.S_HATCHER) == PTERA        # the cheapest (cost 2); ties by greedy's preference
    assert cost[PTERA] < cost[BRONTO]


def _rows(panel, P, shares, p):
    return pd.DataFrame([{"panel": panel, "players": P, "seat": s, "games": 1000, "wins": 0, "shared": 0,
                          "win_rate": r, "low": r - 0.03, "high": r + 0.03, "fair": 1 / P, "p": q, "p_holm": q}
                         for s, (r, q) in enumerate(zip(shares, p))])


def test_seat_verdicts_the_game_only_when_every_panel_agrees():
    from heron_sim.runner.kinds.games import seat_verdicts

    order = ["greedy", "new", "greedy+new"]
    every = pd.concat([_rows(k, 2, [0.6, 0.4], [1e-6, 1e-6]) for k in order])
    f, = seat_verdicts(every, [2], order)
    assert "Seat 1 wins above a fair 50 %" in f and "property of the game" in f
    assert all(k in f for k in order)
    some = pd.concat([_rows("greedy", 2, [0.6, 0.4], [1e-6, 1e-6]), _rows("new", 2, [0.51, 0.49], [0.5, 0.5]),
                      _rows("greedy+new", 2, [0.6, 0.4], [1e-6, 1e-6])])
    f, = seat_verdicts(some, [2], order)
    assert "depends on the players" in f and "new 51.0 %" in f
    flip = pd.concat([_rows("greedy", 2, [0.6, 0.4], [1e-6, 1e-6]), _rows("new", 2, [0.4, 0.6], [1e-6, 1e-6]),
                      _rows("greedy+new", 2, [0.6, 0.4], [1e-6, 1e-6])])
    assert all("depends on the players" in f for f in seat_verdicts(flip, [2], order))
    none = pd.concat([_rows(k, 2, [0.5, 0.5], [0.9, 0.9]) for k in order])
    f, = seat_verdicts(none, [2], order)
    assert "no seat departs" in f


def test_fire_mountain_hatcher_weighs_the_leaders_points_half():
    """The hatcher's evaluation counts the best opponent's projected points with weight
    HATCHER_DENY (greedy: 1): the same position is worth more to it when an opponent leads."""
    from heron_sim.games.fire_mountain import engine as E

    reg = np.zeros((16, 2), I)
    size = np.zeros(16, I)
    size[0], size[1] = 5, 3
    reg[0, 1] = 2        # the opponent holds region 0 (5 points), p = 0 region 1 (3 points)
    reg[1, 0] = 1
    from numba import njit

    @njit
    def values(reg, size, pts):   # evaluate has no Python wrapper: called from compiled code
        return (E.evaluate(reg, size, 2, 2, 0, pts), E.evaluate(reg, size, 2, 2, 0, pts, E.HATCHER_DENY),
                E.evaluate(reg, size, 2, 2, 0, pts, 1.0))

    pts = np.zeros(2, I)
    greedy, hatcher, one = values(reg, size, pts)
    assert list(pts) == [3, 5]
    assert greedy == pytest.approx(4.0 * (3 - 5) + 0.1) and hatcher == pytest.approx(4.0 * (3 - 2.5) + 0.1)
    assert one == greedy
