"""The explorer in French and English (issue 33): the catalogue (heron_sim/locale/fr.po) has a
French entry for every text of the explorer a person reads, the numbers are written the French
way, the page opens in the browser's language, and the form speaks the booklet's words."""

import pytest

from heron_sim.explore.form import FORM_GROUPS, schema
from heron_sim.explore.messages import msgids
from heron_sim.i18n import catalogue, interval, number, parse_po, pick
from heron_sim.rules.keys import GROUPS, KEYS


def test_every_text_of_the_explorer_has_a_french_entry():
    ids = msgids()
    assert len(ids) > 100  # the page, the script, the form and the figures
    fr = catalogue("fr")
    missing = [m for m in ids if not fr.get(m, "").strip()]
    assert missing == [], f"no French entry in heron_sim/locale/fr.po for: {missing}"
    # the check can fail: a text the script would draw without an entry is named
    assert "an explorer text nobody translated" not in fr


def test_the_catalogue_reader_reads_what_msgfmt_reads():
    po = ('msgid ""\nmsgstr "Language: fr\\n"\n\n'
          '# a comment\nmsgid "two "\n"lines"\nmsgstr "deux "\n"lignes \\"citées\\""\n\n'
          '#, fuzzy\nmsgid "doubtful"\nmsgstr "douteux"\n\nmsgid "empty"\nmsgstr ""\n')
    assert parse_po(po) == {"two lines": 'deux lignes "citées"'}
    with pytest.raises(ValueError, match="line 2"):
        parse_po('msgid "a"\nmsgstr b\n')


def test_numbers_the_french_way():
    assert interval(25.84, 25.51, 26.13, 1, "fr", suffix=" %") == "25,8\u00a0% [25,5 ; 26,1]"
    assert interval(25.84, 25.51, 26.13, 1, "en", suffix=" %") == "25.8\u00a0% [25.5, 26.1]"
    assert number(26.3, 1, "fr") == "26,3" and number(100000, 0, "fr") == "100\u202f000"
    assert number(-0.5, 2, "fr", sign=True) == "−0,50" and number(0.5, 2, "en", sign=True) == "+0.50"


@pytest.mark.parametrize("query, header, lang", [
    ("en", "fr-FR,fr", "en"), ("fr", "en-US", "fr"),           # ?lang= chooses
    (None, "en-GB,en;q=0.9", "en"), (None, "fr-CA", "fr"),
    (None, "de-DE,en;q=0.5,fr;q=0.8", "fr"),                   # by weight
    (None, "de-DE", "fr"), (None, None, "fr"), ("xx", "en", "en"),
])
def test_the_page_opens_in_the_browsers_language(query, header, lang):
    assert pick(query, header) == lang


def test_the_form_speaks_the_booklet_in_its_groups():
    for lang in ("fr", "en"):
        sch = schema("8d8", 4, lang)
        ids = [g["id"] for g in sch["groups"]]
        assert ids == [g for g in FORM_GROUPS if g in ids]  # the booklet's order
        fields = {f["key"]: f for g in sch["groups"] for f in g["fields"]}
        for key, k in KEYS.items():
            if key == "players":
                continue
            f = fields[key]
            assert f["group_id"] == k.group
            assert f["label"] and "_" not in f["label"] and f["explain"], key
        assert all(f["label"] and "_" not in f["label"] for f in fields.values())
    fr = {f["key"]: f for g in schema("8d8", 4, "fr")["groups"] for f in g["fields"]}
    en = {f["key"]: f for g in schema("8d8", 4, "en")["groups"] for f in g["fields"]}
    assert fr["anxiety_threshold"]["label"] == "L'Angoisse du Héron"
    assert fr["anxiety_threshold"]["explain"].startswith("Dès qu'un joueur cumule 3 Hérons")
    assert fr["anxiety_threshold"]["allowed"] == "de 1 à 99" and en["anxiety_threshold"]["allowed"] == "1 to 99"
    # the game's words stay the game's in English
    assert en["anxiety_threshold"]["label"] == "The Angoisse du Héron"
    assert en["pond_threshold"]["label"] == "The Étang Paisible"
    assert en["guide_power_doubling"]["label"] == "Puissance du Guide"
    assert fr["combinations.advance"]["labels"][3] == "série de 3"
    assert fr["combinations.effect"]["choice_labels"]["regenerate"] == "régénérer son Guide"
    assert fr["board.squares"]["choice_labels"]["loup"] == "Loup"
    assert [g["title"] for g in schema("8d8", 4, "fr")["groups"]][:3] == [t[1] for t in GROUPS[:3]]
