"""The web application of ``heron-sim explore`` (Starlette): the page, its JSON API and the
server-sent events that carry the figures as the games come in.

Routes (all JSON unless said):

- ``GET /``: the page; ``GET /static/...``: its script and style (shipped in the package);
- ``GET /api/schema?mode=&players=&lang=``: the rules form (heron_sim.explore.form.schema);
- ``GET /api/explain?key=&value=&lang=``: a rule at a value in the booklet's words;
- ``POST /api/run``: validate the page's settings and start the paired games; answers
  ``{"job", "variant_toml", "file_name", "commands"}`` or, for bad values, status 422 with
  ``{"errors": {field: message}}``; the tab's previous job is cancelled; when
  :data:`~heron_sim.explore.live.MAX_RUNNING` jobs of other tabs run already, status 503 with
  the message (``errors.extra``) and a ``Retry-After`` header, nothing started;
- ``GET /api/stream/{job}``: server-sent events, one ``update`` event per snapshot, ``end``
  at the end; closing the stream before the end (a closed tab) cancels the job and forgets
  the tab;
- ``POST /api/panel``: the same settings over the lab's default panel;
- ``POST /api/cancel``: stop a tab's games and forget the tab (sent when it is hidden for good);
- ``POST /api/tune``: a tune file around the variant and its command;
- ``POST /api/load``: a rules file's text (or a lab proposal's name) -> the page's settings;
- ``GET /api/proposals?lang=``: the lab's proposed variants (``results/tune-*/variants/*.toml``),
  by name and by headline (the study's title, the change in the booklet's words);
- ``POST /api/sheet``: the variant's rule sheet (only when heron_sim.lab.sheets has it);
- ``GET /api/status``: the running jobs, the tabs kept and the bytes held for them, each figure
  named by what it counts (``about``) and compared with its own limit (``limits``);
- ``POST /api/board``: the board view of the page's settings (heron_sim.explore.board: the board
  drawn, landings, each special square's paired effect, dead-turn streaks), one HTML fragment;
  ``"quick": true`` asks the first view on fewer games (``final`` false: the refined one to come).

Only the explorer's own page drives it (:mod:`.guard`, one middleware): a request for another
Host (DNS rebinding) is a 400 answer; an API request or a change from another page (``Origin``,
``Sec-Fetch-Site``) a 403 answer, and a change whose body is not ``application/json`` a 415
answer, before any route runs. A bad request is never a server error: a body that is not a JSON
object (not UTF-8, nested deeper than :data:`MAX_DEPTH`, over :data:`MAX_BODY` bytes) and a bad
value are 422 answers with the field's message; an unexpected exception is a 500 answer with one
line, and the server goes on.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import HeronSimError
from ..i18n import LANGS, catalogue, gettext, pick
from . import exports, live
from .guard import OwnPageOnly
from ..rules.keys import KEYS
from .form import EXTRA, FormErrors, explain, load_variant, parse_setup, schema
from .live import PANEL_RANKS, CompareJob, Engine, PanelJob

HEARTBEAT_SECONDS = 1.0
POLL_SECONDS = 0.05
#: The largest request body read (a rules file's text is a few kilobytes).
MAX_BODY = 1 << 20
#: The deepest nesting of arrays and objects a request may have (the page sends 3 levels).
MAX_DEPTH = 32


def _clean(x: Any) -> Any:
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


class _JSONResponse(JSONResponse):
    """JSON escaped to ASCII: a request's text may hold lone surrogates (``"\\udce8"`` is valid
    JSON), which an error message quoting it must carry back without failing to encode."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def _json(doc: Any, status: int = 200, headers: dict | None = None) -> JSONResponse:
    return _JSONResponse(_clean(doc), status_code=status, headers=headers)


def _errors(errors: dict[str, str]) -> JSONResponse:
    return _json({"errors": errors}, 422)


def _depth(raw: str) -> int:
    """The deepest nesting of arrays and objects in a JSON text (brackets inside strings aside),
    counted before parsing: the parser recurses, and a 100,000-deep nesting would exhaust it."""
    if raw.count("[") + raw.count("{") <= MAX_DEPTH:
        return 0  # shallow for sure (the usual request): no need to walk it
    depth = deepest = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


async def _body(request: Request) -> dict:
    size = 0
    chunks = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise FormErrors({EXTRA: f"request: the body is over {MAX_BODY} bytes"})
        chunks.append(chunk)
    raw = b"".join(chunks) or b"{}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormErrors({EXTRA: f"request: the body is not UTF-8 (byte {err.start})"}) from None
    if _depth(text) > MAX_DEPTH:
        raise FormErrors({EXTRA: f"request: the body is nested deeper than {MAX_DEPTH} levels"})
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise FormErrors({EXTRA: "request: the body is not JSON"}) from None
    if not isinstance(doc, dict):
        raise FormErrors({EXTRA: "request: expected a JSON object"})
    return doc


def _tab(doc: dict) -> str:
    tab = doc.get("tab")
    if not isinstance(tab, str) or not 1 <= len(tab) <= 64:
        raise FormErrors({EXTRA: "request: missing tab id"})
    return tab


def handled(fn):
    """A route whose domain errors are 422 answers and whose bugs are one-line 500 answers."""

    async def route(request: Request) -> Response:
        try:
            return await fn(request)
        except FormErrors as err:
            return _errors(err.errors)
        except live.Busy as err:
            return _json({"errors": {EXTRA: str(err)}}, 503, headers={"Retry-After": "2"})
        except HeronSimError as err:
            return _errors({EXTRA: str(err)})
        except Exception as err:  # noqa: BLE001 - the server goes on; the page shows the line
            return _json({"errors": {EXTRA: f"internal error: {type(err).__name__}: {err}"}}, 500)

    route.__name__ = fn.__name__
    return route


def proposals(results_root: Path) -> dict[str, Path]:
    """The lab's proposed Héron variants under ``results_root`` (``tune-*/variants/*.toml``, as
    ``heron-sim tune`` writes them), by name (``tune-guides/guides-1-t90``): files only (a folder
    named so is not a proposal), and only names that are UTF-8 (the page shows and sends them)."""
    out = {}
    try:
        found = sorted(Path(results_root).glob("tune-*/variants/*.toml"))
    except OSError:
        return out
    lighter = {}  # a study's folder -> whether it studies a lighter game (its summary's ``game``)
    for path in found:
        name = f"{path.parent.parent.name}/{path.stem}"
        study = path.parent.parent
        if study not in lighter:
            try:
                lighter[study] = json.loads((study / "summary.json").read_text(encoding="utf-8")).get(
                    "game", "heron") != "heron"
            except (OSError, ValueError):
                lighter[study] = False
        if lighter[study]:  # a lighter game's rules: not the Héron race the page plays
            continue
        try:
            name.encode("utf-8")
            if not path.is_file():
                continue
        except (UnicodeEncodeError, OSError):
            continue
        out[name] = path
    return out


def proposal_headlines(results_root: Path, lang: str) -> list[dict]:
    """Each listed proposal (:func:`proposals`) by its headline: its study's title (the summary's
    ``title``) and what it changes in the booklet's words in ``lang`` (heron_sim.lab.phrases, each
    rule against the rulings at its mode and player count: rules by guide and by player count
    said as such), never its file name; ``name`` is what ``POST /api/load`` takes."""
    from ..lab.changes import rule_changes
    from ..lab.phrases import phrase
    from ..rules import Rules
    from .form import page_mode

    titles: dict[Path, str] = {}
    out = []
    for name, path in proposals(results_root).items():
        study = path.parent.parent
        if study not in titles:
            try:
                titles[study] = str(json.loads((study / "summary.json").read_text(encoding="utf-8")).get("title") or "")
            except (OSError, ValueError):
                titles[study] = ""
        try:
            rules = Rules.build(rules_file=path)
            base = Rules.build(mode=page_mode(rules), players=rules.players)
            words = [phrase(c.key, c.new, lang)[1].rstrip(". ") for c in rule_changes(base, rules)]
        except (HeronSimError, OSError, ValueError, KeyError, TypeError):
            words = []
        sep = " ; " if lang == "fr" else "; "
        out.append({"name": name, "study": study.name.removeprefix("tune-"), "study_title": titles[study] or study.name,
                    "headline": sep.join(words) if words else name})
    return out


def create_app(engine: Engine | None = None, results_root: str | Path = "results") -> Starlette:
    """The explorer's ASGI application (``app.state.engine`` plays the games;
    ``app.state.stopping`` set to True ends every event stream, for a quick shutdown).
    ``results_root``: where the lab's proposals are listed from (``results/`` of the current
    folder by default)."""
    static = resources.files("heron_sim.explore").joinpath("static")

    async def index(request: Request) -> Response:
        lang = pick(request.query_params.get("lang"), request.headers.get("accept-language"))
        html = page(static.joinpath("index.html").read_text(encoding="utf-8"), lang)
        sheet = exports.rule_sheet_function() is not None
        return HTMLResponse(html.replace("__HAS_SHEET__", "true" if sheet else "false"),
                            headers={"Cache-Control": "no-store", "Content-Language": lang,
                                     "Vary": "Accept-Language"})

    @handled
    async def api_schema(request: Request) -> Response:
        from ..rules import MODES

        mode = request.query_params.get("mode", "8d8")
        players = request.query_params.get("players", "4")
        if mode not in MODES:
            raise FormErrors({"mode": f"mode: {mode!r} is not a mode; allowed: {', '.join(MODES)}"})
        if not (players.isascii() and players.isdigit() and len(players) <= 2) or not 2 <= int(players) <= 7:
            raise FormErrors({"players": f"players: {players!r}; allowed: 2..7"})
        lang = request.query_params.get("lang", "en")
        if lang not in LANGS:
            raise FormErrors({EXTRA: f"lang: {lang!r}; allowed: {', '.join(LANGS)}"})
        doc = schema(mode, int(players), lang)
        doc["panel_ranks"] = {k: gettext(v[0], lang) for k, v in PANEL_RANKS.items()}
        doc["panel_games"] = live.PANEL_GAMES
        return _json(doc)

    async def api_explain(request: Request) -> Response:
        """The rule of ``key`` at ``value`` (JSON) in the booklet's words, in ``lang``: the form's
        explanation follows the value typed ({"text": ""} for a value the rule cannot take)."""
        q = request.query_params
        lang = q.get("lang") if q.get("lang") in LANGS else "en"
        try:
            value = json.loads(q.get("value", "null"))
        except ValueError:
            value = None
        key = q.get("key", "")
        ok = key in KEYS and (isinstance(value, bool) if KEYS[key].kind == "bool" else
                              isinstance(value, list) and all(isinstance(x, int) for x in value)
                              if KEYS[key].kind == "seats" else isinstance(value, int) and not isinstance(value, bool)
                              and KEYS[key].lo <= value <= KEYS[key].hi)
        return _json({"text": explain(key, value, lang) if ok else ""})

    @handled
    async def api_run(request: Request) -> Response:
        doc = await _body(request)
        tab = _tab(doc)
        try:
            setup = parse_setup(doc)
        except FormErrors:
            request.app.state.engine.cancel_tab(tab)  # the figures on screen no longer match the form
            raise
        job = request.app.state.engine.submit(CompareJob(tab, setup))
        lang = doc.get("lang") if doc.get("lang") in LANGS else "en"
        return _json({"job": job.id, **_exports(setup), "rule_words": rule_words(setup, lang)})

    @handled
    async def api_panel(request: Request) -> Response:
        doc = await _body(request)
        tab = _tab(doc)
        rank = doc.get("rank", "guide_spread")
        if not isinstance(rank, str) or rank not in PANEL_RANKS:
            raise FormErrors({"rank": f"rank: {rank!r}; allowed: {', '.join(PANEL_RANKS)}"})
        setup = parse_setup(doc)
        job = request.app.state.engine.submit(PanelJob(tab, setup, rank=rank))
        return _json({"job": job.id})

    @handled
    async def api_cancel(request: Request) -> Response:
        doc = await _body(request)
        engine: Engine = request.app.state.engine
        tab = _tab(doc)
        cancelled = engine.cancel_tab(tab)
        engine.forget_tab(tab)
        return _json({"cancelled": cancelled})

    @handled
    async def api_tune(request: Request) -> Response:
        setup = parse_setup(await _body(request))
        text, name = exports.tune_toml(setup)
        return _json({"toml": text, "file_name": name, "command": f"heron-sim tune {name}",
                      "variant_toml": exports.variant_toml(setup)})

    async def api_proposals(request: Request) -> Response:
        lang = request.query_params.get("lang")
        lang = lang if lang in LANGS else "en"
        return _json({"proposals": list(proposals(results_root)), "root": str(results_root),
                      "headlines": await asyncio.to_thread(proposal_headlines, Path(results_root), lang)})

    @handled
    async def api_load(request: Request) -> Response:
        doc = await _body(request)
        text = doc.get("text")
        if "proposal" in doc:  # one of the listed files only, by name (never a path)
            name = doc["proposal"]
            found = proposals(results_root).get(name) if isinstance(name, str) else None
            if found is None:
                raise FormErrors({"file": f"proposal: {name!r} is not a lab proposal under {results_root}"})
            try:
                text = found.read_bytes().decode("utf-8")
            except UnicodeDecodeError as err:
                raise FormErrors({"file": f"proposal: {name}: not UTF-8 text (byte {err.start}); "
                                          "a rules file is UTF-8 TOML"}) from None
            except OSError as err:
                raise FormErrors({"file": f"proposal: {name}: cannot be read ({err.strerror})"}) from None
        if not isinstance(text, str):
            raise FormErrors({"file": "file: expected the text of a rules TOML file"})
        return _json(load_variant(text))

    @handled
    async def api_sheet(request: Request) -> Response:
        fn = exports.rule_sheet_function()
        doc = await _body(request)
        setup = parse_setup(doc)
        lang = doc.get("lang", "en")
        if lang not in ("en", "fr"):
            raise FormErrors({EXTRA: f"rule sheet: language {lang!r}; allowed: en, fr"})
        sheet = fn(setup.base, setup.variant, _evidence(request.app.state.engine, _tab(doc), setup), lang)
        return _json({"sheet": sheet if isinstance(sheet, str) else str(sheet), "lang": lang})

    async def api_status(request: Request) -> Response:
        return _json(request.app.state.engine.status())

    @handled
    async def api_board(request: Request) -> Response:
        import asyncio

        from .board import board_view

        doc = await _body(request)
        setup = parse_setup(doc)
        lang = doc.get("lang", "en")
        if lang not in LANGS:
            raise FormErrors({EXTRA: f"lang: {lang!r}; allowed: {', '.join(LANGS)}"})
        quick = doc.get("quick", False)
        if not isinstance(quick, bool):
            raise FormErrors({EXTRA: f"quick: {quick!r}; allowed: true, false"})
        return _json(await asyncio.to_thread(board_view, setup, lang, quick=quick))

    async def api_stream(request: Request) -> Response:
        engine: Engine = request.app.state.engine
        job = engine.get(request.path_params["job"])
        if job is None:
            return _errors({EXTRA: "stream: no such job (the server was restarted, or the tab was "
                                   "idle and forgotten: change a value to start again)"})
        job.listeners += 1
        engine.touch(job)

        async def events():
            seen = -1
            quiet = 0.0
            ended = False
            try:
                yield "retry: 2000\n\n"
                while not request.app.state.stopping:
                    job.last_seen = time.monotonic()
                    if job.version != seen and job.version > 0:
                        with job.lock:
                            seen, snap = job.version, job.snapshot
                        yield f"event: update\ndata: {json.dumps(_clean(snap))}\n\n"
                        quiet = 0.0
                        if snap.get("state") != "running":  # the snapshot's own state: the last one was sent
                            yield "event: end\ndata: {}\n\n"
                            ended = True
                            return
                    elif quiet >= HEARTBEAT_SECONDS:
                        yield ": still here\n\n"  # a closed tab is noticed at the next write
                        quiet = 0.0
                    if await request.is_disconnected():
                        return
                    await asyncio.sleep(POLL_SECONDS)
                    quiet += POLL_SECONDS
            finally:
                job.listeners -= 1
                job.last_seen = time.monotonic()
                if job.listeners <= 0:
                    job.cancel()  # nobody watches these games any more
                    if not ended and not request.app.state.stopping:
                        engine.forget_tab(job.tab, job)  # closed before the end: the tab is gone

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    # Only the explorer's own page: another Host (DNS rebinding), another page's Origin, a
    # change that is not JSON are refused before any route (heron_sim.explore.guard).
    app = Starlette(middleware=[Middleware(OwnPageOnly)], routes=[
        Route("/", index),
        Route("/api/schema", api_schema),
        Route("/api/explain", api_explain),
        Route("/api/run", api_run, methods=["POST"]),
        Route("/api/panel", api_panel, methods=["POST"]),
        Route("/api/cancel", api_cancel, methods=["POST"]),
        Route("/api/tune", api_tune, methods=["POST"]),
        Route("/api/load", api_load, methods=["POST"]),
        Route("/api/proposals", api_proposals),
        Route("/api/sheet", api_sheet, methods=["POST"]),
        Route("/api/status", api_status),
        Route("/api/board", api_board, methods=["POST"]),
        Route("/api/stream/{job}", api_stream),
        Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
    ])
    app.state.engine = engine if engine is not None else Engine()
    app.state.stopping = False
    return app


_MARKER = re.compile(r"\[\[(.+?)\]\](?!\])", re.S)


def page_msgids(html: str) -> list[str]:
    """The page's texts to translate: the ``[[English text]]`` markers of ``index.html``."""
    return _MARKER.findall(html)


def page(html: str, lang: str) -> str:
    """``index.html`` in ``lang``: each ``[[English text]]`` marker replaced by its entry in the
    catalogue (trusted HTML, as the template's own), the page's language and the script's
    catalogue (the page's script translates what it draws with it) filled in."""
    from ..rules.words import GUIDES

    html = _MARKER.sub(lambda m: gettext(m.group(1), lang), html)
    html = html.replace("{games}", '<span id="panel-games"></span>')
    doc = {"lang": lang, "messages": catalogue(lang), "guides": GUIDES["fr"]}
    js = json.dumps(doc, ensure_ascii=True).replace("</", "<\\/")
    return html.replace("__LANG__", lang).replace("__I18N__", js)


def rule_words(setup, lang: str) -> list[dict]:
    """The variant's rules by guide (``[guide.NAME]``) and by player count (``[seats.N]``), each
    its own field in the booklet's words in ``lang`` (heron_sim.lab.phrases): ``key`` (--set's
    spelling), ``title`` (« L'Angoisse du Héron (Guide Héron) ») and ``sentence``. The form has
    no input of its own for them (they are written in "other rules"): the page shows them so."""
    from ..lab.changes import rule_changes
    from ..lab.phrases import phrase

    out = []
    for c in rule_changes(setup.base, setup.variant):
        if not c.key.startswith(("guide.", "seats.")):
            continue
        try:
            title, sentence = phrase(c.key, c.new, lang)
        except (HeronSimError, KeyError, TypeError, ValueError):
            continue
        out.append({"key": c.key, "title": title, "sentence": sentence})
    return out


def _exports(setup) -> dict:
    name = exports.file_name(setup)
    return {"variant_toml": exports.variant_toml(setup), "file_name": name,
            "commands": exports.commands(setup, name), "changed": setup.changed,
            "changes": {k: v for k, v in setup.overrides.items()}}


def _evidence(engine: Engine, tab: str, setup) -> dict | None:
    """The paired figures behind a rule sheet: the tab's latest games of these very rules, as the
    lab reports a variant's effects (metric, label, base, variant, diff, low, high, reading)."""
    job = engine.by_tab.get(tab)
    snap = job.snapshot if isinstance(job, CompareJob) and job.setup.variant == setup.variant else {}
    if not snap.get("rows"):
        return None
    return {"games": snap["games"], "seed": setup.seed, "seatings": setup.seatings,
            "effects": [{"metric": r["key"], "label": r["label"], "base": r["base"], "variant": r["variant"],
                         "reference": None, "diff": r["diff"], "low": r["low"], "high": r["high"],
                         "significant": r["reading"]} for r in snap["rows"]]}
