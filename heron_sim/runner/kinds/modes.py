"""Kind ``modes``: the four dice modes, same seeds, same seating."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from ...analysis import metrics as M
from ...analysis.intervals import wilson
from ...analysis.stats import equivalence, t_interval, format_p, paired_difference
from ...analysis.executive import (MODE_NAMES, MODE_ORDER, TARGET_MINUTES, assumed_note, at_order, comeback, margin_words, pc,
                                  problems_of, remedy, Row, rows_of, show, sure_share)
from ...analysis.judge import LENGTH_MARGIN, SHARE_MARGIN, Problem, reading
from ...animals import NAMES as ANIMALS
from ...sections import Fact, Figure, Section, Table, num_ci, pct, pct_ci, plot
from ..options import HeronExperiment, Seating, figures_of
from ..jobs import Job, resolve_strategies, seatings
from .base import ExperimentKind, Sizes
from .common import GUIDE_FR, SECONDS_PER_TURN, minutes, _disp, _mode_name


#: The figures this kind draws (the ``figures`` key chooses among them; default: all).
FIGURES = ('length', 'combos', 'seats', 'pace')


class ModesExperiment(HeronExperiment):
    """The options of an experiment file of kind ``modes``."""

    kind: Literal["modes"] = "modes"
    figures: figures_of(FIGURES) = FIGURES
    seating: Seating = "ai"


class ModesKind(ExperimentKind):
    """The four dice modes, same seeds, same seating."""

    name = "modes"
    options = ModesExperiment
    figures = FIGURES
    intro = "The four dice modes, same seeds, same seating."

    def jobs(self, exp: ModesExperiment, g: Sizes) -> list[Job]:
        P = exp.players
        jobs: list[Job] = []
        seat = seatings(resolve_strategies(exp.seating), P)
        for m in exp.modes:
            jobs.append(Job(f"games_{m}", "games", exp.rules.build(m, P), g(exp.games), exp.seed, seat,
                            labels={"mode": m}))
        return jobs

    def summary_rows(self, facts: dict[str, Fact]) -> list[Row]:
        return rows_of(facts, modes_row, decisiveness_row, cap_row)

    def summary_problems(self, facts: dict[str, Fact]) -> list[Problem]:
        return problems_of(facts, unfinished_problem, cap_problem)

    def fill(self, exp: ModesExperiment, data, sec: Section) -> None:
        jobs = data.select()
        frames = {j["labels"]["mode"]: data.frame(j["key"]) for j in jobs}
        self.note_seating(sec, jobs[0])
        if "10d6" in frames:
            sec.notes.append("10 D6 plays on dice assumed by the rulings (the seed lists no faces): Aigle and Cerf on 9 of "
                             "the 10 dice, the other non-heron animals on 8, one Héron face each; the sensitivity section "
                             "compares another composition.")
        t = _measures(frames)
        _length_table(sec, t, exp.players)
        _pace_table(sec, t)
        _seat_table(sec, t)
        _guide_table(sec, t, exp.players)
        _combo_table(sec, t)
        _length_facts(sec, t, exp.players)
        _pace_facts(sec, t)
        _big_set_facts(sec, t)
        _decisiveness(sec, frames)
        _trajectories(sec, data, jobs, exp.players)
        _first_player_facts(sec, t)
        base = "8d8" if "8d8" in frames else next(iter(frames))
        _length_findings(sec, frames, base)
        _first_player_finding(sec, t, base)
        _pace_finding(sec, t)
        for name, draw in (("length", _length_figure), ("seats", _seats_figure), ("combos", _combos_figure),
                           ("pace", _pace_figure)):
            if self.want(exp, name):
                sec.figures.append(draw(t, exp.players))


@dataclass
class _Measures:
    """The per-mode measures of the batches, computed once for the tables, facts and figures."""

    frames: dict            # mode -> its games
    length: pd.DataFrame    # one row per mode: length_table and Completion
    pace: pd.DataFrame      # one row per mode: per-turn rates, Lion rescues
    seats: pd.DataFrame     # seat_table rows of every mode
    combos: pd.DataFrame    # combo_distribution rows of every mode
    guides: pd.DataFrame    # guide_table rows of every mode
    std_rows: list          # Ludii's metrics, one dict per mode
    dists: dict             # mode -> rounds distribution
    unfinished: dict        # mode -> games unfinished at the round limit
    totals: dict            # mode -> games


def _measures(frames: dict) -> _Measures:
    """Length, pace, seats, largest sets, guides and Ludii's metrics of every mode's batch."""
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
    unfinished = {m: int((~df["finished"].to_numpy(bool)).sum()) for m, df in frames.items()}
    totals = {m: len(df) for m, df in frames.items()}
    return _Measures(frames=frames, length=length, pace=pace, seats=seats, combos=combos, guides=guides,
                     std_rows=std_rows, dists=dists, unfinished=unfinished, totals=totals)


def _length_table(sec: Section, t: _Measures, players: int) -> None:
    length, unfinished, totals = t.length, t.unfinished, t.totals
    sec.tables.append(Table("Game length (rounds, finished games)", _disp({
        "finished games": length["games"].map("{:,}".format),
        "unfinished": [f"{unfinished[m]:,} of {totals[m]:,}" + (" ⚠" if unfinished[m] > 0.01 * totals[m] else "")
                       for m in length["mode"]],
        "minutes (assumed)": [f"{minutes(r['mean'], players):.0f}" for _, r in length.iterrows()],
        "mean [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in length.iterrows()],
        "median [CI]": [num_ci(r["median"], r["median_low"], r["median_high"], 0) for _, r in length.iterrows()],
        "p90 [CI]": [num_ci(r["p90"], r["p90_low"], r["p90_high"], 0) for _, r in length.iterrows()],
        "Completion": [pct_ci(r["completion"], r["completion_low"], r["completion_high"], 2) for _, r in length.iterrows()],
    }, index=pd.Index(length["mode"].map(_mode_name), name="mode")), data=length))


def _pace_table(sec: Section, t: _Measures) -> None:
    pace = t.pace
    sec.tables.append(Table("Pace per really-played turn", _disp({
        "turns": pace["turns"].map("{:,}".format),
        "advance (squares)": [num_ci(r["advance"], r["advance_low"], r["advance_high"], 3) for _, r in pace.iterrows()],
        "Pond": [pct_ci(r["pond"], r["pond_low"], r["pond_high"], 2) for _, r in pace.iterrows()],
        "Anxiety": [pct_ci(r["anxiety"], r["anxiety_low"], r["anxiety_high"], 2) for _, r in pace.iterrows()],
        "Lion rescues / Anxiety": [pct_ci(r["lion"], r["lion_low"], r["lion_high"]) for _, r in pace.iterrows()],
    }, index=pd.Index(pace["mode"].map(_mode_name), name="mode")), data=pace))


def _seat_table(sec: Section, t: _Measures) -> None:
    seats, frames, std_rows = t.seats, t.frames, t.std_rows
    seat_disp = pd.DataFrame(index=pd.Index([_mode_name(m) for m in frames], name="mode"))
    for s in sorted(seats["seat"].unique()):
        sub = seats[seats["seat"] == s].set_index("mode")
        seat_disp[f"seat {s + 1}"] = [pct_ci(sub.at[m, "win_rate"], sub.at[m, "low"], sub.at[m, "high"]) for m in frames]
    seat_disp["AdvantageP1 p (vs fair)"] = [format_p(seats[(seats["mode"] == m) & (seats["seat"] == 0)]["p"].iloc[0]) for m in frames]
    seat_disp["Balance"] = [f"{r['Balance']:.3f}" for r in std_rows]
    sec.tables.append(Table("Win rate by seat in this experiment's batches (wins / games)", seat_disp,
                            note="Fair share 1 / players. Balance = 1 - largest gap between two seats (Ludii). The report's one "
                                 "first-player figure is the pooled one (Across all experiments); these are its parts.",
                            data=seats))


def _guide_table(sec: Section, t: _Measures, players: int) -> None:
    guides, frames = t.guides, t.frames
    gd = pd.DataFrame(index=pd.Index([GUIDE_FR[a] for a in ANIMALS], name="guide"))
    for m in frames:
        sub = guides[guides["mode"] == m].set_index("guide")
        gd[_mode_name(m)] = [pct_ci(sub.at[a, "win_rate_when_dealt"], sub.at[a, "when_dealt_low"], sub.at[a, "when_dealt_high"])
                             + (" *" if sub.at[a, "flag"] else "") for a in ANIMALS]
    sec.tables.append(Table(f"Win rate by starting guide, when dealt (fair 1/{players})", gd,
                            note=f"A star (*) marks a guide beyond the {margin_words()} margin whose exact binomial test survives Holm over the 7 guides.",
                            data=guides))


def _combo_table(sec: Section, t: _Measures) -> None:
    combos, frames = t.combos, t.frames
    cd = combos.pivot(index="size", columns="mode", values="share")[list(frames)]
    cd.columns = [_mode_name(m) for m in cd.columns]
    cd.index.name = "largest set (dice)"
    sec.tables.append(Table("Largest set per scored turn (share of scored turns)",
                            cd.map(lambda x: pct(x, 2) if math.isfinite(x) else "—"), data=combos))



def _length_facts(sec: Section, t: _Measures, players: int) -> None:
    unfinished, totals = t.unfinished, t.totals
    for _, r in t.length.iterrows():
        m = r["mode"]
        sec.fact(f"modes.length.{m}", f"mean game length, {_mode_name(m)} (finished games)", r["mean"],
                 r["mean_low"], r["mean_high"], r["games"], "rounds", n_unit="finished games")
        sec.fact(f"modes.minutes.{m}", f"mean game length in minutes, {_mode_name(m)}, at {SECONDS_PER_TURN} s per turn",
                 minutes(r["mean"], players), minutes(r["mean_low"], players),
                 minutes(r["mean_high"], players), r["games"], "minutes", n_unit="finished games",
                 note=f"assumed {SECONDS_PER_TURN} s per turn, {players} players")
        u, ulo, uhi = wilson(unfinished[m], totals[m])
        sec.fact(f"modes.unfinished.{m}", f"share of games unfinished after the round limit, {_mode_name(m)}",
                 u, ulo, uhi, totals[m], "share")


def _pace_facts(sec: Section, t: _Measures) -> None:
    for _, r in t.pace.iterrows():
        m = r["mode"]
        sec.fact(f"modes.anxiety_per_played_turn.{m}", f"Anxiety per really-played turn in whole games, {_mode_name(m)}",
                 r["anxiety"], r["anxiety_low"], r["anxiety_high"], r["turns"], "share", n_unit="played turns",
                 note="ratio over games (clustered by game)")
        sec.fact(f"modes.pond_per_played_turn.{m}", f"Pond per really-played turn in whole games, {_mode_name(m)}",
                 r["pond"], r["pond_low"], r["pond_high"], r["turns"], "share", n_unit="played turns",
                 note="ratio over games (clustered by game)")


def _big_set_facts(sec: Section, t: _Measures) -> None:
    combos = t.combos
    for m in t.frames:
        sub = combos[(combos["mode"] == m) & (combos["size"] >= 9)]
        if len(sub):
            k = int(sub["turns"].sum())
            n = int(combos[combos["mode"] == m]["turns"].sum())
            r9, lo9, hi9 = wilson(k, n)
            sec.fact(f"modes.sets9plus.{m}", f"share of scored turns whose largest set has 9 or 10 dice, {_mode_name(m)}",
                     r9, lo9, hi9, n, "share", n_unit="scored turns")


def _decisiveness(sec: Section, frames: dict) -> None:
    """Does the leader at mid-game win, and by how much does the winner finish ahead: facts and table."""
    dec_rows = []
    for m, df in frames.items():
        dr = M.drama(df)
        fin = df[df["finished"].to_numpy(bool) & (df["winner"].to_numpy() >= 0)]
        P = M.seats(df)
        pos = np.stack([fin[f"pos_{s}"].to_numpy(float) for s in range(P)], axis=1)
        w = fin["winner"].to_numpy()
        others = np.where(np.arange(P)[None, :] == w[:, None], -np.inf, pos)
        margin = pos[np.arange(len(fin)), w] - others.max(axis=1)
        mg, mglo, mghi = t_interval(margin)
        wins = 1 - dr["leader_loses"]
        dec_rows.append({"mode": m, "leader_wins": wins, "low": 1 - dr["leader_loses_high"], "high": 1 - dr["leader_loses_low"],
                         "leader_games": dr["leader_games"], "lead_changes": dr["lead_changes"], "margin": mg,
                         "margin_low": mglo, "margin_high": mghi, "finished": len(fin), "fair": 1 / P})
        sec.fact(f"modes.mid_leader_wins.{m}", f"chance that the leader at mid-game wins, {_mode_name(m)}", wins,
                 1 - dr["leader_loses_high"], 1 - dr["leader_loses_low"], dr["leader_games"], "share",
                 note=f"leader: the player most recently strictly ahead at the end of the middle round; fair {1 / P:.4f}")
        sec.fact(f"modes.final_margin.{m}", f"winner's lead over the runner-up at the end, {_mode_name(m)}", mg, mglo, mghi,
                 len(fin), "squares", n_unit="finished games")
    dec = pd.DataFrame(dec_rows)
    sec.tables.append(Table("Decisiveness: does the leader at mid-game win, and by how much does the winner finish ahead", _disp({
        "mid-game leader wins [95 % CI]": [pct_ci(r["leader_wins"], r["low"], r["high"]) for _, r in dec.iterrows()],
        "if the lead meant nothing": dec["fair"].map(pct),
        "lead changes per game": dec["lead_changes"].map("{:.2f}".format),
        "winner's final margin (squares) [95 % CI]": [num_ci(r["margin"], r["margin_low"], r["margin_high"], 1) for _, r in dec.iterrows()],
    }, index=pd.Index(dec["mode"].map(_mode_name), name="mode")), data=dec,
        note="Mid-game: the end of the middle round of each game (half its rounds, rounded down); the mid-game leader is the player most recently strictly "
             "ahead of all others at that point (a tie for the lead keeps the previous sole leader, as the engine records it). "
             "Final margin: the "
             "winner's square minus the runner-up's when the game ends (the winner's square may pass the finish). The "
             "leader's chance through the whole game and the winner's worst deficit are in the next table (games replayed "
             "round by round)."))


def _first_player_facts(sec: Section, t: _Measures) -> None:
    seats = t.seats
    for m in t.frames:
        s0 = seats[(seats["mode"] == m) & (seats["seat"] == 0)].iloc[0]
        sec.fact(f"modes.seat1.{m}", f"win rate of the first player, {_mode_name(m)}", s0["win_rate"], s0["low"],
                 s0["high"], s0["games"], "share", p=s0["p"], note=f"fair {s0['fair']:.4f}; exact binomial test")



def _length_findings(sec: Section, frames: dict, base: str) -> None:
    """Each mode's length against the base mode's, paired by seed: a fact and a finding."""
    a = frames[base]
    for m, df in frames.items():
        if m == base:
            continue
        d = paired_difference(np.where(a["finished"], a["rounds"], np.nan), np.where(df["finished"], df["rounds"], np.nan))
        rel, rlo, rhi = d["diff"] / d["a"], d["low"] / d["a"], d["high"] / d["a"]
        word = "longer" if rel > 0 else "shorter"
        sec.fact(f"modes.length_rel.{m}", f"game length of {_mode_name(m)} relative to {_mode_name(base)} (paired by seed)",
                 rel, rlo, rhi, d["n"], "relative change", n_unit="paired finished games", p=d["p"])
        sec.findings.append(
            f"{_mode_name(m)} games last {abs(100 * rel):.1f} % {word} than {_mode_name(base)} "
            f"({d['b']:.2f} vs {d['a']:.2f} rounds; difference {100 * rel:+z.1f} % [{100 * rlo:+z.1f}, {100 * rhi:+z.1f}], "
            f"paired over {d['n']:,} seeds, {format_p(d['p'])}).")


def _first_player_finding(sec: Section, t: _Measures, base: str) -> None:
    seats = t.seats
    s0 = seats[(seats["mode"] == base) & (seats["seat"] == 0)].iloc[0]
    sec.findings.append(
        f"In this experiment's {_mode_name(base)} batch the first player (seat 1) wins {pct_ci(s0['win_rate'], s0['low'], s0['high'])} "
        f"of games (fair {pct(s0['fair'])}); the report's first-player figure pools every independent batch (Across all experiments).")


def _pace_finding(sec: Section, t: _Measures) -> None:
    frames = t.frames
    pb = t.pace.set_index("mode")
    sec.findings.append("Pond per played turn: " + ", ".join(
        f"{_mode_name(m)} {pct_ci(pb.at[m, 'pond'], pb.at[m, 'pond_low'], pb.at[m, 'pond_high'], 2)}" for m in frames)
        + "; Anxiety per played turn: " + ", ".join(
        f"{_mode_name(m)} {pct_ci(pb.at[m, 'anxiety'], pb.at[m, 'anxiety_low'], pb.at[m, 'anxiety_high'], 2)}" for m in frames) + ".")



def _length_figure(t: _Measures, players: int) -> Figure:
    length = t.length
    dists = {_mode_name(m): d for m, d in t.dists.items()}
    stats = _disp({"label": length["mode"].map(_mode_name), "mean": length["mean"], "low": length["mean_low"],
                   "high": length["mean_high"], "n": length["games"]})
    return Figure("length", "Distribution of game length per mode (finished games).",
                  plot("length_distributions", dists, stats))


def _seats_figure(t: _Measures, players: int) -> Figure:
    seats = t.seats
    d = seats.rename(columns={"win_rate": "rate"}).assign(n=seats["games"], seat=seats["seat"] + 1,
                                                          mode=seats["mode"].map(_mode_name))
    return Figure("seats", "Win rate by seat per mode with 95 % Wilson intervals.",
                  plot("grouped_rates", d, group="mode", category="seat",
                       title="First-player advantage: win rate by seat", xlabel="seat (1 plays first)",
                       ylabel="win rate (% of games)", fair=1 / players))


def _combos_figure(t: _Measures, players: int) -> Figure:
    combos = t.combos
    d = combos[combos["size"] >= 3].rename(columns={"share": "rate"}).assign(mode=lambda d: d["mode"].map(_mode_name))
    return Figure("combos", "Largest set per scored turn (sizes 0-2 score nothing and are left out).",
                  plot("grouped_rates", d, group="mode", category="size",
                       title="Distribution of combination sizes", xlabel="size of the largest set (dice)",
                       ylabel="share of scored turns (%)",
                       note="n = " + ", ".join(f"{_mode_name(m)}: {int(combos[combos['mode'] == m]['turns'].sum()):,} turns"
                                               for m in t.frames)))


def _pace_figure(t: _Measures, players: int) -> Figure:
    rows = []
    for _, r in t.pace.iterrows():
        for what in ("pond", "anxiety"):
            rows.append({"mode": _mode_name(r["mode"]), "event": "Étang" if what == "pond" else "Angoisse",
                         "rate": r[what], "low": r[f"{what}_low"], "high": r[f"{what}_high"], "n": r["turns"]})
    return Figure("pace", "Étang Paisible and Angoisse per really-played turn, by mode (95 % intervals clustered by game); "
                  "compare the height of the two events within each mode.",
                  plot("grouped_rates", pd.DataFrame(rows), group="mode", category="event",
                       title="Étang and Angoisse per played turn", xlabel="event",
                       ylabel="share of played turns (%)"))



#: Games of the 8 D8 batch replayed round by round for the leader's chance and the worst deficit.
REPLAY_GAMES = 1000


def _trajectories(sec: Section, data, jobs, players: int, mode: str = "8d8") -> None:
    """The leader's chance of winning at a quarter, half and three quarters of the game, and the
    winner's worst deficit, from the first games of the ``mode`` batch replayed round by round
    (:mod:`heron_sim.analysis.trajectory`; each replay checked against the stored game)."""
    from ...analysis.trajectory import ReplayMismatch, trajectories

    job = next((j for j in jobs if j["labels"].get("mode") == mode), None)
    if job is None:
        return
    try:
        t = trajectories(data.rules(job["key"]), data.frame(job["key"]), REPLAY_GAMES)
    except ReplayMismatch as err:
        sec.notes.append(f"Leader through the game left out: {err}.")
        return
    if not len(t):
        return
    rows = []
    for f in (0.25, 0.5, 0.75):
        lead = t[f"leader_{f}"].to_numpy()
        ok = lead >= 0
        k, n = int((lead[ok] == t["winner"].to_numpy()[ok]).sum()), int(ok.sum())
        r, lo, hi = wilson(k, n)
        rows.append({"point": f, "wins": r, "low": lo, "high": hi, "games": n})
        sec.fact(f"modes.leader_wins_at.{int(100 * f)}.{mode}", f"chance that the leader {int(100 * f)} % of the way "
                 f"through the game wins, {_mode_name(mode)}", r, lo, hi, n, "share",
                 note=f"fair {1 / players:.4f}; unique leader at the end of that round; games replayed round by round")
    dm, dlo, dhi = t_interval(t["worst_deficit"].to_numpy(float))
    behind10 = wilson(int((t["worst_deficit"] >= 10).sum()), len(t))
    sec.fact(f"modes.worst_deficit.{mode}", f"winner's worst deficit behind the leader at the end of a round, "
             f"{_mode_name(mode)}", dm, dlo, dhi, len(t), "squares", n_unit="finished games replayed")
    sec.fact(f"modes.won_from_10_behind.{mode}", f"share of games won by a player who was 10 or more squares behind "
             f"the leader at the end of some round, {_mode_name(mode)}", *behind10, len(t), "share",
             n_unit="finished games replayed")
    tt = pd.DataFrame(rows)
    sec.tables.append(Table(f"{_mode_name(mode)}: the leader's chance of winning through the game, and the winner's worst deficit", _disp({
        "leader wins [95 % CI]": [pct_ci(r["wins"], r["low"], r["high"]) for _, r in tt.iterrows()],
        "if the lead meant nothing": [pct(1 / players)] * len(tt),
        "games (a unique leader)": tt["games"].map("{:,}".format),
    }, index=pd.Index([f"{int(100 * f)} % of the way" for f in tt["point"]], name="point of the game")), data=tt,
        note=f"The first {len(t):,} finished games of the batch, replayed round by round from their own dice streams "
             "(each replay checked against the stored game). Leader: the player strictly ahead at the end of that round. "
             f"The winner's worst deficit behind the leader at the end of a round: {dm:.1f} squares [{dlo:.1f}, {dhi:.1f}] "
             f"on average; {pct_ci(*behind10)} of the winners were 10 or more squares behind at some point."))


# ---------------------------------------------------------------- the executive page's rows
def modes_row(facts: dict[str, Fact]) -> Row | None:
    """The four dice modes: length against 8 D8, minutes, unfinished games, every mode weighed."""
    F = facts.get
    base = F("modes.length.8d8")
    if base:
        parts = []
        for m in MODE_ORDER[1:]:
            r = F(f"modes.length_rel.{m}")
            if r:
                parts.append(f"{MODE_NAMES[m]} {'+' if r.estimate >= 0 else '−'}{abs(100 * r.estimate):.0f} %")
        mins = F("modes.minutes.8d8")
        unf = [m for m in MODE_ORDER if F(f"modes.unfinished.{m}") and F(f"modes.unfinished.{m}").estimate > 0]
        answer = (f"8 D8 games last {base.estimate:.1f} rounds (about {mins.estimate:.0f} minutes at the table"
                  f" for 4 players); against it: {', '.join(parts)}.")
        if unf:
            answer += " Some games stop unfinished at the round limit in " + ", ".join(MODE_NAMES[m] for m in unf) + "."
        action = mode_weighing(facts)
        readings = {m: equivalence(F(f"modes.length_rel.{m}").estimate, F(f"modes.length_rel.{m}").low,
                              F(f"modes.length_rel.{m}").high, LENGTH_MARGIN)
                    for m in MODE_ORDER[1:] if F(f"modes.length_rel.{m}")}
        sure = ("every difference from 8 D8: " + next(iter(readings.values())) if len(set(readings.values())) == 1
                else "; ".join(f"{MODE_NAMES[m]}: {r}" for m, r in readings.items())) + " (margin ±5 %, paired by seed)"
        return Row("The four dice modes: 8, 7 and 10 D8, 10 D6", answer, show(base), sure if readings else "",
                   action, base.id, "modes", True, key="modes", order=1)


def decisiveness_row(facts: dict[str, Fact]) -> Row | None:
    """Decisiveness: the mid-game leader, the winner's worst deficit, comebacks."""
    F = facts.get
    ml = F("modes.mid_leader_wins.8d8")
    if ml:
        m_ = re.search(r"fair ([0-9.]+)", ml.note or "")
        fair = float(m_.group(1)) if m_ else 0.25
        said = ("the lead counts" if ml.low > fair else
                "the mid-game leader wins less often than chance" if ml.high < fair else
                "these games do not show that the lead counts")
        said += (" and the race stays open" if ml.high < 0.75 else ", and the race is often decided by mid-game")
        answer = (f"The leader at mid-game wins {pc(ml.estimate, 0)} of 8 D8 games, against {pc(fair, 0)} if the lead "
                  f"meant nothing: {said}.")
        through = [(q, F(f"modes.leader_wins_at.{q}.8d8")) for q in (25, 50, 75) if F(f"modes.leader_wins_at.{q}.8d8")]
        if through:
            answer += (" Through the game the leader wins " + ", ".join(f"{pc(f.estimate, 0)} at {q} %" for q, f in through)
                       + " of the way.")
        wd, w10 = F("modes.worst_deficit.8d8"), F("modes.won_from_10_behind.8d8")
        if wd:
            answer += (f" The winner's worst deficit averages {wd.estimate:.1f} squares [{wd.low:.1f}, {wd.high:.1f}]"
                       + (f"; {pc(w10.estimate, 0)} of winners were 10 or more squares behind at some point" if w10 else "") + ".")
        action = single_use_verdict(facts)
        last = F("sensitivity.base.last_wins")
        if last:
            c = comeback(last)
            note = assumed_note("comeback_floor", "share_margin")
            head = (f" Comebacks: the player last at mid-game wins {pc(last.estimate)}, against {c.words}"
                    + (f" ({note})" if note else ""))
            if c.fine:
                action += head + ": the floor is met; no change is needed for comebacks."
            else:
                action += head + (": below the floor. " if c.size > 1 else ": not settled by these games. ") + remedy(
                    facts, "last_wins", lambda f: comeback(f).fine, lambda f: f"last at mid-game wins {show(f)}",
                    score=lambda f: -f.estimate)
        return Row("Decisiveness", answer, show(ml), sure_share(ml, fair, "share of a lead that means nothing"),
                   action, ml.id, "modes", False, key="decisiveness", order=10)


def cap_row(facts: dict[str, Fact]) -> Row | None:
    """The provisional +10 cap for sets of 9–10 dice: how often it applies."""
    F = facts.get
    caps = {m: F(f"modes.sets9plus.{m}") for m in ("10d8", "10d6") if F(f"modes.sets9plus.{m}")}
    if caps:
        c0 = caps.get("10d8") or next(iter(caps.values()))
        answer = ("A largest set of 9 or 10 dice (capped at +10 squares, provisional) happens on "
                  + ", ".join(f"{pc(f.estimate, 2)} of scored turns on {MODE_NAMES[m]}" for m, f in caps.items()) + ".")
        action = ("At this rate the cap's value hardly matters to a game (about one set in "
                  f"{1 / c0.estimate:,.0f} scored turns)." if c0.estimate > 0 else "Never seen in these games.")
        return Row("The +10 cap for sets of 9–10 dice", answer, show(c0), f"interval ±{100 * (c0.high - c0.low) / 2:.2f} points",
                   action, c0.id, "modes", False, key="cap", order=13)


def mode_weighing(facts: dict[str, Fact]) -> str:
    """Every mode on every headline measure at once: length, minutes against the target, dead
    turns, Angoisse and Étang per turn, the weakest guide (so no mode is advised on length alone)."""
    F = facts.get
    lo_t, hi_t = TARGET_MINUTES
    parts = []
    for m in MODE_ORDER:
        mi = F(f"modes.minutes.{m}")
        if not mi:
            continue
        bits = [f"{mi.estimate:.0f} min ({'within' if lo_t <= mi.estimate <= hi_t else 'outside'} {lo_t:.0f}–{hi_t:.0f})"]
        d = F(f"turns.dead.{m}")
        if d:
            bits.append(f"dead greedy turns {pc(d.estimate, 0)}")
        a, p = F(f"modes.anxiety_per_played_turn.{m}"), F(f"modes.pond_per_played_turn.{m}")
        if a:
            bits.append(f"Angoisse {pc(a.estimate, 1)}")
        if p:
            bits.append(f"Étang {pc(p.estimate, 2)} of turns")
        parts.append(f"{MODE_NAMES[m]}: " + ", ".join(bits))
    inside = [MODE_NAMES[m] for m in MODE_ORDER if F(f"modes.minutes.{m}") and lo_t <= F(f"modes.minutes.{m}").estimate <= hi_t]
    return ("; ".join(parts) + ". "
            + (f"Within the target length: {', '.join(inside)}" if inside else "No mode is within the target length")
            + (f" ({note})." if (note := assumed_note("length_minutes", "seconds_per_turn")) else ".")
            + " 10 D6 plays on assumed faces.")


def single_use_verdict(facts: dict[str, Fact]) -> str:
    """The single-use variant judged on its comeback figures (the player last at mid-game)."""
    lw = facts.get("variant.last_wins.8d8")
    if not lw:
        return "The single-use variant was not played."
    m = re.search(r"\S+ ([0-9.]+), .* ([0-9.]+);", lw.note or "")
    a, b = (float(m.group(1)), float(m.group(2))) if m else (math.nan, math.nan)
    d, lo, hi = 100 * lw.estimate, 100 * lw.low, 100 * lw.high
    rd = reading(d, lo, hi, 100 * SHARE_MARGIN, lw.p)
    if rd.startswith("real") and hi < 0:
        v = "the single-use variant makes comebacks rarer: keep the default board"
    elif rd.startswith("real") and lo > 0:
        v = "the single-use variant makes comebacks more common"
    else:
        v = "the single-use variant does not change comebacks measurably"
    return (f"The player last at mid-game wins {pc(a)} on the default board and {pc(b)} with single-use squares "
            f"({d:+z.1f} points [{lo:+z.1f}, {hi:+z.1f}], Holm p = {lw.p:.3f}: {rd}): {v}.")


def unfinished_problem(facts: dict[str, Fact]) -> list[Problem]:
    """Every game finishes before the round limit."""
    F = facts.get
    probs: list[Problem] = []
    un = F("modes.unfinished.8d8")
    if un and un.high < 0.01:
        probs.append(Problem("Every 8 D8 game finishes before the round limit", show(un), 0.0, "q-modes", fine=True))
    return at_order(6, probs)


def cap_problem(facts: dict[str, Fact]) -> list[Problem]:
    """The provisional +10 cap hardly ever applies."""
    F = facts.get
    probs: list[Problem] = []
    cap = F("modes.sets9plus.10d8")
    if cap and cap.high < 0.01:
        probs.append(Problem("The provisional +10 cap for sets of 9–10 dice hardly ever applies", show(cap), 0.0, "q-cap",
                             fine=True))
    return at_order(7, probs)
