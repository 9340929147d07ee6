"""Kind ``skill``: luck and skill. Every rung of the skill ladder against every other, at 2 and 4
players, on the same games; Bradley–Terry ratings, how often the higher rung wins each meeting,
the skill gap (the top rung's two-player win share against the lowest human rung: the expert's
against the novice) and how rule variants move it, paired game by game.

Each meeting of two rungs plays the seatings of :func:`heron_sim.analysis.skill.mirrored_seatings`
(2 players: ``a, b`` and ``b, a``; 4 players: two seats each, ``a, b, a, b`` and ``b, a, b, a``),
every seating on the same games (seed, game 0 .. games - 1), so each rung gets every seat and
every hand of every deal; every meeting and every variant plays those same games. The intervals
are one bootstrap over game indices (heron_sim.analysis.skill).
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import BeforeValidator, Field, ValidationInfo, WithJsonSchema, model_validator

from ...analysis import skill as S
from ...analysis.executive import margin_words, pc, Row, rows_of, show, sure_share
from ...errors import HeronSimError
from ...sections import Fact, Figure, Section, Table, pct_ci, plot
from ..jobs import Job, resolve_strategies
from ..options import _RULES_SCHEMA, HeronExperiment, PlayerCounts, RulesSpec, Strategies, figures_of, rules_spec_of, where
from .base import ExperimentKind, Sizes
from ...analysis.judge import TARGETS
from .common import _disp, _mode_name

#: The figures this kind draws (the ``figures`` key chooses among them; default: all).
FIGURES = ("ratings",)
#: The ladder, weakest first: the random baseline, the human rungs, the expert on top.
LADDER = ("random", "novice", "casual", "regular", "expert")
#: A change of the skill gap inside ± this many points is read as "about the same" (the
#: designer's ``skill_gap_margin``).
GAP_MARGIN = TARGETS["skill_gap_margin"]


def _variants(v: Any, info: ValidationInfo) -> tuple[RulesSpec, ...]:
    """``[[variant]]`` tables (each ``label``, ``file``, ``set``) -> rules specs."""
    at = f"{where(info)}: variant"
    if isinstance(v, dict):
        v = [v]
    if not isinstance(v, (list, tuple)):
        raise HeronSimError(f"{at}: {v!r}; allowed: [[variant]] tables, each with label, file and/or set")
    out = []
    for i, x in enumerate(v):
        spec = rules_spec_of(x, info, f"{at}[{i}]", f"variant {i + 1}")
        if spec.own_mode:
            raise HeronSimError(f"{at}[{i}].own_mode: a variant plays the experiment's mode; allowed: false")
        out.append(spec)
    labels = [s.label for s in out]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise HeronSimError(f"{at}: label {dup[0]!r} is given twice; give each variant its own label")
    return tuple(out)


def _counts(v: Any, info: ValidationInfo):
    from ..options import _player_counts

    counts = _player_counts(v, info)
    if 2 not in counts:
        raise HeronSimError(f"{where(info)}: player_counts: {v!r}; must include 2 (the skill gap is a two-player figure)")
    return counts


_VARIANTS_DOC = ("[[variant]] rule tables (label, file, set): the skill gap under each, paired with the rulings' "
                 "on the same games")
Variants = Annotated[tuple[RulesSpec, ...], BeforeValidator(_variants), Field(description=_VARIANTS_DOC),
                     WithJsonSchema({"type": "array", "items": _RULES_SCHEMA, "description": _VARIANTS_DOC})]


class SkillExperiment(HeronExperiment):
    """The options of an experiment file of kind ``skill``."""

    kind: Literal["skill"] = "skill"
    figures: figures_of(FIGURES) = FIGURES
    rungs: Strategies = list(LADDER)
    player_counts: Annotated[PlayerCounts, BeforeValidator(_counts)] = (2, 4)
    variant: Variants = ()

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data, info: ValidationInfo):
        if isinstance(data, dict):
            at = where(info)
            if "players" in data and data.get("players") != 4:
                raise HeronSimError(f"{at}: players: kind skill plays every player count of player_counts "
                                    "(default [2, 4]); remove players")
            modes = data.get("modes")
            if isinstance(modes, (list, tuple)) and len(modes) > 1:
                raise HeronSimError(f"{at}: modes: {list(modes)!r}; kind skill plays one mode (one file per mode)")
            rungs = data.get("rungs")
            if rungs in ("ai", "all"):
                raise HeronSimError(f"{at}: rungs: {rungs!r}; allowed: a list of strategies, weakest first "
                                    "(the ladder's order decides the readings and the skill gap's pair)")
            if isinstance(rungs, str):
                rungs = [x.strip() for x in rungs.split(",")]
            if isinstance(rungs, (list, tuple)):
                if len(rungs) < 2 or len(set(rungs)) != len(rungs):
                    raise HeronSimError(f"{at}: rungs: {list(rungs)!r}; allowed: two or more distinct strategies, "
                                        "weakest first")
                if str(rungs[-1]).partition(":")[0] == "random":
                    raise HeronSimError(f"{at}: rungs: {list(rungs)!r}; the last (top) rung is the skilled one of the "
                                        "skill gap: not the random baseline")
        return data


def gap_pair(rungs: list[str]) -> tuple[str, str]:
    """The skill gap's pair (weak, strong): the lowest rung that is not the random baseline and
    the top rung (``novice`` and ``expert`` on the default ladder)."""
    people = [r for r in rungs if r.partition(":")[0] != "random"] or list(rungs)
    return people[0], rungs[-1]


def _word(name: str) -> str:
    """A rung's name as a word of a fact id (``novice:forget=0.2`` -> ``novice_forget_0_2``)."""
    return re.sub(r"\W+", "_", name).strip("_")


class SkillKind(ExperimentKind):
    """Luck and skill: the skill ladder's rungs against each other, the skill gap, its change."""

    name = "skill"
    options = SkillExperiment
    figures = FIGURES
    intro = ("Luck and skill: every rung of the skill ladder against every other on the same games, their "
             "ratings, and how much the better player wins — under the rulings and under rule variants.")

    def jobs(self, exp: SkillExperiment, g: Sizes) -> list[Job]:
        rungs = resolve_strategies(exp.rungs, f"{exp.source or exp.name}: rungs")
        m = exp.modes[0]
        n = g(exp.games)
        jobs: list[Job] = []
        for P in exp.player_counts:
            r = exp.rules.build(m, P)
            for i, a in enumerate(rungs):
                for j in range(i + 1, len(rungs)):
                    b = rungs[j]
                    for s, seat in enumerate(S.mirrored_seatings(a, b, P)):
                        jobs.append(Job(f"p{P}_{i}_{j}_s{s}", "games", r, n, exp.seed, [seat],
                                        labels={"part": "ladder", "players": P, "a": a, "b": b, "i": i, "j": j,
                                                "seating": s, "mode": m}))
        weak, strong = gap_pair(rungs)
        for k, spec in enumerate(exp.variant):
            over = {**exp.rules.overrides, **spec.overrides}
            try:
                r = RulesSpec(file=spec.file or exp.rules.file, overrides=over).build(m, 2)
            except HeronSimError as err:
                raise HeronSimError(f"{exp.source or exp.name}: variant[{k}] ({spec.label}): {err}") from None
            for s, seat in enumerate(S.mirrored_seatings(weak, strong, 2)):
                jobs.append(Job(f"variant{k}_s{s}", "games", r, n, exp.seed, [seat],
                                labels={"part": "variant", "k": k, "label": spec.label, "a": weak, "b": strong,
                                        "seating": s, "mode": m}))
        return jobs

    def summary_rows(self, facts: dict[str, Fact]) -> list[Row]:
        return rows_of(facts, skill_row)

    def fill(self, exp: SkillExperiment, data, sec: Section) -> None:
        res = measure(data, exp.seed)
        _note_rungs(sec, res, exp.modes[0])
        _ratings(sec, res)
        for P, r in res["players"].items():
            _meetings(sec, res["rungs"], P, r)
        _gap(sec, res)
        if res["variants"]:
            _variants_table(sec, res)
        if self.want(exp, "ratings"):
            _ratings_figure(sec, res)


# ---------------------------------------------------------------- the section, one part each
def _note_rungs(sec: Section, res: dict, mode: str) -> None:
    """The note: the rungs, the mirrored seatings and the intervals."""
    sec.notes.append(f"Rungs, weakest first: {', '.join(res['rungs'])} (docs/strategies.md); {_mode_name(mode)}. Each meeting "
                     "plays its mirrored seatings (2 players: A, B and B, A; 4 players: two seats each, A, B, A, B "
                     "and B, A, B, A) on the same games, so each rung gets every seat and every dealt hand; every "
                     "meeting and every variant plays those same games. Intervals: 95 %, bootstrap over games "
                     f"({S.BOOT_B} replicates).")


def _ratings(sec: Section, res: dict) -> None:
    """The ratings' facts and their table (a column per player count)."""
    rungs = res["rungs"]
    cols = {}
    for P, r in res["players"].items():
        cols[f"{P} players"] = [f"{x:+z.0f} [{lo:+z.0f}, {hi:+z.0f}]" for x, lo, hi in zip(r["rating"], r["low"], r["high"])]
        for q, name in enumerate(rungs):
            sec.fact(f"skill.rating.{P}.{_word(name)}", f"{name}'s Bradley–Terry rating at {P} players (Elo scale, "
                     "mean 0 over the rungs)", r["rating"][q], r["low"][q], r["high"][q], int(r["decided"][q]),
                     "Elo points", n_unit="decided games")
    sec.tables.append(Table("Bradley–Terry ratings of the rungs (Elo scale, mean 0) [95 % bootstrap over games]",
                            _disp(cols, index=pd.Index(rungs, name="rung")),
                            note="A difference of 200 points is a 76 % expected win share in a two-sided meeting; "
                                 "at 4 players a 'win' is a game won by one of the rung's two seats."))


def _meetings(sec: Section, rungs: list[str], P: int, r: dict) -> None:
    """At ``P`` players: the finding on the order the ratings give the rungs, the table and facts
    of each meeting (how often the higher rung wins), and the finding on the adjacent meetings."""
    order = [rungs[q] for q in np.argsort(-r["rating"], kind="stable")]
    ladder = list(reversed(rungs))
    sec.findings.append(f"At {P} players the ratings order the rungs " + " > ".join(order)
                        + (" — the ladder's order." if order == ladder else f" — not the ladder's order ({' > '.join(ladder)})."))
    t = r["pairs"]
    sec.tables.append(Table(f"Each meeting at {P} players: how often the higher rung wins", _disp({
        "higher rung": t["b"], "lower rung": t["a"],
        "decided games": t["decided"].map("{:,}".format),
        "higher rung's win share [95 % CI]": [pct_ci(x, lo, hi) for x, lo, hi in zip(t["share"], t["low"], t["high"])],
        "reading": [_reading(lo, hi) for lo, hi in zip(t["low"], t["high"])],
    }, index=pd.Index([f"{b} vs {a}" for a, b in zip(t["a"], t["b"])], name="meeting")), data=t, note=f"{'Two seats each' if P == 4 else 'Half of the seats each'}; fair share 50 %. "
                         "Unfinished games count for neither."))
    for _, x in t.iterrows():
        sec.fact(f"skill.pair.{P}.{_word(x['b'])}.{_word(x['a'])}", f"share of the {P}-player games won by "
                 f"{x['b']} against {x['a']} (seats and guides mirrored)", x["share"], x["low"], x["high"],
                 int(x["decided"]), "share", n_unit="decided games", note="fair 0.5")
    adjacent = t[t["j"] == t["i"] + 1]
    beats = int((adjacent["low"] > 0.5).sum())
    sec.findings.append(f"At {P} players each rung beats the one below with 95 % confidence in {beats} of "
                        f"{len(adjacent)} adjacent meetings; " + "; ".join(
                            f"{x.b} {pc(x.share)} against {x.a}" for x in adjacent.itertuples()) + ".")


def _gap(sec: Section, res: dict) -> None:
    """The skill gap's facts (one per player count) and its finding."""
    weak, strong = res["weak"], res["strong"]
    for P, r in res["players"].items():
        gap = r["gap"]
        if gap is None:
            continue
        fid = "skill.gap" if P == 2 else f"skill.gap{P}"
        sec.fact(fid, f"skill gap: share of the {P}-player games {strong} wins against {weak} (seats and guides "
                 "mirrored)", gap["share"], gap["low"], gap["high"], gap["decided"], "share", n_unit="decided games",
                 note="fair 0.5; 1.0 would be pure skill")
    g2 = res["players"][2]["gap"]
    sec.findings.append(f"The skill gap: {strong} beats {weak} {pct_ci(g2['share'], g2['low'], g2['high'])} of the "
                        "time at 2 players" + "".join(
                            f"; {pct_ci(r['gap']['share'], r['gap']['low'], r['gap']['high'])} at {P} players "
                            "(two seats each)" for P, r in res["players"].items() if P != 2 and r["gap"]) + ".")


def _variants_table(sec: Section, res: dict) -> None:
    """The skill gap under each rule variant, paired with the rulings: the table, and per variant
    its fact and finding."""
    weak, strong = res["weak"], res["strong"]
    v = pd.DataFrame(res["variants"])
    sec.tables.append(Table(f"The skill gap ({strong} against {weak}, 2 players) under each variant, "
                            "paired game by game with the rulings", _disp({
                                "rulings": [pct_ci(x, lo, hi) for x, lo, hi in zip(v["base"], v["base_low"], v["base_high"])],
                                "variant": [pct_ci(x, lo, hi) for x, lo, hi in zip(v["share"], v["low"], v["high"])],
                                "change, points [95 % CI]": [f"{100 * d:+z.1f} [{100 * lo:+z.1f}, {100 * hi:+z.1f}]"
                                                            for d, lo, hi in zip(v["diff"], v["diff_low"], v["diff_high"])],
                                "reading": [_change(lo, hi) for lo, hi in zip(v["diff_low"], v["diff_high"])],
                            }, index=pd.Index(v["label"], name="variant")), data=v,
                            note="Both columns play the same games (same seeds, same seatings); the change's "
                                 "interval is the bootstrap over those games."))
    for x in v.itertuples():
        sec.fact(f"skill.variant.{x.k}", f"skill gap change, {x.label} vs the rulings ({strong} against {weak}, "
                 "2 players)", x.diff, x.diff_low, x.diff_high, int(x.games), "share difference",
                 n_unit="paired games", note=f"rulings {x.base:.4f}, variant {x.share:.4f}")
        sec.findings.append(f"{x.label}: {strong} beats {weak} {pct_ci(x.share, x.low, x.high)} of the time "
                            f"(rulings {pc(x.base)}): {_change_words(x.diff, x.diff_low, x.diff_high)}.")


def _ratings_figure(sec: Section, res: dict) -> None:
    """The figure: every rung's rating at every player count, with its interval (a forest)."""
    t = pd.DataFrame([{"label": f"{name}, {P} players", "rating": r["rating"][q], "low": r["low"][q],
                       "high": r["high"][q]} for P, r in res["players"].items() for q, name in enumerate(res["rungs"])])
    sec.figures.append(Figure("ratings", "Bradley–Terry ratings of the rungs (Elo scale, mean 0; 95 % bootstrap "
                              "interval over games).", plot("forest", t, label="label", value="rating", low="low",
                                                            high="high", title="Skill ladder: ratings",
                                                            xlabel="rating (Elo points)")))


def _reading(lo: float, hi: float) -> str:
    if lo > 0.5:
        return "the higher rung wins more (95 %)"
    if hi < 0.5:
        return "the lower rung wins more (95 %)"
    return "no clear difference"


def _change(lo: float, hi: float) -> str:
    if lo > 0:
        return "widens the gap"
    if hi < 0:
        return "narrows the gap"
    if -GAP_MARGIN <= lo and hi <= GAP_MARGIN:
        return f"about the same (within {margin_words(GAP_MARGIN)})"
    return "not measurably different"


def _change_words(d: float, lo: float, hi: float) -> str:
    ci = f"{100 * d:+z.1f} points [{100 * lo:+z.1f}, {100 * hi:+z.1f}]"
    w = _change(lo, hi)
    if w in ("widens the gap", "narrows the gap"):
        return f"it {w.split()[0]} the skill gap by {abs(100 * d):.1f} points ({ci}): skill counts "\
               + ("more" if d > 0 else "less")
    return f"the skill gap does not move measurably ({ci}{'; within ' + margin_words(GAP_MARGIN) if w.startswith('about') else ''})"


# ---------------------------------------------------------------- the measures
def measure(data, seed: int, B: int = S.BOOT_B) -> dict:
    """Every figure of the section from the run folder: per player count the meetings' shares,
    the ratings and the gap; the variants' gaps and their changes (see the module's doc).

    Returns ``{"rungs", "weak", "strong", "players": {P: {...}}, "variants": [...]}``."""
    ladder = data.select(part="ladder")
    rungs: list[str] = []
    for j in sorted(ladder, key=lambda j: (j["labels"]["i"], j["labels"]["j"])):
        for q, name in ((j["labels"]["i"], j["labels"]["a"]), (j["labels"]["j"], j["labels"]["b"])):
            if q == len(rungs):
                rungs.append(name)
    weak, strong = gap_pair(rungs)
    k = len(rungs)
    out = {"rungs": rungs, "weak": weak, "strong": strong, "players": {}, "variants": []}
    for P in sorted({j["labels"]["players"] for j in ladder}):
        meets = {}
        for j in ladder:
            if j["labels"]["players"] == P:
                meets.setdefault((j["labels"]["i"], j["labels"]["j"]), []).append(j)
        pairs = sorted(meets)
        cols, X, games = [], [], None
        for (i, jj) in pairs:
            js = sorted(meets[(i, jj)], key=lambda j: j["labels"]["seating"])
            g, aw, bw = S.side_wins([data.frame(j["key"]) for j in js], rungs[i], rungs[jj])
            if games is None:
                games = g
            elif len(g) != len(games) or not (g == games).all():
                raise HeronSimError(f"--from: {data.folder}: the meetings at {P} players did not play the same games")
            cols.append((len(X), len(X) + 1))
            X += [aw, bw]
        variants = [] if P != 2 else _variant_columns(data, games, X, weak, strong)
        M = np.stack(X, axis=1)
        tot = M.sum(axis=0).astype(float)
        reps = S.replicate_sums(M, B, seed=seed + 7919 * P)
        wins = S.wins_matrix(tot, pairs, k, cols)
        rating = S.bradley_terry_many(wins)
        r_reps = S.bradley_terry_many(S.wins_matrix(reps, pairs, k, cols))
        lo_hi = np.array([S.percentile(r_reps[:, q]) for q in range(k)])
        rows = []
        for (i, jj), (ca, cb) in zip(pairs, cols):
            sh = float(S.share(tot[cb], tot[ca] + tot[cb]))
            lo, hi = S.percentile(S.share(reps[:, cb], reps[:, ca] + reps[:, cb]))
            rows.append({"i": i, "j": jj, "a": rungs[i], "b": rungs[jj], "a_wins": int(tot[ca]), "b_wins": int(tot[cb]),
                         "decided": int(tot[ca] + tot[cb]), "games": len(games) * len(meets[(i, jj)]),
                         "share": sh, "low": lo, "high": hi})
        t = pd.DataFrame(rows)
        gi, gj = rungs.index(weak), rungs.index(strong)
        gap = None
        if (gi, gj) in pairs:
            x = t[(t["i"] == gi) & (t["j"] == gj)].iloc[0]
            gap = {"share": float(x["share"]), "low": float(x["low"]), "high": float(x["high"]), "decided": int(x["decided"])}
            ca, cb = cols[pairs.index((gi, gj))]
            base, base_reps = float(S.share(tot[cb], tot[ca] + tot[cb])), S.share(reps[:, cb], reps[:, ca] + reps[:, cb])
            for v in variants:
                va, vb = v.pop("cols")
                sh = float(S.share(tot[vb], tot[va] + tot[vb]))
                sh_reps = S.share(reps[:, vb], reps[:, va] + reps[:, vb])
                lo, hi = S.percentile(sh_reps)
                dlo, dhi = S.percentile(sh_reps - base_reps)
                out["variants"].append({**v, "base": base, "base_low": gap["low"], "base_high": gap["high"], "share": sh,
                                        "low": lo, "high": hi, "diff": sh - base, "diff_low": dlo, "diff_high": dhi,
                                        "games": len(games)})
        decided = np.zeros(k)
        for x in rows:
            decided[x["i"]] += x["decided"]
            decided[x["j"]] += x["decided"]
        out["players"][P] = {"rating": rating, "low": lo_hi[:, 0], "high": lo_hi[:, 1], "pairs": t, "gap": gap,
                             "decided": decided}
    return out


def _variant_columns(data, games, X: list, weak: str, strong: str) -> list[dict]:
    """Append each variant's (weak wins, strong wins) per game to ``X``; the variants, each with
    its columns."""
    found = {}
    for j in data.select(part="variant"):
        found.setdefault(j["labels"]["k"], []).append(j)
    out = []
    for k in sorted(found):
        js = sorted(found[k], key=lambda j: j["labels"]["seating"])
        g, aw, bw = S.side_wins([data.frame(j["key"]) for j in js], weak, strong)
        if games is None or len(g) != len(games) or not (g == games).all():
            raise HeronSimError(f"--from: {data.folder}: variant {js[0]['labels']['label']!r} did not play the "
                                "rulings' games")
        out.append({"k": k, "label": js[0]["labels"]["label"], "cols": (len(X), len(X) + 1)})
        X += [aw, bw]
    return out


# ---------------------------------------------------------------- the executive page's row
def skill_row(facts: dict[str, Fact]) -> Row | None:
    """Does skill pay: the skill gap, the ladder's order, and what each rule variant does to it."""
    gap = facts.get("skill.gap")
    if gap is None:
        return None
    who = re.match(r"skill gap: share of the 2-player games (.+) wins against (.+?) \(", gap.label)
    strong, weak = (who.group(1), who.group(2)) if who else ("the top rung", "the lowest rung")
    answer = f"The {strong} beats the {weak} {pc(gap.estimate, 0)} of the time at 2 players " \
             f"[{100 * gap.low:.1f}, {100 * gap.high:.1f}]"
    g4 = facts.get("skill.gap4")
    if g4 is not None:
        answer += f" and {pc(g4.estimate, 0)} at 4 players (two seats each) [{100 * g4.low:.1f}, {100 * g4.high:.1f}]"
    ratings = {k.split(".")[-1]: f for k, f in facts.items() if k.startswith("skill.rating.2.")}
    if ratings:
        order = sorted(ratings, key=lambda k: ratings[k].estimate, reverse=True)
        answer += "; ratings at 2 players: " + ", ".join(f"{k} {ratings[k].estimate:+z.0f}" for k in order)
    answer += "."
    changes = sorted((f for k, f in facts.items() if re.fullmatch(r"skill\.variant\.\d+", k)),
                     key=lambda f: int(f.id.split(".")[-1]))
    if changes:
        parts = []
        for f in changes:
            m = re.match(r"skill gap change, (.*) vs the rulings", f.label)
            label = m.group(1) if m else f.id
            parts.append(f"{label}: {_change_words(f.estimate, f.low, f.high)}")
        action = "Rule variants played on the same games: " + "; ".join(parts) + "."
    else:
        action = ("No rule variant was played: add [[variant]] tables to the skill experiment to see whether a change "
                  "rewards skill more or less (or use the lab's skill_gap metric).")
    return Row("Does skill pay? (the skill gap)", answer, show(gap), sure_share(gap, 0.5, "coin toss"), action,
               gap.id, "skill", False, key="skill", order=14)
