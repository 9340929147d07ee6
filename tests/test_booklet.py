"""The booklet's text with a proposal in place (issue 30 item 7): the seed's blocks, rewritten
in the booklet's words, the change in bold, every player count written out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab.booklet import BLOCKS, B_SQUARES, booklet_blocks, booklet_text, cases, words
from heron_sim.rules import Rules
from heron_sim.rules.keys import KEYS

pytestmark = pytest.mark.exact

SEED = (Path(__file__).parent / "data" / "heron-race.fr.txt").read_text(encoding="utf-8").replace("’", "'")
BASE = Rules.build()


def _norm(s: str) -> str:
    return s.replace("’", "'")


def test_under_the_rulings_every_french_paragraph_is_the_seeds_own_sentence():
    for block in BLOCKS:
        if block is B_SQUARES:
            continue  # the squares are listed by position (the seed names some without one)
        for p in block.paras:
            if not p.always:
                continue
            for line in _norm(p.text(BASE, "fr")).split("\n"):
                if set(line) <= set("|-"):
                    continue
                assert line in SEED or line.split(" · ", 1)[-1] in SEED, (block.title_fr, line)


def test_no_change_writes_no_block():
    assert booklet_blocks(BASE, BASE, "fr") == []
    assert "Aucune règle ne change." in booklet_text(BASE, BASE, "fr")


def test_the_anxiety_at_four_rewrites_its_block_and_the_herons_line():
    v = Rules.build(overrides={"anxiety_threshold": 4})
    text = booklet_text(BASE, v, "fr", "t1")
    assert text.startswith("# Texte du livret : proposition t1")
    assert "**En dehors de l'Étang Paisible, dès qu'un joueur cumule quatre Hérons ou plus" in text
    assert "(le quatrième Héron reste dangereux)**" in text
    assert "## 02 — L’Angoisse du Héron" in text and "## 03" not in text and "## 01" not in text
    en = booklet_text(BASE, v, "en")
    assert "as soon as a player holds four or more herons" in en and "the fourth heron is still dangerous" in en


def test_the_ponds_push_back_is_written_from_its_law():
    v = Rules.build(overrides={"pond_pushback_max": 6})
    text = booklet_text(BASE, v, "fr")
    assert ("chaque adversaire recule d'une case par Héron obtenu, sans dépasser six cases, soit au moins quatre "
            "cases. Sur huit D8, le recul maximum est de six cases.") in text
    flat = booklet_text(BASE, Rules.build(overrides={"pond_pushback_per_heron": 0, "pond_pushback_flat": 5}), "fr")
    assert "chaque adversaire recule de cinq cases, soit cinq cases quel que soit le nombre de Hérons." in flat


def test_a_changed_combination_bolds_its_row_only():
    v = Rules.build(overrides={"combinations": {"advance": [0, 0, 0, 1, 2, 5, 8, 9, 10]}})
    text = booklet_text(BASE, v, "fr")
    assert "| **6 identiques** | **+8 cases et régénérer son Guide** |" in text
    assert "| 5 identiques | +5 cases |" in text


def test_seat_rules_are_written_for_every_player_count():
    v = Rules.build(overrides={"seats": {"5": {"start_squares": [0, 0, 1, 1, 2]}}})
    text = booklet_text(BASE, v, "fr")
    lines = [x for x in text.splitlines() if "joueurs :" in x]
    assert len(lines) == 6  # 2 to 7 players
    assert lines[3] == ("- **À 5 joueurs : le troisième joueur part de la case 1 ; le quatrième joueur part de la "
                        "case 1 ; le cinquième joueur part de la case 2.**")
    assert lines[2] == "- À 4 joueurs : tous partent de la case 0, sans lancer en plus."


def _other_value(k):
    if k.kind == "bool":
        return not k.default
    if k.kind == "seats":
        return [0, 1, 1, 2]
    return k.default + 1 if k.hi is None or k.default + 1 <= k.hi else k.default - 1


@pytest.mark.parametrize("name", [k for k in KEYS if k not in ("players", "max_rounds")])
def test_every_rule_change_reaches_the_booklet_in_words_never_as_a_key(name):
    k = KEYS[name]
    v = Rules.build(overrides={name: _other_value(k)})
    for lang in ("fr", "en"):
        text = booklet_text(BASE, v, lang)
        assert "**" in text, (name, lang)
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), (name, lang, text)


def test_words_and_errors():
    assert [words(n, "fr") for n in (1, 3, 10, 12)] == ["un", "trois", "dix", "12"]
    assert cases(1, "fr") == "une case" and cases(4, "en") == "four squares"
    with pytest.raises(HeronSimError, match="lang"):
        booklet_blocks(BASE, BASE, "de")


def test_a_rule_for_one_guides_holder_is_written_where_the_rule_is():
    v = Rules.build(overrides={"guide": {"heron": {"anxiety_threshold": 4}}})
    text = booklet_text(BASE, v, "fr")
    assert "## 02 — L’Angoisse du Héron" in text
    assert "**Exception pour le joueur qui a le Guide Héron : dès qu'il cumule 4 Hérons ou plus" in text


def test_the_english_text_keeps_the_games_own_words():
    en = booklet_text(BASE, Rules.build(overrides={"anxiety_threshold": 4, "pond_pushback_max": 6}), "en")
    assert "## 02 — The Angoisse du Héron" in en and "## 03 — The Étang Paisible" in en
    assert "Anxiety" not in en and "Peaceful Pond" not in en
