"""The experiments of the seed's test plan: which jobs each kind plays, and the tables,
figures and findings it computes from them.

``plan_jobs(exp)`` lists the simulation jobs; ``analyse(exp, data)`` turns the stored results
(a :class:`~heron_sim.runner.run.ExperimentData`) into a report
:class:`~heron_sim.report.section.Section`. Analyses read only the run folder, so a report
re-renders without simulating.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pandas as pd

from ..analysis import metrics as M
from ..analysis.intervals import wilson
from ..analysis.stats import (binom_test, bootstrap_interval, chi2_sf, format_p, holm,
                              paired_difference)
from ..animals import NAMES as ANIMALS
from ..engine import layout as L
from ..report import figures as F
from ..report.section import Figure, Section, Table, num_ci, pct, pct_ci, signed_ci
from .config import Experiment
from .run import Job, ai_strategies, resolve_strategies, seatings

NO_ANXIETY = 99  # anxiety_threshold that never triggers (ablation)


def _disp(cols: dict, index=None) -> pd.DataFrame:
    """A display table from columns that may be Series with a different index than ``index``
    (values are taken by position, never aligned)."""
    cols = {k: (v.to_numpy() if isinstance(v, pd.Series) else v) for k, v in cols.items()}
    if isinstance(index, pd.Series):
        index = pd.Index(index.to_numpy(), name=index.name)
    return pd.DataFrame(cols, index=index)


def _n(exp_n: int, override: int | None, factor: float = 1.0) -> int:
    return max(1, int(override * factor)) if override is not None else exp_n


# ====================================================================== planning
def plan_jobs(exp: Experiment, games_override: int | None = None) -> list[Job]:
    g = partial(_n, override=games_override)
    P = exp.players
    jobs: list[Job] = []
    if exp.kind == "modes":
        seat = seatings(resolve_strategies(exp.seating), P)
        for m in exp.modes:
            jobs.append(Job(f"games_{m}", "games", exp.rules.build(m, P), g(exp.games), exp.seed, seat,
                            labels={"mode": m}))
    elif exp.kind == "pond":
        seat = seatings(resolve_strategies(exp.seating), P)
        for m in exp.modes:
            r = exp.rules.build(m, P)
            jobs.append(Job(f"turns_{m}", "turns", r, _n(exp.turns, games_override, 50), exp.seed,
                            strategy="greedy", guide=exp.guide, labels={"mode": m, "part": "turns"}))
            jobs.append(Job(f"games_{m}", "games", r, g(exp.games), exp.seed, seat, labels={"mode": m, "part": "games"}))
    elif exp.kind == "anxiety":
        strats = resolve_strategies(exp.strategies)
        seat = seatings(strats, P)
        for m in exp.modes:
            r = exp.rules.build(m, P)
            for s in strats:
                jobs.append(Job(f"turns_{m}_{s}", "turns", r, _n(exp.turns, games_override, 50), exp.seed,
                                strategy=s, guide=exp.guide, labels={"mode": m, "strategy": s, "part": "turns"}))
            off = r.replace(anxiety_threshold=NO_ANXIETY)
            jobs.append(Job(f"turnsoff_{m}", "turns", off, _n(exp.turns, games_override, 50), exp.seed,
                            strategy="greedy", guide=exp.guide, labels={"mode": m, "strategy": "greedy", "part": "no_anxiety"}))
            jobs.append(Job(f"games_{m}", "games", r, g(exp.games), exp.seed, seat, labels={"mode": m, "part": "games"}))
    elif exp.kind == "guides":
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
            jobs.append(Job(f"games_{m}_off", "games", r.replace(powers=False), n_off, exp.seed, seat,
                            labels={"mode": m, "powers": False}))
            # Clean per-power ablation: the same seeds with only guide a's one-shot power disabled.
            for a, name in enumerate(ANIMALS):
                if not r.power_enabled(a):
                    continue  # already off in this experiment's rules: nothing to ablate
                no_a = r.replace(disabled_powers=tuple(sorted(set(r.disabled_powers) | {a})))
                jobs.append(Job(f"games_{m}_no_{name}", "games", no_a, n_off, exp.seed, seat,
                                labels={"mode": m, "powers": True, "disabled": name}))
    elif exp.kind == "strategies":
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
        from .run import _has_tournament

        if _has_tournament():
            jobs.append(Job("tournament", "tournament", base, g(exp.h2h_games or exp.games), exp.seed,
                            labels={"part": "tournament", "strategies": strats}))
    elif exp.kind == "games":
        jobs += _plan_light(exp, g)
    elif exp.kind == "compare":
        seat = seatings(resolve_strategies(exp.seating), P)
        for m in exp.modes:
            for side, spec in (("a", exp.a), ("b", exp.b)):
                jobs.append(Job(f"{side}_{m}", "games", spec.build(m, P), g(exp.games), exp.seed, seat,
                                labels={"mode": m, "side": side, "label": spec.label or side.upper()}))
    return jobs


def light_unit(game) -> str:
    """The unit of a lighter game's ``length`` column, as its doc states it ("`length` is
    counted in **player turns**"); stored in the job labels so a re-render needs no doc."""
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / game.doc if game.doc else None
    if doc is not None and doc.is_file():
        m = re.search(r"`length` is counted in \*\*([^*]+)\*\*", doc.read_text(encoding="utf-8"))
        if m:
            return m.group(1).strip()
    return "turns or rounds, see " + (game.doc or "the game's doc")


def _plan_light(exp: Experiment, g) -> list[Job]:
    """Each lighter game: one batch with every seat greedy (seat advantage, length, the
    game's summary), one with greedy and random rotated over the seats (strategy win rates).
    Players: ``exp.players`` clamped to the game's range."""
    from ..games import available

    registry = available()
    names = list(registry) if exp.light_games == "all" else list(exp.light_games)
    jobs = []
    for name in names:
        game = registry[name]
        P = min(max(exp.players, game.min_players), game.max_players)
        rules = game.load_rules(None, {})
        best = "greedy" if "greedy" in game.strategies else game.strategies[0]
        base = {"game": name, "title": game.title, "players": P, "unit": light_unit(game), "doc": game.doc}
        jobs.append(Job(f"{name}_{best}", "light", rules, g(exp.games), exp.seed, [[best] * P],
                        labels={**base, "part": "seats", "strategy": best}))
        other = "random" if "random" in game.strategies and best != "random" else next(
            (s for s in game.strategies if s != best), None)
        if other is not None:
            jobs.append(Job(f"{name}_mixed", "light", rules, g(exp.mixed_games or exp.games), exp.seed,
                            seatings([best, other], P), labels={**base, "part": "mixed", "strategies": [best, other]}))
    return jobs


def skill_strategy(strats: list[str]) -> str:
    """The strategy whose skill is measured against ``random``: ``expert`` when registered,
    else the first non-random one."""
    if "expert" in strats:
        return "expert"
    others = [s for s in strats if s != "random"]
    return others[0] if others else "random"


# ====================================================================== analysis
def analyse(exp: Experiment, data) -> Section | list[Section]:
    """The experiment's report section (kind games: a list, one section per lighter game)."""
    if exp.kind == "games":
        return _light_sections(exp, data)
    fn = {"modes": _modes, "pond": _pond, "anxiety": _anxiety, "guides": _guides,
          "strategies": _strategies, "compare": _compare}[exp.kind]
    sec = Section(key=exp.name, title=exp.title, intro=exp.description.strip())
    fn(exp, data, sec)
    sizes = sorted({(j["kind"], j["n"]) for j in data.entry["jobs"]})
    sec.notes.append("Sample sizes: " + "; ".join(f"{n:,} {k} per job" for k, n in sizes)
                     + f"; seed {exp.seed}; {len(data.entry['jobs'])} jobs; {data.seconds:.1f} s.")
    return sec


def _want(exp: Experiment, name: str) -> bool:
    return name in exp.figures


def _seating_text(job: dict) -> str:
    s = job["seatings"]
    if not s:
        return job.get("strategy", "")
    if len(s) == 1:
        return ", ".join(s[0])
    return ", ".join(s[0]) + f" (rotated over {len(s)} seatings)"


# ---------------------------------------------------------------------- modes
def _modes(exp, data, sec: Section) -> None:
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


def _mode_name(m: str) -> str:
    n, d = m.split("d")
    return f"{n} D{d}"


# ---------------------------------------------------------------------- pond
def _pond(exp, data, sec: Section) -> None:
    from ..exact import p_pond, pond_pushback

    sec.intro = sec.intro or "The Peaceful Pond's push-back, simulated beside the exact law."
    rate_rows, push_rows, test_rows, game_rows = [], [], [], []
    for j in data.select(part="turns"):
        m = j["labels"]["mode"]
        rules = data.rules(j["key"])
        t = data.frame(j["key"])
        pond = t["outcome"].to_numpy() == L.OUT_POND
        n, k = len(t), int(pond.sum())
        r, lo, hi = wilson(k, n)
        exact = p_pond(rules)
        rate_rows.append({"mode": m, "turns": n, "ponds": k, "rate": r, "low": lo, "high": hi, "exact": exact,
                          "p": binom_test(k, n, exact)})
        law = pond_pushback(rules)
        values = t.loc[pond, "value"].to_numpy()
        ks = sorted(set(law) | set(np.unique(values).tolist()))
        obs = np.array([(values == kk).sum() for kk in ks], float)
        exp_p = np.array([law.get(kk, 0.0) for kk in ks])
        for kk, o, e in zip(ks, obs, exp_p):
            s, slo, shi = wilson(o, k)
            push_rows.append({"mode": m, "k": kk, "count": int(o), "share": s, "low": slo, "high": shi, "exact": e, "n": k})
        chi, dof = _chi2(obs, exp_p * k)
        test_rows.append({"mode": m, "ponds": k, "chi2": chi, "dof": dof, "p": chi2_sf(chi, dof) if dof > 0 else math.nan,
                          "mean_sim": float(values.mean()) if k else math.nan,
                          "mean_exact": float(sum(kk * p for kk, p in law.items()))})
    for j in data.select(part="games"):
        m = j["labels"]["mode"]
        df = data.frame(j["key"])
        from ..analysis.stats import t_interval

        pg, pglo, pghi = t_interval(df["ponds"].to_numpy(float))
        pb, pblo, pbhi = t_interval(df["pushback"].to_numpy(float))
        any_pond = df["ponds"].to_numpy() > 0
        share, slo, shi = wilson(int(any_pond.sum()), len(df))
        row = {"mode": m, "games": len(df), "ponds": pg, "ponds_low": pglo, "ponds_high": pghi,
               "pushback": pb, "pushback_low": pblo, "pushback_high": pbhi,
               "any": share, "any_low": slo, "any_high": shi}
        if "pond_lead_losses" in df.columns:
            row.update({f"lead_{k}": v for k, v in M.pond_decides(df).items() if k != "games"})
        game_rows.append(row)
    rates = pd.DataFrame(rate_rows)
    push = pd.DataFrame(push_rows)
    tests = pd.DataFrame(test_rows)
    games = pd.DataFrame(game_rows)
    sec.tables.append(Table("P(Pond) per turn: simulated vs exact", _disp({
        "turns": rates["turns"].map("{:,}".format),
        "simulated [95 % CI]": [pct_ci(r["rate"], r["low"], r["high"], 3) for _, r in rates.iterrows()],
        "exact": rates["exact"].map(lambda x: pct(x, 3)),
        "test": rates["p"].map(format_p)}, index=rates["mode"]), data=rates))
    pt = push.pivot(index="k", columns="mode", values="share")
    disp = pd.DataFrame(index=pt.index)
    for m in pt.columns:
        sub = push[push["mode"] == m].set_index("k")
        disp[m] = [f"{pct_ci(sub.at[k, 'share'], sub.at[k, 'low'], sub.at[k, 'high'], 2)} (exact {pct(sub.at[k, 'exact'], 2)})"
                   if k in sub.index else "—" for k in pt.index]
    disp.index.name = "push-back H"
    sec.tables.append(Table("Push-back per opponent given a Pond: simulated [95 % CI] (exact)", disp,
                            note="Goodness of fit (chi-square, tail bins merged to expected >= 5): " + "; ".join(
                                f"{r['mode']}: chi2 = {r['chi2']:.1f}, dof {r['dof']}, {format_p(r['p'])}" for _, r in tests.iterrows()),
                            data=push))
    gcols = {
        "games": games["games"].map("{:,}".format),
        "Ponds per game": [num_ci(r["ponds"], r["ponds_low"], r["ponds_high"], 3) for _, r in games.iterrows()],
        "push-back per game (squares)": [num_ci(r["pushback"], r["pushback_low"], r["pushback_high"], 2) for _, r in games.iterrows()],
        "games with a Pond": [pct_ci(r["any"], r["any_low"], r["any_high"]) for _, r in games.iterrows()],
    }
    decides = "lead_per_pond" in games.columns
    if decides:
        gcols.update({
            "Ponds that cost the leader the lead": [pct_ci(r["lead_per_pond"], r["lead_per_pond_low"], r["lead_per_pond_high"])
                                                    for _, r in games.iterrows()],
            "games with such a Pond": [pct_ci(r["lead_per_game"], r["lead_per_game_low"], r["lead_per_game_high"])
                                       for _, r in games.iterrows()],
            "… among games with a Pond": [pct_ci(r["lead_per_game_with_pond"], r["lead_per_game_with_pond_low"],
                                                 r["lead_per_game_with_pond_high"]) for _, r in games.iterrows()],
            "lead-losing Ponds per game": [num_ci(r["lead_per_game_mean"], r["lead_per_game_mean_low"],
                                                  r["lead_per_game_mean_high"], 3) for _, r in games.iterrows()],
        })
    sec.tables.append(Table("Ponds in whole games, and how often a Pond decides the lead", _disp(gcols, index=games["mode"]), data=games,
        note=("A Pond costs the leader the lead when the seat strictly ahead of all others just before it no longer is "
              "just after it (engine counter pond_lead_losses). Wilson intervals: per Pond over all Ponds (Ponds of one "
              "game are counted as independent), per game over games. Whether the game's eventual winner was that "
              "leader is not recorded (the counter does not say who led), so the share of games a Pond turns against "
              "the eventual winner is not given.") if decides else
             "This run predates the engine's per-Pond lead-loss counter (pond_lead_losses); rerun for the lead-loss rates."))
    base = "8d8" if "8d8" in set(rates["mode"]) else rates["mode"].iloc[0]
    r = rates.set_index("mode").loc[base]
    t = tests.set_index("mode").loc[base]
    sub = push[push["mode"] == base].set_index("k")
    k4 = sub.loc[4] if 4 in sub.index else None
    sec.findings.append(
        f"On {_mode_name(base)} a Pond opens on {pct_ci(r['rate'], r['low'], r['high'], 2)} of turns (exact {pct(r['exact'], 2)}); "
        f"it pushes each opponent back {t['mean_sim']:.2f} squares on average (exact {t['mean_exact']:.2f})"
        + (f", exactly 4 squares in {pct_ci(k4['share'], k4['low'], k4['high'])} of Ponds" if k4 is not None else "")
        + f"; simulation and exact law agree (chi-square {format_p(t['p'])}).")
    if len(games):
        gb = games.set_index("mode").loc[base] if base in set(games["mode"]) else games.iloc[0]
        text = (f"In whole {_mode_name(base)} games, {pct_ci(gb['any'], gb['any_low'], gb['any_high'])} of games see at "
                f"least one Pond")
        if "lead_per_pond" in games.columns and math.isfinite(gb["lead_per_pond"]):
            text += (f"; a Pond decides the lead (the player strictly ahead before it is no longer ahead after it) in "
                     f"{pct_ci(gb['lead_per_pond'], gb['lead_per_pond_low'], gb['lead_per_pond_high'])} of Ponds "
                     f"({int(gb['lead_lead_losses']):,} of {int(gb['lead_ponds']):,}), and "
                     f"{pct_ci(gb['lead_per_game'], gb['lead_per_game_low'], gb['lead_per_game_high'])} of games have at "
                     f"least one such Pond ({gb['lead_per_game_mean']:.2f} per game)")
        sec.findings.append(text + ".")
    if _want(exp, "pushback"):
        sec.figures.append(Figure("pushback", "Pond push-back: simulated shares (bars, 95 % Wilson) vs the exact law (black ticks).",
                                  partial(F.pushback, push)))
    if _want(exp, "pond_rate"):
        t2 = rates.assign(n=rates["turns"])
        rows = []
        for _, rr in t2.iterrows():
            rows.append({"mode": rr["mode"], "source": "simulated", "rate": rr["rate"], "low": rr["low"], "high": rr["high"], "n": rr["turns"]})
            rows.append({"mode": rr["mode"], "source": "exact (enumeration)", "rate": rr["exact"], "low": rr["exact"], "high": rr["exact"], "n": np.nan})
        sec.figures.append(Figure("pond_rate", "P(Pond) per turn by mode, simulated (95 % Wilson) and exact.",
                                  partial(F.grouped_rates, pd.DataFrame(rows), group="source", category="mode",
                                          title="Probability of the Peaceful Pond per turn", xlabel="dice mode",
                                          ylabel="P(Pond) per turn (%)")))


def _chi2(obs: np.ndarray, expected: np.ndarray) -> tuple[float, int]:
    """Chi-square statistic with tail bins merged until every expected count is >= 5."""
    o, e = list(obs), list(expected)
    while len(e) > 1 and e[-1] < 5:
        ev, ov = e.pop(), o.pop()
        e[-1] += ev
        o[-1] += ov
    while len(e) > 1 and e[0] < 5:
        ev, ov = e.pop(0), o.pop(0)
        e[0] += ev
        o[0] += ov
    o, e = np.array(o), np.array(e)
    ok = e > 0
    chi = float((((o - e) ** 2)[ok] / e[ok]).sum())
    return chi, int(ok.sum()) - 1


# ---------------------------------------------------------------------- anxiety
def _anxiety(exp, data, sec: Section) -> None:
    from ..exact import p_first_roll_anxiety

    sec.intro = sec.intro or "The risk of the third heron."
    haz_rows, turn_rows, loss_rows, game_rows = [], [], [], []
    for j in data.select(part="turns"):
        m, s = j["labels"]["mode"], j["labels"]["strategy"]
        t = data.frame(j["key"])
        out, roll = t["outcome"].to_numpy(), t["roll"].to_numpy()
        anx = (out == L.OUT_ANXIETY) | (out == L.OUT_RESCUED)
        n = len(t)
        for k in range(1, int(roll.max()) + 1):
            reach = int((roll >= k).sum())
            hit = int((anx & (roll == k)).sum())
            r, lo, hi = wilson(hit, reach)
            haz_rows.append({"mode": m, "strategy": s, "label": f"{m} {s}", "roll": k, "reached": reach,
                             "anxieties": hit, "rate": r, "low": lo, "high": hi, "n": n})
        r, lo, hi = wilson(int(anx.sum()), n)
        exact1 = p_first_roll_anxiety(data.rules(j["key"]))
        turn_rows.append({"mode": m, "strategy": s, "turns": n, "rate": r, "low": lo, "high": hi,
                          "first_roll_exact": exact1, "n": n})
    for j in data.select(part="no_anxiety"):
        m = j["labels"]["mode"]
        off = data.frame(j["key"])
        on = data.frame(f"turns_{m}_greedy") if f"turns_{m}_greedy" in data.jobs else None
        if on is None:
            continue
        adv_on = np.where(on["outcome"].to_numpy() == L.OUT_POND, 0, on["value"].to_numpy()).astype(float)
        adv_off = np.where(off["outcome"].to_numpy() == L.OUT_POND, 0, off["value"].to_numpy()).astype(float)
        d = paired_difference(adv_on, adv_off)  # off - on = squares lost per turn
        loss_rows.append({"mode": m, **d})
    for j in data.select(part="games"):
        m = j["labels"]["mode"]
        df = data.frame(j["key"])
        lr, llo, lhi = M.ratio_interval(df["lion_rescues"], df["anxieties"])
        from ..analysis.stats import t_interval

        ag, aglo, aghi = t_interval(df["anxieties"].to_numpy(float))
        st = M.strategy_table(df)
        game_rows.append({"mode": m, "games": len(df), "lion": lr, "lion_low": llo, "lion_high": lhi,
                          "anx": ag, "anx_low": aglo, "anx_high": aghi, "strategies": st})
    haz = pd.DataFrame(haz_rows)
    turns = pd.DataFrame(turn_rows)
    loss = pd.DataFrame(loss_rows)
    strats = list(dict.fromkeys(turns["strategy"]))
    modes = list(dict.fromkeys(turns["mode"]))
    maxroll = int(haz["roll"].max())
    disp = []
    for (m, s), sub in haz.groupby(["mode", "strategy"], sort=False):
        row = {"mode": m, "strategy": s}
        for _, r in sub.iterrows():
            row[f"roll {r['roll']}"] = pct_ci(r["rate"], r["low"], r["high"], 2)
        tr = turns[(turns["mode"] == m) & (turns["strategy"] == s)].iloc[0]
        row["per turn"] = pct_ci(tr["rate"], tr["low"], tr["high"], 2)
        row["roll 1 exact"] = pct(tr["first_roll_exact"], 2)
        disp.append(row)
    disp = pd.DataFrame(disp).set_index(["mode", "strategy"])
    sec.tables.append(Table("P(Anxiety) at each roll, given the roll is made, and per turn", disp,
                            note=f"Single turns from a fresh state, guide {exp.guide} (no Lion rescue); n = {int(turns['n'].iloc[0]):,} turns per row. "
                                 "Roll 1 has an exact value (exactly the anxiety threshold of herons, below the Pond).",
                            data=haz))
    if len(loss):
        sec.tables.append(Table("Squares lost to Anxiety (greedy): advance per turn with Anxiety on vs off, same seeds", _disp({
            "turns": loss["n"].map("{:,}".format),
            "advance with Anxiety": loss["a"].map("{:.3f}".format),
            "advance without": loss["b"].map("{:.3f}".format),
            "lost per turn [95 % CI]": [num_ci(r["diff"], r["low"], r["high"], 3) for _, r in loss.iterrows()],
        }, index=loss["mode"]), data=loss))
    if game_rows:
        gdisp = _disp({
            "games": [f"{r['games']:,}" for r in game_rows],
            "Anxieties per game": [num_ci(r["anx"], r["anx_low"], r["anx_high"]) for r in game_rows],
            "Lion rescues / Anxiety": [pct_ci(r["lion"], r["lion_low"], r["lion_high"]) for r in game_rows],
        }, index=[r["mode"] for r in game_rows])
        for s in strats:
            vals = []
            for r in game_rows:
                st = r["strategies"].set_index("strategy")
                vals.append(pct_ci(st.at[s, "anxiety_per_turn"], st.at[s, "anxiety_low"], st.at[s, "anxiety_high"], 2) if s in st.index else "—")
            gdisp[f"Anxiety / turn, {s}"] = vals
        sec.tables.append(Table("Anxiety in whole games (strategies rotated over the seats)", gdisp))
    base = "8d8" if "8d8" in modes else modes[0]
    g = turns[(turns["mode"] == base) & (turns["strategy"] == ("greedy" if "greedy" in strats else strats[0]))].iloc[0]
    hz = haz[(haz["mode"] == base) & (haz["strategy"] == g["strategy"])].set_index("roll")
    sec.findings.append(
        f"On {_mode_name(base)}, a {g['strategy']} turn ends in Anxiety {pct_ci(g['rate'], g['low'], g['high'], 2)} of the time; "
        "the risk per roll made is " + ", ".join(f"{pct_ci(hz.at[k, 'rate'], hz.at[k, 'low'], hz.at[k, 'high'], 2)} at roll {k}" for k in hz.index)
        + f" (first roll exact {pct(g['first_roll_exact'], 2)}).")
    if len(loss):
        lb = loss.set_index("mode").loc[base] if base in set(loss["mode"]) else loss.iloc[0]
        sec.findings.append(f"Anxiety costs a greedy player {num_ci(lb['diff'], lb['low'], lb['high'], 3)} squares per turn on "
                            f"{_mode_name(base)} ({100 * lb['diff'] / lb['b']:.1f} % of its advance without Anxiety).")
    if game_rows:
        gr = next((r for r in game_rows if r["mode"] == base), game_rows[0])
        sec.findings.append(f"In whole games the Lion rescues {pct_ci(gr['lion'], gr['lion_low'], gr['lion_high'])} of Anxieties "
                            f"({gr['anx']:.2f} Anxieties per game on {_mode_name(gr['mode'])}).")
    if _want(exp, "per_roll"):
        greedy = "greedy" if "greedy" in strats else strats[0]
        sec.figures.append(Figure("per_roll", f"Risk of Anxiety at each roll, {greedy} strategy, by mode.",
                                  partial(F.hazard, haz[haz["strategy"] == greedy].assign(label=lambda d: d["mode"]))))
    if _want(exp, "per_strategy"):
        sec.figures.append(Figure("per_strategy", "P(Anxiety) per turn by strategy and mode (95 % Wilson).",
                                  partial(F.grouped_rates, turns, group="strategy", category="mode",
                                          title="Anxiety per turn by strategy", xlabel="dice mode",
                                          ylabel="P(Anxiety) per turn (%)")))


# ---------------------------------------------------------------------- guides
def _guides(exp, data, sec: Section) -> None:
    sec.intro = sec.intro or "Win rate of each guide, Guide Power doubling, and one-shot powers by ablation."
    for m in exp.modes:
        on_key, off_key = f"games_{m}_on", f"games_{m}_off"
        on = data.frame(on_key)
        gt = M.guide_table(on)
        sec.notes.append(f"Seating: {_seating_text(data.jobs[on_key])}.")
        sec.tables.append(Table(f"{_mode_name(m)}: win rate by starting guide (share of all games)", _disp({
            "games": gt["games"].map("{:,}".format),
            "win rate [95 % CI]": [pct_ci(r["win_rate"], r["low"], r["high"]) for _, r in gt.iterrows()],
            "fair": gt["fair"].map(pct),
            "when dealt (fair 1/players)": [pct_ci(r["win_rate_when_dealt"], r["when_dealt_low"], r["when_dealt_high"]) for _, r in gt.iterrows()],
            "p": gt["p"].map(format_p), "p (Holm)": gt["p_holm"].map(format_p), "flag": gt["flag"],
        }, index=gt["guide"]), data=gt, note="Exact binomial test against 1/7, Holm-corrected over the seven guides; flag at 5 %."))
        dbl = M.doubling_share(on)
        sec.tables.append(Table(f"{_mode_name(m)}: share of advance from Guide Power doubling, by starting guide", _disp({
            "player-games": dbl["players"].map("{:,}".format),
            "share [95 % CI]": [pct_ci(r["share"], r["low"], r["high"]) for _, r in dbl.iterrows()]}, index=dbl["guide"]), data=dbl))
        # Reference for the paired ablations: the default-rules batch of the ablations' size.
        ref_key = f"games_{m}_ref" if f"games_{m}_ref" in data.jobs else on_key
        ref = data.frame(ref_key) if ref_key != on_key else on
        offs = {j["labels"]["disabled"]: data.frame(j["key"])
                for j in data.select(mode=m) if j["labels"].get("disabled")}
        ab = _ablation(sec, ref, offs) if offs else pd.DataFrame()
        allp = (_ablation(sec, ref, {name: data.frame(off_key) for name in ANIMALS}) if off_key in data.jobs
                else pd.DataFrame())
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
                _disp(cols, index=ab["guide"]), data=ab,
                note=f"Row g: the default rules vs the same {int(ab['games'].iloc[0]):,} games (seeds and seatings) with only "
                     "g's one-shot power disabled (rules key disabled_powers = [g]; Guide Power doubling unchanged); win rate "
                     "of the player dealt g at the start, paired t interval over the games where g was dealt "
                     f"(about {int(ab['n'].median()):,}), Holm-corrected over the guides. The last column is the older "
                     "all-powers-off ablation, which mixes g's power with the loss of the opponents' powers."))
        elif len(allp):
            sec.tables.append(Table(f"{_mode_name(m)}: one-shot powers by ablation (same seeds, all powers on vs off)", _disp({
                "power uses / game": allp["uses"].map("{:.3f}".format),
                "win rate when dealt, off": allp["off"].map(pct), "on": allp["on"].map(pct),
                "on - off [95 % CI]": [signed_ci(r["diff"], r["low"], r["high"], 1, 100, " pts") for _, r in allp.iterrows()],
                "p (Holm)": allp["p_holm"].map(format_p)}, index=allp["guide"]), data=allp,
                note="All one-shot powers off at once: each row is that guide's power plus its interactions."))
        # findings
        worst = gt.iloc[(gt["win_rate"] - gt["fair"]).abs().argmax()]
        best = gt.iloc[gt["win_rate"].argmax()]
        flagged = gt[gt["flag"] != ""]
        sec.findings.append(
            f"On {_mode_name(m)} the {worst['guide']} guide wins {pct_ci(worst['win_rate'], worst['low'], worst['high'])} of games "
            f"against a fair {pct(worst['fair'])} ({format_p(worst['p'])}, Holm {format_p(worst['p_holm'])}); "
            + (f"the strongest is {best['guide']} at {pct_ci(best['win_rate'], best['low'], best['high'])}; " if best['guide'] != worst['guide'] else "")
            + (f"guides significantly off after correction: {', '.join(f'{r.guide} ({r.flag})' for r in flagged.itertuples())}."
               if len(flagged) else "no guide is significantly off the fair share after Holm correction."))
        sec.findings.append(f"Guide Power doubling gives {pct_ci(dbl.iloc[0]['share'], dbl.iloc[0]['low'], dbl.iloc[0]['high'])} "
                            f"of all advance on {_mode_name(m)}.")
        if len(ab):
            best = ab.iloc[ab["diff"].abs().argmax()]
            sig = ab[ab["p_holm"] <= 0.05]
            sec.findings.append(
                f"One power at a time on {_mode_name(m)} (same {int(ab['games'].iloc[0]):,} seeds, only that power disabled): "
                f"the largest effect is {best['guide']}'s power, worth "
                f"{signed_ci(best['diff'], best['low'], best['high'], 1, 100, ' points')} of win rate to the player dealt it "
                f"(Holm {format_p(best['p_holm'])}); "
                + (f"powers that change their holder's win rate significantly after Holm correction: "
                   + ", ".join(f"{r.guide} {100 * r.diff:+.1f}" for r in sig.sort_values("diff", ascending=False).itertuples())
                   + " points." if len(sig) else "no single power changes its holder's win rate significantly after Holm correction."))
        elif len(allp):
            best = allp.iloc[allp["diff"].abs().argmax()]
            sec.findings.append(
                f"Largest power effect by ablation (all powers off): {best['guide']} "
                f"({signed_ci(best['diff'], best['low'], best['high'], 1, 100, ' points')} win rate when dealt, Holm {format_p(best['p_holm'])}).")
        if _want(exp, "win_rate"):
            t = gt.rename(columns={"win_rate": "rate"}).assign(n=gt["games"], mode=_mode_name(m))
            sec.figures.append(Figure(f"win_rate_{m}", f"Win rate by starting guide, {_mode_name(m)} (95 % Wilson; dashed: fair 1/7).",
                                      partial(F.grouped_rates, t, group="mode", category="guide",
                                              title=f"Win rate by guide ({_mode_name(m)})", xlabel="starting guide",
                                              ylabel="share of games won (%)", fair=1 / 7, fair_label="fair share 1/7")))
        fab = ab if len(ab) else allp
        if _want(exp, "ablation") and len(fab):
            how = "only that guide's power switched off" if len(ab) else "all powers switched off"
            sec.figures.append(Figure(f"ablation_{m}", f"Value of each one-shot power: win rate of the player dealt the guide, "
                                                       f"default rules minus {how} (paired by seed, 95 % t interval).",
                                      partial(F.forest, fab, label="guide", title=f"Value of the guides' powers by ablation ({_mode_name(m)})",
                                              xlabel="win rate when dealt, on - off (percentage points)", scale=100,
                                              note=f"{how}; n = {int(fab['n'].min()):,}-{int(fab['n'].max()):,} paired games per guide")))
        if _want(exp, "doubling"):
            t = dbl.rename(columns={"share": "rate"}).assign(group=_mode_name(m), n=dbl["players"])
            sec.figures.append(Figure(f"doubling_{m}", "Share of advance due to Guide Power doubling (95 % interval).",
                                      partial(F.grouped_rates, t, group="group", category="guide",
                                              title=f"Advance from Guide Power doubling ({_mode_name(m)})", xlabel="starting guide",
                                              ylabel="share of the player's advance (%)")))


def _ablation(sec: Section, ref: pd.DataFrame, offs: dict) -> pd.DataFrame:
    """:func:`metrics.power_ablation`, or an empty table and a note when the batches are not
    paired game by game (a run folder from before the reference batch existed)."""
    try:
        return M.power_ablation(ref, offs)
    except ValueError as err:
        sec.notes.append(f"Ablation left out: {err}.")
        return pd.DataFrame()


# ---------------------------------------------------------------------- strategies
def _strategies(exp, data, sec: Section) -> None:
    from .run import available_strategies

    sec.intro = sec.intro or "The AI strategies against each other and against chance."
    solo = data.select(part="solo")
    strats = list(dict.fromkeys(j["labels"]["strategy"] for j in solo))
    sec.notes.append(f"Strategies registered at run time: {', '.join(strats)}.")
    if "tournament" in data.jobs:
        t = data.frame("tournament")
        tj = data.jobs["tournament"]
        if "error" in t.columns:
            sec.notes.append(f"heron_sim.tournament failed: {t['error'].iloc[0]}")
        elif "table" in t.columns:
            rk = t[t["table"] == "ranking"].dropna(axis=1, how="all")
            disp = _disp({
                "games": [f"{int(x):,}" for x in rk["games"]],
                "win rate [95 % CI]": [pct_ci(r["win_rate"], r["low"], r["high"]) for _, r in rk.iterrows()],
                "rating (Bradley-Terry, Elo scale)": [f"{x:+.0f}" for x in rk["rating"]],
                "advance / turn": [f"{x:.3f}" for x in rk["advance_per_turn"]],
                "Anxiety / turn": [pct(x, 2) for x in rk["anxiety_rate"]],
            }, index=pd.Index(rk["strategy"].to_numpy(), name="strategy"))
            sec.tables.append(Table(f"Tournament (heron_sim.tournament): two-player round robin on {_mode_name(tj['mode'])}, "
                                    f"{tj['n']:,} games per seating of each pair, seats and guides mirrored", disp, data=t))
            pr = t[t["table"] == "pair"]
            m = pr.pivot(index="strategy", columns="opponent", values="win_rate")
            order = list(rk["strategy"])
            m = m.reindex(index=order, columns=order)
            lo = pr.pivot(index="strategy", columns="opponent", values="low").reindex(index=order, columns=order)
            hi = pr.pivot(index="strategy", columns="opponent", values="high").reindex(index=order, columns=order)
            sec.tables.append(Table("Tournament: win rate of the row against the column [95 % CI]", pd.DataFrame(
                {b: [pct_ci(m.at[a, b], lo.at[a, b], hi.at[a, b]) if a != b else "—" for a in order] for b in order}, index=order)))
            best = rk.iloc[0]
            sec.findings.append(f"Tournament (two players, {_mode_name(tj['mode'])}): {best['strategy']} ranks first, winning "
                                f"{pct_ci(best['win_rate'], best['low'], best['high'])} of its games (rating {best['rating']:+.0f}); "
                                "order: " + " > ".join(rk["strategy"]) + ".")
        else:
            sec.tables.append(Table("Tournament (heron_sim.tournament)", t.head(50).map(_fmt_cell)))
    else:
        sec.notes.append("heron_sim.tournament was not available: the head-to-head below uses a rotation of seats.")
    rows = []
    for j in solo:
        df = data.frame(j["key"])
        lt = M.length_table(df)
        pr = M.per_turn_rates(df)
        rows.append({"mode": j["labels"]["mode"], "strategy": j["labels"]["strategy"], "games": len(df), **lt,
                     **{f"pr_{k}": v for k, v in pr.items()}})
    solo_t = pd.DataFrame(rows)
    sec.tables.append(Table("Each strategy alone at the table, per mode", _disp({
        "mode": solo_t["mode"], "strategy": solo_t["strategy"], "games": solo_t["games"].map("{:,}".format),
        "rounds [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in solo_t.iterrows()],
        "advance / turn": [num_ci(r["pr_advance"], r["pr_advance_low"], r["pr_advance_high"], 3) for _, r in solo_t.iterrows()],
        "Anxiety / turn": [pct_ci(r["pr_anxiety"], r["pr_anxiety_low"], r["pr_anxiety_high"], 2) for _, r in solo_t.iterrows()],
    }).set_index(["mode", "strategy"]), data=solo_t))
    # head to head
    names = strats
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
        sec.tables.append(Table("Head to head (two seats each, seats rotated): share of wins of A", _disp({
            "A": h2h["a"], "B": h2h["b"], "games won (A / B)": [f"{r.wins_a:,} / {r.wins_b:,}" for r in h2h.itertuples()],
            "A's share [95 % CI]": [pct_ci(r["share_a"], r["low"], r["high"]) for _, r in h2h.iterrows()],
            "p (Holm)": h2h["p_holm"].map(format_p)}).set_index(["A", "B"]), data=h2h))
        ai = h2h[(h2h["a"] != "random") & (h2h["b"] != "random")]
        if len(ai):
            avg = {s: np.nanmean([rate.at[s, o] for o in names if o != s and o != "random"]) for s in names if s != "random"}
            order = sorted(avg, key=avg.get, reverse=True)
            top = ai.iloc[(ai["share_a"] - 0.5).abs().argmax()]
            sec.findings.append(
                f"Head to head on {_mode_name(exp.modes[0])} (AI strategies, mean share of wins against the other AIs): "
                + ", ".join(f"{s} {pct(avg[s])}" for s in order)
                + f"; the widest gap: {top['a']} takes {pct_ci(top['share_a'], top['low'], top['high'])} of the wins against "
                  f"{top['b']} ({format_p(top['p_holm'])}, Holm).")
        if "random" in names:
            vs = h2h[(h2h["a"] == "random") | (h2h["b"] == "random")]
            share_r = [r.share_a if r.a == "random" else 1 - r.share_a for r in vs.itertuples()]
            sec.findings.append(f"`random` takes at most {pct(max(share_r))} of the wins against any AI strategy head to head.")
    if "skill" in data.jobs:
        df = data.frame("skill")
        s = data.jobs["skill"]["labels"]["strategy"]
        st = M.strategy_table(df).set_index("strategy")
        P = int(df["players"].iloc[0])
        k, n = int(st.at[s, "wins"]), int(st.at[s, "seats"])
        r, lo, hi = wilson(k, n)
        p = binom_test(k, n, 1 / P)
        sec.tables.append(Table(f"Skill: one {s} seat against {P - 1} random seats (seats rotated)", _disp({
            "games": [f"{n:,}"], f"{s} win rate [95 % CI]": [pct_ci(r, lo, hi)], "fair": [pct(1 / P)], "test": [format_p(p)]},
            index=[s])))
        sec.findings.append(f"Skill matters{'' if p < 0.05 else ' little'}: one {s} player against {P - 1} random players wins "
                            f"{pct_ci(r, lo, hi)} of games against a fair {pct(1 / P)} ({format_p(p)})."
                            + ("" if s == "expert" else " (`expert` was not registered; the best available AI stands in.)"))
    ve_all = []
    for key, who in (("mixed", "all strategies"), ("mixed_ai", "AI strategies only")):
        if key not in data.jobs:
            continue
        df = data.frame(key)
        ve = M.variance_explained(df)
        ve["table"] = who
        ve_all.append(ve)
        sec.tables.append(Table(f"Share of outcome variance explained, {who} (eta squared of each factor alone, per player-game won 0/1)",
                                _disp({"levels": ve["levels"],
                                              "eta squared [95 % CI]": [pct_ci(r["eta_squared"], r["low"], r["high"], 2) for _, r in ve.iterrows()]},
                                             index=ve["factor"]), data=ve,
                                note=f"{len(df):,} games, {_seating_text(data.jobs[key])}; interval: bootstrap over games. "
                                     "The rest of the variance is the dice."))
        sec.findings.append(f"Share of the variance of winning explained ({who}): " + ", ".join(
            f"{r['factor']} {pct_ci(r['eta_squared'], r['low'], r['high'], 2)}" for _, r in ve.iterrows()) + "; the dice explain the rest.")
    if ve_all and _want(exp, "variance"):
        t = pd.concat(ve_all, ignore_index=True)
        t = t.assign(rate=t["eta_squared"], group=t["table"], n=t["player_games"])
        sec.figures.append(Figure("variance", "Share of the variance of winning explained by each factor alone (95 % bootstrap interval).",
                                  partial(F.grouped_rates, t, group="group", category="factor",
                                          title="What decides the game: seat, guide or strategy", xlabel="factor",
                                          ylabel="variance of winning explained (%)",
                                          note="n = player-games; the rest of the variance is the dice")))
    if _want(exp, "head_to_head") and len(h2h):
        sec.figures.append(Figure("head_to_head", "Head-to-head heat map: share of wins of the row strategy (95 % Wilson, n games).",
                                  partial(F.heatmap, rate, low, high, cnt)))
    if _want(exp, "per_mode") and len(solo_t):
        t = solo_t.assign(rate=solo_t["pr_advance"], low=solo_t["pr_advance_low"], high=solo_t["pr_advance_high"], n=solo_t["games"])
        sec.figures.append(Figure("per_mode", "Advance per played turn of each strategy playing alone, by mode.",
                                  partial(F.grouped_rates, t, group="strategy", category="mode", percent=False,
                                          title="Advance per turn by strategy and mode", xlabel="dice mode",
                                          ylabel="advance per played turn (squares)")))


def _fmt_cell(x):
    if isinstance(x, float):
        return f"{x:.4g}"
    return x


# ---------------------------------------------------------------------- lighter games
def _light_sections(exp, data) -> list[Section]:
    games = list(dict.fromkeys(j["labels"]["game"] for j in data.entry["jobs"]))
    return [_light_game(exp, data, name) for name in games]


def _light_game(exp, data, name: str) -> Section:
    jobs = {j["labels"]["part"]: j for j in data.select(game=name)}
    main = jobs["seats"]
    lab = main["labels"]
    P, unit, best = int(lab["players"]), lab["unit"], lab["strategy"]
    df = data.frame(main["key"])
    mixed = data.frame(jobs["mixed"]["key"]) if "mixed" in jobs else None
    doc = f" (rules and assumptions: `{lab['doc']}`)" if lab.get("doc") else ""
    sec = Section(key=f"{exp.name}-{name}", title=f"{lab['title']}",
                  intro=f"Lighter game `{name}`{doc}, {P} players, its default rules. Seat advantage and length "
                        f"from {main['n']:,} games with every seat {best}; strategy win rates from "
                        + (f"{jobs['mixed']['n']:,} games with {' and '.join(lab2 for lab2 in jobs['mixed']['labels']['strategies'])} "
                           f"rotated over the seats ({_seating_text(jobs['mixed'])})." if mixed is not None else "no mixed batch (one strategy)."))

    # seat advantage
    st = M.light_seat_table(df)
    n_fin = int(st["games"].iloc[0]) if len(st) else 0
    sec.tables.append(Table(f"Seat advantage: win rate by seat, {P} × {best} (finished games)", _disp({
        "wins": st["wins"].map("{:,}".format), "games": st["games"].map("{:,}".format),
        "win rate [95 % CI]": [pct_ci(r["win_rate"], r["low"], r["high"]) for _, r in st.iterrows()],
        "fair": [pct(x) for x in st["fair"]],
        "p (Holm, vs fair)": [format_p(x) for x in st["p_holm"]],
        "flag": ["above fair" if (r["p_holm"] < 0.05 and r["win_rate"] > r["fair"]) else
                 "below fair" if r["p_holm"] < 0.05 else "" for _, r in st.iterrows()],
    }, index=pd.Index(st["seat"], name="seat")), data=st,
        note="Wilson 95 % intervals; exact binomial test against 1/players, Holm-corrected over the seats. "
             "A finished game with no single winner (winner -1) counts for no seat."))
    none = int((df.loc[df["finished"].to_numpy(bool), "winner"] < 0).sum())
    if none:
        sec.notes.append(f"{none:,} of {n_fin:,} finished games had no single winner (shared or none); "
                         "the seat shares therefore sum to less than 100 %.")
    if _want(exp, "seats") and len(st):
        fig_t = st.assign(batch=f"{P} × {best}", n=st["games"])
        sec.figures.append(Figure("seats", f"{lab['title']}: win rate by seat ({P} × {best}, n = {n_fin:,} finished games), "
                                           "95 % Wilson intervals; dashed line: fair share 1/players.",
                                  partial(F.grouped_rates, fig_t, group="batch", category="seat",
                                          title=f"{lab['title']}: win rate by seat", xlabel="seat (turn order)",
                                          ylabel="win rate (% of finished games)", value="win_rate",
                                          fair=1 / P, fair_label=f"fair share ({pct(1 / P)})",
                                          note=f"n = {n_fin:,} finished games; bars: 95 % Wilson intervals")))
    if len(st):
        i = int((st["win_rate"] - st["fair"]).abs().idxmax())
        r = st.loc[i]
        sig = ("significant after Holm" if r["p_holm"] < 0.05 else "not significant after Holm")
        sec.findings.append(f"Seat {int(r['seat'])} wins {pct_ci(r['win_rate'], r['low'], r['high'])} "
                            f"against a fair {pct(r['fair'], 0 if (100 * r['fair']).is_integer() else 1)} "
                            f"({P} × {best}, n = {n_fin:,} finished games; {sig}, {format_p(r['p_holm'])}).")

    # length
    batches = {f"{P} × {best}": df} | ({"mixed": mixed} if mixed is not None else {})
    rows = [{"batch": k, **M.light_length_table(v)} for k, v in batches.items()]
    lt = pd.DataFrame(rows)
    sec.tables.append(Table(f"Game length ({unit}, finished games)", _disp({
        "games": lt["games"].map("{:,}".format),
        "finished [95 % CI]": [pct_ci(r["finished_rate"], r["finished_low"], r["finished_high"]) for _, r in lt.iterrows()],
        f"mean ({unit}) [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in lt.iterrows()],
        "median [95 % CI]": [num_ci(r["median"], r["median_low"], r["median_high"], 0) for _, r in lt.iterrows()],
        "p10 – p90": [f"{r['p10']:.0f} – {r['p90']:.0f}" for _, r in lt.iterrows()],
        "min – max": [f"{r['min']:.0f} – {r['max']:.0f}" for _, r in lt.iterrows()],
    }, index=pd.Index(lt["batch"], name="seating")), data=lt,
        note=f"length in {unit}, as docs say for this game; mean: t interval; median: order-statistic interval."))
    if _want(exp, "length"):
        dists = {k: M.light_length_distribution(v) for k, v in batches.items()}
        stats = pd.DataFrame({"label": lt["batch"], "mean": lt["mean"], "low": lt["mean_low"], "high": lt["mean_high"],
                              "n": lt["finished"]})
        sec.figures.append(Figure("length", f"{lab['title']}: distribution of game length ({unit}) over finished games; "
                                            "points: mean with 95 % t interval.",
                                  partial(F.length_distributions, dists, stats, unit=unit, legend_below=True,
                                          title=f"{lab['title']}: game length (points: mean with 95 % interval)")))

    # strategies
    if mixed is not None:
        stt = M.light_strategy_table(mixed)
        allrows = stt[stt["seat"] == "all"]
        sec.tables.append(Table("Strategy win rates per seat played (mixed seating, finished games)", _disp({
            "seat games": allrows["seat_games"].map("{:,}".format), "wins": allrows["wins"].map("{:,}".format),
            "win rate [95 % CI]": [pct_ci(r["win_rate"], r["low"], r["high"]) for _, r in allrows.iterrows()],
            "fair": [pct(x) for x in allrows["fair"]],
            **{f"seat {s}": [pct_ci(*stt[(stt["strategy"] == n_) & (stt["seat"] == s)][["win_rate", "low", "high"]].iloc[0])
                             if ((stt["strategy"] == n_) & (stt["seat"] == s)).any() else "" for n_ in allrows["strategy"]]
               for s in range(P)},
        }, index=pd.Index(allrows["strategy"], name="strategy")), data=stt,
            note="Win rate per seat played: wins / (games x seats the strategy held); Wilson 95 % intervals; "
                 f"seatings rotated: {_seating_text(jobs['mixed'])}."))
        if _want(exp, "strategies"):
            ft = stt.assign(seat=stt["seat"].map(lambda x: "all seats" if x == "all" else f"seat {x}"), n=stt["seat_games"])
            sec.figures.append(Figure("strategies", f"{lab['title']}: win rate per seat played by strategy (mixed seating, "
                                                    f"n = {len(mixed):,} games), 95 % Wilson intervals; dashed: fair share.",
                                      partial(F.grouped_rates, ft, group="strategy", category="seat",
                                              title=f"{lab['title']}: strategy win rates (mixed seating)",
                                              xlabel="seat (turn order)", ylabel="win rate per seat played (%)",
                                              value="win_rate", fair=1 / P, fair_label=f"fair share ({pct(1 / P)})",
                                              note=f"n = {len(mixed):,} games")))

    # the game's own answers
    from ..games import available

    game = available().get(name)
    if game is not None:
        sec.markdown.append(f"**The game's own summary (`summarize`), {P} × {best}:**\n\n" + game.summarize(df).strip())
        if mixed is not None:
            sec.markdown.append("**The game's own summary (`summarize`), mixed seating:**\n\n" + game.summarize(mixed).strip())
    sizes = "; ".join(f"{j['key']}: {j['n']:,} games" for j in jobs.values())
    sec.notes.append(f"Sample sizes: {sizes}; seed {exp.seed} (game i draws from stream (seed, i)); "
                     f"{sum(j.get('seconds', 0) for j in jobs.values()):.1f} s.")
    return sec


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
        "n": t["n"].map("{:,}".format)}, index=t["metric"])


KEY_METRICS = ["rounds (finished games)", "advance per played turn", "lead changes per game", "Ponds per game",
               "Anxieties per game", "mid-game leader loses", "mid-game last wins", "AdvantageP1 (seat 0 wins)",
               "Completion", "Balance (Ludii)"]


def _compare(exp, data, sec: Section) -> None:
    sec.intro = sec.intro or "Two rule sets on the same seeds."
    for m in exp.modes:
        ja, jb = data.jobs[f"a_{m}"], data.jobs[f"b_{m}"]
        la, lb = ja["labels"]["label"], jb["labels"]["label"]
        if la == lb:
            la, lb = f"{la} (A)", f"{lb} (B)"
        t = compare_frames(data.frame(ja["key"]), data.frame(jb["key"]), la, lb)
        sec.notes.append(f"{_mode_name(m)}: A = {la} (rules {ja['rules_hash']}), B = {lb} (rules {jb['rules_hash']}); "
                         f"seating {_seating_text(ja)}.")
        sec.tables.append(Table(f"{_mode_name(m)}: {la} vs {lb}, paired by seed", compare_display(t, la, lb), data=t,
                                note="Differences B - A with 95 % paired t intervals (Balance: paired bootstrap); p-values Holm-corrected over the metrics."))
        sig = t[(t["p_holm"] < 0.05)]
        main = t.set_index("metric")
        r = main.loc["rounds (finished games)"]
        sec.findings.append(
            f"{lb} vs {la} on {_mode_name(m)}: game length {r[la]:.2f} -> {r[lb]:.2f} rounds "
            f"({signed_ci(r['diff'], r['low'], r['high'], 2)}, {format_p(r['p_holm'])}, Holm); "
            f"{len(sig)} of {len(t)} metrics differ significantly after Holm correction"
            + (f" (largest relative change: {_largest(sig, la)})." if len(sig) else "."))
        if _want(exp, "differences"):
            k = t[t["metric"].isin(KEY_METRICS)].copy()
            base = k[la].abs().replace(0, np.nan)
            k["rel"], k["rlo"], k["rhi"] = k["diff"] / base, k["low"] / base, k["high"] / base
            sec.figures.append(Figure(f"differences_{m}", "Main metrics, relative change B vs A (95 % interval, paired by seed).",
                                      partial(F.forest, k, label="metric", value="rel", low="rlo", high="rhi", scale=100,
                                              title=f"{lb} vs {la} ({_mode_name(m)})",
                                              xlabel=f"relative change, {lb} vs {la} (%)",
                                              note=f"n = {int(k['n'].max()):,} paired games")))


def _largest(sig: pd.DataFrame, la: str) -> str:
    base = sig[la].abs().replace(0, np.nan)
    rel = (sig["diff"] / base).abs()
    if rel.isna().all():
        return sig.iloc[0]["metric"]
    r = sig.loc[rel.idxmax()]
    return f"{r['metric']} {100 * r['diff'] / abs(r[la]):+.1f} %"


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
