"""The explorer's server (Starlette's test client) and its parts: the form generated from the
rules, inline errors, paired games on common seeds, cancellation, exports, a clean Ctrl-C."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib

import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.exact

with warnings.catch_warnings():  # newer Starlette prefers the httpx2 fork; httpx works as well
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from heron_sim.errors import HeronSimError
from heron_sim.explore import exports, live
from heron_sim.explore.app import create_app
from heron_sim.explore.form import load_variant, parse_setup, schema
from heron_sim.explore.live import CompareJob, Engine
from heron_sim.explore.server import HOST, bind
from heron_sim.explore.stats import PairedSums, figures, game_columns
from heron_sim.rules import Rules
from heron_sim.rules import rules as R

GREEDY = ["greedy"] * 4


@pytest.fixture(autouse=True)
def few_games(monkeypatch):
    """These tests play a few thousand games per side (the page asks 20,000 at least): the
    range is widened below here only; tests/test_explore_memory.py checks the real one."""
    from heron_sim.explore import form

    monkeypatch.setattr(form, "GAMES_RANGE", (1_000, form.GAMES_RANGE[1]))


@pytest.fixture(scope="module")
def client():
    app = create_app(Engine(warm=False))
    with TestClient(app) as c:
        yield c
    app.state.engine.close()


def _settings(**kw):
    doc = {"tab": "test-tab", "mode": "8d8", "players": 4, "seats": GREEDY, "rotate": True, "seed": 1,
           "games": 2000, "values": {}}
    doc.update(kw)
    return doc


def _stream(client, job):
    """Every snapshot of a job's event stream, up to its end."""
    snaps = []
    with client.stream("GET", f"/api/stream/{job}") as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        event = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
                if event == "end":
                    break
            elif line.startswith("data: ") and event == "update":
                snaps.append(json.loads(line[6:]))
    return snaps


def _row(snap, key):
    return next(r for r in snap["rows"] if r["key"] == key)


# ---------------------------------------------------------------- the form
def test_schema_has_every_rules_key_with_the_validations_bounds():
    sch = schema("8d8", 4)
    fields = {f["key"]: f for g in sch["groups"] for f in g["fields"]}
    for key, (kind, lo, hi) in R._SCALARS.items():
        if key == "players":
            continue
        f = fields[key]
        assert f["type"] == ("bool" if kind is bool else "int"), key
        if kind is int:
            assert (f["min"], f["max"]) == (lo, hi), key
    assert fields["anxiety_threshold"]["default"] == 3
    assert "Anxiety" in fields["anxiety_threshold"]["help"]  # the defaults file's comment
    assert fields["combinations.advance"]["default"] == [0, 0, 0, 1, 2, 5, 7, 9, 10]
    assert fields["combinations.effect"]["choices"] == list(R.COMBO_EFFECTS)
    assert fields["board.squares"]["default"]["8"] == "loup"
    assert fields["disabled_powers"]["type"] == "multi"
    for key in getattr(R, "_SEAT_LISTS", {}):  # by-seat keys (the remedies): one box per seat
        assert fields[key]["type"] == "list-int" and fields[key]["default"] == [0, 0, 0, 0], key
    # the booklet's groups (heron_sim.rules.keys.GROUPS, issue 33), in its order
    assert [g["title"] for g in sch["groups"]][:3] == ["The game", "Rolling and keeping", "The Angoisse"]
    # 10d6 has 10 dice: 11 set sizes
    assert len(next(f for g in schema("10d6", 3)["groups"] for f in g["fields"]
                    if f["key"] == "combinations.advance")["default"]) == 11


def test_a_new_rules_key_appears_without_a_change_to_the_form(monkeypatch):
    """What the remedies issue does: a key in defaults.toml and the validation table."""
    import heron_sim.explore.form as form

    table = dict(R.default_table())
    table["consolation"] = 0
    table["catch_up"] = {"squares": 2, "enabled": False}
    monkeypatch.setattr(form, "validation_table", lambda: {**R._SCALARS, "consolation": (int, 0, 5)})
    monkeypatch.setattr(form, "rules_table", lambda: table)
    monkeypatch.setattr(form, "_defaults_text", lambda: "mode = \"8d8\"\nconsolation = 0   # squares after a dead turn\n")
    form.file_layout.cache_clear()
    try:
        fields = {f["key"]: f for g in schema()["groups"] for f in g["fields"]}
    finally:
        form.file_layout.cache_clear()
    assert fields["consolation"]["type"] == "int" and (fields["consolation"]["min"], fields["consolation"]["max"]) == (0, 5)
    assert fields["consolation"]["help"] == "squares after a dead turn"
    assert fields["catch_up.squares"]["type"] == "int" and fields["catch_up.enabled"]["type"] == "bool"


@pytest.mark.parametrize("values, field, words", [
    ({"anxiety_threshold": 0}, "anxiety_threshold", "allowed: 1..99"),
    ({"anxiety_threshold": "abc"}, "anxiety_threshold", "not an integer"),
    ({"anxiety_threshold": 2.5}, "anxiety_threshold", "not an integer"),
    ({"rolls": 999}, "rolls", "allowed: 1..20"),
    ({"exact_finish": "maybe"}, "exact_finish", "not a boolean"),
    ({"combinations.effect": ["none", "zap"]}, "combinations.effect", "allowed: none, regenerate"),
    ({"combinations.advance": [0, -1]}, "combinations.advance", ">= 0"),
    ({"board.squares": {"70": "loup"}}, "board.squares", "allowed: 1..62"),
    ({"board.squares": {"5": "dragon"}}, "board.squares", "not a square effect"),
    ({"disabled_powers": ["dragon"]}, "disabled_powers", "loup"),
    ({"dice.count": 40}, "dice.count", "1..16"),
    ({"extra": "[dice\nfaces"}, "extra", "malformed TOML"),
    ({"extra": "nope = 1"}, "extra", "unknown rules key"),
    ({"nope": 1}, "extra", "unknown rules key"),
])
def test_a_bad_value_is_an_inline_message_never_a_server_error(client, values, field, words):
    r = client.post("/api/run", json=_settings(values=values))
    assert r.status_code == 422, r.text
    errors = r.json()["errors"]
    assert field in errors and words in errors[field], errors


@pytest.mark.parametrize("doc, field", [
    ({"players": 9}, "players"), ({"players": "x"}, "players"), ({"mode": "9d9"}, "mode"),
    ({"seed": -1}, "seed"), ({"games": 10}, "games"), ({"seats": ["greedy", "bogus"]}, "seat.1"),
    ({"seats": ["prudent:risk=abc"] * 4}, "seat.0"),
])
def test_bad_table_settings_are_inline_messages(client, doc, field):
    r = client.post("/api/run", json=_settings(**doc))
    assert r.status_code == 422 and field in r.json()["errors"], r.text


def test_malformed_requests_are_answered_not_crashed(client):
    assert client.post("/api/run", content=b"not json", headers={"content-type": "application/json"}).status_code == 422
    assert client.post("/api/run", content=b"{}").status_code == 415  # untyped: refused (guard.py)
    assert client.post("/api/run", json=[1, 2]).status_code == 422
    assert client.post("/api/run", json={"values": {}}).status_code == 422  # no tab id
    assert client.get("/api/schema?mode=9d9").status_code == 422
    assert client.get("/api/stream/nope").status_code == 422
    assert client.post("/api/load", json={"text": "rolls = 0"}).json()["errors"]["file"].startswith("file: rolls")


# ---------------------------------------------------------------- paired games
def test_the_page_streams_paired_figures_that_narrow(client):
    r = client.post("/api/run", json=_settings(values={"anxiety_threshold": 4}, games=4000))
    assert r.status_code == 200, r.text
    snaps = _stream(client, r.json()["job"])
    assert snaps[-1]["state"] == "done" and snaps[-1]["games"] == 4000
    assert len(snaps) >= 2 and snaps[0]["games"] < 4000  # a first estimate before the end
    first, last = _row(snaps[0], "length"), _row(snaps[-1], "length")
    assert last["high"] < 0 and last["reading"] == "real and relevant"
    assert (last["high"] - last["low"]) < (first["high"] - first["low"])  # narrower with more games
    assert _row(snaps[-1], "anxiety_rate")["diff"] < 0
    assert abs(_row(snaps[-1], "minutes")["relative"] - last["relative"]) < 1e-12


def test_a_figure_is_settled_only_once_its_interval_fits_its_margin(client):
    """Honest early figures (issue 33 item 3): ``settled`` says the difference's interval is no
    wider than its margin on each side and its reading is not "uncertain" (too few games to
    conclude); the page greys the others ("too few games yet")."""
    r = client.post("/api/run", json=_settings(values={"anxiety_threshold": 4}, games=4000))
    snaps = _stream(client, r.json()["job"])
    for snap in (snaps[0], snaps[-1]):
        for row in snap["rows"]:
            if row["margin"] is None or row["low"] is None:
                assert row["settled"] is False, row
                continue
            assert row["settled"] == ((row["high"] - row["low"]) / 2 <= row["margin"]
                                      and row["reading"] != "uncertain"), row
    # the guide spread at 4,000 games is far from settled (±1 point), the length is settled
    assert _row(snaps[-1], "length")["settled"] is True
    assert _row(snaps[0], "guide_spread")["settled"] is False


def test_no_change_gives_a_zero_difference(client):
    """Negative control: the rulings against themselves on the same games differ by nothing."""
    snaps = _stream(client, client.post("/api/run", json=_settings(games=2000)).json()["job"])
    for row in snaps[-1]["rows"]:
        if row["diff"] is not None:
            assert row["diff"] == 0 and row["reading"] == "" and row["settled"] is True, row


def test_figures_are_those_of_the_games_compare_plays():
    """The page's last update stands on exactly the games of its `heron-sim compare` command
    (the same seatings on the same contiguous shares of the same game indices)."""
    from heron_sim.runner.panel import AI_MIX
    from heron_sim.runner.executor import play_rows, split_games
    from heron_sim.runner.run import resolve_strategies, seatings

    setup = parse_setup(_settings(seats=list(AI_MIX), values={"bull_bonus": 0}, games=1200, seed=7))
    job = CompareJob("t", setup)
    while not job.finished:
        job.step()
    cmd = exports.commands(setup)["compare"]
    assert "--games 1200 --seed 7" in cmd and "--strategy greedy,prudent,expert,racer" in cmd
    seat = seatings(resolve_strategies("greedy,prudent,expert,racer"), 4)  # what compare seats
    assert seat == setup.seatings
    for side, rules in enumerate((setup.base, setup.variant)):
        X = np.concatenate([game_columns(play_rows(b), rules) for b in split_games(rules, seat, 7, 1200)])
        assert np.array_equal(job.acc.sums(side), X.sum(axis=0).astype(float))


def test_a_change_reads_the_bases_games_back_and_publishes_the_same_figures(monkeypatch):
    """After a change of the variant the base's games are read from the store, not played: the
    job's sums and histograms are those of a job that played both sides."""
    from heron_sim.runner.panel import AI_MIX

    store = live.PlayedGames()
    monkeypatch.setattr(live, "PLAYED", store)
    played = []
    real_play = live.Seated.play

    def counting_play(self, rules, seating, seed, lo, n, store=None):
        if store is None or store.get(live.PlayedGames.key(rules, seating, seed), int(lo), int(n)) is None:
            played.append((rules, int(n)))
        return real_play(self, rules, seating, seed, lo, n, store)

    monkeypatch.setattr(live.Seated, "play", counting_play)

    def run(bull):
        job = CompareJob("t", parse_setup(_settings(seats=list(AI_MIX), values={"bull_bonus": bull},
                                                    games=1000, seed=5)))
        while not job.finished:
            job.step()
        return job

    run(1)
    played.clear()
    second = run(3)  # a change: the base's 1,000 games are kept
    assert played and all(rules == second.setup.variant for rules, _ in played)
    assert sum(n for _, n in played) == 1000
    store.clear()
    played.clear()
    fresh = run(3)
    assert sum(n for _, n in played) == 2000  # nothing kept: both sides played
    assert np.array_equal(second.acc.blocks, fresh.acc.blocks)
    assert np.array_equal(second.acc.hist, fresh.acc.hist)


def test_the_store_keeps_contiguous_runs_and_forgets_the_oldest():
    store = live.PlayedGames(max_games=50, total_games=60)
    X = np.arange(40 * 3, dtype=np.int32).reshape(40, 3)
    lens = np.array([i % 7 - 1 for i in range(40)], dtype=np.int16)  # -1: unfinished
    store.put("a", 10, X[:20], lens[:20])
    store.put("a", 30, X[20:], lens[20:])  # extends the run
    got, hist = store.get("a", 15, 25)
    assert np.array_equal(got, X[5:30])
    assert hist.sum() == (lens[5:30] >= 0).sum() and hist[0] == (lens[5:30] == 0).sum()
    assert store.get("a", 5, 10) is None and store.get("a", 40, 11) is None  # not all kept
    store.put("a", 60, X[:5], lens[:5])  # not contiguous: a new run replaces the old
    assert store.get("a", 15, 5) is None and store.get("a", 60, 5) is not None
    store.put("b", 0, X, lens)
    store.put("c", 0, X[:30], lens[:30])  # 75 games > 60: the oldest runs go
    assert store.get("a", 60, 5) is None and store.get("b", 0, 40) is None
    assert store.get("c", 0, 30) is not None and store.games() == 30


def test_block_bootstrap_matches_the_bootstrap_of_the_games():
    """Pooling the games into blocks does not change the interval: the paired length
    difference's 95 % width equals the lab's per-game Poisson bootstrap's within 12 %."""
    from heron_sim.lab.metrics import METRICS, Bootstrap, K
    from heron_sim.runner.executor import play_rows, split_games

    setup = parse_setup(_settings(values={"anxiety_threshold": 4}, games=6000))
    Xs = [np.concatenate([game_columns(play_rows(b), r) for b in split_games(r, setup.seatings, 3, 6000)])
          for r in (setup.base, setup.variant)]
    acc = PairedSums(2)
    for side in (0, 1):
        acc.add(side, 0, Xs[side])
    row = _row(figures(acc, 4), "length")
    lab = Bootstrap([X[:, :K] for X in Xs], B=1000, seed=5).contrast(1, 0, lambda S: METRICS["length"].fn(S, 4))
    assert row["diff"] == pytest.approx(lab["diff"], rel=1e-12)
    ratio = (row["high"] - row["low"]) / (lab["high"] - lab["low"])
    assert 0.88 < ratio < 1.12, ratio


# ---------------------------------------------------------------- jobs: cancel, tabs, orphans
def test_games_read_back_do_not_size_the_next_chunk():
    """The rate that sizes a job's chunks counts the games it played, not those it read back:
    a first chunk read back in a millisecond once sized the next one at MAX_CHUNK (50,000 games
    a side), seconds that the designer's next edit waited for (issue 33 item 3)."""
    # one seating (the store keeps one run of games per rules and seating)
    setup = parse_setup(_settings(games=20_000, rotate=False, values={"anxiety_threshold": 4}))
    store = live.PlayedGames()
    first = CompareJob("a", setup)
    first.store = store
    first.step()  # its first 512 games of each side, played and kept
    assert first.played == live.FIRST_CHUNK and first.rate is not None
    again = CompareJob("b", setup)
    again.store = store
    again.step()  # the same games, read back
    assert again.played == live.FIRST_CHUNK and again.rate is None
    assert again._chunk() == live.FIRST_CHUNK
    again.step()  # the next games, played: a rate again
    assert again.played == 2 * live.FIRST_CHUNK and again.rate is not None


def test_a_new_change_cancels_the_old_games_and_two_tabs_play_side_by_side(monkeypatch):
    monkeypatch.setattr(live, "FIRST_CHUNK", 64)
    eng = Engine(warm=False)
    try:
        a = eng.submit(CompareJob("tab1", parse_setup(_settings(games=500_000))))
        b = eng.submit(CompareJob("tab2", parse_setup(_settings(games=500_000, values={"rolls": 4}))))
        deadline = time.monotonic() + 20
        while (a.version == 0 or b.version == 0) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert a.version > 0 and b.version > 0 and not a.finished and not b.finished  # both tabs play
        c = eng.submit(CompareJob("tab1", parse_setup(_settings(games=500_000, values={"rolls": 2}))))
        assert a.state == "cancelled" and not b.finished and not c.finished
        played = a.snapshot.get("played", 0)
        time.sleep(0.5)
        assert a.snapshot.get("played", 0) == played  # no more games for the old change
        assert eng.cancel_tab("tab2") and b.state == "cancelled"
    finally:
        eng.close()
    assert not eng.thread.is_alive() and all(j.finished for j in eng.jobs.values())


def test_a_job_nobody_listens_to_is_cancelled(monkeypatch):
    monkeypatch.setattr(live, "ORPHAN_SECONDS", 0.3)
    eng = Engine(warm=False)
    try:
        job = eng.submit(CompareJob("gone", parse_setup(_settings(games=500_000))))
        deadline = time.monotonic() + 20
        while not job.finished and time.monotonic() < deadline:
            time.sleep(0.05)
        assert job.state == "cancelled"
    finally:
        eng.close()


def test_closing_the_stream_cancels_the_job(client):
    job_id = client.post("/api/run", json=_settings(tab="closing", games=500_000)).json()["job"]
    job = client.app.state.engine.get(job_id)
    with client.stream("GET", f"/api/stream/{job_id}") as r:
        for line in r.iter_lines():
            if line.startswith("data: {"):
                break  # the first update arrived: close the tab
    deadline = time.monotonic() + 10
    while not job.finished and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.state == "cancelled"


def test_the_panel_ranks_every_scenario(client, monkeypatch):
    monkeypatch.setattr(live, "PANEL_GAMES", 300)
    r = client.post("/api/panel", json=_settings(tab="panel", values={"anxiety_threshold": 4}, rank="length"))
    snaps = _stream(client, r.json()["job"])
    last = snaps[-1]
    from heron_sim.runner.panel import DEFAULT_PANEL

    assert last["state"] == "done" and [s["name"] for s in last["scenarios"]] == [sc.name for sc in DEFAULT_PANEL]
    rel = {s["name"]: abs(s["rows"]["length"]["relative"]) for s in last["scenarios"]}
    assert last["worst"] == max(rel, key=rel.get)
    assert all(s["rows"]["length"]["relative"] < 0 for s in last["scenarios"])


# ---------------------------------------------------------------- exports
def test_the_saved_variant_rebuilds_the_pages_rules(tmp_path):
    setup = parse_setup(_settings(values={"anxiety_threshold": 4, "disabled_powers": ["lion"],
                                          "combinations.advance": [0, 0, 0, 1, 3, 5, 7, 9, 10],
                                          "board.squares": {"8": "loup", "20": "heron"}, "dice.count": 9}))
    text = exports.variant_toml(setup)
    path = tmp_path / exports.file_name(setup)
    path.write_text(text, encoding="utf-8")
    assert Rules.build(rules_file=path) == setup.variant != setup.base
    back = load_variant(text)  # and the page reads it back into the same form values
    again = parse_setup(_settings(mode=back["mode"], players=back["players"], values=back["values"]))
    assert again.variant == setup.variant


def test_the_tune_stub_is_a_valid_study_around_the_variant():
    from heron_sim.lab.spec import parse_spec

    setup = parse_setup(_settings(values={"anxiety_threshold": 4, "exact_finish": True}))
    text, name = exports.tune_toml(setup)
    spec = parse_spec(tomllib.loads(text), name)
    assert spec.base == setup.variant
    params = {p.key: p for p in spec.params}
    assert (params["anxiety_threshold"].low, params["anxiety_threshold"].high) == (2, 6)
    assert set(params) == {"anxiety_threshold", "exact_finish"}


def test_a_bad_variant_file_is_an_inline_message(client):
    for text, words in (("rolls = [", "malformed TOML"), ("zzz = 1", "unknown rules key"),
                        ('[board]\nfile = "x.toml"', "names another file")):
        r = client.post("/api/load", json={"text": text})
        assert r.status_code == 422 and words in r.json()["errors"]["file"], r.text


def test_the_page_and_its_assets_are_served_from_the_package(client):
    page = client.get("/").text
    assert "/static/explore.js" in page and "__HAS_SHEET__" not in page
    assert "http://" not in page and "https://" not in page  # nothing from the network
    for asset in ("explore.js", "explore.css"):
        r = client.get(f"/static/{asset}")
        assert r.status_code == 200 and len(r.text) > 1000
        assert "https://" not in r.text and "http://" not in r.text.replace("http://www.w3.org/2000/svg", "")


# ---------------------------------------------------------------- serving
def test_requests_for_another_host_are_refused(client):
    """A page elsewhere that rebinds its name to 127.0.0.1 cannot drive the explorer (the
    server's port counts too; tests/test_explore_origin.py has the other pages' requests)."""
    assert client.get("/api/status", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/api/status", headers={"Host": "127.0.0.1:8765"}).status_code == 400  # not its port
    assert client.get("/api/status", headers={"Host": "127.0.0.1"}).status_code == 200  # the test server's 80


def test_bind_is_loopback_only_and_a_busy_port_is_one_error_line():
    s = bind(0)
    try:
        host, port = s.getsockname()
        assert host == HOST == "127.0.0.1" and port > 0
        with pytest.raises(HeronSimError, match=f"--port: {port} is in use"):
            bind(port)
    finally:
        s.close()
    with pytest.raises(HeronSimError, match="allowed: 1..65535"):
        bind(70000)


def test_explore_serves_and_stops_cleanly_on_ctrl_c():
    """The real command: prints its URL, serves the page, and on SIGINT with an event stream
    open and games running, exits 0 within seconds, without a traceback."""
    import http.client

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "heron_sim", "explore"], stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = ""
        deadline = time.monotonic() + 120
        while "http://" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                break
        assert "http://127.0.0.1:" in line, line
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        conn = http.client.HTTPConnection(HOST, port, timeout=30)
        conn.request("POST", "/api/run", json.dumps(_settings(games=500_000)), {"Content-Type": "application/json"})
        job = json.loads(conn.getresponse().read())["job"]
        stream = socket.create_connection((HOST, port), timeout=30)
        stream.sendall(f"GET /api/stream/{job} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        assert b"200" in stream.recv(200)
        time.sleep(0.5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        assert time.monotonic() - t0 < 10
        assert "Traceback" not in err and "stopped" in err
        stream.close()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_the_command_refuses_a_busy_port_in_one_line():
    from typer.testing import CliRunner

    from heron_sim.cli import app

    s = bind(0)
    try:
        port = s.getsockname()[1]
        res = CliRunner().invoke(app, ["explore", "--port", str(port)])
    finally:
        s.close()
    assert res.exit_code == 2
    assert f"error: --port: {port} is in use on 127.0.0.1" in res.output


def test_a_fixed_seating_is_reproduced_by_simulate_commands():
    setup = parse_setup(_settings(seats=["greedy", "expert", "greedy", "racer"], rotate=False,
                                  values={"rolls": 4}))
    cmds = exports.commands(setup, "v.toml")
    assert setup.seatings == [["greedy", "expert", "greedy", "racer"]]
    assert "compare" not in cmds  # compare always rotates the seats
    assert cmds["simulate_base"].endswith("--strategy greedy,expert,greedy,racer")
    assert cmds["simulate"].startswith("heron-sim simulate --rules v.toml --mode 8d8 --players 4 --games 2000 --seed 1")


def test_the_labs_proposals_load_into_the_page_as_they_are():
    """Every committed lab proposal (results/tune-*/variants) loads by name into the form, and
    the form's values rebuild exactly that file's rules; a name not listed is refused."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "results"
    app = create_app(Engine(warm=False), results_root=root)
    try:
        with TestClient(app) as c:
            names = c.get("/api/proposals").json()["proposals"]
            assert names, "no lab proposal under results/"
            for name in names:
                d = c.post("/api/load", json={"proposal": name}).json()
                setup = parse_setup(_settings(mode=d["mode"], players=d["players"], values=d["values"]))
                study, stem = name.split("/")
                assert setup.variant == Rules.build(rules_file=root / study / "variants" / f"{stem}.toml"), name
            r = c.post("/api/load", json={"proposal": "../../etc/passwd"})
            assert r.status_code == 422 and "not a lab proposal" in r.json()["errors"]["file"]
    finally:
        app.state.engine.close()


def test_the_rule_sheet_button_is_wired_to_the_labs_function_when_it_exists(monkeypatch):
    """Without heron_sim.lab.sheets the page has no rule-sheet button; with it, the button calls
    rule_sheet(base, variant, evidence, lang) with the tab's latest paired figures."""
    import types

    import heron_sim.lab

    calls = []
    if exports.rule_sheet_function() is None:
        bare = create_app(Engine(warm=False))
        assert "window.HERON_HAS_SHEET = false" in TestClient(bare).get("/").text
        bare.state.engine.close()
        fake = types.ModuleType("heron_sim.lab.sheets")
        fake.rule_sheet = lambda base, variant, evidence, lang: calls.append((base, variant, evidence, lang)) or f"sheet {lang}"
        monkeypatch.setitem(sys.modules, "heron_sim.lab.sheets", fake)
        monkeypatch.setattr(heron_sim.lab, "sheets", fake, raising=False)
    app = create_app(Engine(warm=False))
    try:
        with TestClient(app) as c:
            assert "window.HERON_HAS_SHEET = true" in c.get("/").text
            doc = _settings(tab="sheet", values={"rolls": 4}, games=1000)
            _stream(c, c.post("/api/run", json=doc).json()["job"])
            r = c.post("/api/sheet", json={**doc, "lang": "fr"})
            assert r.status_code == 200, r.text
            assert c.post("/api/sheet", json={**doc, "lang": "de"}).status_code == 422
    finally:
        app.state.engine.close()
    if calls:
        base, variant, evidence, lang = calls[0]
        assert base == Rules.build() and variant == Rules.build(overrides={"rolls": 4}) and lang == "fr"
        assert evidence["games"] == 1000 and any(e["metric"] == "length" for e in evidence["effects"])


def test_every_stream_ends_on_its_last_snapshot(client):
    """The end of a stream comes after the snapshot of the finished job (all its games), never
    after an earlier one (a race the first version had: 2 streams in 15 ended early)."""
    for i in range(12):
        job = client.post("/api/run", json=_settings(tab=f"race{i}", games=1000, values={"rolls": 4})).json()["job"]
        last = _stream(client, job)[-1]
        assert last["state"] == "done" and last["games"] == 1000, (i, last["state"], last["games"])
