"""The board seen by a designer: where pawns land, what each special square does to the game,
and how long a player goes without moving (dead-turn streaks).

The engine's output row counts the special squares that *fire* (``square_<n>_<effect>``) but
not where pawns land, and no turn-by-turn record. Rather than change the compiled engine (its
games stay bit for bit the same), a game is played again from its own stream ``(seed, game)``
with the engine's own functions -- ``reset_game``, ``deal_guides``, ``seat_compensation``, then
``play_scripted`` **one turn slot at a time**, the calls ``play_game`` makes -- and the output
row is read between slots (heron_sim.analysis.trajectory replays round by round the same way).
Between two slots the row's counters say exactly what the slot did: played or skipped
(``C_PLAYED``), a Pond (``C_PONDS``), the active player's own advance (``C_ADVANCE``). About
25 µs a slot (~3 ms a four-player game, greedy): the report and the explorer replay a sample.

Definitions:

- a **dead turn** is heron_sim.analysis.deadturns' (a played turn that opens no Pond and moves
  its player 0 squares by its own combination); a turn slot skipped by the Émerveillement is
  not a played turn: it neither extends nor breaks a streak;
- a seat's **longest streak** is its longest run of consecutive dead turns in a game; a seat is
  **stuck 3** when that run is 3 or more (it did not move for 3 of its turns in a row);
- a **landing** is the square a pawn reaches by its own combination (the move that triggers a
  square; the finish included; a consolation move, a push-back or another pawn's effect is not
  a landing): the square before the square's effect moves it on.

What a special square does "on the same seeds" (:func:`square_effects`): the rules as they are
against the same rules with that one square made plain (no effect), game ``i`` drawing from the
stream ``(seed, i)`` under both, so every difference pairs a game with itself.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

#: A seat is "stuck" when it goes this many of its played turns in a row without moving.
STUCK_TURNS = 3


def longest_run(flags) -> int:
    """The longest run of consecutive true values (0 for none)."""
    best = run = 0
    for f in flags:
        run = run + 1 if f else 0
        best = max(best, run)
    return best


def streaks_of(seats, dead, players: int) -> np.ndarray:
    """Each seat's longest run of dead turns (int[players]) from one game's played turns in
    order (``seats[t]``: the seat that played turn t; ``dead[t]``: it was dead)."""
    seats = np.asarray(seats)
    dead = np.asarray(dead, dtype=bool)
    return np.array([longest_run(dead[seats == s]) for s in range(players)], dtype=np.int64)


def landing_square(pos: int, advance: int, finish: int, exact: bool) -> int:
    """The square a pawn on ``pos`` reaches by moving ``advance`` forward (heron_sim.loop.moves
    .forward's rule: the finish, or with an exact finish a bounce back from it)."""
    p = pos + advance
    if p >= finish:
        if not exact or p == finish:
            return finish
        p = max(0, finish - (p - finish))
    return p


@dataclass
class BoardSample:
    """Landings and streaks of ``games`` replayed games of one rule set.

    ``landings``: int64[finish + 1], landings by square (0 .. finish); ``longest``:
    int64[games, players], each seat's longest dead streak; ``turns``/``dead``: played turns and
    dead turns in all; ``fired``: int64[finish + 1], special squares fired (the engine's count)."""

    rules: object
    games: int
    landings: np.ndarray
    longest: np.ndarray
    turns: int = 0
    dead: int = 0
    fired: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def per_game(self) -> np.ndarray:
        """Landings per game on each square (float[finish + 1])."""
        return self.landings / max(self.games, 1)

    def streak_figures(self) -> dict:
        """The mean longest streak per player, the share of players stuck 3 turns in a row (with
        a 95 % Wilson interval over the players), the longest streak seen."""
        from .intervals import wilson

        flat = self.longest.reshape(-1)
        n = int(flat.size)
        k = int((flat >= STUCK_TURNS).sum())
        _, lo, hi = wilson(k, n) if n else (math.nan, math.nan, math.nan)
        sd = float(flat.std(ddof=1)) if n > 1 else math.nan
        mean = float(flat.mean()) if n else math.nan
        half = 1.96 * sd / math.sqrt(n) if n > 1 else math.nan
        return {"players": n, "games": self.games, "longest_mean": mean, "longest_low": mean - half,
                "longest_high": mean + half, "longest_max": int(flat.max()) if n else 0,
                "stuck": k, "stuck_share": k / n if n else math.nan, "stuck_low": float(lo), "stuck_high": float(hi),
                "dead_rate": self.dead / self.turns if self.turns else math.nan, "turns": self.turns}


def replay_game(rules, seating, seed: int, game: int, R=None, sids=None, sp=None):
    """One game played again slot by slot. Returns (its played turns: int64[turns, 3] = seat,
    dead, landing square (-1: none); its output row, as ``play_game`` writes it except the lead
    changes and the mid-game leader and last, -1 here)."""
    from ..engine import layout as L
    from ..loop.batch import play_scripted
    from ..loop.game import deal_guides, reset_game, seat_compensation
    from ..engine.pack import new_workspace, pack_rules
    from ..engine.rng import new_state, stream_start
    from ..strategies import memo_words, seat_arrays

    P = rules.players
    if R is None:
        sids, sp = seat_arrays(list(seating), rules)
        R = pack_rules(rules)
    w = new_workspace(R, sids, memo=memo_words(R, sids))
    rng = new_state()
    stream_start(np.uint64(int(seed)), int(game), rng)
    reset_game(w)
    deal_guides(w, rng)
    seat_compensation(w, R)
    guides = w[L.GUIDE: L.GUIDE + P].copy()
    row = int(w[L.ROW])
    finish, exact = int(rules.finish), bool(rules.exact_finish)
    out = []
    seat, rnd, winner = 0, 1, -1
    while rnd <= rules.max_rounds:
        pos = int(w[L.POS + seat])
        played, ponds, adv = int(w[row + L.C_PLAYED]), int(w[row + L.C_PONDS]), int(w[row + L.C_ADVANCE + seat])
        winner = int(play_scripted(seat, 1, w, R, rng, sp))
        if int(w[row + L.C_PLAYED]) > played:
            pond = int(w[row + L.C_PONDS]) > ponds
            moved = int(w[row + L.C_ADVANCE + seat]) - adv
            land = landing_square(pos, moved, finish, exact) if moved > 0 else -1
            out.append((seat, int(not pond and moved == 0), land))
        if winner >= 0:
            break
        seat += 1
        if seat == P:
            seat, rnd = 0, rnd + 1
    result = w[row: row + L.n_columns(rules.finish)].copy()
    # what play_rounds writes once per call (a call per slot here): the game's own values
    result[L.C_ROUNDS] = rnd if winner >= 0 else rnd - 1
    result[L.C_GUIDE: L.C_GUIDE + L.MAX_SEATS] = -1
    result[L.C_GUIDE: L.C_GUIDE + P] = guides
    result[L.C_LEAD_CHANGES] = result[L.C_MID_LEADER] = result[L.C_MID_LAST] = -1  # not replayed
    return np.array(out, dtype=np.int64).reshape(-1, 3), result


def sample_board(rules, seatings, seed: int, games: int, first_game: int = 0) -> BoardSample:
    """Replay ``games`` games (``first_game`` on) of ``rules``: the seatings rotated as the
    explorer and ``heron-sim compare`` rotate them (seating r plays the r-th contiguous share)."""
    from ..strategies import parse_seating, seat_arrays

    P = rules.players
    bounds = np.linspace(0, games, len(seatings) + 1).astype(int)

    def plays():
        for r, seating in enumerate(seatings):
            seating = parse_seating(list(seating), P)
            sids, sp = seat_arrays(seating, rules)
            for g in range(bounds[r], bounds[r + 1]):
                yield seating, sids, sp, seed, first_game + g

    return _replayed(rules, games, plays())


def sample_frame(rules, frame, games: int) -> BoardSample:
    """:func:`sample_board` for the first ``games`` games of a stored games frame (each row's
    seed, game number and seating: ``seed``, ``game``, ``strategy_0`` ..)."""
    from ..strategies import seat_arrays

    P = rules.players
    rows = frame.head(games)
    n = len(rows)
    arrays: dict = {}
    seats = [rows[f"strategy_{s}"].astype(str).to_numpy() for s in range(P)]
    seeds, numbers = rows["seed"].to_numpy(), rows["game"].to_numpy()

    def plays():
        for i in range(n):
            seating = tuple(str(seats[s][i]) for s in range(P))
            if seating not in arrays:
                arrays[seating] = seat_arrays(list(seating), rules)
            sids, sp = arrays[seating]
            yield seating, sids, sp, int(seeds[i]), int(numbers[i])

    return _replayed(rules, n, plays())


def _replayed(rules, n: int, plays) -> BoardSample:
    """Replay the ``n`` games ``plays`` yields (seating, its seat arrays, seed, game number) and
    add up where the pawns land, the squares fired, each seat's longest streak, the turns and the
    dead turns: what :func:`sample_board` and :func:`sample_frame` both count."""
    from ..engine import layout as L
    from ..engine.pack import pack_rules

    P = rules.players
    finish = int(rules.finish)
    landings = np.zeros(finish + 1, dtype=np.int64)
    fired = np.zeros(finish + 1, dtype=np.int64)
    longest = np.zeros((n, P), dtype=np.int64)
    turns = dead = 0
    R = pack_rules(rules)
    for i, (seating, sids, sp, seed, number) in enumerate(plays):
        t, out = replay_game(rules, seating, seed, number, R, sids, sp)
        land = t[:, 2]
        np.add.at(landings, land[land >= 0], 1)
        fired[:finish] += out[L.C_SQUARES: L.C_SQUARES + finish]
        longest[i] = streaks_of(t[:, 0], t[:, 1], P)
        turns += len(t)
        dead += int(t[:, 1].sum())
    return BoardSample(rules, n, landings, longest, turns, dead, fired)


# ---------------------------------------------------------------- special squares, paired
def special_squares(rules) -> list[tuple[int, int]]:
    """(square, effect code) of every square with an effect (a square declared ``neutral`` is
    plain)."""
    from ..rules.board import NEUTRAL

    return sorted((int(s), int(c)) for s, c in rules.squares if int(c) != NEUTRAL)


def plain_square(rules, square: int):
    """The same rules with ``square`` made plain (its effect removed)."""
    return rules.replace(squares=tuple((s, c) for s, c in rules.squares if int(s) != int(square)))


def game_outcomes(rows: np.ndarray) -> dict[str, np.ndarray]:
    """Per game, from the engine's output rows: finished, rounds, comeback (the unique player
    last at mid-game won), first (seat 1 won)."""
    from ..engine import layout as L

    winner = rows[:, L.C_WINNER]
    last = rows[:, L.C_MID_LAST]
    return {"finished": rows[:, L.C_FINISHED] != 0, "rounds": rows[:, L.C_ROUNDS].astype(float),
            "comeback": ((last >= 0) & (winner == last)).astype(float), "first": (winner == 0).astype(float)}


def frame_outcomes(frame) -> dict[str, np.ndarray]:
    """:func:`game_outcomes` of a stored games frame (its rows in game order)."""
    winner = frame["winner"].to_numpy()
    last = frame["mid_last"].to_numpy()
    return {"finished": frame["finished"].to_numpy(bool), "rounds": frame["rounds"].to_numpy(float),
            "comeback": ((last >= 0) & (winner == last)).astype(float), "first": (winner == 0).astype(float)}


def effects_of(base: dict, plain: dict) -> dict:
    """The paired differences base − plain (length over games finished under both, comebacks,
    first player) of two :func:`game_outcomes` of the same games."""
    both = base["finished"] & plain["finished"]
    row = {}
    for name, a, b in (("length", base["rounds"][both], plain["rounds"][both]),
                       ("comeback", base["comeback"], plain["comeback"]),
                       ("first", base["first"], plain["first"])):
        d, lo, hi, n = paired_diff(a, b)
        row.update({name: d, f"{name}_low": lo, f"{name}_high": hi, f"{name}_n": n})
    return row


def paired_diff(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, int]:
    """Mean of ``a - b`` over paired games with its 95 % normal interval: (diff, low, high, n)."""
    d = np.asarray(a, float) - np.asarray(b, float)
    n = int(d.size)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    m = float(d.mean())
    half = 1.96 * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return m, m - half, m + half, n


def play_rows(rules, seatings, seed: int, games: int) -> np.ndarray:
    """The engine's output rows of games 0 .. games - 1 (the seatings rotated by shares)."""
    from ..engine import layout as L
    from ..loop.batch import play_batch
    from ..engine.pack import pack_rules
    from ..strategies import parse_seating, seat_arrays

    rows = np.zeros((games, L.n_columns(rules.finish)), dtype=np.int64)
    R = pack_rules(rules)
    bounds = np.linspace(0, games, len(seatings) + 1).astype(int)
    for r, seating in enumerate(seatings):
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        if hi > lo:
            sids, sp = seat_arrays(parse_seating(list(seating), rules.players), rules)
            play_batch(np.uint64(seed), lo, R, sids, sp, rows[lo:hi])
    return rows


def square_effects(rules, seatings, seed: int, games: int, base_rows: np.ndarray | None = None) -> list[dict]:
    """What each special square does, on the same games: the rules with it minus the rules with
    it made plain, for the length (rounds, games finished under both), comebacks (share of games
    the player last at mid-game wins) and the first player (share of games seat 1 wins), each a
    paired mean difference with its 95 % interval. One dict per special square."""
    from ..rules.board import EFFECT_NAMES

    base = game_outcomes(base_rows if base_rows is not None else play_rows(rules, seatings, seed, games))
    out = []
    for square, code in special_squares(rules):
        plain = game_outcomes(play_rows(plain_square(rules, square), seatings, seed, games))
        out.append({"square": square, "effect": EFFECT_NAMES[code], "games": games, **effects_of(base, plain)})
    return out


# ---------------------------------------------------------------- the board, drawn
#: The board's drawing: squares 1 .. finish in rows of COLS, left to right then right to left
#: (a goose-game serpentine), the start (0) off the board.
COLS = 9
CELL = 44
#: A colour per effect (the same in the explorer and the report).
EFFECT_COLOURS = {
    "loup": "#7a6f9b", "echange": "#4f8fbf", "taureau": "#b5651d", "emerveillement": "#d4a017",
    "serpent": "#3c8d40", "rotation": "#8e44ad", "lion": "#c0392b", "protection": "#2c7a7b",
    "aigle": "#5d6d7e", "cerf": "#a0522d", "regeneration": "#16a085", "heron": "#34495e",
}
#: Short marks drawn in a special square (no emoji: the fonts of a headless browser vary).
EFFECT_MARKS = {
    "loup": "Lo", "echange": "Éc", "taureau": "Ta", "emerveillement": "Ém", "serpent": "Se", "rotation": "Ro",
    "lion": "Li", "protection": "Pr", "aigle": "Ai", "cerf": "Ce", "regeneration": "Ré", "heron": "Hé",
}


_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F]\\s*")


def effect_words(effect: str, lang: str) -> str:
    """A square's effect in the booklet's words (heron_sim.rules.words.SQUARES) without its emoji
    (a headless browser's or a PDF's fonts may have none: a box in its place)."""
    from ..rules.words import SQUARES

    return _EMOJI.sub("", SQUARES[lang].get(effect, effect)).strip()


def cell_xy(square: int, cols: int = COLS) -> tuple[int, int]:
    """Column and row of ``square`` (1-based) on the serpentine grid."""
    i = square - 1
    r, c = divmod(i, cols)
    return (c if r % 2 == 0 else cols - 1 - c), r


def board_svg(finish: int, effects: dict[int, str], per_game: np.ndarray | None = None,
              title: str = "", lang: str = "en", fmt=None) -> str:
    """The board as one inline SVG (no network, no script): squares 1 .. ``finish``, each
    shaded by its landings per game (``per_game[square]``, darker: more), each special square
    outlined in its effect's colour with its mark; a ``<title>`` per square gives its number,
    its effect and its landings. Square elements carry ``data-square`` and, when special,
    ``data-effect``."""
    from html import escape

    from ..i18n import gettext

    fmt = fmt or (lambda x: f"{x:.2f}")
    rows = -(-finish // COLS)
    w, h = COLS * CELL + 2, rows * CELL + 2
    top = 0.0
    if per_game is not None and len(per_game) > 1:
        top = float(np.max(per_game[1: finish + 1])) if finish >= 1 else 0.0
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="board-svg" viewBox="0 0 {w} {h}" '
             f'role="img" aria-label="{escape(title or gettext("The board", lang))}">']
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    for sq in range(1, finish + 1):
        c, r = cell_xy(sq)
        x, y = 1 + c * CELL, 1 + r * CELL
        v = float(per_game[sq]) if per_game is not None and sq < len(per_game) else 0.0
        shade = v / top if top > 0 else 0.0
        fill = f"rgba(31,119,180,{0.06 + 0.6 * shade:.3f})" if per_game is not None else "#f4f4f4"
        eff = effects.get(sq)
        label = gettext("square", lang) + f" {sq}"
        if sq == finish:
            label += " — " + gettext("finish", lang)
        if eff:
            label += " — " + effect_words(eff, lang)
        if per_game is not None:
            label += " — " + gettext("landings per game", lang) + f": {fmt(v)}"
        attrs = f' data-square="{sq}"' + (f' data-effect="{eff}"' if eff else "")
        stroke = EFFECT_COLOURS.get(eff, "#999") if eff else "#bbb"
        sw = 3 if eff else 1
        parts.append(f'<g class="sq{" special" if eff else ""}"{attrs}><title>{escape(label)}</title>'
                     f'<rect x="{x + 1}" y="{y + 1}" width="{CELL - 3}" height="{CELL - 3}" rx="5" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="{sw}"/>'
                     f'<text x="{x + 5}" y="{y + 14}" font-size="11" fill="#222">{sq}</text>')
        if eff:
            parts.append(f'<text x="{x + CELL - 6}" y="{y + CELL - 8}" font-size="12" font-weight="bold" '
                         f'text-anchor="end" fill="{stroke}">{escape(EFFECT_MARKS.get(eff, "?"))}</text>')
        elif sq == finish:
            parts.append(f'<text x="{x + CELL - 6}" y="{y + CELL - 8}" font-size="12" font-weight="bold" '
                         f'text-anchor="end" fill="#222">★</text>')
        if per_game is not None:
            parts.append(f'<text x="{x + 5}" y="{y + 27}" font-size="9" fill="#333">{escape(fmt(v))}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def board_effects(rules) -> dict[int, str]:
    """{square: effect name} of the special squares."""
    from ..rules.board import EFFECT_NAMES

    return {s: EFFECT_NAMES[c] for s, c in special_squares(rules)}


def board_changed(a, b) -> bool:
    """The two rule sets' boards differ (squares, finish, single-use or exact finish)."""
    return (a.finish, tuple(sorted(a.squares)), a.single_use_squares, a.exact_finish) != \
        (b.finish, tuple(sorted(b.squares)), b.single_use_squares, b.exact_finish)
