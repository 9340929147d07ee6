"""The lighter games' pages in French (the default) and English (issue 33, item 1).

The games kind (:mod:`heron_sim.runner.kinds.games`) and the games' summary modules write their
sections in English; a game's French page translates each of its texts through the catalogue
(``heron_sim/locale/fr.po``) phrase by phrase, as the brief does (:func:`heron_sim.i18n.phrase`):
its numbers as placeholders written the French way, and the words that vary from game to game as
slots of one entry: a code span (```rampage```, a doc's path) stays as it is, a strategy's name
(:data:`STRATEGIES`) and a reading of the seed (each summary module's ``READINGS``) get their
French. A text with no words of its own (a figure, an interval, a count) needs no entry: its
numbers are written the French way. A phrase without an entry stays English and is added to
``missing`` (``paths["missing"]`` of :func:`heron_sim.report.render.write_report`; a test keeps it
empty).
"""

from __future__ import annotations

import re

from ..i18n import DEFAULT, NNBSP, _pieces, catalogue, figure_key, gettext, number_words, phrase, typography

#: The lighter games' players (their strategies) in French.
STRATEGIES = {"greedy": "gourmand", "random": "hasard", "cautious": "prudent", "hatcher": "couveur",
              "blocker": "bloqueur", "wrecker": "démolisseur"}
#: The lighter games' names in French, as their seeds name them (the others are their titles).
NAMES = {"Rampage (Terror in Meeple City)": "Rampage"}
_STRATEGY = re.compile(r"\b(?:" + "|".join(STRATEGIES) + r")\b")
_CODE = re.compile(r"`[^`]*`")
#: A p-value as :func:`heron_sim.analysis.stats.format_p` writes it ("p < 0.001", "p = 0.14").
_P = re.compile(r"\bp (?:<|=|>|≥|>=) [\d.]+(?:e-?\d+)?")
_LETTERS = re.compile(r"[A-Za-zÀ-ÿ]")

#: The fixed words of a game's page (the template's, the kind's headings): English message ids.
TEXTS = (
    "A lighter game of the same run as the Héron report.",
    "Contents", "Contents (small screens)", "Run metadata", "All pages",
    "Tables and figures ({tables} tables, {figures} figures)",
    "Show the run's provenance (versions, seeds, rules fingerprints)",
    "This page in English", "This page in French",
)


def page_file(base: str, lang: str, default: str = DEFAULT) -> str:
    """``game-rampage.html`` in the default language, ``game-rampage.en.html`` in the other."""
    return base if lang == default else base.removesuffix(".html") + f".{lang}.html"


def reading_labels() -> list[str]:
    """Every reading of the seed the games' summary modules name (each needs a French entry)."""
    import importlib

    from ..games import available

    out: list[str] = []
    for name in available():
        module = f"heron_sim.games.{name.replace('-', '_')}.summary"
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as err:  # a game without a summary module has no readings
            if err.name != module:
                raise
            continue
        out += list(getattr(mod, "READINGS", {}) or {})
    return list(dict.fromkeys(out))


def _titles() -> list[str]:
    from ..games import available

    return [g.title for g in available().values()]


def msgids() -> list[str]:
    """The game pages' own words, the strategies aside (:data:`STRATEGIES`), and the readings."""
    return list(TEXTS) + reading_labels()


class GameWords:
    """A game page's texts in ``lang``; ``missing`` collects the catalogue keys lacking in French."""

    #: the players' names a text may hold (a slot each) and their French
    strategies = STRATEGIES
    strategy = _STRATEGY

    def __init__(self, lang: str, readings: list[str] | None = None):
        self.lang = lang
        self.missing: list[str] = []
        self.readings = sorted(readings if readings is not None else reading_labels(), key=len, reverse=True)
        self.names = sorted(_titles(), key=len, reverse=True)

    def text(self, msgid: str, **kw) -> str:
        t = typography(gettext(msgid, self.lang), self.lang)
        if self.lang != "en" and msgid not in catalogue(self.lang):
            self.missing.append(msgid)
        return t.format(**kw) if kw else t

    def slots(self, text: str) -> dict:
        """The words of ``text`` that vary from game to game, each a slot numbered in the order
        it comes: code spans (``c``), p-values (``pv``), readings (``rd``), players (``t``)."""
        out: dict = {}
        for i, code in enumerate(dict.fromkeys(_CODE.findall(text))):
            out[f"c{i}"] = {"en": code, self.lang: code}
        rest = _CODE.sub(" ", text)
        for i, pv in enumerate(dict.fromkeys(_P.findall(rest))):
            out[f"pv{i}"] = {"en": pv, self.lang: number_words(pv, self.lang)}
        rest = _P.sub(" ", rest)
        for name in self.names:  # a game's name: its seed's in French
            if name in rest:
                out["gm0"] = {"en": name, self.lang: NAMES.get(name, name) if self.lang == "fr" else name}
                rest = rest.replace(name, " ")
                break
        found = []
        for label in self.readings:  # the longest first: one may hold another
            at = rest.find(label)
            if at >= 0:
                found.append((at, label))
                rest = rest.replace(label, " " * len(label))
        for i, (_, label) in enumerate(sorted(found)):
            out[f"rd{i}"] = {"en": label, self.lang: gettext(label, self.lang)}
            if self.lang != "en" and label not in catalogue(self.lang):
                self.missing.append(label)
        for i, s in enumerate(dict.fromkeys(self.strategy.findall(rest))):
            out[f"t{i}"] = {"en": s, self.lang: self.strategies[s] if self.lang == "fr" else s}
        return out

    def key(self, text: str) -> str:
        """The catalogue entry a text of a game's page needs (its numbers and slots as fields)."""
        return figure_key(str(text), self.slots(str(text)))[0]

    def tr(self, text) -> str:
        """A text of a game's section in the page's language: the whole text's entry, else each
        phrase's (cut as :func:`heron_sim.i18n.phrase` cuts), each with its own slots."""
        text = str(text)
        if self.lang == "en" or not text.strip():
            return text
        whole = self._one(text, quiet=True)
        if whole is not None:
            return whole
        out = []
        for piece, sep in _pieces(text):
            got = self._one(piece) if piece.strip() else piece
            out.append(got + (f"{NNBSP}; " if sep.startswith(";") else sep))
        return "".join(out)

    def _one(self, text: str, quiet: bool = False) -> str | None:
        slots = self.slots(text)
        key, nums = figure_key(text, slots)
        if not _LETTERS.search(re.sub(r"\{\w+\}", "", key)):  # figures and slots only: no words to translate
            fill = {k: v[self.lang] for k, v in slots.items()}
            fr = re.sub(r"\[(\{\d+\}), (\{\d+\})\]", r"[\1 ; \2]", key)
            return typography(fr.format(*(number_words(n, self.lang) for n in nums), **fill), self.lang)
        cat = catalogue(self.lang)
        if key in cat:
            fill = {k: v[self.lang] for k, v in slots.items()}
            return typography(cat[key].format(*(number_words(n, self.lang) for n in nums), **fill), self.lang)
        if quiet:
            return None
        miss: list[str] = []
        out = phrase(text, self.lang, miss)  # the report's general entries (a reading, a guide...)
        if miss:
            self.missing.append(key)
        return out

    def markdown(self, block: str) -> str:
        """A game's own summary (Markdown; its missing values already "n/a") in the page's
        language, line by line: headings, list items, paragraphs, and each cell of a table."""
        if self.lang == "en":
            return block
        out = []
        for line in block.splitlines():
            m = re.match(r"^(\s*(?:#{1,6}\s+|[-*+]\s+|\d+\.\s+)?)(.*)$", line)
            lead, body = m.group(1), m.group(2)
            if body.startswith("|"):
                cells = body.strip().strip("|").split("|")
                if all(re.fullmatch(r"\s*:?-+:?\s*", c) for c in cells):
                    out.append(line)
                    continue
                out.append("| " + " | ".join(self._bold(c.strip()) for c in cells) + " |")
            else:
                out.append(lead + self._bold(body) if body.strip() else line)
        return "\n".join(out)

    def _bold(self, text: str) -> str:
        m = re.fullmatch(r"(\*\*|\*)(.+?)\1(.*)", text, re.S)
        if m and not m.group(3).strip():
            return m.group(1) + self.tr(m.group(2)) + m.group(1)
        return self.tr(text)

    def verdict_words(self, text: str) -> str:
        """A French verdict's text with its players' names in French."""
        if self.lang != "fr" or not text:
            return text
        return _STRATEGY.sub(lambda m: STRATEGIES[m.group(0)], text)
