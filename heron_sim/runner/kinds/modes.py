"""Kind ``modes``: the four dice modes, same seeds, same seating."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pandas as pd

from ...analysis import metrics as M
from ...analysis.stats import format_p, paired_difference
from ...animals import NAMES as ANIMALS
from ...report import figures as F
from ...report.section import Figure, Section, Table, num_ci, pct, pct_ci
from ..config import Experiment
from ..run import Job, resolve_strategies, seatings
from .common import _disp, _mode_name, _seating_text, _want


def plan(exp: Experiment, g, games_override: int | None = None) -> list[Job]:
    """The simulation jobs of this kind (``g(n)`` applies the --games override)."""
    P = exp.players
    jobs: list[Job] = []
    seat = seatings(resolve_strategies(exp.seating), P)
    for m in exp.modes:
        jobs.append(Job(f"games_{m}", "games", exp.rules.build(m, P), g(exp.games), exp.seed, seat,
                        labels={"mode": m}))
    return jobs


# ---------------------------------------------------------------------- modes
def analyse(exp, data, sec: Section) -> None:
    jobs = data.select()
    frames = {j["labels"]["mode"]: data.frame(j["key"]) for j in jobs}
    sec.intro = sec.intro or "The four dice modes, same seeds, same seating."
    sec.notes.append(f"Seating: {_seating_text(jobs[0])}.")
    length_rows, pace_rows, seat_rows, combo_rows, guide_rows, std_rows = [], [], [], [], [], []
    dists = {}
    for m, df in frames.items():
        lt = M.length_table(df)
        lm = M.ludii_metrics(df)
        length_rows.append({"mode": m, **lt, "completion": lm["Completion"],
                            "completion_low": lm["Completion_ci"][0], "completion_high": lm["Completion_ci"][1]})
        dists[m] = M.rounds_distribution(df)
        pr = M.per_turn_rates(df)
        lr, llo, lhi = M.ratio_interval(df["lion_rescues"], df["anxieties"])
        pace_rows.append({"mode": m, **pr, "lion": lr, "lion_low": llo, "lion_high": lhi, "games": len(df)})
        st = M.seat_table(df)
        st["mode"] = m
        seat_rows.append(st)
        ct = M.combo_distribution(df)
        ct["mode"] = m
        combo_rows.append(ct)
        gt = M.guide_table(df)
        gt["mode"] = m
        guide_rows.append(gt)
        std_rows.append({"mode": m, **lm})
    length = pd.DataFrame(length_rows)
    pace = pd.DataFrame(pace_rows)
    seats = pd.concat(seat_rows, ignore_index=True)
    combos = pd.concat(combo_rows, ignore_index=True)
    guides = pd.concat(guide_rows, ignore_index=True)

    sec.tables.append(Table("Game length (rounds, finished games)", _disp({
        "games": length["games"].map("{:,}".format),
        "mean [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in length.iterrows()],
        "median [CI]": [num_ci(r["median"], r["median_low"], r["median_high"], 0) for _, r in length.iterrows()],
        "p90 [CI]": [num_ci(r["p90"], r["p90_low"], r["p90_high"], 0) for _, r in length.iterrows()],
        "Completion": [pct_ci(r["completion"], r["completion_low"], r["completion_high"], 2) for _, r in length.iterrows()],
    }, index=length["mode"]), data=length))
    sec.tables.append(Table("Pace per really-played turn", _disp({
        "turns": pace["turns"].map("{:,}".format),
        "advance (squares)": [num_ci(r["advance"], r["advance_low"], r["advance_high"], 3) for _, r in pace.iterrows()],
        "Pond": [pct_ci(r["pond"], r["pond_low"], r["pond_high"], 2) for _, r in pace.iterrows()],
        "Anxiety": [pct_ci(r["anxiety"], r["anxiety_low"], r["anxiety_high"], 2) for _, r in pace.iterrows()],
        "Lion rescues / Anxiety": [pct_ci(r["lion"], r["lion_low"], r["lion_high"]) for _, r in pace.iterrows()],
    }, index=pace["mode"]), data=pace))
    sp = seats.pivot(index="mode", columns="seat", values="win_rate").reindex(list(frames))
    seat_disp = pd.DataFrame(index=list(frames))
    for s in sorted(seats["seat"].unique()):
        sub = seats[seats["seat"] == s].set_index("mode")
        seat_disp[f"seat {s}"] = [pct_ci(sub.at[m, "win_rate"], sub.at[m, "low"], sub.at[m, "high"]) for m in frames]
    seat_disp["AdvantageP1 p (vs fair)"] = [format_p(seats[(seats["mode"] == m) & (seats["seat"] == 0)]["p"].iloc[0]) for m in frames]
    seat_disp["Balance"] = [f"{r['Balance']:.3f}" for r in std_rows]
    sec.tables.append(Table("First-player advantage: win rate by seat (wins / games)", seat_disp,
                            note="Fair share 1 / players. Balance = 1 - largest gap between two seats (Ludii).",
                            data=seats))
    gd = pd.DataFrame(index=ANIMALS)
    for m in frames:
        sub = guides[guides["mode"] == m].set_index("guide")
        gd[m] = [pct_ci(sub.at[a, "win_rate"], sub.at[a, "low"], sub.at[a, "high"]) + (" *" if sub.at[a, "flag"] else "") for a in ANIMALS]
    sec.tables.append(Table("Win rate by starting guide (share of all games; fair 14.3 %)", gd,
                            note="* significantly off the fair share (exact binomial test, Holm-corrected over the 7 guides, 5 %).",
                            data=guides))
    cd = combos.pivot(index="size", columns="mode", values="share")[list(frames)]
    sec.tables.append(Table("Largest set per scored turn (share of scored turns)",
                            cd.map(lambda x: pct(x, 2) if math.isfinite(x) else "—"), data=combos))

    # findings
    base = "8d8" if "8d8" in frames else next(iter(frames))
    a = frames[base]
    for m, df in frames.items():
        if m == base:
            continue
        d = paired_difference(np.where(a["finished"], a["rounds"], np.nan), np.where(df["finished"], df["rounds"], np.nan))
        rel, rlo, rhi = d["diff"] / d["a"], d["low"] / d["a"], d["high"] / d["a"]
        word = "longer" if rel > 0 else "shorter"
        sec.findings.append(
            f"{_mode_name(m)} games last {abs(100 * rel):.1f} % {word} than {_mode_name(base)} "
            f"({d['b']:.2f} vs {d['a']:.2f} rounds; difference {100 * rel:+.1f} % [{100 * rlo:+.1f}, {100 * rhi:+.1f}], "
            f"paired over {d['n']:,} seeds, {format_p(d['p'])}).")
    s0 = seats[(seats["mode"] == base) & (seats["seat"] == 0)].iloc[0]
    sec.findings.append(
        f"First-player advantage on {_mode_name(base)}: seat 0 wins {pct_ci(s0['win_rate'], s0['low'], s0['high'])} "
        f"of games against a fair {pct(s0['fair'])} ({format_p(s0['p'])}; AdvantageP1).")
    pb = pace.set_index("mode")
    sec.findings.append("Pond per played turn: " + ", ".join(
        f"{_mode_name(m)} {pct_ci(pb.at[m, 'pond'], pb.at[m, 'pond_low'], pb.at[m, 'pond_high'], 2)}" for m in frames)
        + "; Anxiety per played turn: " + ", ".join(
        f"{_mode_name(m)} {pct_ci(pb.at[m, 'anxiety'], pb.at[m, 'anxiety_low'], pb.at[m, 'anxiety_high'], 2)}" for m in frames) + ".")

    if _want(exp, "length"):
        stats = _disp({"label": length["mode"], "mean": length["mean"], "low": length["mean_low"],
                              "high": length["mean_high"], "n": length["games"]})
        sec.figures.append(Figure("length", "Distribution of game length per mode (finished games).",
                                  partial(F.length_distributions, dists, stats)))
    if _want(exp, "seats"):
        t = seats.rename(columns={"win_rate": "rate"}).assign(n=seats["games"])
        sec.figures.append(Figure("seats", "Win rate by seat per mode with 95 % Wilson intervals.",
                                  partial(F.grouped_rates, t, group="mode", category="seat",
                                          title="First-player advantage: win rate by seat", xlabel="seat (0 plays first)",
                                          ylabel="win rate (% of games)", fair=1 / exp.players)))
    if _want(exp, "combos"):
        t = combos[combos["size"] >= 3].rename(columns={"share": "rate"})
        sec.figures.append(Figure("combos", "Largest set per scored turn (sizes 0-2 score nothing and are left out).",
                                  partial(F.grouped_rates, t, group="mode", category="size",
                                          title="Distribution of combination sizes", xlabel="size of the largest set (dice)",
                                          ylabel="share of scored turns (%)",
                                          note="n = " + ", ".join(f"{m}: {int(combos[combos['mode'] == m]['turns'].sum()):,} turns" for m in frames))))
    if _want(exp, "pace"):
        rows = []
        for _, r in pace.iterrows():
            for what in ("pond", "anxiety"):
                rows.append({"mode": r["mode"], "event": "Pond" if what == "pond" else "Anxiety",
                             "rate": r[what], "low": r[f"{what}_low"], "high": r[f"{what}_high"], "n": r["turns"]})
        sec.figures.append(Figure("pace", "Pond and Anxiety per really-played turn, by mode.",
                                  partial(F.grouped_rates, pd.DataFrame(rows), group="mode", category="event",
                                          title="Pond and Anxiety per played turn", xlabel="event",
                                          ylabel="share of played turns (%)")))
