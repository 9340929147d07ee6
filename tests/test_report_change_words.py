"""The report names a proposal's rules in the booklet's words, never by its keys: rules by guide,
by player count and a board square included (issue 30: "no key or table ids")."""

import pytest

from heron_sim.report.lab_page import changes_words

CHANGES = {"guide.heron.anxiety_threshold": 4, "seats.3.start_squares": [0, 1, 1], "board.square.35": "aigle",
           "combinations.advance[4]": 4}


@pytest.mark.parametrize("lang, expected", [
    ("fr", "L'Angoisse du Héron (Guide Héron) = 4 ; Cases de départ (à 3 joueurs) = [0, 1, 1] ; "
           "Case 35 = Aigle : échange de position avec un adversaire ; "
           "Cases gagnées selon la plus grande série (série de 4) = 4"),
    ("en", "The Angoisse du Héron (Heron guide) = 4; Start squares (with 3 players) = [0, 1, 1]; "
           "Square 35 = Eagle: swap places with an opponent; Squares gained by the largest set (set of 4) = 4"),
])
def test_a_proposals_rules_are_named_in_words(lang, expected):
    text = changes_words(CHANGES, lang)
    assert text == expected
    assert not any(k in text for k in ("guide.", "seats.", "board.", "_"))
