"""Rules by guide (issue 29, item 4): ``[guide.NAME]`` sets a rule of the player's own turn for
the holder of one guide. Read, validated (one message), round-tripped, left out of old digests;
played exactly: a holder's turns under ``[guide.NAME] KEY = v`` are, draw for draw, the turns
under ``KEY = v`` for everyone (the greedy turn, the expert's tables, prudent), the other guides'
turns are unchanged, the rule follows the card (a swap moves it), and whole games with every
guide overridden are the games of the global rule."""

import re

import numpy as np
import pytest

from heron_sim.engine import layout as L
from heron_sim.loop.scripted import play_script
from heron_sim.errors import HeronSimError
from heron_sim.lab.changes import rule_changes
from heron_sim.lab.sheets import phrase, rule_sheet
from heron_sim.rules import Rules
from heron_sim.rules.rules import RulesError
from heron_sim.simulation import simulate, simulate_turns
from tests.helpers import cli


def test_read_round_trip_and_digest():
    r = Rules.build(overrides={"guide": {"heron": {"anxiety_threshold": 4}}, "guide.bull.rolls": 4})
    assert r.guides == ((1, "rolls", 4), (6, "anxiety_threshold", 4))  # English names too
    assert r.to_table()["guide"] == {"taureau": {"rolls": 4}, "heron": {"anxiety_threshold": 4}}
    assert Rules.from_table(r.to_table()) == r
    plain = Rules.build()
    assert Rules.build(overrides={"guide": {}}).digest() == plain.digest() == "f20aec6d786a"
    assert r.digest() != plain.digest()
    assert r.guide_rules(6).anxiety_threshold == 4 and r.guide_rules(6).rolls == 3
    assert r.guide_rules(1).rolls == 4 and r.guide_rules(0) == r.guide_rules(-1) == plain
    sets, of = r.turn_rows()
    assert len(sets) == 3 and of == (0, 1, 0, 0, 0, 0, 2)
    # the Pond's push-back is no table's: a guide that changes only it shares the base's tables
    assert Rules.build(overrides={"guide.loup.pond_pushback_flat": 2}).turn_rows()[1] == (0,) * 7


@pytest.mark.parametrize("over, words", [
    ({"guide.dragon.rolls": 4}, "guide.dragon: 'dragon' is not an animal"),
    ({"guide.heron.finish": 70}, "guide.heron.finish: not a rule of the player's own turn"),
    ({"guide.heron.start_squares": [0, 1]}, "guide.heron.start_squares: not a rule of the player's own turn"),
    ({"guide.heron.foo": 1}, "guide.heron.foo: unknown key"),
    ({"guide.heron.rolls": 0}, "guide.heron.rolls: 0 is out of range; allowed: 1..20"),
    ({"guide.heron.guide_power_doubling": 1}, "guide.heron.guide_power_doubling: 1 is not a boolean"),
    ({"guide.heron": 3}, "guide.heron: 3 is not a table"),
    ({"guide": 3}, "guide: 3 is not a table"),
    ({"guide": {"heron": {"rolls": 4}, "Héron": {"rolls": 5}}}, "given twice"),
])
def test_bad_guide_tables_are_one_message(over, words):
    with pytest.raises((RulesError, HeronSimError)) as info:
        Rules.build(overrides=over)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_command_line_prints_and_refuses_in_one_line():
    res = cli("rules", "--set", "guide.heron.anxiety_threshold=4")
    assert res.exit_code == 0 and '"heron": {\n      "anxiety_threshold": 4' in res.output
    bad = cli("rules", "--set", "guide.heron.anxiety_threshold=0")
    assert bad.exit_code == 2
    assert [x for x in bad.output.splitlines() if x.strip()] == [
        "error: guide.heron.anxiety_threshold: 0 is out of range; allowed: 1..99"]


def test_the_rule_sheet_says_whose_rule_it_is():
    assert phrase("guide.heron.anxiety_threshold", 4, "fr")[1] == (
        "Exception pour le joueur qui a le Guide Héron : dès qu'il cumule 4 Hérons ou plus (hors Étang), "
        "son tour prend fin sans déplacement.")
    assert phrase("guide.heron.rolls", 4, "en")[1] == (
        "For the player holding the Heron guide, they roll up to 4 times per turn.")
    v = Rules.build(overrides={"guide.heron.rolls": 4})
    assert [c.key for c in rule_changes(Rules.build(), v)] == ["guide.heron.rolls"]
    en = rule_sheet(Rules.build(), v, None, "en")
    assert ("| Rolls per turn (Heron guide) | Each player rolls up to 3 times per turn. | Each player rolls up to 3 "
            "times per turn. For the player holding the Heron guide, they roll up to 4 times per turn. |") in en


# (guide, key, value): three overrides of three kinds of rule (the Anxiety, the rolls, a power)
OVERRIDES = [("heron", "anxiety_threshold", 4), ("heron", "rolls", 4), ("taureau", "bull_bonus", 4)]


def _same_turns(guide, key, value, strategy):
    by_guide = Rules.build(overrides={f"guide.{guide}.{key}": value})
    everyone = Rules.build(overrides={key: value})
    plain = Rules.build()
    held = simulate_turns(by_guide, 3000, seed=7, strategy=strategy, guide=guide)
    assert np.array_equal(held, simulate_turns(everyone, 3000, seed=7, strategy=strategy, guide=guide))
    assert not np.array_equal(held, simulate_turns(plain, 3000, seed=7, strategy=strategy, guide=guide))
    # another guide's holder plays the rulings
    other = "lion"
    assert np.array_equal(simulate_turns(by_guide, 1000, seed=7, strategy=strategy, guide=other),
                          simulate_turns(plain, 1000, seed=7, strategy=strategy, guide=other))


@pytest.mark.parametrize("guide, key, value", OVERRIDES)
def test_a_holders_turns_are_the_global_rules_turns(guide, key, value):
    _same_turns(guide, key, value, "greedy")


@pytest.mark.slow  # builds the expert's tables of each override's rules (cached after)
@pytest.mark.parametrize("guide, key, value", OVERRIDES)
def test_the_experts_tables_are_the_guides_rules(guide, key, value):
    _same_turns(guide, key, value, "expert")


def test_prudent_plays_the_guides_rules_too():
    by_guide = Rules.build(overrides={"guide.heron.anxiety_threshold": 4})
    everyone = Rules.build(overrides={"anxiety_threshold": 4})
    assert np.array_equal(simulate_turns(by_guide, 2000, seed=3, strategy="prudent", guide="heron"),
                          simulate_turns(everyone, 2000, seed=3, strategy="prudent", guide="heron"))


@pytest.mark.parametrize("strategies", ["greedy", pytest.param("greedy,expert,prudent,greedy", marks=pytest.mark.slow)])
def test_every_guide_overridden_plays_the_global_games(strategies):
    every = {f"guide.{g}.anxiety_threshold": 4 for g in ("loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron")}
    a = simulate(Rules.build(overrides=every), 400, seed=5, strategies=strategies)
    b = simulate(Rules.build(overrides={"anxiety_threshold": 4}), 400, seed=5, strategies=strategies)
    cols = a.select_dtypes("number").columns
    assert len(cols) > 40 and a[cols].equals(b[cols]), strategies


def test_the_rule_follows_the_card():
    # 2 players, both scripted; the Héron's holder has its Anxiety at the fourth heron.
    r = Rules.build(players=2, overrides={"guide.heron.anxiety_threshold": 4, "powers": False})
    seven = ["loup"] * 7 + ["cerf"]              # seat 0 (Héron): a set of 7 -> swap its guide
    three = ["heron"] * 3 + ["cerf"] * 5         # three herons: an Anxiety under the rulings
    res = play_script(r, dice=seven + three + three, decisions=[-1, 1, -1], guides=["heron", "loup"],
                      strategies=["scripted", "scripted"], slots=3)
    # slot 1: seat 0 stops on 7 Loups (9 squares) and swaps; slot 2: seat 1, now the Héron's
    # holder, has no Anxiety with 3 herons and stops on 5 Cerfs (5 squares); slot 3: seat 0,
    # now holding the Loup, has its Anxiety at 3 herons
    assert res.guides == [0, 6] and res.positions == [9, 5]
    assert [int(res.raw_row[L.C_SEAT_ANX + s]) for s in range(2)] == [1, 0]
    plain = play_script(Rules.build(players=2, overrides={"powers": False}), dice=seven + three + three,
                        decisions=[-1, 1], guides=["heron", "loup"], strategies=["scripted", "scripted"], slots=3)
    assert [int(plain.raw_row[L.C_SEAT_ANX + s]) for s in range(2)] == [1, 1]


def test_a_guides_rule_is_a_tune_parameter():
    from heron_sim.lab.space import build_rules, check_params, parse_param

    p = parse_param({"key": "guide.heron.anxiety_threshold", "int": [3, 5]}, "param[0]")
    check_params(Rules.build(), [p])
    assert build_rules(Rules.build(), [p], {p.name: 5}).guides == ((6, "anxiety_threshold", 5),)
    bad = parse_param({"key": "guide.heron.finish", "int": [60, 63]}, "param[0]")
    with pytest.raises(HeronSimError, match=r"param\[0\] \(guide.heron.finish = 60\): guide.heron.finish: not a rule"):
        check_params(Rules.build(), [bad])


def test_the_exact_laws_of_a_holders_turn():
    from heron_sim.engine.layout import OUT_ANXIETY
    from heron_sim.exact import exact_figures

    by_guide = Rules.build(overrides={"guide.heron.anxiety_threshold": 4})
    exact = exact_figures(by_guide, "heron")
    assert exact == exact_figures(Rules.build(overrides={"anxiety_threshold": 4}), "heron")
    assert exact_figures(by_guide, "lion") == exact_figures(Rules.build(), "lion")
    # the engine's Héron turns under the guide's rule against its exact law (5 standard errors)
    n = 20000
    out = simulate_turns(by_guide, n, seed=11, strategy="greedy", guide="heron")
    p = exact["greedy_turn"]["p_anxiety"]
    assert abs((out[:, 0] == OUT_ANXIETY).mean() - p) < 5 * (p * (1 - p) / n) ** 0.5
    assert p < exact_figures(Rules.build(), "heron")["greedy_turn"]["p_anxiety"]


def test_a_guide_rule_equal_to_every_players_is_no_rule():
    """``[guide.heron] anxiety_threshold = 3`` under the rulings' 3 is the same game: the same
    digest, no rule changed (the lab's per-guide levers have a value that is no change)."""
    from heron_sim.lab.changes import n_changed

    plain = Rules.build(mode="8d8", players=4)
    same = Rules.build(mode="8d8", players=4, overrides={"guide": {"heron": {"anxiety_threshold": 3}}})
    assert same.digest() == plain.digest() and same.guides == () and n_changed(plain, same) == 0
    other = Rules.build(mode="8d8", players=4, overrides={"guide": {"heron": {"anxiety_threshold": 4}}})
    assert other.digest() != plain.digest() and n_changed(plain, other) == 1
    # against a changed global rule, the guide's own 3 is a rule again
    moved = Rules.build(mode="8d8", players=4, overrides={"anxiety_threshold": 4,
                                                          "guide": {"heron": {"anxiety_threshold": 3}}})
    assert moved.guides != ()


def test_a_guide_rule_is_said_of_its_holder_not_of_every_player():
    """« Pour le joueur qui a le Guide Héron, il lance jusqu'à 4 fois par tour », not « chaque
    joueur lance » (the rule is the holder's alone), for every key a guide may set."""
    from heron_sim.rules.keys import KEYS, BY_GUIDE_KEYS

    for key in BY_GUIDE_KEYS:
        k = KEYS[key]
        value = (not k.default) if k.kind == "bool" else k.default + 1
        for lang, every in (("fr", ("chaque joueur", "un joueur", "le joueur avance")),
                            ("en", ("each player", "a player", "the player advances"))):
            text = phrase(f"guide.heron.{key}", value, lang)[1]
            assert not any(w in re.split("[,:]", text, maxsplit=1)[1] for w in every), text
    assert phrase("guide.heron.rolls", 4, "fr")[1] == "Exception pour le joueur qui a le Guide Héron : il lance jusqu'à 4 fois par tour."
    assert phrase("guide.heron.anxiety_threshold", 4, "en")[1].endswith("as soon as they hold 4 or more herons "
                                                                         "(outside the Pond), their turn ends with no move.")
