"""The annex in French (the default) and English (issue 33, item 1), and the figures' lettering.

The annex (``report-annex.html``, ``report-annex.md``: every table, the reconciliations, the
methods) is translated as the lighter games' pages are (:class:`heron_sim.report.game_lang.GameWords`):
each text of a section (title, introduction, findings, a table's caption, headers, cells and
note, a figure's caption, notes), each answer and each line of the metadata goes through the
catalogue ``heron_sim/locale/fr.po`` phrase by phrase, its figures as placeholders written the
French way, after the page's one vocabulary (:func:`heron_sim.report.vocabulary.vocab`: Étang,
Angoisse). The annex's own words (its headings, the answers' table, the folds) are English
message ids in the template ``report.html.j2`` (``_("…")``) and in :data:`TEXTS` for the
Markdown annex; :func:`msgids` gathers them and a test checks that each has a French entry.

The figures (``figures/*.png``) are drawn once per language: each text artist of a figure
(title, axis labels, legend, categorical tick labels, notes) goes through the same translation
(:func:`heron_sim.report.figures.localize`), and a French figure's numeric ticks take the
decimal comma. The default language's figure is ``figures/NAME.png``, the other's carries its
language (``figures/NAME.en.png``), as the pages do.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from ..i18n import DEFAULT, catalogue, counted, figure_key, gettext, number_words, phrase, typography
from .game_lang import GameWords

#: The Markdown annex's own words and the words the code gives the template (English ids).
TEXTS = (
    "{title} — annex",
    "The designer's brief (the verdict, what to change, the answers in a few lines) is {brief}; this annex "
    "holds every table, the reconciliations and the methods.",
    "Answers at a glance", "question", "answer", "figure [95 % CI], n", "how sure", "what a designer could do",
    "what to do (measured)", "what to do", "test plan", "balance", "details", "what to change",
    "The lab's study ({study}): {short}",
    "Every Angoisse rate of this report, reconciled (8 D8)", "Glossary: the game's words", "Assumptions",
    "Appendix: the lighter games", "Run metadata", "key", "value", "How to read “how sure”",
    "Every Angoisse rate, reconciled", "Glossary",
    "the game's word", "in English", "what it is",
    "{name}: {games} games, {turns} turns, {seconds} s", "{hash} (first used by {job})",
    "This page in English", "This page in French",
)

#: The run metadata whose values are identifiers (versions, commits, folders, dates): shown as
#: they are (as code on the page), never translated.
VERBATIM = ("package version", "git commit (run)", "git commit (report)", "report package version", "run folder",
            "run started", "strategies available")


def annex_file(lang: str, default: str = DEFAULT, md: bool = False) -> str:
    """``report-annex.html`` in the default language, ``report-annex.en.html`` in the other."""
    from .brief_lang import files

    return files(lang, default)["annex_md" if md else "annex"]


def msgids() -> list[str]:
    """Every text of the annex of its own (not the sentences with figures, the glossary's and the
    assumptions' included, which ``write_report``'s ``missing`` lists): each needs a French entry."""
    from .brief_lang import _template_ids

    ids = list(TEXTS) + _template_ids("report.html.j2") + list(_META_KEYS)
    return list(dict.fromkeys(" ".join(i.split()) for i in ids))


#: The metadata's keys (heron_sim.report.run_metadata and the CLI's extras).
_META_KEYS = ("package version", "git commit (run)", "git commit (report)", "report package version", "run folder",
              "run started", "simulation run time", "experiments", "games played (all)", "games simulated",
              "single turns simulated", "seeds", "rules hashes", "strategies available", "tournament module",
              "report computed in", "total time (simulate + tables)")
_EXPERIMENT = re.compile(r"^\s*([\w.-]+): ([\d,]+) games, ([\d,]+) turns, ([\d.]+) s\s*$")
_HASH = re.compile(r"(\w+) \(first used by ([^)]+)\)")
#: The guides' names (the same in both languages).
_GUIDE = re.compile(r"\b(?:Loup|Taureau|Serpent|Lion|Aigle|Cerf|Héron)\b")


#: The Héron report's players (strategies and rungs of the skill ladder) in French; a text's
#: player is a slot of its entry (``{t0}``), so one entry says the sentence for every player.
PLAYERS = {"greedy": "gourmand", "prudent": "prudent", "expert": "expert", "racer": "coureur", "random": "hasard",
           "human": "humain", "novice": "débutant", "casual": "occasionnel", "regular": "habitué",
           "champion": "champion"}


class AnnexWords(GameWords):
    """The annex's texts in ``lang``: ``tr`` a section's sentence (after the page's vocabulary),
    ``html`` the page's own words (Markup, fields escaped unless Markup), ``meta`` the run's
    provenance; ``missing`` collects the catalogue keys lacking in French."""

    strategies = PLAYERS
    strategy = re.compile(r"\b(?:" + "|".join(PLAYERS) + r")\b")

    def __init__(self, lang: str):
        from ..i18n import _READINGS

        super().__init__(lang, readings=list(_READINGS))  # a reading ("real but small") is a slot {rd0}

    def tr(self, text) -> str:
        """A sentence of the report in the page's language: the brief's entry of the whole text
        or of each of its phrases (:func:`heron_sim.i18n.phrase`) when the catalogue has them
        all, else the way a game's page says it (players, code and p-values as slots)."""
        from .vocabulary import vocab

        text = vocab(str(text))
        if self.lang == "en" or not text.strip():
            return text
        miss: list[str] = []
        out = phrase(text, self.lang, miss)
        return out if not miss else super().tr(text)

    def _one(self, text: str, quiet: bool = False):
        """A phrase's entry (:meth:`GameWords._one`); else its entry with the guides' names as
        slots (``{g0}``, ``{g1}``…: one entry for a sentence whichever guide it names)."""
        got = super()._one(text, quiet=True)
        if got is not None:
            return got
        slots = self.slots(text)
        rest = figure_key(text, slots)[0]
        for i, g in enumerate(dict.fromkeys(_GUIDE.findall(rest))):
            slots[f"g{i}"] = {"en": g, self.lang: g}
        key, nums = figure_key(text, slots)
        cat = catalogue(self.lang)
        if key in cat:
            fill = {k: v[self.lang] for k, v in slots.items()}
            return typography(cat[key].format(*(number_words(n, self.lang) for n in nums), **fill), self.lang)
        return super()._one(text, quiet)

    def meta(self, key: str, value: str, code) -> tuple[str, object]:
        """A line of the run metadata in the page's language: the key's words, the value's
        (``code``: how the page writes an identifier, ``<code>`` or a Markdown code span)."""
        k = self.text(key) if key in _META_KEYS else key
        if self.lang == "en" and key not in ("rules hashes", "experiments"):
            return k, value
        if key in VERBATIM:
            return k, code(value) if value else value
        if key == "rules hashes":
            tpl, items = self.text("{hash} (first used by {job})"), []
            for h, j in _HASH.findall(value):
                ch, cj = code(h), code(j)
                items.append(Markup(escape(tpl)).format(hash=ch, job=cj) if isinstance(ch, Markup)
                             else tpl.format(hash=ch, job=cj))
            return k, _join(items, ", ")
        if key == "experiments":  # "modes: 40,000 games, 0 turns, 6.3 s; pond: ...": each experiment's name as code
            from ..i18n import number_words

            tpl, parts = self.text("{name}: {games} games, {turns} turns, {seconds} s"), []
            for piece in value.split("; "):
                m = _EXPERIMENT.match(piece)
                if not m:
                    parts.append(self.tr(piece))
                    continue
                name, (games, turns, seconds) = code(m.group(1)), (number_words(x, self.lang) for x in m.groups()[1:])
                parts.append(Markup(escape(tpl)).format(name=name, games=games, turns=turns, seconds=seconds)
                             if isinstance(name, Markup) else tpl.format(name=name, games=games, turns=turns, seconds=seconds))
            parts = [Markup(counted(str(p), self.lang)) if isinstance(p, Markup) else counted(p, self.lang)
                     for p in parts]  # « 0 tour »
            return k, _join(parts, "\u202f; " if self.lang == "fr" else "; ")
        return k, self.tr(value)

    def html(self, msgid: str, **kw) -> Markup:
        """The page's own words as HTML (the catalogue's text may hold ``<b>``; fields escaped
        unless Markup)."""
        msgid = " ".join(msgid.split())
        t = Markup(typography(gettext(msgid, self.lang), self.lang))
        if self.lang != "en" and t == msgid and any(c.isalpha() for c in msgid):
            from ..i18n import catalogue

            if msgid not in catalogue(self.lang):
                self.missing.append(msgid)
        return t.format(**kw) if kw else t


def _join(items, sep: str):
    if any(isinstance(i, Markup) for i in items):
        return Markup(sep).join(items)
    return sep.join(items)
