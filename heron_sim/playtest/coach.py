"""The coach: a logged game's keep-or-stop decisions one by one, each option's chance of winning as
the champion values it, the choice taken and what it cost (issue 59 item 3; ``heron-sim coach``),
and a log's biggest losses (``heron-sim calibrate``'s « biggest mistakes »).

Every figure comes from heron_sim.playtest.chances (the champion's own valuation), the dice the
champion's reroll keeps too (its best keep by chance of winning, ``C_KEEP``). A decision is
one dict (:func:`decisions`), words in French or English (:func:`line`).
"""

from __future__ import annotations

import numpy as np

from ..animals import NAMES as ANIMALS
from ..errors import HeronSimError
from .chances import C_BEST, C_FLAG, C_KEEP, C_LOGGED, C_REROLL, C_STOP, VALUED

#: every English text the words use: fr.po holds their French (tests/test_coach.py)
MESSAGES = (
    "Turn {turn}, seat {seat} (square {square}, roll {roll}): {dice}. Stop: {stop}; reroll as the champion, {keeping}: {reroll}; chosen: {chosen}, {got} (loses {loss} {u}).",
    "Turn {turn}, seat {seat} (square {square}, roll {roll}): {dice}. Stop: {stop}; reroll as the champion, {keeping}: {reroll}; chosen: {chosen}, {got} (as the champion).",
    "Turn {turn}, seat {seat} (square {square}, roll {roll}): {dice}. Stop: {stop}; reroll as the champion, {keeping}: {reroll}; chosen: {chosen}, {got} (gains {loss} {u} on the champion's choice).",
    "stop",
    "reroll {keeping}",
    "keeping {dice}",
    "keeping nothing",
    "line {n}",
    "Seat {seat} ({player}): {n} decisions to reroll or stop, {loss} {u} of winning chance lost per decision on average, as the champion in {agree}.",
    "Game {game}: {n} decisions to reroll or stop valued in chances of winning (the other players valued as {who}: --opponents).",
    "The decisions that cost the most winning chance:",
)


def _(msgid: str, lang: str) -> str:
    from ..i18n import gettext

    return gettext(msgid, lang)


def _pct(x: float, lang: str) -> str:
    from ..i18n import NBSP, number

    return number(100 * x, 1, lang) + NBSP + "%"


def _unit(points: float, lang: str) -> str:
    """« point » below 2 in French (0,4 point), "points" in English but for exactly 1."""
    if lang == "fr":
        return "point" if abs(points) < 2 else "points"
    return "point" if round(abs(points), 1) == 1 else "points"


def _kept_names(state_row, mask: int) -> list[str]:
    from .values import S_FACE, S_NDICE

    return [ANIMALS[int(state_row[S_FACE + i])] for i in range(int(state_row[S_NDICE])) if (mask >> i) & 1]


def decisions(log, values: np.ndarray, rows: np.ndarray | None = None) -> list[dict]:
    """One dict a valued keep-or-stop decision of ``log`` (``values``: heron_sim.playtest.chances
    .log_chances, the dice the champion's reroll keeps among them), in the log's order; ``rows``:
    those to take."""
    from .values import S_ROLL

    sel = np.flatnonzero(values[:, C_FLAG] == VALUED)
    if rows is not None:
        sel = sel[np.isin(sel, rows)]
    dice_text = _dice_text(log)
    out = []
    for i in sel:
        st = log.state[i]
        chosen_keep = _kept_names(st, int(log.kept[i])) if log.choice[i] == 1 else None
        out.append({
            "line": int(log.lines[i]), "game": int(log.game[i]), "turn": int(log.turn[i]), "seat": int(log.seat[i]),
            "player": log.player[i], "square": int(log.squares[i, log.seat[i]]), "roll": int(st[S_ROLL]),
            "dice": dice_text[i],
            "stop": float(values[i, C_STOP]), "reroll": float(values[i, C_REROLL]),
            "champion_keeps": _kept_names(st, int(values[i, C_KEEP])),
            "champion_rerolls": bool(values[i, C_REROLL] > values[i, C_STOP] + 1e-12),
            "chosen": "reroll" if log.choice[i] == 1 else "stop", "chosen_keeps": chosen_keep,
            "chosen_chance": float(values[i, C_LOGGED]),
            "loss_points": float(100 * (values[i, C_BEST] - values[i, C_LOGGED])),
        })
    return out


def _dice_text(log) -> list[str]:
    """The dice of each row as the log writes them (heron_sim.playtest.log.die_token)."""
    from .log import die_token
    from .values import S_FACE, S_FRESH, S_NDICE, S_STATUS

    return [" ".join(die_token(int(st[S_FACE + i]), int(st[S_STATUS + i]), int(st[S_FRESH + i]))
                     for i in range(int(st[S_NDICE]))) for st in log.state]


def _dice_words(text: str, lang: str) -> str:
    """The dice as the log writes them (``heron`` without its accent: a log's token), in French
    the game's word: « héron »."""
    import re

    return re.sub(r"\bheron\b", "héron", text) if lang == "fr" else text


def _keeping(names: list[str], lang: str) -> str:
    """« en gardant cerf cerf », « sans rien garder » / "keeping cerf cerf", "keeping nothing"."""
    if not names:
        return _("keeping nothing", lang)
    return _("keeping {dice}", lang).format(dice=_dice_words(" ".join(names), lang))


def player_words(name: str, lang: str, article: bool = False) -> str:
    """A logged player's name in French: a strategy's in the lab's words (« joueur occasionnel »,
    « robot coureur »; with ``article``: « le robot coureur »), any other name (« Ana », a
    ``human:…`` player) as it is; in English the name as it is (the strategy's, « racer »)."""
    from ..glossary import PLAYER_WORDS

    words = PLAYER_WORDS["fr"].get(name) if lang == "fr" else None
    return name if words is None else ("le " if article else "") + words[0]


def line(d: dict, lang: str = "fr", with_line: bool = False) -> str:
    """One decision in words."""
    from ..i18n import number

    chosen = (_("stop", lang) if d["chosen"] == "stop" else
              _("reroll {keeping}", lang).format(keeping=_keeping(d["chosen_keeps"], lang)))
    loss = d["loss_points"]
    if abs(loss) <= 1e-10:
        msg = ("Turn {turn}, seat {seat} (square {square}, roll {roll}): {dice}. Stop: {stop}; reroll as the champion, "
               "{keeping}: {reroll}; chosen: {chosen}, {got} (as the champion).")
    elif loss > 0:
        msg = ("Turn {turn}, seat {seat} (square {square}, roll {roll}): {dice}. Stop: {stop}; reroll as the champion, "
               "{keeping}: {reroll}; chosen: {chosen}, {got} (loses {loss} {u}).")
    else:
        msg = ("Turn {turn}, seat {seat} (square {square}, roll {roll}): {dice}. Stop: {stop}; reroll as the champion, "
               "{keeping}: {reroll}; chosen: {chosen}, {got} (gains {loss} {u} on the champion's choice).")
    text = _(msg, lang).format(turn=d["turn"], seat=d["seat"] + 1, square=d["square"], roll=d["roll"],
                               dice=_dice_words(d["dice"], lang), stop=_pct(d["stop"], lang),
                               keeping=_keeping(d["champion_keeps"], lang), reroll=_pct(d["reroll"], lang), chosen=chosen,
                               got=_pct(d["chosen_chance"], lang), loss=number(abs(loss), 1, lang),
                               u=_unit(loss, lang))
    if with_line:
        text = _("line {n}", lang).format(n=d["line"]) + " — " + text
    return text


def biggest(found: list[dict], n: int = 5) -> list[dict]:
    """The ``n`` decisions that lost the most winning chance (a loss above 0), largest first (the
    log's order between equal losses)."""
    lossy = [d for d in found if d["loss_points"] > 1e-10]
    return sorted(lossy, key=lambda d: -d["loss_points"])[:n]


def coach(path, rules, game: int | None = None, seat: int | None = None, opponents: str = "regular") -> dict:
    """A log's game (its first game if ``game`` is None) decision by decision: the ``--json`` of
    ``heron-sim coach``. Needs the table's columns (docs/calibrate.md)."""
    from ..strategies import parse_strategy
    from .chances import log_chances
    from .log import read_log

    parse_strategy(opponents)  # an unknown name is one line, before any work
    log = read_log(path, rules)
    if log.table_players is None or not (log.table_players > 0).any():
        raise HeronSimError(f"{path}: the log does not record the table (columns squares, guides, guides_ready: "
                            "docs/calibrate.md; simulate --log-turns writes them): the coach values each option "
                            "in chances of winning from it")
    games = sorted(set(log.game.tolist()))
    if game is None:
        game = games[0]
    elif game not in set(games):
        shown = ", ".join(str(g) for g in games[:10]) + (" ..." if len(games) > 10 else "")
        raise HeronSimError(f"--game: {game} is not in {path}; allowed: {shown}")
    rows = np.flatnonzero(log.game == game)
    if seat is not None:
        if seat not in set(log.seat[rows].tolist()):
            raise HeronSimError(f"--seat: {seat} has no decision in game {game}; allowed: "
                                f"{', '.join(str(s) for s in sorted(set(log.seat[rows].tolist())))}")
        rows = rows[log.seat[rows] == seat]
    sub = _take(log, rows)
    found = decisions(sub, log_chances(sub, rules, opponents))
    seats = {}
    for d in found:
        s = seats.setdefault(d["seat"], {"seat": d["seat"], "player": d["player"], "decisions": 0, "loss_points": 0.0,
                                          "as_champion": 0})
        s["decisions"] += 1
        s["loss_points"] += d["loss_points"]
        s["as_champion"] += abs(d["loss_points"]) <= 1e-10
    for s in seats.values():
        s["mean_loss_points"] = s.pop("loss_points") / s["decisions"]
    return {"log": str(path), "game": int(game), "opponents": opponents, "rules": rules.digest(), "mode": rules.mode,
            "decisions": found, "seats": [seats[k] for k in sorted(seats)],
            "unit": "points of winning chance (100 x chance), as the champion values them"}


def _take(log, rows: np.ndarray):
    """The log restricted to ``rows`` (a copy of its arrays)."""
    import dataclasses

    out = {}
    for f in dataclasses.fields(log):
        v = getattr(log, f.name)
        if isinstance(v, np.ndarray):
            out[f.name] = v[rows]
        elif f.name == "player":
            out[f.name] = [v[i] for i in rows]
        else:
            out[f.name] = v
    return type(log)(**out)


def words(doc: dict, lang: str = "fr", who: str | None = None) -> str:
    """:func:`coach`'s game in words: a line a decision, then each seat's mean loss (``who``: the
    words for the players the others are valued as; their strategy's name by default)."""
    from ..i18n import counted, number

    who = who or player_words(doc["opponents"], lang, True)
    out = [_("Game {game}: {n} decisions to reroll or stop valued in chances of winning (the other players valued as "
             "{who}: --opponents).", lang).format(game=doc["game"], n=number(len(doc["decisions"]), 0, lang), who=who)]
    out += [line(d, lang) for d in doc["decisions"]]
    for s in doc["seats"]:
        m = s["mean_loss_points"]
        out.append(_("Seat {seat} ({player}): {n} decisions to reroll or stop, {loss} {u} of winning chance lost per "
                     "decision on average, as the champion in {agree}.", lang).format(
            seat=s["seat"] + 1, player=player_words(s["player"], lang) if s["player"] else "—", n=number(s["decisions"], 0, lang), loss=number(m, 2, lang), u=_unit(m, lang),
            agree=_pct(s["as_champion"] / s["decisions"], lang)))
    return counted("\n".join(out), lang)  # « 1 décision »: the singular below 2


__all__ = ["MESSAGES", "decisions", "line", "biggest", "coach", "player_words", "words"]
