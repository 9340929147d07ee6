"""Deterministic tests of every special square, the finish and the round cap."""

import pytest

from tests.scripting import NONE, STOP, YES, play_script, rules, set_of
from heron_sim.engine import layout as L
from heron_sim.simulation import simulate

pytestmark = pytest.mark.exact

GUIDES = ["lion", "loup", "serpent", "taureau"]


def land(start, size=5, decisions=(STOP,), r=None, positions=None, **kw):
    """Seat 0 (scripted, Lion guide) stops at once on a set of ``size`` cerfs from ``start``."""
    pos = list(positions or [0, 0, 0, 0])
    pos[0] = start
    kw.setdefault("guides", GUIDES)
    return play_script(r or rules(), dice=set_of("cerf", size), decisions=list(decisions), positions=pos, **kw)


def triggered(res, square):
    return int(res.raw_row[L.C_SQUARES + square])


def test_wolf_square_gives_a_bonus_roll_flag_without_stacking():
    res = land(3)
    assert res.positions[0] == 8 and res.bonus[0] == 1 and triggered(res, 8) == 1
    res = land(3, bonus=[1, 0, 0, 0])  # the bonus is used by this turn, then set again
    assert res.bonus[0] == 1


def test_exchange_square_plus_one_for_greedy_no_cascade():
    res = land(7, strategies=["scripted", "greedy", "greedy", "greedy"], decisions=(STOP, NONE))
    assert res.positions[0] == 13  # 12 then +1 (13 is neutral anyway; nothing chained)
    res = land(10, size=4, decisions=(STOP, NONE), positions=[0, 0, 0, 0])
    assert res.positions[0] == 13


def test_exchange_square_minus_one_for_an_opponent():
    res = land(7, decisions=(STOP, 1), positions=[0, 10, 10, 10])
    assert res.positions == [12, 9, 10, 10]
    res = land(7, decisions=(STOP, 1), positions=[0, 10, 10, 10], protected=[0, 1, 0, 0])
    assert res.positions == [13, 10, 10, 10]  # protected: cannot be targeted (falls back to +1)


def test_bull_square_moves_everyone_three_and_can_win_by_effect():
    res = land(10, positions=[0, 5, 30, 40], protected=[0, 0, 1, 0])
    assert res.positions == [18, 8, 33, 43]  # protected players share good effects
    assert res.bonus[1] == 0  # square 8 reached by an effect triggers nothing
    res = land(10, positions=[0, 50, 61, 60])
    assert res.winner == 2  # first in turn order after the active player


def test_wonder_square_skips_the_next_turn_protected_until_then():
    res = land(16, positions=[0, 10, 10, 10])
    assert res.positions[0] == 21 and res.skip[0] == 1 and res.protected[0] == 1
    # Next slots: seat 0 skipped (protection ends then), its bonus kept.
    res2 = play_script(rules(), dice=[], decisions=[], positions=[21, 0, 0, 0], skip=[1, 0, 0, 0],
                       protected=[1, 0, 0, 0], guides=GUIDES)
    assert res2.skip[0] == 0 and res2.protected[0] == 0 and res2.row["skipped"] == 1


def test_snake_square_joins_one_behind_the_nearest_pawn():
    assert land(19, positions=[0, 20, 28, 0]).positions[0] == 27   # tie 4/4: the one ahead
    assert land(19, positions=[0, 24, 30, 0]).positions[0] == 29   # same square ignored; may go forward
    assert land(19, positions=[0, 22, 40, 0]).positions[0] == 21
    assert land(19, positions=[0, 24, 24, 24]).positions[0] == 24  # nobody else: no effect


def test_rotation_square_passes_guides_to_the_next_player():
    res = land(22, ready=[1, 0, 1, 1])
    assert res.guides == [1, 3, 0, 2] and res.ready == [1, 1, 0, 1]


def test_lion_square_moves_every_opponent_back_three():
    res = land(27, positions=[0, 10, 10, 2], protected=[0, 0, 1, 0], guides=["lion", "loup", "taureau", "cerf"])
    assert res.positions == [32, 7, 10, 0]


def test_lion_square_snake_guide_cancels():
    res = land(27, positions=[0, 10, 10, 10])  # seat 2 (greedy) holds the Snake
    assert res.positions == [32, 7, 11, 7] and res.ready[2] == 0


def test_protection_square_protects_until_next_turn():
    res = land(33)
    assert res.positions[0] == 38 and res.protected[0] == 1


def test_eagle_square_greedy_swaps_with_furthest_ahead_unprotected():
    res = land(36, positions=[0, 50, 45, 40], protected=[0, 1, 0, 0], decisions=(STOP, 2))
    assert res.positions == [45, 50, 41, 40]
    res = land(36, positions=[0, 30, 20, 10], decisions=(STOP,),
               strategies=["scripted", "greedy", "greedy", "greedy"])
    assert res.positions[0] == 41  # nobody ahead: greedy does not swap (script ran out)
    res = land(36, positions=[0, 50, 45, 40], protected=[0, 1, 0, 0])  # greedy decides
    assert res.positions == [45, 50, 41, 40]
    res = land(36, positions=[0, 45, 45, 40])  # tie: the next in turn order
    assert res.positions == [45, 41, 45, 40]


def test_deer_square_regenerates_or_advances_two():
    res = land(43)  # ready guide: +2
    assert res.positions[0] == 50 and res.ready[0] == 1
    res = land(43, ready=[0, 1, 1, 1], decisions=(STOP, YES))
    assert res.positions[0] == 48 and res.ready[0] == 1
    res = land(43, ready=[0, 1, 1, 1], decisions=(STOP, 0))
    assert res.positions[0] == 50 and res.ready[0] == 0


def test_regeneration_square_readies_every_guide():
    res = land(47, ready=[0, 0, 0, 1])
    assert res.positions[0] == 52 and res.ready == [1, 1, 1, 1]


def test_heron_square_moves_back_ten_snake_cancels():
    res = land(55)
    assert res.positions[0] == 50 and res.skip[0] == 0
    res = land(55, decisions=(STOP, YES), guides=["serpent", "loup", "lion", "taureau"])
    assert res.positions[0] == 61 and res.ready[0] == 0


def test_neutral_squares_do_nothing():
    for start in (25, 32, 34, 41, 54):
        res = land(start)
        assert sum(int(v) for v in res.raw_row[L.C_SQUARES:]) == 0


def test_no_move_no_trigger():
    res = land(8, size=2)  # advance 0 on the Wolf square: no bonus again
    assert res.positions[0] == 8 and res.bonus[0] == 0


def test_reaching_63_or_beyond_wins():
    res = land(60)
    assert res.winner == 0 and res.positions[0] == 63


def test_exact_finish_variant_bounces_back():
    r = rules(exact_finish=True)
    res = land(60, r=r)
    assert res.winner == -1 and res.positions[0] == 61  # 65 bounces to 61
    res = land(61, size=4, r=r)
    assert res.winner == 0 and res.positions[0] == 63


def test_finish_at_60_variant():
    r = rules(finish=60)
    assert r.finish == 60 and all(sq < 60 for sq, _ in r.squares)
    res = land(55, r=r)
    assert res.winner == 0


def test_single_use_squares_variant():
    r = rules(single_use_squares=True, players=2)
    res = play_script(r, dice=set_of("cerf", 5) * 2, decisions=[STOP, STOP], positions=[3, 3],
                      strategies=["scripted", "scripted"], guides=["lion", "serpent"], slots=2)
    assert res.positions == [8, 8] and res.bonus == [1, 0]
    r = rules(players=2)
    res = play_script(r, dice=set_of("cerf", 5) * 2, decisions=[STOP, STOP], positions=[3, 3],
                      strategies=["scripted", "scripted"], guides=["lion", "serpent"], slots=2)
    assert res.bonus == [1, 1]


def test_round_cap_reports_unfinished_games():
    df = simulate(rules(max_rounds=3), 50, seed=3)
    assert not df["finished"].any() and (df["rounds"] == 3).all() and (df["winner"] == -1).all()


def test_rounds_count_the_round_the_game_ends_in():
    df = simulate(rules(), 200, seed=4)
    assert df["finished"].all()
    # A game that ends in round r ends during one of that round's slots (the winner may be
    # another player than the active one: an effect can carry it to the finish).
    slots = df[[f"turns_{s}" for s in range(4)]].sum(axis=1) + df["skipped_turns"]
    assert ((slots > (df["rounds"] - 1) * 4) & (slots <= df["rounds"] * 4)).all()
