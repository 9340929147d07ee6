"""Kind ``guides``: win rate per guide, Guide Power doubling, one-shot powers by ablation."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd

from ...analysis import metrics as M
from ...analysis.stats import format_p, holm, paired_difference
from ...analysis.executive import (GUIDE_SPREAD_WORDS, GUIDES, assumed_note, at_order, fair_of, is_fine, margin_words, pc,
                                  points_from, problems_of, remedy, Row, rows_of, show, sure_share, variants)
from ...analysis.judge import SHARE_MARGIN, guide_spread_interval, lower_bound_size, Problem, reading
from ...animals import NAMES as ANIMALS
from ...sections import Fact, Figure, Section, Table, pct, pct_ci, plot, signed_ci
from ..options import HeronExperiment, Extra, PlayerCounts, RungNames, Seating, figures_of
from ..jobs import Job, resolve_strategies, seatings
from .base import ExperimentKind, Sizes
from .common import GUIDE_FR, _disp, _mode_name
from .rungs import fill_rungs, rung_jobs, rung_problems, rungs_row


#: The figures this kind draws (the ``figures`` key chooses among them; default: all).
FIGURES = ('win_rate', 'ablation', 'doubling')


class GuidesExperiment(HeronExperiment):
    """The options of an experiment file of kind ``guides``."""

    kind: Literal["guides"] = "guides"
    figures: figures_of(FIGURES) = FIGURES
    seating: Seating = "ai"
    #: games per ablation batch (all powers off; each power off alone); 0: as many as ``games``
    ablation_games: Extra = 0
    #: other player counts at which each power's worth is measured again by restricted play (the
    #: same seating rotated over that many seats; a default batch and one batch per power off,
    #: ``ablation_games`` games each); the plan's own ``players`` is always measured
    ablation_players: PlayerCounts = ()
    #: the skill ladder's rungs (or any strategies), each alone at every seat of a batch of its
    #: own (the plan's players, seed and rules): every balance figure again per rung
    #: (heron_sim.runner.kinds.rungs)
    rungs: RungNames = ()
    #: games per rung batch; 0: as many as ``games``
    rung_games: Extra = 0


class GuidesKind(ExperimentKind):
    """Win rate per guide, Guide Power doubling, one-shot powers by ablation."""

    name = "guides"
    options = GuidesExperiment
    figures = FIGURES
    intro = "Win rate of each guide, Guide Power doubling, and one-shot powers by ablation."

    def jobs(self, exp: GuidesExperiment, g: Sizes) -> list[Job]:
        P = exp.players
        jobs: list[Job] = []
        seat = seatings(resolve_strategies(exp.seating), P)
        for m in exp.modes:
            r = exp.rules.build(m, P)
            jobs.append(Job(f"games_{m}_on", "games", r, g(exp.games), exp.seed, seat, labels={"mode": m, "powers": True}))
            n_off = g(exp.ablation_games or exp.games)
            if n_off != g(exp.games):
                # the ablations are paired game by game (same seeds and seatings): they need a
                # default-rules batch of their own size when it differs from the main batch
                jobs.append(Job(f"games_{m}_ref", "games", r, n_off, exp.seed, seat,
                                labels={"mode": m, "powers": True, "reference": True}))
            # Puissance du Guide (the passive doubling) switched off, same seeds and seatings as the main batch
            jobs.append(Job(f"games_{m}_nodouble", "games", r.replace(guide_power_doubling=False), g(exp.games), exp.seed,
                            seat, labels={"mode": m, "powers": True, "doubling": False}))
            jobs.append(Job(f"games_{m}_off", "games", r.replace(powers=False), n_off, exp.seed, seat,
                            labels={"mode": m, "powers": False}))
            # Clean per-power ablation: the same seeds with only guide a's one-shot power disabled.
            for a, name in enumerate(ANIMALS):
                if not r.power_enabled(a):
                    continue  # already off in this experiment's rules: nothing to ablate
                no_a = r.replace(disabled_powers=tuple(sorted(set(r.disabled_powers) | {a})))
                jobs.append(Job(f"games_{m}_no_{name}", "games", no_a, n_off, exp.seed, seat,
                                labels={"mode": m, "powers": True, "disabled": name}))
            for q in sorted(set(exp.ablation_players) - {P}):
                # restricted play at another player count: its own default batch, then each power off
                rq, seat_q = exp.rules.build(m, q), seatings(resolve_strategies(exp.seating), q)
                jobs.append(Job(f"games_{m}_p{q}_ref", "games", rq, n_off, exp.seed, seat_q,
                                labels={"mode": m, "powers": True, "reference": True, "at_players": q}))
                for a, name in enumerate(ANIMALS):
                    if rq.power_enabled(a):
                        no_a = rq.replace(disabled_powers=tuple(sorted(set(rq.disabled_powers) | {a})))
                        jobs.append(Job(f"games_{m}_p{q}_no_{name}", "games", no_a, n_off, exp.seed, seat_q,
                                        labels={"mode": m, "powers": True, "disabled": name, "at_players": q}))
            jobs += rung_jobs(exp, m, r, g(exp.rung_games or exp.games))
        return jobs

    def summary_rows(self, facts: dict[str, Fact]) -> list[Row]:
        return rows_of(facts, doubling_row, guide_balance_row, rungs_row, powers_row)

    def summary_problems(self, facts: dict[str, Fact]) -> list[Problem]:
        return problems_of(facts, guide_problems, powers_problem, rung_problems)

    def fill(self, exp: GuidesExperiment, data, sec: Section) -> None:
        for m in exp.modes:
            on_key, off_key = f"games_{m}_on", f"games_{m}_off"
            on = data.frame(on_key)
            P = M.seats(on)
            gt = M.guide_table(on)
            self.note_seating(sec, self.job(data, on_key))
            _when_dealt_table(sec, m, gt, P)
            dbl = M.doubling_share(on)
            _doubling_table(sec, m, dbl)
            # Reference for the paired ablations: the default-rules batch of the ablations' size.
            ref_key = f"games_{m}_ref" if f"games_{m}_ref" in data.jobs else on_key
            ref = data.frame(ref_key) if ref_key != on_key else on
            offs = {j["labels"]["disabled"]: data.frame(j["key"])
                    for j in data.select(mode=m) if j["labels"].get("disabled") and "at_players" not in j["labels"]}
            ab = _ablation(sec, ref, offs) if offs else pd.DataFrame()
            by_strategy = _power_by_strategy(sec, m, ref, offs) if len(ab) else pd.DataFrame()
            if len(by_strategy):
                _power_by_players(sec, m, data, M.seats(ref), ab, by_strategy)
            allp = (_ablation(sec, ref, {name: data.frame(off_key) for name in ANIMALS}) if off_key in data.jobs
                    else pd.DataFrame())
            _power_table(sec, m, ab, allp)
            _guide_facts(sec, m, gt, dbl, P)
            nd_key = f"games_{m}_nodouble"
            if nd_key in data.jobs:
                _no_doubling(sec, m, on, data.frame(nd_key), gt)
            for _, r in (ab if len(ab) else pd.DataFrame()).iterrows():
                sec.fact(f"guides.power_value.{m}.{r['guide']}", f"value of the {GUIDE_FR[r['guide']]} guide's pouvoir ponctuel "
                         f"to its holder (win rate when dealt, on − off), {_mode_name(m)}", r["diff"], r["low"], r["high"],
                         r["n"], "share difference", n_unit="paired games where dealt", p=r["p_holm"])
            _guide_finding(sec, m, gt)
            sec.findings.append(f"Guide Power doubling gives {pct_ci(dbl.iloc[0]['share'], dbl.iloc[0]['low'], dbl.iloc[0]['high'])} "
                                f"of all advance on {_mode_name(m)}.")
            _power_finding(sec, m, ab, allp)
            fill_rungs(exp, data, sec, m)
            if self.want(exp, "win_rate"):
                sec.figures.append(_win_rate_figure(m, gt, P))
            fab = ab if len(ab) else allp
            if self.want(exp, "ablation") and len(fab):
                sec.figures.append(_ablation_figure(m, fab, bool(len(ab))))
            if self.want(exp, "doubling"):
                sec.figures.append(_doubling_figure(m, dbl))


def _when_dealt_table(sec: Section, m: str, gt: pd.DataFrame, P: int) -> None:
    """The one scale of every guide figure: the win rate of the player dealt it, Holm over the guides."""
    sec.tables.append(Table(f"{_mode_name(m)}: win rate by starting guide, when dealt (fair 1/{P})", _disp({
        "games where dealt": gt["dealt"].map("{:,}".format),
        "win rate when dealt [95 % CI]": [pct_ci(r["win_rate_when_dealt"], r["when_dealt_low"], r["when_dealt_high"]) for _, r in gt.iterrows()],
        "minus fair": [f"{100 * (r['win_rate_when_dealt'] - r['fair_when_dealt']):+z.1f} pts" for _, r in gt.iterrows()],
        "p (Holm)": gt["p_when_dealt_holm"].map(format_p), "flag": gt["flag"],
    }, index=pd.Index(gt["guide"].map(GUIDE_FR), name="guide")), data=gt,
        note=f"One scale for every guide figure of the report: the win rate of the player dealt the guide, fair 1/{P}. "
             "Exact binomial test, Holm-corrected over the seven guides; a guide is flagged strong or weak only when the "
             f"test survives the correction and the interval lies beyond {margin_words()} (possibly: it reaches beyond)."))


def _doubling_table(sec: Section, m: str, dbl: pd.DataFrame) -> None:
    sec.tables.append(Table(f"{_mode_name(m)}: share of advance from the Puissance du Guide (passive doubling), by starting guide", _disp({
        "player-games": dbl["players"].map("{:,}".format),
        "share [95 % CI]": [pct_ci(r["share"], r["low"], r["high"]) for _, r in dbl.iterrows()]}, index=pd.Index(dbl["guide"].map(GUIDE_FR), name="guide")), data=dbl))


def _power_table(sec: Section, m: str, ab: pd.DataFrame, allp: pd.DataFrame) -> None:
    """The value of each one-shot power: one power off at a time (else all of them at once)."""
    if len(ab):
        cols = {
            "power uses / game": ab["uses"].map("{:.3f}".format),
            "win rate when dealt, power off": ab["off"].map(pct), "on": ab["on"].map(pct),
            "on - off [95 % CI]": [signed_ci(r["diff"], r["low"], r["high"], 1, 100, " pts") for _, r in ab.iterrows()],
            "p (Holm)": ab["p_holm"].map(format_p)}
        if len(allp):
            al = allp.set_index("guide")
            cols["all powers off instead [95 % CI]"] = [
                signed_ci(al.at[g, "diff"], al.at[g, "low"], al.at[g, "high"], 1, 100, " pts") if g in al.index else "n/a"
                for g in ab["guide"]]
        sec.tables.append(Table(
            f"{_mode_name(m)}: value of each one-shot power, one power switched off at a time (same seeds)",
            _disp(cols, index=pd.Index(ab["guide"].map(GUIDE_FR), name="guide")), data=ab,
            note=f"Row g: the default rules vs the same {int(ab['games'].iloc[0]):,} games (seeds and seatings) with only "
                 "g's one-shot power switched off (Guide Power doubling unchanged); win rate "
                 "of the player dealt g at the start, paired t interval over the games where g was dealt "
                 f"(about {int(ab['n'].median()):,}), Holm-corrected over the guides. The last column is the older "
                 "all-powers-off ablation, which mixes g's power with the loss of the opponents' powers."))
    elif len(allp):
        sec.tables.append(Table(f"{_mode_name(m)}: pouvoirs ponctuels by ablation (same seeds, all powers on vs off)", _disp({
            "power uses / game": allp["uses"].map("{:.3f}".format),
            "win rate when dealt, off": allp["off"].map(pct), "on": allp["on"].map(pct),
            "on - off [95 % CI]": [signed_ci(r["diff"], r["low"], r["high"], 1, 100, " pts") for _, r in allp.iterrows()],
            "p (Holm)": allp["p_holm"].map(format_p)}, index=pd.Index(allp["guide"].map(GUIDE_FR), name="guide")), data=allp,
            note="All one-shot powers off at once: each row is that guide's power plus its interactions."))


def _guide_facts(sec: Section, m: str, gt: pd.DataFrame, dbl: pd.DataFrame, P: int) -> None:
    """Win rates (of all games and when dealt), the doubling's share, the spread and its fair floor."""
    from ...analysis.judge import fair_floor_dealt

    for _, r in gt.iterrows():
        sec.fact(f"guides.win_rate.{m}.{r['guide']}", f"share of games won by the player dealt the {GUIDE_FR[r['guide']]} guide, "
                 f"{_mode_name(m)}", r["win_rate"], r["low"], r["high"], r["games"], "share", p=r["p_holm"],
                 note="fair 1/7; exact binomial test, Holm over the 7 guides")
    for _, r in dbl.iterrows():
        sec.fact(f"guides.doubling_share.{m}.{r['guide']}", f"share of advance from the Puissance du Guide, "
                 f"{'all players' if r['guide'] == 'all' else GUIDE_FR[r['guide']] + ' guide'}, {_mode_name(m)}",
                 r["share"], r["low"], r["high"], r["players"], "share", n_unit="player-games",
                 note="ratio over player-games")
    for _, r in gt.iterrows():
        if r["dealt"] == 0:
            continue
        sec.fact(f"guides.when_dealt.{m}.{r['guide']}", f"win rate of the player dealt the {GUIDE_FR[r['guide']]} guide "
                 f"(when dealt), {_mode_name(m)}", r["win_rate_when_dealt"], r["when_dealt_low"], r["when_dealt_high"],
                 r["dealt"], "share", n_unit="games where dealt", p=r["p_when_dealt_holm"],
                 note=(f"flag {r['flag']}; " if r["flag"] else "") + f"fair {1 / P:.4f}; exact binomial test, Holm over the "
                      f"7 guides; flagged only beyond {margin_words()}")
    dealt = gt[gt["dealt"] > 0]
    fl = fair_floor_dealt(int(dealt["dealt"].mean()), 1 / P, len(dealt))
    sec.fact(f"guides.spread_floor.{m}", f"guide spread (largest gap between a guide's win rate when dealt and the fair "
             f"share) in a perfectly fair game at the same n (median; high: 95th percentile), {_mode_name(m)}", fl["gap_median"],
             math.nan, fl["gap_p95"], int(dealt["dealt"].mean()), "share difference", n_unit="games where dealt (each guide)",
             note="simulated: 2,000 fair games of the same size, fixed seed")
    spread, slo, shi = guide_spread_interval(dealt["wins"], dealt["dealt"], 1 / P)
    sec.fact(f"guides.spread.{m}", f"guide spread (largest gap between a guide's win rate when dealt and the fair share), "
             f"{_mode_name(m)} (a perfectly fair game at the same n: guides.spread_floor)",
             spread, slo, shi, n=int(gt["games"].iloc[0]), unit="share difference",
             note=f"fair {1 / P:.4f}; interval: parametric bootstrap of the seven win rates, widened to hold the estimate")


def _guide_finding(sec: Section, m: str, gt: pd.DataFrame) -> None:
    gd_ = gt[gt["dealt"] > 0].reset_index(drop=True)
    worst = gd_.iloc[(gd_["win_rate_when_dealt"] - gd_["fair_when_dealt"]).abs().argmax()]
    best = gd_.iloc[gd_["win_rate_when_dealt"].argmax()]
    flagged = gt[gt["flag"] != ""]
    sec.findings.append(
        f"On {_mode_name(m)} the player dealt the {GUIDE_FR[worst['guide']]} guide wins "
        f"{pct_ci(worst['win_rate_when_dealt'], worst['when_dealt_low'], worst['when_dealt_high'])} of its games "
        f"against a fair {pct(worst['fair_when_dealt'])} (Holm {format_p(worst['p_when_dealt_holm'])}); "
        + (f"the strongest is {GUIDE_FR[best['guide']]} at {pct_ci(best['win_rate_when_dealt'], best['when_dealt_low'], best['when_dealt_high'])}; "
           if best['guide'] != worst['guide'] else "")
        + (f"flagged beyond the {margin_words()} margin after Holm: {', '.join(f'{GUIDE_FR[r.guide]} ({r.flag})' for r in flagged.itertuples())}."
           if len(flagged) else f"no guide is beyond the {margin_words()} margin after Holm correction."))


def _power_finding(sec: Section, m: str, ab: pd.DataFrame, allp: pd.DataFrame) -> None:
    if len(ab):
        best = ab.iloc[ab["diff"].abs().argmax()]
        sig = ab[ab["p_holm"] <= 0.05]
        sec.findings.append(
            f"One power at a time on {_mode_name(m)} (same {int(ab['games'].iloc[0]):,} seeds, only that power disabled): "
            f"the largest effect is {GUIDE_FR[best['guide']]}'s power, worth "
            f"{signed_ci(best['diff'], best['low'], best['high'], 1, 100, ' points')} of win rate to the player dealt it "
            f"(Holm {format_p(best['p_holm'])}); "
            + (f"powers that change their holder's win rate significantly after Holm correction: "
               + ", ".join(f"{GUIDE_FR[r.guide]} {100 * r.diff:+z.1f}" for r in sig.sort_values("diff", ascending=False).itertuples())
               + " points." if len(sig) else "no single power changes its holder's win rate significantly after Holm correction."))
    elif len(allp):
        best = allp.iloc[allp["diff"].abs().argmax()]
        sec.findings.append(
            f"Largest power effect by ablation (all powers off): {GUIDE_FR[best['guide']]} "
            f"({signed_ci(best['diff'], best['low'], best['high'], 1, 100, ' points')} win rate when dealt, Holm {format_p(best['p_holm'])}).")


def _win_rate_figure(m: str, gt: pd.DataFrame, P_: int) -> Figure:
    t = gt[gt["dealt"] > 0].assign(rate=lambda d: d["win_rate_when_dealt"], low=lambda d: d["when_dealt_low"],
                                    high=lambda d: d["when_dealt_high"], n=lambda d: d["dealt"],
                                    mode=_mode_name(m), guide=lambda d: d["guide"].map(GUIDE_FR))
    return Figure(f"win_rate_{m}", f"Win rate by starting guide when dealt, {_mode_name(m)} (95 % Wilson; "
                                   f"dashed: fair 1/{P_}).",
                  plot("grouped_rates", t, group="mode", category="guide",
                       title=f"Win rate by guide when dealt ({_mode_name(m)})", xlabel="starting guide",
                       ylabel="win rate of the player dealt it (%)", fair=1 / P_,
                       fair_label=f"fair share 1/{P_}"))


def _ablation_figure(m: str, fab: pd.DataFrame, one_at_a_time: bool) -> Figure:
    how = "only that guide's power switched off" if one_at_a_time else "all powers switched off"
    return Figure(f"ablation_{m}", f"Value of each one-shot power: win rate of the player dealt the guide, "
                                   f"default rules minus {how} (paired by seed, 95 % t interval).",
                  plot("forest", fab.assign(guide=fab["guide"].map(GUIDE_FR)), label="guide",
                       title=f"Value of the guides' powers by ablation ({_mode_name(m)})",
                       xlabel="win rate when dealt, on - off (percentage points)", scale=100,
                       note=f"{how}; n = {int(fab['n'].min()):,}–{int(fab['n'].max()):,} paired games per guide"))


def _doubling_figure(m: str, dbl: pd.DataFrame) -> Figure:
    t = dbl.rename(columns={"share": "rate"}).assign(group=_mode_name(m), n=dbl["players"], guide=dbl["guide"].map(GUIDE_FR))
    return Figure(f"doubling_{m}", "Share of each guide's advance that comes from the Puissance du Guide (passive doubling), "
                  "95 % interval. Look at the Héron bar: herons never form a set, so a Héron guide can never double.",
                  plot("grouped_rates", t, group="group", category="guide",
                       title=f"Advance from the Puissance du Guide ({_mode_name(m)})", xlabel="starting guide",
                       ylabel="share of the player's advance (%)"))



def _ablation(sec: Section, ref: pd.DataFrame, offs: dict) -> pd.DataFrame:
    """:func:`metrics.power_ablation`, or an empty table and a note when the batches are not
    paired game by game (a run folder from before the reference batch existed)."""
    try:
        return M.power_ablation(ref, offs)
    except ValueError as err:
        sec.notes.append(f"Ablation left out: {err}.")
        return pd.DataFrame()


def _no_doubling(sec: Section, m: str, on: pd.DataFrame, off: pd.DataFrame, gt: pd.DataFrame) -> None:
    """Puissance du Guide on vs off on the same seeds: each guide's win rate when dealt, paired
    game by game, and the game length."""
    n = min(len(on), len(off))
    on, off = on.iloc[:n], off.iloc[:n]
    rows = []
    for a, name in enumerate(ANIMALS):
        d = paired_difference(M.guide_win_indicator(off, a), M.guide_win_indicator(on, a))  # on - off
        rows.append({"guide": name, "off": d["a"], "on": d["b"], "diff": d["diff"], "low": d["low"],
                     "high": d["high"], "p": d["p"], "n": d["n"]})
    t = pd.DataFrame(rows)
    t["p_holm"] = holm(t["p"].fillna(1.0))
    fin_on = np.where(on["finished"], on["rounds"], np.nan)
    fin_off = np.where(off["finished"], off["rounds"], np.nan)
    ln = paired_difference(fin_off, fin_on)  # on - off
    P = M.seats(on)
    gt_off = M.guide_table(off)
    dealt_off = gt_off[gt_off["dealt"] > 0]
    spread_off, so_lo, so_hi = guide_spread_interval(dealt_off["wins"], dealt_off["dealt"], 1 / P)
    dealt_on = gt[gt["dealt"] > 0]
    spread_on = guide_spread_interval(dealt_on["wins"], dealt_on["dealt"], 1 / P)[0]
    sec.tables.append(Table(f"{_mode_name(m)}: Puissance du Guide (passive doubling) on vs off, same seeds", _disp({
        "win rate when dealt, doubling off": t["off"].map(pct),
        "on": t["on"].map(pct),
        "on − off [95 % CI]": [signed_ci(r["diff"], r["low"], r["high"], 1, 100, " pts") for _, r in t.iterrows()],
        "p (Holm)": t["p_holm"].map(format_p),
    }, index=pd.Index([GUIDE_FR[g] for g in t["guide"]], name="guide")), data=t,
        note=f"The same {n:,} games (seeds, seatings, guides dealt) played with the Puissance du Guide switched off; paired "
             f"t intervals over the games where the guide was dealt; fair share when dealt 1/{M.seats(on)}. "
             f"Guide spread (largest gap between a guide's win rate when dealt and the fair share): "
             f"{100 * spread_on:.1f} points with doubling (as in the guide balance above), {100 * spread_off:.1f} without. "
             f"Game length with doubling {ln['b']:.2f} rounds, without {ln['a']:.2f} "
             f"({signed_ci(ln['diff'], ln['low'], ln['high'], 2)} rounds)."))
    for _, r in t.iterrows():
        sec.fact(f"guides.doubling_effect.{m}.{r['guide']}", f"win rate when dealt the {GUIDE_FR[r['guide']]} guide, "
                 f"Puissance du Guide on − off, {_mode_name(m)}", r["diff"], r["low"], r["high"], r["n"], "share difference",
                 n_unit="paired games where dealt", p=r["p_holm"])
        sec.fact(f"guides.win_when_dealt_nodouble.{m}.{r['guide']}", f"win rate when dealt the {GUIDE_FR[r['guide']]} guide "
                 f"without Puissance du Guide, {_mode_name(m)}", r["off"], n=r["n"], unit="share", n_unit="games where dealt")
    sec.fact(f"guides.spread_nodouble.{m}", f"guide spread (largest gap between a guide's win rate when dealt and the fair "
             f"share), doubling off, {_mode_name(m)} (doubling on: guides.spread)", spread_off, so_lo, so_hi,
             n=len(off), unit="share difference",
             note=f"fair {1 / P:.4f}; interval: parametric bootstrap of the seven win rates, widened to hold the estimate")
    sec.fact(f"guides.nodouble.length.{m}", f"game length change from the Puissance du Guide (on − off), {_mode_name(m)}",
             ln["diff"], ln["low"], ln["high"], ln["n"], "rounds", n_unit="paired finished games", p=ln["p"])


def _holder_indicator(df: pd.DataFrame, guide: int, strategy: str) -> np.ndarray:
    """Per game: 1 if the player dealt ``guide`` won, 0 if not; NaN unless that player plays
    ``strategy``."""
    P = M.seats(df)
    winner = df["winner"].to_numpy()
    out = np.full(len(df), np.nan)
    for s in range(P):
        g = df[f"guide_{s}"]
        codes = g.cat.codes.to_numpy() if hasattr(g, "cat") else np.array([ANIMALS.index(v) for v in g])
        has = (codes == guide) & (df[f"strategy_{s}"].astype(str).to_numpy() == strategy)
        out[has] = (winner[has] == s).astype(float)
    return out


def _strategy_rows(ref: pd.DataFrame, offs: dict) -> pd.DataFrame:
    """Each power's worth to its holder per strategy (restricted play: the same games with only
    that power off; paired t interval), read with Holm over every guide and strategy."""
    from ...analysis.judge import SHARE_MARGIN, family_readings

    strategies = sorted({str(x) for s in range(M.seats(ref)) for x in ref[f"strategy_{s}"].astype(str).unique()})
    rows = []
    for g, off in offs.items():
        a = ANIMALS.index(g)
        for st in strategies:
            d = paired_difference(_holder_indicator(off, a, st), _holder_indicator(ref, a, st))
            rows.append({"guide": g, "strategy": st, "diff": d["diff"], "low": d["low"], "high": d["high"],
                         "p": d["p"], "n": d["n"]})
    t = pd.DataFrame(rows, columns=["guide", "strategy", "diff", "low", "high", "p", "n"])
    t = t[t["n"] > 1].reset_index(drop=True)  # a strategy never dealt the guide says nothing about it
    if len(t):
        rd = family_readings([(100 * r.diff, 100 * r.low, 100 * r.high, r.p) for r in t.itertuples()], 100 * SHARE_MARGIN)
        t["reading"], t["p_holm"] = [r for r, _ in rd], [q for _, q in rd]
    return t


def _cell(r) -> str:
    """One strategy's worth of a power: the difference and its interval, * when real after Holm."""
    return (signed_ci(r["diff"], r["low"], r["high"], 1, 100, " pts")
            + ("" if r["reading"] in ("negligible", "real but small", "uncertain") else " *"))


def _nil(t: pd.DataFrame, g: str) -> bool:
    """No strategy's worth of guide g's power is real after the correction."""
    return not t[t["guide"] == g]["reading"].str.startswith("real").any()


def _power_by_strategy(sec: Section, m: str, ref: pd.DataFrame, offs: dict) -> pd.DataFrame:
    """Each power's worth to its holder per strategy at the plan's table (:func:`_strategy_rows`);
    a power is "within noise for every strategy" when no strategy's difference is real after
    the correction."""
    t = _strategy_rows(ref, offs)
    if not len(t):
        return t
    strategies = sorted(t["strategy"].unique())
    guides = [g for g in offs if g in set(t["guide"])]
    disp = pd.DataFrame(index=pd.Index([GUIDE_FR[g] for g in guides], name="guide"))
    for st in strategies:
        sub = t[t["strategy"] == st].set_index("guide")
        disp[f"{st} [95 % CI]"] = [_cell(sub.loc[g]) if g in sub.index else "—" for g in guides]
    nil = {g: _nil(t, g) for g in guides}
    disp["within noise for every strategy"] = ["yes" if nil[g] else "" for g in guides]
    P = M.seats(ref)
    sec.tables.append(Table(f"{_mode_name(m)}: each power's worth to its holder, by the holder's strategy (same seeds, only "
                            "that power off)", disp, data=t,
                            note="Win rate of the player dealt the guide, default rules minus the same games with only that "
                                 "guide's one-shot power switched off, over the games where a player of that strategy was "
                                 "dealt it (paired t interval). Holm over every guide and strategy; * marks a real effect "
                                 "after the correction. \"Within noise for every strategy\": no strategy's effect is real after the correction. "
                                 f"Measured at the plan's {P}-player table (other player counts, where the plan has them: the next table)."))
    for r in t.itertuples():
        sec.fact(f"guides.power_value_by_strategy.{m}.{r.guide}.{r.strategy}", f"value of the {GUIDE_FR[r.guide]} guide's "
                 f"power to a {r.strategy} holder (on − off), {_mode_name(m)}", r.diff, r.low, r.high, r.n,
                 "share difference", n_unit="paired games where dealt", p=r.p_holm, note=f"reading {r.reading}")
    for g, v in nil.items():
        sec.fact(f"guides.power_nil.{m}.{g}", f"the {GUIDE_FR[g]} guide's power is within noise for every strategy "
                 f"(1 yes, 0 no), {_mode_name(m)}", float(v), n=int(t[t["guide"] == g]["n"].sum()), unit="flag",
                 n_unit="paired games where dealt")
    return t


def _power_by_players(sec: Section, m: str, data, P: int, ab: pd.DataFrame, by_strategy: pd.DataFrame) -> None:
    """Each power's worth at the plan's other player counts (``ablation_players``): the same
    restricted play (a default batch and one batch per power off, same seeds) at each count, per
    holder strategy, beside the plan's own table; and which powers are within noise for every
    strategy at every count measured."""
    counts = sorted({j["labels"]["at_players"] for j in data.select(mode=m) if "at_players" in j["labels"]})
    if not counts:
        return
    per = _power_at_counts(sec, m, data, P, ab, by_strategy, counts)
    _power_by_players_table(sec, m, per)
    every = _power_nil_everywhere(per)
    _power_by_players_facts(sec, m, per, counts, every)
    _power_by_players_finding(sec, m, per, every)


def _power_at_counts(sec: Section, m: str, data, P: int, ab: pd.DataFrame, by_strategy: pd.DataFrame,
                     counts: list[int]) -> dict:
    """players -> (each power's worth to every holder, and per holder strategy): the plan's own
    count ``P`` (``ab``, ``by_strategy``) and each count of ``counts`` measured."""
    per = {P: (ab, by_strategy)}
    for q in counts:
        ref = data.frame(f"games_{m}_p{q}_ref")
        offs = {j["labels"]["disabled"]: data.frame(j["key"])
                for j in data.select(mode=m, at_players=q) if j["labels"].get("disabled")}
        abq = _ablation(sec, ref, offs)
        if len(abq):
            per[q] = (abq, _strategy_rows(ref, offs))
    return per


def _power_by_players_table(sec: Section, m: str, per: dict) -> None:
    """The table: each power's worth at every player count, to every holder and per strategy."""
    strategies = sorted({st for _, t in per.values() for st in t["strategy"]})
    rows, index = [], []
    for q in sorted(per):
        abq, t = per[q]
        for r in abq.itertuples():
            sub = t[t["guide"] == r.guide].set_index("strategy")
            row = {"power uses / game": f"{r.uses:.3f}",
                   "every holder [95 % CI]": signed_ci(r.diff, r.low, r.high, 1, 100, " pts")
                   + (" *" if r.p_holm <= 0.05 and not r.low <= 0 <= r.high else "")}
            for st in strategies:
                row[f"{st} [95 % CI]"] = _cell(sub.loc[st]) if st in sub.index else "—"
            row["within noise for every strategy"] = "yes" if _nil(t, r.guide) else ""
            rows.append(row)
            index.append((q, GUIDE_FR[r.guide]))
    sec.tables.append(Table(
        f"{_mode_name(m)}: each power's worth to its holder at every player count measured (same seeds, only that power off)",
        pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["players", "guide"])),
        data=pd.concat([t.assign(players=q) for q, (_, t) in per.items()], ignore_index=True),
        note="At each player count, the same seating rotated over that many seats; a default batch and the same games with "
             "one guide's power switched off. \"Every holder\": the player dealt the guide at the start, whatever its strategy "
             "(a swap passes guide cards on, so a power can also be used against its first holder: a strategy that never "
             "uses it can lose by it) "
             "(Holm over the guides; * when the interval excludes 0 after it); a strategy's column: the games where a "
             "player of that strategy was dealt it (Holm over every guide and strategy of that count; * real after the "
             "correction)."))


def _power_nil_everywhere(per: dict) -> dict:
    """guide -> whether its power is within noise for every strategy at every count measured."""
    every = {}
    for g in ANIMALS:
        ts = [t for _, t in per.values() if g in set(t["guide"])]
        if ts:
            every[g] = all(_nil(t, g) for t in ts)
    return every


def _power_by_players_facts(sec: Section, m: str, per: dict, counts: list[int], every: dict) -> None:
    """The facts: each power's worth at each other count (every holder, per strategy), whether it
    is within noise there, and whether it is at every count."""
    for q in counts:
        if q not in per:
            continue
        abq, t = per[q]
        for r in abq.itertuples():
            sec.fact(f"guides.power_value_at.{m}.p{q}.{r.guide}", f"value of the {GUIDE_FR[r.guide]} guide's power to its "
                     f"holder (on − off), {q} players, {_mode_name(m)}", r.diff, r.low, r.high, r.n, "share difference",
                     n_unit="paired games where dealt", p=r.p_holm)
        for r in t.itertuples():
            sec.fact(f"guides.power_value_by_strategy_at.{m}.p{q}.{r.guide}.{r.strategy}",
                     f"value of the {GUIDE_FR[r.guide]} guide's power to a {r.strategy} holder (on − off), {q} players, "
                     f"{_mode_name(m)}", r.diff, r.low, r.high, r.n, "share difference", n_unit="paired games where dealt",
                     p=r.p_holm, note=f"reading {r.reading}")
        for g in dict.fromkeys(t["guide"]):
            sec.fact(f"guides.power_nil_at.{m}.p{q}.{g}", f"the {GUIDE_FR[g]} guide's power is within noise for every "
                     f"strategy (1 yes, 0 no), {q} players, {_mode_name(m)}", float(_nil(t, g)),
                     n=int(t[t["guide"] == g]["n"].sum()), unit="flag", n_unit="paired games where dealt")
    measured = ", ".join(str(q) for q in sorted(per))
    for g, v in every.items():
        sec.fact(f"guides.power_nil_every_count.{m}.{g}", f"the {GUIDE_FR[g]} guide's power is within noise for every "
                 f"strategy at every player count measured ({measured}) (1 yes, 0 no), {_mode_name(m)}", float(v),
                 n=int(sum(t[t["guide"] == g]["n"].sum() for _, t in per.values())), unit="flag",
                 n_unit="paired games where dealt", note=f"player counts {measured}")


def _power_by_players_finding(sec: Section, m: str, per: dict, every: dict) -> None:
    """The finding: the largest worth at each count, and the powers within noise everywhere."""
    measured = ", ".join(str(q) for q in sorted(per))
    nil = [GUIDE_FR[g] for g, v in every.items() if v]
    big = []  # the largest worth at each count, over every holder
    for q, (a, _) in sorted(per.items()):
        r = a.iloc[a["diff"].abs().argmax()]
        big.append(f"{q} players: {GUIDE_FR[r['guide']]} {signed_ci(r['diff'], r['low'], r['high'], 1, 100, ' pts')}")
    big = ", ".join(big)
    sec.findings.append(
        f"Each power's worth by restricted play at {measured} players on {_mode_name(m)} (the same seating rotated; "
        f"only that power off, same seeds): the largest worth to its holder is {big}; "
        + (f"within noise for every strategy at every player count: {', '.join(nil)}." if nil
           else "every power changes its holder's chances for at least one strategy at one player count or more."))


# ---------------------------------------------------------------- the executive page's rows
def doubling_row(facts: dict[str, Fact]) -> Row | None:
    """The Puissance du Guide: the doubling's share of advance, its effect, dropping it."""
    F = facts.get
    ds, dh = F("guides.doubling_share.8d8.all"), F("guides.doubling_share.8d8.heron")
    he_eff = F("guides.doubling_effect.8d8.heron")
    sp_on, sp_off = F("guides.spread.8d8"), F("guides.spread_nodouble.8d8")
    ln = F("guides.nodouble.length.8d8")
    if ds:
        answer = (f"The passive doubling gives {pc(ds.estimate, 0)} of all advance on 8 D8"
                  + (f" but only {pc(dh.estimate, 1)} of the advance of players dealt the Héron: Hérons never form a set, so "
                     "the Héron guide itself can never double (its holders double only after their guide changes hands: a swap or the Rotation square)" if dh else "")
                  + (f"; with the doubling on, the Héron guide's win rate when dealt differs by {100 * he_eff.estimate:+z.1f} points "
                     f"from the same games with it off (on − off)" if he_eff else "")
                  + (f"; the {GUIDE_SPREAD_WORDS} is "
                     f"{100 * sp_on.estimate:.1f} points with the doubling (see Guide balance) and {100 * sp_off.estimate:.1f} without"
                     if sp_on and sp_off else "")
                  + (f"; games get {abs(ln.estimate):.1f} rounds {'shorter' if ln.estimate < 0 else 'longer'} with it" if ln else "")
                  + ".")
        action = doubling_weighing(facts) + " " + remedy(
            facts, "weakest", lambda f: f.low >= 0.25 - SHARE_MARGIN,  # shown no worse than the margin (one-sided)
            lambda f: f"weakest guide {show(f)} when dealt", keys=[k for k in variants(facts) if k.startswith("heron_dbl")],
            margin=SHARE_MARGIN)
        return Row("Puissance du Guide (passive doubling)", answer, show(ds),
                   sure_share(he_eff, 0.0, None) if he_eff else "", action, ds.id,
                   "guides", True, key="doubling", order=4)


def guide_balance_row(facts: dict[str, Fact]) -> Row | None:
    """Guide balance: the weakest and strongest guide when dealt, flags after Holm."""
    F = facts.get
    gw = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("guides.when_dealt.8d8.")}
    if gw:
        lo_g = min(gw, key=lambda k: gw[k].estimate)
        hi_g = max(gw, key=lambda k: gw[k].estimate)
        fair = fair_of(gw[lo_g], 0.25)
        answer = (f"Win rate when dealt (fair {pc(fair)}): the {GUIDES[lo_g]} guide is the weakest ({pc(gw[lo_g].estimate, 1)}), "
                  f"the {GUIDES[hi_g]} the strongest ({pc(gw[hi_g].estimate, 1)})")
        flagged = [g for g, f in gw.items() if (f.note or "").startswith("flag ")]
        answer += (f"; flagged beyond the {margin_words()} margin after Holm over the 7 guides: "
                   + ", ".join(f"{GUIDES[g]} ({gw[g].note.split(';')[0][5:]})" for g in flagged) + "." if flagged
                   else f"; no guide is beyond the {margin_words()} margin after Holm over the 7 guides.")
        sp, fl = F("guides.spread.8d8"), F("guides.spread_floor.8d8")
        if sp and fl:
            answer += (f" The {GUIDE_SPREAD_WORDS} is {100 * sp.estimate:.1f} points [{100 * sp.low:.1f}, "
                       f"{100 * sp.high:.1f}]; a perfectly fair game at the same n reads {100 * fl.estimate:.1f} "
                       f"(95 % of fair games below {100 * fl.high:.1f}).")
        action = (f"No guide is beyond the {margin_words()} margin: no change is advised." if not flagged else remedy(
            facts, "weakest", lambda f: f.low >= fair - SHARE_MARGIN,  # shown no worse than the margin (one-sided)
            lambda f: f"weakest guide {GUIDES.get((f.note or '').split(';')[0].replace('guide ', ''), '')} {show(f)} when dealt",
            score=lambda f: -f.estimate, margin=SHARE_MARGIN))
        return Row("Guide balance", answer, show(gw[lo_g]), sure_share(gw[lo_g], fair) + " (Holm over the 7 guides)",
                   action, gw[lo_g].id, "guides", False, key="guide-balance", order=7)


def powers_row(facts: dict[str, Fact]) -> Row | None:
    """Each power's worth to its holder (only that guide's power off, same seeds)."""
    pv = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("guides.power_value.8d8.")}
    if pv:
        rd = {g: reading(100 * f.estimate, 100 * f.low, 100 * f.high, 100 * SHARE_MARGIN, f.p) for g, f in pv.items()}
        flags = {k.split(".")[-1]: f for k, f in facts.items() if k.startswith("guides.power_nil.8d8.")}
        every = {k.split(".")[-1]: f for k, f in facts.items() if k.startswith("guides.power_nil_every_count.8d8.")}
        counts = next(iter(every.values())).note.removeprefix("player counts ") if every else ""
        flags = every or flags
        nil = ([g for g, f in flags.items() if f.estimate == 1] if flags else
               [g for g, r in rd.items() if r in ("negligible", "real but small")])
        best = max(pv, key=lambda g: pv[g].estimate)
        answer = ("Win rate when dealt, default rules minus the same games with only that guide's power off: "
                  + ", ".join(f"{GUIDES[g]} {100 * f.estimate:+z.1f} [{100 * f.low:+z.1f}, {100 * f.high:+z.1f}]" for g, f in pv.items())
                  + " points.")
        where = f"at every player count measured ({counts})"
        action = ((("Within noise for every strategy" + (f" {where}" if every else "")
                     + " (no strategy's effect is real after Holm): " if flags else
                    f"Within noise (inside {margin_words()} after Holm over the guides): ") + ", ".join(GUIDES[g] for g in nil)
                   + " — these powers do not change their holder's chances measurably. ") if nil else
                  "Every power changes its holder's chances for at least one strategy"
                  + (f" at one player count or more ({counts})" if every else "") + ". ") + (
            f"Measured with the AI strategies rotated at {counts} players, per strategy (the figures above: 4 players)."
            if every else
            "Measured at the plan's 4-player table of the AI strategies rotated" + (", per strategy" if flags else "")
            + " (not at other player counts).")
        return Row("Each power's worth to its holder", answer, show(pv[best]),
                   sure_share(pv[best], 0.0, None) + " (Holm over the guides)", action, pv[best].id,
                   "guides", False, key="powers", order=12)


def doubling_weighing(facts: dict[str, Fact]) -> str:
    """Dropping the doubling weighed on every headline measure it changes: length, the guides'
    spread and the Héron guide's win rate (doubling off vs on, same seeds)."""
    F = facts.get
    ln, he = F("guides.nodouble.length.8d8"), F("guides.doubling_effect.8d8.heron")
    sp_on, sp_off = F("guides.spread.8d8"), F("guides.spread_nodouble.8d8")
    if not ln:
        return ""
    parts = [f"games {abs(ln.estimate):.1f} rounds [{abs(ln.high) if ln.estimate < 0 else ln.low:.1f}, "
             f"{abs(ln.low) if ln.estimate < 0 else ln.high:.1f}] {'longer' if ln.estimate < 0 else 'shorter'}"]
    if sp_on and sp_off:
        parts.append(f"guide spread {100 * sp_on.estimate:.1f} → {100 * sp_off.estimate:.1f} points")
    if he:
        parts.append(f"Héron guide {-100 * he.estimate:+z.1f} points when dealt")
    return "Dropping the doubling (measured, same seeds): " + "; ".join(parts) + "."


def guide_problems(facts: dict[str, Fact]) -> list[Problem]:
    """Every guide whose win rate when dealt lies wholly past the margin (Holm over the 7
    guides), and the weakest and the strongest guide whatever they read (fine or not settled)."""
    probs: list[Problem] = []
    gw = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("guides.when_dealt.8d8.")}
    if gw:
        mg = 100 * SHARE_MARGIN
        note = assumed_note("share_margin")
        ends = {min(gw, key=lambda g: gw[g].estimate), max(gw, key=lambda g: gw[g].estimate)}
        for g, f in sorted(gw.items(), key=lambda kv: kv[1].estimate):
            fair = fair_of(f, 0.25)
            d, lo, hi = points_from(f, fair)
            size = lower_bound_size(d, lo, hi, mg) if (not math.isfinite(f.p) or f.p <= 0.05) else 0.0
            rd = reading(d, lo, hi, mg, f.p)
            if size <= 1 and g not in ends:
                continue
            probs.append(Problem(f"The {GUIDES[g]} guide is {'weak' if d < 0 else 'strong'}: its holder wins "
                                 f"{'less' if d < 0 else 'more'} than a fair {pc(fair, 0)}" if size > 1 else
                                 f"The {GUIDES[g]} guide is within the {margin_words()} margin (after Holm over the 7 guides)"
                                 if is_fine(rd) else f"Whether the {GUIDES[g]} guide is {'weak' if d < 0 else 'strong'} "
                                 "is not settled (Holm over the 7 guides)", show(f), size, "q-guide-balance", fine=is_fine(rd),
                                 assumed=note, facts=(f.id,)))
    return at_order(2, probs)


def powers_problem(facts: dict[str, Fact]) -> list[Problem]:
    """Powers that change nothing measurable for their holder."""
    probs: list[Problem] = []
    pv = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("guides.power_value.8d8.")}
    every = {k.split(".")[-1]: f for k, f in facts.items() if k.startswith("guides.power_nil_every_count.8d8.")}
    flags = every or {k.split(".")[-1]: f for k, f in facts.items() if k.startswith("guides.power_nil.8d8.")}
    nil = ([g for g, f in flags.items() if f.estimate == 1] if flags else
           [g for g, f in pv.items() if reading(100 * f.estimate, 100 * f.low, 100 * f.high, 100 * SHARE_MARGIN, f.p)
            in ("negligible", "real but small")])
    if nil and pv:
        probs.append(Problem("Powers that change nothing measurable for their holder"
                             + (" (within noise for every strategy" + (" at every player count measured" if every else "")
                                + ")" if flags else "") + ": "
                             + ", ".join(GUIDES[g] for g in nil),
                             "; ".join(f"{GUIDES[g]} {show(pv[g])}" for g in nil if g in pv), 0.0, "q-powers",
                             assumed=assumed_note("share_margin")))
    return at_order(5, probs)
