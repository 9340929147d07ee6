"""The board view and the dead-turn streaks (issue 33, items 4 and 5): streaks on scripted
sequences, landings that add up, a replay that is the engine's own game, the SVG's 63 squares
and its special squares, each special square's paired effect."""

import re

import numpy as np
import pytest

from heron_sim.analysis import board as B
from heron_sim.analysis.deadturns import dead_per_game
from heron_sim.engine import layout as L
from heron_sim.rules import Rules

GREEDY = [["greedy"] * 4]


def test_longest_run_and_streaks_on_a_scripted_sequence():
    assert B.longest_run([]) == 0
    assert B.longest_run([0, 1, 1, 0, 1, 1, 1, 0, 1]) == 3
    assert B.longest_run([1, 1, 1, 1]) == 4
    # two seats alternating: seat 0 dead on its turns 2, 3, 4; seat 1 on its turns 1 and 3 (not in a row)
    seats = [0, 1] * 5
    dead = [0, 1, 1, 0, 1, 1, 1, 0, 0, 0]
    assert list(B.streaks_of(seats, dead, 2)) == [3, 1]
    assert list(B.streaks_of(seats, dead, 3)) == [3, 1, 0]  # a seat that never played: 0


def test_landing_square_follows_the_engine_finish_rule():
    assert B.landing_square(10, 5, 63, False) == 15
    assert B.landing_square(60, 7, 63, False) == 63
    assert B.landing_square(60, 7, 63, True) == 59  # bounces back from the finish
    assert B.landing_square(60, 3, 63, True) == 63


@pytest.fixture(scope="module")
def sample():
    return Rules(), B.sample_board(Rules(), GREEDY, 7, 120)


def test_a_replay_is_the_engines_game_and_its_dead_turns():
    rules = Rules()
    rows = B.play_rows(rules, GREEDY, 7, 40)
    keep = np.ones(rows.shape[1], bool)
    keep[[L.C_LEAD_CHANGES, L.C_MID_LEADER, L.C_MID_LAST]] = False
    for g in range(40):
        turns, out = B.replay_game(rules, GREEDY[0], 7, g)
        assert (out[keep] == rows[g][keep]).all(), g
        assert turns[:, 1].sum() == dead_per_game(rows[g: g + 1], rules)[0]
        assert len(turns) == rows[g, L.C_PLAYED]


def test_landings_sum_to_the_landings_and_match_the_squares_fired(sample):
    rules, s = sample
    assert s.per_game.sum() * s.games == pytest.approx(s.landings.sum())
    assert s.landings[0] == 0  # nobody lands on the start
    # the rulings' squares work every time: every landing on a special square fires it
    for sq, _ in B.special_squares(rules):
        assert s.landings[sq] == s.fired[sq] > 0, sq
    # single-use squares fire at most once a game: fewer fired than landed
    su = B.sample_board(rules.replace(single_use_squares=True), GREEDY, 7, 60)
    assert (su.fired[1:] <= su.landings[1:]).all() and su.fired.sum() < su.landings.sum()


def test_landings_count_the_moving_turns():
    rules = Rules()
    turns, _ = B.replay_game(rules, GREEDY[0], 7, 3)
    land = turns[:, 2]
    assert (land[turns[:, 1] == 1] == -1).all()  # a dead turn lands nowhere
    s = B.sample_board(rules, GREEDY, 7, 1, first_game=3)
    assert s.landings.sum() == int((land >= 0).sum())
    assert s.landings.sum() == np.bincount(land[land >= 0], minlength=rules.finish + 1).sum()


def test_streak_figures(sample):
    _, s = sample
    f = s.streak_figures()
    assert f["players"] == 4 * 120
    assert f["stuck"] == int((s.longest >= 3).sum())
    assert f["stuck_low"] <= f["stuck_share"] <= f["stuck_high"]
    assert 0 <= f["longest_mean"] <= f["longest_max"]
    assert f["dead_rate"] == pytest.approx(s.dead / s.turns)


def test_the_board_svg_has_63_squares_and_marks_the_special_ones(sample):
    rules, s = sample
    svg = B.board_svg(rules.finish, B.board_effects(rules), s.per_game, lang="fr")
    assert svg.startswith("<svg") and "http://" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")
    squares = re.findall(r'data-square="(\d+)"', svg)
    assert sorted(map(int, squares)) == list(range(1, 64))
    special = dict((int(a), b) for a, b in re.findall(r'data-square="(\d+)" data-effect="(\w+)"', svg))
    assert special == {8: "loup", 12: "echange", 15: "taureau", 21: "emerveillement", 24: "serpent",
                       27: "rotation", 32: "lion", 38: "protection", 41: "aigle", 48: "cerf",
                       52: "regeneration", 55: "emerveillement", 60: "heron"}
    assert "case 60" in svg and "Héron" in svg  # its titles in French
    # a board without squares marks none
    bare = B.board_svg(20, {}, None)
    assert len(re.findall("data-square=", bare)) == 20 and "data-effect" not in bare


def test_a_square_made_plain_and_its_paired_effect():
    rules = Rules()
    plain = B.plain_square(rules, 15)
    assert 15 not in dict(plain.squares) and len(plain.squares) == len(rules.squares) - 1
    eff = {e["square"]: e for e in B.square_effects(rules, GREEDY, 7, 1500)}
    assert set(eff) == {s for s, _ in B.special_squares(rules)}
    # the Taureau square (every pawn +3) shortens the game; the Héron square (back 10) lengthens it
    assert eff[15]["length_high"] < 0 < eff[60]["length_low"]
    # a square made plain under rules that do not have it changes nothing (a negative control)
    none = B.square_effects(plain.replace(squares=((15, 0),)), GREEDY, 7, 200)
    assert none == []


# ---------------------------------------------------------------- the explorer's board view
def _client():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from heron_sim.explore.app import create_app
    from heron_sim.explore.live import Engine

    return create_app(Engine(warm=False)), TestClient


def _settings(**kw):
    doc = {"tab": "board-tab", "mode": "8d8", "players": 4, "seats": ["greedy"] * 4, "rotate": True, "seed": 1,
           "games": 20000, "values": {}, "lang": "fr"}
    doc.update(kw)
    return doc


def test_the_explorer_returns_the_board_and_the_streaks(monkeypatch):
    from heron_sim.explore import board as EB

    monkeypatch.setattr(EB, "BOARD_GAMES", 40)
    monkeypatch.setattr(EB, "SQUARE_GAMES", 200)
    app, TestClient = _client()
    with TestClient(app) as c:
        page = c.get("/?lang=fr").text
        assert 'id="board-run"' in page and "Dessiner le plateau" in page
        r = c.post("/api/board", json=_settings())
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["boards"] == 1 and set(d["streaks"]) == {"base"}
        assert d["html"].count("<svg") == 1 and len(re.findall(r'data-square="\d+"', d["html"])) == 63
        assert "Combien de tours un joueur reste sans avancer" in d["html"] and "joueurs bloqués 3 tours de suite" in d["html"]
        assert sum(d["landings"]["base"]) > 0
        assert len(d["squares"]["base"]) == 13
        # a variant that moves the board: two boards side by side, the variant's without square 60
        r = c.post("/api/board", json=_settings(lang="en", values={"single_use_squares": True}))
        d = r.json()
        assert r.status_code == 200 and d["boards"] == 2 and set(d["streaks"]) == {"base", "variant"}
        assert "How long a player goes without moving" in d["html"]
        # a variant that keeps the board: one board, the streaks of both sides
        d = c.post("/api/board", json=_settings(values={"rolls": 4})).json()
        assert d["boards"] == 1 and set(d["streaks"]) == {"base", "variant"}
        bad = c.post("/api/board", json=_settings(lang="de"))
        assert bad.status_code == 422
    app.state.engine.close()


# ---------------------------------------------------------------- the report's Étang section
def test_the_pond_section_draws_the_board_and_its_streaks(tmp_path):
    from heron_sim.report import figures as F
    from heron_sim.runner import RunData, load_experiment, run_experiments
    from heron_sim.runner.kinds import analyse, plan_jobs

    path = tmp_path / "p.toml"
    path.write_text('name = "p"\nkind = "pond"\nmodes = ["8d8"]\ngames = 30\nturns = 300\nseating = "greedy"\n'
                    'board_games = 40\nboard_replays = 20\n')
    exp = load_experiment(path)
    keys = {j.key for j in plan_jobs(exp)}
    assert {f"plain_{s}_8d8" for s, _ in B.special_squares(Rules())} | {"board_8d8"} <= keys
    run_experiments([exp], tmp_path / "run")
    (e, d), = list(RunData(tmp_path / "run").experiments())
    sec = analyse(e, d)
    facts = {f.id: f for f in sec.facts}
    assert 0 <= facts["pond.stuck3.8d8"].low <= facts["pond.stuck3.8d8"].estimate <= facts["pond.stuck3.8d8"].high <= 1
    assert facts["pond.longest_dead_streak.8d8"].n == 4 * 20
    assert "pond.square_15.length.8d8" in facts and facts["pond.square_15.length.8d8"].n > 0
    tab = next(t for t in sec.tables if "special squares" in t.caption).data
    assert list(tab["square"]) == [s for s, _ in B.special_squares(Rules())]
    # the table's effects are the paired differences of the two stored frames
    base, plain = d.frame("board_8d8"), d.frame("plain_60_8d8")
    assert len(base) == len(plain) == 40
    both = base["finished"].to_numpy(bool) & plain["finished"].to_numpy(bool)
    want = (base["rounds"].to_numpy(float) - plain["rounds"].to_numpy(float))[both].mean()
    assert tab.set_index("square").loc[60, "length"] == pytest.approx(want)
    streaks = next(t for t in sec.tables if "without moving" in t.caption)
    assert len(streaks.frame) == 4
    fig = next(f for f in sec.figures if f.name == "board")
    drawn = F.draw(fig.plot)
    assert sum(1 for p in drawn.axes[0].patches) == 63
    F.plt.close(drawn)
    # without the board option: no plain-square games
    path.write_text('name = "p"\nkind = "pond"\nmodes = ["8d8"]\ngames = 80\nturns = 2000\nseating = "greedy"\n'
                    'board = false\n')
    assert not any(j.key.startswith(("plain_", "board_")) for j in plan_jobs(load_experiment(path)))


# ---------------------------------------------------------------- the lab's streak metrics
def test_the_lab_streak_metrics_on_replayed_games():
    from heron_sim.lab.metrics import IX, METRICS, OBJECTIVE_METRICS, STREAK_METRICS, batch_matrix, value
    from heron_sim.runner.executor import Batch

    assert set(STREAK_METRICS) <= set(OBJECTIVE_METRICS)
    rules = Rules()
    off = batch_matrix(Batch(rules, ("greedy",) * 4, 7, 0, 40))
    assert off[:, IX["streak_seats"]].sum() == 0 and np.isnan(value("stuck_3_share", off.sum(axis=0), 4))
    on = batch_matrix(Batch(rules, ("greedy",) * 4, 7, 0, 40, streak_every=4))
    # the same games (every other column unchanged); games 0, 4, .. 36 replayed
    others = [i for n, i in IX.items() if n not in ("streak_seats", "stuck3_seats", "longest_dead_sum")]
    assert (on[:, others] == off[:, others]).all()
    assert list(np.flatnonzero(on[:, IX["streak_seats"]])) == list(range(0, 40, 4))
    s = B.sample_board(rules, GREEDY, 7, 1, first_game=8)
    assert on[8, IX["stuck3_seats"]] == int((s.longest >= 3).sum()) and on[8, IX["longest_dead_sum"]] == s.longest.sum()
    S = on.sum(axis=0)
    assert value("stuck_3_share", S, 4) == pytest.approx(S[IX["stuck3_seats"]] / S[IX["streak_seats"]])
    assert METRICS["longest_dead_streak"].fn(S, 4) == pytest.approx(S[IX["longest_dead_sum"]] / 40)


@pytest.mark.parametrize("line, words", [("board = 1", "board: 1; allowed: true, false"),
                                         ("board_games = 0", "board_games: 0; allowed: an integer 1.."),
                                         ("board_replays = -1", "board_replays: -1; allowed: an integer 0..")])
def test_the_board_options_refuse_bad_values(tmp_path, line, words):
    from heron_sim.errors import HeronSimError
    from heron_sim.runner import load_experiment

    path = tmp_path / "p.toml"
    path.write_text(f'kind = "pond"\nmodes = ["8d8"]\nseating = "greedy"\n{line}\n')
    with pytest.raises(HeronSimError, match=re.escape(words)):
        load_experiment(path)


def test_the_board_games_default_to_the_experiments_at_most_4000(tmp_path):
    from heron_sim.runner import load_experiment
    from heron_sim.runner.kinds import plan_jobs

    for games, want in ((60, 60), (10000, 4000)):
        path = tmp_path / "p.toml"
        path.write_text(f'kind = "pond"\nmodes = ["8d8"]\nseating = "greedy"\ngames = {games}\n')
        jobs = {j.key: j for j in plan_jobs(load_experiment(path))}
        assert jobs["board_8d8"].n == jobs["plain_60_8d8"].n == want
