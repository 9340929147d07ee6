"""A lighter game's verdict (issue 34 item 2), as the Héron report has one: what is wrong, largest
first, against the designer's targets for the game (``[game.NAME]`` of experiments/targets.toml,
:class:`~heron_sim.analysis.targets.GameTargets`), what is fine, what is not settled, and what to
change. Pure functions of small frames (tested on synthetic ones); the games kind builds the
frames from its panels of players, the report renders the result at the top of the game's page.

A finding is the game's only when it holds with every panel of players (each real player alone,
the two mixed): a seat or a length beyond its target in some panels only "depends on the
players", with every panel's figure. Every text is a message id of ``heron_sim/locale/fr.po``
(``lang="fr"`` gives the French; the numbers are written the French way).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..i18n import gettext, interval, number
from .intervals import wilson
from .judge import Problem, lower_bound_size, rank
from .targets import GameTargets

#: Every text of a verdict (the French catalogue has an entry for each; a test checks it).
MSGIDS = (
    "Games are shorter than the length target at {counts}, with every player tried: {listed}",
    "Games are longer than the length target at {counts}, with every player tried: {listed}",
    "Games are within the length target at {counts}, with every player tried: {listed}",
    "The length at {p} players against its target ({lo}–{hi} rounds): depends on the players",
    "The length at {p} players against its target ({lo}–{hi} rounds): beyond it with some players, not settled with "
    "the others",
    "The length at {p} players against its target ({lo}–{hi} rounds) is not settled by these games",
    "The length is not judged: the targets file gives this game no length in rounds ([game.{game}])",
    "The length at {p} players is not judged: the targets file gives no length at this player count",
    "{p} players {x} rounds (target {lo}–{hi})",
    "Seat {seat} wins more than a fair {fair} at {p} players, with every player tried: a property of the game",
    "Seat {seat} wins less than a fair {fair} at {p} players, with every player tried: a property of the game",
    "Seat {seat} against a fair {fair} at {p} players: depends on the players",
    "Seat {seat} against a fair {fair} at {p} players: beyond the margin with some players, not settled with the others",
    "Every seat wins within {margin} of a fair {fair} at {p} players, with every player tried",
    "The seats at {p} players are not settled by these games (the farthest from a fair {fair}: seat {seat})",
    "Games the round cap stops unfinished: above the ceiling of {ceiling} at {p} players, with every player tried",
    "Games the round cap stops unfinished: at most the ceiling of {ceiling} at {counts}, with every player tried",
    "Whether the round cap stops too many games at {p} players depends on the players or is not settled",
    "{p} players",
    "every player count ({a} to {b})",
    " and ",
    "rounds",
    "±{n} points",
    "±{n} point",
    "assumed: {what} (experiments/targets.toml, [game.{game}])",
    "the length target", "the seat-share margin", "the length margin", "the unfinished ceiling",
    "each figure's 95 % interval against the designer's targets for this game ({file}, [game.{game}]): {what}; "
    "a finding is the game's only when it holds with every panel of players ({panels})",
    "the length {length}",
    "no length target",
    "seat shares within {margin} of fair",
    "at most {ceiling} of games unfinished",
    "{n} of {m} targets are still assumed ({names}), and each verdict resting on one says so",
    "every target is set by the designer",
    "No study run yet for this game.",
    "What is wrong with the game, largest first",
    "Nothing measured here lies beyond its target.",
    "What is fine:",
    "Not settled by these games:",
    "What to change:",
    "Verdict",
    "× its margin",
)


def _sep(lang: str) -> str:
    """Between the items of a list: "; " (French typography: " ; ")."""
    return " ; " if lang == "fr" else "; "


def _colon(lang: str) -> str:
    return " : " if lang == "fr" else ": "


def _t(msgid: str, lang: str, **kw) -> str:
    assert msgid in MSGIDS, msgid  # every text is declared (and so translated)
    text = gettext(msgid, lang)
    return text.format(**kw) if kw else text


@dataclass
class GameVerdict:
    """A lighter game's verdict: its problems ranked (:func:`heron_sim.analysis.judge.rank`), the
    sentence saying what they are measured against, and what to change (heron_sim.report.game_change.what_to_change)."""

    game: str
    wrong: list[Problem] = field(default_factory=list)
    fine: list[Problem] = field(default_factory=list)
    open: list[Problem] = field(default_factory=list)
    basis: str = ""
    change: str = ""
    lang: str = "en"

    def words(self, msgid: str) -> str:
        """A heading of the verdict in its language."""
        return _t(msgid, self.lang)


# ---------------------------------------------------------------- figures in words
def _pct(x: float, lo: float, hi: float, lang: str, d: int = 1) -> str:
    return interval(100 * x, 100 * max(0.0, lo), 100 * min(1.0, hi), d, lang, suffix=" %")


def _share(x: float, lang: str) -> str:
    d = 0 if round(100 * x, 1).is_integer() else 1
    return number(100 * x, d, lang) + "\u00a0%"


def _margin(m: float, lang: str) -> str:
    pts = 100 * m
    return _t("±{n} point" if pts == 1 else "±{n} points", lang, n=number(pts, 0 if pts.is_integer() else 1, lang))


def _counts(ps: list[int], all_counts: list[int], lang: str) -> str:
    if len(ps) == len(all_counts) and len(ps) > 2:
        return _t("every player count ({a} to {b})", lang, a=ps[0], b=ps[-1])
    words = ", ".join(map(str, ps[:-1])) + (_t(" and ", lang) if len(ps) > 1 else "") + str(ps[-1])
    return _t("{p} players", lang, p=words)


def _panel_figs(rows: pd.DataFrame, lang: str, value="win_rate", low="low", high="high", n="games",
                share: bool = True) -> str:
    """Every panel's figure, "greedy 55.4 % [53.7, 57.2] (n = 3,000); wrecker …"."""
    parts = []
    for r in rows.itertuples():
        v, lo, hi = getattr(r, value), getattr(r, low), getattr(r, high)
        fig = _pct(v, lo, hi, lang) if share else interval(v, lo, hi, 2, lang) + " " + _t("rounds", lang)
        parts.append(f"{r.panel} {fig} (n = {number(int(getattr(r, n)), 0, lang)})")
    return _sep(lang).join(parts)


def _assumed(t: GameTargets, lang: str, *names: str) -> str:
    a = t.assumed(*names)
    if not a:
        return ""
    what = ", ".join(_t(t.items[k].key.label, lang) for k in a)
    return _t("assumed: {what} (experiments/targets.toml, [game.{game}])", lang, what=what, game=t.game)


# ---------------------------------------------------------------- the three kinds of finding
def agreement(states: list[str]) -> str:
    """What the panels' states of one finding (each "above", "below", "inside" or "open") say
    together: "above"/"below" (every panel beyond the margin the same way: the game's), "inside"
    (every panel within it: fine), "depends" (beyond in one panel, within it or beyond the other way
    in another), "some" (beyond in some panels, not settled in the others), or "open"."""
    st = set(states)
    if len(st) == 1 and states[0] in ("above", "below", "inside"):
        return states[0]
    beyond = st & {"above", "below"}
    if beyond and (len(beyond) == 2 or "inside" in st):
        return "depends"
    return "some" if beyond else "open"


def _length_state(r, lo_t: float, hi_t: float, mg: float) -> tuple[str, float]:
    """One panel's length against [lo_t, hi_t]: "below"/"above" with its size in margins (the whole
    interval more than one margin, ``mg`` × the bound, past the target), "inside" (the whole
    interval within the target widened by one margin), else "open"."""
    short = (lo_t - r.high) / (mg * lo_t) if r.high < lo_t else 0.0
    long_ = (r.low - hi_t) / (mg * hi_t) if r.low > hi_t else 0.0
    if short > 1:
        return "below", short
    if long_ > 1:
        return "above", long_
    if lo_t * (1 - mg) <= r.low and r.high <= hi_t * (1 + mg):
        return "inside", 0.0
    return "open", 0.0


def length_problems(lengths: pd.DataFrame, t: GameTargets, lang: str = "en", anchor: str = "") -> list[Problem]:
    """The length at each player count against ``length_rounds``. ``lengths``: one row per
    (panel, players) with ``mean``, ``low``, ``high`` (a 95 % interval, in rounds) and ``n`` (the
    finished games). A count is too short (long) when every panel's whole interval lies more than
    one length margin (``length_margin`` × the target's bound) below (above) the target; its size
    is the smallest over the panels, in margins; one problem per side, sized by its largest count;
    panels that disagree: "depends on the players" (:func:`agreement`)."""
    counts = sorted(int(p) for p in lengths["players"].unique())
    note = _assumed(t, lang, "length_rounds", "length_margin")
    if t["length_rounds"] is None:
        return [Problem(_t("The length is not judged: the targets file gives this game no length in rounds "
                           "([game.{game}])", lang, game=t.game), "", 0.0, anchor)]
    mg = t["length_margin"]
    out: list[Problem] = []
    side_of: dict[int, tuple[str, float]] = {}
    for p in counts:
        rows = lengths[lengths["players"] == p]
        target = t.rounds(p)
        figs = _panel_figs(rows, lang, "mean", "low", "high", "n", False)
        if target is None:
            out.append(Problem(_t("The length at {p} players is not judged: the targets file gives no length at this "
                                  "player count", lang, p=p), figs, 0.0, anchor))
            continue
        lo_t, hi_t = target
        judged = [_length_state(r, lo_t, hi_t, mg) for r in rows.itertuples()]
        a = agreement([j[0] for j in judged])
        span = {"p": p, "lo": number(lo_t, 0, lang), "hi": number(hi_t, 0, lang)}
        if a in ("above", "below", "inside"):
            side_of[p] = (a, min(j[1] for j in judged))
        elif a == "depends":
            out.append(Problem(_t("The length at {p} players against its target ({lo}–{hi} rounds): depends on the "
                                  "players", lang, **span), figs, 0.0, anchor, assumed=note))
        elif a == "some":
            out.append(Problem(_t("The length at {p} players against its target ({lo}–{hi} rounds): beyond it with some "
                                  "players, not settled with the others", lang, **span), figs, 0.0, anchor, assumed=note))
        else:
            out.append(Problem(_t("The length at {p} players against its target ({lo}–{hi} rounds) is not settled by "
                                  "these games", lang, **span), figs, 0.0, anchor, assumed=note))

    def spread(p):  # the panels' means at ``p`` players: "2.07" or "2.07–3.46"
        m = lengths[lengths["players"] == p]["mean"]
        a, b = number(float(m.min()), 2, lang), number(float(m.max()), 2, lang)
        return a if a == b else f"{a}–{b}"

    def listed(ps):
        return _sep(lang).join(_t("{p} players {x} rounds (target {lo}–{hi})", lang, p=p, x=spread(p),
                            lo=number(t.rounds(p)[0], 0, lang), hi=number(t.rounds(p)[1], 0, lang)) for p in ps)

    judged_counts = [p for p in counts if t.rounds(p) is not None]
    for side, msgid in (("below", "Games are shorter than the length target at {counts}, with every player tried: {listed}"),
                        ("above", "Games are longer than the length target at {counts}, with every player tried: {listed}"),
                        ("inside", "Games are within the length target at {counts}, with every player tried: {listed}")):
        ps = [p for p in counts if side_of.get(p, ("",))[0] == side]
        if not ps:
            continue
        top = max(ps, key=lambda p: side_of[p][1])
        rows = lengths[lengths["players"] == top]
        figure = _t('{p} players', lang, p=top) + _colon(lang) + _panel_figs(rows, lang, "mean", "low", "high", "n", False)
        out.append(Problem(_t(msgid, lang, counts=_counts(ps, judged_counts, lang), listed=listed(ps)), figure,
                           side_of[top][1], anchor, fine=side == "inside", assumed=note))
    return out


def _seat_state(r, margin: float) -> str:
    """One panel's seat: "above"/"below" (the whole interval beyond the margin, and Holm p < 0.05),
    "inside" (the whole interval within ±margin of fair), else "open"."""
    d, lo, hi = r.win_rate - r.fair, r.low - r.fair, r.high - r.fair
    if lower_bound_size(d, lo, hi, margin) > 1 and r.p_holm < 0.05:
        return "above" if d > 0 else "below"
    return "inside" if -margin <= lo and hi <= margin else "open"


def seat_problems(seats: pd.DataFrame, t: GameTargets, lang: str = "en", anchor: str = "") -> list[Problem]:
    """Each seat at each player count against its fair share ± ``share_margin``. ``seats``: rows
    of :func:`heron_sim.games.base.seat_rows` with a ``panel`` column (every panel of players, on
    the same seeds). A seat off fair the same way in every panel is the game's (its size: the
    smallest over the panels, in margins); off in some panels only, or in opposite ways, it
    "depends on the players", with each panel's figure; at 2 players the second seat mirrors the
    first and is not repeated."""
    mg = t["share_margin"]
    note = _assumed(t, lang, "share_margin")
    out: list[Problem] = []
    for p in sorted(int(x) for x in seats["players"].unique()):
        tp = seats[seats["players"] == p]
        fair = float(tp["fair"].iloc[0])
        fair_s = _share(fair, lang)
        found, states_all = [], []
        for s in sorted(int(x) for x in tp["seat"].unique()):
            rows = tp[tp["seat"] == s]
            states = [_seat_state(r, mg) for r in rows.itertuples()]
            states_all += states
            gap = float((rows["win_rate"] - rows["fair"]).abs().max())
            figs = _panel_figs(rows, lang)
            a = agreement(states)
            if a in ("above", "below"):
                size = min(lower_bound_size(r.win_rate - r.fair, r.low - r.fair, r.high - r.fair, mg)
                           for r in rows.itertuples())
                word = "more" if a == "above" else "less"
                found.append((gap, Problem(_t(f"Seat {{seat}} wins {word} than a fair {{fair}} at {{p}} players, with "
                                              "every player tried: a property of the game", lang,
                                              seat=s + 1, fair=fair_s, p=p), figs, size, anchor, assumed=note), a))
            elif a in ("depends", "some"):
                msgid = ("Seat {seat} against a fair {fair} at {p} players: depends on the players" if a == "depends" else
                         "Seat {seat} against a fair {fair} at {p} players: beyond the margin with some players, not "
                         "settled with the others")
                found.append((gap, Problem(_t(msgid, lang, seat=s + 1, fair=fair_s, p=p), figs, 0.0, anchor,
                                           assumed=note), a))
        if p == 2 and len(found) == 2:  # the second seat mirrors the first
            found = [max(found, key=lambda f: (f[2] == "above", f[0]))]
        if found:
            out += [pr for _, pr, _ in sorted(found, key=lambda f: -f[0])]
        elif all(s == "inside" for s in states_all):
            rows = tp[tp["seat"] == 0]
            out.append(Problem(_t("Every seat wins within {margin} of a fair {fair} at {p} players, with every player "
                                  "tried", lang, margin=_margin(mg, lang), fair=fair_s, p=p),
                               _panel_figs(rows, lang), 0.0, anchor, fine=True, assumed=note))
        else:
            far = int(tp.loc[(tp["win_rate"] - tp["fair"]).abs().idxmax(), "seat"])
            rows = tp[tp["seat"] == far]
            out.append(Problem(_t("The seats at {p} players are not settled by these games (the farthest from a fair "
                                  "{fair}: seat {seat})", lang, p=p, fair=fair_s, seat=far + 1),
                               _panel_figs(rows, lang), 0.0, anchor, assumed=note))
    return out


def unfinished_problems(lengths: pd.DataFrame, t: GameTargets, lang: str = "en", anchor: str = "") -> list[Problem]:
    """Games the round cap stops, against ``unfinished_ceiling``. ``lengths``: one row per
    (panel, players) with ``games`` and ``finished``. Too many at a count when every panel's
    Wilson interval lies above the ceiling (size: the smallest lower bound, in ceilings); fine
    where every panel's interval lies at or below it (one line for those counts)."""
    c = t["unfinished_ceiling"]
    note = _assumed(t, lang, "unfinished_ceiling")
    out, fine = [], []
    counts = sorted(int(x) for x in lengths["players"].unique())
    for p in counts:
        rows = lengths[lengths["players"] == p].copy()
        k = (rows["games"] - rows["finished"]).to_numpy(float)
        rate, lo, hi = wilson(k, rows["games"].to_numpy(float))
        rows = rows.assign(u=rate, ulo=lo, uhi=hi)
        figs = _panel_figs(rows, lang, "u", "ulo", "uhi", "games")
        if (lo > c).all():
            out.append(Problem(_t("Games the round cap stops unfinished: above the ceiling of {ceiling} at {p} players, "
                                  "with every player tried", lang, ceiling=_share(c, lang), p=p), figs,
                               float(lo.min() / c) if c > 0 else math.inf, anchor, assumed=note))
        elif (hi <= c).all():
            fine.append(p)
        else:
            out.append(Problem(_t("Whether the round cap stops too many games at {p} players depends on the players or "
                                  "is not settled", lang, p=p), figs, 0.0, anchor, assumed=note))
    if fine:
        rows = lengths[lengths["players"] == fine[0]]
        k = (rows["games"] - rows["finished"]).to_numpy(float)
        rate, lo, hi = wilson(k, rows["games"].to_numpy(float))
        out.append(Problem(_t("Games the round cap stops unfinished: at most the ceiling of {ceiling} at {counts}, with "
                              "every player tried", lang, ceiling=_share(c, lang), counts=_counts(fine, counts, lang)),
                           _t('{p} players', lang, p=fine[0]) + _colon(lang)
                           + _panel_figs(rows.assign(u=rate, ulo=lo, uhi=hi), lang, "u", "ulo", "uhi", "games"),
                           0.0, anchor, fine=True, assumed=note))
    return out


# ---------------------------------------------------------------- the verdict
def basis(t: GameTargets, panels: list[str], lang: str = "en", file: str = "experiments/targets.toml") -> str:
    """What the verdict measures against, in one sentence, naming the assumed targets in words."""
    length = t["length_rounds"]
    if length is None:
        lw = _t("no length target", lang)
    else:
        spans = sorted({v for v in length.values()})
        lw = _t("the length {length}", lang, length=_sep(lang).join(
            f"{number(lo, 0, lang)}–{number(hi, 0, lang)} " + _t("rounds", lang)
            + ("" if len(spans) == 1 else f" ({', '.join(str(p) for p, v in length.items() if v == (lo, hi))})")
            for lo, hi in spans))
    what = ", ".join([lw, _t("seat shares within {margin} of fair", lang, margin=_margin(t["share_margin"], lang)),
                      _t("at most {ceiling} of games unfinished", lang, ceiling=_share(t["unfinished_ceiling"], lang))])
    a = t.assumed()
    tail = (_t("{n} of {m} targets are still assumed ({names}), and each verdict resting on one says so", lang,
               n=len(a), m=len(t.items), names=", ".join(_t(t.items[k].key.label, lang) for k in a))
            if a else _t("every target is set by the designer", lang))
    return (_t("each figure's 95 % interval against the designer's targets for this game ({file}, [game.{game}]): {what}; "
               "a finding is the game's only when it holds with every panel of players ({panels})", lang,
               file=file, game=t.game, what=what, panels=", ".join(panels)) + _sep(lang) + tail)


def game_verdict(game: str, seats: pd.DataFrame, lengths: pd.DataFrame, t: GameTargets, panels: list[str],
                 lang: str = "en", anchors: dict[str, str] | None = None, change: str = "") -> GameVerdict:
    """A lighter game's verdict from its panels' seat rows (:func:`seat_problems`) and lengths in
    rounds (:func:`length_problems`, :func:`unfinished_problems`): what is wrong, largest first,
    what is fine, what is not settled (:func:`heron_sim.analysis.judge.rank`)."""
    a = anchors or {}
    probs = (length_problems(lengths, t, lang, a.get("length", "")) + seat_problems(seats, t, lang, a.get("seats", ""))
             + unfinished_problems(lengths, t, lang, a.get("length", "")))
    wrong, fine, open_ = rank(probs)
    return GameVerdict(game, wrong, fine, open_, basis(t, panels, lang), change or _t("No study run yet for this game.", lang),
                       lang)


__all__ = ["GameVerdict", "MSGIDS", "agreement", "basis", "game_verdict", "length_problems", "seat_problems",
           "unfinished_problems"]
