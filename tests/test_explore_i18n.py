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


def test_a_value_that_rounds_to_zero_has_no_minus_sign():
    from heron_sim.sections import signed_ci
    assert number(-0.001, 2, "fr") == "0,00" and number(-0.001, 2, "en") == "0.00"
    assert number(-0.001, 2, "fr", sign=True) == "+0,00" and number(-0.006, 2, "fr", sign=True) == "−0,01"
    assert interval(-0.001, -0.3, 0.2, 2, "en", sign=True) == "+0.00 [−0.30, +0.20]"
    assert signed_ci(-0.0004, -0.0204, 0.0196, 1, 100, " pts") == "+0.0 pts [-2.0, +2.0]"


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


# ---------------------------------------------------------------- the lab's page (item 6)
def _proposal():
    effects = [{"metric": "guide_spread", "base": 0.0587, "variant": 0.0651, "diff": 0.0064, "low": 0.0024, "high": 0.0105},
               {"metric": "dead_turn_rate", "base": 0.4257, "variant": 0.2225, "diff": -0.2031, "low": -0.2034, "high": -0.2028},
               {"metric": "guide_heron_win_rate", "base": 0.19, "variant": 0.185, "diff": -0.005, "low": -0.01, "high": -0.002}]
    obj = {"metric": "dead_turn_rate", "objective": "dead_turn_rate: no more than reference (excess minimised) (goal <= 0)",
           "loss": 0.0, "loss_low": 0.0, "loss_high": 0.0, "base_loss": 0.1889, "verdict": "better", "goal": 0.0,
           "goal_met_95": True, "scenarios": [{"scenario": "mix-4", "loss": 0.0}, {"scenario": "mix-2", "loss": 0.01}]}
    variant = {"id": "L13", "changes": {"anxiety_threshold": 4, "combinations.advance[2]": 1}, "n_changed": 2,
               "games": 120000, "objectives": [obj], "feasible": True, "rules_file": "results/tune-x/variants/x-1-L13.toml",
               "constraints": [{"constraint": "completion >= 0.995", "holds": True}], "effects": effects, "sheets": {}}
    for e in effects:
        e["label"] = e["metric"]  # the lab's own label (key-like): the page must not show it
    return {"study": "x", "title": "A study", "problem": "", "variants": [variant, {**variant, "id": "L14"}],
            "panel": [{"name": "mix-2", "description": "2 players: casual, expert (rotated)"}]}


def test_every_text_of_the_lab_page_has_a_french_entry():
    from heron_sim.report.lab_page import msgids as lab_msgids

    fr = catalogue("fr")
    assert [m for m in lab_msgids() if not fr.get(m, "").strip()] == []


def test_the_lab_page_in_the_games_words_with_true_counts():
    import re

    from heron_sim.report.lab_page import lab_page

    meta = {"git commit (report)": "abc1234", "games played (all)": "3,055,000"}
    fr = lab_page([_proposal()], meta, "fr")
    en = lab_page([_proposal()], meta, "en")
    assert '<html lang="fr">' in fr and "<title>Changements de règles proposés par le labo</title>" in fr
    assert '<html lang="en">' in en and "<title>Rule changes the lab proposes</title>" in en
    assert "lighter game" not in fr + en  # its own title, not a lighter game's
    for page, words in ((fr, "Tableaux et figures ({} tableaux, 0 figures)"), (en, "Tables and figures ({} tables, 0 figures)")):
        assert words.format(page.count("<table")) in page and page.count("<table") == 2  # the true count
        text = re.sub(r"<code>.*?</code>|<[^>]+>", " ", page)
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), re.findall(r"\b[a-z]+_[a-z_]+\b", text)  # no key id
    assert ("Dès qu&#x27;un joueur cumule 4 Hérons ou plus (hors Étang), son tour prend fin sans déplacement ; "
            "2 identiques : +1 case") in fr
    assert "The Angoisse du Héron = 4; Squares gained by the largest set (set of 2) = 1" in en
    assert "+0,64\u00a0pt [+0,24\u00a0pt\u00a0; +1,05\u00a0pt]" in fr and "+0.64\u00a0pt [+0.24\u00a0pt, +1.05\u00a0pt]" in en
    assert "tours morts" in fr and "pire table : 2 joueurs : joueur occasionnel, expert (en rotation)" in fr
    assert "Héron : victoires quand il est distribué" in fr
    assert 'href="lab-proposed-rule-changes.en.html"' in fr and 'href="lab-proposed-rule-changes.html"' in en
    # a study's own words: the catalogue's French when it has them, else marked as English
    assert '<h2 lang="en">A study</h2>' in fr and "<h2>A study</h2>" in en
    titled = {**_proposal(), "title": "7 D8 as long as 8 D8: mean length within 5 %\n of 8 D8 at every table"}
    assert "<h2>7 D8 aussi long que 8 D8 : une durée moyenne à 5 % près de 8 D8 à chaque table</h2>" in lab_page([titled], meta, "fr")


def test_the_report_writes_the_lab_page_in_both_languages_and_the_index_links_them(tmp_path):
    import json

    from heron_sim.report import proposals_section
    from heron_sim.report.render import write_report

    p = _proposal()
    v = p["variants"][0]
    summary = {"name": "x", "title": p["title"], "description": "", "objectives": [], "constraints": [],
               "finding": "anxiety_threshold = 4", "panel": p["panel"],
               "finalists": [{**v, "rule_changes": [{"key": k, "old": None, "new": x} for k, x in v["changes"].items()]}]}
    (tmp_path / "tune-x").mkdir()
    (tmp_path / "tune-x" / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    paths = write_report([proposals_section(tmp_path)], {"git commit (report)": "abc"}, tmp_path)
    assert [q.name for q in paths["games"]] == ["lab-proposed-rule-changes.html", "lab-proposed-rule-changes.en.html"]
    fr = (tmp_path / "lab-proposed-rule-changes.html").read_text(encoding="utf-8")
    assert "Tableaux et figures (1 tableaux, 0 figures)" in fr and "anxiety_threshold" not in fr
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'href="lab-proposed-rule-changes.html"' in index and 'href="lab-proposed-rule-changes.en.html"' in index


def test_the_rule_in_words_follows_the_value():
    from starlette.testclient import TestClient

    from heron_sim.explore.app import create_app

    app = create_app()
    try:
        c = TestClient(app)
        text = lambda q: c.get("/api/explain?" + q).json()["text"]  # noqa: E731
        assert text("key=anxiety_threshold&value=4&lang=fr").startswith("Dès qu'un joueur cumule 4 Hérons")
        assert text("key=exact_finish&value=true&lang=en").startswith("You must land exactly")
        assert text("key=start_squares&value=[0,1]&lang=fr") == "Départ : joueur 2 : case 1 (les autres : 0)."
        for bad in ("key=anxiety_threshold&value=0", "key=anxiety_threshold&value=%22x%22", "key=nope&value=1",
                    "key=exact_finish&value=1", "key=rolls&value={"):
            assert text(bad) == "", bad
    finally:
        app.state.engine.close()


def test_every_seat_player_is_named_in_both_languages():
    from heron_sim.explore.form import strategy_labels
    from heron_sim.simulation import user_strategies

    fr, en = strategy_labels("fr"), strategy_labels("en")
    assert set(fr) == set(en) == set(user_strategies())
    for name in user_strategies():
        assert fr[name] != name and fr[name] != en[name], name  # a French phrase of its own
    assert fr["novice"] == "joueur débutant (échelon 1)"


def test_the_lab_page_says_a_study_and_its_tables_in_french():
    """Issue 60 item 1: a study's own French (title_fr/description_fr of its summary, else the
    catalogue's entry keyed by the English), its tables in words, never « casual-4 »."""
    from heron_sim.glossary import check_page
    from heron_sim.report.lab_page import lab_page, tables_words

    meta = {"git commit (report)": "abc1234", "games played (all)": "3,055,000"}
    own = {**_proposal(), "title": "A study", "title_fr": "Une étude", "problem": "Seat 1 wins.",
           "problem_fr": "Le joueur 1 gagne.",
           "answer": {"answer": "no change needed", "tables": ["casual-4", "rungs-2"], "variant": None}}
    fr = lab_page([own], meta, "fr")
    assert "<h2>Une étude</h2>" in fr and '<p class="problem">Le joueur 1 gagne.</p>' in fr
    assert "Mesuré à 2 tables : 4 joueurs occasionnels et 2 joueurs de tous niveaux." in fr
    assert "<h2>A study</h2>" in lab_page([own], meta, "en")
    assert tables_words(["casual-4", "regular-4", "rungs-5"], "en") == "4 casual players, 4 regulars and 5 players of every level"
    assert (tables_words(["casual-4", "expert-4", "rungs-2", "rungs-3", "rungs-7"], "fr")
            == "4 joueurs occasionnels\u202f; 4 experts\u202f; 2, 3 et 7 joueurs de tous niveaux")
    assert check_page(fr.replace("A study", ""), "html") == [], [str(f) for f in check_page(fr, "html")]
