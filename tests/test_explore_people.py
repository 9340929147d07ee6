"""The explorer on people (issue 60 item 3): the page opens on a table of people (the lab's
regulars), every player of the skill ladder is offered by its name in the page's language before
the bots, the board view is marked stale the moment a rule changes, the lab's proposals are listed
by their headline, rules by guide and by player count are read as words, and the board view comes
quickly. Fast: no games are played here but a few replayed for the board."""

from importlib import resources

import pytest

from heron_sim.explore.form import default_seats, parse_setup, schema


def _static(name: str) -> str:
    return resources.files("heron_sim.explore").joinpath("static", name).read_text(encoding="utf-8")


# ---------------------------------------------------------------- 1. the page opens on people
def test_the_page_opens_on_people_not_bots():
    sc = schema("8d8", 4, "fr")["scenario"]
    assert sc["seats"] == ["regular"] * 4 == default_seats(4)
    assert not set(sc["seats"]) & {"greedy", "prudent", "racer", "random"}
    tables = {t["id"]: t for t in sc["tables"]}
    assert sc["default_table"] == "regular-4" and tables["regular-4"]["label"] == "4 habitués"
    assert tables["regular-4"]["seats"] == sc["seats"] and tables["regular-4"]["group"] == "panel"
    # a family table in words, and the bots kept below the people
    assert tables["family-4"]["label"] == "1 expert et 3 débutants" and tables["family-4"]["group"] == "mixed"
    assert [t["group"] for t in sc["tables"]][-1] == "bots" and tables["mix-4"]["seats"] == ["greedy", "prudent", "expert", "racer"]
    # a request without seats plays people too
    assert parse_setup({"players": 3}).seats == ["regular"] * 3


@pytest.mark.parametrize("lang, names", [
    ("fr", {"novice": "débutant", "casual": "joueur occasionnel", "regular": "habitué", "reckless": "débutant téméraire",
            "expert": "expert"}),
    ("en", {"novice": "novice", "casual": "casual player", "regular": "regular", "reckless": "bold beginner",
            "expert": "expert"}),
])
def test_every_rung_of_the_ladder_is_offered_by_its_name_before_the_bots(lang, names):
    sc = schema("8d8", 4, lang)["scenario"]
    assert sc["people"] == ["novice", "casual", "regular", "reckless", "expert"]
    assert {n: sc["player_names"][n] for n in names} == names
    assert {"greedy", "prudent", "racer"} <= set(sc["bots"]) and not set(sc["bots"]) & set(sc["people"])
    assert all(sc["player_names"][b] != b or lang == "en" for b in sc["bots"])


def test_the_page_draws_a_table_choice_and_a_player_choice_per_seat():
    html, js = _static("index.html"), _static("explore.js")
    assert 'id="table"' in html
    assert '"seat-pick-" + s' in js and "player_names" in js and "pickTable" in js
