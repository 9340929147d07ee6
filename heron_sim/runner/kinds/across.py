"""Across all experiments: rule coverage, race drama and Ludii's metrics for every games job."""

from __future__ import annotations

import pandas as pd

from ...analysis import metrics as M
from ...report.section import Section, Table, num_ci, pct, pct_ci
from .common import _disp


# ---------------------------------------------------------------------- across all experiments
def across(run) -> Section:
    """Rule coverage, race drama and Ludii's metrics for every games job of the run."""
    sec = Section(key="across", title="Across all experiments: rule coverage, race drama, standard metrics",
                  intro="Every batch of whole games in the run, with Ludii's Balance, AdvantageP1 and Completion, "
                        "the race drama, and how often each rule fires.")
    rows, cover = [], []
    for exp, data in run.experiments():
        for j in data.entry["jobs"]:
            if j["kind"] != "games":
                continue
            df = data.frame(j["key"])
            lm, dr = M.ludii_metrics(df), M.drama(df)
            rows.append({"experiment": exp.name, "job": j["key"], "games": len(df), **{k: v for k, v in lm.items() if k != "games"}, **dr})
            cv = M.rule_coverage(df)
            cv["experiment"], cv["job"], cv["mode"] = exp.name, j["key"], j["mode"]
            cover.append(cv)
    if not rows:
        return sec
    t = pd.DataFrame(rows)
    sec.tables.append(Table("Standard metrics and race drama per batch of games", _disp({
        "experiment": t["experiment"], "job": t["job"], "games": t["games"].map("{:,}".format),
        "Balance": t["Balance"].map("{:.3f}".format),
        "AdvantageP1": [pct_ci(r["AdvantageP1"], *r["AdvantageP1_ci"]) for _, r in t.iterrows()],
        "Completion": [pct_ci(r["Completion"], *r["Completion_ci"], 2) for _, r in t.iterrows()],
        "lead changes / game": [num_ci(r["lead_changes"], r["lead_changes_low"], r["lead_changes_high"]) for _, r in t.iterrows()],
        "mid-game leader loses": [pct_ci(r["leader_loses"], r["leader_loses_low"], r["leader_loses_high"]) for _, r in t.iterrows()],
        "mid-game last wins": [pct_ci(r["last_wins"], r["last_wins_low"], r["last_wins_high"]) for _, r in t.iterrows()],
    }).set_index(["experiment", "job"]), data=t.drop(columns=["AdvantageP1_ci", "Completion_ci"]),
        note="Balance: 1 - largest gap between two seats' win rates; AdvantageP1: seat 0's win rate; Completion: games "
             "with a winner before the round limit (Ludii's definitions). Mid-game = end of round rounds // 2."))
    cov = pd.concat(cover, ignore_index=True)
    grouped = []
    for (rule, kind, mode), sub in cov.groupby(["rule", "kind", "mode"], sort=False):
        games = int(sub["games"].sum())
        per_game = float((sub["per_game"] * sub["games"]).sum() / games)
        with_ = float((sub["games_with"] * sub["games"]).sum() / games)
        grouped.append({"rule": rule, "kind": kind, "mode": mode, "games": games, "per_game": per_game, "games_with": with_,
                        "never": bool(sub["never"].all())})
    g = pd.DataFrame(grouped)
    pv = g.pivot_table(index=["kind", "rule"], columns="mode", values="per_game", sort=False)
    wv = g.pivot_table(index=["kind", "rule"], columns="mode", values="games_with", sort=False)
    never = g.groupby(["kind", "rule"], sort=False)["never"].all()
    disp = pd.DataFrame(index=pv.index)
    for mcol in pv.columns:
        n = int(g[g["mode"] == mcol]["games"].max())
        disp[f"{mcol} per game (games with it), n = {n:,}"] = [
            f"{pv.at[i, mcol]:.3f} ({pct(wv.at[i, mcol])})" for i in pv.index]
    disp["never fired"] = ["NEVER" if never.loc[i] else "" for i in pv.index]
    sec.tables.append(Table("Rule coverage: triggers per game of each special square and each guide power (all batches pooled, by mode)",
                            disp, data=g, note="A rule that never fires in any batch is flagged NEVER (for powers: no registered "
                                               "strategy in the run used it)."))
    nv = [f"{k} {r}" for (k, r), v in never.items() if v]
    sec.findings.append(f"Rule coverage: {len(never) - len(nv)} of {len(never)} rules fired"
                        + (f"; never fired: {', '.join(nv)}." if nv else "; every rule fired at least once."))
    base = t.iloc[0]
    sec.findings.append(f"Race drama ({base['experiment']}/{base['job']}): {base['lead_changes']:.2f} lead changes per game "
                        f"[{base['lead_changes_low']:.2f}, {base['lead_changes_high']:.2f}]; the mid-game leader loses "
                        f"{pct_ci(base['leader_loses'], base['leader_loses_low'], base['leader_loses_high'])} of games and the "
                        f"player last at mid-game wins {pct_ci(base['last_wins'], base['last_wins_low'], base['last_wins_high'])}.")
    return sec
