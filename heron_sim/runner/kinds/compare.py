"""Kind ``compare``: two rule sets on the same seeds, every metric paired game by game."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import ValidationInfo, model_validator

from ...analysis import metrics as M
from ...analysis.stats import bootstrap_interval, format_p, holm, paired_difference
from ...sections import Figure, Section, Table, plot, signed_ci
from ...errors import HeronSimError
from ..options import HeronExperiment, RulesA, RulesB, Seating, figures_of, where
from ..jobs import Job, resolve_strategies, seatings
from .base import ExperimentKind, Sizes
from .common import GUIDE_FR, _disp, _mode_name, _seating_text


#: The figures this kind draws (the ``figures`` key chooses among them; default: all).
FIGURES = ('differences',)


class CompareExperiment(HeronExperiment):
    """The options of an experiment file of kind ``compare``."""

    kind: Literal["compare"] = "compare"
    figures: figures_of(FIGURES) = FIGURES
    seating: Seating = "ai"
    #: each seat's luck measured too (docs/luck.md): the win rates' paired differences then come
    #: luck-adjusted beside the plain ones, and the narrower is the one used (the same games)
    luck: bool = False
    a: RulesA
    b: RulesB

    @model_validator(mode="before")
    @classmethod
    def _pair(cls, data, info: ValidationInfo):
        if isinstance(data, dict) and ("a" not in data or "b" not in data):
            raise HeronSimError(f"{where(info)}: kind compare needs tables [a] and [b] (each with file and/or set)")
        return data


class CompareKind(ExperimentKind):
    """Two rule sets on the same seeds, every metric paired game by game."""

    name = "compare"
    options = CompareExperiment
    figures = FIGURES
    intro = "Two rule sets on the same seeds."

    def jobs(self, exp: CompareExperiment, g: Sizes) -> list[Job]:
        P = exp.players
        jobs: list[Job] = []
        seat = seatings(resolve_strategies(exp.seating), P)
        keys: set[str] = set()
        for m in exp.modes:
            for side, spec in (("a", exp.a), ("b", exp.b)):
                rules = spec.build(m, P)
                # A job is named after the mode it plays (a side with its own mode plays its
                # file's, e.g. b_10d6 beside a_8d8); `pair` is the mode of the pair it belongs to.
                key = f"{side}_{rules.mode}"
                if key in keys:  # a side with its own mode, in a second pair
                    key = f"{side}_{rules.mode}_pair_{m}"
                keys.add(key)
                labels = {"mode": rules.mode, "pair": m, "side": side, "label": spec.label or side.upper()}
                if exp.luck:
                    labels["luck"] = True
                jobs.append(Job(key, "games", rules, g(exp.games), exp.seed, seat, labels=labels))
        return jobs

    def pair_job(self, data, side: str, m: str) -> dict:
        """The manifest entry of side ``side`` of the pair for mode ``m`` (run folders written
        before the ``pair`` label: the job ``{side}_{m}``)."""
        found = [j for j in data.jobs.values()
                 if j.get("labels", {}).get("side") == side and j.get("labels", {}).get("pair") == m]
        return found[0] if found else self.job(data, f"{side}_{m}")

    def fill(self, exp: CompareExperiment, data, sec: Section) -> None:
        for m in exp.modes:
            ja, jb = self.pair_job(data, "a", m), self.pair_job(data, "b", m)
            la, lb = ja["labels"]["label"], jb["labels"]["label"]
            if la == lb:
                la, lb = f"{la} (A)", f"{lb} (B)"
            ma, mb = ja.get("mode") or m, jb.get("mode") or m  # each side's own mode (compare A B)
            where = _mode_name(ma) if ma == mb else f"{_mode_name(ma)} (A) and {_mode_name(mb)} (B)"
            fa, fb = data.frame(ja["key"]), data.frame(jb["key"])
            t = compare_frames(fa, fb, la, lb)
            sec.notes.append(f"{where}: A = {la}, B = {lb} (rules fingerprints in the run metadata); "
                             f"seating {_seating_text(ja)}.")
            _compare_table(sec, t, la, lb, where)
            if exp.luck:
                _luck_table(sec, fa, fb, la, lb, where)
            _compare_facts(sec, exp.name, m, t, la, lb)
            _compare_finding(sec, t, la, lb, where)
            if self.want(exp, "differences"):
                sec.figures.append(_differences_figure(m, t, la, lb, where))


def _compare_table(sec: Section, t: pd.DataFrame, la: str, lb: str, where: str) -> None:
    """Every metric side by side with its paired difference B − A (the table)."""
    sec.tables.append(Table(f"{where}: {la} vs {lb}, paired by seed", compare_display(t, la, lb), data=t,
                            note="Differences B - A with 95 % paired t intervals (Balance: paired bootstrap); p-values Holm-corrected over the metrics."))


def luck_differences(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Each seat's and each guide's win rate, and the guide spread, paired B − A on the same
    games: the plain difference and the luck-adjusted one (heron_sim.analysis.luck_adjust:
    each run's cross-fitted control), their 95 % intervals, the variance ratio (plain ÷
    adjusted: how many times fewer games the adjusted figure needs) and ``used``: the one whose
    interval is narrower ("plain" where the frames have no luck columns)."""
    from ...analysis.luck_adjust import paired_guide_differences, paired_seat_differences

    n = min(len(a), len(b))
    a, b = a.iloc[:n].reset_index(drop=True), b.iloc[:n].reset_index(drop=True)
    rows = [(f"seat {s + 1} wins", d) for s, d in enumerate(paired_seat_differences(a, b))]
    g = paired_guide_differences(a, b)
    rows += [(f"{GUIDE_FR.get(name, name)} wins when dealt", d) for name, d in g["guide"].items()]
    if "spread" in g:
        rows.append(("guide spread", g["spread"]))
    out = []
    for metric, d in rows:
        adj_ok = math.isfinite(d["adjusted_se"]) and d["adjusted_se"] > 0
        ratio = (d["plain_se"] / d["adjusted_se"]) ** 2 if adj_ok else math.nan
        used = "adjusted" if adj_ok and d["adjusted_se"] < d["plain_se"] else "plain"
        out.append({"metric": metric, "plain": d["plain"], "plain_low": d["plain_ci"][0],
                    "plain_high": d["plain_ci"][1], "adjusted": d["adjusted"], "adjusted_low": d["adjusted_ci"][0],
                    "adjusted_high": d["adjusted_ci"][1], "variance_ratio": ratio, "used": used, "n": n})
    return pd.DataFrame(out)


def _luck_table(sec: Section, a: pd.DataFrame, b: pd.DataFrame, la: str, lb: str, where: str) -> None:
    """The win rates' paired differences B − A, plain and luck-adjusted (the table)."""
    t = luck_differences(a, b)
    if t.empty:
        return
    def ci(r, k):
        return signed_ci(r[k], r[f"{k}_low"], r[f"{k}_high"], 1, 100, " pts") if math.isfinite(r[k]) else "-"
    disp = _disp({"plain [95 % CI]": [ci(r, "plain") for _, r in t.iterrows()],
                  "luck-adjusted [95 % CI]": [ci(r, "adjusted") for _, r in t.iterrows()],
                  "ratio": t["variance_ratio"].map(lambda x: f"{x:.2f}" if math.isfinite(x) else "-"),
                  "used": t["used"]}, index=pd.Index(t["metric"], name="metric"))
    sec.tables.append(Table(f"{where}: {la} vs {lb}, win rates paired by seed, B - A plain and luck-adjusted", disp,
                            data=t, note="The luck-adjusted difference removes each player's dice luck as the "
                            "expert's tables measure it (docs/luck.md); the ratio (plain variance / adjusted) is how many "
                            "times fewer games it needs for the same interval; the narrower interval is the one used."))


def _compare_facts(sec: Section, name: str, m: str, t: pd.DataFrame, la: str, lb: str) -> None:
    """The facts of the main metrics' differences B − A (comebacks, length, lead changes, seat 1)."""
    main = t.set_index("metric")
    for metric, short in (("mid-game last wins", "last_wins"), ("mid-game leader loses", "leader_loses"),
                          ("rounds (finished games)", "rounds"), ("lead changes per game", "lead_changes"),
                          ("AdvantageP1 (seat 1 wins)", "seat1")):
        if metric in main.index:
            r = main.loc[metric]
            sec.fact(f"{name}.{short}.{m}", f"{metric_name(metric)}, {lb} − {la}, {_mode_name(m)}", r["diff"],
                     r["low"], r["high"], int(r["n"]), "share difference" if short not in ("rounds", "lead_changes")
                     else "rounds" if short == "rounds" else "lead changes", n_unit="paired games", p=r["p_holm"],
                     note=f"{la} {r[la]:.4f}, {lb} {r[lb]:.4f}; Holm over the metrics")


def _compare_finding(sec: Section, t: pd.DataFrame, la: str, lb: str, where: str) -> None:
    """The finding: the length's change and how many metrics differ after Holm."""
    sig = t[(t["p_holm"] < 0.05)]
    r = t.set_index("metric").loc["rounds (finished games)"]
    sec.findings.append(
        f"{lb} vs {la} on {where}: game length {r[la]:.2f} -> {r[lb]:.2f} rounds "
        f"({signed_ci(r['diff'], r['low'], r['high'], 2)}, {format_p(r['p_holm'])}, Holm); "
        f"{len(sig)} of {len(t)} metrics differ significantly after Holm correction"
        + (f" (largest relative change: {_largest(sig, la)})." if len(sig) else "."))


def _differences_figure(m: str, t: pd.DataFrame, la: str, lb: str, where: str) -> Figure:
    """The figure: the key metrics' relative change B vs A with their intervals (a forest)."""
    k = t[t["metric"].isin(KEY_METRICS)].copy()
    base = k[la].abs().replace(0, np.nan)
    k["rel"], k["rlo"], k["rhi"] = k["diff"] / base, k["low"] / base, k["high"] / base
    k["metric"] = k["metric"].map(metric_name)
    return Figure(f"differences_{m}", "Main metrics, relative change B vs A (95 % interval, paired by seed).",
                  plot("forest", k, label="metric", value="rel", low="rlo", high="rhi", scale=100,
                       title=f"{lb} vs {la} ({where})",
                       xlabel=f"relative change, {lb} vs {la} (%)",
                       note=f"n = {int(k['n'].max()):,} paired games"))


# ---------------------------------------------------------------------- compare
def compare_frames(a: pd.DataFrame, b: pd.DataFrame, label_a: str = "A", label_b: str = "B",
                   n_boot: int = 400) -> pd.DataFrame:
    """Every per-game metric of two runs on the same seeds, paired game by game: means, the
    difference B - A, its 95 % t interval and p-value; Ludii's Balance by paired bootstrap."""
    n = min(len(a), len(b))
    a, b = a.iloc[:n].reset_index(drop=True), b.iloc[:n].reset_index(drop=True)
    if not (a["game"].to_numpy() == b["game"].to_numpy()).all():
        raise ValueError("compare: the two runs do not cover the same games")
    ma, mb = M.game_metrics(a), M.game_metrics(b)
    rows = []
    for key in ma:
        if key not in mb:
            continue
        d = paired_difference(ma[key], mb[key])
        rows.append({"metric": key, label_a: d["a"], label_b: d["b"], "diff": d["diff"], "low": d["low"],
                     "high": d["high"], "p": d["p"], "n": d["n"]})
    P = M.seats(a)
    wa, wb = a["winner"].to_numpy(), b["winner"].to_numpy()
    idx = np.arange(n)
    diff, lo, hi = bootstrap_interval(idx, lambda i: M.balance_of(wb[i], P) - M.balance_of(wa[i], P), n_boot=n_boot)
    rows.insert(0, {"metric": "Balance (Ludii)", label_a: M.balance_of(wa, P), label_b: M.balance_of(wb, P), "diff": diff,
                    "low": lo, "high": hi, "p": math.nan, "n": n})
    t = pd.DataFrame(rows)
    t["p_holm"] = holm(t["p"].fillna(1.0))
    return t


def compare_display(t: pd.DataFrame, label_a: str, label_b: str) -> pd.DataFrame:
    return _disp({
        label_a: t[label_a].map(lambda x: f"{x:.4g}"), label_b: t[label_b].map(lambda x: f"{x:.4g}"),
        f"{label_b} - {label_a} [95 % CI]": [signed_ci(r["diff"], r["low"], r["high"], 4) for _, r in t.iterrows()],
        "p (Holm)": [format_p(p) if math.isfinite(r) else "bootstrap" for p, r in zip(t["p_holm"], t["p"])],
        "n": t["n"].map("{:,}".format)}, index=pd.Index(t["metric"].map(metric_name), name="metric"))


def metric_name(key: str) -> str:
    """A metric of :func:`metrics.game_metrics` in the game's words ("square_24_serpent per game"
    -> "square 24 Serpent per game", "power_aigle per game" -> "Aigle guide's power per game")."""
    import re

    from .across import SQUARE_NAMES

    m = re.match(r"square_(\d+)_([a-z]+)(.*)$", key)
    if m:
        return f"square {m.group(1)} {SQUARE_NAMES.get(m.group(2), m.group(2))}{m.group(3)}"
    m = re.match(r"power_([a-z]+)(.*)$", key)
    if m:
        return f"{GUIDE_FR.get(m.group(1), m.group(1))} guide's power{m.group(2)}"
    if key == "AdvantageP1 (seat 1 wins)":
        return "first player (seat 1) wins (AdvantageP1)"
    m = re.match(r"guide ([a-z]+) wins$", key)
    if m:
        return f"player dealt the {GUIDE_FR.get(m.group(1), m.group(1))} guide wins"
    return key


KEY_METRICS = ["rounds (finished games)", "advance per played turn", "lead changes per game", "Ponds per game",
               "Anxieties per game", "mid-game leader loses", "mid-game last wins", "AdvantageP1 (seat 1 wins)",
               "Completion", "Balance (Ludii)"]


def _largest(sig: pd.DataFrame, la: str) -> str:
    base = sig[la].abs().replace(0, np.nan)
    rel = (sig["diff"] / base).abs()
    if rel.isna().all():
        return metric_name(sig.iloc[0]["metric"])
    r = sig.loc[rel.idxmax()]
    return f"{metric_name(r['metric'])} {100 * r['diff'] / abs(r[la]):+z.1f} %"
