"""The turn log: one CSV row per decision a player takes in its turns (docs/calibrate.md).

Columns (``COLUMNS``; ``REQUIRED`` must be present, the others may be left out or blank)::

    game,turn,seat,player,guide,ready,roll,rolls_left,dice,decision,choice,kept,die,detail,seconds,
    squares,guides,guides_ready,protected

Lines starting with ``#`` are comments (a simulated log says so in its first lines). Every bad
row is one :class:`~heron_sim.errors.HeronSimError` naming the file, its line and the column.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..animals import NAMES as ANIMALS
from ..animals import animal_index
from ..engine.layout import (
    AIGLE, CERF, D_BULL, D_EAGLE_PICK, D_KEEP, D_LION, D_POWER, D_SNAKE, FREE, HERON, KEPT, LOUP,
    MAX_DICE, MAX_FACES, POWER_ARG, R_FACES, R_NFACES, RESERVED,
)
from ..errors import HeronSimError
from . import record as rec
from .values import (
    S_EAGLE_DIE, S_EAGLE_FACES, S_FACE, S_FRESH, S_GUIDE, S_KIND, S_LOGGED, S_NDICE, S_NDRAWS, S_PATIENCE,
    S_READY, S_ROLL, S_ROLLS_LEFT, S_STATUS, S_WIDTH,
)

COLUMNS = ("game", "turn", "seat", "player", "guide", "ready", "roll", "rolls_left", "dice", "decision",
           "choice", "kept", "die", "detail", "seconds", "squares", "guides", "guides_ready", "protected")
#: The table at the decision, every seat in seat order (optional; the first three go together,
#: ``protected`` blank or absent is no pawn protected): what each option's chance of winning
#: depends on (heron_sim.playtest.chances).
TABLE_COLUMNS = ("squares", "guides", "guides_ready")
PROTECTED = "protected"
REQUIRED = ("game", "turn", "seat", "guide", "ready", "roll", "dice", "decision", "choice")
#: decision kind -> its name in the log
DECISIONS = {D_KEEP: "keep", D_POWER: "power", D_EAGLE_PICK: "eagle_face", D_LION: "lion",
             D_BULL: "bull", D_SNAKE: "serpent"}
KINDS = {v: k for k, v in DECISIONS.items()}
CHOICES = {"keep": ("stop", "reroll"), "power": ("none", "use"), "lion": ("no", "yes"),
           "bull": ("no", "yes"), "serpent": ("no", "yes")}
HEADER_LINE = "# heron-sim turn log (docs/calibrate.md)"


# ---------------------------------------------------------------- writing
def die_token(face: int, status: int, fresh: int) -> str:
    """An animal's name; ``*`` held since an earlier roll of the turn (kept, or a reserved
    heron); ``+`` kept on this roll (the Héron's Patience)."""
    name = ANIMALS[face]
    if status != FREE and not fresh:
        return name + "*"
    if status == KEPT and fresh:
        return name + "+"
    return name


def record_rows(records: np.ndarray, game: int, seating: list[str], R: np.ndarray, n_dice: int) -> list[list[str]]:
    """The log's rows of one game's records (heron_sim.playtest.record)."""
    rows = []
    for x in records:
        kind = int(x[rec.R_KIND])
        if kind not in DECISIONS:
            continue  # the set effects' and the squares' choices are not turn decisions
        name = DECISIONS[kind]
        seat = int(x[rec.R_SEAT])
        result = int(x[rec.R_RESULT])
        guide = int(x[rec.R_GUIDE])
        dice = " ".join(die_token(int(x[rec.R_FACE + i]), int(x[rec.R_STATUS + i]), int(x[rec.R_FRESH + i]))
                        for i in range(n_dice))
        roll, left = str(int(x[rec.R_ROLL])), str(int(x[rec.R_ROLLS_LEFT]))
        kept = die = detail = ""
        if kind == D_KEEP:
            choice = "reroll" if result != 0 else "stop"
            if result != 0:
                kept = " ".join(str(i) for i in range(n_dice) if (int(x[rec.R_KEPT]) >> i) & 1)
        elif kind == D_POWER:
            choice = "use" if result >= 0 else "none"
            if result >= 0:
                d, arg = result % POWER_ARG, result // POWER_ARG
                die = str(d)
                if guide == CERF:
                    detail = ANIMALS[arg]
                elif guide == HERON:
                    detail = ANIMALS[int(R[R_FACES + MAX_FACES * d + arg])]
        elif kind == D_EAGLE_PICK:
            choice = str(result)
            die = str(int(x[rec.R_EAGLE_DIE]))
            detail = " ".join(ANIMALS[int(x[rec.R_EAGLE_FACES + k])] for k in range(_draws(R)))
        elif kind == D_SNAKE:
            choice = "yes" if result == 1 else "no"
            detail = str(int(x[rec.R_NOMINAL]))
            dice = roll = left = ""  # another seat's turn: its dice are not this decision's
        else:
            choice = "yes" if result == 1 else "no"
        p = int(x[rec.R_PLAYERS])
        rows.append([str(game), str(int(x[rec.R_TURN])), str(seat), seating[seat], ANIMALS[guide],
                     str(int(x[rec.R_READY])), roll, left, dice, name, choice, kept, die, detail, "",
                     " ".join(str(int(x[rec.R_SQUARES + j])) for j in range(p)),
                     " ".join(ANIMALS[int(x[rec.R_GUIDES + j])] for j in range(p)),
                     " ".join(str(int(x[rec.R_READIES + j])) for j in range(p)),
                     " ".join(str(int(x[rec.R_PROTS + j])) for j in range(p))])
    return rows


def _draws(R) -> int:
    from ..engine.layout import X_EAGLE_DRAWS

    return int(R[X_EAGLE_DRAWS])


def csv_lines(rows: list[list[str]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


# ---------------------------------------------------------------- reading
@dataclass
class Log:
    """The decisions of a log, as the fit reads them."""

    path: str
    rules_n_dice: int
    lines: np.ndarray                 # line number of each decision in the file
    kind: np.ndarray                  # D_* of each decision
    choice: np.ndarray                # 1 reroll / use / yes; the pick for eagle_face
    state: np.ndarray                 # int64[m, S_WIDTH] (heron_sim.playtest.values)
    kept: np.ndarray                  # bit mask of the dice kept (keep, reroll)
    nominal: np.ndarray               # the serpent's move back
    game: np.ndarray
    turn: np.ndarray
    seat: np.ndarray
    player: list[str]
    seconds: np.ndarray               # NaN where not logged
    comments: list[str] = field(default_factory=list)
    #: the table at each decision (TABLE_COLUMNS): its number of players (0 where not logged),
    #: every seat's square, guide and readiness (int64[m, 7] each)
    table_players: np.ndarray | None = None
    squares: np.ndarray | None = None
    guides: np.ndarray | None = None
    readies: np.ndarray | None = None
    protected: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.kind)


#: The largest game, turn and Serpent move-back number a log may hold (2**53 - 1: exact as a
#: JSON number and as an int64, whatever the reader does with it).
MAX_NUMBER = 2**53 - 1
#: The largest roll number and rolls left (20 rolls at most, a Wolf square's bonus roll and up to
#: 10 first-turn extra rolls stay well below; the valuation's memo keys the roll below 64).
MAX_ROLL = 63
_WHOLE = re.compile(r"[+-]?[0-9]+")


def csv_header(name: str, text: str, columns, required, doc: str):
    """A playtest CSV's comment lines, its body lines ``(line number, text)`` (the header first),
    the header's line number and its column names, checked against ``columns`` (every name
    known, each once) and ``required`` (each present); each failure one line naming the file
    and the line, pointing at ``doc``."""
    lines = text.splitlines()
    comments = [ln[1:].strip() for ln in lines if ln.lstrip().startswith("#")]
    body = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    if not body:
        raise HeronSimError(f"{name}: no header line; expected the columns {','.join(columns)}")
    head_line, head = body[0]
    header = [h.strip() for h in next(csv.reader([head]))]
    missing = [c for c in required if c not in header]
    if missing:
        raise HeronSimError(f"{name}: line {head_line}: missing column(s) {', '.join(missing)}; "
                            f"expected {','.join(columns)} ({doc})")
    unknown = [c for c in header if c not in columns]
    if unknown:
        raise HeronSimError(f"{name}: line {head_line}: unknown column(s) "
                            f"{', '.join(_quoted(c) for c in unknown)}; allowed: {','.join(columns)}")
    if len(set(header)) != len(header):
        raise HeronSimError(f"{name}: line {head_line}: a column is named twice")
    return comments, body, head_line, header


def _quoted(raw: str, limit: int = 40) -> str:
    """``raw`` quoted for a message, cut to ``limit`` characters (a hostile cell stays short)."""
    return repr(raw if len(raw) <= limit else raw[:limit] + "...")


class _Row:
    def __init__(self, path, line, cells):
        self.path, self.line, self.cells = path, line, cells

    def fail(self, col, msg):
        raise HeronSimError(f"{self.path}: line {self.line}: {col}: {msg}")

    def get(self, col):
        return self.cells.get(col, "").strip()

    def integer(self, col, low, high=MAX_NUMBER, blank=None, raw=None):
        """The whole number in ``col`` (or ``raw``, a token of that column), ``low..high``; every
        integer the reader takes goes through here, so none can overflow the int64 arrays."""
        raw = self.get(col) if raw is None else raw.strip()
        if raw == "" and blank is not None:
            return blank
        if not _WHOLE.fullmatch(raw):
            self.fail(col, f"{_quoted(raw)} is not a whole number; allowed: {low}..{high}")
        digits = raw.lstrip("+-").lstrip("0")
        if len(digits) > len(str(max(abs(low), abs(high)))):  # no int() of a 5,000-digit cell
            self.fail(col, f"{_quoted(raw)}; allowed: {low}..{high}")
        v = int(raw)
        if not low <= v <= high:
            self.fail(col, f"{v}; allowed: {low}..{high}")
        return v

    def animal(self, col, raw=None):
        raw = self.get(col) if raw is None else raw
        try:
            return animal_index(raw, col)
        except HeronSimError:
            self.fail(col, f"{_quoted(raw)} is not an animal; allowed: {', '.join(ANIMALS)}")


def read_log(path: str | Path, rules) -> Log:
    """Read and check a turn log against ``rules`` (its number of dice, rolls, faces)."""
    from ..engine.pack import pack_rules
    from ..interrupt import check
    from ..io import read_text

    text = read_text(path, "LOG")
    R = pack_rules(rules)
    n_dice = rules.n_dice
    name = str(path)
    comments, body, head_line, header = csv_header(name, text, COLUMNS, REQUIRED, "docs/calibrate.md")
    out = {k: [] for k in ("lines", "kind", "choice", "kept", "nominal", "game", "turn", "seat", "seconds")}
    players: list[str] = []
    present = [c for c in TABLE_COLUMNS if c in header]
    if present and len(present) != len(TABLE_COLUMNS):
        missing = ", ".join(c for c in TABLE_COLUMNS if c not in header)
        raise HeronSimError(f"{name}: line {head_line}: the table's columns go together: {', '.join(present)} "
                            f"without {missing} (docs/calibrate.md)")
    if PROTECTED in header and not present:
        raise HeronSimError(f"{name}: line {head_line}: protected without squares, guides, guides_ready "
                            "(docs/calibrate.md)")
    tables = []  # (players, squares[7], guides[7], readies[7], protected[7]) of each row
    game_players: dict[int, int] = {}
    states = []
    patience: dict[tuple, int] = {}  # (game, turn, seat) -> the animal Patience set this turn
    deer: dict[tuple, tuple] = {}  # (game, turn, seat) -> (die, animal) the Deer set this turn
    for n_row, (line, text_line) in enumerate(body[1:]):
        if n_row % 2048 == 0:
            check()  # Ctrl-C under the command line: stop here (heron_sim.interrupt)
        values = next(csv.reader([text_line]))
        if len(values) != len(header):
            raise HeronSimError(f"{name}: line {line}: {len(values)} fields; the header has {len(header)}")
        row = _Row(name, line, dict(zip(header, values)))
        decision = row.get("decision")
        if decision not in KINDS:
            row.fail("decision", f"{decision!r}; allowed: {', '.join(KINDS)}")
        kind = KINDS[decision]
        game = row.integer("game", 0)
        turn = row.integer("turn", 0)
        seat = row.integer("seat", 0, 6)
        guide = row.animal("guide")
        ready = row.integer("ready", 0, 1)
        s = np.zeros(S_WIDTH, dtype=np.int64)
        s[S_KIND] = kind
        s[S_GUIDE] = guide
        s[S_READY] = ready
        s[S_NDICE] = n_dice
        s[S_LOGGED] = -1
        key = (game, turn, seat)
        s[S_PATIENCE] = patience.get(key, -1)
        nominal = 0
        if kind == D_SNAKE:
            nominal = row.integer("detail", 1)
        else:
            roll = row.integer("roll", 1, MAX_ROLL)
            s[S_ROLL] = roll
            s[S_ROLLS_LEFT] = row.integer("rolls_left", 0, MAX_ROLL, blank=max(rules.rolls - roll, 0))
            tokens = row.get("dice").split()
            if len(tokens) != n_dice:
                row.fail("dice", f"{len(tokens)} dice; the rules have {n_dice} ({rules.mode})")
            off = []  # the dice showing an animal they do not bear: only the Deer sets one
            for i, t in enumerate(tokens):
                mark = t[-1] if t[-1] in "*+" else ""
                face = row.animal("dice", t[: len(t) - len(mark)])
                if _face_index(R, i, face) < 0:
                    off.append((i, face))
                held = mark != ""
                s[S_FACE + i] = face
                s[S_STATUS + i] = RESERVED if face == HERON else (KEPT if held else FREE)
                s[S_FRESH + i] = 0 if mark == "*" else 1
            if off:
                _check_deer(row, off, guide, ready, deer.get(key))
        raw_choice = row.get("choice")
        kept_mask = 0
        if kind == D_EAGLE_PICK:
            draws = _draws(R)
            faces = row.get("detail").split()
            if len(faces) != draws:
                row.fail("detail", f"{len(faces)} drawn faces; the rules draw {draws} (eagle_draws)")
            die = row.integer("die", 0, n_dice - 1)
            if s[S_STATUS + die] == RESERVED:
                row.fail("die", f"die {die} is a reserved heron (the Eagle cannot pick it)")
            s[S_EAGLE_DIE] = die
            s[S_NDRAWS] = draws
            for k, f in enumerate(faces):
                drawn = row.animal("detail", f)
                if _face_index(R, die, drawn) < 0:
                    row.fail("detail", f"die {die} has no {ANIMALS[drawn]} face (the Eagle draws the die's own faces)")
                s[S_EAGLE_FACES + k] = drawn
            choice = row.integer("choice", 0, draws)
            if guide != AIGLE:
                row.fail("guide", f"{ANIMALS[guide]}: an eagle_face decision needs the aigle guide")
        else:
            allowed = CHOICES[decision]
            if raw_choice not in allowed:
                row.fail("choice", f"{raw_choice!r}; allowed for {decision}: {', '.join(allowed)}")
            choice = allowed.index(raw_choice)
            if kind == D_KEEP and choice == 1:
                raw = row.get("kept").split()
                for t in raw:
                    i = row.integer("kept", 0, n_dice - 1, raw=t)
                    if s[S_STATUS + i] != FREE:
                        row.fail("kept", f"die {i} is not free (already kept, or a heron)")
                    kept_mask |= 1 << i
            if kind == D_POWER:
                if guide not in (LOUP, AIGLE, CERF, HERON):
                    row.fail("guide", f"{ANIMALS[guide]} has no roll-time power")
                if choice == 1:
                    die = row.integer("die", 0, n_dice - 1)
                    arg = 0
                    if guide == CERF:
                        arg = row.animal("detail")
                        if arg == HERON or s[S_FACE + die] == HERON:
                            row.fail("detail", "the Deer neither makes nor changes a heron")
                        if not any(s[S_FACE + j] == arg for j in range(n_dice) if j != die):
                            row.fail("detail", f"{ANIMALS[arg]}: the Deer sets a die to an animal "
                                               "showing on another die")
                        deer[key] = (die, arg)
                    elif guide == HERON:
                        f = row.animal("detail")
                        arg = _face_index(R, die, f)
                        if arg < 0:
                            row.fail("detail", f"die {die} has no {ANIMALS[f]} face")
                        if s[S_STATUS + die] != FREE:
                            row.fail("die", f"die {die} is not free (Patience sets a free die)")
                        if f != HERON:
                            patience[key] = f
                    elif guide == AIGLE and s[S_STATUS + die] == RESERVED:
                        row.fail("die", f"die {die} is a reserved heron (the Eagle cannot pick it)")
                    s[S_LOGGED] = die + POWER_ARG * arg
        raw_sec = row.get("seconds")
        sec = math.nan
        if raw_sec:
            try:
                sec = float(raw_sec)
            except ValueError:
                row.fail("seconds", f"{raw_sec!r} is not a number")
            if not (sec >= 0 and math.isfinite(sec)):
                row.fail("seconds", f"{raw_sec}; allowed: a number of seconds >= 0")
        tables.append(_table(row, seat, guide, ready, rules, game_players, game)
                      if present else _NO_TABLE)
        states.append(s)
        for k, v in (("lines", line), ("kind", kind), ("choice", choice), ("kept", kept_mask),
                     ("nominal", nominal), ("game", game), ("turn", turn), ("seat", seat), ("seconds", sec)):
            out[k].append(v)
        players.append(row.get("player"))
    if not states:
        raise HeronSimError(f"{name}: no decision rows after the header")
    arr = {k: np.asarray(v, dtype=np.float64 if k == "seconds" else np.int64) for k, v in out.items()}
    return Log(name, n_dice, arr["lines"], arr["kind"], arr["choice"], np.vstack(states), arr["kept"],
               arr["nominal"], arr["game"], arr["turn"], arr["seat"], players, arr["seconds"], comments,
               np.array([t[0] for t in tables], dtype=np.int64),
               *(np.array([t[k] for t in tables], dtype=np.int64).reshape(len(tables), 7) for k in (1, 2, 3, 4)))


_NO_TABLE = (0, (0,) * 7, (0,) * 7, (0,) * 7, (0,) * 7)


def _table(row: _Row, seat: int, guide: int, ready: int, rules, game_players: dict, game: int):
    """The table at a row's decision from its ``squares``, ``guides``, ``guides_ready`` and
    ``protected`` (all blank: not logged for this row): every seat's square (0 .. the finish - 1),
    guide, 1/0 ready and 1/0 protected (blank: none), as many as the game's players (2..7, the
    same on every row of a game), the row's own seat agreeing with its ``guide`` and ``ready``."""
    cells = {c: row.get(c).split() for c in TABLE_COLUMNS}
    prot = row.get(PROTECTED).split()
    if not any(cells.values()):
        if prot:
            row.fail(PROTECTED, "given without squares, guides and guides_ready")
        return _NO_TABLE
    counts = {c: len(v) for c, v in cells.items()}
    p = counts["squares"]
    known = game_players.get(game, -1)
    if len(set(counts.values())) != 1:
        row.fail("guides", f"{counts['squares']} squares, {counts['guides']} guides and "
                           f"{counts['guides_ready']} in guides_ready: one of each per seat")
    if not 2 <= p <= 7:
        row.fail("squares", f"{p} seats; allowed: 2..7 (one square per seat, in seat order)")
    if known not in (-1, p):
        row.fail("squares", f"{p} seats; the earlier rows of game {game} have {known}")
    game_players[game] = p
    if seat >= p:
        row.fail("seat", f"{seat}; the table has {p} seats (0..{p - 1})")
    squares = [row.integer("squares", 0, rules.finish - 1, raw=t) for t in cells["squares"]]
    guides = [row.animal("guides", t) for t in cells["guides"]]
    readies = [row.integer("guides_ready", 0, 1, raw=t) for t in cells["guides_ready"]]
    if prot and len(prot) != p:
        row.fail(PROTECTED, f"{len(prot)} values for {p} seats (one 1/0 per seat, or blank: none protected)")
    protected = [row.integer(PROTECTED, 0, 1, raw=t) for t in prot] if prot else [0] * p
    if guides[seat] != guide or readies[seat] != ready:
        row.fail("guides", f"seat {seat} holds {ANIMALS[guides[seat]]} ({readies[seat]}) here and "
                           f"{ANIMALS[guide]} ({ready}) in guide and ready")
    pad = (0,) * (7 - p)
    return p, tuple(squares) + pad, tuple(guides) + pad, tuple(readies) + pad, tuple(protected) + pad


def _check_deer(row: _Row, off: list, guide: int, ready: int, used) -> None:
    """Dice showing an animal they do not bear (``off``: (die, animal)): only the Deer's power
    sets one (heron_sim.loop.powers.apply_power: a die that is no heron becomes an animal
    showing on another die; 10 D6), once a turn, never to a heron, and it exhausts the guide; a
    Deer use logged earlier in the turn (``used``: its die and animal) names the only die and
    animal it can be."""
    i, face = off[0]
    what = f"die {i} has no {ANIMALS[face]} face"
    if face == HERON:
        row.fail("dice", what)
    if guide != CERF or ready != 0:
        row.fail("dice", f"{what} (only a Deer guide's power, once used: guide cerf, ready 0, "
                         "sets a die to an animal it lacks)")
    if len(off) > 1:
        j, other = off[1]
        row.fail("dice", f"{what}, and die {j} no {ANIMALS[other]} face (the Deer changes one die a turn)")
    if used is not None and used != (i, face):
        row.fail("dice", f"{what} (the Deer set die {used[0]} to {ANIMALS[used[1]]} this turn)")


def _face_index(R, die: int, animal: int) -> int:
    for k in range(int(R[R_NFACES + die])):
        if int(R[R_FACES + MAX_FACES * die + k]) == animal:
            return k
    return -1


__all__ = ["COLUMNS", "REQUIRED", "TABLE_COLUMNS", "PROTECTED", "DECISIONS", "Log", "read_log", "record_rows", "csv_lines", "MAX_DICE"]
