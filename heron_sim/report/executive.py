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
from .judge import LENGTH_MARGIN, SHARE_MARGIN, family_readings, reading
from .section import Fact

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


def remedy(facts: dict[str, Fact], measure: str, fixed, describe, keys=None) -> str:
    """The smallest played change that fixes a problem, with its effect, interval and side
    effects; or "no tested remedy fixes this; tried: …". ``measure``: the suffix of the
    variant's fact (``seat1``, ``weakest``, ``length``, …); ``fixed(fact)`` says whether the
    variant's figure is a fix; ``describe(fact)`` shows it. "Smallest": the fix that changes the
    game's length least (every change is one rules key)."""
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
        return "No tested remedy fixes this; tried: " + ", ".join(vs.values()) + "."
    _, k, label, f = min(fixes, key=lambda t: t[0])
    side = side_effects(facts, k, skip=measure)
    return (f"Smallest tested change that fixes it: {label} ({describe(f)}" + (f"; side effects: {side}" if side else "")
            + f"). {len(fixes)} of {len(vs)} changes tried fix it.")


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
        action = ("Keep 8 D8 as the standard length"
                  + (f"; offer {' and '.join(offers)}" if offers else "")
                  + ". 10 D6 plays on assumed dice (the seed lists no faces): fix its faces before judging it.")
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
        wr, wb = F("pond.win_per_pond_rolled.8d8"), F("pond.win_per_square_lost.8d8")
        if wr and wb:
            answer += (f" Comparing the players of one game, each Pond rolled goes with {100 * wr.estimate:+.1f} points of "
                       f"the roller's chance to win and each square lost to one with {100 * wb.estimate:+.2f} points "
                       f"(an association, not a causal effect).")
        sure = (f"the exact value lies {'inside' if agree else 'outside'} the simulation's 95 % interval"
                + (f"; lead lost per Pond {show(ll)}" if ll else "")
                + (f"; per Pond rolled [{100 * wr.low:+.1f}, {100 * wr.high:+.1f}] points, clustered by game"
                   if wr and wb else ""))
        gp = F("pond.games_with_pond.8d8")
        action = ((f"{pc(gp.estimate, 0)} of 8 D8 games see at least one Étang. " if gp else "")
                  + "To make it matter less, lower the push-back or raise the Étang threshold (the sensitivity "
                    "section shows the threshold's effect)." + lab)
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
        action = _anxiety_action(cost, s4) + lab
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
        action = ("Give the Héron guide its own doubling (e.g. double a set of the animal it reserved with Patience) or "
                  "drop the doubling; the on/off table shows what each guide gains." + lab)
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
        action = (f"The seed asks for three AI strategies; the simulator has {len(ai)} ({', '.join(sorted(ai))}) and a "
                  f"random baseline. Use {order[0]} as the strong opponent in playtests and greedy as the simple "
                  "reference the exact checks use; docs/strategies.md describes each.")
        rows.append(Row("The AI strategies", answer, show(top), _sure_share(top, 0.5, "even share"), action, top.id,
                        anchors.get("strategies", ""), True))

    # 6. first-player advantage (pooled)
    s1 = F("balance.seat1.pooled.8d8")
    if s1:
        d, lo, hi = _pts(s1, 0.25)
        reading = equivalence(d, lo, hi, 1.0)
        answer = (f"Over the independent default 8 D8 batches pooled (one per seed), the first player wins {pc(s1.estimate, 1)} against a fair 25 % "
                  f"({d:+.1f} points): {reading}.")
        action = _first_player_action(reading, d)
        rows.append(Row("First-player advantage", answer, show(s1), _sure_share(s1, 0.25), action, s1.id,
                        anchors.get("across", ""), False))

    # 7. guide balance
    gw = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("guides.win_rate.8d8.")}
    if gw:
        lo_g = min(gw, key=lambda k: gw[k].estimate)
        hi_g = max(gw, key=lambda k: gw[k].estimate)
        answer = (f"The {GUIDES[lo_g]} guide is the weakest ({pc(gw[lo_g].estimate, 1)} of games against a fair 14.3 %), "
                  f"the {GUIDES[hi_g]} the strongest ({pc(gw[hi_g].estimate, 1)}).")
        d, lo, hi = _pts(gw[lo_g], 1 / 7)
        action = _guide_action(equivalence(d, lo, hi, 100 * SHARE_MARGIN), lo_g) + lab
        rows.append(Row("Guide balance", answer, show(gw[lo_g]), _sure_share(gw[lo_g], 1 / 7), action, gw[lo_g].id,
                        anchors.get("guides", ""), False))

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
        action = "Time a few real turns: every minute figure scales with the time per turn."
        rows.append(Row("Length at the table", answer, show(pl[4] if 4 in pl else pl[lo_p]),
                        "rounds are measured; minutes rest on the assumed time per turn", action,
                        (pl[4] if 4 in pl else pl[lo_p]).id, anchors.get("sensitivity", ""), False))

    # 9. dead turns
    dead = {m: F(f"turns.dead.{m}") for m in MODE_ORDER if F(f"turns.dead.{m}")}
    if dead:
        worst = max(dead, key=lambda m: dead[m].estimate)
        answer = ("A greedy turn moves nobody (no set of 3, or the Angoisse) in " + ", ".join(
            f"{pc(dead[m].estimate, 0)} of turns on {MODE_NAMES[m]}" for m in dead) + ".")
        action = (f"{MODE_NAMES[worst]} has the most dead turns; a consolation (e.g. +1 square on a dead turn) would "
                  "cut frustration — test it as a variant.")
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
        action = "Nothing to fix unless playtesters find the end predictable."
        rows.append(Row("Decisiveness", answer, show(ml), _sure_share(ml, fair, "share of a lead that means nothing"),
                        action, ml.id, anchors.get("modes", ""), False))

    # 11. the assumed 10 D6
    d6 = {k.split(".")[-1]: v for k, v in facts.items() if k.startswith("d6.composition_effect.")}
    if d6:
        big = max(d6, key=lambda k: abs(d6[k].estimate))
        answer = ("The 10 D6 faces are assumed (Aigle and Cerf on 9 dice, the others on 8); rotating the extra faces "
                  f"to Loup and Taureau moves the {GUIDES[big]} guide's win rate by {100 * d6[big].estimate:+.1f} points.")
        action = "Publish the historic dice's faces; until then treat every 10 D6 figure as provisional."
        rows.append(Row("10 D6 on assumed dice", answer, show(d6[big]), _sure_share(d6[big], 0.0, None), action,
                        d6[big].id, anchors.get("sensitivity", ""), False))
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
    add("anxiety.per_turn.8d8.greedy", "per turn, greedy, single turns",
        "up to 3 rolls; a fresh turn with the Loup guide, so no Lion rescue")
    for s in ("prudent", "expert", "racer", "random"):
        add(f"anxiety.per_turn.8d8.{s}", f"per turn, {s}, single turns",
            "its own choices of what to keep and when to stop (random stops at random)")
    add("modes.anxiety_per_played_turn.8d8", "per really-played turn, whole games (AI strategies rotated)",
        "mixes strategies; Étang turns and Lion rescues counted; Loup square adds a roll")
    for s in ("greedy", "prudent", "expert", "racer", "random"):
        add(f"anxiety.games_per_turn.8d8.{s}", f"per turn in whole games, {s} (strategies rotated)",
            "the strategy's own turns inside real games (guides, squares, extra rolls)")
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
