"""Across all experiments: rule coverage, race drama and Ludii's metrics for every games job."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ...analysis import metrics as M
from ...analysis.intervals import wilson
from ...analysis.stats import binom_test, equivalence, format_p
from ...analysis.executive import (assumed_note, at_order, fair_of, is_fine, margin_words, pc, points_from, remedy, Row,
                                   rows_of, show, sure_share, variants)
from ...analysis.judge import SHARE_MARGIN, family_readings, lower_bound_size, Problem, reading
from ...sections import Fact, Section, Table, num_ci, pct, pct_ci
from .common import GUIDE_FR, _disp, _mode_name


# ---------------------------------------------------------------------- across all experiments
def across(run) -> Section:
    """Rule coverage, race drama and Ludii's metrics for every games job of the run."""
    sec = Section(key="across", title="Across all experiments: rule coverage, race drama, standard metrics",
                  intro="Every batch of whole games in the run, with Ludii's Balance, AdvantageP1 and Completion, "
                        "the race drama, and how often each rule fires.")
    rows, cover = _batches(run)
    if not rows:
        return sec
    t = pd.DataFrame(rows)
    _metrics_table(sec, t)
    never = _coverage_table(sec, cover)
    pooled_first_player(run, sec)
    _coverage_finding(sec, never)
    _drama_finding(sec, t)
    return sec


def _batches(run) -> tuple[list[dict], list[pd.DataFrame]]:
    """Every batch of whole games of the run (the skill meetings left out): its row of standard
    metrics and race drama, and its rule coverage."""
    rows, cover = [], []
    for exp, data in run.experiments():
        if exp.kind == "skill":
            continue  # meetings of two rungs: their seats differ by design (the skill section reads them)
        for j in data.entry["jobs"]:
            if j["kind"] != "games":
                continue
            df = data.frame(j["key"])
            lm, dr = M.ludii_metrics(df), M.drama(df)
            wv = df["winner"].to_numpy()
            rows.append({"experiment": exp.title.split(":")[0], "job": job_label(j), "games": len(df),
                         "players": M.seats(df), "seat_wins": np.bincount(wv[wv >= 0], minlength=M.seats(df)),
                         "finished_games": len(df), **{k: v for k, v in lm.items() if k != "games"}, **dr})
            cv = M.rule_coverage(df)
            cv["experiment"], cv["job"], cv["mode"] = exp.name, j["key"], j["mode"]
            cover.append(cv)
    return rows, cover


def _metrics_table(sec: Section, t: pd.DataFrame) -> None:
    """Ludii's metrics and the race drama, one row per batch."""
    sec.tables.append(Table("Standard metrics and race drama per batch of games", _disp({
        "experiment": t["experiment"], "job": t["job"], "games": t["games"].map("{:,}".format),
        "Balance [95 % CI]": [_balance_ci(r) for _, r in t.iterrows()],
        "a fair game reads (5 %–median)": [_fair_balance(int(r["games"]), int(r["players"])) for _, r in t.iterrows()],
        "AdvantageP1": [pct_ci(r["AdvantageP1"], *r["AdvantageP1_ci"]) for _, r in t.iterrows()],
        "Completion": [pct_ci(r["Completion"], *r["Completion_ci"], 2) for _, r in t.iterrows()],
        "lead changes / game": [num_ci(r["lead_changes"], r["lead_changes_low"], r["lead_changes_high"]) for _, r in t.iterrows()],
        "mid-game leader loses": [pct_ci(r["leader_loses"], r["leader_loses_low"], r["leader_loses_high"]) for _, r in t.iterrows()],
        "mid-game last wins": [pct_ci(r["last_wins"], r["last_wins_low"], r["last_wins_high"]) for _, r in t.iterrows()],
    }).set_index(["experiment", "job"]), data=t.drop(columns=["AdvantageP1_ci", "Completion_ci", "seat_wins"]),
        note="Balance: 1 - largest gap between two seats' win rates (interval: multinomial bootstrap of the seats' wins; "
             "the largest gap of noisy rates is biased up, so Balance reads low even for a fair game), beside what a perfectly fair game of the same "
             "size reads (2,000 simulated fair batches: their 5th percentile and median), so a Balance inside that "
             "range is noise; AdvantageP1: the first player's (seat 1) win rate (the report's one first-player figure is the pooled table below); Completion: games "
             "with a winner before the round limit (Ludii's definitions). Mid-game = the end of the middle round of each game (half its rounds, rounded down)."))


def _coverage_table(sec: Section, cover: list[pd.DataFrame]) -> pd.Series:
    """How often each rule fires, pooled over the batches by mode (the table); returns whether
    each (kind, rule) never fired."""
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
    disp = pd.DataFrame(index=pd.MultiIndex.from_tuples(
        [(k, rule_name(k, r)) for k, r in pv.index], names=["kind", "rule"]))
    for mcol in pv.columns:
        n = int(g[g["mode"] == mcol]["games"].max())
        disp[f"{_mode_name(mcol)} per game (games with it), n = {n:,}"] = [
            f"{pv.at[i, mcol]:.3f} ({pct(wv.at[i, mcol])})" for i in pv.index]
    disp["never fired"] = ["NEVER" if never.loc[i] else "" for i in pv.index]
    sec.tables.append(Table("Rule coverage: triggers per game of each special square and each guide power (all batches pooled, by mode)",
                            disp, data=g, note="A rule that never fires in any batch is flagged NEVER (for powers: no registered "
                                               "strategy in the run used it)."))
    return never


def _coverage_finding(sec: Section, never: pd.Series) -> None:
    """The finding: how many rules fired, and which never did."""
    nv = [f"{k} {rule_name(k, r)}" for (k, r), v in never.items() if v]
    sec.findings.append(f"Rule coverage: {len(never) - len(nv)} of {len(never)} rules fired"
                        + (f"; never fired: {', '.join(nv)}." if nv else "; every rule fired at least once."))


def _drama_finding(sec: Section, t: pd.DataFrame) -> None:
    """The finding: the first batch's race drama (lead changes, comebacks)."""
    base = t.iloc[0]
    sec.findings.append(f"Race drama ({base['experiment']}/{base['job']}): {base['lead_changes']:.2f} lead changes per game "
                        f"[{base['lead_changes_low']:.2f}, {base['lead_changes_high']:.2f}]; the mid-game leader loses "
                        f"{pct_ci(base['leader_loses'], base['leader_loses_low'], base['leader_loses_high'])} of games and the "
                        f"player last at mid-game wins {pct_ci(base['last_wins'], base['last_wins_low'], base['last_wins_high'])}.")


def _balance_ci(r) -> str:
    from ...analysis.judge import balance_interval

    est, lo, hi = balance_interval(r["seat_wins"], int(r["finished_games"]))
    return f"{r['Balance']:.3f} [{lo:.3f}, {hi:.3f}]"


def _fair_balance(n: int, players: int) -> str:
    from ...analysis.judge import fair_floor

    f = fair_floor(n, players, reps=1000)
    return f"{f['balance_p05']:.3f}–{f['balance_median']:.3f}"


def balanced_seats(seatings: list[list[str]]) -> bool:
    """Whether every seat holds each strategy equally often over the ``seatings`` (which share a
    batch's games equally): one seating of a single strategy, or a rotation, is; one seating of
    two strategies is not."""
    from collections import Counter

    if not seatings:
        return True
    per_seat = [Counter(seating[s] for seating in seatings) for s in range(len(seatings[0]))]
    return all(c == per_seat[0] for c in per_seat)


def pooled_first_player(run, sec: Section, mode: str = "8d8", players: int = 4) -> None:
    """First-player advantage from every batch of whole games under the default rules of
    ``mode`` with ``players`` seats and no random-baseline seat, pooled. Game i of every batch
    of one seed draws from the same stream (seed, i), so batches sharing a seed are not
    independent: only the largest batch of each seed is pooled. A batch whose seats are not
    balanced (:func:`balanced_seats`: e.g. one seating of a skill meeting, novice, casual,
    novice, casual) measures its strategies, not the seats: it is left out."""
    from ...rules import Rules

    default = Rules.build(mode=mode, players=players).digest()
    best: dict = {}
    for exp, data in run.experiments():
        for j in data.entry["jobs"]:
            if j["kind"] != "games" or j.get("rules_hash") != default:
                continue
            names = {x for seating in (j.get("seatings") or []) for x in seating}
            if "random" in names or (j.get("labels") or {}).get("rung") or not balanced_seats(j.get("seatings") or []):
                continue  # a random seat, one rung of the ladder alone (its own table per rung), or seats unbalanced
            if j["seed"] in best and best[j["seed"]][0] >= j.get("n", 0):
                continue
            best[j["seed"]] = (j.get("n", 0), exp, data, j)
    rows = []
    for _, exp, data, j in best.values():
        df = data.frame(j["key"])
        w = df["winner"].to_numpy()
        rows.append({"batch": f"{exp.title.split(':')[0]}: {job_label(j)}", "seed": j["seed"], "games": len(df),
                     **{f"wins_{s}": int((w == s).sum()) for s in range(players)}})
    if not rows:
        return
    t = pd.DataFrame(rows)
    n = int(t["games"].sum())
    disp, facts = {}, []
    for s in range(players):
        k = int(t[f"wins_{s}"].sum())
        r, lo, hi = wilson(k, n)
        p = binom_test(k, n, 1 / players)
        facts.append((s, r, lo, hi, p))
    from ...analysis.judge import family_readings

    fair = 1 / players
    rd = family_readings([(100 * (r - fair), 100 * (lo - fair), 100 * (hi - fair), p) for _, r, lo, hi, p in facts], 100 * SHARE_MARGIN)
    for (s, r, lo, hi, p), (reading, q) in zip(facts, rd):
        # seat 1 is the question asked (one test); the other seats are read with Holm over the seats
        disp[f"seat {s + 1}"] = [pct_ci(r, lo, hi, 2), f"{100 * (r - fair):+z.2f} pts", format_p(p),
                                 equivalence(100 * (r - fair), 100 * (lo - fair), 100 * (hi - fair), 100 * SHARE_MARGIN) if s == 0
                                 else f"{reading} (Holm p = {q:.3f})"]
    sec.tables.append(Table(f"First-player advantage, the default {_mode_name(mode)} batches pooled, one per seed ({n:,} games, {len(t)} batches)",
                            pd.DataFrame(disp, index=pd.Index(["win rate [95 % CI]", "minus fair share", "exact binomial test",
                                                               f"reading (margin {margin_words()})"], name="")),
                            data=t, note="Batches: " + ", ".join(f"{b} ({g:,})" for b, g in zip(t["batch"], t["games"]))
                            + f". Fair share 1/{players}. Seat 1 plays first: it is the question asked (one test); the other seats are read "
                              "with Holm over the seats. One batch per seed (the largest): the batches of "
                              "one experiment share its seed, so their games share dice streams and are not independent; "
                              "a batch with a random-baseline seat is left out, and so is a batch of one rung of the skill ladder "
                              "alone (its first player is in the guides section's balance per rung)."))
    for s, r, lo, hi, p in facts:
        sec.fact(f"balance.seat{s + 1}.pooled.{mode}", f"win rate of seat {s + 1} (seat 1 plays first), {mode}, all default "
                 "batches pooled", r, lo, hi, n, "share", p=p, note=f"fair {1 / players:.4f}; {len(t)} batches")


SQUARE_NAMES = {"loup": "Loup", "echange": "Échange", "taureau": "Taureau", "emerveillement": "Émerveillement",
                "serpent": "Serpent", "rotation": "Rotation", "lion": "Lion", "protection": "Protection",
                "aigle": "Aigle", "cerf": "Cerf", "regeneration": "Régénération", "heron": "Héron"}


def rule_name(kind: str, rule: str) -> str:
    """A rule of the coverage table in the game's words: "24 serpent" -> "square 24 Serpent"."""
    if kind == "square":
        sq, _, effect = rule.partition(" ")
        return f"square {sq} {SQUARE_NAMES.get(effect, effect)}"
    return f"{GUIDE_FR.get(rule, rule)} guide's power"


def job_label(j: dict) -> str:
    """A batch of games in words, from its labels (no code ids)."""
    lab = j.get("labels", {})
    mode = _mode_name(j["mode"]) if j.get("mode") else ""
    parts = [mode]
    if lab.get("disabled"):
        parts.append(f"{GUIDE_FR.get(lab['disabled'], lab['disabled'])} power off")
    if lab.get("powers") is False:
        parts.append("all pouvoirs ponctuels off")
    if lab.get("doubling") is False:
        parts.append("Puissance du Guide off")
    if lab.get("reference"):
        parts.append("reference for the ablations")
    part = lab.get("part")
    if part == "solo":
        parts.append(f"{lab['strategy']} alone")
    elif part == "h2h":
        parts.append(f"{lab['a']} vs {lab['b']}")
    elif part == "skill":
        parts.append(f"one {lab['strategy']} vs random baseline")
    elif part == "mixed":
        parts.append("AI strategies mixed" if lab.get("ai_only") else "all strategies mixed")
    elif part in ("variant",):
        parts.append(lab["label"])
    elif lab.get("rung"):
        parts.append(f"{lab['rung']} at every seat")
    elif part == "players":
        parts.append(f"{lab['players']} players")
    elif part == "d6":
        parts.append("assumed dice" if lab.get("dice") == "d6_default" else "rotated dice")
    if lab.get("side"):
        parts.append(f"{lab.get('label', lab['side'])}")
    if len(parts) == 1:
        parts.append("default rules")
    return ", ".join(p for p in parts if p)


# ---------------------------------------------------------------- the executive page's rows
def summary_rows(facts: dict[str, Fact]) -> list[Row]:
    """The executive page's rows from the figures across experiments (the pooled first player)."""
    return rows_of(facts, first_player_row)


def summary_problems(facts: dict[str, Fact]) -> list:
    """The verdict's problems from the figures across experiments (the pooled first player)."""
    return first_player_problem(facts)


def first_player_row(facts: dict[str, Fact]) -> Row | None:
    """The first player's edge, pooled over the default batches, by player count."""
    F = facts.get
    s1 = F("balance.seat1.pooled.8d8")
    if s1:
        d, lo, hi = points_from(s1, 0.25)
        rd = reading(d, lo, hi, 100 * SHARE_MARGIN)
        answer = (f"Over the independent default 8 D8 batches pooled (one per seed), the first player wins {pc(s1.estimate, 1)} against a fair 25 % "
                  f"({d:+z.1f} points): {rd}. This is the report's one first-player figure; every section points to it.")
        fam = first_player_family(facts)
        if fam:
            answer += " " + fam
        action = (f"Nothing to fix: the edge is inside {margin_words()}." if rd in ("negligible", "real but small") else
                  f"Not settled by these games (the interval holds both 0 and values beyond {margin_words()}); no change is "
                  "advised on this evidence." if rd == "uncertain" else
                  f"A fix must bring the first player's whole interval inside {margin_words()}. " + remedy(
            # the equivalence test: the whole interval inside the margin ("negligible" or "real but
            # small"; an interval narrow enough to exclude 0 inside the margin is a fix too)
            facts, "seat1", lambda f: reading(100 * (f.estimate - 0.25), 100 * (f.low - 0.25), 100 * (f.high - 0.25),
                                         100 * SHARE_MARGIN) in ("negligible", "real but small"),
            lambda f: f"first player {show(f)}",
            keys=[k for k in variants(facts) if k.startswith(("start_", "extra_roll"))] or None, margin=SHARE_MARGIN))
        return Row("First-player advantage", answer, show(s1), sure_share(s1, 0.25), action, s1.id,
                   "across", False, key="first-player", order=6)


def first_player_family(facts: dict[str, Fact]) -> str:
    """The first player at every player count, read with Holm over the family of player counts
    (a "real" claim at one count must survive the correction)."""
    pl = sorted((int(k.split(".")[1]), f) for k, f in facts.items() if re.fullmatch(r"players\.\d+\.seat1", k))
    if len(pl) < 2:
        return ""
    rows = [(100 * (f.estimate - 1 / p), 100 * (f.low - 1 / p), 100 * (f.high - 1 / p), f.p) for p, f in pl]
    rd = family_readings(rows, 100 * SHARE_MARGIN)
    off = [f"{p} players {100 * (f.estimate - 1 / p):+z.1f} points (Holm p = {q:.3f}: {r})"
           for (p, f), (r, q) in zip(pl, rd) if r.startswith("real")]
    return ("By player count, after Holm over the " + f"{len(pl)} counts: "
            + ("; ".join(off) if off else "no count differs from its fair share") + ".")


def first_player_problem(facts: dict[str, Fact]) -> list[Problem]:
    """The first player's edge against a fair 25 %, and every other seat, pooled or at a player
    count, whose whole interval lies past the margin (Holm over the player counts)."""
    F = facts.get
    probs: list[Problem] = []
    mg = 100 * SHARE_MARGIN
    note = assumed_note("share_margin")
    s1 = F("balance.seat1.pooled.8d8")
    if s1:
        d, lo, hi = points_from(s1, 0.25)
        rd = reading(d, lo, hi, mg)
        size = lower_bound_size(d, lo, hi, mg)
        probs.append(Problem(f"The first player {'wins more' if d > 0 else 'wins less'} than a fair 25 %" if size > 1 else
                             f"The first player's edge is within {margin_words()}" if is_fine(rd) else
                             f"The first player wins {d:+z.1f} points more than a fair share: real, but its interval reaches "
                             f"past the {margin_words()} margin" if rd == "real, possibly relevant" and d > 0 else
                             f"The first player wins {-d:.1f} points less than a fair share: real, but its interval reaches "
                             f"past the {margin_words()} margin" if rd == "real, possibly relevant" else
                             "The first player's edge is not settled by these games",
                             show(s1), size, "q-first-player", fine=is_fine(rd), assumed=note, facts=(s1.id,)))
    for k, f in facts.items():  # the other seats of the pooled batches: only those past the margin
        m = re.fullmatch(r"balance\.seat(\d+)\.pooled\.8d8", k)
        if not m or m.group(1) == "1":
            continue
        fair = fair_of(f, 0.25)
        d, lo, hi = points_from(f, fair)
        size = lower_bound_size(d, lo, hi, mg)
        if size > 1:
            probs.append(Problem(f"Seat {m.group(1)} {'wins more' if d > 0 else 'wins less'} than a fair {pc(fair, 0)}",
                                 show(f), size, "q-first-player", assumed=note))
    pl = sorted((int(k.split(".")[1]), f) for k, f in facts.items() if re.fullmatch(r"players\.\d+\.seat1", k))
    if len(pl) > 1:  # the first player at each player count, Holm over the counts
        rows = [(*points_from(f, 1 / p), f.p) for p, f in pl]
        for (p, f), (rd, _), (d, lo, hi, _) in zip(pl, family_readings(rows, mg), rows):
            size = lower_bound_size(d, lo, hi, mg)
            if rd == "real and relevant" and size > 1 and p != 4:  # 4 players: the pooled figure above
                probs.append(Problem(f"With {p} players the first player {'wins more' if d > 0 else 'wins less'} than a "
                                     f"fair {pc(1 / p, 0)} (Holm over the player counts)", show(f), size,
                                     "q-first-player", assumed=note))
    return at_order(1, probs)
