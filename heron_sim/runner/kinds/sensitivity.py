"""Kind ``sensitivity``: what a designer can turn. One rule changed at a time on the same seeds
(Angoisse threshold, Étang threshold, rolls per turn, finish 60 vs 63), the player counts 2 to 7,
and the 10 D6 dice composition (the rulings' assumed dice against a rotated alternative)."""

from __future__ import annotations

import math
import re
from typing import Literal

import numpy as np
import pandas as pd

from ...analysis import metrics as M
from ...analysis.stats import format_p, paired_difference
from ...analysis.judge import LENGTH_MARGIN, SHARE_MARGIN, lower_bound_size, Problem, reading
from ...analysis.executive import (GUIDE_SPREAD_WORDS, GUIDES, TARGET_MINUTES, TARGETS, assumed_note, at_order, comeback, pc, problems_of, remedy, Row,
                                  rows_of, show, sure_share)
from ...animals import NAMES as ANIMALS
from ...sections import Fact, Figure, Section, Table, num_ci, pct, pct_ci, plot, signed_ci
from ...rules import Rules
from ..options import HeronExperiment, People, Seating, figures_of
from ..jobs import Job, resolve_strategies, seatings
from .base import ExperimentKind, Sizes
from .common import GUIDE_FR, SECONDS_PER_TURN, _disp, _mode_name, minutes


#: The figures this kind draws (the ``figures`` key chooses among them; default: all).
FIGURES = ('sensitivity',)


class SensitivityExperiment(HeronExperiment):
    """The options of an experiment file of kind ``sensitivity``."""

    kind: Literal["sensitivity"] = "sensitivity"
    figures: figures_of(FIGURES) = FIGURES
    seating: Seating = "ai"
    #: the default's and the one-rule batches' (the remedies') games played with each seat's luck
    #: (docs/luck.md): the first player's and the weakest guide's win rates are then read
    #: luck-adjusted where their interval is narrower (each fact says which); ~5x their CPU
    luck: bool = False
    #: games a table of the lab's default panel of people (heron_sim.runner.panel.DEFAULT_PANEL:
    #: the tables every study judges a change at), played under the rulings: the verdict's length
    #: is then that of people, table by table, as the studies see it (issue 58 item 5); 0: none
    people: People = 0

#: (key, rules key, value, label) — one rule changed at a time, everything else default.
VARIANTS = (
    ("anxiety2", "anxiety_threshold", 2, "Angoisse at 2 Hérons"),
    ("anxiety4", "anxiety_threshold", 4, "Angoisse at 4 Hérons"),
    ("pond3", "pond_threshold", 3, "Étang Paisible at 3 Hérons"),
    ("pond5", "pond_threshold", 5, "Étang Paisible at 5 Hérons"),
    ("rolls2", "rolls", 2, "2 rolls per turn"),
    ("rolls4", "rolls", 4, "4 rolls per turn"),
    ("finish60", "finish", 60, "finish at 60, no Héron square (old booklet)"),
)
#: Candidate remedies the report plays on its own seating and player count (same seeds as the
#: default): (key, rules key, value, label, the problem it is tried on). Only rules keys that
#: exist; the executive page names the smallest one that fixes its problem, or none.
REMEDIES = (
    ("single_use", "single_use_squares", True, "single-use special squares", "comeback"),
    ("heron_dbl1", "heron_doubling_herons", 1, "Héron guide doubles when a Héron shows", "guides"),
    ("heron_dbl2", "heron_doubling_herons", 2, "Héron guide doubles when 2+ Hérons show", "guides"),
    ("exact_finish", "exact_finish", True, "exact finish (overshoot bounces back)", "comeback"),
    # the remedy keys of the lab issue (played only when this version of the rules has them)
    ("heron_patience", "heron_patience_doubling", True, "Héron guide doubles the animal it set with Patience", "guides"),
    ("pushback_fixed4", {"pond_pushback_per_heron": 0, "pond_pushback_flat": 4}, None, "Étang push-back a fixed 4", "etang"),
    ("pushback_fixed2", {"pond_pushback_per_heron": 0, "pond_pushback_flat": 2}, None, "Étang push-back a fixed 2 (about half)", "etang"),
    ("pushback_cap5", "pond_pushback_max", 5, "Étang push-back capped at 5", "etang"),
    ("pushback_none", {"pond_pushback_per_heron": 0, "pond_pushback_flat": 0}, None, "no Étang push-back", "etang"),
    ("start_last1", "start_squares", [0, 0, 0, 1], "the last seat starts on square 1", "first"),
    ("start_ladder", "start_squares", [0, 0, 1, 1], "seats 3 and 4 start on square 1", "first"),
    ("extra_roll_last", "first_turn_extra_rolls", [0, 0, 0, 1], "an extra roll on the last seat's first turn", "first"),
    ("consolation_anx1", "consolation_anxiety", 1, "+1 square after an unrescued Angoisse", "dead"),
    ("consolation_zero1", "consolation_no_set", 1, "+1 square after a turn worth 0", "dead"),
)
PLAYER_COUNTS = (2, 3, 4, 5, 6, 7)
NON_HERON = ANIMALS[:6]


def alternative_d6() -> list[list[str]]:
    """The rulings' 10 D6 rotated by two: die k lacks animal (k + 2) mod 6 instead of k mod 6, so
    Loup and Taureau sit on 9 dice and Aigle and Cerf on 8 (the default gives 9 to Aigle and Cerf)."""
    return [[a for i, a in enumerate(NON_HERON) if i != (k + 2) % 6] + ["heron"] for k in range(10)]


class SensitivityKind(ExperimentKind):
    """What a designer can turn"""

    name = "sensitivity"
    options = SensitivityExperiment
    figures = FIGURES
    intro = "One rule at a time, the player counts, and the 10 D6 dice."

    def jobs(self, exp: SensitivityExperiment, g: Sizes) -> list[Job]:
        P = exp.players
        m = exp.modes[0]
        names = resolve_strategies(exp.seating)
        seat = seatings(names, P)
        base = exp.rules.build(m, P)
        n = g(exp.games)
        luck = {"luck": True} if exp.luck else {}
        jobs = [Job("base", "games", base, n, exp.seed, seat, labels={"part": "base", "mode": m, **luck})]
        for key, rule, value, label, *problem in VARIANTS + tuple(r for r in REMEDIES if _has_key(base, r[1]) and P == 4):
            over = {**exp.rules.overrides, **(rule if isinstance(rule, dict) else {rule: value})}
            if rule == "finish":
                # the old booklet's 60-square board: the squares from the finish on are dropped (the Héron square 60)
                squares = base.to_table()["board"]["squares"]
                over["board"] = {"squares": {k: v for k, v in squares.items() if int(k) < value}}
            r = Rules.build(mode=m, players=P, rules_file=exp.rules.file, overrides=over)
            jobs.append(Job(key, "games", r, n, exp.seed, seat,
                            labels={"part": "variant", "mode": m, "rule": rule if isinstance(rule, str) else ",".join(rule),
                                    "value": value if not isinstance(rule, dict) else list(rule.values()), "label": label,
                                    **({"remedy_for": problem[0]} if problem else {}), **luck}))
        for p in PLAYER_COUNTS:
            if p == P:
                continue
            jobs.append(Job(f"players{p}", "games", exp.rules.build(m, p), n, exp.seed, seatings(names, p),
                            labels={"part": "players", "mode": m, "players": p}))
        if exp.people:
            from ..panel import DEFAULT_PANEL

            for sc in DEFAULT_PANEL:
                jobs.append(Job(f"people_{sc.name}", "games", exp.rules.build(sc.mode or m, sc.players), g(exp.people),
                                exp.seed, sc.seatings(), labels={"part": "people", "mode": sc.mode or m,
                                                                 "players": sc.players, "table": sc.name}))
        for key, faces in (("d6_default", None), ("d6_rotated", alternative_d6())):
            over = dict(exp.rules.overrides)
            if faces is not None:
                over["dice"] = {"faces": faces}
            r = Rules.build(mode="10d6", players=P, rules_file=exp.rules.file, overrides=over)
            jobs.append(Job(key, "games", r, n, exp.seed, seat, labels={"part": "d6", "mode": "10d6", "dice": key}))
        return jobs

    def summary_rows(self, facts: dict[str, Fact]) -> list[Row]:
        return rows_of(facts, length_row, d6_row)

    def summary_problems(self, facts: dict[str, Fact]) -> list[Problem]:
        return problems_of(facts, length_problem, comeback_problem)

    def fill(self, exp: SensitivityExperiment, data, sec: Section) -> None:
        base = data.frame("base")
        P = int(base["players"].iloc[0])
        m = self.job(data, "base")["labels"]["mode"]
        t = _variants(sec, data, base, m)
        _variants_table(sec, t, m, P, len(base))
        _variant_facts(sec, t, m, P)
        # the one table every remedy batch is played at (analysis.executive.remedy names it)
        sec.fact("sensitivity.table", "players at the table of the one-rule batches and the remedies", P, n=len(base),
                 unit="players", note="seating: " + ", ".join(resolve_strategies(exp.seating)))
        if self.want(exp, "sensitivity"):
            sec.figures.append(_sensitivity_figure(t, m))
        pt = _player_counts(data, P)
        if len(pt):
            _player_counts_table(sec, pt, m)
            _player_counts_facts(sec, pt, m)
        people = _people(data)
        if len(people):
            _people_table(sec, people)
            _people_facts(sec, people)
        if "d6_default" in data.jobs and "d6_rotated" in data.jobs:
            _d6_composition(sec, data, P)
        _length_finding(sec, t)
        if len(pt):
            _first_player_finding(sec, pt)


def _variants(sec: Section, data, base: pd.DataFrame, m: str) -> pd.DataFrame:
    """One row per rule set (the default first, then each one-key change), paired with the
    default game by game; the games with one Étang of the Pond's variants (their facts)."""
    rows = []
    b_len = _length(base)
    for key, label, df in [("base", "default rules", base)] + [
            (j["key"], j["labels"]["label"], data.frame(j["key"])) for j in data.select(part="variant")]:
        lt = M.length_table(df)
        seat = M.seat_table(df).iloc[0]
        pr = M.per_turn_rates(df)
        unf = int((~df["finished"].to_numpy(bool)).sum())
        d = paired_difference(b_len, _length(df))
        rel = d["diff"] / d["a"] if d["a"] else float("nan")
        if key == "base" or "pushback" in key or key.startswith("pond"):
            from .pond import one_pond

            one_pond(df, m, sec, prefix=f"sensitivity.{key}")
        gt = M.guide_table(df)
        dealt = gt[gt["dealt"] > 0]
        weak = dealt.loc[dealt["win_rate_when_dealt"].idxmin()]
        dr = M.drama(df)
        rows.append({"key": key, "label": label, "games": len(df), "unfinished": unf, **lt,
                     # the guide spread: the largest gap to the fair share (the lab's definition)
                     "spread": float((dealt["win_rate_when_dealt"] - 1 / M.seats(df)).abs().max()),
                     "weakest": weak["guide"], "weakest_rate": weak["win_rate_when_dealt"],
                     "weakest_low": weak["when_dealt_low"], "weakest_high": weak["when_dealt_high"],
                     "last_wins": dr["last_wins"], "last_wins_low": dr["last_wins_low"], "last_wins_high": dr["last_wins_high"],
                     "rel": rel if key != "base" else 0.0, "rel_low": d["low"] / d["a"] if key != "base" else 0.0,
                     "rel_high": d["high"] / d["a"] if key != "base" else 0.0, "rel_p": d["p"],
                     "seat1": seat["win_rate"], "seat1_low": seat["low"], "seat1_high": seat["high"], "seat1_p": seat["p"],
                     "balance": M.ludii_metrics(df)["Balance"], "anxiety": pr["anxiety"], "pond": pr["pond"],
                     **luck_adjusted_rates(df, {"seat1_low": seat["low"], "seat1_high": seat["high"],
                                                "weakest": weak["guide"], "weakest_low": weak["when_dealt_low"],
                                                "weakest_high": weak["when_dealt_high"]})})
    t = pd.DataFrame(rows)
    return t


def luck_adjusted_rates(df: pd.DataFrame, plain: dict) -> dict:
    """The first player's and the weakest guide's win rates luck-adjusted (issue 32 item 3;
    heron_sim.analysis.luck_adjust.adjusted_win_rates, over finished games like the plain ones)
    where the frame has its luck and the adjusted interval is narrower than the plain one
    (``plain``: its ``seat1_low/high``, the ``weakest`` guide, chosen on the plain rates, and its
    ``weakest_low/high``): ``seat1``, ``seat1_low``, ``seat1_high``, ``seat1_p`` (normal, against
    the fair share) and ``seat1_estimate`` = "luck-adjusted" with ``seat1_plain_low/high``;
    the same for ``weakest``. Empty where the luck is not measured or nothing is narrower."""
    from ...analysis.luck_adjust import adjusted_win_rates
    from scipy.stats import norm

    out: dict = {}
    if "luck_seat1" not in df.columns:
        return out
    a = adjusted_win_rates(df)
    if a.get("win_rate_by_seat_adjusted") is None:
        return out
    fair = 1.0 / M.seats(df)
    lo, hi = a["win_rate_by_seat_adjusted_ci"][0]
    if hi - lo < plain["seat1_high"] - plain["seat1_low"]:
        rate, se = a["win_rate_by_seat_adjusted"][0], a["win_rate_by_seat_adjusted_se"][0]
        out.update(seat1=rate, seat1_low=lo, seat1_high=hi, seat1_p=float(2 * norm.sf(abs(rate - fair) / se)),
                   seat1_estimate="luck-adjusted", seat1_plain_low=plain["seat1_low"],
                   seat1_plain_high=plain["seat1_high"])
    g = plain["weakest"]
    ci = (a.get("win_rate_by_guide_adjusted_ci") or {}).get(g)
    if ci is not None and ci[1] - ci[0] < plain["weakest_high"] - plain["weakest_low"]:
        out.update(weakest_rate=a["win_rate_by_guide_adjusted"][g], weakest_low=ci[0], weakest_high=ci[1],
                   weakest_estimate="luck-adjusted", weakest_plain_low=plain["weakest_low"],
                   weakest_plain_high=plain["weakest_high"])
    return out


def _luck_note(r, key: str) -> str:
    """"; luck-adjusted (plain [a, b])" where the fact's figure is (:func:`luck_adjusted_rates`)."""
    est = r.get(f"{key}_estimate")
    if not isinstance(est, str):
        return ""
    lo, hi = r[f"{key}_plain_low"], r[f"{key}_plain_high"]
    return f"; luck-adjusted (plain 95 % CI [{lo:.4f}, {hi:.4f}])"


def _variants_table(sec: Section, t: pd.DataFrame, m: str, P: int, games: int) -> None:
    sec.tables.append(Table(f"One rule at a time ({_mode_name(m)}, {P} players, the same seeds)", _disp({
        "finished games": t["games"].sub(t["unfinished"]).map("{:,}".format),
        "unfinished": [f"{u:,}" + (" ⚠" if u > 0.01 * g else "") for u, g in zip(t["unfinished"], t["games"])],
        "rounds [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in t.iterrows()],
        "vs default [95 % CI]": ["—" if r["key"] == "base" else signed_ci(r["rel"], r["rel_low"], r["rel_high"], 1, 100, " %")
                                 for _, r in t.iterrows()],
        "minutes": [f"{minutes(x, P):.0f}" for x in t["mean"]],
        "first player wins [95 % CI]": [pct_ci(r["seat1"], r["seat1_low"], r["seat1_high"])
                                        + (" †" if isinstance(r.get("seat1_estimate"), str) else "")
                                        for _, r in t.iterrows()],
        "Balance": t["balance"].map("{:.3f}".format),
        "Angoisse / turn": t["anxiety"].map(lambda x: pct(x, 1)),
        "Étang / turn": t["pond"].map(lambda x: pct(x, 2)),
    }, index=pd.Index(t["label"], name="rule changed")), data=t,
        note=f"Length over finished games, paired with the default game by game (same seeds); fair share of a seat "
             f"{pct(1 / P)}; minutes at an assumed {SECONDS_PER_TURN} s per turn. Balance = 1 − the largest gap between "
             f"two seats' win rates; a perfectly fair game of {games:,} games reads {_fair_balance(games, P)} "
             "(5th percentile–median of 1,000 simulated fair batches), so a Balance in that range is noise."
             + (" † luck-adjusted: the first player's dice luck taken out (docs/luck.md), narrower than the plain "
                "interval on the same games." if "seat1_estimate" in t.columns else "")))


def _variant_facts(sec: Section, t: pd.DataFrame, m: str, P: int) -> None:
    for _, r in t.iterrows():
        sec.fact(f"sensitivity.{r['key']}.length", f"mean game length, {r['label']} ({_mode_name(m)})", r["mean"],
                 r["mean_low"], r["mean_high"], r["games"] - r["unfinished"], "rounds", n_unit="finished games")
        if r["key"] != "base":
            sec.fact(f"sensitivity.{r['key']}.length_rel", f"game length change, {r['label']} vs default ({_mode_name(m)})",
                     r["rel"], r["rel_low"], r["rel_high"], r["games"], "relative change", n_unit="paired games", p=r["rel_p"])
        sec.fact(f"sensitivity.{r['key']}.seat1", f"first player's win rate, {r['label']} ({_mode_name(m)})", r["seat1"],
                 r["seat1_low"], r["seat1_high"], r["games"], "share", p=r["seat1_p"],
                 note=f"fair {1 / P:.4f}" + _luck_note(r, "seat1"))
        sec.fact(f"sensitivity.{r['key']}.spread", f"{GUIDE_SPREAD_WORDS}, {r['label']} ({_mode_name(m)})", r["spread"],
                 n=r["games"], unit="share difference", note=f"fair {1 / P:.4f}")
        sec.fact(f"sensitivity.{r['key']}.weakest", f"win rate when dealt of the weakest guide ({GUIDE_FR[r['weakest']]}), "
                 f"{r['label']} ({_mode_name(m)})", r["weakest_rate"], r["weakest_low"], r["weakest_high"], r["games"],
                 "share", note=f"guide {r['weakest']}; fair {1 / P:.4f}" + _luck_note(r, "weakest"))
        sec.fact(f"sensitivity.{r['key']}.last_wins", f"chance that the player last at mid-game wins, {r['label']} "
                 f"({_mode_name(m)})", r["last_wins"], r["last_wins_low"], r["last_wins_high"], r["games"], "share",
                 note=f"fair {1 / P:.4f}")
        sec.fact(f"sensitivity.{r['key']}.anxiety", f"Angoisse per played turn, {r['label']} ({_mode_name(m)})",
                 r["anxiety"], n=r["games"], unit="share", n_unit="games")
        sec.fact(f"sensitivity.{r['key']}.pond", f"Étang per played turn, {r['label']} ({_mode_name(m)})",
                 r["pond"], n=r["games"], unit="share", n_unit="games")


def _sensitivity_figure(t: pd.DataFrame, m: str) -> Figure:
    k = t[t["key"] != "base"].copy()
    return Figure("sensitivity", "Game length when one rule changes, relative to the default rules on the same "
                                 "seeds (95 % paired interval). Points right of zero: longer games.",
                  plot("forest", k, label="label", value="rel", low="rel_low", high="rel_high", scale=100,
                       title=f"Sensitivity of game length ({_mode_name(m)})",
                       xlabel="change in mean game length vs default (%)",
                       note=f"n = {int(k['games'].min()):,} paired games per rule"))


def _player_counts(data, P: int) -> pd.DataFrame:
    """Length and the first and last seats' win rates at each player count played."""
    prow = []
    for p in PLAYER_COUNTS:
        key = "base" if p == P else f"players{p}"
        if key not in data.jobs:
            continue
        df = data.frame(key)
        lt = M.length_table(df)
        st = M.seat_table(df)
        first, last = st.iloc[0], st.iloc[-1]
        prow.append({"players": p, "games": len(df), "unfinished": int((~df["finished"].to_numpy(bool)).sum()), **lt,
                     "first": first["win_rate"], "first_low": first["low"], "first_high": first["high"], "first_p": first["p"],
                     "last": last["win_rate"], "last_low": last["low"], "last_high": last["high"], "fair": 1 / p})
    pt = pd.DataFrame(prow)
    return pt


def _player_counts_table(sec: Section, pt: pd.DataFrame, m: str) -> None:
    sec.tables.append(Table(f"Player counts 2 to 7 ({_mode_name(m)}, the same seeds)", _disp({
        "games": pt["games"].map("{:,}".format),
        "unfinished": pt["unfinished"].map("{:,}".format),
        "rounds [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in pt.iterrows()],
        "minutes": [f"{minutes(r['mean'], r['players']):.0f}" for _, r in pt.iterrows()],
        "first player wins [95 % CI]": [pct_ci(r["first"], r["first_low"], r["first_high"]) for _, r in pt.iterrows()],
        "last player wins [95 % CI]": [pct_ci(r["last"], r["last_low"], r["last_high"]) for _, r in pt.iterrows()],
        "fair": pt["fair"].map(pct),
        "first vs fair": [format_p(x) for x in pt["first_p"]],
    }, index=pd.Index(pt["players"], name="players")), data=pt,
        note=f"Minutes: rounds × players × an assumed {SECONDS_PER_TURN} s per turn. Exact binomial test of the first "
             "player's share against 1/players."))


def _player_counts_facts(sec: Section, pt: pd.DataFrame, m: str) -> None:
    for _, r in pt.iterrows():
        p = int(r["players"])
        sec.fact(f"players.{p}.length", f"mean game length with {p} players ({_mode_name(m)})", r["mean"], r["mean_low"],
                 r["mean_high"], r["games"] - r["unfinished"], "rounds", n_unit="finished games")
        sec.fact(f"players.{p}.minutes", f"mean game length in minutes with {p} players at {SECONDS_PER_TURN} s per turn",
                 minutes(r["mean"], p), minutes(r["mean_low"], p), minutes(r["mean_high"], p),
                 r["games"] - r["unfinished"], "minutes", n_unit="finished games")
        sec.fact(f"players.{p}.unfinished", f"share of games unfinished at the round limit with {p} players "
                 f"({_mode_name(m)})", r["unfinished"] / r["games"], n=r["games"], unit="share")
        sec.fact(f"players.{p}.seat1", f"first player's win rate with {p} players ({_mode_name(m)})", r["first"],
                 r["first_low"], r["first_high"], r["games"], "share", p=r["first_p"], note=f"fair {1 / p:.4f}")



def _people(data) -> pd.DataFrame:
    """Length and the first seat's win rate at each table of the lab's default panel (people),
    under the rulings: one row a table, in the panel's order."""
    from ..panel import DEFAULT_PANEL

    rows = []
    for sc in DEFAULT_PANEL:
        key = f"people_{sc.name}"
        if key not in data.jobs:
            continue
        df = data.frame(key)
        lt = M.length_table(df)
        first = M.seat_table(df).iloc[0]
        p = sc.players
        rows.append({"table": sc.name, "who": people_words(sc), "players": p, "games": len(df),
                     "unfinished": int((~df["finished"].to_numpy(bool)).sum()), **lt,
                     "first": first["win_rate"], "first_low": first["low"], "first_high": first["high"], "fair": 1 / p})
    return pd.DataFrame(rows)


def _people_table(sec: Section, pt: pd.DataFrame) -> None:
    sec.tables.append(Table("The rulings at the studies' tables (people of each level)", _disp({
        "players": pt["players"],
        "games": pt["games"].map("{:,}".format),
        "rounds [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in pt.iterrows()],
        "minutes": [f"{minutes(r['mean'], r['players']):.0f}" for _, r in pt.iterrows()],
        "first player wins [95 % CI]": [pct_ci(r["first"], r["first_low"], r["first_high"]) for _, r in pt.iterrows()],
        "fair": pt["fair"].map(pct),
    }, index=pd.Index(pt["who"], name="table")), data=pt,
        note=f"The tables every study of the lab judges a change at (its default panel), under the rulings, the "
             f"seats rotated. Minutes: rounds × players × an assumed {SECONDS_PER_TURN} s per turn. The verdict's "
             "length is read here, table by table."))


def _people_facts(sec: Section, pt: pd.DataFrame) -> None:
    for _, r in pt.iterrows():
        t, p, who = r["table"], int(r["players"]), r["who"]
        done = r["games"] - r["unfinished"]
        sec.fact(f"people.{t}.length", f"mean game length, {who}", r["mean"], r["mean_low"],
                 r["mean_high"], done, "rounds", n_unit="finished games")
        sec.fact(f"people.{t}.minutes", f"mean game length in minutes, {who}, at {SECONDS_PER_TURN} s "
                 "per turn", minutes(r["mean"], p), minutes(r["mean_low"], p), minutes(r["mean_high"], p),
                 done, "minutes", n_unit="finished games")
        sec.fact(f"people.{t}.seat1", f"first player's win rate, {who}", r["first"], r["first_low"],
                 r["first_high"], r["games"], "share", note=f"fair {1 / p:.4f}")


def _d6_composition(sec: Section, data, P: int) -> None:
    """10 D6's assumed faces against a rotated composition, the same seeds: table, facts, finding."""
    d_def, d_alt = data.frame("d6_default"), data.frame("d6_rotated")
    r_def, r_alt = data.rules("d6_default"), data.rules("d6_rotated")
    crow = []
    for a, name in enumerate(ANIMALS):
        c_def = sum(a in die for die in r_def.dice)
        c_alt = sum(a in die for die in r_alt.dice)
        gd = paired_difference(M.guide_win_indicator(d_def, a), M.guide_win_indicator(d_alt, a))
        crow.append({"guide": name, "dice_default": c_def, "dice_rotated": c_alt,
                     "win_default": gd["a"], "win_rotated": gd["b"], "diff": gd["diff"], "low": gd["low"],
                     "high": gd["high"], "p": gd["p"], "n": gd["n"]})
    ct = pd.DataFrame(crow)
    ld = paired_difference(_length(d_def), _length(d_alt))
    sec.tables.append(Table("10 D6: the assumed dice (rulings) against a rotated composition, the same seeds", _disp({
        "dice showing it, assumed": ct["dice_default"],
        "dice showing it, rotated": ct["dice_rotated"],
        "win rate when dealt, assumed": ct["win_default"].map(pct),
        "rotated": ct["win_rotated"].map(pct),
        "rotated − assumed [95 % CI]": [signed_ci(r["diff"], r["low"], r["high"], 1, 100, " pts") for _, r in ct.iterrows()],
    }, index=pd.Index([GUIDE_FR[g] for g in ct["guide"]], name="guide (animal)")), data=ct,
        note="The seed lists no faces for the ten historic D6: the rulings assume die k has one Héron face and the five "
             "non-heron animals other than animal k mod 6, so Aigle and Cerf are on 9 dice and the other four on 8. "
             "The rotated set (die k lacks animal (k + 2) mod 6) moves the extra faces to Loup and Taureau. Win rate when "
             f"dealt (fair 1/{P}), paired over the games where the guide was dealt. Game length: assumed "
             f"{ld['a']:.2f} rounds, rotated {ld['b']:.2f} ({signed_ci(ld['diff'], ld['low'], ld['high'], 2)})."))
    for _, r in ct.iterrows():
        sec.fact(f"d6.dice_with.{r['guide']}", f"number of the 10 assumed D6 dice that show {GUIDE_FR[r['guide']]}",
                 r["dice_default"], n=10, unit="dice", n_unit="dice")
        sec.fact(f"d6.composition_effect.{r['guide']}", f"win rate when dealt {GUIDE_FR[r['guide']]}, rotated − assumed "
                 "10 D6 dice", r["diff"], r["low"], r["high"], r["n"], "share difference", n_unit="paired games where dealt", p=r["p"])
    nine = [GUIDE_FR[g] for g, c in zip(ct["guide"], ct["dice_default"]) if c == 9]
    sig = ct[(ct["low"] > 0) | (ct["high"] < 0)]
    sec.findings.append(
        f"10 D6 dice are assumed (the seed lists no faces): {', '.join(nine)} appear on 9 of the 10 dice, the other "
        "non-heron animals on 8. Moving the extra faces to Loup and Taureau changes "
        + (", ".join(f"{GUIDE_FR[r.guide]} {100 * r.diff:+z.1f} pts" for r in sig.itertuples()) if len(sig)
           else "no guide's win rate beyond its 95 % interval")
        + f" (win rate when dealt, {int(ct['n'].max()):,} paired games).")



def _length_finding(sec: Section, t: pd.DataFrame) -> None:
    base_row = t.iloc[0]
    sec.findings.append(
        "Game length by rule (vs default, same seeds): " + "; ".join(
            f"{r['label']} {100 * r['rel']:+z.1f} %" for _, r in t.iloc[1:].iterrows())
        + f" (default {base_row['mean']:.1f} rounds).")


def _first_player_finding(sec: Section, pt: pd.DataFrame) -> None:
    from ...analysis.judge import family_readings

    rd = family_readings([(100 * (r["first"] - r["fair"]), 100 * (r["first_low"] - r["fair"]),
                           100 * (r["first_high"] - r["fair"]), r["first_p"]) for _, r in pt.iterrows()], 100 * SHARE_MARGIN)
    sec.findings.append("First player's win rate by player count, read with Holm over the "
                        f"{len(pt)} counts (the report's one first-player figure is the pooled 4-player one): " + ", ".join(
        f"{int(r['players'])} players {pct(r['first'])} (fair {pct(r['fair'])}, {reading}, Holm p = {q:.3f})"
        for (_, r), (reading, q) in zip(pt.iterrows(), rd)) + ".")


def _fair_balance(n: int, players: int) -> str:
    from .across import _fair_balance as fb

    return fb(n, players)


def _has_key(rules: Rules, key) -> bool:
    """Whether this version of the rules knows ``key`` (a name, or a dict of names; remedy keys
    arrive over time)."""
    keys = list(key) if isinstance(key, dict) else [key]
    return all(k in rules.to_table() or hasattr(rules, k) for k in keys)


def _length(df: pd.DataFrame) -> np.ndarray:
    return np.where(df["finished"].to_numpy(bool), df["rounds"].to_numpy(float), np.nan)


# ---------------------------------------------------------------- the executive page's rows
def length_row(facts: dict[str, Fact]) -> Row | None:
    """Length at the table by player count, against the designer's length target at each count."""
    F = facts.get
    pl = {int(k.split(".")[1]): v for k, v in facts.items() if k.startswith("players.") and k.endswith(".minutes")}
    if pl:
        lo_p, hi_p = min(pl), max(pl)
        spt = TARGETS["seconds_per_turn"]
        answer = (f"At {'an assumed' if TARGETS.assumed('seconds_per_turn') else 'the designer’s'} {spt:g} s per turn a game "
                  f"lasts about {pl[lo_p].estimate:.0f} minutes with {lo_p} players and "
                  f"{pl[hi_p].estimate:.0f} with {hi_p}" + (f" ({pl[4].estimate:.0f} with 4)" if 4 in pl and 4 not in (lo_p, hi_p) else "")
                  + ".")
        unf = [p for p in sorted(pl) if F(f"players.{p}.unfinished") and F(f"players.{p}.unfinished").estimate > 0]
        if unf:  # minutes are means over finished games: say when some games did not finish
            answer += (" These are means over finished games; some games stop unfinished at the round limit with "
                       + ", ".join(f"{p} ({pc(F(f'players.{p}.unfinished').estimate, 1)})" for p in unf) + " players.")
        table = TARGETS["length_minutes"]
        off = {p: f for p, f in sorted(pl.items()) if p in table and not (table[p][0] <= f.estimate <= table[p][1])}
        note = assumed_note("length_minutes", "seconds_per_turn")
        against = ("Against the designer's length target at each player count" + (f" ({note})" if note else "") + ": ")
        if off:
            action = against + "; ".join(
                f"{p} players {f.estimate:.0f} minutes, {'too long' if f.estimate > table[p][1] else 'too short'} "
                f"(target {table[p][0]:g}–{table[p][1]:g})" for p, f in off.items()) + "."
            ok = [p for p in pl if p in table and p not in off]
            if ok:
                action += f" Within the target at {', '.join(map(str, ok))} players."
            lo_t, hi_t = TARGET_MINUTES
            m4 = pl.get(4)
            if m4 is not None and 4 in off:  # the plan's rule variants are played at 4 players
                action += " " + remedy(
                    facts, "length", lambda f: lo_t <= minutes(f.low, 4) and minutes(f.high, 4) <= hi_t,  # the whole interval
                    lambda f: f"{f.estimate:.1f} rounds, {minutes(f.estimate, 4):.0f} minutes at 4 players",
                    score=lambda f: abs(minutes(f.estimate, 4) - (lo_t + hi_t) / 2))
        else:
            action = against + "every count measured is within it."
        return Row("Length at the table", answer, show(pl[4] if 4 in pl else pl[lo_p]),
                        "rounds are measured; minutes rest on the "
                        + ("assumed " if TARGETS.assumed("seconds_per_turn") else "") + "time per turn", action,
                        (pl[4] if 4 in pl else pl[lo_p]).id, "sensitivity", False, key="length", order=8)


def d6_row(facts: dict[str, Fact]) -> Row | None:
    """The assumed 10 D6 faces: what another composition moves."""
    d6 = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("d6.composition_effect.")}
    if d6:
        big = max(d6, key=lambda k: abs(d6[k].estimate))
        answer = ("The 10 D6 faces are assumed (Aigle and Cerf on 9 dice, the others on 8); rotating the extra faces "
                  f"to Loup and Taureau moves the {GUIDES[big]} guide's win rate by {100 * d6[big].estimate:+z.1f} points.")
        action = "Every 10 D6 figure rests on assumed faces (the seed lists none)."
        return Row("10 D6 on assumed dice", answer, show(d6[big]), sure_share(d6[big], 0.0, None), action,
                        d6[big].id, "sensitivity", False, key="d6", order=11)


def length_problem(facts: dict[str, Fact]) -> list[Problem]:
    """The minutes of a game at each player count measured against the designer's length target
    at that count: one problem for the counts where games are too long, one for too short, or
    one "within" when every count is. Read at the studies' tables of people (``people.<table>
    .minutes``, issue 58 item 5: every table of a count, a range where it has several) where the
    run played them, else at the one table of the player-count batches."""
    people = _people_minutes(facts)
    if people:
        pl, who = people
    else:
        one = {int(k.split(".")[1]): f for k, f in facts.items() if re.fullmatch(r"players\.\d+\.minutes", k)}
        if not one and facts.get("modes.minutes.8d8"):
            one = {4: facts["modes.minutes.8d8"]}
        pl, who = {p: [f] for p, f in one.items()}, {}
    pl = {p: fs for p, fs in sorted(pl.items())
          if p in TARGETS["length_minutes"] and all(math.isfinite(f.low) for f in fs)}
    if not pl:
        return []
    note = assumed_note("length_minutes", "seconds_per_turn", "length_margin")

    def size(p, f):
        lo_t, hi_t = TARGETS.minutes(p)
        return ((f.low - hi_t) / (LENGTH_MARGIN * hi_t) if f.low > hi_t else
                (lo_t - f.high) / (LENGTH_MARGIN * lo_t) if f.high < lo_t else 0.0)

    def minutes_at(p):
        lo, hi = min(f.estimate for f in pl[p]), max(f.estimate for f in pl[p])
        return f"{lo:.0f} minutes" if round(lo) == round(hi) else f"{lo:.0f} to {hi:.0f} minutes"

    def listed(ps):
        return "; ".join(f"{p} players {minutes_at(p)} (target {TARGETS.minutes(p)[0]:g}–{TARGETS.minutes(p)[1]:g})"
                         for p in sorted(ps))

    where = ", at the studies' tables (players of every level)" if people else ""
    probs: list[Problem] = []
    for side, word in (("long", "longer"), ("short", "shorter")):
        out = {p: [f for f in fs if (f.estimate > TARGETS.minutes(p)[1] if side == "long"
                                     else f.estimate < TARGETS.minutes(p)[0])] for p, fs in pl.items()}
        ps = [p for p in pl if out[p]]
        if not ps:
            continue
        top, f = max(((p, f) for p in ps for f in out[p]), key=lambda pf: size(*pf))
        counts = (f"every player count measured ({ps[0]} to {ps[-1]})" if len(ps) == len(pl) and len(ps) > 2 else
                  ", ".join(map(str, ps[:-1])) + (" and " if len(ps) > 1 else "") + str(ps[-1]) + " players")
        probs.append(Problem(f"Games are {word} than the target at {counts}{where}: {listed(ps)}",
                             f"{who[f.id]}: {show(f)}" if f.id in who else f"{top} players: {show(f)}", size(top, f),
                             "q-length", assumed=note, facts=tuple(g.id for p in ps for g in out[p])))
    inside = [p for p, fs in pl.items() if all(TARGETS.minutes(p)[0] <= f.low and f.high <= TARGETS.minutes(p)[1]
                                                for f in fs)]
    if inside:
        f = pl[inside[0]][0]
        probs.append(Problem(f"Games are within the length target at {', '.join(map(str, inside))} players{where}: "
                             f"{listed(inside)}", f"{who[f.id]}: {show(f)}" if f.id in who else f"{inside[0]} players: {show(f)}",
                             0.0, "q-length", fine=True, assumed=note))
    return at_order(3, probs)


def _people_minutes(facts: dict[str, Fact]):
    """The minutes at the studies' tables of people: ({players: [fact, …]}, {fact id: the table in
    words}), or None where the run did not play them."""
    from ..panel import DEFAULT_PANEL

    pl: dict[int, list[Fact]] = {}
    who: dict[str, str] = {}
    for sc in DEFAULT_PANEL:
        f = facts.get(f"people.{sc.name}.minutes")
        if f is not None:
            pl.setdefault(sc.players, []).append(f)
            who[f.id] = people_words(sc)
    return (pl, who) if pl else None


def people_words(sc) -> str:
    """A table of people in the rungs' own words, never its id: "4 casual players", "5 players
    (novice, casual, regular, expert in turn)", "1 expert and 3 novices" (the rungs and a mixed
    table's players are slots the French catalogue fills, heron_sim.i18n: « 4 joueurs
    occasionnels », « 1 expert et 3 débutants »)."""
    from ...glossary import counted_players

    names = list(dict.fromkeys(sc.strategies))
    if len(names) == 1:
        return f"{sc.players} {names[0]} players"
    if len(sc.strategies) == sc.players:  # a mixed table, one player a seat: "1 expert and 3 novices"
        return counted_players(sc.strategies, "en")
    return f"{sc.players} players ({', '.join(names)} in turn)"


def comeback_problem(facts: dict[str, Fact]) -> list[Problem]:
    """Comebacks: the player last at mid-game against the designer's comeback floor."""
    F = facts.get
    probs: list[Problem] = []
    last = F("sensitivity.base.last_wins")
    if last:
        c = comeback(last)
        what = (f"Comebacks are rare: the player last at mid-game wins {pc(last.estimate, 1)}, below {c.words}" if c.size > 1
                else f"The player last at mid-game wins {pc(last.estimate, 1)}, at or above {c.words}" if c.fine
                else f"Whether the player last at mid-game reaches {c.words} is not settled")
        probs.append(Problem(what, show(last), c.size, "q-decisiveness", fine=c.fine,
                             assumed=assumed_note("comeback_floor", "share_margin"), facts=(last.id,)))
    return at_order(4, probs)
