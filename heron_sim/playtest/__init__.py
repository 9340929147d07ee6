"""Playtest logs: write the turn log of simulated games, and fit the ``human`` family to a log.

- :func:`log_turns` / :func:`write_turn_log`: every turn decision of simulated games (any
  players, any rules) as the CSV log of docs/calibrate.md (``heron-sim simulate --log-turns``);
- :func:`calibrate`: ``temp``, ``caution`` and ``forget`` of ``human`` by maximum likelihood over
  a log's decisions, with 95 % profile likelihood intervals, the move-matching rate of the fit and
  of each rung, the seconds per turn (``heron-sim calibrate LOG.csv``).

The options of every logged decision are valued from the logged state with the expert's tables
of the rules played (heron_sim.playtest.values): a log holds only what the players saw and did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import HeronSimError


@dataclass
class TurnLog:
    """A log made by :func:`log_turns` (its text) or written by :func:`write_turn_log`."""

    games: int
    turns: int
    decisions: int
    interrupted: bool = False
    text: str = ""


def _logged(sink, rules, games, seed, strategies, *, first_game=0, max_turns=None, progress=None,
            stop=None, note=None) -> TurnLog:
    """Write the log's lines to ``sink(text)``, game by game."""
    from ..engine import layout as L
    from ..engine.pack import pack_rules
    from ..simulation import check_seed
    from ..strategies import parse_seating, seat_arrays
    from .log import COLUMNS, csv_lines, record_rows
    from .record import record_game

    check_seed(seed)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 0:
        raise HeronSimError(f"--games: {games}; allowed: a number of games >= 0")
    if max_turns is not None and max_turns < 1:
        raise HeronSimError(f"max_turns: {max_turns}; allowed: >= 1")
    seating = parse_seating(strategies, rules.players)
    sids, sp = seat_arrays(seating, rules)
    R = pack_rules(rules)
    width = L.n_columns(rules.finish)
    head = [
        "heron-sim turn log (docs/calibrate.md): one row per decision",
        note or "SIMULATED games (heron-sim simulate --log-turns), not a playtest",
        f"mode {rules.mode}, players {rules.players}, rules {rules.digest()}, seed {seed}, "
        f"games {first_game}..{first_game + games - 1} requested",
        "seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(seating)),
    ]
    sink("".join(f"# {c}\n" for c in head) + csv_lines([list(COLUMNS)]))
    turns = played = decisions = 0
    interrupted = False
    for g in range(first_game, first_game + games):
        if stop is not None and stop():
            interrupted = True
            break
        records, _ = record_game(seed, g, R, sids, sp, width)
        new = record_rows(records, g, seating, R, rules.n_dice)
        seen: set = set()
        kept = []
        for r in new:
            if r[1] not in seen:
                if max_turns is not None and turns + len(seen) >= max_turns:
                    break
                seen.add(r[1])
            kept.append(r)
        turns += len(seen)
        decisions += len(kept)
        sink(csv_lines(kept))
        played += 1
        if progress is not None:
            progress(1)
        if max_turns is not None and turns >= max_turns:
            break
    sink(f"# end: {played} games logged (games {first_game}..{first_game + played - 1}), {turns} turns with a "
         f"decision, {decisions} decisions{'; INTERRUPTED' if interrupted else ''}\n")
    return TurnLog(played, turns, decisions, interrupted)


def log_turns(rules, games: int, seed: int = 1, strategies: str | list[str] = "greedy", *,
              first_game: int = 0, max_turns: int | None = None,
              progress: Callable[[int], None] | None = None,
              stop: Callable[[], bool] | None = None, note: str | None = None) -> TurnLog:
    """The turn log (``.text``) of games ``first_game ..`` of stream ``seed`` (the games
    ``simulate`` plays with that seed), every seat recorded. ``max_turns``: stop once that many
    turns are logged (the last game cut there). ``stop()`` is read between games (a stopped log
    keeps the games logged and says so in its last comment)."""
    parts: list[str] = []
    out = _logged(parts.append, rules, games, seed, strategies, first_game=first_game,
                  max_turns=max_turns, progress=progress, stop=stop, note=note)
    out.text = "".join(parts)
    return out


def write_turn_log(path: str | Path, rules, games: int, seed: int = 1, strategies="greedy", **kw) -> TurnLog:
    """:func:`log_turns` streamed, game by game, into ``path`` (a ``.csv``), written atomically
    (a failure or an error leaves the old file)."""
    from ..io import atomic_path

    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            return _logged(fh.write, rules, games, seed, strategies, **kw)


def check_log_path(path: str | Path, field: str = "--log-turns") -> None:
    from ..io import check_output

    if Path(path).suffix.lower() != ".csv":
        raise HeronSimError(f"{field}: {path}: the turn log is a CSV file; allowed: a name ending in .csv")
    check_output(path, field)


def player_name(theta: dict) -> str:
    """The strategy name of a fitted parameter set (``;`` between a seat's parameters, as in a
    comma list of seats)."""
    return "human:" + ";".join(f"{p}={_short(theta[p])}" for p in ("temp", "caution", "forget"))


def _short(x: float) -> str:
    s = f"{x:.3g}"
    return s if "e" not in s else f"{x:.6f}".rstrip("0").rstrip(".")


def calibrate(path: str | Path, rules, player: str | None = None) -> dict:
    """Fit ``human``'s temp, caution and forget to the decisions of the log at ``path``.

    ``player``: only the rows of that ``player`` column value. Returns a plain dict (the JSON
    of ``heron-sim calibrate --json``). Under the command line's signal handlers
    (heron_sim.interrupt) a Ctrl-C stops it within a fraction of a second, reading, valuing or
    fitting: :class:`heron_sim.interrupt.Stopped` is raised (nothing is written), its
    ``stage`` the words of what it was doing ("reading the log", ...)."""
    from ..interrupt import Stopped

    stage = ["reading the log"]
    try:
        return _calibrate(path, rules, player, stage)
    except Stopped as err:
        err.stage = stage[0]
        raise


def _valued(rules, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The packed rules the fit reads and each logged decision's values (heron_sim.playtest.values).

    Under rules by guide each decision is valued on the expert's tables of the rules its
    player's guide plays (``Rules.turn_rows``), and the fit's constants are each read from the
    rules of the only guide whose holder meets that decision: the Lion's rescue against the
    Lion's consolation of an Anxiety, the Bull's bonus, the Serpent's advance, the Eagle's draws."""
    from ..animals import AIGLE, LION, SERPENT, TAUREAU
    from ..engine.layout import X_CONS_ANX, X_EAGLE_DRAWS
    from ..engine.pack import pack_rules
    from ..rules.rules import P_BULL_BONUS, P_SNAKE_ADVANCE
    from ..strategies import seat_arrays
    from .values import S_GUIDE, V_WIDTH, values

    sets, of = rules.turn_rows()
    if len(sets) == 1 and not rules.guides:
        R = pack_rules(rules)
        return R, values(R, seat_arrays(["expert"], rules)[1], state)
    packed = [pack_rules(rules.guide_rules(g)) for g in range(7)]
    R = pack_rules(rules.guide_rules(-1))  # the rules without rules by guide
    for slot, guide in ((X_CONS_ANX, LION), (P_BULL_BONUS, TAUREAU), (P_SNAKE_ADVANCE, SERPENT),
                        (X_EAGLE_DRAWS, AIGLE)):
        R[slot] = packed[guide][slot]
    vals = np.zeros((state.shape[0], V_WIDTH), dtype=np.float64)
    row_set = np.asarray(of)[state[:, S_GUIDE]]
    for k, rk in enumerate(sets):
        mine = row_set == k
        if mine.any():
            vals[mine] = values(pack_rules(rk), seat_arrays(["expert"], rk)[1], state[mine])
    return R, vals


def _calibrate(path, rules, player, stage: list) -> dict:
    from ..engine.pack import pack_rules
    from ..strategies import seat_arrays
    from ..strategies.human import RUNGS, STYLES
    from . import fit as F
    from .log import read_log
    from .tally import player_rows
    from .values import V_ACTION, V_B, V_C, V_FLAG, values

    log = read_log(path, rules)
    names, rows = player_rows(log.player, len(log), player, f"{log.path}'s", "none (no player column)")
    stage[0] = "valuing the logged decisions"
    R, vals = _valued(rules, log.state)
    from ..engine.layout import D_KEEP, D_POWER

    # a choice the rules did not allow is a log that does not fit its rules: one line
    flag = vals[:, V_FLAG]
    bad = rows & (((log.kind == D_KEEP) & (flag == 0) & (log.choice == 1))
                  | ((log.kind == D_POWER) & (flag == 0) & (log.choice == 1)))
    if bad.any():
        i = int(np.argmax(bad))
        what = ("a reroll where none is allowed (no roll left, no free die to reroll, or none newly kept)"
                if log.kind[i] == D_KEEP else "a power use where none is legal")
        raise HeronSimError(f"{log.path}: line {int(log.lines[i])}: choice: {what} under these rules "
                            f"({rules.mode}, {rules.rolls} rolls); pass the rules played with --rules/--mode")
    sel = rows
    d = F.build_data(log.kind[sel], log.choice[sel], log.nominal[sel], vals[sel], R)
    stage[0] = "fitting"
    estimates, ll = F.fit(d)
    stage[0] = "measuring the move matching"
    theta = {p: (e[0] if e is not None else 0.0) for p, e in estimates.items()}
    rungs = {name: dict(v) for name, v in {**RUNGS, **STYLES}.items()}  # the ladder, and the bold beginner
    rungs["expert"] = {"temp": 0.0, "caution": 0.0, "forget": 0.0}
    matching = {"fit": F.matching(theta, d)}
    for name, th in rungs.items():
        matching[name] = F.matching(th, d)
    # which dice a reroll keeps: not in the likelihood; the share that are the best reroll's
    k = sel & (log.kind == D_KEEP) & (flag == 1) & (log.choice == 1)
    kept_same = _same_keep(log.state[k], log.kept[k], vals[k, V_ACTION].astype(np.int64), R)
    p = sel & (log.kind == D_POWER) & (flag == 1) & (log.choice == 1)
    best_use = np.abs(vals[p, V_C] - vals[p, V_B]) <= 1e-9 * np.maximum(1.0, np.abs(vals[p, V_B]))
    turns = {(int(g), int(t)) for g, t in zip(log.game[sel], log.turn[sel])}
    doc = {
        "log": str(path),
        "mode": rules.mode,
        "rules": rules.digest(),
        "player": player,
        "players_in_log": names,
        "rows": int(sel.sum()),
        "games": int(len(set(log.game[sel].tolist()))),
        "turns": len(turns),
        "decisions": d.counts,
        "not_modelled": {
            "forced_stops": int((sel & (log.kind == D_KEEP) & (flag == 0)).sum()),
            "keeps_outside_the_tables": int((sel & (log.kind == D_KEEP) & (flag == 2)).sum()),
            "powers_without_a_legal_use": int((sel & (log.kind == D_POWER) & (flag == 0)).sum()),
        },
        "estimates": {p: (None if e is None else {"estimate": e[0], "low": e[1], "high": e[2]})
                      for p, e in estimates.items()},
        "interval": "95 % profile likelihood",
        "log_likelihood": ll,
        "strategy": player_name(theta),
        "move_matching": {name: m["rate"] for name, m in matching.items()},
        "move_matching_by_decision": {name: m["by_decision"] for name, m in matching.items()},
        "modelled_decisions": matching["fit"]["decisions"],
        "kept_dice_matching": {"rate": (float(kept_same.mean()) if len(kept_same) else None),
                               "rerolls": int(len(kept_same))},
        "power_target_matching": {"rate": (float(best_use.mean()) if len(best_use) else None),
                                  "uses": int(len(best_use))},
        "seconds_per_turn": _seconds(log, sel),
        "rules_of_log": _logged_rules(log.comments),
        "kind": "log",
    }
    from .tally import length

    ladder = {k: v for k, v in doc["move_matching"].items() if k != "fit" and v is not None}
    doc["nearest_rung"] = max(ladder, key=ladder.get) if ladder else None
    seats = {}
    for g, s in zip(log.game[sel].tolist(), log.seat[sel].tolist()):
        seats[g] = max(seats.get(g, 0), s + 1)
    sizes = list(seats.values())
    doc["players_per_game"] = max(set(sizes), key=sizes.count) if sizes else None
    stage[0] = "valuing the decisions in chances of winning"
    doc["loss_per_decision"], chances = _loss(log, rules, sel, doc["nearest_rung"], doc["players_per_game"])
    doc["biggest_losses"] = []
    if chances is not None:  # the playtester's biggest mistakes (heron_sim.playtest.coach)
        from .coach import biggest, decisions

        doc["biggest_losses"] = biggest(decisions(log, chances, np.flatnonzero(sel)), BIGGEST)
    spt = doc["seconds_per_turn"]
    stage[0] = "measuring the length at the seconds logged"
    doc["length"] = length(rules, doc["players_per_game"], doc["strategy"], None if spt is None else spt["mean"])
    return doc


#: The simulated games the nearest rung's own loss per decision is measured on (its seed, and
#: games enough that its interval is about as narrow as a 2,000-turn log's).
RUNG_LOSS_SEED, RUNG_LOSS_GAMES = 1, 100
#: How many of the costliest decisions calibrate lists.
BIGGEST = 5


def _loss(log, rules, sel, rung: str | None, players: int | None) -> tuple[dict, np.ndarray | None]:
    """The logged players' mean loss of winning chance per keep-or-stop decision against the
    champion (heron_sim.playtest.chances), with the other seats valued as the nearest rung, and
    that rung's own loss in simulated games at the same table, valued the same way. Where the log
    does not record the table (squares, guides, guides_ready), ``measured`` is False and ``why``
    says what is missing. Also returns the decisions' chances (heron_sim.playtest.chances; None
    where not measured)."""
    from .chances import log_chances, loss_of

    logged = log.table_players is not None and bool((log.table_players[sel] > 0).any())
    if not logged:
        return {"measured": False, "why": "no table"}, None
    if rules.guides:
        return {"measured": False, "why": "rules by guide"}, None
    kind = rung or "regular"
    chances = log_chances(log, rules, kind)
    loss = loss_of(chances, log.game, sel & (log.table_players > 0))
    if loss is None:
        return {"measured": False, "why": "no keep-or-stop decision"}, None
    sizes = log.table_players[sel & (log.table_players > 0)]
    p = int(np.bincount(sizes).argmax()) if players is None else int(players)
    r = rules.replace(players=p) if rules.players != p else rules
    from .log import read_log

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rung.csv"
        from ..interrupt import check  # Ctrl-C under the command line: between two games

        write_turn_log(path, r, RUNG_LOSS_GAMES, RUNG_LOSS_SEED, ",".join([kind] * p), progress=lambda _: check())
        own = read_log(path, r)
    ref = loss_of(log_chances(own, r, kind), own.game)
    return {"measured": True, "opponents": kind, **loss.as_dict(), "players": p,
            "rung": kind, "rung_loss": ref.as_dict(), "rung_games": RUNG_LOSS_GAMES, "rung_seed": RUNG_LOSS_SEED,
            "unit": "points of winning chance per keep-or-stop decision, against the champion",
            "interval": "95 %, the games as clusters"}, chances


def _logged_rules(comments: list[str]) -> str | None:
    """The rules' hash a simulated log names in its comments (``rules <hash>``), if any."""
    import re

    for c in comments:
        m = re.search(r"\brules ([0-9a-f]{12})\b", c)
        if m:
            return m.group(1)
    return None


def _same_keep(state, logged, best, R) -> np.ndarray:
    """Each logged reroll keeps the dice of the best reroll: the same dice (the same animals
    from interchangeable dice: identical dice, R_UNIFORM)."""
    from ..engine.layout import R_UNIFORM
    from .values import S_FACE

    if int(R[R_UNIFORM]) == 0:
        return logged == best
    from ..interrupt import check

    out = np.zeros(len(logged), dtype=bool)
    for j in range(len(logged)):
        if j % 4096 == 0:
            check()
        a = np.zeros(7, dtype=int)
        b = np.zeros(7, dtype=int)
        for i in range(16):
            if (int(logged[j]) >> i) & 1:
                a[state[j, S_FACE + i]] += 1
            if (int(best[j]) >> i) & 1:
                b[state[j, S_FACE + i]] += 1
        out[j] = bool((a == b).all())
    return out


def _seconds(log, sel) -> dict | None:
    """Seconds per turn: the sum of a turn's logged seconds, over the turns with some."""
    s = log.seconds[sel]
    have = ~np.isnan(s)
    if not have.any():
        return None
    from ..interrupt import check

    check()
    per: dict[tuple, float] = {}
    for g, t, x in zip(log.game[sel][have], log.turn[sel][have], s[have]):
        per[(int(g), int(t))] = per.get((int(g), int(t)), 0.0) + float(x)
    v = np.array(list(per.values()))
    return {"mean": float(v.mean()), "median": float(np.median(v)), "turns": int(len(v)),
            "rows_with_seconds": int(have.sum())}


def calibrate_files(paths, rules, player: str | None = None) -> dict:
    """:func:`calibrate` of a decision log, or :func:`heron_sim.playtest.tally.fit_tally` of
    tally sheets, told apart by their header (docs/playtest/): the ``--json`` document, whose
    ``kind`` is ``"log"`` or ``"tally"``. Several files are tally sheets (one per game, say); a
    decision log comes alone; a file named twice is refused."""
    import os

    from ..interrupt import Stopped
    from ..io import read_text
    from .tally import fit_tally, kind_of

    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not paths:
        raise HeronSimError("LOG.csv: no file given; allowed: a decision log, or one or more tally sheets")
    seen: dict = {}
    for p in paths:
        try:
            key = os.path.realpath(p)
        except OSError:
            key = str(p)
        if key in seen:
            raise HeronSimError(f"{p}: given twice (as {seen[key]} too); allowed: each file once")
        seen[key] = str(p)
    kinds = [kind_of(p, read_text(p, "LOG")) for p in paths]
    if "log" in kinds and len(paths) > 1:
        first = paths[kinds.index("log")]
        raise HeronSimError(f"{first}: a decision log comes alone (it was given with {len(paths) - 1} other "
                            "file(s)); allowed: one decision log, or one or more tally sheets")
    if kinds[0] == "log":
        return calibrate(paths[0], rules, player)
    stage = ["reading the tally"]
    try:
        return fit_tally(paths, rules, player)
    except Stopped as err:
        err.stage = stage[0]
        raise


__all__ = ["TurnLog", "log_turns", "write_turn_log", "calibrate", "calibrate_files", "player_name", "check_log_path"]
