"""Only the explorer's own page drives the explorer (heron_sim.explore.guard): a page elsewhere
that the designer visits cannot start or cancel games (a ``text/plain`` POST needs no permission
from the browser), nor a name rebound to 127.0.0.1 reach it; and ``/api/status`` names what
each of its byte figures counts (issue on reliability)."""

import json
import re
import time
import warnings
from importlib import resources

import pytest

pytestmark = pytest.mark.exact

with warnings.catch_warnings():  # newer Starlette prefers the httpx2 fork; httpx works as well
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from heron_sim.explore import live
from heron_sim.explore.app import create_app
from heron_sim.explore.live import Engine

#: Where the test client serves the explorer, as ``heron-sim explore`` would (127.0.0.1, a port).
PAGE = "http://127.0.0.1:8765"
FOREIGN_ORIGINS = ["http://evil.example", "https://127.0.0.1:8765", "http://127.0.0.1:8766",
                   "http://localhost.evil.example:8765", "null", "http://127.0.0.1:8765.evil.example"]
OWN_ORIGINS = [PAGE, "http://localhost:8765", "http://[::1]:8765", "HTTP://LOCALHOST:8765"]
SIMPLE_TYPES = ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x"]


@pytest.fixture(autouse=True)
def few_games(monkeypatch):
    from heron_sim.explore import form

    monkeypatch.setattr(form, "GAMES_RANGE", (1_000, form.GAMES_RANGE[1]))


@pytest.fixture(scope="module")
def app():
    app = create_app(Engine(warm=False))
    yield app
    app.state.engine.close()


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app, base_url=PAGE) as c:
        yield c


def _settings(tab="origin-tab", **kw):
    return {"tab": tab, "mode": "8d8", "players": 4, "seats": ["greedy"] * 4, "rotate": True, "seed": 1,
            "games": 1000, "values": {}, **kw}


def _refused(r, status):
    assert r.status_code == status, r.text
    assert r.json()["errors"]["extra"].startswith("request refused: "), r.text


def _tab_started(app, tab) -> bool:
    return tab in app.state.engine.by_tab


# ---------------------------------------------------------------- another page
def test_a_text_plain_post_from_another_page_starts_nothing(app, client):
    """What a page elsewhere can do without asking the browser: the settings as text/plain."""
    body = json.dumps(_settings(tab="evil"))
    r = client.post("/api/run", content=body, headers={"Origin": "http://evil.example", "Content-Type": "text/plain"})
    _refused(r, 403)
    assert not _tab_started(app, "evil")


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
@pytest.mark.parametrize("route", ["/api/run", "/api/panel", "/api/cancel", "/api/board", "/api/load"])
def test_a_json_post_from_another_origin_is_refused(app, client, route, origin):
    r = client.post(route, json=_settings(tab="foreign"), headers={"Origin": origin})
    _refused(r, 403)
    assert not _tab_started(app, "foreign")


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_request_the_browser_marks_as_from_another_site_is_refused(app, client, site):
    r = client.post("/api/run", json=_settings(tab="site"), headers={"Sec-Fetch-Site": site})
    _refused(r, 403)
    assert not _tab_started(app, "site")
    _refused(client.get("/api/status", headers={"Sec-Fetch-Site": site}), 403)


@pytest.mark.parametrize("content_type", SIMPLE_TYPES)
def test_a_post_that_is_not_json_is_refused_even_without_an_origin(app, client, content_type):
    body = json.dumps(_settings(tab="simple"))
    r = client.post("/api/run", content=body, headers={"Content-Type": content_type})
    _refused(r, 415)
    assert not _tab_started(app, "simple")


def test_a_post_with_no_body_type_is_refused(app, client):
    """A ``Blob`` without a type is sent with no Content-Type and no preflight: JSON only."""
    r = client.post("/api/run", content=json.dumps(_settings(tab="untyped")))
    _refused(r, 415)
    assert not _tab_started(app, "untyped")


def test_another_page_cannot_cancel_the_designers_games_through_their_stream(app, client):
    """An ``<img>`` or ``EventSource`` elsewhere opening ``/api/stream/jN`` and closing it again
    would cancel the designer's games: refused before the stream opens."""
    job_id = client.post("/api/run", json=_settings(tab="designer", games=500_000)).json()["job"]
    job = app.state.engine.get(job_id)
    try:
        for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
            with client.stream("GET", f"/api/stream/{job_id}", headers=headers) as r:
                assert r.status_code == 403
        time.sleep(0.2)
        assert job.listeners == 0 and not job.finished
    finally:
        app.state.engine.forget_tab("designer")


# ---------------------------------------------------------------- its own page
@pytest.mark.parametrize("origin", OWN_ORIGINS)
def test_the_explorers_own_page_is_served(app, client, origin):
    headers = {"Origin": origin, "Sec-Fetch-Site": "same-origin"}
    r = client.post("/api/run", json=_settings(tab="own"), headers=headers)
    assert r.status_code == 200, r.text
    assert _tab_started(app, "own")
    assert client.post("/api/cancel", json={"tab": "own"}, headers=headers).status_code == 200
    r = client.post("/api/load", content=b'{"text": ""}', headers={**headers, "Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 200, r.text


def test_a_link_from_elsewhere_still_opens_the_page(client):
    """Only the API is kept to the page: a designer may follow a link to the page itself."""
    r = client.get("/", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"})
    assert r.status_code == 200 and "/static/explore.js" in r.text
    assert client.get("/api/status", headers={"Sec-Fetch-Site": "none"}).status_code == 200  # typed in


def test_the_pages_script_posts_json_only():
    """Every POST of the page goes through one helper that sends ``application/json`` (a
    ``sendBeacon`` would send whatever its Blob says, and Chrome refuses a JSON Blob)."""
    js = resources.files("heron_sim.explore").joinpath("static", "explore.js").read_text(encoding="utf-8")
    assert "sendBeacon" not in js and "XMLHttpRequest" not in js
    methods = [line for line in js.splitlines() if re.search(r"\bmethod\s*:", line)]
    assert len(methods) == 1 and '"Content-Type": "application/json"' in methods[0], methods


# ---------------------------------------------------------------- another host
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1:8766", "127.0.0.1",
                                  "localhost.:8765", "evil.example@127.0.0.1:8765", "127.0.0.1:8765/x",
                                  "127.0.0.1:99999", ""])
def test_a_request_for_another_host_is_refused(client, host):
    """DNS rebinding: a page whose name now points at 127.0.0.1 sends its own name as Host."""
    _refused(client.get("/api/status", headers={"Host": host}), 400)
    _refused(client.get("/", headers={"Host": host}), 400)


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765", "[::1]:8765"])
def test_the_loopback_names_of_the_servers_port_are_served(client, host):
    assert client.get("/api/status", headers={"Host": host}).status_code == 200


# ---------------------------------------------------------------- /api/status
def test_status_names_what_each_byte_figure_counts(app, client):
    """The kept games are compared with their own limit, the kernel arrays with theirs; the
    total (``kept_bytes``, which counts both and the running jobs' sums) has no limit."""
    job_id = client.post("/api/run", json=_settings(tab="status")).json()["job"]
    with client.stream("GET", f"/api/stream/{job_id}") as r:
        for line in r.iter_lines():
            if line.startswith("event: end"):
                break
    st = client.get("/api/status").json()
    figures = ("kept_game_bytes", "kernel_bytes", "job_bytes")
    assert st["kept_bytes"] == sum(st[k] for k in figures)
    assert st["kept_game_bytes"] == live.PLAYED.nbytes() > 0
    assert st["kernel_bytes"] >= live.ARRAYS.nbytes() > 0
    assert st["limits"]["kept_game_bytes"] == live.KEPT_BYTES and st["kept_game_bytes"] <= live.KEPT_BYTES
    assert st["limits"]["kernel_bytes"] == live.SEATED_BYTES
    assert "kept_bytes" not in st["limits"]  # no limit reads as the total's
    assert set(st["about"]) >= {*figures, "kept_bytes", "kept_games"} and all(st["about"].values())
