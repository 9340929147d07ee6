"""The pages' languages: a gettext catalogue (``heron_sim/locale/fr.po``) and locale-aware numbers.

The message ids are the English texts (gettext's convention); ``fr.po`` holds their French.
Babel is not among the project's dependencies, so the catalogue is read by the small ``.po``
reader below (the format's ``msgid``/``msgstr`` pairs, continued lines and C escapes; no plural
forms: a count is written into a phrase whose French does not depend on it) and numbers are
formatted here as the French typography wants them (decimal comma, a no-break space before ``%``,
« [25,5 ; 26,1] » for an interval). The explorer's script gets the same catalogue as JSON.

    >>> gettext("games per side", "fr")
    'parties par camp'
    >>> interval(25.84, 25.51, 26.13, 1, "fr", suffix=" %")
    '25,8\\xa0% [25,5 ; 26,1]'
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

LANGS = ("fr", "en")
#: The designers' language: the pages open in it unless the reader's browser prefers English.
DEFAULT = "fr"
NBSP = "\u00a0"
NNBSP = "\u202f"  # the narrow no-break space French puts between thousands


#: The names of the rules fields the table of rules keys (heron_sim.rules.keys) does not hold, as
#: the explorer's form and the lab's page write them (English message ids).
FIELD_LABELS = {
    "disabled_powers": "Guides without their power",
    "combinations.advance": "Squares gained by the largest set",
    "combinations.effect": "Effect of the largest set",
    "dice.count": "Number of dice",
    "board.squares": "Special squares",
    "extra": "Other rules (TOML)",
}

_GAME_WORDS = (("Peaceful Pond", "Étang Paisible"), ("Heron's Anxiety", "Angoisse du Héron"),
               ("Guide Power", "Puissance du Guide"), ("the Pond", "the Étang"), ("The Pond", "The Étang"),
               ("an Anxiety", "an Angoisse"), ("Anxiety", "Angoisse"))


def game_words(text: str) -> str:
    """An English phrase with the game's own words (issue 33: Étang Paisible, Angoisse du Héron
    and Puissance du Guide are the game's words in both languages)."""
    for en, game in _GAME_WORDS:
        text = text.replace(en, game)
    return text


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) < 2 or s[0] != '"' or s[-1] != '"':
        raise ValueError(f"not a quoted string: {s!r}")
    out, i, body = [], 0, s[1:-1]
    esc = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(esc.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_po(text: str) -> dict[str, str]:
    """``{msgid: msgstr}`` of a ``.po`` file's text (the header entry, ``msgid ""``, left out;
    an entry marked ``#, fuzzy`` or with an empty ``msgstr`` is not a translation and is left out)."""
    entries: dict[str, str] = {}
    cur: dict[str, list[str]] = {}
    field = None
    fuzzy = False

    def flush():
        nonlocal cur, fuzzy
        if "msgid" in cur:
            mid, mstr = "".join(cur["msgid"]), "".join(cur.get("msgstr", []))
            if mid and mstr and not fuzzy:
                entries[mid] = mstr
        cur, fuzzy = {}, False

    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            flush()
            field = None
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            continue
        try:
            if line.startswith("msgid "):
                if "msgid" in cur:
                    flush()
                field = "msgid"
                cur[field] = [_unquote(line[6:])]
            elif line.startswith("msgstr "):
                field = "msgstr"
                cur[field] = [_unquote(line[7:])]
            elif line.startswith('"') and field:
                cur[field].append(_unquote(line))
            else:
                raise ValueError(f"unexpected {line[:30]!r}")
        except ValueError as err:
            raise ValueError(f"fr.po line {n}: {err}") from None
    flush()
    return entries


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """The translations of ``lang`` (English: none, the ids are English)."""
    if lang == "en":
        return {}
    text = resources.files("heron_sim").joinpath(f"locale/{lang}.po").read_text(encoding="utf-8")
    return parse_po(text)


def gettext(msgid: str, lang: str) -> str:
    """``msgid`` in ``lang`` (itself when the catalogue has no entry: a test lists those)."""
    return catalogue(lang).get(msgid, msgid) if lang != "en" else msgid


def pick(query: str | None, accept_language: str | None) -> str:
    """The page's language: ``?lang=`` when it names one, else the first of the browser's
    languages (``Accept-Language``, by weight) that the pages speak, else :data:`DEFAULT`."""
    if query in LANGS:
        return query
    best: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        base = tag.strip().lower().split("-")[0]
        if base in LANGS and q > 0:
            best.append((-q, i, base))
    return min(best)[2] if best else DEFAULT


def number(x: float, d: int = 0, lang: str = DEFAULT, sign: bool = False) -> str:
    """``x`` with ``d`` decimals: ``1,234.5`` in English, ``1 234,5`` in French (narrow no-break
    space between thousands, decimal comma); ``sign``: a leading ``+`` or ``−``."""
    s = f"{abs(x) if sign else x:,.{d}f}"
    if float(s.replace(",", "")) == 0.0:
        x, s = 0.0, s.lstrip("-")  # a value that rounds to zero has no sign (never "−0.00")
    if lang == "fr":
        s = s.replace(",", NNBSP).replace(".", ",")
    if sign:
        s = ("+" if x >= 0 else "−") + s
    return s.replace("-", "−") if lang == "fr" else s


def interval(v: float, lo: float, hi: float, d: int, lang: str = DEFAULT, suffix: str = "",
             sign: bool = False) -> str:
    """``25.8 % [25.5, 26.1]`` / ``25,8 % [25,5 ; 26,1]`` (a no-break space before ``%``)."""
    sep = " ; " if lang == "fr" else ", "
    suffix = suffix.replace(" ", NBSP)
    return (f"{number(v, d, lang, sign)}{suffix} [{number(lo, d, lang, sign)}{sep}"
            f"{number(hi, d, lang, sign)}]")


# ---------------------------------------------------------------- sentences with figures
#: A number as the report's English sentences write it (``5,000``, ``-4.3``, ``+0.8``, ``26.26``),
#: not one inside a word (``D8``, ``t60``, ``q-rungs``).
_NUM = re.compile(r"(?<![\w.\-−+])[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])")
#: Where a long text is cut into phrases the catalogue holds one by one: after a sentence's full
#: stop (a capital or a figure follows) and at a semicolon outside brackets.
_CUT = re.compile(r"(?<=\.)\s+(?=[A-Z0-9ÉÈ+\-−])|;\s+")


def figure_key(text: str, slots: dict | None = None) -> tuple[str, list[str]]:
    """A sentence as its catalogue entry (every number a numbered placeholder, every slot's
    English words ``{name}``) and its numbers: ``"n = 5,000 games"`` -> ``("n = {0} games",
    ["5,000"])``. The report's sentences are built from the figures, so one entry translates
    every run's figures; a no-break space counts as a space."""
    nums: list[str] = []

    def hold(m):
        nums.append(m.group(0))
        return "{%d}" % (len(nums) - 1)

    text = text.replace("\u00a0", " ").replace("{", "{{").replace("}", "}}")
    for name, words in (slots or {}).items():
        text = text.replace(words["en"], f"\x00{name}\x00")
    key = _NUM.sub(hold, text)
    return re.sub("\x00(\\w+)\x00", r"{\1}", key), nums


def number_words(token: str, lang: str) -> str:
    """A number as an English sentence wrote it, in ``lang``'s way (``5,000`` -> ``5 000``,
    ``-4.3`` -> ``−4,3``)."""
    if lang == "en":
        return token
    return token.replace(",", NNBSP).replace(".", ",").replace("-", "−")


def numbers_in(text: str, lang: str) -> str:
    """Every number of a text written by the English conventions (``-6.4``, ``12,320``), in
    ``lang``'s (``−6,4``, ``12 320``); numbers inside words (``D8``, ``L6``, ``rungs-2``) stay."""
    if lang == "en":
        return text
    # an interval's two ends are parted by « ; » where the decimal mark is a comma
    text = re.sub(r"\[([+\-−]?\d[\d.]*), ([+\-−]?\d[\d.]*)([^\]]*)\]", r"[\1 ; \2\3]", text)
    return _NUM.sub(lambda m: number_words(m.group(0), lang), text)


def _depth(text: str) -> int:
    return text.count("(") + text.count("[") - text.count(")") - text.count("]")


def _pieces(text: str) -> list[tuple[str, str]]:
    """(phrase, the separator after it): cut at sentence ends and semicolons outside brackets."""
    out, start = [], 0
    for m in _CUT.finditer(text):
        if _depth(text[start:m.start()]) == 0 and _depth(text[:m.start()]) == 0:
            out.append((text[start:m.start()], m.group(0)))
            start = m.end()
    out.append((text[start:], ""))
    return out


#: The game's and the report's words a sentence may hold in any combination, each a slot of a
#: general entry (``{g0}``: a guide, ``{k0}``: rungs of the skill ladder, ``{m0}``: a mixed
#: table's players, « 1 expert et 3 débutants », ``{r0}``: a reading,
#: ``{s0}``: an order of strategies, ``{v0}``: verdict numbers, ``{f0}``: a file): the
#: catalogue's entry of the sentence with its own words is tried first, then the general one.
_RUNGS = {"novice": "débutants", "casual": "occasionnels", "regular": "habitués", "expert": "experts",
          "champion": "champions"}
_STRATEGIES = {"greedy": "gourmand", "prudent": "prudent", "expert": "expert", "racer": "coureur", "random": "hasard"}
_READINGS = ("real, possibly relevant", "real and relevant", "real but small", "negligible", "uncertain")
def _mixed_tables() -> dict[str, str]:
    """The mixed-skill tables in words, English to French (heron_sim.glossary.MIXED_TABLE_PLAYERS:
    "1 expert and 3 novices" -> « 1 expert et 3 débutants »)."""
    from .glossary import MIXED_TABLE_PLAYERS, counted_players

    return {counted_players(n, "en"): counted_players(n, "fr") for n in MIXED_TABLE_PLAYERS.values()}


_MIXED = _mixed_tables()
_WORDS = (
    # a mixed table's players (``{m0}``), before the rungs' words it holds
    ("m", re.compile("|".join(map(re.escape, sorted(_MIXED, key=len, reverse=True)))),
     lambda w, lang: _MIXED[w] if lang == "fr" else w),
    ("r", re.compile("|".join(map(re.escape, _READINGS))), lambda w, lang: gettext(w, lang)),
    ("s", re.compile(r"\b(?:racer|expert|greedy|prudent|random)(?: > (?:racer|expert|greedy|prudent|random))+\b"),
     lambda w, lang: " > ".join(_STRATEGIES[x] for x in w.split(" > "))),
    ("k", re.compile(r"\b(?:novice|casual|regular|expert|champion)(?:, (?:novice|casual|regular|expert|champion))*\b"),
     lambda w, lang: _list([_RUNGS[x] for x in w.split(", ")], lang)),
    ("g", re.compile(r"\b(?:Loup|Taureau|Serpent|Lion|Aigle|Cerf|Héron)\b"), lambda w, lang: w),
    ("v", re.compile(r"#\d+(?:, #\d+)*"), lambda w, lang: "n° " + w.replace("#", "")),
    ("f", re.compile(r"experiments/[\w.-]+\.toml"), lambda w, lang: w),
)


def _list(words: list[str], lang: str) -> str:
    if len(words) < 2 or lang != "fr":
        return ", ".join(words)
    return ", ".join(words[:-1]) + " et " + words[-1]


def word_slots(text: str, lang: str) -> dict:
    """The slots of the game's and the report's words in ``text`` (:data:`_WORDS`), each with
    its words in English and in ``lang``."""
    out: dict = {}
    for tag, pat, words in _WORDS:
        seen: list[str] = []
        for m in pat.finditer(text):
            w = m.group(0)
            if w not in seen and not any(w in v["en"] for v in out.values()):
                seen.append(w)
                out[f"{tag}{len(seen) - 1}"] = {"en": w, lang: words(w, lang)}
    return out


def phrase(text: str, lang: str, missing: list | None = None, slots: dict | None = None) -> str:
    """A report sentence (its figures written into it) in ``lang``: the catalogue's entry of the
    whole text with its numbers as placeholders, else of each of its phrases
    (:func:`_pieces`); a phrase without an entry stays English and its entry is added to
    ``missing`` (tests/test_report_brief_fr.py lists those of the golden report). ``slots``:
    ``{name: {"en": words, lang: words}}``, words of the text's own (a study's rules) that the
    entry holds as ``{name}``. French typography: a no-break space before « % », « : » and « ; »."""
    text = str(text)
    if lang == "en" or not text.strip():
        return text
    cat = catalogue(lang)

    def one(piece: str, general: bool = False) -> str | None:
        sl = {**(slots or {}), **word_slots(piece, lang)} if general else slots
        key, nums = figure_key(piece, sl)
        if key in cat:
            fill = {name: words.get(lang, words["en"]) for name, words in (sl or {}).items()}
            return typography(cat[key].format(*(number_words(n, lang) for n in nums), **fill), lang)
        return None if general else one(piece, True)

    whole = one(text)
    if whole is not None:
        return whole
    out = []
    for piece, sep in _pieces(text):
        got = one(piece) if piece.strip() else piece
        if got is None:
            if missing is not None:
                missing.append(figure_key(piece, {**(slots or {}), **word_slots(piece, lang)})[0])
            got = piece
        out.append(got + (f"{NNBSP}; " if sep.startswith(";") and lang == "fr" else sep))
    return "".join(out)


def typography(text: str, lang: str) -> str:
    """French spacing: a no-break space before « % » and « : », a narrow one before « ; », « ? »
    and « ! » (the catalogue is written with plain spaces); a counted noun's singular after
    a number below 2 (:func:`counted`); a p-value as a designer reads it: « Holm p = 0,03 » ->
    « p corrigé = 0,03 », and one that rounds to nothing « p < 0,001 », never « p = 0,000 »."""
    if lang != "fr":
        return text
    text = re.sub(r"\bHolm p( ?[<=>≥])", r"p corrigé\1", text)
    text = re.sub(r"\b(p|p corrigé) ?= ?0,000\b", r"\1 < 0,001", text)
    text = re.sub(r" (%|:)", NBSP + r"\1", text)
    return counted(re.sub(r" ([;?!])", NNBSP + r"\1", text), lang)


#: Adjectives that follow a counted noun and agree with it (« 0,5 tour mort »).
_AGREE = ("morts", "joués", "jouées", "gagnés", "gagnées", "perdus", "perdues", "terminées", "entiers", "entières",
          "supplémentaires", "équitables", "réservés", "consécutifs")


@lru_cache(maxsize=None)
def _counted_re():
    from .glossary import COUNTED

    return re.compile(r"(?<![\d,.\u202f\u00a0\w])(?<![\d] )([+−-]?[01](?:,\d+)?[ \u00a0])(?!\d)("
                      + "|".join(COUNTED) + r")s\b(?:([ \u00a0])(" + "|".join(a[:-1] for a in _AGREE) + r")s\b)?")


def counted(text: str, lang: str = DEFAULT) -> str:
    """French agreement after a number: the singular below 2 for the glossary's counted nouns
    (heron_sim.glossary.COUNTED) and the adjective that follows them: « 0 tours » -> « 0 tour »,
    « +0,8 points » -> « +0,8 point », « 1,5 tours morts » -> « 1,5 tour mort »; « 1 000 parties »
    and « 2,5 points » stay.

        >>> counted("+0,8 points ; 1 000 parties ; 0,5 tours morts ; 1,5 cases")
        '+0,8 point ; 1 000 parties ; 0,5 tour mort ; 1,5 case'
    """
    if lang != "fr":
        return text
    return _counted_re().sub(lambda m: m.group(1) + m.group(2) + (m.group(3) + m.group(4) if m.group(4) else ""), text)
