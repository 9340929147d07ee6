"""A lighter game's booklet text for a proposal (issue 58 item 7), as the Héron studies have one
(:mod:`heron_sim.lab.booklet`).

The lab knows no game by hand: each game writes its booklet's sentences in its package's
``data/words.toml``, one ``[booklet."KEY"]`` table per rules key a study may change:

- ``block``: ``{fr, en}``, the part of the rules (the French seed's heading) the sentence belongs to;
- ``fr`` / ``en``: the sentence for each value, keyed by the value written as JSON (``"0"``,
  ``"[3, 3, 3, 3, 3, 3, 1]"``, ``"\\"round\\""``), and ``"*"`` for any other value, in the seed's
  words. A template may say ``{value}`` (the value: ``250``, ``20 / 18 / 15``), ``{w}`` / ``{f}`` (a
  count in words up to ten, masculine / feminine: « deux », « une »), and for a list ``{v0}``,
  ``{w0}``, ``{f0}``, … its items.

:func:`booklet_markdown` writes, block by block, the rule as the booklet states it today and the
rule with the change, both as sentences (no list, no key name, no table id); a change that is a
reading of the rules text (:func:`heron_sim.lab.light.seed_reading`) says so. A key the game gives
no sentence is written from its meaning (:func:`heron_sim.games.base.rules_words`).
"""

from __future__ import annotations

import json

from ..errors import HeronSimError
from .booklet import words as count_words

_HEAD = {
    "fr": ("Texte du livret : {game}, proposition {id}",
           "Les règles du livret que la proposition change, chacune écrite deux fois : telle que le livret la dit "
           "aujourd'hui, puis avec le changement (en gras). Les autres règles ne changent pas.",
           "Aujourd'hui", "Avec le changement"),
    "en": ("The booklet's text: {game}, proposal {id}",
           "The rules of the booklet that the proposal changes, each written twice: as the booklet says it today, "
           "then with the change (in bold). The other rules do not change.",
           "Today", "With the change"),
}
_READING = {
    "fr": ("Ce changement n'est pas une règle nouvelle : c'est une autre lecture du même texte du livret. À "
           "retenir seulement si c'est ce que le livret veut dire ; sinon, écrire la phrase ci-dessus telle quelle "
           "lèverait l'ambiguïté."),
    "en": ("This change is not a new rule: it is another reading of the same text of the booklet. Keep it only if "
           "that is what the booklet means; otherwise, writing the sentence above as it stands would settle the "
           "ambiguity."),
}
_OTHER_BLOCK = {"fr": "Autres règles", "en": "Other rules"}


def booklet_words(game) -> dict[str, dict]:
    """The game's booklet sentences: ``{dotted key: {"block": {fr, en}, "fr": {...}, "en": {...}}}``
    (``[booklet."KEY"]`` of its ``data/words.toml``; empty when it declares none)."""
    from ..games.base import game_package
    from ..tomlfile import package_toml

    try:
        return dict(package_toml(game_package(game), "data/words.toml").get("booklet", {}))
    except (FileNotFoundError, ModuleNotFoundError):
        return {}


def _fields(value, lang: str) -> dict:
    def one(v, feminine=False):
        if isinstance(v, bool) or not isinstance(v, int):
            return str(v)
        if feminine and v == 0:
            return "aucune" if lang == "fr" else "no"
        return count_words(v, lang, feminine)

    f = {"value": (" / ".join(str(x) for x in value) if isinstance(value, (list, tuple)) else str(value)),
         "w": one(value), "f": one(value, True)}
    if isinstance(value, (list, tuple)):
        for i, x in enumerate(value):
            f.update({f"v{i}": str(x), f"w{i}": one(x), f"f{i}": one(x, True)})
    return f


def sentence(game, key: str, value, lang: str) -> str:
    """The booklet's sentence for ``key`` = ``value`` in ``lang``: the value's own sentence, else
    the ``"*"`` template, else the rule's meaning with its value."""
    entry = booklet_words(game).get(key, {})
    table = entry.get(lang, {}) or {}
    text = table.get(json.dumps(value, ensure_ascii=False)) or table.get("*")
    if text:
        try:
            return text.format(**_fields(value, lang))
        except (KeyError, IndexError) as err:  # a sentence of the game's words.toml that names no field of ours
            raise HeronSimError(f"{game}: data/words.toml [booklet.{key}] ({lang}): the sentence {text!r} names "
                                f"{err} that its value does not give") from None
    from ..games.base import rules_words

    meaning = rules_words(game).get(key, {}).get(lang, key).rstrip(".")
    shown = " / ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return f"{meaning} : {shown}." if lang == "fr" else f"{meaning}: {shown}."


def block_of(game, key: str, lang: str) -> str:
    return (booklet_words(game).get(key, {}).get("block", {}) or {}).get(lang) or _OTHER_BLOCK[lang]


def booklet_markdown(game, base_table: dict, changes: dict, vid: str, lang: str, reading: str | None = None) -> str:
    """The booklet's text of a proposal: for each rule it changes, grouped by the booklet's block,
    the sentence today and the sentence with the change, in the game's words."""
    from ..games.base import game_words
    from .light import _get_path

    title, intro, today, changed = _HEAD[lang]
    out = [f"# {title.format(game=game_words(game)[lang], id=vid)}", "", intro, ""]
    blocks: dict[str, list[str]] = {}
    for key, v in changes.items():
        before = sentence(game, key, _get_path(base_table, key), lang)
        after = sentence(game, key, v, lang)
        colon = " : " if lang == "fr" else ": "
        blocks.setdefault(block_of(game, key, lang), []).extend(
            [f"{today}{colon}{before}", "", f"{changed}{colon}**{after}**", ""])
    for name, lines in blocks.items():
        out += [f"## {name}", "", *lines]
    if reading:
        out += [_READING[lang], ""]
    return "\n".join(out).rstrip() + "\n"


__all__ = ["block_of", "booklet_markdown", "booklet_words", "sentence"]
