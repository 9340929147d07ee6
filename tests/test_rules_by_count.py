"""Rules by player count (issue 29, item 5): ``[seats.N]`` lists replace the by-seat lists of
every count at N players only, leave old digests unchanged, round-trip, refuse bad tables with
one message, say when they do not apply, and are played by the kernel."""

import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab.sheets import phrase
from heron_sim.rules import Rules
from heron_sim.rules.rules import RulesError
from heron_sim.simulation import simulate

SEATS5 = {"seats": {"5": {"start_squares": [0, 1, 1, 2, 2], "first_turn_extra_rolls": [0, 0, 0, 0, 1]}}}


def test_a_counts_list_applies_at_that_count_only():
    for n in range(2, 8):
        r = Rules.build(mode="8d8", players=n, overrides={"start_squares": [0, 1], **SEATS5})
        if n == 5:
            assert r.seat_values("start_squares") == (0, 1, 1, 2, 2)
            assert r.seat_values("first_turn_extra_rolls") == (0, 0, 0, 0, 1)
            assert r.seats_note() is None
        else:
            assert r.seat_values("start_squares") == (0, 1) + (0,) * (n - 2)
            assert r.seat_values("first_turn_extra_rolls") == (0,) * n
            assert "[seats.5]" in r.seats_note() and f"{n} players" in r.seats_note()


def test_digest_unchanged_without_seats_and_changed_with_them():
    plain = Rules.build(mode="8d8", players=5)
    assert Rules.build(mode="8d8", players=5, overrides={"seats": {}}).digest() == plain.digest()
    assert Rules.build(mode="8d8", players=5, overrides=SEATS5).digest() != plain.digest()


def test_round_trip_through_the_table():
    r = Rules.build(mode="8d8", players=5, overrides=SEATS5)
    table = r.to_table()
    assert table["seats"] == {"5": {"first_turn_extra_rolls": [0, 0, 0, 0, 1], "start_squares": [0, 1, 1, 2, 2]}}
    again = Rules.from_table(table) if hasattr(Rules, "from_table") else Rules.build(
        mode="8d8", players=5, overrides={k: v for k, v in table.items() if k != "mode"})
    assert again.seats == r.seats and again.digest() == r.digest()


@pytest.mark.parametrize("seats, words", [
    ({"1": {"start_squares": [0]}}, "seats.1: not a player count"),
    ({"8": {"start_squares": [0]}}, "seats.8: not a player count"),
    ({"five": {"start_squares": [0]}}, "seats.five: not a player count"),
    ({"5": {"rolls": [1]}}, "seats.5.rolls: unknown key"),
    ({"3": {"start_squares": [0, 1, 1, 2]}}, "4 entries for 3 players"),
    ({"5": [0, 1]}, "seats.5: [0, 1] is not a table"),
    ({"5": {"start_squares": [0, -1]}}, "seats.5.start_squares"),
])
def test_bad_seats_tables_are_one_message(seats, words):
    with pytest.raises((RulesError, HeronSimError)) as info:
        Rules.build(mode="8d8", players=5, overrides={"seats": seats})
    assert words in str(info.value) and "\n" not in str(info.value)


def test_the_kernel_plays_the_counts_start_squares():
    far = {"seats": {"5": {"start_squares": [0, 0, 0, 0, 40]}}}
    at5 = simulate(Rules.build(mode="8d8", players=5, overrides=far), 2000, seed=11)
    at4 = simulate(Rules.build(mode="8d8", players=4, overrides=far), 2000, seed=11)
    plain4 = simulate(Rules.build(mode="8d8", players=4), 2000, seed=11)
    assert (at5["winner"] == 4).mean() > 0.6  # 40 squares ahead: the last seat nearly always wins
    assert at4["winner"].tolist() == plain4["winner"].tolist()  # not applied at 4 players


def test_the_rule_sheet_says_the_count():
    title_fr, fr = phrase("seats.5.start_squares", [0, 1, 1, 2, 2], "fr")
    title_en, en = phrase("seats.5.start_squares", [0, 1, 1, 2, 2], "en")
    assert fr.startswith("À 5 joueurs : ") and en.startswith("With 5 players: ")
    assert phrase("start_squares", [0, 1, 1, 2, 2], "fr")[1] in fr


def test_a_five_player_game_starts_from_the_counts_list():
    import numpy as np

    from heron_sim.engine import layout as L
    from heron_sim.loop.game import seat_compensation
    from heron_sim.engine.pack import new_workspace, pack_rules

    r = Rules.build(mode="8d8", players=5, overrides={"start_squares": [0, 1, 1, 1], **SEATS5})
    R = pack_rules(r)
    w = new_workspace(R, np.zeros(5, np.int64))
    seat_compensation(w, R)
    assert [int(w[L.POS + s]) for s in range(5)] == [0, 1, 1, 2, 2]
    assert [int(w[L.BONUS + s]) for s in range(5)] == [0, 0, 0, 0, 1]
    r4 = Rules.build(mode="8d8", players=4, overrides={"start_squares": [0, 1, 1, 1], **SEATS5})
    R4 = pack_rules(r4)
    w4 = new_workspace(R4, np.zeros(4, np.int64))
    seat_compensation(w4, R4)
    assert [int(w4[L.POS + s]) for s in range(4)] == [0, 1, 1, 1]  # the plain list at 4


def test_bad_length_on_the_command_line_is_one_error_line():
    from tests.helpers import cli

    res = cli("rules", "--set", "seats.5.start_squares=[0,1,1,2,2,3]")
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert lines == ["error: seats.5.start_squares: 6 entries for 5 players; allowed: at most 5"]


def test_the_rule_sheet_writes_each_counts_rule_in_both_languages():
    from heron_sim.lab.sheets import rule_sheet

    v = Rules.build(mode="8d8", overrides={"seats": {"4": {"start_squares": [0, 1, 1, 1]},
                                                     "5": {"start_squares": [0, 1, 1, 2, 2]}}})
    fr, en = rule_sheet(Rules.build(mode="8d8"), v, None, "fr"), rule_sheet(Rules.build(mode="8d8"), v, None, "en")
    assert "À 4 joueurs : " in fr and "À 5 joueurs : " in fr
    assert "With 4 players: " in en and "With 5 players: " in en


def test_a_counts_list_that_restates_every_counts_list_is_no_rule():
    """The lab's per-count levers have a value that is no change: a [seats.N] list giving the N
    seats what the list of every count gives them is dropped (same digest, nothing on a sheet)."""
    from heron_sim.lab.changes import n_changed

    plain = Rules.build(mode="8d8", players=3, overrides={"start_squares": [0, 0, 1, 1]})
    same = Rules.build(mode="8d8", players=3, overrides={"start_squares": [0, 0, 1, 1],
                                                         "seats": {"3": {"start_squares": [0, 0, 1]}}})
    assert same.digest() == plain.digest() and same.seats == () and n_changed(plain, same) == 0
    none = Rules.build(mode="8d8", players=3)
    zeros = Rules.build(mode="8d8", players=3, overrides={"seats": {"3": {"start_squares": []}}})
    assert zeros.digest() == none.digest()
    # not a restatement: no head start at 3 players while every other count has one
    off = Rules.build(mode="8d8", players=3, overrides={"start_squares": [0, 0, 1, 1],
                                                        "seats": {"3": {"start_squares": []}}})
    assert off.digest() != plain.digest() and off.seat_values("start_squares") == (0, 0, 0)
    assert n_changed(plain, off) == 1
