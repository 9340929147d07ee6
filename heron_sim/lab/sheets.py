"""Rule sheets: a proposal in the game's words, French (like the seed) and English.

:func:`rule_sheet` turns a variant into a short printable sheet: each rule it changes as it
stands and as proposed, in sentences a designer can paste into the booklet (never key names),
then the evidence at each table of the panel with 95 % intervals, then the side effects (length
in rounds and minutes, dead turns, the Étang, the Angoisse, each power's use). The sentences come
from :data:`PHRASES`, one entry per rules key and language; a key without a phrase is an error
(a test checks that every key of the rules has one in both languages).

    >>> from heron_sim.rules import Rules
    >>> print(rule_sheet(Rules.build(), Rules.build(overrides={"rolls": 4}), None, "en").splitlines()[4])
    | Rolls per turn | Each player rolls up to 3 times per turn. | Each player rolls up to 4 times per turn. |
"""

from __future__ import annotations

import html
import math
from typing import Any, Callable

from ..errors import HeronSimError
from ..rules import Rules
from .changes import Change, rule_changes

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


def _sq(n: int, lang: str) -> str:
    return (f"{n} case" + ("s" if n > 1 else "")) if lang == "fr" else (f"{n} square" + ("s" if n != 1 else ""))


def _yes(v, fr_yes, fr_no, en_yes, en_no):
    return {"fr": fr_yes if v else fr_no, "en": en_yes if v else en_no}


def _seats(v, lang, fr_none, en_none, each, fr_head, en_head):
    """A by-seat list (seat 0 plays first): only the seats that get something are named."""
    v = list(v or [])
    if not any(v):
        return fr_none if lang == "fr" else en_none
    parts = [each(s, x) for s, x in enumerate(v) if x]
    return (fr_head if lang == "fr" else en_head) + ", ".join(parts) + (" (les autres : 0)." if lang == "fr" else " (others: 0).")


def _guides(names, lang):
    return ", ".join(GUIDES[lang].get(g, g) for g in names)


# Each phrase: (title fr, title en, sentence(value, lang, index) -> str). ``index`` is the list
# entry for combinations.advance[i] / .effect[i], the square for board.square.N.
Phrase = tuple[str, str, Callable[[Any, str, Any], str]]

PHRASES: dict[str, Phrase] = {
    "mode": ("Dés", "Dice", lambda v, l, i: {"fr": f"On joue en mode {v}.", "en": f"The game uses mode {v}."}[l]),
    "players": ("Joueurs", "Players", lambda v, l, i: {"fr": f"{v} joueurs.", "en": f"{v} players."}[l]),
    "rolls": ("Lancers par tour", "Rolls per turn", lambda v, l, i: {
        "fr": f"Chaque joueur lance jusqu'à {v} fois par tour.",
        "en": f"Each player rolls up to {v} times per turn."}[l]),
    "pond_threshold": ("L'Étang Paisible", "The Peaceful Pond", lambda v, l, i: {
        "fr": f"{v} Hérons ou plus dès le premier lancer ouvrent l'Étang Paisible.",
        "en": f"{v} or more herons on the first roll open the Peaceful Pond."}[l]),
    "anxiety_threshold": ("L'Angoisse du Héron", "The Heron's Anxiety", lambda v, l, i: {
        "fr": f"Dès qu'un joueur cumule {v} Hérons ou plus (hors Étang), son tour prend fin sans déplacement.",
        "en": f"As soon as a player holds {v} or more herons (outside the Pond), the turn ends with no move."}[l]),
    "guide_power_doubling": ("Puissance du Guide", "Guide Power", lambda v, l, i: _yes(
        v, "Si la plus grande série est de l'animal de votre Guide, le nombre de cases gagné est doublé.",
        "La Puissance du Guide ne s'applique pas : une série de l'animal de votre Guide n'est pas doublée.",
        "If your largest set is of your guide's animal, the squares gained are doubled.",
        "No Guide Power: a set of your guide's animal is not doubled.")[l]),
    "powers": ("Pouvoirs des Guides", "Guide powers", lambda v, l, i: _yes(
        v, "Chaque Guide a son pouvoir ponctuel (il s'épuise après usage, puis peut être régénéré).",
        "Les Guides n'ont pas de pouvoir ponctuel (seule la Puissance du Guide reste).",
        "Each guide has its one-shot power (exhausted after use, it can be regenerated).",
        "The guides have no one-shot power (only the Guide Power remains).")[l]),
    "disabled_powers": ("Pouvoirs retirés", "Powers removed", lambda v, l, i: (
        {"fr": "Les sept Guides ont leur pouvoir ponctuel.", "en": "All seven guides have their one-shot power."}[l]
        if not v else {"fr": f"Pas de pouvoir ponctuel pour : {_guides(v, l)}.",
                       "en": f"No one-shot power for: {_guides(v, l)}."}[l])),
    "finish": ("Arrivée", "Finish", lambda v, l, i: {
        "fr": f"Le premier pion à atteindre la case {v} gagne.", "en": f"The first pawn to reach square {v} wins."}[l]),
    "exact_finish": ("Arrivée exacte", "Exact finish", lambda v, l, i: _yes(
        v, "Il faut tomber exactement sur la case d'arrivée ; l'excédent fait reculer d'autant.",
        "Il suffit d'atteindre ou de dépasser la case d'arrivée.",
        "You must land exactly on the finish; any excess bounces you back.",
        "Reaching or passing the finish is enough.")[l]),
    "single_use_squares": ("Cases à usage unique", "Single-use squares", lambda v, l, i: _yes(
        v, "Chaque case spéciale ne fonctionne qu'une fois par partie.",
        "Les cases à effets sont réutilisables à chaque arrivée normale.",
        "Each special square works once per game.", "Special squares work every time a pawn lands on them.")[l]),
    "max_rounds": ("Limite de tours", "Round limit", lambda v, l, i: {
        "fr": f"Une partie encore en cours après {v} tours de table s'arrête sans vainqueur (limite du simulateur).",
        "en": f"A game still running after {v} rounds stops with no winner (a simulator limit)."}[l]),
    "heron_doubling_herons": ("Puissance du Guide Héron", "The Heron guide's Guide Power", lambda v, l, i: (
        {"fr": "Le Guide Héron ne double jamais (les Hérons ne forment pas de série).",
         "en": "The Heron guide never doubles (herons never form a set)."}[l] if not v else
        {"fr": f"Le Guide Héron double sa plus grande série quand les dés finaux montrent au moins {v} Héron"
               + ("s" if v > 1 else "") + ".",
         "en": f"The Heron guide doubles its largest set when the final dice show at least {v} heron"
               + ("s" if v > 1 else "") + "."}[l])),
    "heron_doubling_min_set": ("Doublement du Guide Héron : série minimale", "Heron guide doubling: smallest set",
                               lambda v, l, i: (
        {"fr": "Ce doublement du Guide Héron vaut pour une série de toute taille.",
         "en": "The Heron guide's doubling applies to a set of any size."}[l] if not v else
        {"fr": f"Ce doublement du Guide Héron ne vaut que pour une série d'au moins {v} animaux identiques.",
         "en": f"The Heron guide's doubling applies only to a set of at least {v} identical animals."}[l])),
    "bull_bonus": ("Pouvoir du Taureau", "The Bull's power", lambda v, l, i: {
        "fr": f"Taureau : +{_sq(v, l)} après une combinaison réussie.",
        "en": f"Bull: +{_sq(v, l)} after a successful combination."}[l]),
    "snake_advance": ("Pouvoir du Serpent : avance", "The Snake's power: advance", lambda v, l, i: {
        "fr": f"Serpent : annuler un recul et avancer de {_sq(v, l)} (sans cascade).",
        "en": f"Snake: cancel a move back and advance {_sq(v, l)} (no cascade)."}[l]),
    "snake_max_cancel": ("Pouvoir du Serpent : reculs annulables", "The Snake's power: which moves back",
                         lambda v, l, i: (
        {"fr": "Le Serpent peut annuler n'importe quel recul.", "en": "The Snake may cancel any move back."}[l]
        if not v else {"fr": f"Le Serpent ne peut annuler qu'un recul d'au plus {_sq(v, l)}.",
                       "en": f"The Snake may cancel only a move back of at most {_sq(v, l)}."}[l])),
    # The remedy keys (docs/rules.md §3, §4b, §5).
    "bull_min_set": ("Pouvoir du Taureau : série minimale", "The Bull's power: smallest set", lambda v, l, i: {
        "fr": f"Le pouvoir du Taureau s'ajoute à une série d'au moins {v} animaux identiques.",
        "en": f"The Bull's power adds to a set of at least {v} identical animals."}[l]),
    "eagle_draws": ("Pouvoir de l'Aigle", "The Eagle's power", lambda v, l, i: {
        "fr": f"Aigle : révéler {v} face" + ("s" if v > 1 else "") + " possible" + ("s" if v > 1 else "")
              + " d'un dé, choisir ou conserver l'originale.",
        "en": f"Eagle: reveal {v} possible face" + ("s" if v != 1 else "") + " of a die, take one or keep the original."}[l]),
    "patience_cost": ("Patience du Héron", "The Heron's Patience", lambda v, l, i: (
        {"fr": "Patience : sans sacrifier de lancer (utilisable même au dernier lancer), choisir une face réellement "
               "présente sur un dé, qui devient réservé.",
         "en": "Patience: with no roll given up (even on the last roll), set a die to a face it really has; it is kept."}[l]
        if not v else
        {"fr": f"Patience : sacrifier {v} lancer" + ("s" if v > 1 else "") + " restant" + ("s" if v > 1 else "")
               + " pour choisir une face réellement présente sur un dé, qui devient réservé.",
         "en": f"Patience: give up {v} remaining roll" + ("s" if v != 1 else "")
               + " to set a die to a face it really has; it is kept."}[l])),
    "heron_patience_doubling": ("Patience et Puissance du Guide Héron", "Patience and the Heron guide's Guide Power",
                                lambda v, l, i: _yes(
        v, "Le Guide Héron double, pour ce tour, l'animal qu'il a choisi avec Patience (comme si c'était l'animal de son Guide).",
        "La Patience ne donne pas de doublement au Guide Héron.",
        "For that turn the Heron guide doubles the animal it set with Patience (as if it were its guide's animal).",
        "Patience gives the Heron guide no doubling.")[l]),
    "pond_pushback_per_heron": ("Recul de l'Étang : par Héron", "The Pond's push-back: per heron", lambda v, l, i: {
        "fr": f"À l'Étang Paisible, chaque adversaire recule de {_sq(v, l)} par Héron obtenu.",
        "en": f"In the Peaceful Pond each opponent moves back {_sq(v, l)} per heron."}[l]),
    "pond_pushback_flat": ("Recul de l'Étang : fixe", "The Pond's push-back: flat", lambda v, l, i: (
        {"fr": "Le recul de l'Étang n'a pas de part fixe.", "en": "The Pond's push-back has no flat part."}[l] if not v else
        {"fr": f"Le recul de l'Étang compte en plus {_sq(v, l)} fixe" + ("s" if v > 1 else "") + ".",
         "en": f"The Pond's push-back adds a flat {_sq(v, l)}."}[l])),
    "pond_pushback_max": ("Recul de l'Étang : plafond", "The Pond's push-back: cap", lambda v, l, i: (
        {"fr": "Le recul de l'Étang n'est pas plafonné.", "en": "The Pond's push-back has no cap."}[l] if not v else
        {"fr": f"Le recul de l'Étang est d'au plus {_sq(v, l)}.", "en": f"The Pond pushes back at most {_sq(v, l)}."}[l])),
    "consolation_anxiety": ("Consolation après l'Angoisse", "Consolation after an Anxiety", lambda v, l, i: (
        {"fr": "L'Angoisse ne donne aucune consolation.", "en": "An Anxiety gives no consolation."}[l] if not v else
        {"fr": f"Après une Angoisse que le Lion ne sauve pas, le joueur avance de {_sq(v, l)} (sans effet de case).",
         "en": f"After an Anxiety the Lion does not rescue, the player advances {_sq(v, l)} (no square effect)."}[l])),
    "consolation_no_set": ("Consolation sans série", "Consolation for a turn worth nothing", lambda v, l, i: (
        {"fr": "Un tour sans série gagnante ne donne aucune consolation.", "en": "A turn worth no square gives no consolation."}[l]
        if not v else
        {"fr": f"Après un tour qui ne fait gagner aucune case (pas de série de 3), le joueur avance de {_sq(v, l)} "
               "(sans effet de case).",
         "en": f"After a turn worth no square (no set of 3), the player advances {_sq(v, l)} (no square effect)."}[l])),
    "start_squares": ("Cases de départ", "Start squares", lambda v, l, i: _seats(
        v, l, "Tous les joueurs partent de la case 0.", "Every player starts on square 0.",
        lambda s, x: {"fr": f"joueur {s + 1} : case {x}", "en": f"player {s + 1}: square {x}"}[l],
        "Départ : ", "Start: ")),
    "first_turn_extra_rolls": ("Lancers en plus au premier tour", "Extra rolls on the first turn", lambda v, l, i: _seats(
        v, l, "Aucun lancer en plus au premier tour.", "No extra roll on the first turn.",
        lambda s, x: {"fr": f"joueur {s + 1} : +{x}", "en": f"player {s + 1}: +{x}"}[l],
        "Lancers en plus à son premier tour : ", "Extra rolls on one's first turn: ")),
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
    k, i = phrase_key(key)
    if k not in PHRASES:
        raise HeronSimError(f"rule sheet: no phrase for rules key {key!r}; add one to heron_sim.lab.sheets.PHRASES")
    fr, en, fn = PHRASES[k]
    return (fr if lang == "fr" else en), fn(value, lang, i)


# ---------------------------------------------------------------- the sheet
T = {
    "fr": {"title": "Proposition de règle", "rule": "Règle", "now": "Aujourd'hui", "proposed": "Proposé",
           "none": "Aucune règle ne change.", "evidence": "Ce que montrent les parties",
           "table": "Table", "side": "Effets de bord", "length": "Durée", "rounds": "tours de table",
           "minutes": "min", "dead": "Tours morts", "pond": "Étang Paisible par tour", "anx": "Angoisse par tour",
           "powers": "Pouvoirs utilisés par partie (Guide distribué)", "base": "règles actuelles",
           "variant": "proposition", "diff": "écart [IC 95 %]",
           "games": "{n} parties par table sur des graines neuves, appariées avec les règles actuelles.",
           "minnote": "Minutes : {s} s par tour de joueur (hypothèse en attendant une partie chronométrée).",
           "changes": "{n} règle(s) modifiée(s)", "obj": "Objectif"},
    "en": {"title": "Rule proposal", "rule": "Rule", "now": "As it stands", "proposed": "Proposed",
           "none": "No rule changes.", "evidence": "What the games show", "table": "Table",
           "side": "Side effects", "length": "Length", "rounds": "rounds", "minutes": "min", "dead": "Dead turns",
           "pond": "Peaceful Pond per turn", "anx": "Anxiety per turn",
           "powers": "Powers used per game (guide dealt)", "base": "current rules", "variant": "proposal",
           "diff": "difference [95 % CI]",
           "games": "{n} games a table on fresh seeds, paired with the current rules.",
           "minnote": "Minutes: {s} s per player turn (an assumption until a timed playtest).",
           "changes": "{n} rule(s) changed", "obj": "Objective"},
}


def _pct(x):
    return "n/a" if not isinstance(x, (int, float)) or not math.isfinite(x) else f"{100 * x:.1f} %"


def _pts(x):
    return "n/a" if not isinstance(x, (int, float)) or not math.isfinite(x) else f"{100 * x:+.1f}"


def rule_sheet(base: Rules, variant: Rules, evidence: dict | None, lang: str, *, name: str | None = None) -> str:
    """The sheet of ``variant`` against ``base`` as Markdown, in ``lang`` ("fr" or "en").

    ``evidence``: one finalist of a study (heron_sim.lab.study.evidence), or None for the rules
    alone. Any dict with ``games`` and ``effects`` (metric, base, variant, diff, low, high: the
    explorer's paired figures) is evidence too: its side effects are shown for its one table;
    ``objectives`` and ``effects_by_scenario`` are optional."""
    from ..runner.kinds.common import SECONDS_PER_TURN, minutes

    if lang not in LANGS:
        raise HeronSimError(f"lang: {lang!r}; allowed: {', '.join(LANGS)}")
    t = T[lang]
    changes = rule_changes(base, variant)
    head = f"# {t['title']}" + (f" `{name}`" if name else "")
    lines = [head, "", t["changes"].format(n=len(changes)) + ".", ""]
    if not changes:
        lines += [t["none"], ""]
    else:
        lines += [f"| {t['rule']} | {t['now']} | {t['proposed']} |", "|---|---|---|"]
        for c in changes:
            title, old = phrase(c.key, c.old, lang)
            _, new = phrase(c.key, c.new, lang)
            lines.append(f"| {title} | {old} | {new} |")
        lines.append("")
    if evidence:
        lines += _evidence_md(evidence, lang, t)
        lines += _side_md(evidence, lang, t, minutes, SECONDS_PER_TURN)
    return "\n".join(lines) + "\n"


#: The objective metrics in the booklet's words.
METRIC_WORDS = {
    "fr": {"guide_spread": "écart des Guides (plus grand écart entre le taux de victoire d'un Guide et la part équitable)",
           "first_player_advantage": "avantage du premier joueur (taux de victoire du siège 1 − part équitable)",
           "length": "durée moyenne (tours de table)", "dead_turn_rate": "tours morts (tours qui ne font bouger personne)",
           "lead_changes": "changements de tête par partie", "pushback": "recul dû à l'Étang par partie (cases)",
           "completion": "parties terminées", "seat_balance": "équilibre des sièges",
           "pond_rate": "Étang Paisible par tour", "anxiety_rate": "Angoisse par tour",
           "advance_per_turn": "avance par tour (cases)"},
    "en": {"guide_spread": "guide spread (largest gap between a guide's win rate and the fair share)",
           "first_player_advantage": "first-player advantage (seat 1's win rate − the fair share)",
           "length": "mean length (rounds)", "dead_turn_rate": "dead turns (turns that move nobody)",
           "lead_changes": "lead changes per game", "pushback": "Pond push-back per game (squares)",
           "completion": "games finished", "seat_balance": "seat balance", "pond_rate": "Peaceful Pond per turn",
           "anxiety_rate": "Anxiety per turn", "advance_per_turn": "advance per turn (squares)"},
}


def _distance_words(o, x, lang) -> str:
    from .metrics import METRICS, format_value, unit_suffix

    m = o["metric"]
    d = x["distance"]
    if "relative" in o["objective"]:
        dist = f"{100 * d:+.1f} %"
    elif METRICS[m].unit in ("rate", "points"):
        dist = f"{100 * d:+.1f} " + ("points")
    else:
        dist = f"{format_value(m, d, True)}{unit_suffix(m)}"
    tgt = f"{format_value(m, x['target'])}{unit_suffix(m)}"
    return f"cible {tgt} : {dist}" if lang == "fr" else f"target {tgt}: {dist}"


def _evidence_md(e: dict, lang: str, t: dict) -> list[str]:
    from .metrics import METRICS, format_value, unit_suffix

    lines = [f"## {t['evidence']}", "", t["games"].format(n=f"{e['games']:,}".replace(",", " " if lang == "fr" else ",")), ""]
    for o in e.get("objectives") or []:
        m = o["metric"]
        what = METRIC_WORDS[lang].get(m, m)
        goal = ""
        if o["goal"] is not None:
            ok = o["goal_met_95"]
            goal = {"fr": f" — but {_goal(o, lang)} : {'atteint avec 95 % de confiance' if ok else 'pas atteint avec 95 % de confiance'}",
                    "en": f" — goal {_goal(o, lang)}: {'met with 95 % confidence' if ok else 'not met with 95 % confidence'}"}[lang]
        lines += [f"**{t['obj']}** : {what}{goal}" if lang == "fr" else f"**{t['obj']}**: {what}{goal}", "",
                  f"| {t['table']} | {t['base']} | {t['variant']} [95 %] |", "|---|---|---|"]
        for x in o.get("scenarios", []):
            v = (f"{format_value(m, x['value'])} [{format_value(m, x['low'])}, {format_value(m, x['high'])}]"
                 f"{unit_suffix(m)}")
            if x["distance"] is not None:
                v += f" — {_distance_words(o, x, lang)}"
            lines.append(f"| {x['scenario']} | {format_value(m, x['base'])}{unit_suffix(m)} | {v} |")
        lines.append("")
    return lines


def _goal(o, lang) -> str:
    from .metrics import METRICS

    g = o["goal"]
    if "relative" in o["objective"]:
        return f"± {100 * g:g} %"
    if METRICS[o["metric"]].unit in ("rate", "points"):
        return f"{100 * g:g} points"
    return f"{g:g}"


def _side_md(e: dict, lang: str, t: dict, minutes, spt) -> list[str]:
    from ..animals import NAMES

    lines = [f"## {t['side']}", "",
             f"| {t['table']} | {t['length']} | {t['dead']} | {t['pond']} | {t['anx']} |", "|---|---|---|---|---|"]
    tables = e.get("effects_by_scenario") or ({"—": e["effects"]} if e.get("effects") else {})
    for scen, rows in tables.items():
        r = {x["metric"]: x for x in rows}
        P = sum(1 for k in r if k.startswith("seat_") and k.endswith("_win_rate"))
        ln = r.get("length")
        if ln is None or not all(isinstance(ln.get(k), (int, float)) for k in ("base", "variant", "diff", "low", "high")):
            cell_len = "n/a"
        else:
            cell_len = (f"{ln['base']:.1f} → {ln['variant']:.1f} {t['rounds']} "
                        f"({ln['diff']:+.1f} [{ln['low']:+.1f}, {ln['high']:+.1f}])")
            if P:
                cell_len += f"; ≈ {minutes(ln['base'], P):.0f} → {minutes(ln['variant'], P):.0f} {t['minutes']}"
        cells = [cell_len]
        for m in ("dead_turn_rate", "pond_rate", "anxiety_rate"):
            x = r.get(m)
            cells.append("n/a" if x is None else
                         f"{_pct(x['base'])} → {_pct(x['variant'])} ({_pts(x['diff'])} [{_pts(x['low'])}, {_pts(x['high'])}] pt)")
        lines.append(f"| {scen} | " + " | ".join(cells) + " |")
    lines += ["", t["minnote"].format(s=spt), "", f"**{t['powers']}**", "",
              f"| {t['table']} | " + " | ".join(GUIDES[lang][g] for g in NAMES) + " |", "|---|" + "---|" * len(NAMES)]
    for scen, rows in tables.items():
        r = {x["metric"]: x for x in rows}
        cells = []
        for g in NAMES:
            x = r.get(f"power_{g}_use") or r.get(f"power_{g}")  # the lab's name, the explorer's
            if x is None or not isinstance(x.get("base"), (int, float)) or not math.isfinite(x["base"]) \
                    or not isinstance(x.get("variant"), (int, float)):
                cells.append("n/a")
            else:
                cells.append(f"{x['base']:.2f} → {x['variant']:.2f}")
        lines.append(f"| {scen} | " + " | ".join(cells) + " |")
    return lines + [""]


def sheet_html(markdown: str, lang: str = "fr") -> str:
    """A self-contained HTML page of a sheet (headings, tables, paragraphs; no network)."""
    body, table = [], []

    def flush():
        if table:
            rows = [r for r in table if not set(r.replace("|", "").strip()) <= set("-")]
            out = ["<table>"]
            for k, r in enumerate(rows):
                cells = [c.strip() for c in r.strip().strip("|").split("|")]
                tag = "th" if k == 0 else "td"
                out.append("<tr>" + "".join(f"<{tag}>{_inline(c)}</{tag}>" for c in cells) + "</tr>")
            out.append("</table>")
            body.append("\n".join(out))
            table.clear()

    for line in markdown.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        flush()
        if line.startswith("## "):
            body.append(f"<h2>{_inline(line[3:])}</h2>")
        elif line.startswith("# "):
            body.append(f"<h1>{_inline(line[2:])}</h1>")
        elif line.strip():
            body.append(f"<p>{_inline(line)}</p>")
    flush()
    style = ("body{font-family:Georgia,serif;max-width:60em;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #999;padding:.2em .5em;"
             "vertical-align:top}th{background:#eee}@media print{body{margin:0}}")
    return (f"<!doctype html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(markdown.splitlines()[0].lstrip('# '))}</title><style>{style}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _inline(text: str) -> str:
    import re

    s = html.escape(text)
    s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"`(.+?)`", r"<code>\1</code>", s)
    return s


def write_sheets(spec, finalists: list[dict], out, limit: int) -> list:
    """``sheet-<variant>.fr.md``, ``.en.md`` and ``.html`` (French and English on one page) for
    each of the first ``limit`` finalists; returns the paths."""
    from pathlib import Path

    from ..io import write_text

    out = Path(out)
    paths = []
    for old in list(out.glob("sheet-*.md")) + list(out.glob("sheet-*.html")):
        old.unlink()
    for e in finalists[:limit]:
        md = {lang: rule_sheet(spec.base, e["rules"], e, lang, name=e["id"]) for lang in LANGS}
        for lang in LANGS:
            p = out / f"sheet-{e['id']}.{lang}.md"
            write_text(p, md[lang])
            paths.append(p)
        page = sheet_html(md["fr"] + "\n" + md["en"], "fr")
        p = out / f"sheet-{e['id']}.html"
        write_text(p, page)
        paths.append(p)
    return paths


__all__ = ["rule_sheet", "sheet_html", "phrase", "PHRASES", "write_sheets", "Change"]
