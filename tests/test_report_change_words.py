"""The report names a proposal's rules in the booklet's words, never by its keys: rules by guide,
by player count and a board square included (issue 30: "no key or table ids")."""

import pytest

from heron_sim.report.lab_page import changes_words

CHANGES = {"guide.heron.anxiety_threshold": 4, "seats.3.start_squares": [0, 1, 1], "board.square.35": "aigle",
           "combinations.advance[4]": 4}


@pytest.mark.parametrize("lang, expected", [
    # French: each rule as the booklet's sentence (issue 60 item 1: never « clé = [0, 1, 1] »)
    ("fr", "Exception pour le joueur qui a le Guide Héron : dès qu'il cumule 4 Hérons ou plus (hors Étang), "
           "son tour prend fin sans déplacement ; À 3 joueurs : Départ : joueur 2 : case 1, joueur 3 : case 1 "
           "(les autres : 0) ; Case 35 : Aigle : échange de position avec un adversaire ; 4 identiques : +4 cases"),
    ("en", "The Angoisse du Héron (Heron guide) = 4; Start squares (with 3 players) = [0, 1, 1]; "
           "Square 35 = Eagle: swap places with an opponent; Squares gained by the largest set (set of 4) = 4"),
])
def test_a_proposals_rules_are_named_in_words(lang, expected):
    text = changes_words(CHANGES, lang)
    assert text == expected
    assert not any(k in text for k in ("guide.", "seats.", "board.", "_"))
    if lang == "fr":
        assert "[" not in text and " = " not in text


def test_the_rules_of_one_guides_holder_are_said_once():
    """Two rules of the Héron guide's holder: one exception naming the holder, its rules joined
    (not « Exception pour … ; Exception pour … »); after « ; » it starts in lower case."""
    text = changes_words({"guide.heron.anxiety_threshold": 4, "guide.heron.rolls": 4}, "fr")
    assert text == ("Exception pour le joueur qui a le Guide Héron : dès qu'il cumule 4 Hérons ou plus (hors Étang), "
                    "son tour prend fin sans déplacement, et il lance jusqu'à 4 fois par tour")
    text = changes_words({"bull_bonus": 3, "guide.heron.rolls": 4}, "fr")
    assert text.count("xception") == 1 and " ; exception pour le joueur qui a le Guide Héron : " in text
