"""The playtest's tally sheet: one CSV row per turn, and what it can fit (docs/playtest/).

A tally is what a table can note with a pencil at every turn (docs/playtest/tally.fr.md): the
rerolls, how the turn ended (stop, Angoisse, Étang), whether a guide power was used, and the
seconds a timer gave. Columns (``COLUMNS``; ``REQUIRED`` must be present)::

    game,round,player,rerolls,outcome,power,seconds,guide

It fits two things, never the rest:

- **the risk appetite** (``human``'s ``caution``): the rerolls and outcomes of the tallied turns
  against the same counts in single turns played by ``human`` for a grid of ``caution`` (and
  ``temp``, profiled: the likelihood at each caution is the best over the temperatures of
  ``TEMPS``), a 95 % profile likelihood interval where the log-likelihood falls 1.92 below its
  maximum; the simulated turns share their random numbers from one grid point to the next
  (common random numbers), so the profile is smooth;
- **the seconds per turn**: the mean of the timed turns with a Student t interval.

The simulated turns mix, as real games do, turns with the guide ready (``READY_SHARE``: a quarter
of the turns of the casual rung's games, measured on experiments/playtest-sample.csv) and turns
with it exhausted (the rules with every power disabled); ``forget`` is fixed (``FORGET``: it moves
the tally's counts little). Which dice are kept, the temperature and the forgetting are the full
decision log's (heron_sim.playtest.calibrate).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import HeronSimError

COLUMNS = ("game", "round", "player", "rerolls", "outcome", "power", "seconds", "guide")
REQUIRED = ("game", "round", "player", "rerolls", "outcome")
#: outcome -> its words on a tally (case and accents ignored); 0 stop, 1 Angoisse, 2 Étang
OUTCOMES = {
    "stop": 0, "s": 0, "arret": 0, "arrêt": 0,
    "angoisse": 1, "a": 1, "anxiety": 1,
    "etang": 2, "étang": 2, "e": 2, "é": 2, "pond": 2,
}
OUTCOME_NAMES = ("stop", "angoisse", "etang")
POWER = {"": 0, "0": 0, "no": 0, "non": 0, "n": 0, "1": 1, "yes": 1, "oui": 1, "y": 1, "o": 1, "x": 1}
#: the longest turn a tally may time (an hour: a longer one is a typo, not a turn)
MAX_SECONDS = 3600.0
#: the temperatures the caution's profile is maximised over (the rungs' and the extremes)
TEMPS = (0.0, 0.15, 0.3, 0.45, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0)
#: the cautions of the first pass (bold to timid); the second refines by REFINE around the best
CAUTIONS = (-12.0, -8.0, -6.0, -4.0, -3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0,
            4.0, 5.0)
#: the lattice of the second pass (multiples of it: the simulated turns are shared between fits)
STEP = 0.05
FORGET = 0.3
READY_SHARE = 0.25
#: single turns simulated per guide with the guide ready, and with every power disabled
N_READY, N_EXHAUSTED = 8_000, 40_000
SEED = 20240601
#: the half-widths a "useful" interval has: adjacent rungs of the ladder told apart
USEFUL = {"caution": 0.25, "seconds": 3.0}
LEVEL_DROP = 1.920729410347062  # chi2(1, 0.95) / 2


@dataclass
class Tally:
    """The tallied turns of one or more files."""

    paths: list[str]
    lines: np.ndarray          # line of each turn in its file
    file: np.ndarray           # index into ``paths``
    game: np.ndarray
    round: np.ndarray
    player: list[str]
    rerolls: np.ndarray
    outcome: np.ndarray        # 0 stop, 1 Angoisse, 2 Étang
    power: np.ndarray          # 1 used, 0 not (or blank)
    seconds: np.ndarray        # NaN where not timed
    guide: np.ndarray          # -1 where not written
    comments: list[str] = field(default_factory=list)
    power_tallied: bool = True  # every file has a power column

    def __len__(self) -> int:
        return len(self.rerolls)


def header_of(text: str) -> list[str]:
    """The header's column names of a CSV log (the first line that is no comment), or []."""
    for ln in text.splitlines():
        if ln.strip() and not ln.lstrip().startswith("#"):
            return [h.strip() for h in next(csv.reader([ln]))]
    return []


def kind_of(path: str | Path, text: str) -> str:
    """``"tally"`` or ``"log"`` (the decision log) by the header; a header that is neither is
    one error line naming both headers."""
    from .log import COLUMNS as LOG_COLUMNS

    head = header_of(text)
    if not head:
        raise HeronSimError(f"{path}: no header line; expected a tally sheet ({','.join(COLUMNS)}) "
                            f"or a decision log ({','.join(LOG_COLUMNS)}); docs/playtest/")
    if "decision" in head:
        return "log"
    if {"outcome", "rerolls", "round"} & set(head):
        return "tally"
    if set(LOG_COLUMNS) & set(head):
        return "log"  # its reader names the columns missing
    line = next(i + 1 for i, ln in enumerate(text.splitlines()) if ln.strip() and not ln.lstrip().startswith("#"))
    raise HeronSimError(f"{path}: line {line}: the header is neither a tally sheet's ({','.join(COLUMNS)}) "
                        f"nor a decision log's ({','.join(LOG_COLUMNS)}); docs/playtest/")


def _seconds(row, raw: str) -> float:
    if raw == "":
        return math.nan
    try:
        sec = float(raw.replace(",", ".")) if raw.count(",") == 1 and "." not in raw else float(raw)
    except ValueError:
        from .log import _quoted

        row.fail("seconds", f"{_quoted(raw)} is not a number; allowed: 0..{MAX_SECONDS:g} (blank: not timed)")
    if not (0.0 <= sec <= MAX_SECONDS):
        row.fail("seconds", f"{raw[:40]}; allowed: 0..{MAX_SECONDS:g} seconds (blank: not timed)")
    return sec


def read_tally(paths, rules) -> Tally:
    """Read and check tally sheets (one or more CSV files) against ``rules`` (its rolls)."""
    from ..animals import animal_index
    from ..interrupt import check
    from ..io import read_text
    from .log import MAX_ROLL, _quoted, _Row, csv_header

    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    cols = {k: [] for k in ("lines", "file", "game", "round", "rerolls", "outcome", "power", "seconds", "guide")}
    players: list[str] = []
    comments: list[str] = []
    power_tallied = True
    for f, path in enumerate(paths):
        name = str(path)
        text = read_text(path, "TALLY")
        notes, body, head_line, header = csv_header(name, text, COLUMNS, REQUIRED, "docs/playtest/")
        comments += notes
        power_tallied &= "power" in header
        seen: dict[tuple, int] = {}
        for n_row, (line, text_line) in enumerate(body[1:]):
            if n_row % 2048 == 0:
                check()
            values = next(csv.reader([text_line]))
            if len(values) != len(header):
                raise HeronSimError(f"{name}: line {line}: {len(values)} fields; the header has {len(header)}")
            row = _Row(name, line, dict(zip(header, values)))
            game = row.integer("game", 0)
            rnd = row.integer("round", 0)
            player = row.get("player")
            if not player:
                row.fail("player", "blank; allowed: the player's name or seat (any text)")
            key = (game, rnd, player)
            if key in seen:
                row.fail("round", f"player {_quoted(player)} already has round {rnd} of game {game} "
                                  f"(line {seen[key]}); one row per turn")
            seen[key] = line
            rerolls = row.integer("rerolls", 0, MAX_ROLL - 1)
            raw_out = row.get("outcome")
            if raw_out.lower() not in OUTCOMES:
                row.fail("outcome", f"{_quoted(raw_out)}; allowed: stop, angoisse, etang (or S, A, E)")
            outcome = OUTCOMES[raw_out.lower()]
            if outcome == 2 and rerolls > 0:
                row.fail("outcome", f"etang after {rerolls} reroll(s): the Étang Paisible comes on the first "
                                    "roll only (four herons on a reroll is an Angoisse)")
            raw_pow = row.get("power").lower()
            if raw_pow not in POWER:
                row.fail("power", f"{_quoted(raw_pow)}; allowed: 1 or 0 (yes/no, oui/non, x, blank: not used)")
            raw_guide = row.get("guide")
            guide = -1
            if raw_guide:
                try:
                    guide = animal_index(raw_guide, "guide")
                except HeronSimError:
                    from ..animals import NAMES

                    row.fail("guide", f"{_quoted(raw_guide)} is not a guide; allowed: {', '.join(NAMES)} (or blank)")
            sec = _seconds(row, row.get("seconds"))
            for k, v in (("lines", line), ("file", f), ("game", game), ("round", rnd), ("rerolls", rerolls),
                         ("outcome", outcome), ("power", POWER[raw_pow]), ("seconds", sec), ("guide", guide)):
                cols[k].append(v)
            players.append(player)
        if len(body) == 1:
            raise HeronSimError(f"{name}: no turn rows after the header (line {head_line})")
    arr = {k: np.asarray(v, dtype=np.float64 if k == "seconds" else np.int64) for k, v in cols.items()}
    return Tally([str(p) for p in paths], arr["lines"], arr["file"], arr["game"], arr["round"], players,
                 arr["rerolls"], arr["outcome"], arr["power"], arr["seconds"], arr["guide"], comments, power_tallied)


# ---------------------------------------------------------------- the model's counts
def _cells(rules) -> int:
    """Rerolls 0 .. rules.rolls - 1 (a longer turn, after the Wolf square's bonus or a first-turn
    extra roll, counts in the last) times 3 outcomes."""
    return max(int(rules.rolls), 1) * 3


def cell_of(rules, rerolls: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    top = max(int(rules.rolls), 1) - 1
    return np.minimum(rerolls, top) * 3 + outcome


def _turn_counts(rules, strategy: str, guide: int, n: int, seed: int) -> np.ndarray:
    from ..simulation import simulate_turns

    out = simulate_turns(rules, n, seed, strategy, guide)
    outcome = np.where(out[:, 0] == 1, 2, np.where(out[:, 0] >= 2, 1, 0))  # a Lion's rescue: an Angoisse
    cells = cell_of(rules, out[:, 2] - 1, outcome)
    return np.bincount(cells, minlength=_cells(rules)).astype(np.float64)


@lru_cache(maxsize=4096)
def _model(rules_key: str, temp: float, caution: float, forget: float, n_ready: int, n_exhausted: int,
           seed: int) -> np.ndarray:
    """float64[8, cells]: row g (0..6) the frequencies of a turn of guide g's holder, row 7 of a
    holder of any guide (the seven dealt alike); each a mix of READY_SHARE ready turns and the
    rest with the guide exhausted (every power disabled)."""
    from ..interrupt import check
    from ..strategies.human import NAME

    rules, exhausted = _RULES[rules_key]
    s = f"{NAME}:temp={temp!r};caution={caution!r};forget={forget!r}"
    out = np.zeros((8, _cells(rules)))
    by_guide = bool(rules.guides)
    ex = None
    for g in range(7):
        check()
        ready = _turn_counts(rules, s, g, n_ready, seed)
        if ex is None or by_guide:
            ex = _turn_counts(exhausted, s, g, n_exhausted, seed + 1)
        out[g] = READY_SHARE * ready / ready.sum() + (1 - READY_SHARE) * ex / ex.sum()
    out[7] = out[:7].mean(axis=0)
    return out


_RULES: dict[str, tuple] = {}


def _key(rules) -> str:
    from ..animals import NAMES

    k = rules.digest()
    if k not in _RULES:
        _RULES[k] = (rules, rules.replace(disabled_powers=tuple(range(len(NAMES)))))
    return k


def model(rules, temp, caution, forget=FORGET, n_ready=N_READY, n_exhausted=N_EXHAUSTED, seed=SEED) -> np.ndarray:
    """The model's cell frequencies (see :func:`_model`)."""
    return _model(_key(rules), float(temp), float(caution), float(forget), n_ready, n_exhausted, seed)


def _counts(rules, t: Tally, sel: np.ndarray) -> np.ndarray:
    """int[8, cells]: the tallied turns by guide written (row 7: no guide written) and cell."""
    cells = cell_of(rules, t.rerolls[sel], t.outcome[sel])
    g = np.where(t.guide[sel] < 0, 7, t.guide[sel])
    out = np.zeros((8, _cells(rules)))
    np.add.at(out, (g, cells), 1)
    return out


def log_likelihood(counts: np.ndarray, freq: np.ndarray, n_sim: int) -> float:
    """Σ counts · log p, p smoothed (+0.5 a cell over the simulated turns: a cell no simulated turn
    reached is unlikely, not impossible)."""
    k = freq.shape[1]
    p = (freq * n_sim + 0.5) / (n_sim + 0.5 * k)
    return float((counts * np.log(p)).sum())


def _vertex(xs, ys, i) -> tuple[float, float]:
    """(x, y) of the top of the parabola through points i - 1, i, i + 1 (kept between them and
    never below point i); point i itself at an end or where the parabola opens upwards."""
    if not 0 < i < len(xs) - 1:
        return xs[i], ys[i]
    x0, x1, x2 = xs[i - 1], xs[i], xs[i + 1]
    y0, y1, y2 = ys[i - 1], ys[i], ys[i + 1]
    den = (x0 - x1) * (x0 - x2) * (x1 - x2)
    a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / den
    b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / den
    if not a < 0:
        return x1, y1
    x = min(max(-b / (2 * a), x0), x2)
    c = y1 - a * x1 * x1 - b * x1
    return x, max(a * x * x + b * x + c, y1)


def profile(rules, counts, *, temps=TEMPS, cautions=CAUTIONS, step=STEP, **kw) -> dict[float, tuple]:
    """{caution: (log-likelihood, temp)}, the log-likelihood maximised over the temperature (the
    top of the parabola through the best of ``temps`` and its neighbours): the first grid, then
    every multiple of ``step`` between the first grid's points around those within 4 × 1.92 of
    its maximum (temperature and caution trade off along a ridge: the profile may have two tops,
    so the whole region is filled, not only the top's neighbourhood)."""
    n_sim = kw.get("n_ready", N_READY) + kw.get("n_exhausted", N_EXHAUSTED)

    def ll_at(tp, c):
        return log_likelihood(counts, model(rules, tp, c, **kw), n_sim)

    def at(c, guess):
        """Hill-climb the temperatures from ``guess`` (an index into ``temps``) to a top."""
        got = {guess: ll_at(temps[guess], c)}
        i = guess
        while True:
            for j in (i - 1, i + 1):
                if 0 <= j < len(temps) and j not in got:
                    got[j] = ll_at(temps[j], c)
            best = max(got, key=got.get)
            if best == i:
                break
            i = best
        lls = [got.get(j, -math.inf) for j in range(len(temps))]
        x, y = _vertex(list(temps), lls, i) if all(math.isfinite(lls[j]) for j in (i - 1, i + 1)
                                                   if 0 <= j < len(temps)) else (temps[i], lls[i])
        return y, x, i

    prof: dict[float, tuple] = {}
    guess = {}

    def fill(c):
        near = min(guess, key=lambda k: abs(k - c)) if guess else None
        y, x, i = at(c, guess[near] if near is not None else temps.index(0.8) if 0.8 in temps else len(temps) // 2)
        prof[c] = (y, x)
        guess[c] = i

    for c in sorted(cautions, key=lambda c: abs(c - 0.8)):
        fill(float(c))
    cs = sorted(prof)
    top = max(v[0] for v in prof.values())
    near = [j for j, c in enumerate(cs) if prof[c][0] >= top - 4 * LEVEL_DROP]
    lo, hi = cs[max(near[0] - 1, 0)], cs[min(near[-1] + 1, len(cs) - 1)]
    lo, hi = max(lo, -4.0), min(hi, 5.0)  # a bolder player rerolls whenever it may: the first grid says it
    for k in range(int(math.floor(lo / step)), int(math.ceil(hi / step)) + 1):
        c = round(k * step, 6)
        if c not in prof:
            fill(c)
    return dict(sorted(prof.items()))


def interval(prof: dict[float, tuple]) -> tuple[float, float, float, bool, bool]:
    """(estimate, low, high, low at the grid's end, high at the grid's end): the top of the
    profile (a parabola through the best point and its neighbours) and the outermost cautions
    where it crosses its maximum − 1.92 (linear between grid points)."""
    cs = np.array(list(prof))
    ll = np.array([v[0] for v in prof.values()])
    i = int(np.argmax(ll))
    cut = ll[i] - LEVEL_DROP
    est = float(_vertex(list(cs), list(ll), i)[0])
    above = np.flatnonzero(ll >= cut)  # the hull of every caution above the cut (two tops: both)
    a, b = int(above[0]), int(above[-1])
    if a == 0:
        lo, lo_edge = float(cs[0]), True
    else:
        lo, lo_edge = float(cs[a - 1] + (cs[a] - cs[a - 1]) * (cut - ll[a - 1]) / (ll[a] - ll[a - 1])), False
    if b == len(cs) - 1:
        hi, hi_edge = float(cs[-1]), True
    else:
        hi, hi_edge = float(cs[b] + (cs[b + 1] - cs[b]) * (ll[b] - cut) / (ll[b] - ll[b + 1])), False
    return est, lo, hi, lo_edge, hi_edge


# ---------------------------------------------------------------- the fit
def seconds_per_turn(sec: np.ndarray) -> dict | None:
    """Mean and Student t 95 % interval of the timed turns (None when none is timed)."""
    s = sec[~np.isnan(sec)]
    if len(s) == 0:
        return None
    mean = float(s.mean())
    if len(s) < 2:
        return {"mean": mean, "low": None, "high": None, "median": float(np.median(s)), "sd": None,
                "turns": int(len(s))}
    from scipy.stats import t as student

    sd = float(s.std(ddof=1))
    h = float(student.ppf(0.975, len(s) - 1)) * sd / math.sqrt(len(s))
    return {"mean": mean, "low": mean - h, "high": mean + h, "median": float(np.median(s)), "sd": sd,
            "turns": int(len(s))}


def rungs() -> dict[str, dict]:
    from ..strategies.human import RUNGS, STYLES

    out = {name: dict(v) for name, v in {**RUNGS, **STYLES}.items()}
    out["expert"] = {"temp": 0.0, "caution": 0.0, "forget": 0.0}
    return out


def player_rows(players, count: int, player: str | None, source: str, none: str = "") -> tuple[list[str], np.ndarray]:
    """The players named in a log's or tally's ``players`` column (sorted) and which of its ``count``
    rows ``--player`` keeps (all when None); a name not in the column is one error line that
    names ``source`` ("the tally's") and the names allowed (``none`` when there are none)."""
    names = sorted(set(players))
    rows = np.ones(count, dtype=bool)
    if player is not None:
        rows = np.array([p == player for p in players])
        if not rows.any():
            raise HeronSimError(f"--player: {player!r} is not in {source} player column; "
                                f"allowed: {', '.join(repr(n) for n in names) or none}")
    return names, rows


def fit_tally(paths, rules, player: str | None = None) -> dict:
    """Fit the risk appetite and the seconds per turn to tally sheets: the ``--json`` document of
    ``heron-sim calibrate TALLY.csv``."""
    t = read_tally(paths, rules)
    names, sel = player_rows(t.player, len(t), player, "the tally's")
    counts = _counts(rules, t, sel)
    n = int(sel.sum())
    prof = profile(rules, counts)
    est, lo, hi, lo_edge, hi_edge = interval(prof)
    best_temp = prof[min(prof, key=lambda c: abs(c - est))][1]
    n_sim = N_READY + N_EXHAUSTED
    obs = counts.sum(axis=0) / n
    by_rung = {}
    for name, th in rungs().items():
        f = model(rules, th["temp"], th["caution"], th["forget"])
        freq = (counts.sum(axis=1)[:, None] * f).sum(axis=0) / n  # the tally's guides, each its own
        by_rung[name] = {"log_likelihood": log_likelihood(counts, f, n_sim),
                         "concordance": float(np.minimum(obs, freq).sum()),
                         "caution": th["caution"], "temp": th["temp"]}
    nearest = max(by_rung, key=lambda k: by_rung[k]["log_likelihood"])
    games = {(int(f), int(g)) for f, g in zip(t.file[sel], t.game[sel])}
    half = (hi - lo) / 2
    sec = seconds_per_turn(t.seconds[sel])
    per_game = n / max(len(games), 1)
    need = {"caution": _needed(n, half, USEFUL["caution"], per_game, lo_edge or hi_edge)}
    if sec is not None and sec["sd"] is not None:
        need["seconds"] = _needed(sec["turns"], (sec["high"] - sec["low"]) / 2, USEFUL["seconds"],
                                  sec["turns"] / max(len(games), 1), False)
    cells = [f"{r}:{OUTCOME_NAMES[o]}" for r in range(max(int(rules.rolls), 1)) for o in range(3)]
    ppg = _players_per_game(t, sel)
    doc = {
        "kind": "tally",
        "files": t.paths,
        "mode": rules.mode,
        "rules": rules.digest(),
        "player": player,
        "players_in_tally": names,
        "turns": n,
        "games": len(games),
        "players_per_game": ppg,
        "fits": ["caution", "seconds_per_turn"],
        "does_not_fit": ["temp", "forget", "kept dice", "power targets"],
        "estimates": {"caution": {"estimate": est, "low": lo, "high": hi, "low_at_grid_end": lo_edge,
                                  "high_at_grid_end": hi_edge},
                      "temp": None, "forget": None},
        "temp_of_the_best_fit": best_temp,
        "forget_assumed": FORGET,
        "interval": "95 % profile likelihood (temp profiled over " + ", ".join(map(str, TEMPS)) + ")",
        "profile": {str(c): v[0] for c, v in prof.items()},
        "cells": cells,
        "observed": {c: int(x) for c, x in zip(cells, counts.sum(axis=0))},
        "rungs": by_rung,
        "nearest_rung": nearest,
        "power_use_rate": (float(t.power[sel].mean()) if t.power_tallied else None),
        "seconds_per_turn": sec,
        "needed": need,
    }
    doc["length"] = length(rules, ppg, nearest, None if sec is None else sec["mean"])
    return doc


def _players_per_game(t: Tally, sel) -> int | None:
    per: dict[tuple, set] = {}
    for f, g, p in zip(t.file[sel], t.game[sel], np.asarray(t.player, dtype=object)[sel]):
        per.setdefault((int(f), int(g)), set()).add(p)
    if not per:
        return None
    sizes = [len(v) for v in per.values()]
    return int(max(set(sizes), key=sizes.count))


def _needed(n: int, half: float, target: float, per_game: float, open_ended: bool) -> dict:
    """Turns (and games of this tally's size) for a 95 % interval of half-width ``target``: the
    width shrinks as 1/√turns."""
    if open_ended or not (half > 0) or not math.isfinite(half):
        return {"half_width": half, "target": target, "turns": None, "games": None}
    turns = n * (half / target) ** 2
    return {"half_width": half, "target": target, "turns": int(math.ceil(turns)),
            "games": int(math.ceil(turns / per_game)) if per_game > 0 else None}


# ---------------------------------------------------------------- the length verdict
#: games played to measure a game's rounds for the length verdict (the mean to about ±0.2 round)
LENGTH_GAMES = 1000


@lru_cache(maxsize=64)
def _rounds(rules_key: str, players: int, strategy: str) -> float:
    from ..simulation import simulate

    rules = _RULES[rules_key][0]
    if players != rules.players:
        rules = rules.replace(players=players)
    df = simulate(rules, LENGTH_GAMES, 1, strategy)
    done = df["finished"].to_numpy(bool)
    return float(df["rounds"].to_numpy(float)[done].mean()) if done.any() else math.nan


def length(rules, players: int | None, strategy: str, seconds: float | None) -> dict | None:
    """What the seconds per turn measured change in the length verdict: a game of ``players``
    players of ``strategy`` (``LENGTH_GAMES`` games, seed 1) in minutes at the seconds measured
    and at the targets' ``seconds_per_turn`` (40 s assumed until a timed playtest), each against
    the length target at that count (experiments/targets.toml)."""
    if seconds is None or not math.isfinite(seconds):
        return None
    from ..analysis.targets import load_targets

    targets = load_targets()
    players = players if players is not None and 2 <= players <= 7 else rules.players
    rounds = _rounds(_key(rules), int(players), strategy)
    spt = float(targets["seconds_per_turn"])
    lo, hi = targets.minutes(int(players)) if int(players) in targets["length_minutes"] else (math.nan, math.nan)

    def verdict(m):
        return "within" if lo <= m <= hi else ("too long" if m > hi else "too short") if math.isfinite(lo) else None

    now, before = rounds * players * seconds / 60, rounds * players * spt / 60
    return {"players": int(players), "strategy": strategy, "rounds": rounds, "games": LENGTH_GAMES,
            "seconds_per_turn": seconds, "minutes": now, "targets_seconds_per_turn": spt,
            "targets_seconds_assumed": bool(targets.assumed("seconds_per_turn")),
            "minutes_at_targets_seconds": before, "target_minutes": [lo, hi],
            "verdict": verdict(now), "verdict_at_targets_seconds": verdict(before)}


# ---------------------------------------------------------------- tallies of known players
def tally_text(rules, strategy: str, turns: int, seed: int, players: int = 4, *, seconds: float | None = None,
               guide_column: bool = False) -> str:
    """A tally sheet (CSV text) of ``turns`` turns of ``strategy``, drawn from the model's own
    mix (ready and exhausted guides, the guides dealt alike): games of ``players`` players,
    rounds in order. ``seconds``: each turn timed, drawn from a gamma law of that mean (shape 4)."""
    from ..animals import NAMES
    from ..simulation import simulate_turns

    rng = np.random.default_rng(seed)
    _, exhausted = _RULES[_key(rules)]
    guides = rng.integers(0, 7, turns)
    ready = rng.random(turns) < READY_SHARE
    rows = ["game,round,player,rerolls,outcome,seconds" + (",guide" if guide_column else "")]
    pools = {}
    for g in range(7):
        for r, rr in ((True, rules), (False, exhausted)):
            k = int(((guides == g) & (ready == r)).sum())
            if k:
                out = simulate_turns(rr, k, seed * 16 + g * 2 + int(r) + 1, strategy, g)
                pools[(g, r)] = iter(out)
    per_round = players
    for i in range(turns):
        o = next(pools[(int(guides[i]), bool(ready[i]))])
        outcome = 2 if o[0] == 1 else (1 if o[0] >= 2 else 0)
        sec = "" if seconds is None else f"{rng.gamma(4.0, seconds / 4.0):.0f}"
        game, k = divmod(i, 30 * per_round)
        rows.append(f"{game + 1},{k // per_round + 1},P{k % per_round + 1},{int(o[2]) - 1},{OUTCOME_NAMES[outcome]},"
                    f"{sec}" + (f",{NAMES[int(guides[i])]}" if guide_column else ""))
    return "\n".join(rows) + "\n"


__all__ = ["COLUMNS", "REQUIRED", "Tally", "read_tally", "fit_tally", "kind_of", "tally_text", "model",
           "profile", "interval", "seconds_per_turn"]
