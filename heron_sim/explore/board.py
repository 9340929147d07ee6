"""The explorer's board view (issue 33, items 4 and 5): the board drawn (inline SVG), where pawns
land, what each special square does to the game on the same games, and the dead-turn streaks,
for the base and the variant (two boards side by side when the variant's board differs).

Computed on request (``POST /api/board``), apart from the streaming figures: the landings and
streaks need the games replayed turn slot by turn slot (heron_sim.analysis.board, ~3 ms a
game), so a sample of :data:`BOARD_GAMES` games per side is replayed, and each special square
is made plain over :data:`SQUARE_GAMES` games per side (the engine's fast batches).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from html import escape

from ..analysis import board as B
from ..analysis.board import effect_words
from ..i18n import gettext, interval, number

#: Games per side replayed for the landings and the streaks.
BOARD_GAMES = 200
#: Games per special square (with it, and made plain), paired.
SQUARE_GAMES = 1000
#: The first view after a change (``quick``): fewer games, on screen within seconds even on two
#: busy cores; the page then asks the refined view (:data:`BOARD_GAMES`, :data:`SQUARE_GAMES`).
QUICK_BOARD_GAMES = 50
QUICK_SQUARE_GAMES = 250
#: The sides computed lately, kept: a change of the variant leaves the base's replayed games and
#: square effects as they were (same rules, seatings, seed and games), so they are read back;
#: a side is a few kilobytes (the streaks of its players, the landings, one row per square).
CACHE_ENTRIES = 64
#: The seed of the board's games is the page's.

#: The texts of the board view (message ids of heron_sim/locale/fr.po).
TEXTS = (
    "The board", "square", "finish", "landings per game", "base (the rulings)", "variant",
    "Squares 1 to {n}; shade: landings per game (a pawn's own move ending there); coloured border: a special square.",
    "What each special square does, on the same games",
    "Each special square against the same rules with that square made plain, on the same {n} games (paired; 95&nbsp;% interval).",
    "effect", "landings per game", "length (rounds)", "comebacks (points)", "first player (points)",
    "How long a player goes without moving",
    "A dead turn moves nobody (an Angoisse the Lion does not rescue, or no set of three); a skipped turn does not count. From {n} games per side replayed turn by turn.",
    "longest run of dead turns per player", "players stuck 3 turns in a row", "longest run seen",
    "Comebacks: games won by the player last at mid-game; first player: games won by the player who starts.",
)


def _rows(effects: list[dict], landings, lang: str) -> str:
    heads = [gettext(h, lang) for h in ("square", "effect", "landings per game", "length (rounds)",
                                        "comebacks (points)", "first player (points)")]
    head = "".join(f"<th>{escape(h)}</th>" for h in heads)
    body = []
    for e in effects:
        def ci(name, scale, d):
            return interval(scale * e[name], scale * e[f"{name}_low"], scale * e[f"{name}_high"], d, lang, sign=True)
        cells = [str(e["square"]), escape(effect_words(e["effect"], lang)),
                 number(float(landings[e["square"]]), 2, lang), ci("length", 1, 2), ci("comeback", 100, 1),
                 ci("first", 100, 1)]
        body.append(f"<tr data-square='{e['square']}'>" + "".join(
            f"<td data-label='{escape(h, quote=True)}'>{c}</td>" for h, c in zip(heads, cells)) + "</tr>")
    return (f"<table class='board-table squares'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _streaks(sides: list[tuple[str, dict]], lang: str) -> str:
    head = "<th></th>" + "".join(f"<th>{escape(label)}</th>" for label, _ in sides)
    lines = []
    for key, text in (("longest", "longest run of dead turns per player"),
                      ("stuck", "players stuck 3 turns in a row"), ("max", "longest run seen")):
        cells = []
        for _, f in sides:
            if key == "longest":
                cells.append(interval(f["longest_mean"], f["longest_low"], f["longest_high"], 2, lang))
            elif key == "stuck":
                cells.append(interval(100 * f["stuck_share"], 100 * f["stuck_low"], 100 * f["stuck_high"], 1, lang,
                                      suffix=" %"))
            else:
                cells.append(number(f["longest_max"], 0, lang))
        lines.append(f"<tr data-streak='{key}'><td>{escape(gettext(text, lang))}</td>"
                     + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f"<table class='board-table streaks'><thead><tr>{head}</tr></thead><tbody>{''.join(lines)}</tbody></table>")


_CACHE: "OrderedDict[tuple, object]" = OrderedDict()
_LOCK = threading.Lock()


def _kept(key: tuple, compute):
    """``compute()``, or what it gave for ``key`` lately (:data:`CACHE_ENTRIES` kept, the least
    recently used dropped first)."""
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    value = compute()
    with _LOCK:
        _CACHE[key] = value
        while len(_CACHE) > CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return value


def _side_key(kind: str, rules, setup, games: int) -> tuple:
    return (kind, rules.digest(), tuple(map(tuple, setup.seatings)), setup.seed, games)


def is_kept(setup, board_games: int | None = None, square_games: int | None = None) -> bool:
    """Whether every side of this board view is kept already (drawn at once: no first view)."""
    board_games = BOARD_GAMES if board_games is None else board_games
    square_games = SQUARE_GAMES if square_games is None else square_games
    sides = [setup.base] + ([setup.variant] if setup.changed else [])
    two = setup.changed and B.board_changed(setup.base, setup.variant)
    keys = [_side_key("sample", r, setup, board_games) for r in sides]
    keys += [_side_key("squares", r, setup, square_games) for r in sides[: 2 if two else 1]]
    with _LOCK:
        return all(k in _CACHE for k in keys)


def board_view(setup, lang: str, board_games: int | None = None, square_games: int | None = None,
               quick: bool = False) -> dict:
    """The board view of a page's settings (heron_sim.explore.form.Setup) as one HTML fragment in
    ``lang``, with the numbers behind it (:data:`BOARD_GAMES` and :data:`SQUARE_GAMES` games
    unless given; ``quick``: the first view's :data:`QUICK_BOARD_GAMES` and
    :data:`QUICK_SQUARE_GAMES`, unless the full view is kept already). ``final`` in the answer:
    no refined view is to come. Each side is kept (:func:`_kept`): after a change of the variant
    only the variant's games are replayed."""
    if quick and board_games is None and square_games is None and not is_kept(setup):
        board_games, square_games = QUICK_BOARD_GAMES, QUICK_SQUARE_GAMES
    board_games = BOARD_GAMES if board_games is None else board_games
    square_games = SQUARE_GAMES if square_games is None else square_games
    from ..loop.kernels import shared_kernel

    sides = [("base", setup.base)]
    if setup.changed:
        sides.append(("variant", setup.variant))
    two_boards = setup.changed and B.board_changed(setup.base, setup.variant)
    label = {"base": gettext("base (the rulings)", lang), "variant": gettext("variant", lang)}
    with shared_kernel():  # the kernels the explorer's games use (one for every seating)
        samples = {k: _kept(_side_key("sample", r, setup, board_games),
                            lambda r=r: B.sample_board(r, setup.seatings, setup.seed, board_games)) for k, r in sides}
        effects = {k: _kept(_side_key("squares", r, setup, square_games),
                            lambda r=r: B.square_effects(r, setup.seatings, setup.seed, square_games))
                   for k, r in sides if k == "base" or two_boards}
    fmt = (lambda x: number(x, 2, lang))
    boards = []
    for k, r in sides:
        if k == "variant" and not two_boards:
            continue
        s = samples[k]
        svg = B.board_svg(r.finish, B.board_effects(r), s.per_game, title=f"{gettext('The board', lang)}: {label[k]}",
                          lang=lang, fmt=fmt)
        boards.append(f"<figure class='board' data-side='{k}'><figcaption>{escape(label[k])}</figcaption>{svg}"
                      + _rows(effects[k], s.per_game, lang) + "</figure>")
    note = gettext("Squares 1 to {n}; shade: landings per game (a pawn's own move ending there); coloured border: a special square.", lang)
    sq_note = gettext("Each special square against the same rules with that square made plain, on the same {n} games (paired; 95&nbsp;% interval).", lang)
    st_note = gettext("A dead turn moves nobody (an Angoisse the Lion does not rescue, or no set of three); a skipped turn does not count. From {n} games per side replayed turn by turn.", lang)
    html = (f"<h3>{escape(gettext('How long a player goes without moving', lang))}</h3>"
            f"<p class='note'>{escape(st_note).replace('{n}', number(board_games, 0, lang))}</p>"
            + _streaks([(label[k], samples[k].streak_figures()) for k, _ in sides], lang)
            + f"<h3>{escape(gettext('What each special square does, on the same games', lang))}</h3>"
            f"<p class='note'>{escape(note).replace('{n}', str(setup.base.finish))} "
            f"{sq_note.replace('{n}', number(square_games, 0, lang))} "
            f"{escape(gettext('Comebacks: games won by the player last at mid-game; first player: games won by the player who starts.', lang))}</p>"
            f"<div class='boards{' two' if len(boards) > 1 else ''}'>{''.join(boards)}</div>")
    return {"html": html, "boards": len(boards), "games": board_games, "square_games": square_games,
            "final": board_games >= BOARD_GAMES and square_games >= SQUARE_GAMES,
            "streaks": {k: samples[k].streak_figures() for k, _ in sides},
            "landings": {k: samples[k].landings.tolist() for k, _ in sides},
            "squares": {k: v for k, v in effects.items()}}
