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


# ---------------------------------------------------------------- 2. the board view, stale and quick
def test_the_board_is_marked_stale_the_moment_a_rule_changes():
    html, js = _static("index.html"), _static("explore.js")
    assert 'id="board-stale" hidden>[[previous settings, recomputing…]]' in html
    changed = js[js.index("  function changed() {"):js.index("  function closeStream() {")]
    assert "boardStale();" in changed  # at once, before the new rules are even sent
    from heron_sim.i18n import gettext

    assert gettext("previous settings, recomputing…", "fr") == "ancien réglage, recalcul en cours…"


def _board_setup(**values):
    return parse_setup({"seats": ["greedy"] * 4, "values": values})


def test_a_change_of_the_variant_replays_only_the_variant_for_the_board(monkeypatch):
    from heron_sim.analysis import board as B
    from heron_sim.explore import board

    monkeypatch.setattr(board, "_CACHE", type(board._CACHE)())
    calls = []
    real = B.sample_board

    def counted(rules, *a, **k):
        calls.append(rules.digest())
        return real(rules, *a, **k)

    monkeypatch.setattr(B, "sample_board", counted)
    first = board.board_view(_board_setup(anxiety_threshold=4), "en", 6, 20)
    assert len(calls) == 2  # the base and the variant
    second = board.board_view(_board_setup(anxiety_threshold=5), "en", 6, 20)
    assert len(calls) == 3 and calls[-1] != calls[0]  # the base's replayed games read back
    assert first["streaks"]["base"] == second["streaks"]["base"]
    assert board.board_view(_board_setup(anxiety_threshold=5), "en", 6, 20)["html"] == second["html"] and len(calls) == 3


def test_the_first_board_view_comes_on_fewer_games_then_the_refined_one(monkeypatch):
    from heron_sim.explore import board

    monkeypatch.setattr(board, "_CACHE", type(board._CACHE)())
    monkeypatch.setattr(board, "QUICK_BOARD_GAMES", 5)
    monkeypatch.setattr(board, "QUICK_SQUARE_GAMES", 20)
    monkeypatch.setattr(board, "BOARD_GAMES", 12)
    monkeypatch.setattr(board, "SQUARE_GAMES", 40)
    s = _board_setup(anxiety_threshold=4)
    quick = board.board_view(s, "fr", quick=True)
    assert (quick["games"], quick["square_games"], quick["final"]) == (5, 20, False)
    full = board.board_view(s, "fr")
    assert (full["games"], full["square_games"], full["final"]) == (12, 40, True)
    again = board.board_view(s, "fr", quick=True)  # the refined view kept: shown at once, nothing to refine
    assert again["final"] and again["html"] == full["html"]


def test_the_board_route_takes_quick_and_refuses_a_bad_one():
    from starlette.testclient import TestClient

    from heron_sim.explore import board
    from heron_sim.explore.app import create_app
    from heron_sim.explore.live import Engine

    app = create_app(Engine(warm=False))
    with TestClient(app) as c:
        doc = {"tab": "t", "seats": ["greedy"] * 4, "values": {"anxiety_threshold": 4}, "lang": "en"}
        r = c.post("/api/board", json={**doc, "quick": "yes"})
        assert r.status_code == 422 and "quick" in r.json()["errors"]["extra"]
        r = c.post("/api/board", json={**doc, "quick": True})
        assert r.status_code == 200 and r.json()["games"] <= board.QUICK_BOARD_GAMES or r.json()["final"]
    app.state.engine.close()


# ---------------------------------------------------------------- 3. proposals by their headline
def test_the_labs_proposals_are_listed_by_their_headline_not_their_file_name(tmp_path):
    import json

    from starlette.testclient import TestClient

    from heron_sim.explore.app import create_app
    from heron_sim.explore.live import Engine

    study = tmp_path / "tune-guides"
    (study / "variants").mkdir(parents=True)
    (study / "summary.json").write_text(json.dumps({"name": "guides", "title": "Fair guides at every table"}))
    (study / "variants" / "guides-1-L35.toml").write_text(
        'mode = "8d8"\nplayers = 4\n\n[guide]\nheron = { anxiety_threshold = 4 }\n')
    app = create_app(Engine(warm=False), results_root=tmp_path)
    try:
        with TestClient(app) as c:
            d = c.get("/api/proposals?lang=fr").json()
            assert d["proposals"] == ["tune-guides/guides-1-L35"]  # the name /api/load takes, unchanged
            (h,) = d["headlines"]
            assert h["name"] == "tune-guides/guides-1-L35" and h["study_title"] == "Fair guides at every table"
            assert h["headline"].startswith("Exception pour le joueur qui a le Guide Héron : dès qu'il cumule 4 Hérons")
            assert "L35" not in h["headline"] and "guide." not in h["headline"] and "=" not in h["headline"]
            en = c.get("/api/proposals?lang=en").json()["headlines"][0]["headline"]
            assert en.startswith("For the player holding the Heron guide")
    finally:
        app.state.engine.close()
    js = _static("explore.js")
    assert "p.headline" in js and "p.study_title" in js


# ---------------------------------------------------------------- 4. rules by guide and by count, in words
def test_rules_by_guide_and_by_player_count_are_said_in_words():
    from starlette.testclient import TestClient

    from heron_sim.explore.app import create_app
    from heron_sim.explore.live import Engine

    extra = "[guide.heron]\nanxiety_threshold = 4\n\n[seats.5]\nstart_squares = [0, 1, 1, 2, 2]\n"
    app = create_app(Engine(warm=False))
    try:
        with TestClient(app) as c:
            r = c.post("/api/run", json={"tab": "words", "players": 5, "seats": ["greedy"] * 5, "games": 20_000,
                                         "lang": "fr", "values": {"extra": extra}})
            assert r.status_code == 200, r.text
            c.post("/api/cancel", json={"tab": "words"})
            words = {w["key"]: w for w in r.json()["rule_words"]}
    finally:
        app.state.engine.close()
    assert set(words) == {"guide.heron.anxiety_threshold", "seats.5.start_squares"}
    heron, seats = words["guide.heron.anxiety_threshold"], words["seats.5.start_squares"]
    assert heron["title"] == "L'Angoisse du Héron (Guide Héron)"
    assert heron["sentence"].startswith("Exception pour le joueur qui a le Guide Héron : dès qu'il cumule 4 Hérons")
    assert seats["title"] == "Cases de départ (à 5 joueurs)" and seats["sentence"].startswith("À 5 joueurs : Départ")
    for w in words.values():
        assert not any(bit in w["title"] + w["sentence"] for bit in ("guide.", "seats.", "[", " = ", "_"))
    js, html = _static("explore.js"), _static("index.html")
    assert 'id="rule-words"' in html and "renderRuleWords(res.data.rule_words)" in js
