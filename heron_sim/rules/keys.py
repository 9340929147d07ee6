"""The table of rules keys: every scalar and by-seat key of the Héron race, declared once.

Each row says what a key is (type, range, default), what it means (the help line of
``defaults.toml``, its group as the booklet orders the rules, its sentence for the rule sheets in
French and English) and how the compiled engine reads it (its slot in the rules vector). The
rest derives from this table:

- :mod:`heron_sim.rules.rules`: the validation (``_SCALARS``, ``_SEAT_LISTS``), the keys added
  after the first release (``_LATER_KEYS``: left out of the digest at their default), and the
  ``Rules`` fields (a test checks the dataclass's defaults against the table);
- ``data/defaults.toml``: checked against the table, value and help line (tests/test_rules_keys.py);
- :mod:`heron_sim.engine.layout` and :mod:`heron_sim.engine.pack`: the ``X_*`` slots are
  allocated in the table's order (``X_KEYS``), after the first release's ``P_*`` block, and
  packed by one loop; nothing is shifted by hand;
- :mod:`heron_sim.strategies.expert_dp`: which keys cannot change a single turn's tables
  (``turn_free``);
- :mod:`heron_sim.lab.sheets`: the rule sheets' phrases; :mod:`heron_sim.explore.form`: labels,
  groups and help of the explorer's form.

Adding a key (docs/rules.md, "Adding a rules key"): a row here (``kernel="X_NAME"`` if the engine
reads it, with that name added to engine/layout.py's slots), the field of ``Rules``, its line in
``defaults.toml``, the rule's one function, and its test.

    >>> print(KEYS["anxiety_threshold"].sentence(4, "fr"))
    Dès qu'un joueur cumule 4 Hérons ou plus (hors Étang), son tour prend fin sans déplacement.
    >>> [k.name for k in X_KEYS][:3]
    ['pond_pushback_per_heron', 'pond_pushback_flat', 'pond_pushback_max']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .words import by_seat, squares_word as _sq, yes_no as _yes

#: The booklet's order of the rules, as the explorer's form and the sheets group them:
#: (id, French title, English title).
GROUPS: tuple[tuple[str, str, str], ...] = (
    ("partie", "La partie", "The game"),
    ("lancer", "Lancer & conserver", "Rolling and keeping"),
    ("angoisse", "L'Angoisse", "The Anxiety"),
    ("etang", "L'Étang", "The Pond"),
    ("combinaisons", "Combinaisons", "Combinations"),
    ("guides", "Les 7 Guides", "The seven guides"),
    ("cases", "Les cases spéciales", "The special squares"),
    ("joueurs", "Par joueur", "By seat"),
)
GROUP_IDS = tuple(g[0] for g in GROUPS)


@dataclass(frozen=True)
class Key:
    """One rules key.

    Attributes
    ----------
    name : the key in TOML files, ``--set`` and the ``Rules`` field.
    kind : ``"int"``, ``"bool"`` or ``"seats"`` (a list by seat, seat 0 first).
    lo, hi : the allowed range of an ``int`` (None otherwise; a by-seat list's bound is in
        :mod:`heron_sim.rules.rules`).
    default : the rulings' value.
    group : one of :data:`GROUP_IDS`.
    help : the line of ``defaults.toml`` (English).
    title_fr, title_en : the rule's name on a rule sheet.
    sentence : ``sentence(value, lang)`` -> the rule with this value, in the booklet's words.
    kernel : the ``engine.layout`` constant of its slot when it is read from the ``X`` block
        (allocated in this table's order), ``"P"`` for the first release's block (fixed
        ``P_*`` constants of :mod:`heron_sim.rules.rules`), None when the kernels read it
        another way (the by-seat lists, ``max_rounds`` through the workspace size).
    later : added after the first release: left out of the digest while at its default.
    turn_free : cannot change a single turn's tables (the expert's cache key ignores it).
    inert_while : ``(key, value)``: this key changes nothing, in the engine or in any strategy's
        tables, while that other key has that value (``heron_doubling_min_set`` while
        ``heron_doubling_herons = 0``). :meth:`heron_sim.rules.Rules.behaviour` resets it then, so
        the lab does not replay rules that play like rules already played
        (tests/test_rules_behaviour.py proves the games bit-identical for every such key).
    by_guide : a rule of the player's own turn, so ``[guide.NAME]`` may set it for the holder of
        one guide (rules by guide: every key that is not ``turn_free``, and the Pond's push-back,
        which the roller's turn applies; see :data:`BY_GUIDE_KEYS`).
    """

    name: str
    kind: str
    lo: int | None
    hi: int | None
    default: Any
    group: str
    help: str
    title_fr: str
    title_en: str
    sentence: Callable[[Any, str], str]
    kernel: str | None = "P"
    later: bool = False
    turn_free: bool = False
    inert_while: tuple[str, Any] | None = None

    @property
    def by_guide(self) -> bool:
        return self.kind != "seats" and (not self.turn_free or self.name.startswith("pond_pushback_"))

    def title(self, lang: str) -> str:
        return self.title_fr if lang == "fr" else self.title_en

    @property
    def python_type(self) -> type:
        return {"int": int, "bool": bool, "seats": tuple}[self.kind]


def _int(name, lo, hi, default, group, help, fr, en, sentence, **kw) -> Key:
    return Key(name, "int", lo, hi, default, group, help, fr, en, sentence, **kw)


def _bool(name, default, group, help, fr, en, sentence, **kw) -> Key:
    return Key(name, "bool", None, None, default, group, help, fr, en, sentence, **kw)


def _s(n: int) -> str:
    return "s" if n > 1 else ""


_ROWS: tuple[Key, ...] = (
    _int("players", 2, 7, 4, "partie", "2..7 (one distinct guide each)", "Joueurs", "Players",
         lambda v, l: {"fr": f"{v} joueurs.", "en": f"{v} players."}[l], turn_free=True),
    _int("rolls", 1, 20, 3, "lancer", "rolls per turn (the Wolf square adds one for a turn)",
         "Lancers par tour", "Rolls per turn", lambda v, l: {
             "fr": f"Chaque joueur lance jusqu'à {v} fois par tour.",
             "en": f"Each player rolls up to {v} times per turn."}[l]),
    _int("pond_threshold", 1, 99, 4, "etang", "herons on the FIRST roll that open the Peaceful Pond",
         "L'Étang Paisible", "The Peaceful Pond", lambda v, l: {
             "fr": f"{v} Hérons ou plus dès le premier lancer ouvrent l'Étang Paisible.",
             "en": f"{v} or more herons on the first roll open the Peaceful Pond."}[l]),
    _int("anxiety_threshold", 1, 99, 3, "angoisse", "reserved herons that end the turn (Heron's Anxiety)",
         "L'Angoisse du Héron", "The Heron's Anxiety", lambda v, l: {
             "fr": f"Dès qu'un joueur cumule {v} Hérons ou plus (hors Étang), son tour prend fin sans déplacement.",
             "en": f"As soon as a player holds {v} or more herons (outside the Pond), the turn ends with no move."}[l]),
    _bool("guide_power_doubling", True, "guides", "a combination of your guide's animal moves twice as far",
          "Puissance du Guide", "Guide Power", lambda v, l: _yes(
              v, "Si la plus grande série est de l'animal de votre Guide, le nombre de cases gagné est doublé.",
              "La Puissance du Guide ne s'applique pas : une série de l'animal de votre Guide n'est pas doublée.",
              "If your largest set is of your guide's animal, the squares gained are doubled.",
              "No Guide Power: a set of your guide's animal is not doubled.")[l]),
    _bool("powers", True, "guides", "the guides' one-shot powers (off: a lab switch; doubling stays)",
          "Pouvoirs des Guides", "Guide powers", lambda v, l: _yes(
              v, "Chaque Guide a son pouvoir ponctuel (il s'épuise après usage, puis peut être régénéré).",
              "Les Guides n'ont pas de pouvoir ponctuel (seule la Puissance du Guide reste).",
              "Each guide has its one-shot power (exhausted after use, it can be regenerated).",
              "The guides have no one-shot power (only the Guide Power remains).")[l], turn_free=True),
    _int("finish", 2, 1000, 63, "partie", "square that wins (60: the old booklet)", "Arrivée", "Finish",
         lambda v, l: {"fr": f"Le premier pion à atteindre la case {v} gagne.",
                       "en": f"The first pawn to reach square {v} wins."}[l], turn_free=True),
    _bool("exact_finish", False, "partie", "true: you must land exactly on the finish, overshoot bounces back",
          "Arrivée exacte", "Exact finish", lambda v, l: _yes(
              v, "Il faut tomber exactement sur la case d'arrivée ; l'excédent fait reculer d'autant.",
              "Il suffit d'atteindre ou de dépasser la case d'arrivée.",
              "You must land exactly on the finish; any excess bounces you back.",
              "Reaching or passing the finish is enough.")[l], turn_free=True),
    _bool("single_use_squares", False, "cases", 'true: each special square works once per game ("usage unique")',
          "Cases à usage unique", "Single-use squares", lambda v, l: _yes(
              v, "Chaque case spéciale ne fonctionne qu'une fois par partie.",
              "Les cases à effets sont réutilisables à chaque arrivée normale.",
              "Each special square works once per game.",
              "Special squares work every time a pawn lands on them.")[l], turn_free=True),
    _int("max_rounds", 1, 1_000_000, 500, "partie", "a game still running after this many rounds is unfinished",
         "Limite de tours", "Round limit", lambda v, l: {
             "fr": f"Une partie encore en cours après {v} tours de table s'arrête sans vainqueur (limite du simulateur).",
             "en": f"A game still running after {v} rounds stops with no winner (a simulator limit)."}[l],
         turn_free=True),
    # Guide variants (docs/rules.md §5; the defaults are the rulings).
    _int("heron_doubling_herons", 0, 16, 0, "guides",
         ">= 1: a Héron guide's combination is doubled when the final dice show at least this many "
         "herons (0: never, herons never combine)",
         "Puissance du Guide Héron", "The Heron guide's Guide Power", lambda v, l: (
             {"fr": "Le Guide Héron ne double jamais (les Hérons ne forment pas de série).",
              "en": "The Heron guide never doubles (herons never form a set)."}[l] if not v else
             {"fr": f"Le Guide Héron double sa plus grande série quand les dés finaux montrent au moins {v} Héron{_s(v)}.",
              "en": f"The Heron guide doubles its largest set when the final dice show at least {v} heron{_s(v)}."}[l])),
    _int("heron_doubling_min_set", 0, 16, 0, "guides", "... and only for a set of at least this size (0: any size)",
         "Doublement du Guide Héron : série minimale", "Heron guide doubling: smallest set", lambda v, l: (
             {"fr": "Ce doublement du Guide Héron vaut pour une série de toute taille.",
              "en": "The Heron guide's doubling applies to a set of any size."}[l] if not v else
             {"fr": f"Ce doublement du Guide Héron ne vaut que pour une série d'au moins {v} animaux identiques.",
              "en": f"The Heron guide's doubling applies only to a set of at least {v} identical animals."}[l]),
         inert_while=("heron_doubling_herons", 0)),
    _int("bull_bonus", 0, 20, 2, "guides", "squares the Taureau's power adds after a combination of 3+",
         "Pouvoir du Taureau", "The Bull's power", lambda v, l: {
             "fr": f"Taureau : +{_sq(v, l)} après une combinaison réussie.",
             "en": f"Bull: +{_sq(v, l)} after a successful combination."}[l]),
    _int("snake_advance", 0, 20, 1, "guides", "squares the Serpent advances when it cancels a move back",
         "Pouvoir du Serpent : avance", "The Snake's power: advance", lambda v, l: {
             "fr": f"Serpent : annuler un recul et avancer de {_sq(v, l)} (sans cascade).",
             "en": f"Snake: cancel a move back and advance {_sq(v, l)} (no cascade)."}[l], turn_free=True),
    _int("snake_max_cancel", 0, 1000, 0, "guides",
         "the Serpent cancels only moves back of at most this many squares (0: any)",
         "Pouvoir du Serpent : reculs annulables", "The Snake's power: which moves back", lambda v, l: (
             {"fr": "Le Serpent peut annuler n'importe quel recul.", "en": "The Snake may cancel any move back."}[l]
             if not v else {"fr": f"Le Serpent ne peut annuler qu'un recul d'au plus {_sq(v, l)}.",
                            "en": f"The Snake may cancel only a move back of at most {_sq(v, l)}."}[l]),
         turn_free=True),
    # Remedies (issue 17; the defaults are the rulings, so every game is unchanged). Read by
    # the kernels from the X block, allocated in this order.
    _int("pond_pushback_per_heron", 0, 20, 1, "etang", "the Étang pushes each opponent back this many squares per heron...",
         "Recul de l'Étang : par Héron", "The Pond's push-back: per heron", lambda v, l: {
             "fr": f"À l'Étang Paisible, chaque adversaire recule de {_sq(v, l)} par Héron obtenu.",
             "en": f"In the Peaceful Pond each opponent moves back {_sq(v, l)} per heron."}[l],
         kernel="X_PUSH_PER", later=True, turn_free=True),
    _int("pond_pushback_flat", 0, 100, 0, "etang", "... plus this many ...",
         "Recul de l'Étang : fixe", "The Pond's push-back: flat", lambda v, l: (
             {"fr": "Le recul de l'Étang n'a pas de part fixe.", "en": "The Pond's push-back has no flat part."}[l] if not v else
             {"fr": f"Le recul de l'Étang compte en plus {_sq(v, l)} fixe{_s(v)}.",
              "en": f"The Pond's push-back adds a flat {_sq(v, l)}."}[l]),
         kernel="X_PUSH_FLAT", later=True, turn_free=True),
    _int("pond_pushback_max", 0, 1000, 0, "etang", "... at most this many (0: no cap)",
         "Recul de l'Étang : plafond", "The Pond's push-back: cap", lambda v, l: (
             {"fr": "Le recul de l'Étang n'est pas plafonné.", "en": "The Pond's push-back has no cap."}[l] if not v else
             {"fr": f"Le recul de l'Étang est d'au plus {_sq(v, l)}.", "en": f"The Pond pushes back at most {_sq(v, l)}."}[l]),
         kernel="X_PUSH_MAX", later=True, turn_free=True),
    _int("consolation_anxiety", 0, 20, 0, "angoisse",
         "squares after an Angoisse the Lion does not rescue (they trigger no square)",
         "Consolation après l'Angoisse", "Consolation after an Anxiety", lambda v, l: (
             {"fr": "L'Angoisse ne donne aucune consolation.", "en": "An Anxiety gives no consolation."}[l] if not v else
             {"fr": f"Après une Angoisse que le Lion ne sauve pas, le joueur avance de {_sq(v, l)} (sans effet de case).",
              "en": f"After an Anxiety the Lion does not rescue, the player advances {_sq(v, l)} (no square effect)."}[l]),
         kernel="X_CONS_ANX", later=True),
    _int("consolation_no_set", 0, 20, 0, "lancer",
         "squares after a scored turn worth 0, e.g. no set of 3 (trigger no square)",
         "Consolation sans série", "Consolation for a turn worth nothing", lambda v, l: (
             {"fr": "Un tour sans série gagnante ne donne aucune consolation.",
              "en": "A turn worth no square gives no consolation."}[l] if not v else
             {"fr": f"Après un tour qui ne fait gagner aucune case (pas de série de 3), le joueur avance de {_sq(v, l)} "
                    "(sans effet de case).",
              "en": f"After a turn worth no square (no set of 3), the player advances {_sq(v, l)} (no square effect)."}[l]),
         kernel="X_CONS_NOSET", later=True),
    _int("bull_min_set", 1, 16, 3, "guides", "smallest set the Taureau's power adds to",
         "Pouvoir du Taureau : série minimale", "The Bull's power: smallest set", lambda v, l: {
             "fr": f"Le pouvoir du Taureau s'ajoute à une série d'au moins {v} animaux identiques.",
             "en": f"The Bull's power adds to a set of at least {v} identical animals."}[l],
         kernel="X_BULL_MIN", later=True),
    _int("eagle_draws", 1, 6, 2, "guides", "faces the Aigle's power draws (keep the original or take one of them)",
         "Pouvoir de l'Aigle", "The Eagle's power", lambda v, l: {
             "fr": f"Aigle : révéler {v} face{_s(v)} possible{_s(v)} d'un dé, choisir ou conserver l'originale.",
             "en": f"Eagle: reveal {v} possible face" + ("s" if v != 1 else "") + " of a die, take one or keep the original."}[l],
         kernel="X_EAGLE_DRAWS", later=True),
    _int("patience_cost", 0, 3, 1, "guides", "rolls the Héron's Patience gives up (0: free, even on the last roll)",
         "Patience du Héron", "The Heron's Patience", lambda v, l: (
             {"fr": "Patience : sans sacrifier de lancer (utilisable même au dernier lancer), choisir une face réellement "
                    "présente sur un dé, qui devient réservé.",
              "en": "Patience: with no roll given up (even on the last roll), set a die to a face it really has; it is kept."}[l]
             if not v else
             {"fr": f"Patience : sacrifier {v} lancer{_s(v)} restant{_s(v)} pour choisir une face réellement présente "
                    "sur un dé, qui devient réservé.",
              "en": f"Patience: give up {v} remaining roll" + ("s" if v != 1 else "")
                    + " to set a die to a face it really has; it is kept."}[l]),
         kernel="X_PATIENCE_COST", later=True),
    _bool("heron_patience_doubling", False, "guides",
          "true: a Héron guide doubles the animal it set with Patience (that turn)",
          "Patience et Puissance du Guide Héron", "Patience and the Heron guide's Guide Power", lambda v, l: _yes(
              v, "Le Guide Héron double, pour ce tour, l'animal qu'il a choisi avec Patience (comme si c'était "
                 "l'animal de son Guide).",
              "La Patience ne donne pas de doublement au Guide Héron.",
              "For that turn the Heron guide doubles the animal it set with Patience (as if it were its guide's animal).",
              "Patience gives the Heron guide no doubling.")[l],
          kernel="X_PATIENCE_DOUBLING", later=True),
    # By seat (seat 0 first; a [seats.N] table gives one list per player count).
    Key("start_squares", "seats", None, None, (), "joueurs",
        "start square by seat, seat 0 first, e.g. [0, 0, 1, 1] (missing seats: 0)",
        "Cases de départ", "Start squares", lambda v, l: by_seat(
            v, l, "Tous les joueurs partent de la case 0.", "Every player starts on square 0.",
            lambda s, x: {"fr": f"joueur {s + 1} : case {x}", "en": f"player {s + 1}: square {x}"}[l],
            "Départ : ", "Start: "), kernel=None, later=True, turn_free=True),
    Key("first_turn_extra_rolls", "seats", None, None, (), "joueurs",
        "extra rolls on each seat's first played turn, e.g. [0, 0, 1, 1]",
        "Lancers en plus au premier tour", "Extra rolls on the first turn", lambda v, l: by_seat(
            v, l, "Aucun lancer en plus au premier tour.", "No extra roll on the first turn.",
            lambda s, x: {"fr": f"joueur {s + 1} : +{x}", "en": f"player {s + 1}: +{x}"}[l],
            "Lancers en plus à son premier tour : ", "Extra rolls on one's first turn: "),
        kernel=None, later=True, turn_free=True),
)

#: Every key by name, in the table's order.
KEYS: dict[str, Key] = {k.name: k for k in _ROWS}
#: The scalar keys (int and bool), in order.
SCALAR_KEYS: tuple[Key, ...] = tuple(k for k in _ROWS if k.kind != "seats")
#: The by-seat list keys, in order.
SEAT_KEYS: tuple[Key, ...] = tuple(k for k in _ROWS if k.kind == "seats")
#: The keys ``[guide.NAME]`` may set for the holder of one guide (rules by guide): the rules of a
#: player's own turn, read by the turn from the row of the guide held at its start.
BY_GUIDE_KEYS: tuple[str, ...] = tuple(k.name for k in _ROWS if k.by_guide)
#: The keys the kernels read from the X block of the rules vector, in slot order.
X_KEYS: tuple[Key, ...] = tuple(k for k in _ROWS if k.kernel not in (None, "P"))


def _check_table() -> None:
    """The table's own consistency (a bad row is a programming error, refused at import)."""
    for k in _ROWS:
        if k.kind not in ("int", "bool", "seats"):
            raise ValueError(f"rules key {k.name}: kind {k.kind!r}; allowed: int, bool, seats")
        if k.group not in GROUP_IDS:
            raise ValueError(f"rules key {k.name}: group {k.group!r}; allowed: {', '.join(GROUP_IDS)}")
        if k.kind == "int" and not (k.lo <= k.default <= k.hi):
            raise ValueError(f"rules key {k.name}: default {k.default} outside {k.lo}..{k.hi}")
        if k.inert_while is not None and (k.inert_while[0] not in {r.name for r in _ROWS} or k.kind == "seats"
                                          or k.inert_while[0] == k.name):
            raise ValueError(f"rules key {k.name}: inert_while {k.inert_while!r} names no other scalar key")
    if len(KEYS) != len(_ROWS):
        raise ValueError("rules keys: a name is declared twice")


_check_table()
