"""The game's words in French (the booklet's) and English: guides, squares, large sets' effects,
and the small helpers the rules' sentences are written with (heron_sim.rules.keys, the rule
sheets of heron_sim.lab.sheets)."""

from __future__ import annotations

LANGS = ("fr", "en")

GUIDES = {"fr": {"loup": "Loup", "taureau": "Taureau", "serpent": "Serpent", "lion": "Lion", "aigle": "Aigle",
                 "cerf": "Cerf", "heron": "Héron"},
          "en": {"loup": "Wolf (Loup)", "taureau": "Bull (Taureau)", "serpent": "Snake (Serpent)",
                 "lion": "Lion", "aigle": "Eagle (Aigle)", "cerf": "Stag (Cerf)", "heron": "Heron (Héron)"}}

SQUARES = {
    "fr": {None: "sans effet", "neutral": "sans effet", "loup": "Loup : +1 lancer au prochain tour joué",
           "echange": "🔄 Échange : +1 case pour vous, −1 pour un adversaire",
           "taureau": "Taureau : tous les joueurs avancent de 3 cases",
           "emerveillement": "🌿 Émerveillement : passez votre prochain tour, protégé",
           "serpent": "Serpent : rejoint le pion le plus proche, juste derrière",
           "rotation": "🌀 Rotation : les Guides tournent", "lion": "Lion : tous les adversaires reculent de 3 cases",
           "protection": "🛡️ Protection jusqu'au prochain tour", "aigle": "Aigle : échange de position avec un adversaire",
           "cerf": "Cerf : Totem des Souvenirs (redresser son Guide ou avancer de 2 cases)",
           "regeneration": "✨ Régénération : tous les Guides redeviennent disponibles",
           "heron": "Héron : reculez de 10 cases"},
    "en": {None: "no effect", "neutral": "no effect", "loup": "Wolf: +1 roll on the next turn played",
           "echange": "🔄 Exchange: +1 square for you, −1 for an opponent",
           "taureau": "Bull: every player advances 3 squares",
           "emerveillement": "🌿 Wonder: skip your next turn, protected",
           "serpent": "Snake: join the nearest pawn, just behind it", "rotation": "🌀 Rotation: the guides rotate",
           "lion": "Lion: every opponent moves back 3 squares", "protection": "🛡️ Protection until your next turn",
           "aigle": "Eagle: swap places with an opponent",
           "cerf": "Stag: Totem of Memories (ready your guide or advance 2 squares)",
           "regeneration": "✨ Regeneration: every guide is ready again", "heron": "Heron: move back 10 squares"},
}

EFFECTS = {"fr": {"none": "aucun effet", "regenerate": "régénérer son Guide", "swap": "échanger son Guide",
                  "choice": "choisir : régénérer ou échanger son Guide"},
           "en": {"none": "no effect", "regenerate": "regenerate your guide", "swap": "swap your guide",
                  "choice": "choose: regenerate or swap your guide"}}


def squares_word(n: int, lang: str) -> str:
    """``3 cases`` / ``1 square``."""
    return (f"{n} case" + ("s" if n > 1 else "")) if lang == "fr" else (f"{n} square" + ("s" if n != 1 else ""))


def yes_no(v, fr_yes, fr_no, en_yes, en_no) -> dict:
    """The sentence of a switch in each language."""
    return {"fr": fr_yes if v else fr_no, "en": en_yes if v else en_no}


def by_seat(v, lang, fr_none, en_none, each, fr_head, en_head) -> str:
    """A by-seat list (seat 0 plays first): only the seats that get something are named."""
    v = list(v or [])
    if not any(v):
        return fr_none if lang == "fr" else en_none
    parts = [each(s, x) for s, x in enumerate(v) if x]
    return (fr_head if lang == "fr" else en_head) + ", ".join(parts) + (" (les autres : 0)." if lang == "fr" else " (others: 0).")


def guide_names(names, lang) -> str:
    """The guides named in ``lang`` (``Loup, Lion``)."""
    return ", ".join(GUIDES[lang].get(g, g) for g in names)
