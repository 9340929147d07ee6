"""The designer's brief and the index in French (the default) and English (issue 33, item 1).

Two kinds of text, both from the catalogue ``heron_sim/locale/fr.po``:

- the pages' own words (headings, links, explanations): English message ids, written ``_("…")``
  in the templates (``brief.html.j2``, ``index.html.j2``) and listed in :data:`TEXTS` for the
  Markdown brief; :func:`msgids` gathers them all and a test checks each has a French entry;
- the report's sentences, built from the figures by the experiment kinds in English (the
  verdict's lines, the answers, each study's answer): translated phrase by phrase with their
  numbers as placeholders (:func:`heron_sim.i18n.phrase`), the numbers written the French way.

The annex (``report-annex.html``, every table) is translated the same way:
:mod:`heron_sim.report.annex_lang`.
"""

from __future__ import annotations

import re
from importlib import resources

from markupsafe import Markup

from ..i18n import DEFAULT, LANGS, gettext, number, phrase, typography

#: The brief's and the index's file in each language: the default language's is ``report.html`` /
#: ``index.html``; the other's carries its language (``report.en.html``, as the lab's page does).
def files(lang: str, default: str = DEFAULT) -> dict[str, str]:
    """``{"html", "md", "index", "annex", "annex_md"}``: the brief's, the index's and the annex's
    file names in ``lang``."""
    tag = "" if lang == default else f".{lang}"
    return {"html": f"report{tag}.html", "md": f"report{tag}.md", "index": f"index{tag}.html",
            "annex": f"report-annex{tag}.html", "annex_md": f"report-annex{tag}.md"}


#: The Markdown brief's own words and the words the code gives the templates (English ids).
TEXTS = (
    "{title} — the designer's brief", "Héron dice race — balance report",
    "The verdict, what to change for each problem and the answers to the test plan, each in a few lines; "
    "{annex} holds every table, the reconciliations and the methods.",
    "the annex",
    "Generated from git commit {commit}; {games} games played in the run.",
    "The lighter games have pages of their own (see the index).",
    "Verdict", "What to change", "Answers to the test plan", "How to read “how sure”",
    "What is wrong with the game, largest first ({basis}):", "({size} × its margin)",
    "Nothing is beyond its margin.", "Fine:", "Not settled:", "what to change", "details",
    "details in the annex", "details: {question}", "test plan", "balance",
    "What to change: each problem's study",
    "Each problem of the verdict has a study in the tuning lab (`heron-sim tune`); its answer is what to change.",
    "The lighter games have pages of their own:", "what to change: {study}",
    "the study", "booklet text (French)", "booklet text (English)", "rule sheet",
    "This page in English", "This page in French",
)


#: The kit's line under the verdict (English ids; French in heron_sim/locale/fr.po).
KIT_TEXTS = (
    "The verdict's minutes assume {s} s a turn, not yet timed at a table: {kit} (one printable page a game) "
    "measures it at your next playtest, and {cmd} says what it changes in the length verdict.",
    "The verdict's minutes count {s} s a turn, from your targets: {kit} (one printable page a game) times it "
    "again at a table, and {cmd} says what it changes in the length verdict.",
    "the playtest kit (the tally sheet)",
)


def _template_ids(name: str) -> list[str]:
    text = resources.files("heron_sim.report").joinpath(f"templates/{name}").read_text(encoding="utf-8")
    return [m.group(2).replace('\\"', '"') for m in re.finditer(r'_\((["\'])(.*?)(?<!\\)\1', text, re.S)]


def msgids() -> list[str]:
    """Every text of the brief and the index of their own (not the report's sentences): a
    test checks that each has a French entry."""
    from ..analysis.judge import READINGS
    from ..report.first_screen import TEXTS as FIRST_SCREEN
    from ..report.studies import STUDIES

    ids = list(TEXTS) + list(FIRST_SCREEN) + list(KIT_TEXTS) + _template_ids("brief.html.j2") + _template_ids("index.html.j2")
    ids += list(READINGS) + list(READINGS.values()) + [p for _, p, _ in STUDIES]
    return list(dict.fromkeys(" ".join(i.split()) for i in ids))


class Words:
    """The texts of one language's brief: ``_`` for the page's own words (``{name}`` fields
    filled, as Markup in HTML), ``tr`` for a report sentence; ``missing`` collects the report's
    phrases without a French entry."""

    def __init__(self, lang: str):
        if lang not in LANGS:
            raise ValueError(f"lang: {lang!r}; allowed: {', '.join(LANGS)}")
        self.lang = lang
        self.missing: list[str] = []

    def text(self, msgid: str, **kw) -> str:
        t = typography(gettext(" ".join(msgid.split()), self.lang), self.lang)
        return t.format(**kw) if kw else t

    def html(self, msgid: str, **kw) -> Markup:
        """The page's own words as HTML: the catalogue's text is the page's (it may hold
        ``<b>``), the fields are escaped unless they are Markup."""
        t = Markup(typography(gettext(" ".join(msgid.split()), self.lang), self.lang))
        return t.format(**kw) if kw else t

    def tr(self, text, slots: dict | None = None) -> str:
        return phrase(text, self.lang, self.missing, slots)

    def num(self, x: float, d: int = 1) -> str:
        return number(x, d, self.lang)
