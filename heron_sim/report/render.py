"""Render report sections to ``report.html`` (one self-contained page, figures embedded as
base64 PNG; a jinja2 template) and ``report.md`` (PNG files beside it, under ``figures/``), and
the machine-readable ``findings.json``.

Order: the executive answers, the Angoisse rates reconciled, the glossary and the assumptions,
then the Héron sections, the lighter games in an appendix, and the run's metadata.
"""

from __future__ import annotations

import base64
import json
import math
import multiprocessing
import os
import re
import signal
import threading
import time
from pathlib import Path

import markdown as _markdown_lib
import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from . import figures as F
from .executive import ASSUMPTIONS, GLOSSARY, TARGET_MINUTES, anxiety_reconciliation, build_rows, verdict, verdict_basis
from ..analysis.judge import READINGS
from ..errors import HeronSimError
from ..i18n import DEFAULT, LANGS
from ..sections import Section
from .vocabulary import vocab  # noqa: F401  (the page's one vocabulary; re-exported)

_ENV = Environment(loader=PackageLoader("heron_sim.report", "templates"), autoescape=select_autoescape(["html", "j2"]),
                   trim_blocks=True, lstrip_blocks=True)

def brief_words(text: str) -> str:
    """An answer's words as the brief shows them: what the annex holds is "in the annex", not
    "below"."""
    return str(text).replace("reconciled below", "reconciled in the annex")


_ENV.filters["brief_words"] = brief_words

#: Cells that mean "no value": shown as "n/a" rather than nan/None.
_MISSING = re.compile(r"\b(nan|None)\b( ?%)?( ?\[[^\]]*\])?")


# ---------------------------------------------------------------- tables
def display_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its index as ordinary columns (no empty index-name header row); a
    default RangeIndex is dropped. Missing values become "—"."""
    idx = frame.index
    if isinstance(idx, pd.RangeIndex) and idx.name is None:
        out = frame.copy()
    else:
        names = [n if n else "" for n in idx.names]
        out = frame.copy()
        out.index = pd.MultiIndex.from_tuples(list(idx), names=names) if isinstance(idx, pd.MultiIndex) else pd.Index(idx, name=names[0])
        if len(names) == 1 and names[0] in out.columns:
            out.columns = [f"{c} " if c == names[0] else c for c in out.columns]
        out = out.reset_index(names=[n if n else " " * (i + 1) for i, n in enumerate(names)])
    out.columns = [str(c) for c in out.columns]
    return out.map(lambda v: "—" if v is None or (isinstance(v, float) and math.isnan(v)) else v)


def table_html(frame: pd.DataFrame, text: bool = False, tr=None) -> Markup:
    """A table as HTML; ``text``: a table of sentences, every cell aligned left. Every cell
    carries its column's name (``data-label``), so that a narrow screen can show each row as a
    card instead of a table wider than its box. ``tr``: each header and cell's text in the
    page's language (a lighter game's French page), instead of :func:`vocab`."""
    d = display_frame(frame)
    tr = tr or vocab
    cols = [tr(str(c).strip()).strip() for c in d.columns]
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = []
    for row in d.itertuples(index=False):
        cells = "".join(f'<td data-label="{escape(c)}">{escape(tr(_cell(v)))}</td>' for c, v in zip(cols, row))
        body.append(f"<tr>{cells}</tr>")
    cls = "dataframe text" if text else "dataframe"
    return Markup(f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')


def _cell(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return str(v)


#: One vocabulary on every page: the game's own words for its two events.
def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub Markdown table of a (string) DataFrame, its index as the first columns."""
    d = display_frame(frame)
    header = [c.strip() for c in d.columns]
    lines = ["| " + " | ".join(_md(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in d.itertuples(index=False):
        lines.append("| " + " | ".join(_md(v) for v in row) + " |")
    return "\n".join(lines)


def _md(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return str(v).replace("|", "\\|").replace("\n", " ")


# ---------------------------------------------------------------- text
def md_inline(text: str) -> Markup:
    """One paragraph of Markdown (`code`, **bold**, *em*) as inline HTML."""
    t = str(escape(vocab(text))).replace("&#39;", "'").replace("&#34;", '"')
    if re.match(r"^\s*([*+-]|\d+\.)\s", t):  # a sentence, not a list
        t = "\\" + t.lstrip()
    h = _markdown_lib.markdown(t)
    h = re.sub(r"^<p>(.*)</p>$", r"\1", h.strip(), flags=re.S)
    return Markup(h)


_ENV.filters["md_inline"] = md_inline


def demote_headings(text: str, levels: int = 2) -> str:
    """Markdown with every ATX heading moved ``levels`` deeper (at most ######)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        out.append(f"{'#' * min(6, len(m.group(1)) + levels)} {m.group(2)}" if m else line)
    return "\n".join(out)


def clean_missing(text: str) -> str:
    """nan / None (and a following '%' or interval) as "n/a"."""
    return _MISSING.sub("n/a", text)


def markdown_block_html(text: str, levels: int = 2) -> Markup:
    """A Markdown block (a lighter game's own summary) as HTML by the ``markdown`` library,
    headings moved ``levels`` deeper, every table in a scrolling box."""
    h = _markdown_lib.markdown(clean_missing(demote_headings(text, levels)), extensions=["tables"])
    h = h.replace("<table>", "<div class='table-wrap'><table>").replace("</table>", "</table></div>")
    return Markup(h)


# ---------------------------------------------------------------- figures
#: How many processes draw the report's figures (``1``: one after the other in this process, for
#: debugging); unset: one per core the process may use, at most one per figure.
FIGURE_WORKERS_ENV = "HERON_SIM_FIGURE_WORKERS"


def figure_workers(figures: int, workers: int | None = None) -> int:
    """The processes :func:`render_figures` draws ``figures`` drawings with: ``workers`` (else
    :data:`FIGURE_WORKERS_ENV`, else the cores this process may use), at most one per figure; 1
    (this process alone) where processes cannot be forked (the workers inherit the figures'
    data instead of receiving it pickled)."""
    if workers is None:
        env = os.environ.get(FIGURE_WORKERS_ENV, "").strip()
        if env:
            try:
                workers = int(env)
            except ValueError:
                workers = 0
            if workers < 1:
                raise HeronSimError(f"{FIGURE_WORKERS_ENV}: {env!r}; allowed: a whole number of processes, 1 or more "
                                    "(1 draws the figures one after the other)")
        else:
            workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(int(workers), figures))


#: The drawings of the :func:`render_figures` call in progress in worker processes, ``(lang,
#: plot, path)`` each: set before they are forked, which read them from here (nothing is
#: pickled but an index); one such call at a time (:data:`_PENDING_LOCK`).
_PENDING: list = []
_PENDING_LOCK = threading.Lock()
#: Each language's words (:class:`heron_sim.report.annex_lang.AnnexWords`) in a worker process.
_WORDS: dict = {}


def _draw_one(item: tuple, words: dict) -> list[str]:
    """Draw and save one drawing ``(lang, plot, path)``; returns the texts its lettering lacked
    in the catalogue (``words``: one :class:`AnnexWords` per language, reused)."""
    from .annex_lang import AnnexWords

    lg, spec, path = item
    w = words.get(lg)
    if w is None:
        w = words[lg] = AnnexWords(lg)
    start = len(w.missing)
    F.save(F.draw(spec, w.tr, lg), path)
    return w.missing[start:]


#: In a worker process: held while a figure is drawn and saved.
_DRAWING = threading.Lock()


def _figure_worker_init(parent: int) -> None:
    """A figure worker leaves Ctrl-C to the report's process ``parent`` (which lets the figures
    being drawn finish, each written whole, and draws no more) and dies by SIGTERM as a plain
    process does (not through the command line's handler it inherits). Once ``parent`` is gone (a
    second Ctrl-C exits it at once) the worker stops too: the figure it is drawing is dropped (its
    temporary file removed, nothing written under its name) and it exits; no worker waits for
    work forever."""
    def on_sigint(signum, frame):  # noqa: ARG001
        if os.getppid() != parent and _DRAWING.locked():
            raise KeyboardInterrupt  # atomic_path removes the figure's temporary file

    signal.signal(signal.SIGINT, on_sigint)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _WORDS.clear()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)
        _DRAWING.acquire(timeout=10)  # the drawing in progress unwinds
        os._exit(1)

    threading.Thread(target=watch, name="heron-sim-figures-parent", daemon=True).start()


def _figure_worker(i: int) -> list[str]:
    with _DRAWING:
        return _draw_one(_PENDING[i], _WORDS)


def render_figures(sections: list[Section], fig_dir: Path, langs: tuple = ("en",), default: str = "en",
                   missing: list | None = None, workers: int | None = None,
                   timings: dict | None = None) -> dict[str, dict[tuple[str, str], Path]]:
    """Draw every figure once per language, its lettering in that language
    (:func:`heron_sim.report.figures.localize`), save it as PNG (``figures/SECTION-NAME.png`` in
    ``default``, ``figures/SECTION-NAME.en.png`` in the other); returns ``{lang: {(section,
    name): path}}``. ``missing``: where a French figure's texts without an entry are added (in
    the order one process drawing them one after the other finds them).

    The drawings are shared among :func:`figure_workers` forked processes (``workers``, else
    :data:`FIGURE_WORKERS_ENV`, else one per core); each PNG's bytes are those this process
    would write. A KeyboardInterrupt draws no more (the figures being drawn are finished: each
    PNG is written whole or not at all) and goes on up. ``timings``: ``"figures"`` (seconds)
    and ``"figure workers"`` are set there."""
    t0 = time.perf_counter()
    fig_dir.mkdir(parents=True, exist_ok=True)
    out: dict = {lg: {} for lg in langs}
    todo = []
    for lg in langs:
        tag = "" if lg == default else f".{lg}"
        for sec in sections:
            for f in sec.figures:
                path = fig_dir / f"{sec.key}-{f.name}{tag}.png"
                todo.append((lg, f.plot, path))
                out[lg][(sec.key, f.name)] = path
    n = figure_workers(len(todo), workers)
    if n <= 1:
        words: dict = {}
        found = [_draw_one(item, words) for item in todo]
    else:
        found = _in_workers(todo, n)
    if missing is not None:
        for m in found:
            missing += m
    if timings is not None:
        timings["figures"] = time.perf_counter() - t0
        timings["figure workers"] = n
    return out


def _in_workers(todo: list, n: int) -> list[list[str]]:
    """Draw the drawings ``todo`` in ``n`` forked processes; each drawing's missing texts, in
    its order."""
    global _PENDING
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

    with _PENDING_LOCK:
        _PENDING = todo
        pool = None
        try:
            pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork"),
                                       initializer=_figure_worker_init, initargs=(os.getpid(),))
            futures = [pool.submit(_figure_worker, i) for i in range(len(todo))]
            wait(futures, return_when=FIRST_EXCEPTION)
            found = [f.result() for f in futures]  # the first failure (a drawing's error) goes on up
        except BaseException:
            if pool is not None:  # Ctrl-C or a failure: the drawings begun end whole, no new ones begin
                pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            _PENDING = []
        pool.shutdown(wait=True)
    return found


def _png_b64(path: Path) -> str:
    return base64.b64encode(Path(path).read_bytes()).decode("ascii")


# ---------------------------------------------------------------- the report
def ordered(sections: list[Section]) -> list[Section]:
    """The Héron sections first (plan order), the lighter games after them, the lab's last."""
    return ([s for s in sections if s.part not in ("appendix", "lab")] + [s for s in sections if s.part == "appendix"]
            + [s for s in sections if s.part == "lab"])


def all_facts(sections: list[Section]) -> dict:
    out = {}
    for s in sections:
        for f in s.facts:
            out[f.id] = f
    return out


def _anchors(sections: list[Section]) -> dict[str, str]:
    """Kind-like names ("modes", "pond", ...) to section ids, from the facts each section holds."""
    out = {}
    for s in sections:
        out.setdefault(s.key, s.key)
        for f in s.facts:
            head = f.id.split(".")[0]
            head = {"turns": "pond", "balance": "across", "players": "sensitivity", "d6": "sensitivity"}.get(head, head)
            out.setdefault(head, s.key)
    return out


def findings_json(sections: list[Section], meta: dict) -> dict:
    return {"schema": "heron-sim findings 1",
            "meta": {k: str(v) for k, v in meta.items()},
            "findings": [f.as_dict() for f in all_facts(sections).values()]}


def game_page(sec: Section) -> str:
    """The file name of a lighter game's own page."""
    key = sec.key.lower().removeprefix("games-")
    return f"game-{re.sub(r'[^a-z0-9-]+', '-', key).strip('-')}.html"


#: The designer's brief (prints on at most 10 A4 pages) and its annex (every table, the
#: reconciliations, the methods), each linked from the other and from the index.
BRIEF, ANNEX = "report.html", "report-annex.html"
#: The most A4 pages the brief may print on (tests/test_report_browser.py prints it).
BRIEF_MAX_PAGES = 10


#: Files an older report wrote beside the pages that no code writes any more (removed so that
#: results/ holds only what this code made).
STALE = ("modes.csv", "modes.md")


def write_report(sections: list[Section], meta: dict, out_dir: str | Path, title: str = "Héron dice race — balance report",
                 lang: str = DEFAULT, timings: dict | None = None) -> dict:
    """Write ``index.html`` (links every page), ``report.html`` and ``report.md`` (the designer's
    brief), ``report-annex.html`` and ``report-annex.md`` (the annex), one page per lighter game
    (``game-*.html``), ``findings.json`` and ``figures/*.png``. The brief and the index are in
    ``lang`` (French by default, issue 33) and beside them in the other language
    (``report.en.html``, ``report.en.md``, ``index.en.html``; with ``lang="en"``: ``.fr``); so
    are the lighter games' pages (``game-NAME.html``, ``game-NAME.en.html``:
    :mod:`heron_sim.report.game_lang`), the annex (``report-annex.en.html``, ``.en.md``:
    :mod:`heron_sim.report.annex_lang`) and the figures (``figures/NAME.png``,
    ``figures/NAME.en.png``). ``paths["missing"]``: the phrases of the brief, the annex, the
    game pages and the figures the French catalogue lacks (shown in English);
    ``paths["annex"][lang]``: each language's annex. ``timings``: where the figures' seconds and
    processes are set (:func:`render_figures`)."""
    from .brief_lang import files

    if lang not in LANGS:
        raise ValueError(f"lang: {lang!r}; allowed: {', '.join(LANGS)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fig_dir = out_dir / "figures"
    for old in fig_dir.glob("*.png") if fig_dir.is_dir() else []:
        old.unlink()
    stale = [out_dir / n for n in STALE] + [out_dir / f for other in LANGS for f in files(other, "xx").values()]
    for old in list(out_dir.glob("game-*.html")) + list(out_dir.glob("lab-*.html")) + stale:
        if old.is_file():
            old.unlink()
    sections = ordered(sections)
    heron = [s for s in sections if s.part not in ("appendix", "lab")]
    games = [s for s in sections if s.part == "appendix"]
    labs = [s for s in sections if s.part == "lab"]
    langs = (lang,) + tuple(x for x in LANGS if x != lang)
    missing: list[str] = []
    pngs = render_figures(sections, fig_dir, langs, lang, missing, timings=timings)
    facts = all_facts(sections)
    rows = build_rows(facts, _anchors(heron))
    for r in rows:  # one vocabulary on the page
        r.question, r.answer, r.sure, r.action = (vocab(x) for x in (r.question, r.answer, r.sure, r.action))
    wrong, fine, open_ = verdict(facts)
    for p in wrong + fine + open_:
        p.what = vocab(p.what)
    reconcile = anxiety_reconciliation(facts)
    changes = _changes(out_dir, rows, (wrong, fine, open_), bool(labs))
    rulebook = _rulebook(out_dir)
    paths = {"html": out_dir / BRIEF, "md": out_dir / "report.md", "annex_html": out_dir / ANNEX,
             "annex_md": out_dir / "report-annex.md", "json": out_dir / "findings.json",
             "index": out_dir / "index.html", "games": [], "brief": {}, "annex": {}, "missing": missing}
    for lg in langs:
        f = files(lg, lang)
        _atomic_write(out_dir / f["md"], _brief_markdown(meta, title, rows, (wrong, fine, open_), changes, games, lg, lang,
                                                         paths["missing"], facts, rulebook, out_dir))
        _atomic_write(out_dir / f["html"], _brief_html(meta, title, rows, (wrong, fine, open_), changes, games, lg, lang,
                                                       paths["missing"], facts, rulebook, out_dir))
        paths["brief"][lg] = {k: out_dir / v for k, v in f.items()}
    for lg in langs:  # the annex in ``lang`` (report-annex.html) and in the other (report-annex.en.html)
        f = files(lg, lang)
        _atomic_write(out_dir / f["annex_md"], _markdown(heron, meta, title, pngs[lg], out_dir, rows, reconcile, lg, lang,
                                                         paths["missing"]))
        _atomic_write(out_dir / f["annex"], _html(heron, meta, title, pngs[lg], rows, reconcile, games=games,
                                                  brief=f["html"], lang=lg, default=lang, missing=paths["missing"]))
        paths["annex"][lg] = {"html": out_dir / f["annex"], "md": out_dir / f["annex_md"]}
    paths["missing"] = list(dict.fromkeys(paths["missing"]))
    from .game_lang import GameWords, page_file

    for g in games:  # each game's page in ``lang`` (game-NAME.html) and in the other (game-NAME.en.html)
        for lg in langs:
            gp = out_dir / page_file(game_page(g), lg, lang)
            _atomic_write(gp, _html([g], meta, g.title, pngs[lg], [], pd.DataFrame(), None, [], game=True, lang=lg,
                                    default=lang, missing=paths["missing"], results=out_dir))
            paths["games"].append(gp)
    paths["missing"] = list(dict.fromkeys(paths["missing"]))
    for lab in labs:
        if lab.key == "proposed-rule-changes":  # the lab's own page, in French and English (issue 33)
            from .lab_page import write_lab_pages

            paths["games"] += write_lab_pages(out_dir, meta)
            continue
        lp = out_dir / f"lab-{lab.key}.html"
        _atomic_write(lp, _html([lab], meta, lab.title, pngs["en"], [], pd.DataFrame(), None, [], game=True))
        paths["games"].append(lp)
    for lg in LANGS:  # each game's page in the index's language, the other language's beside it
        gw = GameWords(lg)
        index_games = [{"href": page_file(game_page(g), lg, lang), "title": gw.tr(g.title),
                        "href_other": page_file(game_page(g), "en" if lg == "fr" else "fr", lang),
                        "intro": md_inline(gw.tr(g.intro)) if g.intro else ""} for g in games]
        _atomic_write(out_dir / files(lg, lang)["index"],
                      _index_html(meta, title, wrong, index_games, [_lab_link(s) for s in labs], lg, lang))
    _atomic_write(paths["json"], json.dumps(findings_json(sections, meta), indent=1, ensure_ascii=False) + "\n")
    paths["figures"] = sorted(p for by_lang in pngs.values() for p in by_lang.values())
    return paths


def _changes(out_dir: Path, rows, judged, labs: bool) -> list:
    """Each problem's study and its answer (:mod:`heron_sim.report.studies`), placed in the
    verdict's order; each verdict problem and each answer learns the studies that answer it."""
    from .studies import action_words, attach, study_changes, study_of

    wrong, fine, open_ = judged
    changes = attach(study_changes(out_dir, out_dir, lab_page=labs), wrong, fine, open_)
    for c in changes:
        c.answer, c.problem = vocab(c.answer), vocab(c.problem)
    for p in wrong + fine + open_:
        p.studies = study_of(p.anchor, changes, verdict=True)
    for r in rows:
        r.studies = study_of(r.slug, changes)
        r.action = action_words(r.action, r.studies)
    return changes


def _brief_toc(changes, w) -> list[dict]:
    toc = [{"id": "verdict", "title": w.text("Verdict")}]
    if changes:
        toc.append({"id": "changes", "title": w.text("What to change")})
    return toc + [{"id": "answers", "title": w.text("Answers to the test plan")},
                  {"id": "readings", "title": w.text("How to read “how sure”")}]


def _other(lang: str, default: str, where: str) -> dict:
    """The same page in the other language: its language, its file and the link's words."""
    from .brief_lang import Words, files

    other = "en" if lang == "fr" else "fr"
    f = files(other, default)
    words = Words(lang).text("This page in English" if other == "en" else "This page in French")
    return {"lang": other, "href": f[where], "words": words, "index": f["index"], "brief": f["html"]}


def _lab_href(href: str, lang: str) -> str:
    """A link to the lab's page, to its page in ``lang``."""
    from .lab_page import FILES

    page, _, frag = href.partition("#")
    if page in FILES.values():
        page = FILES[lang]
    return page + (f"#{frag}" if frag else "")


def _rulebook(out_dir: Path) -> dict | None:
    """The combined rulebook's summary (``heron-sim tune --combine``: ``rulebook/summary.json``
    beside the brief), None when there is none; a file that cannot be read is an error."""
    p = Path(out_dir) / "rulebook" / "summary.json"
    if not p.is_file():
        return None
    try:
        res = json.loads(p.read_text(encoding="utf-8"))
        res["title"]["fr"], res["goals"], res["answers"]
    except (ValueError, KeyError, TypeError) as e:
        raise HeronSimError(f"{p}: not a rulebook summary of heron-sim tune --combine ({e}); run it again or "
                            "remove the folder") from None
    # played on the answers the studies give today? (a study run again since: the line says so)
    res["stale"] = any(not (Path(out_dir) / f"tune-{a.get('study')}" / "variants" / f"{a.get('study')}-1-{a.get('id')}.toml")
                       .is_file() for a in res["answers"])
    return res


def _rulebook_line(rulebook: dict | None, w, md: bool) -> dict | None:
    """The first screen's last line: the proposals played together (its words and its link)."""
    if not rulebook:
        return None
    from ..lab.combine_text import headline

    href = (f"rulebook/rulebook.{w.lang}.md" if md else
            "rulebook/rulebook.html" if w.lang == "fr" else "rulebook/rulebook.en.html")
    text = headline(rulebook, w.lang)
    if rulebook.get("stale"):
        text += " " + w.text("(Played on earlier answers of the studies: run make rulebook again.)")
    return {"text": text, "href": href, "link": w.text("read the revised booklet")}


#: The playtest kit of the source tree (docs/playtest/: the tally sheet, one printable page a game,
#: and its protocol), linked from the brief under the verdict: the length verdict's minutes rest on
#: the seconds a turn it measures.
PLAYTEST_KIT = Path(__file__).resolve().parents[2] / "docs" / "playtest"



def _kit_line(out_dir: Path | None, w, md: bool) -> dict | None:
    """The brief's line under the verdict that links the playtest kit in the page's language
    (``tally.fr.md`` / ``tally.fr.html``, relative to ``out_dir``, where the brief is written):
    ``{"text": its words with ``{kit}`` where the link goes, "href", "link": the link's words}``;
    None when the kit is not beside the package (an installed copy) or ``out_dir`` is unknown."""
    from .brief_lang import KIT_TEXTS
    from .executive import TARGETS

    page = PLAYTEST_KIT / f"tally.{w.lang}.{'md' if md else 'html'}"
    if out_dir is None or not page.is_file():
        return None
    assumed = TARGETS.assumed("seconds_per_turn")
    text = w.text(KIT_TEXTS[0] if assumed else KIT_TEXTS[1], s=w.num(float(TARGETS["seconds_per_turn"]), 0),
                  kit="{kit}", cmd="`heron-sim calibrate`" if md else "{cmd}")
    return {"text": text, "href": os.path.relpath(page, Path(out_dir).resolve()).replace(os.sep, "/"),
            "link": w.text(KIT_TEXTS[2])}


def _change_link(c, studies, t, tr) -> str:
    """A problem's link to one of its studies: "what to change", named by the study's problem
    where the problem has several ("what to change: the Serpent's holder within the margin …"),
    so that two links never read the same."""
    return t("what to change") if len(studies) <= 1 else \
        t("what to change: {study}", study=tr(c.problem.split(": ")[-1]))


def _brief_html(meta, title, rows, judged, changes, games, lang: str = "en", default: str = "en", missing=None,
                facts: dict | None = None, rulebook: dict | None = None, out_dir: Path | None = None) -> str:
    """The designer's brief: the first screen (one line per problem, its change beside it), the
    verdict, what to change (each problem's study), the answers in a few lines, each linking to
    its detail in the annex of its language; in ``lang``."""
    from .brief_lang import Words, files
    from .first_screen import first_screen

    w = Words(lang)
    first = first_screen(judged, changes, facts or {}, w)
    wrong, fine, open_ = judged
    annex = files(lang, default)["annex"]
    annex_link = Markup('<a href="{}">{}</a>').format(annex, w.text("the annex"))
    out = _ENV.get_template("brief.html.j2").render(
        lang=lang, _=w.html, tr=w.tr, num=w.num, title=w.text(title), subtitle=_subtitle(meta, "heron", lang),
        sc="\u202f; " if lang == "fr" else "; ", change_link=lambda c, studies: _change_link(c, studies, w.html, w.tr),
        toc=_brief_toc(changes, w), rows=rows, wrong=wrong, fine=fine, open=open_, changes=changes, first=first,
        rulebook=_rulebook_line(rulebook, w, md=False), kit=_kit_html(out_dir, w),
        basis=verdict_basis(), readings=READINGS, annex=annex, annex_link=annex_link,
        index=files(lang, default)["index"], other=_other(lang, default, "html"),
        below=Markup('<a href="#readings">{}</a>').format(w.text("below")),
        code=lambda t: Markup("<code>{}</code>").format(t), link=lambda h: _lab_href(h, lang),
        row_slugs={r.slug: r.question for r in rows},
        games=[{"href": _game_href(g, lang, default), "title": _game_title(g, lang)} for g in games])
    if missing is not None:
        missing += w.missing
    return out


def _kit_html(out_dir: Path | None, w) -> Markup | None:
    """:func:`_kit_line` as the brief's HTML (the link to the kit's printable page)."""
    kit = _kit_line(out_dir, w, md=False)
    if kit is None:
        return None
    return Markup(escape(kit["text"])).format(kit=Markup('<a href="{}">{}</a>').format(kit["href"], kit["link"]),
                                              cmd=Markup("<code>heron-sim calibrate</code>"))


def _brief_markdown(meta, title, rows, judged, changes, games, lang: str = "en", default: str = "en",
                    missing=None, facts: dict | None = None, rulebook: dict | None = None,
                    out_dir: Path | None = None) -> str:
    """The designer's brief in Markdown (report.md): the same as :func:`_brief_html`."""
    from .brief_lang import Words, files
    from .first_screen import first_screen

    w = Words(lang)
    first = first_screen(judged, changes, facts or {}, w)
    t, tr = w.text, w.tr
    wrong, fine, open_ = judged
    annex = files(lang, default)["annex_md"]
    other = _other(lang, default, "md")
    annex_words = t("the annex")
    sc = "\u202f; " if lang == "fr" else "; "
    head = t("{title} — the designer's brief", title=t(title))
    parts = [f"# {head}", "", _subtitle(meta, "heron", lang),
             "", t("The verdict, what to change for each problem and the answers to the test plan, each in a few lines; "
                   "{annex} holds every table, the reconciliations and the methods.", annex=f"[{annex_words}]({annex})")
             + f" [{other['words']}]({other['href']})", "", f"## {t('Verdict')}", ""]
    if first:  # the first screen: one line per problem, the change proposed beside it
        parts += [t("At a glance: each problem, the change proposed beside it and the tables where it holds; the details "
                    "follow."), ""]
        parts += [f"{i}. " + (f"*{ln.tag}* — " if ln.tag else "") + f"**{ln.problem}** — {ln.figure} → **{ln.change}**"
                  + (f" — {ln.holds}" if ln.holds else "")
                  + (f" · [{t('what to change')}](#{ln.study})" if ln.study else "")
                  + f" · [{t('details')}]({annex}#{ln.anchor})" for i, ln in enumerate(first, 1)]
        parts += [""]
    kit = _kit_line(out_dir, w, md=True)
    if kit:  # under the verdict's lines: the length verdict's seconds a turn, measured by the kit
        parts += [kit["text"].format(kit=f"[{kit['link']}]({kit['href']})"), ""]
    if first:
        book = _rulebook_line(rulebook, w, md=True)
        if book:
            parts += [f"{book['text']} [{book['link']}]({book['href']})", ""]
    if wrong:
        parts += [t("The details: every gap, largest first ({basis}):" if first else
                    "What is wrong with the game, largest first ({basis}):", basis=tr(verdict_basis())), ""]
    parts += [f"{i}. **{tr(p.what)}** — {tr(p.figure)} {t('({size} × its margin)', size=w.num(p.size))}"
              + (f" — {tr(p.assumed)}" if p.assumed else "")
              + "".join(f" · [{_change_link(c, getattr(p, 'studies', []), t, tr)}](#{c.slug})"
                        for c in getattr(p, "studies", []))
              + f" · [{t('details')}]({annex}#{p.anchor})"
              for i, p in enumerate(wrong, 1)] or [t("Nothing is beyond its margin.")]
    for head, probs in (("Fine:", fine), ("Not settled:", open_)):
        if probs:
            parts += ["", t(head) + " " + sc.join(f"{tr(p.what)} ({tr(p.figure)}" + (f"{sc}{tr(p.assumed)}" if p.assumed else "")
                                                   + ")" for p in probs) + "."]
    if games:
        parts += ["", t("The lighter games have pages of their own:") + " "
                  + ", ".join(f"[{_game_title(g, lang)}]({_game_href(g, lang, default)})" for g in games) + "."]
    if changes:
        parts += ["", "## " + t("What to change: each problem's study"), "",
                  t("Each problem of the verdict has a study in the tuning lab (`heron-sim tune`); its answer is what to change.")]
        slugs = {r.slug: r.question for r in rows}
        for c in changes:
            links = ([f"[{t(words)}]({_lab_href(h, lang)})" for words, h in c.links]
                     + [f"[{t('details: {question}', question=tr(slugs[a]))}]({annex}#{a})" for a in c.anchors if a in slugs])
            parts += ["", f'<a id="{c.slug}"></a>', "", f"### {tr(c.problem)}", "", f"*{tr(c.verdict)}*", "",
                      tr(c.answer, c.slots), "", " · ".join(links)]
    parts += ["", f"## {t('Answers to the test plan')}", ""]
    for r in rows:
        studies = getattr(r, "studies", [])
        parts += [f'<a id="{r.slug}"></a>', "", f"### {tr(r.question)} ({t('test plan') if r.plan else t('balance')})", "",
                  tr(brief_words(r.answer)), "",
                  f"{tr(r.figure)} — {tr(brief_words(r.sure))}"
                  + "".join(" · [" + _change_link(c, studies, t, tr) + f"](#{c.slug})"
                            for c in studies)
                  + f" · [{t('details in the annex')}]({annex}#{r.slug})", ""]
    parts += [f"## {t('How to read “how sure”')}", ""] + [f"- **{t(k)}**: {t(v)}" for k, v in READINGS.items()]
    if missing is not None:
        missing += w.missing
    return "\n".join(parts) + "\n"


def _game_href(g, lang: str, default: str) -> str:
    from .game_lang import page_file

    return page_file(game_page(g), lang, default)


def _game_title(g, lang: str) -> str:
    from .game_lang import GameWords

    return GameWords(lang).tr(vocab(g.title))


def _index_html(meta, title, wrong, games, labs, lang: str, default: str) -> str:
    """The index of every page in ``lang``, linking the same index in the other language."""
    from .brief_lang import Words, files

    w = Words(lang)
    f = files(lang, default)
    other = _other(lang, default, "index")
    other.update(index_words=w.text("All pages in English" if other["lang"] == "en" else "All pages in French"),
                 page_words=w.text("in English" if other["lang"] == "en" else "in French"))
    labs = [{**g, "href": _lab_href(g["href"], lang), "title": w.text(g["title"]) if g.get("href_en") else g["title"],
             "lang": lang if g.get("href_en") else "", "href_other": _lab_href(g["href"], other["lang"]) if g.get("href_en") else ""}
            for g in labs]
    return _ENV.get_template("index.html.j2").render(
        lang=lang, _=w.html, tr=w.tr, title=w.text(title), subtitle=_subtitle(meta, "index", lang), wrong=wrong,
        brief=f["html"], brief_md=f["md"], annex=f["annex"], annex_md=f["annex_md"], other=other, games=games, labs=labs,
        md_link=lambda h: Markup('<a href="{0}">{0}</a>').format(h))


def _lab_link(s) -> dict:
    """The index's line of a lab page (the proposals' page: its French title, and its English page)."""
    if s.key == "proposed-rule-changes":
        from .lab_page import FILES

        return {"href": FILES["fr"], "href_en": FILES["en"], "lang": "fr",
                "title": "Rule changes the lab proposes", "intro": ""}
    return {"href": f"lab-{s.key}.html", "title": s.title, "intro": md_inline(s.intro) if s.intro else ""}


def _atomic_write(path: Path, text: str) -> None:
    from ..io import write_text

    write_text(path, text)  # a temporary file beside it, synced, renamed into place


def _meta_rows(meta: dict) -> list[tuple[str, str]]:
    rows = []
    for k, v in meta.items():
        if isinstance(v, (list, tuple)):
            v = ", ".join(map(str, v))
        rows.append((k, str(v)))
    return rows


def _subtitle(meta: dict, where: str = "heron", lang: str = "en") -> str:
    from ..i18n import gettext, number, phrase, typography

    games = meta.get('games played (all)', meta.get('games simulated', '?'))
    try:  # a count written "3,195,000" in the run's metadata: the page's own way (« 3 195 000 »)
        games_text = number(float(str(games).replace(",", "")), 0, lang)
    except ValueError:
        games_text = phrase(str(games), lang)
    head = typography(gettext("Generated from git commit {commit}; {games} games played in the run.", lang), lang).format(
        commit=meta.get('git commit (report)', 'unknown'), games=games_text)
    return head + {"heron": " " + gettext("The lighter games have pages of their own (see the index).", lang),
                   "game": " " + gettext("A lighter game of the same run as the Héron report.", lang)}.get(where, "")


def _glossary_frame(words=None) -> pd.DataFrame:
    """The glossary in the page's language (``words``: its :class:`~heron_sim.report.annex_lang.AnnexWords`):
    the game's word as it is, its English name as it is, what it is translated."""
    t = words.text if words is not None else str
    rows = [(g, en, words.tr(what) if words is not None else what) for g, en, what in GLOSSARY]
    return pd.DataFrame(rows, columns=[t("the game's word"), t("in English"), t("what it is")])


def _html(sections, meta, title, pngs, rows, reconcile, judged=None, games=(), game: bool = False,
          brief: str = "", lang: str = "en", default: str = "en", missing: list | None = None,
          results: Path | None = None) -> str:
    """One page: the Héron report's annex (the answers with their measured remedies, the
    reconciliations, the methods, then every section folded; ``brief``: the brief's file, linked
    from it) or, with ``game``, a lighter game's own page; in ``lang`` (the annex:
    :mod:`heron_sim.report.annex_lang`); ``missing``: where a French page's phrases without an
    entry are added; ``results``: the folder whose lab study of the game is its "what to change"."""
    from ..i18n import number
    from .annex_lang import AnnexWords
    from .brief_lang import files
    from .game_lang import GameWords, page_file

    gw = GameWords(lang) if game else AnnexWords(lang)
    tr = gw.tr if lang != "en" else vocab
    toc = []
    gverdict = None
    if game and sections and getattr(sections[0], "verdict", None) is not None:
        gverdict = getattr(sections[0], "verdicts", {}).get(lang, sections[0].verdict)
        if results is not None:  # what to change: the lab's study of the game in this results folder, if any
            from .game_change import what_to_change

            gverdict.change = what_to_change(gverdict.game, results, gverdict.lang)
        if gverdict.lang == "fr":
            for p in gverdict.wrong + gverdict.fine + gverdict.open:
                p.what, p.figure, p.assumed = (gw.verdict_words(x) for x in (p.what, p.figure, p.assumed))
            gverdict.basis = gw.verdict_words(gverdict.basis)
    if gverdict is not None:
        toc.append({"id": "verdict", "title": gverdict.words("Verdict"), "children": []})
    if not game:
        toc = [{"id": "answers", "title": gw.text("Answers at a glance"), "children": []},
               {"id": "readings", "title": gw.text("How to read “how sure”"), "children": []}]
        if len(reconcile):
            toc.append({"id": "anxiety-rates", "title": gw.text("Every Angoisse rate, reconciled"), "children": []})
        toc += [{"id": "glossary", "title": gw.text("Glossary"), "children": []},
                {"id": "assumptions", "title": gw.text("Assumptions"), "children": []}]
    secs = []
    for sec in sections:
        tables = [{"id": f"{sec.key}-t{i + 1}", "caption": tr(t.caption),
                   "html": table_html(t.frame, tr=tr if lang != "en" else None),
                   "note": md_inline(tr(t.note)) if t.note else ""} for i, t in enumerate(sec.tables)]
        figs = [{"id": f"{sec.key}-f{i + 1}", "caption": tr(f.caption), "b64": _png_b64(pngs[(sec.key, f.name)])}
                for i, f in enumerate(sec.figures)]
        secs.append({"id": sec.key, "title": tr(sec.title), "intro": md_inline(tr(sec.intro)) if sec.intro else "",
                     "findings": [md_inline(tr(f)) for f in sec.findings], "tables": tables, "figures": figs,
                     "markdown": [markdown_block_html(gw.markdown(clean_missing(b))) for b in sec.markdown],
                     "notes": [md_inline(tr(n)) for n in sec.notes]})
        toc.append({"id": sec.key, "title": tr(sec.title), "children": []})
    toc.append({"id": "metadata", "title": gw.text("Run metadata"), "children": []})
    other = None
    olang = "en" if gw.lang == "fr" else "fr"
    if game or brief:  # a game's page or the annex: the same page in the other language
        other = {"lang": olang, "href": page_file(game_page(sections[0]), olang, default) if game
                 else files(olang, default)["annex"],
                 "words": gw.text("This page in English" if olang == "en" else "This page in French")}
    rec_html = table_html(reconcile.drop(columns=["id"]), text=True, tr=tr if lang != "en" else None) if len(reconcile) else ""
    lo_t, hi_t = TARGET_MINUTES
    code = lambda t: Markup("<code>{}</code>").format(t)  # noqa: E731
    mw = gw if not game else AnnexWords(gw.lang)  # the run's metadata, on every page in its language
    meta_rows = [mw.meta(k, v, code) for k, v in _meta_rows(meta)]
    out = _ENV.get_template("report.html.j2").render(
        lang=gw.lang, _=gw.text if game else gw.html, tr=tr, other=other, num=lambda x: number(x, 1, gw.lang),
        link=lambda h, words: Markup('<a href="{}">{}</a>').format(h, words),
        sc="\u202f; " if gw.lang == "fr" else "; ", colon="\u00a0:" if gw.lang == "fr" else ":",
        index=files(gw.lang, default)["index"] if game or brief else "index.html",
        title=gw.text("{title} — annex", title=tr(title)) if brief and not game else tr(title),
        subtitle=_subtitle(meta, "game" if game else "heron", gw.lang),
        toc=toc, rows=rows, reconcile=rec_html, game=game, brief=brief, gverdict=gverdict, basis=verdict_basis(),
        readings=READINGS, target=f"{lo_t:.0f}–{hi_t:.0f} minutes",
        games=[{"href": game_page(g), "title": vocab(g.title)} for g in games],
        glossary=table_html(_glossary_frame(gw), text=True, tr=str), assumptions=ASSUMPTIONS, sections=secs,
        meta=meta_rows)
    if missing is not None:  # after rendering: the template translates the answers' texts as it goes
        missing += gw.missing + (mw.missing if mw is not gw else [])
    return out


def _markdown(sections, meta, title, pngs, out_dir: Path, rows, reconcile, lang: str = "en", default: str = "en",
              missing: list | None = None) -> str:
    """The annex in Markdown in ``lang``: the answers with their measured remedies, the
    reconciliations, the methods and every section (the brief: :func:`_brief_markdown`)."""
    from .annex_lang import AnnexWords
    from .brief_lang import files

    w = AnnexWords(lang)
    t, tr = w.text, w.tr
    f = files(lang, default)
    olang = "en" if lang == "fr" else "fr"
    other = t("This page in English" if olang == "en" else "This page in French")

    def table(frame: pd.DataFrame) -> str:
        return markdown_table(frame if lang == "en" else _translated(frame, tr))

    parts = [f"# {t('{title} — annex', title=tr(title))}", "", _subtitle(meta, "heron", lang), "",
             t("The designer's brief (the verdict, what to change, the answers in a few lines) is {brief}; this annex "
               "holds every table, the reconciliations and the methods.", brief=f"[{f['md']}]({f['md']})")
             + f" [{other}]({files(olang, default)['annex_md']})"]
    parts += ["", f"## {t('Answers at a glance')}", "",
              "| " + " | ".join(t(h) for h in ("question", "answer", "figure [95 % CI], n", "how sure",
                                                 "what a designer could do")) + " |", "|---|---|---|---|---|"]
    for r in rows:
        parts.append(f"| <a id=\"{r.slug}\"></a>**{_md(tr(r.question))}** ({t('test plan') if r.plan else t('balance')}) | "
                     f"{_md(tr(r.answer))} | {_md(tr(r.figure))} | {_md(tr(r.sure))} | {_md(tr(r.action))}"
                     + "".join(" " + _md(t("The lab's study ({study}): {short}", study=tr(c.study_words), short=tr(c.short)))
                               for c in getattr(r, "studies", []))
                     + " |")
    if len(reconcile):
        parts += ["", f"## {t('Every Angoisse rate of this report, reconciled (8 D8)')}", "",
                  table(reconcile.drop(columns=["id"]))]
    parts += ["", f"## {t('Glossary: the game' + chr(39) + 's words')}", "", markdown_table(_glossary_frame(w)), "",
              f"## {t('Assumptions')}", ""]
    parts += [f"- {tr(a)}" for a in ASSUMPTIONS]
    in_app = False
    for sec in sections:
        if sec.part == "appendix" and not in_app:
            parts += ["", f"## {t('Appendix: the lighter games')}"]
            in_app = True
        h = "###" if in_app else "##"
        parts += ["", f"{h} {tr(sec.title)}", ""]
        if sec.intro:
            parts += [tr(sec.intro), ""]
        if sec.findings:
            parts += [f"- {tr(x)}" for x in sec.findings] + [""]
        for tb in sec.tables:
            parts += [f"**{tr(tb.caption)}**", "", table(tb.frame), ""]
            if tb.note:
                parts += [f"*{tr(tb.note)}*", ""]
        for fg in sec.figures:
            rel = pngs[(sec.key, fg.name)].relative_to(out_dir).as_posix()
            parts += [f"![{tr(fg.caption)}]({rel})", "", f"*{tr(fg.caption)}*", ""]
        for block in sec.markdown:
            parts += [w.markdown(clean_missing(demote_headings(block, 3 if in_app else 2))), ""]
        for n in sec.notes:
            parts += [f"*{tr(n)}*", ""]
    parts += ["", f"## {t('Run metadata')}", "", f"| {t('key')} | {t('value')} |", "|---|---|"]
    parts += [f"| {_md(k)} | {_md(v)} |" for k, v in (w.meta(k, v, lambda x: f"`{x}`") for k, v in _meta_rows(meta))]
    if missing is not None:
        missing += w.missing
    return "\n".join(parts) + "\n"


def _translated(frame: pd.DataFrame, tr) -> pd.DataFrame:
    """A table with its headers and cells in the page's language (its index as columns)."""
    d = display_frame(frame)
    out = d.map(lambda v: tr(_cell(v)))
    out.columns = [tr(str(c).strip()) or str(c) for c in d.columns]
    return out
