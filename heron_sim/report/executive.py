"""The executive page: one row per question of the seed's test plan and per balance question,
each answered in one sentence derived from the report's figures (:class:`Fact`), with the
figure, its interval and n, how sure it is, and what a designer could do.

Every sentence is built from the facts at render time; a question whose facts are missing
(an experiment left out of the plan) is left out rather than guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pandas as pd

from ..analysis.stats import equivalence
from ..analysis.judge import LENGTH_MARGIN, SHARE_MARGIN, family_readings, reading
from ..sections import Fact

#: The target length of a game, stated by the plan (Ludii's IdealDuration, here in minutes at the
#: table for 4 players at the assumed 40 s per turn): a family dice race of 30 to 45 minutes. An
#: assumption of this report until the designer states one.
TARGET_MINUTES = (30.0, 45.0)

MODE_NAMES = {"8d8": "8 D8", "7d8": "7 D8", "10d8": "10 D8", "10d6": "10 D6"}
MODE_ORDER = ("8d8", "7d8", "10d8", "10d6")
GUIDES = {"loup": "Loup", "taureau": "Taureau", "serpent": "Serpent", "lion": "Lion", "aigle": "Aigle",
          "cerf": "Cerf", "heron": "Héron"}


@dataclass
class Row:
    question: str
    answer: str
    figure: str
    sure: str
    action: str
    fact_id: str  # the fact shown in ``figure`` (the browser test checks it against findings.json)
    source: str   # the anchor of the section that holds the details
    plan: bool    # a question of the seed's test plan (else a balance question)

    @property
    def slug(self) -> str:
        """The row's anchor (the verdict links to it)."""
        return "q-" + SLUGS.get(self.question.split(":")[0].split(" (")[0], re.sub(r"\W+", "-", self.question.lower()).strip("-"))


SLUGS = {"The four dice modes": "modes", "Étang Paisible": "etang", "Angoisse du Héron": "angoisse",
         "Puissance du Guide": "doubling", "The AI strategies": "strategies", "First-player advantage": "first-player",
         "Guide balance": "guide-balance", "Length at the table": "length", "Dead turns": "dead", "Decisiveness": "decisiveness",
         "10 D6 on assumed dice": "d6", "Each power's worth to its holder": "powers", "The +10 cap for sets of 9–10 dice": "cap"}


def pc(x: float, d: int = 1) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:.{d}f}\u00a0%"


def show(f: Fact) -> str:
    """A fact as the page shows it: estimate [interval], n."""
    if f.unit == "share":
        d = 2 if abs(f.estimate) < 0.1 else 1
        est = pc(f.estimate, d)
        ci = f" [{100 * f.low:.{d}f}, {100 * f.high:.{d}f}]" if _finite(f.low, f.high) and f.n else ""
    elif f.unit == "share difference":
        est = f"{100 * f.estimate:+.1f} points"
        ci = f" [{100 * f.low:+.1f}, {100 * f.high:+.1f}]" if _finite(f.low, f.high) else ""
    elif f.unit == "relative change":
        est = f"{100 * f.estimate:+.1f} %"
        ci = f" [{100 * f.low:+.1f}, {100 * f.high:+.1f}]" if _finite(f.low, f.high) else ""
    else:
        est = f"{f.estimate:.2f} {f.unit}"
        ci = f" [{f.low:.2f}, {f.high:.2f}]" if _finite(f.low, f.high) and f.n else ""
    n = f", n = {f.n:,} {f.n_unit}" if f.n else (f" ({f.n_unit})" if f.n_unit else "")
    return est + ci + n


def _finite(*xs) -> bool:
    return all(x is not None and math.isfinite(x) for x in xs)


def _pts(f: Fact, ref: float) -> tuple[float, float, float]:
    return 100 * (f.estimate - ref), 100 * (f.low - ref), 100 * (f.high - ref)


def _sure_share(f: Fact, ref: float, what: str | None = "fair share") -> str:
    d, lo, hi = _pts(f, ref)
    reading = equivalence(d, lo, hi, 100 * SHARE_MARGIN)
    p = f"; p {'< 0.001' if f.p < 0.001 else f'= {f.p:.3f}'}" if _finite(f.p) else ""
    where = f" from the {what}" if what else ""
    return f"{d:+.1f} points{where} [{lo:+.1f}, {hi:+.1f}]: {reading} (margin ±1 point){p}"


def _rel(f: Fact) -> str:
    return f"{100 * f.estimate:+.0f}\u00a0% [{100 * f.low:+.0f}, {100 * f.high:+.0f}]"


def _anxiety_action(cost: Fact | None, s4: Fact | None) -> str:
    """What the Angoisse threshold does to the length of a game, read against the ±5 % margin:
    "a real brake" only when raising the threshold shortens games beyond the margin."""
    if not s4:
        return "Test a threshold of 4 Hérons in the sensitivity table."
    reading = equivalence(s4.estimate, s4.low, s4.high, LENGTH_MARGIN)
    change = f"moving the threshold to 4 Hérons changes game length by {_rel(s4)}"
    if reading == "real and relevant" and s4.high < 0 and (cost is None or cost.low > 0):
        return f"The third Héron is a real brake: {change}."
    if reading in ("negligible", "real but small"):
        return f"The third Héron hardly sets the pace: {change}, within the ±5\u00a0% margin."
    return f"{change[0].upper()}{change[1:]} ({reading}, margin ±5\u00a0%)."


def _first_player_action(reading: str, d: float) -> str:
    """What to do about the first player's edge ``d`` (points from the fair share), by its reading."""
    who = "the last player" if d > 0 else "the first player"
    if reading == "negligible":
        return "Nothing to fix."
    if reading == "real but small":
        return "Real but within ±1 point: small enough to leave."
    if reading == "real, possibly relevant":
        return (f"Possibly above the ±1 point margin; if wanted, give {who} a first-turn bonus (e.g. +1 square) "
                "and re-test.")
    if reading == "real and relevant":
        return f"Worth correcting: give {who} a first-turn bonus (e.g. +1 square) and re-test."
    return "Not settled by these games: play more before changing anything."


def _guide_action(reading: str, weakest: str) -> str:
    if reading in ("real and relevant", "real, possibly relevant"):
        return (f"Strengthen the {GUIDES[weakest]} guide first"
                + (" (its own doubling never applies: see the Puissance du Guide)" if weakest == "heron" else "") + ".")
    if reading in ("negligible", "real but small"):
        return "Even the weakest guide is within ±1 point of the fair share: no guide needs a change."
    return f"Not settled for the {GUIDES[weakest]} guide: play more games before changing it."


# ---------------------------------------------------------------- measured remedies
_VARIANT_LABEL = re.compile(r"game length change, (.*) vs default")


def variants(facts: dict[str, Fact]) -> dict[str, str]:
    """The rule changes the plan played on its own seating and player count (the sensitivity
    batches, same seeds as the default): key -> label, in plan order."""
    out = {}
    for k, f in facts.items():
        m = re.fullmatch(r"sensitivity\.(\w+)\.length_rel", k)
        if m:
            lab = _VARIANT_LABEL.match(f.label)
            out[m.group(1)] = lab.group(1) if lab else m.group(1)
    return out


def side_effects(facts: dict[str, Fact], key: str, skip: str = "") -> str:
    """What else a played change does, from its own batch: length, first player, weakest guide."""
    F = facts.get
    parts = []
    ln = F(f"sensitivity.{key}.length_rel")
    if ln and skip != "length":
        parts.append(f"length {_rel(ln)}")
    s1, b1 = F(f"sensitivity.{key}.seat1"), F("sensitivity.base.seat1")
    if s1 and b1 and skip != "seat1":
        parts.append(f"first player {pc(s1.estimate)} (default {pc(b1.estimate)})")
    w, bw = F(f"sensitivity.{key}.weakest"), F("sensitivity.base.weakest")
    if w and bw and skip != "weakest":
        parts.append(f"weakest guide {pc(w.estimate)} when dealt (default {pc(bw.estimate)})")
    a, ba = F(f"sensitivity.{key}.anxiety"), F("sensitivity.base.anxiety")
    if a and ba and skip != "anxiety":
        parts.append(f"Angoisse {pc(a.estimate)} of turns (default {pc(ba.estimate)})")
    return "; ".join(parts)


def remedy(facts: dict[str, Fact], measure: str, fixed, describe, keys=None, score=None) -> str:
    """The smallest played change that fixes a problem, with its effect, interval and side
    effects; or "no tested remedy fixes this; tried: …". ``measure``: the suffix of the
    variant's fact (``seat1``, ``weakest``, ``length``, …); ``fixed(fact)`` says whether the
    variant's figure is a fix; ``describe(fact)`` shows it. "Smallest": the fix that changes the
    game's length least (every change is one rules key). ``score(fact)`` (lower: closer to a fix)
    names the closest changes when many were tried and none fixes the problem."""
    vs = variants(facts)
    if keys is not None:
        vs = {k: v for k, v in vs.items() if k in keys}
    if not vs:
        return "No remedy was played for this in the plan."
    fixes = []
    for k, label in vs.items():
        f = facts.get(f"sensitivity.{k}.{measure}")
        if f is not None and fixed(f):
            ln = facts.get(f"sensitivity.{k}.length_rel")
            fixes.append((abs(ln.estimate) if ln else math.inf, k, label, f))
    if not fixes:
        if len(vs) <= 6:  # few enough to show what each did
            shown = []
            for k, label in vs.items():
                f = facts.get(f"sensitivity.{k}.{measure}")
                shown.append(f"{label} ({describe(f)})" if f is not None else label)
            return "No tested remedy fixes this; tried: " + "; ".join(shown) + "."
        if score is not None:
            got = [(score(facts[f"sensitivity.{k}.{measure}"]), k) for k in vs if f"sensitivity.{k}.{measure}" in facts]
            best = [k for _, k in sorted(got)[:3]]
            return (f"No tested remedy fixes this; tried {len(vs)} one-key changes (the sensitivity section lists them); "
                    "the closest: " + "; ".join(f"{vs[k]} ({describe(facts[f'sensitivity.{k}.{measure}'])})" for k in best) + ".")
        return "No tested remedy fixes this; tried: " + ", ".join(vs.values()) + "."
    _, k, label, f = min(fixes, key=lambda t: t[0])
    side = side_effects(facts, k, skip=measure)
    return (f"Smallest tested change that fixes it: {label} ({describe(f)}" + (f"; side effects: {side}" if side else "")
            + f"). {len(fixes)} of {len(vs)} changes tried fix it.")


def _fair(f: Fact, default: float) -> float:
    m = re.search(r"fair ([0-9.]+)", f.note or "")
    return float(m.group(1)) if m else default


def first_player_family(facts: dict[str, Fact]) -> str:
    """The first player at every player count, read with Holm over the family of player counts
    (a "real" claim at one count must survive the correction)."""
    pl = sorted((int(k.split(".")[1]), f) for k, f in facts.items() if re.fullmatch(r"players\.\d+\.seat1", k))
    if len(pl) < 2:
        return ""
    rows = [(100 * (f.estimate - 1 / p), 100 * (f.low - 1 / p), 100 * (f.high - 1 / p), f.p) for p, f in pl]
    rd = family_readings(rows, 100 * SHARE_MARGIN)
    off = [f"{p} players {100 * (f.estimate - 1 / p):+.1f} points (Holm p = {q:.3f}: {r})"
           for (p, f), (r, q) in zip(pl, rd) if r.startswith("real")]
    return ("By player count, after Holm over the " + f"{len(pl)} counts: "
            + ("; ".join(off) if off else "no count differs from its fair share") + ".")


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
            + (f"Within the target length: {', '.join(inside)}." if inside else "No mode is within the target length.")
            + " 10 D6 plays on assumed faces.")


def doubling_weighing(facts: dict[str, Fact]) -> str:
    """Dropping the doubling weighed on every headline measure it changes: length, the guides'
    spread and the Héron guide's win rate (doubling off vs on, same seeds)."""
    F = facts.get
    ln, he = F("guides.nodouble.length.8d8"), F("guides.doubling_effect.8d8.heron")
    sp_on, sp_off = F("guides.spread_when_dealt.8d8"), F("guides.spread_nodouble.8d8")
    if not ln:
        return ""
    parts = [f"games {abs(ln.estimate):.1f} rounds [{abs(ln.high) if ln.estimate < 0 else ln.low:.1f}, "
             f"{abs(ln.low) if ln.estimate < 0 else ln.high:.1f}] {'longer' if ln.estimate < 0 else 'shorter'}"]
    if sp_on and sp_off:
        parts.append(f"guide spread {100 * sp_on.estimate:.1f} → {100 * sp_off.estimate:.1f} points")
    if he:
        parts.append(f"Héron guide {-100 * he.estimate:+.1f} points when dealt")
    return "Dropping the doubling (measured, same seeds): " + "; ".join(parts) + "."


def pushback_test(facts: dict[str, Fact], m: str = "8d8") -> str:
    """The causal test of the push-back's size on the same seeds: for the default and each
    played size, the roller's and each victim's chance to win (games with exactly one Étang, one
    comparison that adds up), the squares a hit really costs, and the length; then which sizes
    bring the roller within ±1 point of a fair share."""
    F = facts.get
    vs = {k: v for k, v in variants(facts).items() if "pushback" in k}
    parts = []
    fair = 0.25
    for k, label in [("base", "as now (1 per Héron, 4 to 8)")] + list(vs.items()):
        ro, vi = F(f"sensitivity.{k}.one_pond.roller_wins.{m}"), F(f"sensitivity.{k}.one_pond.victim_wins.{m}")
        ph, ln = F(f"sensitivity.{k}.realised_per_hit.{m}"), F(f"sensitivity.{k}.length_rel")
        if not ro:
            continue
        fair = _fair(ro, fair)
        parts.append(f"{label}: roller {pc(ro.estimate)} [{100 * ro.low:.1f}, {100 * ro.high:.1f}], each victim {pc(vi.estimate)}"
                     + (f", {ph.estimate:.1f} squares per hit" if ph else "") + (f", length {_rel(ln)}" if ln else ""))
    if not parts:
        return ""
    base = F(f"sensitivity.base.one_pond.roller_wins.{m}")
    text = "The push-back's size, same seeds (games with exactly one Étang; fair " + pc(fair) + "): " + "; ".join(parts) + ". "
    if base and reading(100 * (base.estimate - fair), 100 * (base.low - fair), 100 * (base.high - fair), 1.0).startswith("real"):
        text += "At 4 to 8 squares the roller's chance is off the fair share. " + remedy(
            facts, f"one_pond.roller_wins.{m}", lambda f: abs(f.estimate - fair) <= SHARE_MARGIN,
            lambda f: f"roller {show(f)}", keys=list(vs))
    else:
        text += ("At 4 to 8 squares the roller's chance is not shown to be off the fair share: on this evidence "
                 "the size is not wrong.")
    return text


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
            f"({d:+.1f} points [{lo:+.1f}, {hi:+.1f}], Holm p = {lw.p:.3f}: {rd}): {v}.")


def build_rows(facts: dict[str, Fact], anchors: dict[str, str], proposals: bool = False) -> list[Row]:
    """The executive rows that the facts allow, in the order a designer asks them."""
    rows: list[Row] = []
    F = facts.get
    lab = " See the lab's proposed rule changes." if proposals else ""

    # 1. the four dice modes
    base = F("modes.length.8d8")
    if base:
        parts, longest = [], None
        for m in MODE_ORDER[1:]:
            r = F(f"modes.length_rel.{m}")
            if r:
                parts.append(f"{MODE_NAMES[m]} {'+' if r.estimate >= 0 else '−'}{abs(100 * r.estimate):.0f} %")
                if longest is None or r.estimate > longest[1].estimate:
                    longest = (m, r)
        mins = F("modes.minutes.8d8")
        unf = [m for m in MODE_ORDER if F(f"modes.unfinished.{m}") and F(f"modes.unfinished.{m}").estimate > 0]
        answer = (f"8 D8 games last {base.estimate:.1f} rounds (about {mins.estimate:.0f} minutes at the table"
                  f" for 4 players); against it: {', '.join(parts)}.")
        if unf:
            answer += " Some games stop unfinished at the round limit in " + ", ".join(MODE_NAMES[m] for m in unf) + "."
        rels = {m: F(f"modes.length_rel.{m}") for m in ("7d8", "10d8") if F(f"modes.length_rel.{m}")}
        # only a change beyond the ±5 % margin is worth offering as a shorter or longer game
        small = {m for m, r in rels.items() if equivalence(r.estimate, r.low, r.high, LENGTH_MARGIN)
                 in ("negligible", "real but small", "uncertain")}
        shorter = [MODE_NAMES[m] for m, r in rels.items() if r.high < 0 and m not in small]
        longer = [MODE_NAMES[m] for m, r in rels.items() if r.low > 0 and m not in small]
        offers = ([f"{' or '.join(shorter)} for a shorter game"] if shorter else []) + (
            [f"{' or '.join(longer)} for a longer game"] if longer else [])
        action = mode_weighing(facts)
        readings = {m: equivalence(F(f"modes.length_rel.{m}").estimate, F(f"modes.length_rel.{m}").low,
                                   F(f"modes.length_rel.{m}").high, LENGTH_MARGIN)
                    for m in MODE_ORDER[1:] if F(f"modes.length_rel.{m}")}
        sure = ("every difference from 8 D8: " + next(iter(readings.values())) if len(set(readings.values())) == 1
                else "; ".join(f"{MODE_NAMES[m]}: {r}" for m, r in readings.items())) + " (margin ±5 %, paired by seed)"
        rows.append(Row("The four dice modes: 8, 7 and 10 D8, 10 D6", answer, show(base), sure if readings else "",
                        action, base.id, anchors.get("modes", ""), True))

    # 2. the Pond's push-back
    pr, pe, pm, p4 = F("pond.rate.8d8"), F("pond.exact.8d8"), F("pond.pushback_mean.8d8"), F("pond.pushback4.8d8")
    ll = F("pond.lead_loss_per_pond.8d8")
    if pr and pe and pm:
        agree = pr.low <= pe.estimate <= pr.high
        answer = (f"On 8 D8 the Étang Paisible opens on {pc(pr.estimate, 2)} of turns "
                  f"({'consistent with' if agree else 'unlike'} the exact {pc(pe.estimate, 2)}) and pushes each opponent back "
                  f"{pm.estimate:.1f} squares on average" + (f", the minimum 4 in {pc(p4.estimate, 0)} of Ponds" if p4 else "")
                  + (f"; {pc(ll.estimate, 0)} of Ponds take the lead from the leader." if ll else "."))
        ph = F("pond.realised_per_hit.8d8")
        if ph:
            answer += f" In games a hit really costs {ph.estimate:.2f} squares [{ph.low:.2f}, {ph.high:.2f}] (the floor at square 0 cuts the nominal push-back)."
        ro, vi = F("pond.one_pond.roller_wins.8d8"), F("pond.one_pond.victim_wins.8d8")
        if ro and vi:
            answer += (f" In games with exactly one Étang its roller wins {pc(ro.estimate)} [{100 * ro.low:.1f}, {100 * ro.high:.1f}] "
                       f"and each player it hit {pc(vi.estimate)} [{100 * vi.low:.1f}, {100 * vi.high:.1f}] (fair 25 %; one comparison "
                       f"within the same {ro.n:,} games, so roller + 3 victims = 100 %).")
        sure = (f"the exact value lies {'inside' if agree else 'outside'} the simulation's 95 % interval"
                + (f"; lead lost per Étang {show(ll)}" if ll else "")
                + (f"; roller vs fair: {_sure_share(ro, 0.25, None)}" if ro else ""))
        gp = F("pond.games_with_pond.8d8")
        tried = [k for k in variants(facts) if k.startswith("pond") or "pushback" in k]
        measured = "; ".join(f"{variants(facts)[k]}: Étang on {pc(F(f'sensitivity.{k}.pond').estimate, 2)} of turns "
                             f"(default {pc(F('sensitivity.base.pond').estimate, 2)}), length {_rel(F(f'sensitivity.{k}.length_rel'))}"
                             for k in tried if F(f"sensitivity.{k}.pond") and F("sensitivity.base.pond"))
        action = ((f"{pc(gp.estimate, 0)} of 8 D8 games see at least one Étang. " if gp else "")
                  + (f"Measured: {measured}. " if measured else "")
                  + (pushback_test(facts) if any("pushback" in k for k in tried) else
                     "The push-back's size (fixed 4, halved, capped, none) was not played: the rules have no key for it "
                     "yet, so whether 4 to 8 squares is right stays open."))
        rows.append(Row("Étang Paisible: push-back of 4 to 8 squares on 8 D8", answer, show(pr), sure, action, pr.id,
                        anchors.get("pond", ""), True))

    # 3. the Angoisse du Héron
    at, cost = F("anxiety.per_turn.8d8.greedy"), F("anxiety.cost.8d8")
    s25 = F("anxiety.situation.8d8.h2.f5")
    s4 = F("sensitivity.anxiety4.length_rel")
    if at:
        answer = (f"A greedy turn on 8 D8 ends in the Angoisse {pc(at.estimate, 0)} of the time"
                  + (f", which costs {cost.estimate:.2f} squares per turn" if cost else "")
                  + (f"; with two Hérons reserved, rerolling 5 dice risks it {pc(s25.estimate, 0)} of the time" if s25 else "")
                  + ".")
        action = _anxiety_action(cost, s4)
        rows.append(Row("Angoisse du Héron: the risk from the third Héron", answer, show(at),
                        f"interval ±{100 * (at.high - at.low) / 2:.2f} points; the rates of the report are reconciled below",
                        action, at.id, anchors.get("anxiety", ""), True))

    # 4. the Puissance du Guide
    ds, dh = F("guides.doubling_share.8d8.all"), F("guides.doubling_share.8d8.heron")
    he_eff = F("guides.doubling_effect.8d8.heron")
    sp_on, sp_off = F("guides.spread_when_dealt.8d8"), F("guides.spread_nodouble.8d8")
    ln = F("guides.nodouble.length.8d8")
    if ds:
        answer = (f"The passive doubling gives {pc(ds.estimate, 0)} of all advance on 8 D8"
                  + (f" but only {pc(dh.estimate, 1)} of the advance of players dealt the Héron: Hérons never form a set, so "
                     "the Héron guide itself can never double (its holders double only after their guide changes hands: a swap or the Rotation square)" if dh else "")
                  + (f"; with the doubling on, the Héron guide's win rate when dealt differs by {100 * he_eff.estimate:+.1f} points "
                     f"from the same games with it off (on − off)" if he_eff else "")
                  + (f"; the gap between the best and the worst guide's win rate when dealt is "
                     f"{100 * sp_on.estimate:.1f} points with the doubling and {100 * sp_off.estimate:.1f} without"
                     if sp_on and sp_off else "")
                  + (f"; games get {abs(ln.estimate):.1f} rounds {'shorter' if ln.estimate < 0 else 'longer'} with it" if ln else "")
                  + ".")
        action = doubling_weighing(facts) + " " + remedy(
            facts, "weakest", lambda f: f.estimate >= 0.25 - SHARE_MARGIN,
            lambda f: f"weakest guide {show(f)} when dealt", keys=[k for k in variants(facts) if k.startswith("heron_dbl")])
        rows.append(Row("Puissance du Guide (passive doubling)", answer, show(ds),
                        _sure_share(he_eff, 0.0, None) if he_eff else "", action, ds.id,
                        anchors.get("guides", ""), True))

    # 5. the three AI strategies
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
        rows.append(Row("The AI strategies", answer, show(top), _sure_share(top, 0.5, "even share"), action, top.id,
                        anchors.get("strategies", ""), True))

    # 6. first-player advantage (pooled)
    s1 = F("balance.seat1.pooled.8d8")
    if s1:
        d, lo, hi = _pts(s1, 0.25)
        rd = reading(d, lo, hi, 1.0)
        answer = (f"Over the independent default 8 D8 batches pooled (one per seed), the first player wins {pc(s1.estimate, 1)} against a fair 25 % "
                  f"({d:+.1f} points): {rd}. This is the report's one first-player figure; every section points to it.")
        fam = first_player_family(facts)
        if fam:
            answer += " " + fam
        action = ("Nothing to fix: the edge is inside ±1 point." if rd in ("negligible", "real but small") else
                  "Not settled by these games (the interval holds both 0 and values beyond ±1 point); no change is "
                  "advised on this evidence." if rd == "uncertain" else
                  "A fix must bring the first player's whole interval inside ±1 point. " + remedy(
            facts, "seat1", lambda f: reading(100 * (f.estimate - 0.25), 100 * (f.low - 0.25), 100 * (f.high - 0.25),
                                              1.0) == "negligible",
            lambda f: f"first player {show(f)}",
            keys=[k for k in variants(facts) if k.startswith(("start_", "extra_roll"))] or None))
        rows.append(Row("First-player advantage", answer, show(s1), _sure_share(s1, 0.25), action, s1.id,
                        anchors.get("across", ""), False))

    # 7. guide balance
    gw = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("guides.when_dealt.8d8.")}
    if gw:
        lo_g = min(gw, key=lambda k: gw[k].estimate)
        hi_g = max(gw, key=lambda k: gw[k].estimate)
        fair = _fair(gw[lo_g], 0.25)
        answer = (f"Win rate when dealt (fair {pc(fair)}): the {GUIDES[lo_g]} guide is the weakest ({pc(gw[lo_g].estimate, 1)}), "
                  f"the {GUIDES[hi_g]} the strongest ({pc(gw[hi_g].estimate, 1)})")
        flagged = [g for g, f in gw.items() if (f.note or "").startswith("flag ")]
        answer += ("; flagged beyond the ±1 point margin after Holm over the 7 guides: "
                   + ", ".join(f"{GUIDES[g]} ({gw[g].note.split(';')[0][5:]})" for g in flagged) + "." if flagged
                   else "; no guide is beyond the ±1 point margin after Holm over the 7 guides.")
        sp, fl = F("guides.spread_when_dealt.8d8"), F("guides.spread_floor.8d8")
        if sp and fl:
            answer += (f" The spread (best − worst) is {100 * sp.estimate:.1f} points; a perfectly fair game at the same n "
                       f"reads {100 * fl.estimate:.1f} (95 % of fair games below {100 * fl.high:.1f}).")
        d, lo, hi = _pts(gw[lo_g], fair)
        rd = reading(d, lo, hi, 100 * SHARE_MARGIN, gw[lo_g].p)
        action = ("No guide is beyond the ±1 point margin: no change is advised." if not flagged else remedy(
            facts, "weakest", lambda f: f.estimate >= fair - SHARE_MARGIN,
            lambda f: f"weakest guide {GUIDES.get((f.note or '').split(';')[0].replace('guide ', ''), '')} {show(f)} when dealt",
            score=lambda f: -f.estimate))
        rows.append(Row("Guide balance", answer, show(gw[lo_g]), _sure_share(gw[lo_g], fair) + " (Holm over the 7 guides)",
                        action, gw[lo_g].id, anchors.get("guides", ""), False))

    # 8. length by player count
    pl = {int(k.split(".")[1]): v for k, v in facts.items() if k.startswith("players.") and k.endswith(".minutes")}
    if pl:
        lo_p, hi_p = min(pl), max(pl)
        answer = (f"At an assumed 40 s per turn a game lasts about {pl[lo_p].estimate:.0f} minutes with {lo_p} players and "
                  f"{pl[hi_p].estimate:.0f} with {hi_p}" + (f" ({pl[4].estimate:.0f} with 4)" if 4 in pl and 4 not in (lo_p, hi_p) else "")
                  + ".")
        unf = [p for p in sorted(pl) if F(f"players.{p}.unfinished") and F(f"players.{p}.unfinished").estimate > 0]
        if unf:  # minutes are means over finished games: say when some games did not finish
            answer += (" These are means over finished games; some games stop unfinished at the round limit with "
                       + ", ".join(f"{p} ({pc(F(f'players.{p}.unfinished').estimate, 1)})" for p in unf) + " players.")
        lo_t, hi_t = TARGET_MINUTES
        m4 = pl.get(4)
        if m4 is not None and not (lo_t <= m4.estimate <= hi_t):
            action = (f"Against the plan's target of {lo_t:.0f}–{hi_t:.0f} minutes (4 players; Ludii's IdealDuration): "
                      f"{m4.estimate:.0f} minutes is {'too long' if m4.estimate > hi_t else 'too short'}. " + remedy(
                          facts, "length", lambda f: lo_t <= f.estimate * 4 * 40 / 60 <= hi_t,
                          lambda f: f"{f.estimate:.1f} rounds, {f.estimate * 4 * 40 / 60:.0f} minutes",
                          score=lambda f: abs(f.estimate * 4 * 40 / 60 - (lo_t + hi_t) / 2)))
        else:
            action = f"Within the plan's target of {lo_t:.0f}–{hi_t:.0f} minutes for 4 players (Ludii's IdealDuration)."
        rows.append(Row("Length at the table", answer, show(pl[4] if 4 in pl else pl[lo_p]),
                        "rounds are measured; minutes rest on the assumed time per turn", action,
                        (pl[4] if 4 in pl else pl[lo_p]).id, anchors.get("sensitivity", ""), False))

    # 9. dead turns
    dead = {m: F(f"turns.dead.{m}") for m in MODE_ORDER if F(f"turns.dead.{m}")}
    if dead:
        worst = max(dead, key=lambda m: dead[m].estimate)
        answer = ("A greedy turn moves nobody (no set of 3, or the Angoisse) in " + ", ".join(
            f"{pc(dead[m].estimate, 0)} of turns on {MODE_NAMES[m]}" for m in dead) + ".")
        cons = {k: v for k, v in variants(facts).items() if k.startswith("consolation")}
        action = (f"{MODE_NAMES[worst]} has the most dead turns. " + (
            "Consolations played on 8 D8 (same seeds; the plan has no frustration target, so none is called a fix): "
            + "; ".join(f"{label}: {side_effects(facts, k)}" for k, label in cons.items()) + "." if cons else
            "A consolation on a dead turn was not played: the rules have no key for it yet."))
        f0 = dead.get("8d8") or next(iter(dead.values()))
        rows.append(Row("Dead turns", answer, show(f0), f"interval ±{100 * (f0.high - f0.low) / 2:.2f} points",
                        action, f0.id, anchors.get("pond", ""), False))

    # 10. decisiveness
    ml = F("modes.mid_leader_wins.8d8")
    if ml:
        m_ = re.search(r"fair ([0-9.]+)", ml.note or "")
        fair = float(m_.group(1)) if m_ else 0.25
        verdict = ("the lead counts" if ml.low > fair else
                   "the mid-game leader wins less often than chance" if ml.high < fair else
                   "these games do not show that the lead counts")
        verdict += (" and the race stays open" if ml.high < 0.75 else ", and the race is often decided by mid-game")
        answer = (f"The leader at mid-game wins {pc(ml.estimate, 0)} of 8 D8 games, against {pc(fair, 0)} if the lead "
                  f"meant nothing: {verdict}.")
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
            fair_l = _fair(last, 0.25)
            action += (f" Comebacks (the player last at mid-game wins {pc(last.estimate)}, fair {pc(fair_l)}): " + remedy(
                facts, "last_wins", lambda f: f.estimate >= fair_l - SHARE_MARGIN, lambda f: f"last at mid-game wins {show(f)}",
                score=lambda f: -f.estimate))
        rows.append(Row("Decisiveness", answer, show(ml), _sure_share(ml, fair, "share of a lead that means nothing"),
                        action, ml.id, anchors.get("modes", ""), False))

    # 11. the assumed 10 D6
    d6 = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("d6.composition_effect.")}
    if d6:
        big = max(d6, key=lambda k: abs(d6[k].estimate))
        answer = ("The 10 D6 faces are assumed (Aigle and Cerf on 9 dice, the others on 8); rotating the extra faces "
                  f"to Loup and Taureau moves the {GUIDES[big]} guide's win rate by {100 * d6[big].estimate:+.1f} points.")
        action = "Every 10 D6 figure rests on assumed faces (the seed lists none)."
        rows.append(Row("10 D6 on assumed dice", answer, show(d6[big]), _sure_share(d6[big], 0.0, None), action,
                        d6[big].id, anchors.get("sensitivity", ""), False))
    # 12. each power's worth (restricted play: only that guide's power off, same seeds)
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
                  + ", ".join(f"{GUIDES[g]} {100 * f.estimate:+.1f} [{100 * f.low:+.1f}, {100 * f.high:+.1f}]" for g, f in pv.items())
                  + " points.")
        where = f"at every player count measured ({counts})"
        action = ((("Within noise for every strategy" + (f" {where}" if every else "")
                     + " (no strategy's effect is real after Holm): " if flags else
                    "Within noise (inside ±1 point after Holm over the guides): ") + ", ".join(GUIDES[g] for g in nil)
                   + " — these powers do not change their holder's chances measurably. ") if nil else
                  "Every power changes its holder's chances for at least one strategy"
                  + (f" at one player count or more ({counts})" if every else "") + ". ") + (
            f"Measured with the AI strategies rotated at {counts} players, per strategy (the figures above: 4 players)."
            if every else
            "Measured at the plan's 4-player table of the AI strategies rotated" + (", per strategy" if flags else "")
            + " (not at other player counts).")
        rows.append(Row("Each power's worth to its holder", answer, show(pv[best]),
                        _sure_share(pv[best], 0.0, None) + " (Holm over the guides)", action, pv[best].id,
                        anchors.get("guides", ""), False))
    # 13. the provisional +10 cap for sets of 9-10 dice
    caps = {m: F(f"modes.sets9plus.{m}") for m in ("10d8", "10d6") if F(f"modes.sets9plus.{m}")}
    if caps:
        c0 = caps.get("10d8") or next(iter(caps.values()))
        answer = ("A largest set of 9 or 10 dice (capped at +10 squares, provisional) happens on "
                  + ", ".join(f"{pc(f.estimate, 2)} of scored turns on {MODE_NAMES[m]}" for m, f in caps.items()) + ".")
        action = ("At this rate the cap's value hardly matters to a game (about one set in "
                  f"{1 / c0.estimate:,.0f} scored turns)." if c0.estimate > 0 else "Never seen in these games.")
        rows.append(Row("The +10 cap for sets of 9–10 dice", answer, show(c0), f"interval ±{100 * (c0.high - c0.low) / 2:.2f} points",
                        action, c0.id, anchors.get("modes", ""), False))
    for r in rows:  # keep a number with its unit on one line
        r.answer = r.answer.replace(" %", "\u00a0%")
        r.action = r.action.replace(" %", "\u00a0%")
    return rows


def anxiety_reconciliation(facts: dict[str, Fact]) -> pd.DataFrame:
    """Every Angoisse rate of the report for 8 D8, side by side, with why they differ."""
    F = facts.get
    rows = []

    def add(fid, what, why):
        f = F(fid)
        if f:
            rows.append({"figure": what, "value [95 % CI], n": show(f), "why it differs": why, "id": fid})

    add("anxiety.first_roll_exact.8d8", "first roll only (exact)",
        "3 or more Hérons among 8 dice but fewer than 4 (4 open the Étang); one roll, not a turn")
    for k in (1, 2, 3):
        add(f"anxiety.roll.8d8.greedy.{k}", f"at roll {k}, given that roll is made (greedy)",
            "conditional on reaching the roll: Hérons already reserved make later rolls riskier")
    add("anxiety.per_turn.8d8.greedy", "per turn, greedy, single turns (made: fresh turn, Loup guide, greedy never uses its power)",
        "up to 3 rolls; no Lion rescue; greedy does not use the Loup power, so no artefact")
    for s in ("prudent", "expert", "racer", "random"):
        f = F(f"anxiety.per_turn.8d8.{s}")
        if f is not None and "powers off" in (f.note or ""):
            add(f"anxiety.per_turn.8d8.{s}", f"per turn, {s}, single turns (made: fresh turn, Loup guide, one-shot powers off)",
                "its own choices of what to keep and when to stop; powers off, so no fresh Loup power every turn "
                "(a real game never gives one)")
        else:
            add(f"anxiety.per_turn.8d8.{s}", f"per turn, {s}, single turns (made: fresh turn with an unused Loup power)",
                "not a per-strategy rate: every single turn starts with a fresh Loup power this player uses every turn; "
                "use the whole-game rate of this strategy below")
    add("modes.anxiety_per_played_turn.8d8", "per really-played turn, whole games (AI strategies rotated)",
        "mixes strategies; Étang turns and Lion rescues counted; Loup square adds a roll")
    for s in ("greedy", "prudent", "expert", "racer", "random"):
        add(f"anxiety.games_per_turn.8d8.{s}", f"per turn in whole games, {s} (made: whole games, strategies rotated) — the report's per-strategy rate",
            "the strategy's own turns inside real games (guides dealt at random, powers as they come, squares, extra rolls)")
    add("anxiety.lion_rescue.8d8", "share of Angoisses the Lion rescues (whole games)",
        "only the player holding a ready Lion guide can rescue")
    return pd.DataFrame(rows)


GLOSSARY = [
    ("Étang Paisible", "Peaceful Pond", "4 or more Hérons on the first roll: free rerolls collecting Hérons; every "
     "opponent moves back one square per Héron."),
    ("Angoisse du Héron", "Heron's Anxiety", "3 or more Hérons reserved outside the Étang: the turn ends with no move."),
    ("Puissance du Guide", "Guide Power (passive doubling)", "a set of your guide's animal advances twice as far."),
    ("pouvoir ponctuel", "one-shot power", "each guide's power, used once, then exhausted until regenerated."),
    ("Guide", "guide", "the animal card dealt to each player (Loup, Taureau, Serpent, Lion, Aigle, Cerf, Héron)."),
    ("Loup, Taureau, Serpent, Lion, Aigle, Cerf, Héron", "Wolf, Bull, Snake, Lion, Eagle, Deer, Heron", "the seven animals."),
    ("Patience", "Patience (Héron guide)", "give up a roll to set one die to a face it has."),
    ("régénérer / échanger son Guide", "regenerate / swap your guide", "effects of sets of 6, 7 and 8+."),
    ("usage unique", "single use", "variant: each special square works once per game."),
    ("D8, D6", "eight- and six-sided dice", "D8: seven animals and a free-reroll face; D6: the ten historic dice."),
    ("tour mort", "dead turn", "a turn that moves nobody (no set of 3, or the Angoisse)."),
]

ASSUMPTIONS = [
    "10 D6: the seed lists no faces; the rulings assume die k has one Héron face and the five non-heron animals other "
    "than animal k mod 6 (Aigle and Cerf on 9 dice, the others on 8). Every 10 D6 figure rests on this.",
    "The squares Échange (12), Rotation (27) and Régénération (52) are placed by the rulings; the seed places them nowhere.",
    "Time at the table: 40 s per player turn (a guess until a timed playtest); minutes scale with it.",
    "A game still running after 500 rounds stops and is counted as unfinished; means of length are over finished games.",
    "Guides are dealt at random, distinct; seats rotate the strategies so that every strategy sits in every seat.",
    "The greedy player keeps the largest set, never stops early, and uses only the Taureau, Lion and Serpent powers "
    "(rulings §7); the other AIs are described in docs/strategies.md.",
    "Sets of 9 or 10 (10-dice modes) advance 10 squares with the choice of effect, as the seed's provisional cap says.",
    "Ties between largest sets go to the guide's animal, then to the animal with the lowest index (Loup first).",
    "Single-turn measures start from a fresh turn with the Loup guide (its power unused by greedy), so no Lion rescue.",
]


# ---------------------------------------------------------------- the verdict
def verdict(facts: dict[str, Fact]) -> tuple[list, list, list]:
    """What is wrong with the game, ranked by how far its interval lies beyond its margin (in
    margins), each with figure, interval and the answer it links to; what is fine; what is open."""
    from ..analysis.judge import Problem, lower_bound_size, rank

    F = facts.get
    probs: list[Problem] = []
    s1 = F("balance.seat1.pooled.8d8")
    if s1:
        d, lo, hi = _pts(s1, 0.25)
        rd = reading(d, lo, hi, 1.0)
        size = lower_bound_size(d, lo, hi, 1.0)
        probs.append(Problem(f"The first player {'wins more' if d > 0 else 'wins less'} than a fair 25 %" if size > 1 else
                             "The first player's edge is within ±1 point" if _is_fine(rd) else
                             f"The first player wins {d:+.1f} points more than a fair share: real, but its interval reaches "
                             "past the ±1 point margin" if rd == "real, possibly relevant" and d > 0 else
                             f"The first player wins {-d:.1f} points less than a fair share: real, but its interval reaches "
                             "past the ±1 point margin" if rd == "real, possibly relevant" else
                             "The first player's edge is not settled by these games",
                             show(s1), size, "q-first-player", fine=_is_fine(rd)))
    gw = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("guides.when_dealt.8d8.")}
    if gw:
        for g, f in sorted(gw.items(), key=lambda kv: kv[1].estimate)[:1] + sorted(gw.items(), key=lambda kv: -kv[1].estimate)[:1]:
            fair = _fair(f, 0.25)
            d, lo, hi = _pts(f, fair)
            size = lower_bound_size(d, lo, hi, 1.0) if (not math.isfinite(f.p) or f.p <= 0.05) else 0.0
            rd = reading(d, lo, hi, 1.0, f.p)
            probs.append(Problem(f"The {GUIDES[g]} guide is {'weak' if d < 0 else 'strong'}: its holder wins "
                                 f"{'less' if d < 0 else 'more'} than a fair {pc(fair, 0)}" if size > 1 else
                                 f"The {GUIDES[g]} guide is within the ±1 point margin (after Holm over the 7 guides)"
                                 if _is_fine(rd) else f"Whether the {GUIDES[g]} guide is {'weak' if d < 0 else 'strong'} "
                                 "is not settled (Holm over the 7 guides)", show(f), size, "q-guide-balance", fine=_is_fine(rd)))
    m4 = F("players.4.minutes") or F("modes.minutes.8d8")
    if m4 and math.isfinite(m4.low):
        lo_t, hi_t = TARGET_MINUTES
        size = ((m4.low - hi_t) / (LENGTH_MARGIN * hi_t) if m4.low > hi_t else
                (lo_t - m4.high) / (LENGTH_MARGIN * lo_t) if m4.high < lo_t else 0.0)
        probs.append(Problem(f"A 4-player game lasts {m4.estimate:.0f} minutes, {'above' if m4.estimate > hi_t else 'below'} "
                             f"the plan's target of {lo_t:.0f}–{hi_t:.0f}" if size > 0 else
                             f"A 4-player game lasts {m4.estimate:.0f} minutes, within the plan's target",
                             show(m4), size if size > 0 else 0.0, "q-length", fine=lo_t <= m4.low and m4.high <= hi_t))
    last = F("sensitivity.base.last_wins")
    if last:
        fair = _fair(last, 0.25)
        d, lo, hi = _pts(last, fair)
        size = lower_bound_size(d, lo, hi, 1.0)
        probs.append(Problem(f"Comebacks are rare: the player last at mid-game wins {pc(last.estimate, 0)}, far below the "
                             f"{pc(fair, 0)} of a game where mid-game position meant nothing"
                             if size > 1 and d < 0 else "The player last at mid-game wins about a fair share",
                             show(last), size, "q-decisiveness", fine=_is_fine(reading(d, lo, hi, 1.0))))
    pv = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("guides.power_value.8d8.")}
    every = {k.split(".")[-1]: f for k, f in facts.items() if k.startswith("guides.power_nil_every_count.8d8.")}
    flags = every or {k.split(".")[-1]: f for k, f in facts.items() if k.startswith("guides.power_nil.8d8.")}
    nil = ([g for g, f in flags.items() if f.estimate == 1] if flags else
           [g for g, f in pv.items() if reading(100 * f.estimate, 100 * f.low, 100 * f.high, 1.0, f.p)
            in ("negligible", "real but small")])
    if nil and pv:
        probs.append(Problem("Powers that change nothing measurable for their holder"
                             + (" (within noise for every strategy" + (" at every player count measured" if every else "")
                                + ")" if flags else "") + ": "
                             + ", ".join(GUIDES[g] for g in nil),
                             "; ".join(f"{GUIDES[g]} {show(pv[g])}" for g in nil if g in pv), 0.0, "q-powers"))
    un = F("modes.unfinished.8d8")
    if un and un.high < 0.01:
        probs.append(Problem("Every 8 D8 game finishes before the round limit", show(un), 0.0, "q-modes", fine=True))
    cap = F("modes.sets9plus.10d8")
    if cap and cap.high < 0.01:
        probs.append(Problem("The provisional +10 cap for sets of 9–10 dice hardly ever applies", show(cap), 0.0, "q-cap",
                             fine=True))
    pr, pe = F("pond.rate.8d8"), F("pond.exact.8d8")
    if pr and pe and pr.low <= pe.estimate <= pr.high:
        probs.append(Problem("The simulator agrees with the exact Étang rate", show(pr), 0.0, "q-etang", fine=True))
    return rank(probs)


def _is_fine(r: str) -> bool:
    return r in ("negligible", "real but small")
