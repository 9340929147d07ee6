"""The pages' one vocabulary (issue 60 item 1): one French and one English word per thing, the
French words refused for it, and a checker of French text.

Every French page and text (the brief, the annex, the lab page, the game pages, the rule
sheets, the booklet texts, the explorer's catalogue) names each thing with the word of
:data:`TERMS` (the booklet's word where it has one). :func:`check_fr` finds what a French
designer would stop at: a refused synonym (« manche » for a round, « retour » for a comeback,
« graine » for the rules text, « glouton », « lanceur »…), a table id (``casual-4``), a rule
written as a Python list or ``key = value``, an English leftover, « +0,8 points de plus », a
plural after a number below 2 (« 0,8 points »), statistics jargon (« Holm », « p = ») in a
headline. ``tests/test_glossary.py`` runs it over every French page of ``results/`` and over the
texts the code writes.

    >>> [f.rule for f in check_fr("Les parties durent 26,3 manches.")]
    ['refused']
    >>> check_fr("Les parties durent 26,3 tours de table.")
    []
    >>> table_words("casual-4", "fr"), table_words("rungs-2", "fr")
    ('4 joueurs occasionnels', '2 joueurs de tous niveaux')
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass


#: Each player's words (singular, plural), French and English (the lab's own words, as
#: heron_sim.lab.phrases keeps the rules' sentences).
PLAYER_WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {"novice": ("novice", "novices"), "casual": ("casual player", "casual players"),
           "regular": ("regular", "regulars"), "expert": ("expert", "experts"),
           "reckless": ("bold beginner", "bold beginners"), "champion": ("champion", "champions"),
           "greedy": ("greedy bot", "greedy bots"),
           "prudent": ("prudent bot", "prudent bots"), "racer": ("racer bot", "racer bots"),
           "random": ("random bot", "random bots")},
    "fr": {"novice": ("débutant", "débutants"), "casual": ("joueur occasionnel", "joueurs occasionnels"),
           "regular": ("habitué", "habitués"), "expert": ("expert", "experts"),
           "reckless": ("débutant téméraire", "débutants téméraires"), "champion": ("champion", "champions"),
           "greedy": ("robot gourmand", "robots gourmands"),
           "prudent": ("robot prudent", "robots prudents"), "racer": ("robot coureur", "robots coureurs"),
           "random": ("robot au hasard", "robots au hasard")},
}


#: The mixed-skill tables by id (issue 58 item 1): one player a seat, the seating rotated so that
#: every player sits in every seat equally often (heron_sim.runner.panel seats them). A family table
#: is an expert (the parent) with novices; a club table mixes regulars and casual players; a bold
#: beginner (``reckless``: the novice's skill, rerolls nearly whenever allowed) among regulars; the
#: champion (the player who plays to win the game) against a regular.
MIXED_TABLE_PLAYERS: dict[str, tuple[str, ...]] = {
    "family-3": ("expert", "novice", "novice"),
    "family-4": ("expert", "novice", "novice", "novice"),
    "pairs-4": ("expert", "expert", "novice", "novice"),
    "family-5": ("expert", "novice", "novice", "novice", "novice"),
    "family-6": ("expert", "expert", "novice", "novice", "novice", "novice"),
    "family-7": ("expert", "expert", "novice", "novice", "novice", "novice", "novice"),
    "bold-4": ("reckless", "regular", "regular", "regular"),
    "club-3": ("regular", "regular", "casual"),
    "club-4": ("regular", "regular", "casual", "casual"),
    "club-6": ("expert", "regular", "regular", "casual", "casual", "novice"),
    "experts-regulars-4": ("expert", "expert", "regular", "regular"),
    "champion-2": ("champion", "regular"),
}


def counted_players(names, lang: str = "fr") -> str:
    """One player a seat, counted in words: ``("expert", "novice", "novice")`` -> « 1 expert et 2
    débutants », "1 expert and 2 novices" (the order of first appearance)."""
    from collections import Counter

    words = PLAYER_WORDS["fr" if lang == "fr" else "en"]
    parts = []
    for name, k in Counter(names).items():
        one, many = words.get(name.split(":")[0], (name, name))
        parts.append(f"{k} {one if k == 1 else many}")
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + (" et " if lang == "fr" else " and ") + parts[-1]


@dataclass(frozen=True)
class Term:
    """One thing: its French and English word, and the French words refused for it (each a
    regular expression, matched case-insensitively on word boundaries, with why)."""

    key: str
    fr: str
    en: str
    refused: tuple[tuple[str, str], ...] = ()


#: Each thing once. ``fr``/``en``: the word the pages use; ``refused``: (pattern, why).
TERMS: tuple[Term, ...] = (
    Term("turn", "tour", "turn"),
    Term("round", "tour de table", "round",
         ((r"manches?", "a round is « un tour de table » (each player plays one turn)"),)),
    Term("dead_turn", "tour mort", "dead turn",
         ((r"tours? blancs?", "a turn that moves nobody is « un tour mort » (the annex's glossary)"),)),
    Term("comeback", "remontée", "comeback",
         ((r"retours?(?! en arrière)", "a comeback is « une remontée » (the last player at mid-game wins)"),)),
    Term("seat", "place (le joueur 1 joue le premier)", "seat",
         ((r"(?:la |les |une |des )?places? (?:\d|n°)",
           "a seat by its number is « le joueur 1 », « le joueur 4 » (« la place 1 » reads as a ranking)"),)),
    Term("rulings", "règles officielles", "rulings"),
    Term("seed_text", "livret", "the seed (the rules text)",
         ((r"(?:la|de la|sa|notre) graine\b(?! \d| de hasard)", "the rules as written are « le livret » or "
           "« les règles officielles »; « graine » is only the random seed"),)),
    Term("random_seed", "graine (de hasard)", "random seed",
         ((r"graines? neuves?", "fresh seeds are « de nouvelles parties »"),)),
    Term("greedy", "gourmand", "greedy",
         ((r"glouton(?:ne)?s?", "the rulings' §7 player, who chases the largest set and rerolls whenever he "
           "may, is « le gourmand » (« glouton » is the algorithms' jargon)"),)),
    Term("pond_player", "joueur qui déclenche l'Étang", "the Pond's roller",
         ((r"lanceurs?", "the player whose roll made the Étang is « le joueur qui déclenche l'Étang »"),)),
    Term("search_space", "changements essayés", "search space",
         ((r"cet espace|l'espace (?:de recherche|des changements)", "say « les changements essayés »"),)),
    Term("table", "table (4 joueurs occasionnels, 2 experts et 2 débutants)", "table",
         ()),
    Term("proposal", "proposition", "proposal"),
    Term("fair_share", "part équitable", "fair share"),
    Term("guide", "Guide", "guide"),
    Term("square", "case", "square"),
)

#: A table id of the lab's panels (``casual-4``, ``rungs-2``, ``greedy-2``, ``mix-4-7d8``):
#: never in a French sentence; :func:`table_words` says the table in words.
TABLE_ID = re.compile(r"(?<![\w/.-])(?:casual|regular|expert|novice|rungs|mix|greedy|prudent|racer|random|"
                      r"skill|reckless|family|club|pairs|bold|champion|experts-regulars)-[2-7](?:-\w+)?(?![\w/.-])")

_PLAYERS_FR = {"casual": ("joueur occasionnel", "joueurs occasionnels"), "regular": ("habitué", "habitués"),
               "expert": ("expert", "experts"), "novice": ("débutant", "débutants"),
               "reckless": ("débutant téméraire", "débutants téméraires"),
               "greedy": ("robot gourmand", "robots gourmands"),
               "prudent": ("robot prudent", "robots prudents"), "racer": ("robot coureur", "robots coureurs"),
               "random": ("robot au hasard", "robots au hasard")}
_PLAYERS_EN = {"casual": ("casual player", "casual players"), "regular": ("regular", "regulars"),
               "expert": ("expert", "experts"), "novice": ("novice", "novices"),
               "reckless": ("bold beginner", "bold beginners"), "greedy": ("greedy bot", "greedy bots"),
               "prudent": ("prudent bot", "prudent bots"), "racer": ("racer bot", "racer bots"),
               "random": ("random bot", "random bots")}


def table_words(table_id: str, lang: str = "fr") -> str:
    """A panel's table id in words: ``casual-4`` -> « 4 joueurs occasionnels », ``rungs-2`` ->
    « 2 joueurs de tous niveaux », ``mix-4`` -> « 4 robots mêlés », ``skill-2`` -> « un expert
    contre un débutant »; an id it does not know is returned as it is."""
    if table_id in MIXED_TABLE_PLAYERS:  # a mixed table: its players counted
        return counted_players(MIXED_TABLE_PLAYERS[table_id], lang)
    m = re.fullmatch(r"(\w+)-(\d)(?:-(\w+))?", table_id)
    if not m:
        return table_id
    kind, n, mode = m.group(1), int(m.group(2)), m.group(3)
    fr = lang == "fr"
    if kind in _PLAYERS_FR:
        one, many = (_PLAYERS_FR if fr else _PLAYERS_EN)[kind]
        out = f"{n} {one if n == 1 else many}"
    elif kind == "rungs":
        out = f"{n} joueurs de tous niveaux" if fr else f"{n} players of every level"
    elif kind == "mix":
        out = f"{n} robots mêlés" if fr else f"{n} mixed bots"
    elif kind == "skill":
        out = "un expert contre un débutant" if fr else "an expert against a novice"
    else:
        return table_id
    if mode:
        out += f" ({mode.upper() if re.fullmatch(r'[0-9]+d[0-9]+', mode) else mode})"
    return out


def table_ids_in_words(text: str, lang: str = "fr") -> str:
    """Every table id of ``text`` said in words (:func:`table_words`)."""
    return TABLE_ID.sub(lambda m: table_words(m.group(0), lang), text)


#: Nouns a count goes with: singular when the number is below 2 (« 0,8 point », « 1,5 case »).
COUNTED = ("point", "case", "tour", "partie", "joueur", "règle", "lancer", "dé", "minute", "Héron", "Étang",
           "Angoisse", "table", "seconde", "manche", "comparaison", "fois", "décision")

#: English words that give away an untranslated phrase on a French page.
ENGLISH = ("the", "and", "with", "without", "of", "every", "which", "players?", "games?", "seats?", "wins?",
           "kept", "should", "study", "rules?", "first", "last", "than", "in place", "swap", "plays", "turns?",
           "squares?", "rolls?", "Comebacks?", "Conclusion de l'étude \\(en anglais\\)", "en anglais\\)",
           # the commands' words (calibrate, coach, story): a player's id, a model's table
           "casual", "regular", "greedy", "racer", "reckless", "decisions?", "rows?", "likelihood", "matching",
           "modell?ed", "parameters?", "estimate", "logged", "timed", "unfinished", "not", "per", "mean", "median",
           "all", "herons?")

#: Statistics jargon a headline does not hold (a note may: « corrigé pour 7 comparaisons »).
JARGON = ("Holm", r"p\s*=", "Wilson", "bootstrap", "binomial", r"IC\s*(?:à\s*)?95", "apparié")


@dataclass(frozen=True)
class Finding:
    rule: str      # refused, table_id, list, key_value, english, de_plus, singular, jargon, p_zero, number, hedge
    found: str     # the words found
    why: str
    context: str

    def __str__(self) -> str:
        return f"{self.rule}: « {self.found} » ({self.why}) in …{self.context}…"


_REFUSED = [(re.compile(r"(?<![\w-])(?:" + pat + r")(?![\w-])", re.I), t.key, why)
            for t in TERMS for pat, why in t.refused]
_NUM = r"(?<![\d\w,.\u202f\u00a0 ]\d)(?<![\d,.\u202f])[+−-]?"
_SINGULAR = re.compile(r"(?<![\d,.\u202f\u00a0\w])(?<![\d] )[+−-]?(?:0|1)(?:,\d+)?[ \u00a0](?!\d)("
                       + "|".join(w + "s" for w in COUNTED) + r")\b")
_DE_PLUS = re.compile(r"(?<![\w])\+\s?\d[\d,\u202f]*[^.;:()\[\]]{0,25}?\bde plus\b")
_LIST = re.compile(r"\[\s*[−-]?\d+(?:\.\d+)?(?:,\s+[−-]?\d+(?:\.\d+)?)+\s*\]|\[\s*\]|\b(?:True|False|None)\b")
_KEY_VALUE = re.compile(r"[A-Za-zÀ-ÿ')] = (?:\[|[−-]?\d)")
_ENGLISH = re.compile(r"(?<![\w'’-])(?:" + "|".join(ENGLISH) + r")(?![\w'’-])")
_JARGON = re.compile(r"(?<!\w)(?:" + "|".join(JARGON) + r")(?!\w)")
_P_ZERO = re.compile(r"\bp\s*=\s*0,000\b")
#: A number written the English way: a decimal point (« 0.741 »), thousands by commas (« 1,000,000 »).
_NUMBER = re.compile(r"(?<![\w.,])[+−-]?\d+\.\d+(?![\w.])|(?<![\w.,])\d{1,3}(?:,\d{3}){2,}(?![\w,])")
#: A plural left open (« case(s) »): the number says which.
_HEDGE = re.compile(r"\w\(s\)")


def _ctx(text: str, m: re.Match) -> str:
    return text[max(0, m.start() - 40):m.end() + 40].replace("\n", " ")


_CODE_WORDS = re.compile(r"`[^`]*`|\[[\w.-]+\]|(?<![\w])[\w./-]+\.(?:toml|csv|md|html|json|parquet|py)\b|https?://\S+")


def check_fr(text: str, *, headline: bool = False) -> list[Finding]:
    """What a French designer would stop at in ``text`` (plain text: no markup, no code):
    refused synonyms, table ids, rules as lists or ``key = value``, English leftovers, « +x … de
    plus », a plural after a number below 2, « p = 0,000 », a number written the English way
    (« 0.741 »), a plural left open (« case(s) »); and, when ``headline``, statistics jargon. An empty list: the text reads as written in French."""
    out: list[Finding] = []
    text = _CODE_WORDS.sub(" ", text.replace("\u2019", "'"))
    for pat, key, why in _REFUSED:
        out += [Finding("refused", m.group(0), why, _ctx(text, m)) for m in pat.finditer(text)]
    out += [Finding("table_id", m.group(0), f"say the table in words: « {table_words(m.group(0))} »", _ctx(text, m))
            for m in TABLE_ID.finditer(text)]
    out += [Finding("list", m.group(0), "a rule is a sentence, never a list", _ctx(text, m)) for m in _LIST.finditer(text)]
    out += [Finding("key_value", m.group(0), "a rule is a sentence, never « clé = valeur »", _ctx(text, m))
            for m in _KEY_VALUE.finditer(text) if not re.search(r"(?:^|\W)(?:[np]|p corrigé)$", text[:m.start() + 1])]
    out += [Finding("english", m.group(0), "English left on a French page", _ctx(text, m)) for m in _ENGLISH.finditer(text)]
    out += [Finding("de_plus", m.group(0), "« + » already says « de plus »", _ctx(text, m)) for m in _DE_PLUS.finditer(text)]
    out += [Finding("singular", m.group(0), "the singular below 2 (« 0,8 point »)", _ctx(text, m))
            for m in _SINGULAR.finditer(text)]
    out += [Finding("p_zero", m.group(0), "write « p < 0,001 »", _ctx(text, m)) for m in _P_ZERO.finditer(text)]
    out += [Finding("number", m.group(0), "a number the French way: « 0,741 », « 1 000 000 »", _ctx(text, m))
            for m in _NUMBER.finditer(text)]
    out += [Finding("hedge", m.group(0), "the number says singular or plural (« 0,8 case », « 3 cases »)", _ctx(text, m))
            for m in _HEDGE.finditer(text)]
    if headline:
        out += [Finding("jargon", m.group(0), "no statistics jargon in a headline (a note may say « corrigé pour "
                        "7 comparaisons »)", _ctx(text, m)) for m in _JARGON.finditer(text)]
    return out


# ---------------------------------------------------------------- pages
_CODE_MD = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_CODE_HTML = re.compile(r"<(script|style|code|pre|kbd|svg|math)\b.*?</\1>", re.S | re.I)
_HEAD_HTML = re.compile(r"<(h[1-6]|strong|b|summary|title|th|caption)\b[^>]*>(.*?)</\1>", re.S | re.I)
_HEAD_MD = re.compile(r"^#{1,6} .*$|\*\*[^*\n]+\*\*", re.M)
_TAG = re.compile(r"<[^>]+>")
#: What a French page may hold in English on purpose: the annex glossary's English column and a
#: link to the English page (lines marked by these words are left out of the English check).
_ENGLISH_OK = re.compile(r"This page in English|English|lang=en|\.en\.(?:html|md)")


def page_texts(text: str, kind: str) -> tuple[list[str], list[str]]:
    """(body texts, headline texts) of a page (``kind``: ``html`` or ``md``), code and markup
    left out; each a line of plain text."""
    if kind == "html":
        text = _CODE_HTML.sub(" ", text)
        heads = [html.unescape(_TAG.sub(" ", m.group(2))) for m in _HEAD_HTML.finditer(text)]
        body = html.unescape(_TAG.sub("\n", re.sub(r"<(?:br|/p|/li|/tr|/td|/th|/div|/h\d)\b[^>]*>", "\n", text)))
    else:
        text = _CODE_MD.sub(" ", text)
        text = re.sub(r"\]\([^)]*\)", "]", text)  # a link's address
        heads = [m.group(0).strip("#* ") for m in _HEAD_MD.finditer(text)]
        body = text
    return [ln for ln in body.splitlines() if ln.strip()], heads


def check_page(text: str, kind: str, english_names=()) -> list[Finding]:
    """:func:`check_fr` over a French page's body and, with the jargon rule, its headlines.
    ``english_names``: English words the page shows on purpose (the annex glossary's English
    column), left out of the English check."""
    body, heads = page_texts(text, kind)
    out: list[Finding] = []
    for line in body:
        for name in sorted(english_names, key=len, reverse=True):  # « regenerate / swap your guide » before « guide »
            line = line.replace(name, " ")
        found = check_fr(line)
        if _ENGLISH_OK.search(line):
            found = [f for f in found if f.rule != "english"]
        out += found
    for h in heads:
        out += [f for f in check_fr(h, headline=True) if f.rule == "jargon"]
    return out


def french_pages(root) -> list:
    """The French pages and texts under ``root`` (a ``results/`` folder): every ``.html`` and
    ``.md`` but the English ones (``*.en.*``), the lab's working tables (``front.md``, English
    only) and the rule sheets' and booklets' HTML (their ``.fr.md`` followed by their ``.en.md``,
    each checked on its own)."""
    from pathlib import Path

    out = []
    for p in sorted(Path(root).rglob("*")):
        if p.suffix not in (".md", ".html") or ".en." in p.name or p.name == "front.md":
            continue
        if p.suffix == ".html" and p.name.startswith(("sheet-", "booklet-")):
            continue
        out.append(p)
    return out


__all__ = ["french_pages", "COUNTED", "ENGLISH", "Finding", "JARGON", "TABLE_ID", "TERMS", "Term", "check_fr", "check_page",
           "page_texts", "table_ids_in_words", "table_words"]
