"""Balance per rung of the skill ladder: the report's balance figures for novices, for regulars,
for experts (issue 28 item 5).

Not a kind: a kind with a ``rungs`` option (``guides``: ``rungs = ["novice", "casual",
"regular", "expert"]`` in its file) plays, for each mode, one batch of whole games per rung with
that rung alone at every seat (the kind's seed, players and rules: the same dice streams for every
rung), and :func:`fill_rungs` adds to its section the balance figures of each rung, with their
95 % intervals: the guides' win rates when dealt and the guide spread (the largest gap to the fair share, beside a perfectly fair game's
at the same n), each seat's win rate and the first player's advantage (Holm over the rungs),
Ludii's Balance, comebacks (the player last at mid-game wins) and the Étang's roller (in games
with exactly one Étang). :func:`rungs_row` answers "fair for novices, for experts?" on the
executive page; :func:`rung_problems` gives the verdict what is beyond its margin at a rung.

Facts: ``rungs.<rung>.spread.<mode>``, ``rungs.<rung>.spread_floor.<mode>``,
``rungs.<rung>.when_dealt.<mode>.<guide>``, ``rungs.<rung>.seat<s>.<mode>`` (seats from 1),
``rungs.<rung>.balance.<mode>``, ``rungs.<rung>.last_wins.<mode>``,
``rungs.<rung>.one_pond.roller_wins.<mode>`` (``<rung>``: the strategy's name, any character but
letters, digits, ``-`` and ``_`` written ``_``).
"""

from __future__ import annotations

import re

import pandas as pd

from ...analysis import metrics as M
from ...analysis.executive import GUIDE_SPREAD_WORDS, GUIDES, Row, assumed_note, margin_words, pc, points_from, show
from ...analysis.intervals import wilson
from ...analysis.judge import SHARE_MARGIN, Problem, family_readings, lower_bound_size, reading
from ...analysis.stats import binom_test
from ...sections import Section, Table, pct_ci
from ..jobs import Job
from .common import GUIDE_FR, _disp, _mode_name


def rung_id(name: str) -> str:
    """A strategy's name as a part of a fact's dotted id (``human:temp=0.5`` -> ``human_temp_0_5``)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def rung_jobs(exp, mode: str, rules, games: int) -> list[Job]:
    """One batch of ``games`` games per rung of ``exp.rungs``, that rung at every seat (the
    experiment's seed: the same dice streams for every rung)."""
    P = rules.players
    return [Job(f"games_{mode}_rung_{rung_id(r)}", "games", rules, games, exp.seed, [[r] * P],
                labels={"mode": mode, "rung": r}) for r in exp.rungs]


def fill_rungs(exp, data, sec: Section, mode: str) -> None:
    """The balance tables per rung and their facts (nothing when the file names no rungs)."""
    frames = {r: data.frame(f"games_{mode}_rung_{rung_id(r)}") for r in exp.rungs
              if f"games_{mode}_rung_{rung_id(r)}" in data.jobs}
    if not frames:
        return
    rows, guides, seats = [], {}, {}
    for r, df in frames.items():
        row, guides[r], seats[r] = _rung_facts(sec, r, df, mode)
        rows.append(row)
    t = _first_player_readings(pd.DataFrame(rows))
    _balance_table(sec, t, mode)
    _guides_table(sec, guides, mode, int(t["players"].iloc[0]))
    _seats_table(sec, seats, mode, int(t["players"].iloc[0]))
    _balance_finding(sec, t, mode)


# ---------------------------------------------------------------- one rung's facts
def _rung_facts(sec: Section, r: str, df: pd.DataFrame, mode: str) -> tuple[dict, pd.DataFrame, list]:
    """Every fact of rung ``r``'s batch ``df``, in order: the guides' spread and a fair game's,
    each guide when dealt, each seat, Balance, comebacks, the Étang's roller. Returns the rung's
    row of the balance table, its guide table and its seats' (rate, low, high, p)."""
    from .pond import one_pond

    rid, P = rung_id(r), M.seats(df)
    fin = df[df["finished"].to_numpy(bool)]
    n = len(fin)
    w = fin["winner"].to_numpy()
    gt = M.guide_table(df)
    dealt = gt[gt["dealt"] > 0]
    spread = _spread_facts(sec, rid, r, dealt, P, n, mode)
    _when_dealt_facts(sec, rid, r, dealt, P, mode)
    seat = _seat_facts(sec, rid, r, w, P, n, mode)
    bal, blo, bhi = _balance_fact(sec, rid, r, w, P, n, mode)
    dr = _comeback_fact(sec, rid, r, df, P, mode)
    pond = one_pond(df, mode, sec, prefix=f"rungs.{rid}")
    gd = dealt.reset_index(drop=True)
    weak, strong = gd.iloc[gd["win_rate_when_dealt"].argmin()], gd.iloc[gd["win_rate_when_dealt"].argmax()]
    row = {"rung": r, "games": len(df), "players": P, **spread,
           "weakest": weak["guide"], "weakest_rate": weak["win_rate_when_dealt"],
           "weakest_low": weak["when_dealt_low"], "weakest_high": weak["when_dealt_high"],
           "strongest": strong["guide"], "strongest_rate": strong["win_rate_when_dealt"],
           "strongest_low": strong["when_dealt_low"], "strongest_high": strong["when_dealt_high"],
           "seat1": seat[0][0], "seat1_low": seat[0][1], "seat1_high": seat[0][2], "seat1_p": seat[0][3],
           "balance": bal, "balance_low": blo, "balance_high": bhi,
           "last_wins": dr["last_wins"], "last_wins_low": dr["last_wins_low"], "last_wins_high": dr["last_wins_high"],
           **({"roller": pond["roller"][0], "roller_low": pond["roller"][1], "roller_high": pond["roller"][2],
               "roller_games": pond["games"]} if "roller" in pond else {})}
    return row, gt, seat


def _spread_facts(sec: Section, rid: str, r: str, dealt: pd.DataFrame, P: int, n: int, mode: str) -> dict:
    """The guide spread (the largest gap between a guide's win rate when dealt and the fair
    share) and what a perfectly fair game of the same size reads (two facts); returns the
    balance table's spread columns."""
    from ...analysis.judge import fair_floor_dealt, guide_spread_interval

    sp, slo, shi = guide_spread_interval(dealt["wins"], dealt["dealt"], 1 / P)
    fl = fair_floor_dealt(int(dealt["dealt"].mean()), 1 / P, len(dealt))
    sec.fact(f"rungs.{rid}.spread.{mode}", f"{GUIDE_SPREAD_WORDS}, {r} at every seat, {_mode_name(mode)}",
             sp, slo, shi, n, "share difference",
             note=f"fair {1 / P:.4f}; interval: parametric bootstrap of the seven win rates, widened to hold the estimate; "
                  f"a perfectly fair game at the same n reads {100 * fl['gap_median']:.1f} points (95th percentile "
                  f"{100 * fl['gap_p95']:.1f})")
    sec.fact(f"rungs.{rid}.spread_floor.{mode}", f"{GUIDE_SPREAD_WORDS} in a perfectly fair game at the same n as "
             f"{r}'s batch (median; high: 95th percentile), {_mode_name(mode)}",
             fl["gap_median"], float("nan"), fl["gap_p95"], int(dealt["dealt"].mean()), "share difference",
             n_unit="games where dealt (each guide)", note="simulated: 2,000 fair games of the same size, fixed seed")
    return {"spread": sp, "spread_low": slo, "spread_high": shi, "fair_median": fl["gap_median"], "fair_p95": fl["gap_p95"]}


def _when_dealt_facts(sec: Section, rid: str, r: str, dealt: pd.DataFrame, P: int, mode: str) -> None:
    """Each guide's win rate when dealt (one fact per guide dealt)."""
    for _, g in dealt.iterrows():
        sec.fact(f"rungs.{rid}.when_dealt.{mode}.{g['guide']}", f"win rate of the player dealt the "
                 f"{GUIDE_FR[g['guide']]} guide (when dealt), {r} at every seat, {_mode_name(mode)}",
                 g["win_rate_when_dealt"], g["when_dealt_low"], g["when_dealt_high"], g["dealt"], "share",
                 n_unit="games where dealt", p=g["p_when_dealt_holm"],
                 note=(f"flag {g['flag']}; " if g["flag"] else "") + f"fair {1 / P:.4f}; exact binomial test, "
                      f"Holm over the 7 guides; flagged only beyond {margin_words()}")


def _seat_facts(sec: Section, rid: str, r: str, w, P: int, n: int, mode: str) -> list:
    """Each seat's win rate over the finished games (one fact per seat); returns the seats'
    (rate, low, high, p)."""
    seat = []
    for s in range(P):
        k = int((w == s).sum())
        est, lo, hi = wilson(k, n)
        p = binom_test(k, n, 1 / P) if n else float("nan")
        seat.append((est, lo, hi, p))
        sec.fact(f"rungs.{rid}.seat{s + 1}.{mode}", f"win rate of seat {s + 1} (seat 1 plays first), {r} at every "
                 f"seat, {_mode_name(mode)}", est, lo, hi, n, "share", p=p,
                 note=f"fair {1 / P:.4f}; exact binomial test; finished games")
    return seat


def _balance_fact(sec: Section, rid: str, r: str, w, P: int, n: int, mode: str) -> tuple[float, float, float]:
    """Ludii's Balance over the seats (one fact); returns it with its interval."""
    from ...analysis.judge import balance_interval

    bal, blo, bhi = balance_interval([int((w == s).sum()) for s in range(P)], n)
    blo, bhi = min(blo, bal), max(bhi, bal)  # widened to hold the estimate, as the spread's
    sec.fact(f"rungs.{rid}.balance.{mode}", f"Ludii's Balance (1 − the largest gap between two seats' win rates), "
             f"{r} at every seat, {_mode_name(mode)}", bal, blo, bhi, n, "share",
             note="interval: multinomial bootstrap of the seats' wins, widened to hold the estimate")
    return bal, blo, bhi


def _comeback_fact(sec: Section, rid: str, r: str, df: pd.DataFrame, P: int, mode: str) -> dict:
    """How often the player last at mid-game wins (one fact); returns :func:`metrics.drama`'s figures."""
    dr = M.drama(df)
    sec.fact(f"rungs.{rid}.last_wins.{mode}", f"win rate of the player last at mid-game (comebacks), {r} at every "
             f"seat, {_mode_name(mode)}", dr["last_wins"], dr["last_wins_low"], dr["last_wins_high"],
             dr["last_games"], "share", note=f"fair {1 / P:.4f}; games with a unique last player at mid-game")
    return dr


# ---------------------------------------------------------------- the tables and the finding
def _first_player_readings(t: pd.DataFrame) -> pd.DataFrame:
    """The balance table's rows with the first player's reading against the share margin,
    Holm over the rungs (columns ``seat1_reading``, ``seat1_p_holm``)."""
    fair = 1 / t["players"]
    fam = family_readings([(100 * (e - f), 100 * (lo - f), 100 * (hi - f), p) for e, lo, hi, p, f in
                           zip(t["seat1"], t["seat1_low"], t["seat1_high"], t["seat1_p"], fair)], 100 * SHARE_MARGIN)
    t["seat1_reading"] = [rd for rd, _ in fam]
    t["seat1_p_holm"] = [q for _, q in fam]
    return t


def _balance_table(sec: Section, t: pd.DataFrame, mode: str) -> None:
    """The balance per rung: one row per rung (spread, weakest and strongest guide, first player,
    Balance, comebacks, the Étang's roller)."""
    P0 = int(t["players"].iloc[0])
    sec.tables.append(Table(
        f"{_mode_name(mode)}: balance per rung of the skill ladder ({P0} players of one rung, the same seeds for every rung)",
        _disp({
            "games": t["games"].map("{:,}".format),
            "guide spread [95 % CI]": [f"{100 * r.spread:.1f} pts [{100 * r.spread_low:.1f}, {100 * r.spread_high:.1f}]"
                                                      for r in t.itertuples()],
            "a fair game reads (median, 95th pct)": [f"{100 * r.fair_median:.1f}, {100 * r.fair_p95:.1f} pts" for r in t.itertuples()],
            "weakest guide when dealt": [f"{GUIDE_FR[r.weakest]} {pct_ci(r.weakest_rate, r.weakest_low, r.weakest_high)}"
                                         for r in t.itertuples()],
            "strongest guide when dealt": [f"{GUIDE_FR[r.strongest]} {pct_ci(r.strongest_rate, r.strongest_low, r.strongest_high)}"
                                           for r in t.itertuples()],
            "first player minus fair [95 % CI]": [
                f"{100 * (r.seat1 - 1 / r.players):+z.1f} pts [{100 * (r.seat1_low - 1 / r.players):+z.1f}, "
                f"{100 * (r.seat1_high - 1 / r.players):+z.1f}]: {r.seat1_reading}" for r in t.itertuples()],
            "Balance (seats) [95 % CI]": [f"{r.balance:.3f} [{r.balance_low:.3f}, {r.balance_high:.3f}]" for r in t.itertuples()],
            "last at mid-game wins [95 % CI]": [pct_ci(r.last_wins, r.last_wins_low, r.last_wins_high) for r in t.itertuples()],
            "Étang's roller wins [95 % CI]": [pct_ci(getattr(r, "roller", float("nan")), getattr(r, "roller_low", float("nan")),
                                                     getattr(r, "roller_high", float("nan"))) for r in t.itertuples()],
        }, index=pd.Index(t["rung"], name="rung")), data=t,
        note=f"Each row: {P0} players of that rung (human-like players of the skill ladder: novice, casual, regular; the expert the top rung; docs/strategies.md), "
             f"the same dice streams for every rung. Fair share 1/{P0}. Guide spread: the largest gap between a guide's win "
             "rate when dealt and the fair share (parametric bootstrap interval), beside what a perfectly fair game of the same size reads "
             "(2,000 simulated fair batches). First player: seat 1's win rate minus the fair share, Wilson interval, read "
             f"against the {margin_words()} margin with Holm over the rungs. Comebacks: the player last at mid-game (a unique last "
             "player at the end of the middle round, half its rounds rounded down) wins; Étang's roller: the win rate of the player who rolled the "
             "game's only Étang, in games with exactly one (fair 1/players)."))


def _guides_table(sec: Section, guides: dict, mode: str, P0: int) -> None:
    """Each guide's win rate when dealt, a column per rung (``guides``: rung -> its guide table)."""
    names = list(guides)
    gcols = {}
    for r in names:
        gt = guides[r]
        gcols[r] = [pct_ci(g["win_rate_when_dealt"], g["when_dealt_low"], g["when_dealt_high"])
                    + (f" ({g['flag']})" if g["flag"] else "") if g["dealt"] else "n/a" for _, g in gt.iterrows()]
    sec.tables.append(Table(f"{_mode_name(mode)}: win rate by starting guide when dealt, per rung (fair 1/{P0})",
                            _disp(gcols, index=pd.Index(guides[names[0]]["guide"].map(GUIDE_FR), name="guide")),
                            data=pd.concat([gt.assign(rung=r) for r, gt in guides.items()], ignore_index=True),
                            note="Exact binomial test, Holm over the seven guides within each rung; a guide is flagged "
                                 f"strong or weak only when the test survives and the interval lies beyond {margin_words()}."))


def _seats_table(sec: Section, seats: dict, mode: str, P0: int) -> None:
    """Each seat's win rate, a column per rung (``seats``: rung -> its seats' (rate, low, high, p))."""
    names = list(seats)
    scols = {r: [pct_ci(*seats[r][s][:3], 2) for s in range(P0)] for r in names}
    sec.tables.append(Table(f"{_mode_name(mode)}: win rate by seat, per rung (seat 1 plays first; fair 1/{P0})",
                            _disp(scols, index=pd.Index([f"seat {s + 1}" for s in range(P0)], name="seat")),
                            data=pd.DataFrame([{"rung": r, "seat": s + 1, "rate": e, "low": lo, "high": hi, "p": p}
                                               for r in names for s, (e, lo, hi, p) in enumerate(seats[r])])))


def _balance_finding(sec: Section, t: pd.DataFrame, mode: str) -> None:
    """The finding: each rung's guide spread and first player, in one sentence."""
    P0 = int(t["players"].iloc[0])
    parts = [f"{r}: guide spread {100 * x.spread:.1f} points [{100 * x.spread_low:.1f}, {100 * x.spread_high:.1f}] "
             f"(fair game {100 * x.fair_median:.1f}), first player {100 * (x.seat1 - 1 / x.players):+z.1f} points "
             f"({x.seat1_reading})" for r, x in zip(t["rung"], t.itertuples())]
    sec.findings.append(f"Balance per rung on {_mode_name(mode)} ({P0} players of one rung, same seeds): " + "; ".join(parts) + ".")


# ---------------------------------------------------------------- the executive page
def _per_rung(facts: dict, what: str, mode: str = "8d8") -> dict:
    """``{rung id: fact}`` of ``rungs.<rung>.<what>.<mode>``, in the facts' order."""
    pat = re.compile(rf"rungs\.([A-Za-z0-9_-]+)\.{re.escape(what)}\.{re.escape(mode)}")
    return {m.group(1): f for k, f in facts.items() if (m := pat.fullmatch(k))}


def rungs_row(facts: dict) -> Row | None:
    """Fair for novices, for experts? The guide spread and the first player at every rung."""
    sp, s1 = _per_rung(facts, "spread"), _per_rung(facts, "seat1")
    if not sp or not s1:
        return None
    rungs = [r for r in sp if r in s1]
    fair = {r: _fair(s1[r]) for r in rungs}
    fam = dict(zip(rungs, family_readings([(*points_from(s1[r], fair[r]), s1[r].p) for r in rungs], 100 * SHARE_MARGIN)))
    floor = _per_rung(facts, "spread_floor")
    parts = []
    for r in rungs:
        d = 100 * (s1[r].estimate - fair[r])
        parts.append(f"{r}: guide spread {100 * sp[r].estimate:.1f} points [{100 * sp[r].low:.1f}, {100 * sp[r].high:.1f}]"
                     + (f" (a fair game reads {100 * floor[r].estimate:.1f})" if r in floor else "")
                     + f", first player {d:+z.1f} points [{100 * (s1[r].low - fair[r]):+z.1f}, {100 * (s1[r].high - fair[r]):+z.1f}]"
                     f" ({fam[r][0]})")
    worst = max(rungs, key=lambda r: sp[r].estimate)
    best = min(rungs, key=lambda r: sp[r].estimate)
    n_players = round(1 / fair[rungs[0]])
    answer = f"Each rung of the skill ladder alone at the table ({n_players} players, 8 D8, the same seeds): " + "; ".join(parts) + "."
    if len(rungs) > 1:
        apart = sp[worst].low > sp[best].high  # the two intervals do not overlap
        answer += (f" The guides are least balanced for the {worst} players and most for the {best} players"
                   + ("." if apart else " (their intervals overlap: not a settled difference)."))
    inside = [r for r in rungs if fam[r][0] in ("negligible", "real but small")]
    beyond = [r for r in rungs if fam[r][0].startswith("real") and r not in inside]
    open_ = [r for r in rungs if r not in inside and r not in beyond]
    said = []
    if inside:
        said.append(f"inside {margin_words()} for " + ", ".join(inside))
    if beyond:
        said.append("beyond it for " + ", ".join(beyond))
    if open_:
        said.append("not settled by these games for " + ", ".join(open_))
    action = ("The first player's edge is " + "; ".join(said) + " (Holm over the rungs). "
              "A rule change must hold at every rung: the lab's default panel judges a proposal on casual, regular "
              "and expert tables, at family tables of mixed skill and on the rungs mixed at 2, 5 and 7 players "
              "(heron-sim tune).")
    fl = floor.get(worst)
    sure = ("" if not fl else
            f"largest spread ({worst}) against a perfectly fair game's at the same n (95th percentile "
            f"{100 * fl.high:.1f} points): "
            + ("beyond what 95 % of fair games read" if sp[worst].low > fl.high else
               "within what a fair game may read" if sp[worst].high <= fl.high else
               "not settled (its interval holds values a fair game reads and values beyond)"))
    return Row("Fair for novices, for experts? (balance per rung)", answer, show(sp[worst]), sure, action,
               sp[worst].id, "guides", False, key="rungs", order=7.5)


def rung_problems(facts: dict) -> list[Problem]:
    """What is beyond the share margin (the designer's targets) at some rung, one problem per question (the first
    player; each guide weak or strong), naming the rungs, its figure the largest: only what is
    wrong (the AI table's guide and first-player questions say what is fine)."""
    found: dict[str, list] = {}
    s1 = _per_rung(facts, "seat1")
    fam = family_readings([(*points_from(f, _fair(f)), f.p) for f in s1.values()], 100 * SHARE_MARGIN)
    for (r, f), (rd, _) in zip(s1.items(), fam):
        d, lo, hi = points_from(f, _fair(f))
        if rd == "real and relevant":
            found.setdefault(f"the first player wins {'more' if d > 0 else 'less'} than a fair {pc(_fair(f), 0)}",
                             []).append((lower_bound_size(d, lo, hi, 100 * SHARE_MARGIN), r, f))
    for k, f in facts.items():
        m = re.fullmatch(r"rungs\.([A-Za-z0-9_-]+)\.when_dealt\.8d8\.(\w+)", k)
        if not m:
            continue
        d, lo, hi = points_from(f, _fair(f))
        if reading(d, lo, hi, 100 * SHARE_MARGIN, f.p) == "real and relevant":
            found.setdefault(f"the {GUIDES[m.group(2)]} guide is {'weak' if d < 0 else 'strong'} (Holm over the 7 guides)",
                             []).append((lower_bound_size(d, lo, hi, 100 * SHARE_MARGIN), m.group(1), f))
    probs = []
    every = list(s1)
    for what, hits in found.items():
        size, r, f = max(hits, key=lambda h: h[0])
        who = [h[1] for h in hits]
        at = (f"At every rung of the skill ladder ({', '.join(who)})" if len(every) > 1 and sorted(who) == sorted(every)
              else f"For {', '.join(who)} players")
        probs.append(Problem(f"{at} {what}", f"{r}: {show(f)}", size, "q-rungs", assumed=assumed_note("share_margin"),
                             facts=tuple(h[2].id for h in hits)))
    for p in probs:
        p.order = 2.5
    return probs


def _fair(f) -> float:
    """The fair share written in a fact's note (``fair 0.2500``)."""
    return float(re.search(r"fair ([0-9.]+)", f.note).group(1))
