"""Kind ``strategies``: the AI strategies alone, head to head, against chance, in a tournament."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd

from ...analysis import metrics as M
from ...analysis.intervals import wilson
from ...analysis.stats import binom_test, format_p, holm
from ...analysis.executive import pc, Row, rows_of, show, sure_share
from ...sections import Fact, Figure, Section, Table, num_ci, pct, pct_ci, plot
from ..options import HeronExperiment, Extra, Strategies, figures_of
from ..jobs import Job, resolve_strategies, seatings
from .base import ExperimentKind, Sizes
from .common import _disp, _fmt_cell, _mode_name, _seating_text


#: The figures this kind draws (the ``figures`` key chooses among them; default: all).
FIGURES = ('head_to_head', 'per_mode', 'variance')


class StrategiesExperiment(HeronExperiment):
    """The options of an experiment file of kind ``strategies``."""

    kind: Literal["strategies"] = "strategies"
    figures: figures_of(FIGURES) = FIGURES
    strategies: Strategies = "all"
    skill_games: Extra = 0
    h2h_games: Extra = 0
    mixed_games: Extra = 0


class StrategiesKind(ExperimentKind):
    """The AI strategies alone, head to head, against chance, in a tournament."""

    name = "strategies"
    options = StrategiesExperiment
    figures = FIGURES
    intro = "The AI strategies against each other and against chance."

    def jobs(self, exp: StrategiesExperiment, g: Sizes) -> list[Job]:
        P = exp.players
        jobs: list[Job] = []
        strats = resolve_strategies(exp.strategies)
        base = exp.rules.build(exp.modes[0], P)
        for m in exp.modes:
            r = exp.rules.build(m, P)
            for s in strats:
                jobs.append(Job(f"solo_{m}_{s}", "games", r, g(exp.games), exp.seed, [[s] * P],
                                labels={"part": "solo", "mode": m, "strategy": s}))
        for i, a in enumerate(strats):
            for b in strats[i + 1:]:
                jobs.append(Job(f"h2h_{a}_{b}", "games", base, g(exp.h2h_games or exp.games), exp.seed,
                                seatings([a, b], P), labels={"part": "h2h", "a": a, "b": b}))
        skilled = skill_strategy(strats)
        if "random" in strats and skilled != "random":
            jobs.append(Job("skill", "games", base, g(exp.skill_games or exp.games), exp.seed,
                            seatings([skilled] + ["random"] * (P - 1), P),
                            labels={"part": "skill", "strategy": skilled}))
        jobs.append(Job("mixed", "games", base, g(exp.mixed_games or exp.games), exp.seed, seatings(strats, P),
                        labels={"part": "mixed"}))
        ai = [s for s in strats if s != "random"]
        if "random" in strats and len(ai) >= 2:
            jobs.append(Job("mixed_ai", "games", base, g(exp.mixed_games or exp.games), exp.seed, seatings(ai, P),
                            labels={"part": "mixed", "ai_only": True}))
        from ..jobs import _has_tournament

        if _has_tournament():
            jobs.append(Job("tournament", "tournament", base, g(exp.h2h_games or exp.games), exp.seed,
                            labels={"part": "tournament", "strategies": strats}))
        return jobs

    def summary_rows(self, facts: dict[str, Fact]) -> list[Row]:
        return rows_of(facts, strategies_row)

    def fill(self, exp: StrategiesExperiment, data, sec: Section) -> None:
        solo = data.select(part="solo")
        strats = list(dict.fromkeys(j["labels"]["strategy"] for j in solo))
        sec.notes.append(f"Strategies registered at run time: {', '.join(strats)}.")
        _players_table(sec, strats)
        if "tournament" in data.jobs:
            _tournament(sec, data.frame("tournament"), data.jobs["tournament"])
        else:
            sec.notes.append("heron_sim.tournament was not available: the head-to-head below uses a rotation of seats.")
        solo_t = _solo_table(sec, data, solo)
        h2h, rate, low, high, cnt = _head_to_head(data, strats)
        if len(h2h):
            _head_to_head_table(sec, h2h)
            _head_to_head_findings(sec, h2h, rate, strats, exp.modes[0])
        if "skill" in data.jobs:
            _skill_check(sec, data)
        ve_all = _variance_explained(sec, data)
        if ve_all and self.want(exp, "variance"):
            sec.figures.append(_variance_figure(ve_all))
        if self.want(exp, "head_to_head") and len(h2h):
            sec.figures.append(Figure("head_to_head", "Head-to-head heat map: share of wins of the row strategy (95 % Wilson, n games).",
                                      plot("heatmap", rate, low, high, cnt)))
        if self.want(exp, "per_mode") and len(solo_t):
            sec.figures.append(_per_mode_figure(solo_t))


def _players_table(sec: Section, strats: list[str]) -> None:
    """What each AI player does (docs/strategies.md)."""
    known = [s for s in strats if s in AI_DESCRIPTIONS]
    if known:
        sec.tables.append(Table("The AI players (docs/strategies.md)", pd.DataFrame(
            {"what it does": [AI_DESCRIPTIONS[s][0] for s in known], "role": [AI_DESCRIPTIONS[s][1] for s in known]},
            index=pd.Index(known, name="strategy"))))


def _tournament(sec: Section, t: pd.DataFrame, tj: dict) -> None:
    """The two-player round robin: ranking and pair tables, facts and finding (or why it is missing)."""
    if "error" in t.columns:
        sec.notes.append(f"heron_sim.tournament failed: {t['error'].iloc[0]}")
    elif "table" in t.columns:
        rk = t[t["table"] == "ranking"].dropna(axis=1, how="all")
        disp = _disp({
            "games": [f"{int(x):,}" for x in rk["games"]],
            "win rate [95 % CI]": [pct_ci(r["win_rate"], r["low"], r["high"]) for _, r in rk.iterrows()],
            "rating (Bradley-Terry, Elo scale)": [f"{x:+z.0f}" for x in rk["rating"]],
            "advance / turn": [f"{x:.3f}" for x in rk["advance_per_turn"]],
            "Anxiety / turn": [pct(x, 2) for x in rk["anxiety_rate"]],
        }, index=pd.Index([x + (" (baseline)" if x == "random" else "") for x in rk["strategy"]], name="strategy"))
        sec.tables.append(Table(f"Tournament: two-player round robin on {_mode_name(tj['mode'])}, "
                                f"{tj['n']:,} games per seating of each pair, seats and guides mirrored", disp, data=t))
        pr = t[t["table"] == "pair"]
        m = pr.pivot(index="strategy", columns="opponent", values="win_rate")
        order = list(rk["strategy"])
        m = m.reindex(index=order, columns=order)
        lo = pr.pivot(index="strategy", columns="opponent", values="low").reindex(index=order, columns=order)
        hi = pr.pivot(index="strategy", columns="opponent", values="high").reindex(index=order, columns=order)
        sec.tables.append(Table("Tournament: win rate of the row against the column [95 % CI]", pd.DataFrame(
            {b: [pct_ci(m.at[a, b], lo.at[a, b], hi.at[a, b]) if a != b else "—" for a in order] for b in order}, index=order)))
        for _, r in rk.iterrows():
            sec.fact(f"strategies.tournament.{r['strategy']}", f"share of its two-player games won by {r['strategy']} "
                     f"in the round robin{' (baseline, not a player)' if r['strategy'] == 'random' else ''}",
                     r["win_rate"], r["low"], r["high"], int(r["games"]), "share")
        for a, r_ai in tournament_vs_ai(pr).items():
            sec.fact(f"strategies.tournament_ai.{a}", f"share of its two-player games against the other AI strategies "
                     f"won by {a} in the round robin (games against the random baseline left out)",
                     r_ai["rate"], r_ai["low"], r_ai["high"], r_ai["games"], "share", n_unit="decided games")
        best = rk.iloc[0]
        sec.findings.append(f"Tournament (two players, {_mode_name(tj['mode'])}): {best['strategy']} ranks first, winning "
                            f"{pct_ci(best['win_rate'], best['low'], best['high'])} of its games (rating {best['rating']:+z.0f}); "
                            "order: " + " > ".join(rk["strategy"]) + ".")
    else:
        sec.tables.append(Table("Tournament", t.head(50).map(_fmt_cell)))


def _solo_table(sec: Section, data, solo: list[dict]) -> pd.DataFrame:
    """Each strategy alone at the table, per mode."""
    rows = []
    for j in solo:
        df = data.frame(j["key"])
        lt = M.length_table(df)
        pr = M.per_turn_rates(df)
        rows.append({"mode": j["labels"]["mode"], "strategy": j["labels"]["strategy"], "games": len(df), **lt,
                     "played": len(df), "finished": int(df["finished"].sum()),
                     **{f"pr_{k}": v for k, v in pr.items()}})
    solo_t = pd.DataFrame(rows)
    sec.tables.append(Table("Each strategy alone at the table, per mode", _disp({
        "mode": solo_t["mode"].map(_mode_name), "strategy": solo_t["strategy"],
        "finished / played": [f"{r['finished']:,} / {r['played']:,}" + (" ⚠" if r["finished"] < 0.99 * r["played"] else "")
                              for _, r in solo_t.iterrows()],
        "rounds, finished games [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in solo_t.iterrows()],
        "advance / turn": [num_ci(r["pr_advance"], r["pr_advance_low"], r["pr_advance_high"], 3) for _, r in solo_t.iterrows()],
        "Anxiety / turn": [pct_ci(r["pr_anxiety"], r["pr_anxiety_low"], r["pr_anxiety_high"], 2) for _, r in solo_t.iterrows()],
    }).set_index(["mode", "strategy"]), data=solo_t,
        note="⚠: more than 1 % of the games did not finish within the round limit; the mean is over finished games only "
             "and understates the length."))
    return solo_t


def _head_to_head(data, names: list[str]):
    """The head-to-head batches: one row per pair, and the matrices of the heat map."""
    rate = pd.DataFrame(np.nan, index=names, columns=names)
    low, high, cnt = rate.copy(), rate.copy(), pd.DataFrame(0, index=names, columns=names)
    h2h_rows = []
    for j in data.select(part="h2h"):
        a, b = j["labels"]["a"], j["labels"]["b"]
        df = data.frame(j["key"])
        ws = df["winner_strategy"].astype(str).to_numpy()
        ka, kb = int((ws == a).sum()), int((ws == b).sum())
        r, lo, hi = wilson(ka, ka + kb)
        rate.at[a, b], low.at[a, b], high.at[a, b], cnt.at[a, b] = r, lo, hi, ka + kb
        rate.at[b, a], low.at[b, a], high.at[b, a], cnt.at[b, a] = 1 - r, 1 - hi, 1 - lo, ka + kb
        h2h_rows.append({"a": a, "b": b, "wins_a": ka, "wins_b": kb, "share_a": r, "low": lo, "high": hi,
                         "p": binom_test(ka, ka + kb, 0.5) if ka + kb else math.nan})
    h2h = pd.DataFrame(h2h_rows)
    if len(h2h):
        h2h["p_holm"] = holm(h2h["p"].fillna(1.0))
    return h2h, rate, low, high, cnt


def _head_to_head_table(sec: Section, h2h: pd.DataFrame) -> None:
    sec.tables.append(Table("Head to head (two seats each, seats rotated): share of wins of A", _disp({
        "A": h2h["a"], "B": h2h["b"], "games won (A / B)": [f"{r.wins_a:,} / {r.wins_b:,}" for r in h2h.itertuples()],
        "A's share [95 % CI]": [pct_ci(r["share_a"], r["low"], r["high"]) for _, r in h2h.iterrows()],
        "p (Holm)": h2h["p_holm"].map(format_p)}).set_index(["A", "B"]), data=h2h))


def _head_to_head_findings(sec: Section, h2h: pd.DataFrame, rate: pd.DataFrame, names: list[str], mode: str) -> None:
    ai = h2h[(h2h["a"] != "random") & (h2h["b"] != "random")]
    if len(ai):
        avg = {s: np.nanmean([rate.at[s, o] for o in names if o != s and o != "random"]) for s in names if s != "random"}
        order = sorted(avg, key=avg.get, reverse=True)
        top = ai.iloc[(ai["share_a"] - 0.5).abs().argmax()]
        sec.findings.append(
            f"Head to head on {_mode_name(mode)} (two seats each, seats rotated; each AI's mean head-to-head share "
            "against the other AIs, a different measure from the two-player round robin's share of wins, which the "
            "AI strategies answer gives): "
            + ", ".join(f"{s} {pct(avg[s])}" for s in order)
            + f"; the widest gap: {top['a']} takes {pct_ci(top['share_a'], top['low'], top['high'])} of the wins against "
              f"{top['b']} ({format_p(top['p_holm'])}, Holm).")
    if "random" in names:
        vs = h2h[(h2h["a"] == "random") | (h2h["b"] == "random")]
        share_r = [r.share_a if r.a == "random" else 1 - r.share_a for r in vs.itertuples()]
        sec.findings.append(f"`random` takes at most {pct(max(share_r))} of the wins against any AI strategy head to head.")


def _skill_check(sec: Section, data) -> None:
    """One AI seat against random-baseline seats: a sanity check, not a player."""
    df = data.frame("skill")
    s = data.jobs["skill"]["labels"]["strategy"]
    st = M.strategy_table(df).set_index("strategy")
    P = int(df["players"].iloc[0])
    k, n = int(st.at[s, "wins"]), int(st.at[s, "seats"])
    r, lo, hi = wilson(k, n)
    p = binom_test(k, n, 1 / P)
    sec.tables.append(Table(f"Sanity check: one {s} seat against {P - 1} random-baseline seats (seats rotated)", _disp({
        "games": [f"{n:,}"], f"{s} win rate [95 % CI]": [pct_ci(r, lo, hi)], "fair": [pct(1 / P)], "test": [format_p(p)]},
        index=[s])))
    sec.findings.append(f"Against the random baseline (a sanity check, not a player): one {s} seat with {P - 1} random seats "
                        f"wins {pct_ci(r, lo, hi)} of games ({format_p(p)} against {pct(1 / P)}).")


def _variance_explained(sec: Section, data) -> list[pd.DataFrame]:
    """The mixed tables: each strategy's win rate per seat (facts), and the share of the variance
    of winning that seat, guide or strategy explains (tables, findings)."""
    ve_all = []
    for key, who in (("mixed", "all strategies"), ("mixed_ai", "AI strategies only")):
        if key not in data.jobs:
            continue
        df = data.frame(key)
        if key == "mixed_ai" or "mixed_ai" not in data.jobs:
            # the skill answer in a designer's terms: each strategy's share of the seats it won at a
            # rotated 4-player table of the AI strategies (fair 1/players)
            st4 = M.strategy_table(df)
            P4 = int(df["players"].iloc[0])
            for _, r in st4.iterrows():
                if r["strategy"] == "random" and key == "mixed_ai":
                    continue
                k4, n4 = int(r["wins"]), int(r["seats"])
                sec.fact(f"strategies.win_share.{r['strategy']}", f"{r['strategy']}'s win rate per seat at a rotated "
                         f"{P4}-player table ({who})", r["win_rate"], r["low"], r["high"], n4, "share",
                         n_unit="seats played", p=binom_test(k4, n4, 1 / P4), note=f"fair {1 / P4:.4f}")
        ve = M.variance_explained(df)
        ve["table"] = who
        ve_all.append(ve)
        sec.tables.append(Table(f"Share of outcome variance explained, {who} (eta squared of each factor alone, per player-game won 0/1)",
                                _disp({"levels": ve["levels"],
                                              "eta squared [95 % CI]": [pct_ci(r["eta_squared"], r["low"], r["high"], 2) for _, r in ve.iterrows()]},
                                             index=ve["factor"]), data=ve,
                                note=f"{len(df):,} games, {_seating_text(data.jobs[key])}; interval: bootstrap over games. "
                                     "Each factor alone; the rest is not explained by any one of them (dice, interactions, opponents)."))
        sec.findings.append(f"Share of the variance of winning explained ({who}): " + ", ".join(
            f"{r['factor']} {pct_ci(r['eta_squared'], r['low'], r['high'], 2)}" for _, r in ve.iterrows()) + " (each factor alone).")
    return ve_all


def _variance_figure(ve_all: list[pd.DataFrame]) -> Figure:
    t = pd.concat(ve_all, ignore_index=True)
    t = t.assign(rate=t["eta_squared"], group=t["table"], n=t["player_games"])
    return Figure("variance", "Share of the variance of winning explained by each factor alone (95 % bootstrap interval).",
                  plot("grouped_rates", t, group="group", category="factor",
                       title="What decides the game: seat, guide or strategy", xlabel="factor",
                       ylabel="variance of winning explained (%)",
                       note="n = player-games; the rest of the variance is the dice"))


def _per_mode_figure(solo_t: pd.DataFrame) -> Figure:
    t = solo_t.assign(rate=solo_t["pr_advance"], low=solo_t["pr_advance_low"], high=solo_t["pr_advance_high"], n=solo_t["games"])
    return Figure("per_mode", "Advance per played turn of each strategy playing alone, by mode.",
                  plot("grouped_rates", t, group="strategy", category="mode", percent=False,
                       title="Advance per turn by strategy and mode", xlabel="dice mode",
                       ylabel="advance per played turn (squares)"))



def skill_strategy(strats: list[str]) -> str:
    """The strategy whose skill is measured against ``random``: ``expert`` when registered,
    else the first non-random one."""
    if "expert" in strats:
        return "expert"
    others = [s for s in strats if s != "random"]
    return others[0] if others else "random"


#: One line per registered AI, for readers who never saw the code (details: docs/strategies.md).
AI_DESCRIPTIONS = {
    "greedy": ("chases the largest set showing, keeps its dice, rerolls whenever allowed; uses only the Taureau, Lion "
               "and Serpent powers (rulings §7)", "the simple reference; its turn law is computed exactly"),
    "prudent": ("like greedy, but stops with a scoring hand when the next roll risks the Angoisse more than 30 % "
                "or would not raise the expected advance",
                "a cautious, human-like player"),
    "expert": ("the exactly optimal single turn: maximises the expected advance of the turn over every keep/stop "
               "decision (dynamic programme)", "a strong player for one turn at a time"),
    "racer": ("the expert's tables played for the race: also weighs the square it would land on and the finish",
              "the strongest player measured"),
    "random": ("every decision drawn at random among the legal ones", "a baseline, not a player: kept out of skill claims"),
}


def tournament_vs_ai(pairs: pd.DataFrame, baseline: str = "random") -> dict:
    """Each AI strategy's share of wins over its round-robin games against the other AI
    strategies only (the ``baseline`` is left out, as opponent and as player): the wins of the
    row and of the column of each pair add up to the pair's decided games. Wilson interval."""
    wins = {(r["strategy"], r["opponent"]): int(r["wins"]) for _, r in pairs.iterrows()}
    out = {}
    for a in dict.fromkeys(pairs["strategy"]):
        if a == baseline:
            continue
        k = n = 0
        for (x, b), w in wins.items():
            if x == a and b != baseline and (b, a) in wins:
                k += w
                n += w + wins[(b, a)]
        if n:
            rate, lo, hi = wilson(k, n)
            out[a] = {"rate": rate, "low": lo, "high": hi, "games": n}
    return out


# ---------------------------------------------------------------- the executive page's rows
def strategies_row(facts: dict[str, Fact]) -> Row | None:
    """The AI strategies: the round robin's order and the skill at a rotated table."""
    tour = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("strategies.tournament.")}
    # the random baseline is kept out of skill claims: an AI's share of wins counts only its games
    # against the other AI strategies (its games against random would inflate every AI alike)
    vs_ai = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("strategies.tournament_ai.")}
    ai = vs_ai or {k: v for k, v in tour.items() if k != "random"}
    if ai:
        order = sorted(ai, key=lambda k: ai[k].estimate, reverse=True)
        top = ai[order[0]]
        answer = (f"In a two-player round robin {order[0]} wins {pc(top.estimate, 0)} of its games"
                  + (" against the other AI strategies" if vs_ai else
                     " (its games against the random baseline included)" if "random" in tour else "")
                  + "; order " + " > ".join(order)
                  + (f"; the random baseline wins {pc(tour['random'].estimate, 0)} of its games" if "random" in tour else "")
                  + ".")
        ws = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("strategies.win_share.")}
        action = (f"The seed asks for three AI strategies; the simulator has {len(ai)} ({', '.join(sorted(ai))}) and a "
                  "random baseline (docs/strategies.md). "
                  + ("Skill at a rotated 4-player table (win rate per seat, fair 25 %): "
                     + ", ".join(f"{k} {pc(v.estimate)} [{100 * v.low:.1f}, {100 * v.high:.1f}]"
                                 for k, v in sorted(ws.items(), key=lambda kv: kv[1].estimate)) + "." if ws else ""))
        return Row("The AI strategies", answer, show(top), sure_share(top, 0.5, "even share"), action, top.id,
                        "strategies", True, key="strategies", order=5)
