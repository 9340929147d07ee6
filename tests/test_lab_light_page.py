"""A lighter game's study judged against its page's own targets, sized to decide, and its booklet
text in the game's words (issue 58 item 7)."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from heron_sim.lab.light import Games, parse_light_spec
from heron_sim.lab.light_page import judge, page_check, page_words

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
GAMES = ("rampage", "fire-mountain", "mekong-dragons", "akeruption")

SPEC = """
game = "rampage"
name = "page"
players = [2, 4]
seatings = ["greedy"]
seed = 3
[[param]]
key = "end_buildings"
choices = [0, 1]
[[objective]]
metric = "length"
at_least = 3.0
"""


def _spec(text=SPEC):
    return parse_light_spec(tomllib.loads(text), Path("tune-page.toml"))


def _games(p_first: float, length: float, P: int, n: int, seed: int) -> Games:
    """n games at P players: seat 1 wins with probability p_first, the others share the rest;
    every game lasts ``length`` rounds (± 1), all finished."""
    rng = np.random.default_rng(seed)
    first = rng.random(n) < p_first
    other = rng.integers(1, P, n)
    S = np.zeros((n, P))
    S[first, 0] = 1.0
    S[~first, other[~first]] = 1.0
    return Games(S, np.ones(n, bool), length + rng.uniform(-1, 1, n))


def _weights(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).poisson(1.0, (n, 400)).astype(float)


# ---------------------------------------------------------------- one figure against its target
def test_a_figure_meets_misses_or_is_not_settled_with_the_games_that_would_settle_it():
    assert judge(8.0, 7.5, 8.5, (6, 15), 1000) == ("meets", None)
    assert judge(5.85, 5.82, 5.87, (6, 15), 3000) == ("misses", None)  # Rampage's 4 wreckers, every building
    assert judge(0.30, 0.28, 0.32, (0.23, 0.27), 3000) == ("misses", None)
    state, need = judge(0.285, 0.265, 0.305, (0.23, 0.27), 3000)
    # the estimate 1.5 points past the edge, the interval's half-width 2.0: (2.0 / 1.5)² × 3,000
    assert state == "not settled" and need == pytest.approx(3000 * (0.02 / 0.015) ** 2, abs=1)
    state, need = judge(0.26, 0.245, 0.275, (0.23, 0.27), 1000)  # inside, crossing the upper edge
    assert state == "not settled" and need == pytest.approx(1000 * (0.015 / 0.01) ** 2, abs=1)


def test_every_table_is_judged_against_the_pages_targets_with_its_interval():
    spec = _spec()
    n = 3000
    # 2 players: seat 1 wins 50 % in 10 rounds (fair, long enough); 4 players: seat 1 wins 33 %
    # in 5.8 rounds (seat 1 too strong, too short: Rampage's L1 with four wreckers)
    gs = [_games(0.50, 10.0, 2, n, 1), _games(0.33, 5.8, 4, n, 2)]
    page = page_check(spec, gs, [_weights(n, 5), _weights(n, 6)], n)
    assert page["section"] == "[game.rampage]" and page["length"] == {"2": [6, 15], "4": [6, 15]}
    assert page["tables"]["greedy-4"] == "misses" and not page["meets"]
    by = {(c["table"], c["target"], c["seat"]): c for c in page["checks"]}
    c = by[("greedy-4", "length", None)]
    assert c["state"] == "misses" and c["low"] <= 5.8 <= c["high"] and c["high"] < 6
    c = by[("greedy-4", "seat", 1)]
    se = (0.33 * 0.67 / n) ** 0.5
    assert c["state"] == "misses" and abs(c["value"] - 0.33) < 4 * se and c["low"] > 0.27
    assert c["high"] - c["low"] == pytest.approx(2 * 1.96 * se, rel=0.2)
    assert by[("greedy-2", "length", None)]["state"] == "meets"
    assert by[("greedy-2", "unfinished", None)]["state"] == "meets"
    assert page["tables"]["greedy-2"] in ("meets", "not settled")  # 50 % ± 1.8 against ± 2: near the edge
    assert page["counts_not_played"] == [3]
    text = page_words(page, "en")
    assert "misses them at one table (greedy-4: length 5." in text and "seat 1 33." in text
    assert "The study does not play 3 players" in text
    fr = page_words(page, "fr")
    assert "la proposition les manque à une table (4 joueurs gourmands : durée 5," in fr
    assert "greedy" not in fr and "joueur 1 33," in fr


def test_a_fair_long_enough_table_meets_the_targets():
    spec = _spec(SPEC.replace("players = [2, 4]", "players = 2"))
    n = 20000
    page = page_check(spec, [_games(0.50, 10.0, 2, n, 7)], [_weights(n, 8)], n)
    assert page["meets"] and page["tables"] == {"greedy-2": "meets"}
    assert page_words(page, "en").endswith("it meets them everywhere. The study does not play 3, 4 players, "
                                            "which the page also judges.")


# ---------------------------------------------------------------- the answer: a fix only if the page agrees
def _summary(answer_meets: bool, page_meets: bool, better: bool = True) -> dict:
    s = json.loads((RESULTS / "tune-rampage" / "summary.json").read_text(encoding="utf-8"))
    s = copy.deepcopy(s)
    first = s["finalists"][0]
    first["meets"] = answer_meets
    first["page"]["meets"] = page_meets
    if page_meets:
        first["page"]["tables"] = {t: "meets" for t in first["page"]["tables"]}
        for c in first["page"]["checks"]:
            c["state"] = "meets"
    if not better:
        for e in s["finalists"]:
            for o in e["objectives"]:
                o["verdict"] = "no clear difference"
                o["games_to_tell"] = 12345
    return s


@pytest.mark.parametrize("meets, page_meets, better, answer", [
    (True, True, True, "fix"),
    (True, False, True, "study goals only"),
    (False, False, False, "none shown better"),
    (False, False, True, "no fix"),
])
def test_an_answer_that_misses_the_pages_targets_is_not_called_a_fix(tmp_path, meets, page_meets, better, answer):
    from heron_sim.lab.light_outputs import light_answers
    from heron_sim.report.game_change import what_to_change

    folder = tmp_path / "tune-rampage"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps(_summary(meets, page_meets, better)), encoding="utf-8")
    a = light_answers(tmp_path)["rampage"][0]
    assert a["answer"] == answer
    en, fr = (what_to_change("rampage", tmp_path, lang) for lang in ("en", "fr"))
    if answer == "study goals only":
        assert "not a fix" in en and "misses them at" in en and "meets every goal" not in en
        assert "pas une correction" in fr and "la proposition les manque à" in fr
    if answer == "none shown better":
        assert "keep them" not in en and "does not show them fine" in en and "12,345 games a table" in en
        assert "the rulings miss them at" in en
        assert "gardez-les" not in fr and "12\u202f345 parties par table" in fr
    if answer == "fix":
        assert "finds a change of one rule that meets every goal" in en


# ---------------------------------------------------------------- the shipped studies
@pytest.mark.parametrize("game", GAMES)
def test_each_shipped_study_judges_its_answer_and_the_rulings_against_the_page(game):
    s = json.loads((RESULTS / f"tune-{game}" / "summary.json").read_text(encoding="utf-8"))
    tables = [t["name"] for t in s["panel"]]
    assert list(s["base_evidence"]["page"]["tables"]) == tables
    first = s["finalists"][0]
    assert list(first["page"]["tables"]) == tables
    assert "keep the rulings" not in s["finding"]
    assert "Against the game page's own targets" in s["finding"]
    # every figure holds its interval and its state agrees with it
    for c in first["page"]["checks"] + s["base_evidence"]["page"]["checks"]:
        a, b = c["band"]
        inside, outside = a <= c["low"] and c["high"] <= b, c["high"] < a or c["low"] > b
        assert c["state"] == ("meets" if inside else "misses" if outside else "not settled"), c


def test_rampage_every_building_is_not_a_fix_of_its_page():
    s = json.loads((RESULTS / "tune-rampage" / "summary.json").read_text(encoding="utf-8"))
    first = s["finalists"][0]
    assert first["changes_table"] == {"end_buildings": 0} and first["meets"] and not first["page"]["meets"]
    by = {(c["table"], c["target"]): c for c in first["page"]["checks"] if c["target"] == "length"}
    assert by[("wrecker-4", "length")]["state"] == "misses" and by[("wrecker-4", "length")]["high"] < 6
    assert "is not a fix of the game's problems" in s["finding"]


def test_fire_mountain_says_it_found_no_fix_and_the_games_that_would_decide():
    s = json.loads((RESULTS / "tune-fire-mountain" / "summary.json").read_text(encoding="utf-8"))
    base = s["base_evidence"]["page"]
    seat = {c["table"]: c for c in base["checks"] if c["target"] == "seat" and c["seat"] == 1}
    assert seat["greedy-2"]["state"] == "misses" and seat["greedy-2"]["low"] > 0.52
    assert "the rulings miss them at" in s["finding"]


# ---------------------------------------------------------------- the booklet text
def _choices(game):
    spec = tomllib.loads((ROOT / "experiments" / f"tune-{game}.toml").read_text(encoding="utf-8"))
    return [(p["key"], p["choices"]) for p in spec["param"]]


@pytest.mark.parametrize("game", GAMES)
def test_every_value_a_shipped_study_tries_has_its_booklet_sentence(game):
    from heron_sim.games import get
    from heron_sim.lab.light_booklet import block_of, booklet_words, sentence

    g = get(game)
    for key, choices in _choices(game):
        assert key in booklet_words(g), (game, key)
        for lang in ("fr", "en"):
            texts = {sentence(g, key, v, lang) for v in choices}
            assert len(texts) == len(choices), (game, key, lang)  # each value its own sentence
            for t in texts:
                assert key.isalpha() or key not in t, t  # no key name (a plain word such as "end" may be one)
                assert "[" not in t and "{" not in t and "_" not in t, t
                assert t[0].isupper() and t.endswith("."), t
            assert block_of(g, key, lang) not in ("Autres règles", "Other rules")


def test_the_booklet_states_the_rule_today_and_with_the_change_and_the_sheet_links_it():
    folder = RESULTS / "tune-rampage"
    s = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    vid = s["finalists"][0]["id"]
    fr = (folder / f"booklet-{vid}.fr.md").read_text(encoding="utf-8")
    assert "Aujourd'hui : À l'instant où le dernier étage d'un bâtiment est capturé" in fr
    assert "Avec le changement : **À l'instant où le dernier étage du dernier bâtiment encore debout" in fr
    assert "autre lecture du même texte du livret" in fr and "end_buildings" not in fr and "\n- " not in fr
    en = (folder / f"booklet-{vid}.en.md").read_text(encoding="utf-8")
    assert "Today: The moment the last floor of a building is captured" in en
    assert f"(booklet-{vid}.fr.md)" in (folder / f"sheet-{vid}.fr.md").read_text(encoding="utf-8")
    assert f"(booklet-{vid}.en.md)" in (folder / f"sheet-{vid}.en.md").read_text(encoding="utf-8")


def test_a_booklet_sentence_naming_a_field_it_is_not_given_is_one_error(monkeypatch):
    """A sentence of a game's words.toml that names a field its value does not give is said, with the
    game, the key and the language, not silently replaced by the rule's generic meaning."""
    import pytest

    from heron_sim.errors import HeronSimError
    from heron_sim.lab import light_booklet

    monkeypatch.setattr(light_booklet, "booklet_words",
                        lambda game: {"end": {"fr": {"*": "Fin quand {nothing_like_this}."}}})
    with pytest.raises(HeronSimError, match=r"\[booklet\.end\] \(fr\).*nothing_like_this"):
        light_booklet.sentence("rampage", "end", "round", "fr")
