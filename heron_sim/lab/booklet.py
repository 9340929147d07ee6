"""The booklet's text with a proposal in place (issue 30 item 7).

The seed's rules are numbered blocks (« 01 Lancer & conserver », « 02 L'Angoisse du Héron », « 03
L'Étang Paisible », « 04 Combinaisons et Puissance du Guide », « Les 7 Guides animaux », « Les cases
spéciales »). Each block is declared here once as paragraphs; a paragraph names the rules it
states and writes itself from a rules set, in French (the seed's words: rendered from the
rulings, the French paragraphs are the seed's sentences) and in English. For a proposal,
:func:`booklet_text` rewrites every block a change touches, the changed sentences in bold, and
adds a block « Selon le nombre de joueurs » that writes each player count 2–7 out when a seat
rule changes. A change no paragraph states (a lab key the seed has no sentence for) is added to
its block in the rule sheets' words (:func:`heron_sim.lab.phrases.phrase`). No key names, no table
ids; French numbers in words up to ten, as the booklet writes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import HeronSimError
from ..rules import Rules
from ..rules.board import EFFECT_NAMES
from ..rules.keys import KEYS
from ..rules.words import LANGS, SQUARES
from .changes import Change, rule_changes

_FR = ("zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix")
_FR_F = ("zéro", "une") + _FR[2:]
_EN = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_FR_ORD = ("", "premier", "deuxième", "troisième", "quatrième", "cinquième", "sixième", "septième", "huitième",
           "neuvième", "dixième")
_EN_ORD = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def words(n: int, lang: str, feminine: bool = False) -> str:
    """A count as the booklet writes it: in words up to ten, in digits beyond."""
    if 0 <= n <= 10:
        return (_FR_F if feminine else _FR)[n] if lang == "fr" else _EN[n]
    return str(n)


def ordinal(n: int, lang: str) -> str:
    if 1 <= n <= 10:
        return _FR_ORD[n] if lang == "fr" else _EN_ORD[n]
    return f"{n}e" if lang == "fr" else f"{n}th"


def cases(n: int, lang: str) -> str:
    """« une case », « quatre cases » / "one square", "four squares"."""
    if lang == "fr":
        return f"{words(n, 'fr', True)} case" + ("s" if n > 1 else "")
    return f"{words(n, 'en')} square" + ("s" if n != 1 else "")


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


@dataclass(frozen=True)
class Para:
    """One paragraph: the rules it states (a change's key, or its prefix before ``[`` / ``.N``),
    and how it reads under a rules set. ``always``: printed in its block even when unchanged (the
    seed's own sentences); else only when one of its rules changes (a rule the seed leaves
    unsaid, e.g. the number of rolls)."""

    keys: tuple[str, ...]
    text: Callable[[Rules, str], str]
    always: bool = True


@dataclass(frozen=True)
class Block:
    number: str
    title_fr: str
    title_en: str
    group: str            # the keys' group (rules.keys.GROUPS) whose unstated changes it receives
    paras: tuple[Para, ...]

    def title(self, lang: str) -> str:
        t = self.title_fr if lang == "fr" else self.title_en
        return f"{self.number} — {t}" if self.number else t


def _static(fr: str, en: str) -> Para:
    return Para((), lambda r, l: fr if l == "fr" else en)


def _dice(r: Rules) -> tuple[int, str]:
    return len(r.dice), "D6" if r.mode.endswith("d6") else "D8"


# ---------------------------------------------------------------- 01 Lancer & conserver
def _rolls(r, l):
    n = r.rolls
    return (f"Chaque joueur lance ses dés jusqu'à {words(n, 'fr', True)} fois par tour."
            if l == "fr" else f"Each player rolls up to {words(n, 'en')} times a turn.")


def _dice_count(r, l):
    n, kind = _dice(r)
    if l == "fr":
        return (f"Chaque joueur lance {words(n, 'fr')} dés ({n} {kind}). Après chaque lancer, il peut sélectionner les dés "
                "à conserver définitivement, puis relancer les autres. Il faut conserver au moins un nouveau dé "
                "pour pouvoir relancer.") if r.mode not in ("7d8", "8d8", "10d8") else (
            "Chaque joueur lance 7, 8 ou 10 dés, selon le mode choisi. Après chaque lancer, il peut sélectionner les "
            "dés à conserver définitivement, puis relancer les autres. Il faut conserver au moins un nouveau dé "
            "pour pouvoir relancer.")
    return (f"Each player rolls {words(n, 'en')} dice ({n} {kind}). After each roll they may set aside dice to keep "
            "for good, then reroll the others. At least one new die must be kept to reroll.") \
        if r.mode not in ("7d8", "8d8", "10d8") else (
        "Each player rolls 7, 8 or 10 dice, depending on the chosen mode. After each roll they may set aside dice to "
        "keep for good, then reroll the others. At least one new die must be kept to reroll.")


B01 = Block("01", "Lancer & conserver", "Rolling and keeping", "lancer", (
    Para(("mode", "dice.count", "dice.faces", "dice.file"), _dice_count),
    Para(("rolls",), _rolls, always=False),
    _static("Un Héron obtenu est automatiquement conservé. Un dé déjà conservé ne peut plus être relancé pendant ce "
            "tour, sauf avec le Guide Loup. En mode D8, chaque dé possède sept animaux et la face 🔄 : elle fait "
            "immédiatement relancer ce dé gratuitement jusqu’à obtenir un animal. Les relances 🔄 ne comptent pas "
            "comme des lancers supplémentaires.",
            "A heron rolled is kept automatically. A die already kept cannot be rerolled this turn, except with the "
            "Wolf guide. In D8 mode each die has seven animals and the 🔄 face: it makes that die reroll at once, "
            "for free, until it shows an animal. 🔄 rerolls do not count as extra rolls."),
))


# ---------------------------------------------------------------- 02 L'Angoisse du Héron
def _anxiety(r, l):
    n = r.anxiety_threshold
    if l == "fr":
        return (f"En dehors de l'Étang Paisible, dès qu'un joueur cumule {words(n, 'fr')} Hérons ou plus, son tour prend "
                "fin immédiatement : aucun déplacement, même si d'autres combinaisons étaient présentes. Cette règle "
                "s'applique également aux relances et aux modifications de dés.")
    return (f"Outside the Peaceful Pond, as soon as a player holds {words(n, 'en')} or more herons, the turn ends at "
            "once: no move, even if other combinations were showing. The rule also applies to rerolls and to dice "
            "changed by a power.")


def _lion_pond(r, l):
    n = r.pond_threshold
    if l == "fr":
        return ("Le Guide Lion conserve son pouvoir de sauvetage ponctuel : les Hérons ne comptent alors pas dans la "
                f"combinaison. Si le premier lancer donne au moins {words(n, 'fr')} Hérons, l'Étang prime sur l'Angoisse.")
    return ("The Lion guide keeps its one-shot rescue: the herons then do not count in the combination. If the first "
            f"roll shows at least {words(n, 'en')} herons, the Pond comes before the Anxiety.")


B02 = Block("02", "L’Angoisse du Héron", "The Heron's Anxiety", "angoisse", (
    Para(("anxiety_threshold",), _anxiety),
    Para(("pond_threshold",), _lion_pond),
))


# ---------------------------------------------------------------- 03 L'Étang Paisible
def _pond_open(r, l):
    n = r.pond_threshold
    if l == "fr":
        return (f"{_cap(words(n, 'fr'))} Hérons ou plus dès le premier lancer ouvrent l'Étang Paisible. Réservez tous "
                "ces Hérons, puis relancez gratuitement tous les dés non réservés, sans limite de lancers.")
    return (f"{_cap(words(n, 'en'))} or more herons on the first roll open the Peaceful Pond. Set all these herons "
            "aside, then reroll every free die for free, with no limit on rolls.")


def _pushback(r, l):
    per, flat, cap = r.pond_pushback_per_heron, r.pond_pushback_flat, r.pond_pushback_max
    n, kind = _dice(r)
    lo, hi = r.pond_pushback(r.pond_threshold), r.pond_pushback(n)
    if l == "fr":
        if per == 1 and not flat and not cap:
            how = "chaque adversaire recule d'une case par Héron obtenu"
        elif not per and not flat:
            how = "aucun adversaire ne recule"
        else:
            parts = ([f"{'d' + chr(39) + cases(per, 'fr') if per == 1 else 'de ' + cases(per, 'fr')} par Héron obtenu"]
                     if per else []) + \
                    ([f"{'plus ' if per else 'de '}{cases(flat, 'fr')}"] if flat else [])
            how = "chaque adversaire recule " + ", ".join(parts) + (f", sans dépasser {cases(cap, 'fr')}" if cap else "")
        tail = (f", soit au moins {cases(lo, 'fr')}. Sur {words(n, 'fr')} {kind}, le recul maximum est de {cases(hi, 'fr')}."
                if per or flat else ".")
        if lo == hi and (per or flat):
            tail = f", soit {cases(lo, 'fr')} quel que soit le nombre de Hérons."
        return (f"Le joueur actif n'avance pas ; {how}{tail} Les protections et le Guide Serpent continuent à "
                "s'appliquer.")
    if per == 1 and not flat and not cap:
        how = "each opponent moves back one square per heron rolled"
    elif not per and not flat:
        how = "no opponent moves back"
    else:
        parts = ([f"{cases(per, 'en')} per heron rolled"] if per else []) + \
                ([f"{'plus ' if per else ''}{cases(flat, 'en')}"] if flat else [])
        how = "each opponent moves back " + ", ".join(parts) + (f", at most {cases(cap, 'en')}" if cap else "")
    tail = (f", at least {cases(lo, 'en')}. With {words(n, 'en')} {kind} the largest push-back is {cases(hi, 'en')}."
            if per or flat else ".")
    if lo == hi and (per or flat):
        tail = f", {cases(lo, 'en')} whatever the number of herons."
    return f"The active player does not move; {how}{tail} Protections and the Snake guide still apply."


B03 = Block("03", "L'Étang Paisible", "The Peaceful Pond", "etang", (
    Para(("pond_threshold",), _pond_open),
    _static("Si un ou plusieurs nouveaux Hérons apparaissent, réservez-les et recommencez avec les dés libres. Dès "
            "qu'un lancer ne révèle aucun Héron, ou si tous les dés sont réservés, le tour se termine. Les autres "
            "animaux n'interviennent pas.",
            "If one or more new herons appear, set them aside and go again with the free dice. As soon as a roll "
            "shows no heron, or every die is set aside, the turn ends. The other animals play no part."),
    Para(("pond_pushback_per_heron", "pond_pushback_flat", "pond_pushback_max", "mode", "dice.count"), _pushback),
))


# ---------------------------------------------------------------- 04 Combinaisons et Puissance du Guide
_EFFECT_FR = {1: " et régénérer son Guide", 2: " et échanger son Guide", 3: " et choisir : régénérer ou échanger son Guide"}
_EFFECT_EN = {1: " and regenerate your guide", 2: " and swap your guide", 3: " and choose: regenerate or swap your guide"}


def _combos(r, l):
    rows = ["| Combinaison | Avancement / effet |" if l == "fr" else "| Combination | Advance / effect |", "|---|---|"]
    for size in range(3, len(r.combo_advance)):
        adv, eff = r.combo_advance[size], r.combo_effect[size]
        move = (f"+{cases(adv, l).split(' ', 1)[0] if False else adv} case{'s' if adv > 1 else ''}" if l == "fr"
                else f"+{adv} square{'s' if adv != 1 else ''}") if adv else ("aucun déplacement" if l == "fr" else "no move")
        move += (_EFFECT_FR if l == "fr" else _EFFECT_EN).get(eff, "")
        rows.append(f"| {size} identiques | {move} |" if l == "fr" else f"| {size} of a kind | {move} |")
    return "\n".join(rows)


def _only_largest(r, l):
    return ("Seule la plus grande série d'animaux identiques est récompensée. Ni double paire, ni full, ni sept animaux "
            "différents, ni bonus sans Héron. Les petits groupes présents à côté de la meilleure série ne s'additionnent "
            "pas.") if l == "fr" else (
        "Only the largest set of identical animals scores. No two pairs, no full house, no seven different animals, "
        "no bonus for having no heron. Smaller groups beside the best set do not add up.")


def _power(r, l):
    if not r.guide_power_doubling:
        return KEYS["guide_power_doubling"].sentence(False, l)
    a5 = r.combo_advance[5] if len(r.combo_advance) > 5 else 0
    if l == "fr":
        return ("Puissance du Guide : si la plus grande série est constituée de l'animal de votre Guide, le nombre de "
                f"cases gagné est doublé. Par exemple, cinq Loups avec le Guide Loup : +{2 * a5} cases au lieu de +{a5}. "
                "Les effets supplémentaires des grandes séries ne sont pas doublés. En cas d'égalité entre séries "
                "maximales, l'animal Guide est prioritaire. Le doublement est passif et indépendant de l'utilisation "
                "du pouvoir ponctuel.")
    return ("Guide Power: if the largest set is of your guide's animal, the squares gained are doubled. For example, "
            f"five wolves with the Wolf guide: +{2 * a5} squares instead of +{a5}. The extra effects of large sets are "
            "not doubled. Between tied largest sets, the guide's animal comes first. The doubling is passive and "
            "independent of the one-shot power.")


def _heron_doubling(r, l):
    s = KEYS["heron_doubling_herons"].sentence(r.heron_doubling_herons, l)
    if r.heron_doubling_herons and r.heron_doubling_min_set:
        s += " " + KEYS["heron_doubling_min_set"].sentence(r.heron_doubling_min_set, l)
    return s


B04 = Block("04", "Combinaisons et Puissance du Guide", "Combinations and the Guide Power", "combinaisons", (
    Para(("combinations.advance", "combinations.effect"), _combos),
    Para((), _only_largest),
    Para(("guide_power_doubling", "combinations.advance"), _power),
    Para(("heron_doubling_herons", "heron_doubling_min_set"), _heron_doubling, always=False),
))


# ---------------------------------------------------------------- Les 7 Guides animaux
def _off(r, guide):
    return not r.powers or guide in r.disabled_powers


def _guide_line(guide, emoji, fr_name, en_name, fr, en):
    def text(r, l):
        from ..animals import NAMES

        if _off(r, NAMES.index(guide)):
            return (f"{emoji} {fr_name} · pas de pouvoir ponctuel (la Puissance du Guide reste)" if l == "fr"
                    else f"{emoji} {en_name} · no one-shot power (the Guide Power remains)")
        return f"{emoji} {fr_name} · {fr(r)}" if l == "fr" else f"{emoji} {en_name} · {en(r)}"
    return text


def _bull_fr(r):
    s = f"+{r.bull_bonus} case{'s' if r.bull_bonus > 1 else ''} après une combinaison réussie"
    return s + (f" d'au moins {words(r.bull_min_set, 'fr')} animaux identiques" if r.bull_min_set != 3 else "")


def _bull_en(r):
    s = f"+{r.bull_bonus} square{'s' if r.bull_bonus != 1 else ''} after a successful combination"
    return s + (f" of at least {words(r.bull_min_set, 'en')} identical animals" if r.bull_min_set != 3 else "")


def _snake_fr(r):
    which = f"annuler un recul d'au plus {cases(r.snake_max_cancel, 'fr')}" if r.snake_max_cancel else "annuler un recul"
    return f"{which} et avancer de {r.snake_advance} case{'s' if r.snake_advance > 1 else ''} (sans cascade)"


def _snake_en(r):
    which = f"cancel a move back of at most {cases(r.snake_max_cancel, 'en')}" if r.snake_max_cancel else "cancel a move back"
    return f"{which} and advance {r.snake_advance} square{'s' if r.snake_advance != 1 else ''} (no cascade)"


def _eagle_fr(r):
    return f"révéler {words(r.eagle_draws, 'fr', True)} faces possibles d'un dé, choisir ou conserver l'originale"


def _eagle_en(r):
    return f"reveal {words(r.eagle_draws, 'en')} possible faces of a die, pick one or keep the original"


def _heron_holder(r):
    """The rules of the Héron guide's holder's turn (the rules themselves without rules by guide)."""
    from ..animals import NAMES

    return r.guide_rules(NAMES.index("heron"))


def _heron_fr(r):
    c = r.patience_cost
    cost = ("sans sacrifier de lancer (utilisable même au dernier lancer), choisir" if c == 0 else
            "sacrifier un lancer restant pour choisir" if c == 1 else f"sacrifier {words(c, 'fr')} lancers restants pour choisir")
    s = (f"Patience : {cost} une face réellement présente sur un dé, qui devient réservé (le "
         f"{ordinal(_heron_holder(r).anxiety_threshold, 'fr')} Héron reste dangereux)")
    if r.heron_patience_doubling:
        s += " ; le Guide Héron double, pour ce tour, l'animal choisi avec Patience (comme l'animal de son Guide)"
    return s


def _heron_en(r):
    c = r.patience_cost
    cost = ("without giving up a roll (even on the last roll), choose" if c == 0 else
            "give up one remaining roll to choose" if c == 1 else f"give up {words(c, 'en')} remaining rolls to choose")
    s = (f"Patience: {cost} a face really showing on a die, which is then set aside (the "
         f"{ordinal(_heron_holder(r).anxiety_threshold, 'en')} heron is still dangerous)")
    if r.heron_patience_doubling:
        s += "; the Heron guide doubles, for this turn, the animal chosen with Patience (as its guide's animal)"
    return s


_GUIDE_PARAS = (
    Para(("powers", "disabled_powers"), _guide_line("loup", "🐺", "Loup", "Wolf (Loup)",
                                                    lambda r: "relancer n’importe quel dé, même un Héron réservé (hors Étang)",
                                                    lambda r: "reroll any die, even a heron set aside (outside the Pond)")),
    Para(("powers", "disabled_powers", "bull_bonus", "bull_min_set"),
         _guide_line("taureau", "🐂", "Taureau", "Bull (Taureau)", _bull_fr, _bull_en)),
    Para(("powers", "disabled_powers", "snake_advance", "snake_max_cancel"),
         _guide_line("serpent", "🐍", "Serpent", "Snake (Serpent)", _snake_fr, _snake_en)),
    Para(("powers", "disabled_powers"), _guide_line(
        "lion", "🦁", "Lion", "Lion", lambda r: "sauver une combinaison lors de l’Angoisse du Héron (Hérons exclus du score)",
        lambda r: "rescue a combination at the Heron's Anxiety (herons left out of the score)")),
    Para(("powers", "disabled_powers", "eagle_draws"), _guide_line("aigle", "🦅", "Aigle", "Eagle (Aigle)", _eagle_fr, _eagle_en)),
    Para(("powers", "disabled_powers"), _guide_line(
        "cerf", "🦌", "Cerf", "Stag (Cerf)", lambda r: "transformer un dé non-Héron en animal déjà présent",
        lambda r: "turn a non-heron die into an animal already showing")),
    Para(("powers", "disabled_powers", "patience_cost", "heron_patience_doubling", "anxiety_threshold"),
         _guide_line("heron", "🪶", "Héron", "Heron (Héron)", _heron_fr, _heron_en)),
)

B_GUIDES = Block("", "Les 7 Guides animaux", "The seven animal guides", "guides", (
    _static("Un Guide unique est attribué aléatoirement à chaque joueur. Il s'épuise après usage, puis peut être "
            "régénéré. Les sept Guides sont jouables et chacun offre une manière différente d’intervenir. Tous les "
            "pouvoirs sont validés pour la version sans cartes Jeu.",
            "Each player is dealt one guide at random. It is exhausted after use, then can be regenerated. All seven "
            "guides are playable and each offers its own way to intervene. Every power is validated for the version "
            "without Game cards."),
    *_GUIDE_PARAS,
))


# ---------------------------------------------------------------- Les cases spéciales
def _board(r, l):
    lines = []
    for pos, code in r.squares:
        name = EFFECT_NAMES[code]
        if name == "neutral":
            continue
        lines.append(f"- {'case' if l == 'fr' else 'square'} {pos} : {SQUARES['fr'][name]}" if l == "fr"
                     else f"- square {pos}: {SQUARES['en'][name]}")
    return "\n".join(lines)


def _board_intro(r, l):
    use = KEYS["single_use_squares"].sentence(r.single_use_squares, l)
    fin = KEYS["exact_finish"].sentence(r.exact_finish, l)
    if l == "fr":
        size = ("Le plateau compte 63 cases, réparties en sept zones de neuf." if r.finish == 63
                else f"Le plateau compte {r.finish} cases.")
        return (f"{size} Le premier pion à atteindre la case {r.finish} gagne. {fin} {use} Les déplacements qu’elles "
                "provoquent n’activent pas d’autres effets en cascade.")
    size = ("The board has 63 squares, in seven zones of nine." if r.finish == 63 else f"The board has {r.finish} squares.")
    return (f"{size} The first pawn to reach square {r.finish} wins. {fin} {use} The moves they cause trigger no "
            "further effect.")


B_SQUARES = Block("", "Les cases spéciales", "The special squares", "cases", (
    Para(("finish", "single_use_squares", "exact_finish"), _board_intro),
    Para(("board.square",), _board),
))


# ---------------------------------------------------------------- by player count (not in the seed)
def _by_count(r, l):
    lines = []
    for n in range(2, 8):
        start = r.seat_list("start_squares", n)
        extra = r.seat_list("first_turn_extra_rolls", n)
        start = tuple(start[:n]) + (0,) * (n - len(start[:n]))
        extra = tuple(extra[:n]) + (0,) * (n - len(extra[:n]))
        seats = []
        for s in range(n):
            bits = []
            if start[s]:
                bits.append(f"part de la case {start[s]}" if l == "fr" else f"starts on square {start[s]}")
            if extra[s]:
                bits.append(f"lance {words(extra[s], 'fr', True)} fois de plus à son premier tour" if l == "fr"
                            else f"rolls {words(extra[s], 'en')} more time{'s' if extra[s] > 1 else ''} on the first turn")
            if bits:
                who = (f"le {ordinal(s + 1, 'fr')} joueur" if l == "fr" else f"the {ordinal(s + 1, 'en')} player")
                seats.append(who + " " + (" et " if l == "fr" else " and ").join(bits))
        if l == "fr":
            lines.append(f"- À {n} joueurs : " + (" ; ".join(seats) + "." if seats else "tous partent de la case 0, sans lancer en plus."))
        else:
            lines.append(f"- With {n} players: " + ("; ".join(seats) + "." if seats else "everyone starts on square 0, "
                                                                                       "with no extra roll."))
    return "\n".join(lines)


B_SEATS = Block("", "Selon le nombre de joueurs", "By player count", "joueurs", (
    Para(("start_squares", "first_turn_extra_rolls", "seats"), _by_count, always=False),
))

#: The booklet, in the seed's order.
BLOCKS: tuple[Block, ...] = (B01, B02, B03, B04, B_GUIDES, B_SQUARES, B_SEATS)


# ---------------------------------------------------------------- a proposal in place
def _covers(para: Para, key: str) -> bool:
    base = key.split("[", 1)[0]
    if base.startswith("seats."):
        base = "seats"
    return any(base == k or base.startswith(k + ".") or (k == "board.square" and base.startswith("board.square."))
               for k in para.keys)


def _group(key: str) -> str:
    base = key.split("[", 1)[0]
    if base.startswith(("combinations.",)):
        return "combinaisons"
    if base.startswith("board."):
        return "cases"
    if base.startswith("seats."):
        return "joueurs"
    if base.startswith(("dice.", "mode")):
        return "lancer"
    if base.startswith("guide.") and base.count(".") >= 2:
        # a rule for one guide's holder goes where the rule itself is written (« 02 L'Angoisse »…)
        k = KEYS.get(base.split(".", 2)[2])
        return k.group if k is not None else "guides"
    if base.startswith("guide.") or base == "disabled_powers":
        return "guides"
    k = KEYS.get(base)
    return k.group if k is not None else "partie"


def booklet_blocks(base: Rules, variant: Rules, lang: str, changes: list[Change] | None = None) -> list[dict]:
    """The blocks a proposal touches, rewritten: ``[{"title", "paragraphs": [(text, changed, text
    under the base rules)]}]``."""
    from .phrases import phrase

    if lang not in LANGS:
        raise HeronSimError(f"lang: {lang!r}; allowed: {', '.join(LANGS)}")
    changes = rule_changes(base, variant) if changes is None else changes
    stated = set()
    drafts = []
    for block in BLOCKS:
        paras, touched = [], False
        for p in block.paras:
            hit = [c for c in changes if _covers(p, c.key)]
            now, was = p.text(variant, lang), p.text(base, lang)
            changed = bool(hit) and now != was
            if changed:  # a change is stated only where its paragraph reads differently
                stated.update(c.key for c in hit)
                touched = True
            # a paragraph the seed leaves unsaid is kept aside: a guide holder's exception to it
            # states it first (« Chaque joueur lance ses dés jusqu'à trois fois par tour. »)
            paras.append([now, changed, was, p.always or changed, p])
        drafts.append((block, paras, touched))
    out = []
    for block, paras, touched in drafts:
        added = []
        for c in changes:
            if c.key not in stated and _group(c.key) == block.group:
                if c.key.startswith("guide.") and c.key.count(".") >= 2:  # the rule of every player, unchanged
                    for para in paras:
                        if not para[3] and _covers(para[4], c.key.split(".", 2)[2]):
                            para[3] = True
                added.append((phrase(c.key, c.new, lang)[1], True, ""))
                stated.add(c.key)
                touched = True
        if touched:
            out.append({"title": block.title(lang),
                        "paragraphs": [(now, changed, was) for now, changed, was, shown, _ in paras if shown] + added})
    # A change no block states and no group receives (a key of "La partie"): its own block.
    rest = [c for c in changes if c.key not in stated]
    if rest:
        out.append({"title": "La partie" if lang == "fr" else "The game",
                    "paragraphs": [(phrase(c.key, c.new, lang)[1], True, "") for c in rest]})
    return out


def _bold(line: str) -> str:
    """A changed line in bold: a list item's text, a table row's cells, else the whole line."""
    if line.startswith("- "):
        return f"- **{line[2:]}**"
    if line.startswith("|"):
        return "| " + " | ".join(f"**{c.strip()}**" for c in line.strip("|").split("|")) + " |"
    return f"**{line}**"


_HEAD = {"fr": ("Texte du livret : proposition {name}",
                "Les blocs du livret que la proposition modifie, réécrits avec le changement en place (en gras). "
                "Les autres blocs ne changent pas."),
         "en": ("Booklet text: proposal {name}",
                "The booklet's blocks the proposal changes, rewritten with the change in place (in bold). The other "
                "blocks are unchanged.")}


def changed_blocks(base: Rules, variant: Rules, lang: str, none: str) -> list[str]:
    """Markdown lines of the booklet's blocks that ``variant`` changes, each under its title, the
    changed lines in bold; ``none`` when no block changes."""
    blocks = booklet_blocks(base, variant, lang)
    lines = [] if blocks else [none, ""]
    for b in blocks:
        lines += [f"## {b['title']}", ""]
        for text, changed, was in b["paragraphs"]:
            if changed:
                text = "\n".join(_bold(x) if x not in was.split("\n") else x for x in text.split("\n"))
            lines += [text, ""]
    return lines


def booklet_text(base: Rules, variant: Rules, lang: str, name: str = "") -> str:
    """The proposal's booklet text, Markdown, one or two A4 pages."""
    title, intro = _HEAD.get(lang, _HEAD["en"])
    head = title.format(name=name) if name else title.split(":")[0].rstrip()
    lines = [f"# {head}", "", intro, ""]
    lines += changed_blocks(base, variant, lang, "Aucune règle ne change." if lang == "fr" else "No rule changes.")
    out = "\n".join(lines).rstrip() + "\n"
    if lang == "en":  # the game's own words stay in English too (Étang Paisible, Angoisse du Héron, …)
        from ..i18n import game_words

        out = game_words(out)
    return out


__all__ = ["BLOCKS", "Block", "Para", "booklet_blocks", "booklet_text", "cases", "ordinal", "words"]
