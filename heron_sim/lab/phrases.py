"""The rules' sentences in the booklet's words, French and English, one per rules key (the rule
sheets' and the booklet text's phrases): :data:`PHRASES` and :func:`phrase`."""

from __future__ import annotations

from typing import Any, Callable

from ..errors import HeronSimError
from ..rules.keys import KEYS
from ..rules.words import EFFECTS, GUIDES, LANGS, SQUARES, guide_names as _guides, squares_word as _sq

# Each phrase: (title fr, title en, sentence(value, lang, index) -> str). ``index`` is the list
# entry for combinations.advance[i] / .effect[i], the square for board.square.N.
Phrase = tuple[str, str, Callable[[Any, str, Any], str]]

PHRASES: dict[str, Phrase] = {
    # every scalar and by-seat key: its row of the table of rules keys (heron_sim.rules.keys)
    **{k.name: (k.title_fr, k.title_en, lambda v, l, i, k=k: k.sentence(v, l)) for k in KEYS.values()},
    "mode": ("Dés", "Dice", lambda v, l, i: {"fr": f"On joue en mode {v}.", "en": f"The game uses mode {v}."}[l]),
    "disabled_powers": ("Pouvoirs retirés", "Powers removed", lambda v, l, i: (
        {"fr": "Les sept Guides ont leur pouvoir ponctuel.", "en": "All seven guides have their one-shot power."}[l]
        if not v else {"fr": f"Pas de pouvoir ponctuel pour : {_guides(v, l)}.",
                       "en": f"No one-shot power for: {_guides(v, l)}."}[l])),
    "combinations.advance": ("Combinaisons", "Combinations", lambda v, l, i: {
        "fr": f"{i} identiques : " + (f"+{_sq(v, l)}." if v else "aucun déplacement."),
        "en": f"{i} of a kind: " + (f"+{_sq(v, l)}." if v else "no move.")}[l]),
    "combinations.effect": ("Effet des grandes séries", "Effect of large sets", lambda v, l, i: {
        "fr": f"{i} identiques : {EFFECTS['fr'].get(v, v)}.", "en": f"{i} of a kind: {EFFECTS['en'].get(v, v)}."}[l]),
    "dice.faces": ("Composition des dés", "Dice", lambda v, l, i: {
        "fr": f"{len(v)} dés : " + "; ".join(", ".join(GUIDES['fr'].get(a, a) for a in die) for die in v) + ".",
        "en": f"{len(v)} dice: " + "; ".join(", ".join(GUIDES['en'].get(a, a) for a in die) for die in v) + "."}[l]),
    "dice.count": ("Nombre de dés", "Number of dice", lambda v, l, i: {
        "fr": f"Chaque joueur lance {v} dés.", "en": f"Each player rolls {v} dice."}[l]),
    "dice.file": ("Composition des dés", "Dice", lambda v, l, i: {
        "fr": f"Dés décrits dans {v}.", "en": f"Dice as described in {v}."}[l]),
    "board.squares": ("Cases spéciales", "Special squares", lambda v, l, i: {
        "fr": f"Case {i} : {SQUARES['fr'].get(v, v)}.", "en": f"Square {i}: {SQUARES['en'].get(v, v)}."}[l]),
    "board.file": ("Plateau", "Board", lambda v, l, i: {
        "fr": f"Plateau décrit dans {v}.", "en": f"Board as described in {v}."}[l]),
}


def phrase_key(key: str) -> tuple[str, Any]:
    """The phrase entry of a change's key and its index: ``combinations.advance[3]`` ->
    ("combinations.advance", 3), ``board.square.60`` -> ("board.squares", 60)."""
    if key.startswith("board.square."):
        return "board.squares", int(key.rsplit(".", 1)[1])
    if key.endswith("]") and "[" in key:
        k, _, i = key[:-1].partition("[")
        return k, int(i)
    return key, None


def phrase(key: str, value: Any, lang: str) -> tuple[str, str]:
    """(title, sentence) of one rule with this value, in ``lang``; an unknown key is an error.
    ``seats.N.KEY`` (a by-seat list for N players only) is KEY's phrase, said for N players."""
    if lang not in LANGS:
        raise HeronSimError(f"lang: {lang!r}; allowed: {', '.join(LANGS)}")
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "seats" and parts[1].isdigit():
        n = int(parts[1])
        title, sentence = phrase(parts[2], value, lang)
        if value is None:  # the count's own table removed: every count's list applies again
            sentence = {"fr": "la règle de tous les nombres de joueurs s'applique.",
                        "en": "the rule for every player count applies."}[lang]
        head = {"fr": f"À {n} joueurs", "en": f"With {n} players"}[lang]
        return f"{title} ({head.lower() if lang == 'en' else head.replace('À', 'à')})", f"{head} : {sentence}" if lang == "fr" else f"{head}: {sentence}"
    if len(parts) == 3 and parts[0] == "guide":
        return _guide_phrase(parts[1], parts[2], value, lang)
    k, i = phrase_key(key)
    if k not in PHRASES:
        raise HeronSimError(f"rule sheet: no phrase for rules key {key!r}; add one to heron_sim.lab.phrases.PHRASES")
    fr, en, fn = PHRASES[k]
    return (fr if lang == "fr" else en), fn(value, lang, i)


#: Words a rule's sentence may open with that stay capitalised after "Pour le joueur qui a ..., "
_PROPER = {w.split(" (")[0] for lang in LANGS for w in GUIDES[lang].values()} | {"Patience", "Guide", "Peaceful"}


#: A rule's words for every player, said of one guide's holder ("Pour le joueur qui a le Guide
#: Héron, il lance jusqu'à 4 fois par tour", not "chaque joueur lance").
_HOLDER = {"fr": (("chaque joueur lance", "il lance"), ("dès qu'un joueur cumule", "dès qu'il cumule"),
                  ("le joueur avance", "il avance")),
           "en": (("each player rolls", "they roll"), ("as soon as a player holds", "as soon as they hold"),
                  ("the turn ends", "their turn ends"), ("the player advances", "they advance"))}


def guide_word(name: str, lang: str) -> str:
    """A guide's name on a sheet: "Héron" (fr), "Heron" (en)."""
    return GUIDES[lang].get(name, name).split(" (")[0]


def _guide_phrase(name: str, key: str, value: Any, lang: str) -> tuple[str, str]:
    """``guide.NAME.KEY``: KEY's rule, said for the holder of guide NAME."""
    from ..animals import NAMES, animal_index

    guide = NAMES[animal_index(name, "guide")]
    title, sentence = phrase(key, value, lang)
    if value is None:  # the guide's own rule removed: every player's rule applies again
        sentence = {"fr": "la règle de tous les joueurs s'applique.", "en": "the rule of every player applies."}[lang]
    elif sentence.split(" ")[0].strip(":,") not in _PROPER:
        sentence = sentence[0].lower() + sentence[1:]
    for every, holder in _HOLDER[lang]:  # the rule's "each player" is the holder here
        sentence = sentence.replace(every, holder)
    g = guide_word(guide, lang)
    if lang == "fr":
        if value is None:
            return f"{title} (Guide {g})", f"Pour le joueur qui a le Guide {g}, {sentence}"
        return f"{title} (Guide {g})", f"Exception pour le joueur qui a le Guide {g} : {sentence}"
    return f"{title} ({g} guide)", f"For the player holding the {g} guide, {sentence}"


__all__ = ["PHRASES", "Phrase", "guide_word", "phrase", "phrase_key"]
