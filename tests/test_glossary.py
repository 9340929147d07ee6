"""The pages' one vocabulary (issue 60 item 1): heron_sim.glossary's checker, run over the texts
the code writes (direct calls on small fixtures, so it runs without ``make report``) and over
every French page of the committed ``results/``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from heron_sim.glossary import TERMS, check_fr, check_page, french_pages, table_ids_in_words, table_words

RESULTS = Path(__file__).resolve().parent.parent / "results"


def _rules(table: dict):
    from heron_sim.rules import Rules

    return Rules.from_table({"mode": "8d8", "players": 4, **table})


# ---------------------------------------------------------------- the checker itself
@pytest.mark.parametrize("text, rule", [
    ("Aucun changement de cet espace ne réussit", "refused"),
    ("Le premier joueur gagne +0,8 points de plus que sa part équitable", "de_plus"),
    ("Le premier joueur gagne +0,8 points de plus que sa part équitable", "singular"),
    ("Dans les parties avec un Étang, son lanceur gagne 26,7 %", "refused"),
    ("Un tour glouton à 8 D8 finit dans l'Angoisse 32 % du temps", "refused"),
    ("3 joueurs +1,0 point (Holm p = 0,000 : réel)", "p_zero"),
    ("Cases de départ = [0, 0, 1, 1]", "list"),
    ("Recul de l'Étang : fixe = 2", "key_value"),
    ("la place 1 à 7 tables (de +0,7 à +1,2 point)", "refused"),
    ("Les parties durent 26,3 manches", "refused"),
    ("tours blancs (tours qui ne font avancer personne)", "refused"),
    ("Objectif : retours (le dernier à mi-partie gagne)", "refused"),
    ("les lectures de la graine", "refused"),
    ("160 000 parties par table sur des graines neuves", "refused"),
    ("| casual-4 | 14,40 % |", "table_id"),
    ("Comebacks kept: the player last at mid-game wins", "english"),
    ("## Conclusion de l'étude (en anglais)", "english"),
])
def test_the_checker_finds_each_phrase_of_the_issue(text, rule):
    assert rule in {f.rule for f in check_fr(text)}, text


def test_statistics_jargon_is_refused_in_a_headline_only():
    head = "Chez les joueurs experts, le Guide Serpent est fort (Holm sur les 7 Guides)"
    assert [f.rule for f in check_fr(head, headline=True)] == ["jargon"]
    assert check_fr("Test binomial exact, corrigé pour 7 comparaisons.") == []
    assert [f.rule for f in check_fr("moyenne [IC à 95 %]", headline=True)] == ["jargon"]
    assert check_fr("moyenne [intervalle à 95 %]", headline=True) == []
    page = "# Le Guide Serpent est fort (Holm sur les 7 Guides)\n\nUne note : corrigé pour 7 comparaisons.\n"
    assert [f.rule for f in check_page(page, "md")] == ["jargon"]


@pytest.mark.parametrize("text", [
    "Les parties durent 26,3 tours de table (environ 70 minutes).",
    "Le premier joueur gagne 0,8 point de plus que sa part équitable.",
    "Le joueur 1 gagne 25,8 % [25,5 ; 26,1], n = 28 535 parties, à 4 joueurs occasionnels.",
    "Un tour de référence finit dans l'Angoisse 32 % du temps ; 2 tours morts sur 5 ; 1 000 parties.",
    "Le joueur qui déclenche l'Étang gagne 26,7 % ; les remontées sont rares.",
    "Voir experiments/targets.toml, [game.rampage] et `casual-4`.",
    "Avec le changement en place (en gras), les autres blocs ne changent pas.",
    "Par nombre de joueurs : 2 joueurs +0,6 point (p corrigé = 0,036 : réel, peut-être important).",
])
def test_good_french_passes(text):
    assert check_fr(text) == [], [str(f) for f in check_fr(text)]


def test_each_thing_has_one_french_and_one_english_word():
    keys = [t.key for t in TERMS]
    assert len(keys) == len(set(keys))
    for t in TERMS:
        assert t.fr and t.en
        for pat, why in t.refused:  # a refused word is never the glossary's own word
            assert not re.fullmatch(pat, t.fr.split(" (")[0], re.I), (t.key, pat)


def test_table_ids_in_words():
    assert table_words("casual-4") == "4 joueurs occasionnels"
    assert table_words("greedy-2") == "2 robots gourmands"
    assert table_words("rungs-5", "en") == "5 players of every level"
    assert table_ids_in_words("| casual-4 | rungs-2 |") == "| 4 joueurs occasionnels | 2 joueurs de tous niveaux |"
    assert check_fr(table_ids_in_words("casual-4, regular-4, expert-4, rungs-7")) == []


# ---------------------------------------------------------------- the texts the code writes
def test_every_french_entry_of_the_catalogue_passes():
    from heron_sim.i18n import catalogue

    bad = []
    for en, fr in catalogue("fr").items():
        if "TOML" in en:  # an example of a rules file is code
            continue
        text = re.sub(r"\{\w*\}", "X", fr)
        found = [f for f in check_fr(text) if f.rule != "english" or not re.search(r"\b" + re.escape(f.found) + r"\b", en) is None]
        bad += [f"{f}  [{fr[:80]}]" for f in found]
    assert not bad, f"{len(bad)} findings, e.g.\n" + "\n".join(bad[:40])


def test_every_rule_phrase_is_a_french_sentence():
    from heron_sim.lab.phrases import phrase

    cases = [("start_squares", [0, 0, 1, 1]), ("first_turn_extra_rolls", [0, 1, 1, 1]),
             ("seats.3.start_squares", [0, 1, 1]), ("pond_pushback_flat", 2), ("pond_pushback_max", 6),
             ("guide.heron.rolls", 4), ("guide.heron.anxiety_threshold", 4), ("consolation_anxiety", 1),
             ("consolation_no_set", 1), ("anxiety_threshold", 4), ("rolls", 4), ("board.square.35", "aigle")]
    bad = []
    for key, value in cases:
        for text in phrase(key, value, "fr"):
            bad += [f"{key}: {f}" for f in check_fr(text)]
    assert not bad, "\n".join(bad)


def test_the_guide_holders_rule_states_the_normal_rule_and_the_exception():
    from heron_sim.lab.phrases import phrase

    _, text = phrase("guide.heron.rolls", 4, "fr")
    assert "Pour le joueur qui a le Guide Héron, il lance" not in text
    assert "4" in text or "quatre" in text


def _cells(sheet: str, title: str) -> tuple[str, str]:
    """(as it stands, proposed) of the row ``title`` of a rule sheet's table."""
    row = next(ln for ln in sheet.splitlines() if ln.startswith(f"| {title} |"))
    return tuple(c.strip() for c in row.strip("|").split("|")[1:3])


def test_today_states_the_rule_of_every_player_and_the_change_adds_the_holders_exception():
    """Issue 60 item 1: a sheet's « Aujourd'hui » column states the rule as it is, with no
    exception the rulings do not have (not « Exception pour le joueur qui a le Guide Héron : il
    lance jusqu'à 3 fois »); the proposed column states the normal rule, then the exception; and
    the other way round when a change removes the holder's own rule. So do the rulebook's table and
    the booklet text (the normal limit of rolls, which the seed leaves unsaid, written before the
    exception)."""
    from heron_sim.lab.booklet import booklet_text
    from heron_sim.lab.combine_text import _rule_row
    from heron_sim.lab.sheets import rule_sheet

    base, held = _rules({}), _rules({"guide": {"heron": {"rolls": 4}}})
    every = {"fr": "Chaque joueur lance jusqu'à 3 fois par tour.", "en": "Each player rolls up to 3 times per turn."}
    holder = {"fr": "Exception pour le joueur qui a le Guide Héron : il lance jusqu'à 4 fois par tour.",
              "en": "For the player holding the Heron guide, they roll up to 4 times per turn."}
    title = {"fr": "Lancers par tour (Guide Héron)", "en": "Rolls per turn (Heron guide)"}
    for lang in ("fr", "en"):
        today, proposed = _cells(rule_sheet(base, held, None, lang), title[lang])
        assert (today, proposed) == (every[lang], f"{every[lang]} {holder[lang]}")
        assert _cells(rule_sheet(held, base, None, lang), title[lang]) == (f"{every[lang]} {holder[lang]}", every[lang])
        change = {"key": "guide.heron.rolls", "old": None, "new": 4}
        assert _rule_row(change, base, held, lang) == (title[lang], every[lang], f"{every[lang]} {holder[lang]}")
    book = booklet_text(base, held, "fr")
    assert book.index("Chaque joueur lance ses dés jusqu'à trois fois par tour.\n") < book.index(f"**{holder['fr']}**")
    assert "**Chaque joueur lance" not in book  # the normal rule is unchanged: not in bold


def test_a_rule_sheet_and_a_booklet_text_pass():
    from heron_sim.lab.booklet import booklet_text
    from heron_sim.lab.sheets import rule_sheet

    base = _rules({})
    for table in ({"start_squares": [0, 0, 1, 1], "first_turn_extra_rolls": [0, 1, 1, 1],
                   "seats": {"3": {"start_squares": [0, 1, 1]}}},
                  {"pond_pushback_flat": 2, "consolation_anxiety": 1},
                  {"guide": {"heron": {"rolls": 4}}}):
        variant = _rules(table)
        evidence = {"games": 160000, "objectives": [
            {"metric": "comeback", "objective": "comeback no less than target", "goal": 0.0, "goal_met_95": True,
             "scenarios": [{"scenario": "casual-4", "value": 0.19, "low": 0.188, "high": 0.192, "base": 0.144,
                            "distance": 0.065, "target": 0.125}]}],
            "effects_by_scenario": {"rungs-2": [
                {"metric": "length", "base": 29.3, "variant": 21.8, "diff": -7.5, "low": -7.6, "high": -7.4},
                {"metric": "dead_turn_rate", "base": 0.327, "variant": 0.41, "diff": 0.082, "low": 0.081,
                 "high": 0.083}]}}
        texts = {"sheet": rule_sheet(base, variant, evidence, "fr", name="t2"),
                 "booklet": booklet_text(base, variant, "fr", "t2")}
        for what, text in texts.items():
            bad = check_page(text, "md")
            assert not bad, f"{what} of {table}:\n" + "\n".join(map(str, bad))


def test_the_lab_pages_changes_are_sentences():
    from heron_sim.report.lab_page import changes_words

    text = changes_words({"start_squares": [0, 0, 1, 1], "pond_pushback_flat": 2, "guide.heron.rolls": 4,
                          "board.square.35": "aigle"}, "fr")
    assert check_fr(text) == [], [str(f) for f in check_fr(text)]


# ---------------------------------------------------------------- the committed results
@pytest.mark.parametrize("page", [p.relative_to(RESULTS).as_posix() for p in french_pages(RESULTS)] or ["none"])
def test_every_committed_french_page_passes(page):
    if page == "none":
        pytest.skip("no results/")
    from heron_sim.report.executive import GLOSSARY

    p = RESULTS / page
    found = check_page(p.read_text(encoding="utf-8"), "html" if p.suffix == ".html" else "md",
                       english_names=[en for _, en, _ in GLOSSARY])
    assert not found, f"{len(found)} findings, e.g.\n" + "\n".join(map(str, found[:30]))


# ---------------------------------------------------------------- French agreement (issue 60 item 1)
@pytest.mark.parametrize("text, expected", [
    ("0 tours", "0 tour"), ("+0,8 points", "+0,8 point"), ("de +0,7 à +1,2 points", "de +0,7 à +1,2 point"),
    ("0,5 tours morts", "0,5 tour mort"), ("1,5 cases par coup", "1,5 case par coup"), ("−0,9 points", "−0,9 point"),
    ("1 000 parties", "1 000 parties"), ("2,5 points", "2,5 points"), ("12 tours", "12 tours"),
])
def test_a_number_below_two_takes_the_singular(text, expected):
    from heron_sim.i18n import counted, typography

    assert counted(text) == expected and counted(text, "en") == text
    assert check_fr(typography(f"Il gagne {text}.", "fr")) == []


def test_a_catalogue_sentence_agrees_with_its_figures():
    from heron_sim.i18n import catalogue, phrase

    assert "Héron {0} points [{1} ; {2}], n = {3} parties appariées" in catalogue("fr")[
        "Héron {0} points [{1}, {2}], n = {3} paired games where dealt"]
    got = phrase("Héron +0.4 points [-0.2, +1.0], n = 28,529 paired games where dealt", "fr")
    assert got.startswith("Héron +0,4 point [−0,2\u202f; +1,0], n = 28\u202f529 parties"), got


@pytest.mark.parametrize("text, expected", [
    ("(Holm p = 0,03 : réel)", "(p corrigé = 0,03\u00a0: réel)"), ("(Holm p = 0,000)", "(p corrigé < 0,001)"),
    ("3 joueurs +1,0 point (p corrigé = 0,000)", "3 joueurs +1,0 point (p corrigé < 0,001)"),
    ("(p = 0,000)", "(p < 0,001)"), ("p = 0,0005", "p = 0,0005"),
])
def test_a_p_value_reads_as_a_designer_reads_it(text, expected):
    from heron_sim.i18n import typography

    assert typography(text, "fr") == expected and check_fr(expected) == []


def test_the_annex_glossarys_english_column_is_left_out_whole():
    """A longer English name holding a shorter one (« regenerate / swap your guide », « guide »)
    is left out whole, whichever order the glossary lists them in."""
    line = "| régénérer / échanger son Guide | regenerate / swap your guide | effets des séries de 6 |\n"
    assert check_page(line, "md", english_names=["guide", "regenerate / swap your guide"]) == []
