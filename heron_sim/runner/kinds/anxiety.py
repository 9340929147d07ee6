"""Kind ``anxiety``: the risk of the third heron, per roll, per turn and in whole games."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from ...analysis import metrics as M
from ...analysis.intervals import wilson
from ...analysis.stats import equivalence, paired_difference, t_interval
from ...analysis.executive import pc, rel, Row, rows_of, show
from ...analysis.judge import LENGTH_MARGIN
from ...engine import layout as L
from ...sections import Fact, Figure, Section, Table, num_ci, pct, pct_ci, plot
from ..options import HeronExperiment, Guide, Strategies, Turns, figures_of
from ..jobs import Job, resolve_strategies, seatings
from .base import ExperimentKind, Sizes
from .common import NO_ANXIETY, _disp, _mode_name


#: The figures this kind draws (the ``figures`` key chooses among them; default: all).
FIGURES = ('per_roll', 'per_strategy')


class AnxietyExperiment(HeronExperiment):
    """The options of an experiment file of kind ``anxiety``."""

    kind: Literal["anxiety"] = "anxiety"
    figures: figures_of(FIGURES) = FIGURES
    turns: Turns = 100_000
    strategies: Strategies = "all"
    guide: Guide = "loup"


class AnxietyKind(ExperimentKind):
    """The risk of the third heron, per roll, per turn and in whole games."""

    name = "anxiety"
    options = AnxietyExperiment
    figures = FIGURES
    intro = "The risk of the third heron."

    def jobs(self, exp: AnxietyExperiment, g: Sizes) -> list[Job]:
        P = exp.players
        jobs: list[Job] = []
        strats = resolve_strategies(exp.strategies)
        seat = seatings(strats, P)
        for m in exp.modes:
            r = exp.rules.build(m, P)
            for s in strats:
                # a single turn starts with a fresh guide power: every strategy but greedy uses the Loup's
                # each turn, which no turn of a real game does; with the one-shot powers off the single-turn
                # rate is the strategy's own (greedy never uses the Loup's power: its turns are the same)
                rs = r if s == "greedy" else r.replace(powers=False)
                jobs.append(Job(f"turns_{m}_{s}", "turns", rs, g.turns(exp.turns), exp.seed,
                                strategy=s, guide=exp.guide, labels={"mode": m, "strategy": s, "part": "turns",
                                                                     "powers": s == "greedy"}))
            off = r.replace(anxiety_threshold=NO_ANXIETY)
            jobs.append(Job(f"turnsoff_{m}", "turns", off, g.turns(exp.turns), exp.seed,
                            strategy="greedy", guide=exp.guide, labels={"mode": m, "strategy": "greedy", "part": "no_anxiety"}))
            jobs.append(Job(f"games_{m}", "games", r, g(exp.games), exp.seed, seat, labels={"mode": m, "part": "games"}))
        return jobs

    def summary_rows(self, facts: dict[str, Fact]) -> list[Row]:
        return rows_of(facts, anxiety_row)

    def fill(self, exp: AnxietyExperiment, data, sec: Section) -> None:
        haz_rows, turn_rows = _single_turns(data)
        loss_rows = _losses(data)
        game_rows = _whole_games(data)
        _turn_facts(sec, turn_rows, haz_rows)
        _loss_facts(sec, loss_rows)
        _game_facts(sec, game_rows)
        haz = pd.DataFrame(haz_rows)
        turns = pd.DataFrame(turn_rows)
        loss = pd.DataFrame(loss_rows)
        strats = list(dict.fromkeys(turns["strategy"]))
        modes = list(dict.fromkeys(turns["mode"]))
        _roll_table(sec, haz, turns, exp.guide)
        if len(loss):
            _loss_table(sec, loss)
        if game_rows:
            _games_table(sec, game_rows, strats)
        _situation_table(sec, situation_risk(data, modes))
        base = "8d8" if "8d8" in modes else modes[0]
        _turn_finding(sec, haz, turns, strats, base)
        if len(loss):
            _loss_finding(sec, loss, base)
        if game_rows:
            _games_finding(sec, game_rows, base)
        if self.want(exp, "per_roll"):
            greedy = "greedy" if "greedy" in strats else strats[0]
            sec.figures.append(Figure("per_roll", f"Risk of Anxiety at each roll, {greedy} strategy, by mode.",
                                      plot("hazard", haz[haz["strategy"] == greedy].assign(label=lambda d: d["mode"].map(_mode_name)))))
        if self.want(exp, "per_strategy"):
            sec.figures.append(Figure("per_strategy", "P(Anxiety) per turn by strategy and mode (95 % Wilson).",
                                      plot("grouped_rates", turns.assign(mode=turns["mode"].map(_mode_name)), group="strategy",
                                           category="mode", title="Angoisse per turn by strategy (single turns)", xlabel="dice mode",
                                           ylabel="P(Angoisse) per turn (%)")))


def _single_turns(data) -> tuple[list[dict], list[dict]]:
    """Per batch of single turns: the risk at each roll made (hazard) and per turn, beside the
    exact first-roll risk."""
    from ...exact import p_first_roll_anxiety

    haz_rows, turn_rows = [], []
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
                          "powers_off": j["labels"].get("powers") is False,
                          "first_roll_exact": exact1, "n": n})
    return haz_rows, turn_rows


def _losses(data) -> list[dict]:
    """The squares per turn the Angoisse costs greedy: the same turns with it on and off."""
    loss_rows = []
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
    return loss_rows


def _whole_games(data) -> list[dict]:
    """The Angoisse in whole games: per game, the Lion's rescues, per strategy."""
    game_rows = []
    for j in data.select(part="games"):
        m = j["labels"]["mode"]
        df = data.frame(j["key"])
        lr, llo, lhi = M.ratio_interval(df["lion_rescues"], df["anxieties"])
        ag, aglo, aghi = t_interval(df["anxieties"].to_numpy(float))
        st = M.strategy_table(df)
        game_rows.append({"mode": m, "games": len(df), "lion": lr, "lion_low": llo, "lion_high": lhi,
                          "anx": ag, "anx_low": aglo, "anx_high": aghi, "strategies": st})
    return game_rows


def _turn_facts(sec: Section, turn_rows: list[dict], haz_rows: list[dict]) -> None:
    for r in turn_rows:
        m, s_ = r["mode"], r["strategy"]
        sec.fact(f"anxiety.per_turn.{m}.{s_}", f"P(Angoisse du Héron) per turn, {s_}, {_mode_name(m)} (single turns)",
                 r["rate"], r["low"], r["high"], r["n"], "share", n_unit="single turns",
                 note="fresh state, guide Loup (no Lion rescue)" + ("; one-shot powers off (no fresh-power artefact)"
                                                                   if r.get("powers_off") else ""))
        sec.fact(f"anxiety.first_roll_exact.{m}", f"P(Angoisse) on the first roll, exact, {_mode_name(m)}",
                 r["first_roll_exact"], r["first_roll_exact"], r["first_roll_exact"], 0, "share", n_unit="exact enumeration")
    for r in haz_rows:
        sec.fact(f"anxiety.roll.{r['mode']}.{r['strategy']}.{r['roll']}",
                 f"P(Angoisse) at roll {r['roll']} given the roll is made, {r['strategy']}, {_mode_name(r['mode'])}",
                 r["rate"], r["low"], r["high"], r["reached"], "share", n_unit="rolls made")


def _loss_facts(sec: Section, loss_rows: list[dict]) -> None:
    for r in loss_rows:
        sec.fact(f"anxiety.cost.{r['mode']}", f"squares per turn the Angoisse costs a greedy player, {_mode_name(r['mode'])}",
                 r["diff"], r["low"], r["high"], r["n"], "squares per turn", n_unit="paired single turns", p=r["p"])


def _game_facts(sec: Section, game_rows: list[dict]) -> None:
    for r in game_rows:
        m = r["mode"]
        sec.fact(f"anxiety.lion_rescue.{m}", f"share of Angoisses the Lion guide rescues in whole games, {_mode_name(m)}",
                 r["lion"], r["lion_low"], r["lion_high"], r["games"], "share", note="ratio over games, clustered by game")
        for _, st in r["strategies"].iterrows():
            sec.fact(f"anxiety.games_per_turn.{m}.{st['strategy']}",
                     f"Angoisse per turn in whole games, {st['strategy']}, {_mode_name(m)} (strategies rotated)",
                     st["anxiety_per_turn"], st["anxiety_low"], st["anxiety_high"], r["games"], "share",
                     note="ratio over games, clustered by game")


def _roll_table(sec: Section, haz: pd.DataFrame, turns: pd.DataFrame, guide: str) -> None:
    disp = []
    for (m, s), sub in haz.groupby(["mode", "strategy"], sort=False):
        row = {"mode": m, "strategy": s}
        for _, r in sub.iterrows():
            row[f"roll {r['roll']}"] = pct_ci(r["rate"], r["low"], r["high"], 2)
        tr = turns[(turns["mode"] == m) & (turns["strategy"] == s)].iloc[0]
        row["per turn"] = pct_ci(tr["rate"], tr["low"], tr["high"], 2)
        row["roll 1 exact"] = pct(tr["first_roll_exact"], 2)
        disp.append(row)
    disp = pd.DataFrame(disp)
    disp["mode"] = disp["mode"].map(_mode_name)
    disp = disp.set_index(["mode", "strategy"])
    sec.tables.append(Table("P(Angoisse du Héron) at each roll, given the roll is made, and per turn", disp,
                            note=f"Single turns from a fresh state, guide {guide} (no Lion rescue); n = {int(turns['n'].iloc[0]):,} turns per row. "
                                 "Roll 1 has an exact value (exactly the anxiety threshold of herons, below the Pond).",
                            data=haz))


def _loss_table(sec: Section, loss: pd.DataFrame) -> None:
    sec.tables.append(Table("Squares lost to the Angoisse (greedy): advance per turn with the Angoisse on vs off, same seeds", _disp({
        "turns": loss["n"].map("{:,}".format),
        "advance with Anxiety": loss["a"].map("{:.3f}".format),
        "advance without": loss["b"].map("{:.3f}".format),
        "lost per turn [95 % CI]": [num_ci(r["diff"], r["low"], r["high"], 3) for _, r in loss.iterrows()],
    }, index=pd.Index(loss["mode"].map(_mode_name), name="mode")), data=loss))


def _games_table(sec: Section, game_rows: list[dict], strats: list[str]) -> None:
    gdisp = _disp({
        "games": [f"{r['games']:,}" for r in game_rows],
        "Anxieties per game": [num_ci(r["anx"], r["anx_low"], r["anx_high"]) for r in game_rows],
        "Lion rescues / Anxiety": [pct_ci(r["lion"], r["lion_low"], r["lion_high"]) for r in game_rows],
    }, index=pd.Index([_mode_name(r["mode"]) for r in game_rows], name="mode"))
    for s in strats:
        vals = []
        for r in game_rows:
            st = r["strategies"].set_index("strategy")
            vals.append(pct_ci(st.at[s, "anxiety_per_turn"], st.at[s, "anxiety_low"], st.at[s, "anxiety_high"], 2) if s in st.index else "—")
        gdisp[f"Anxiety / turn, {s}"] = vals
    sec.tables.append(Table("The Angoisse in whole games (strategies rotated over the seats)", gdisp))


def _situation_table(sec: Section, sit: pd.DataFrame) -> None:
    """The exact risk by situation (Hérons reserved x free dice rerolled): table and facts."""
    if not len(sit):
        return
    cols = [c for c in sit.columns if c.startswith("reroll")]
    disp_s = sit.assign(mode=sit["mode"].map(_mode_name)).set_index(["mode", "herons reserved"])[cols].map(
        lambda x: pct(x, 1) if x == x else "—")
    sec.tables.append(Table("Risk of the Angoisse by situation: herons already reserved × free dice rerolled (exact)",
                            disp_s, data=sit,
                            note="P(the reroll brings the reserved herons to the Angoisse threshold) = P(Binomial(free dice, "
                                 "p) ≥ threshold − reserved), with p the chance a die shows a Héron (1/7 on a D8 after "
                                 "its free-reroll face; 1/6 on each 10 D6 die, which has one Héron face). With none reserved and "
                                 "every die rolled, the roll is the first one, where the Étang threshold or more "
                                 "Hérons open the Étang Paisible instead: that cell counts only threshold ≤ Hérons < "
                                 "Étang threshold (the exact first-roll risk). Exact, no simulation."))
    for _, r in sit.iterrows():
        for c in cols:
            if r[c] == r[c]:
                sec.fact(f"anxiety.situation.{r['mode']}.h{r['herons reserved']}.f{c.split()[1]}",
                         (f"P(Angoisse) on the first roll ({c.split()[1]} dice), "
                          if r["herons reserved"] == 0 and c == _last_cell(r, cols) else
                          f"P(Angoisse) when rerolling {c.split()[1]} free dice with {r['herons reserved']} Héron(s) "
                          "reserved, ") + _mode_name(r["mode"]), r[c], r[c], r[c], 0, "share", n_unit="exact")


def _turn_finding(sec: Section, haz: pd.DataFrame, turns: pd.DataFrame, strats: list[str], base: str) -> None:
    g = turns[(turns["mode"] == base) & (turns["strategy"] == ("greedy" if "greedy" in strats else strats[0]))].iloc[0]
    hz = haz[(haz["mode"] == base) & (haz["strategy"] == g["strategy"])].set_index("roll")
    sec.findings.append(
        f"On {_mode_name(base)}, a {g['strategy']} turn ends in Anxiety {pct_ci(g['rate'], g['low'], g['high'], 2)} of the time; "
        "the risk per roll made is " + ", ".join(f"{pct_ci(hz.at[k, 'rate'], hz.at[k, 'low'], hz.at[k, 'high'], 2)} at roll {k}" for k in hz.index)
        + f" (first roll exact {pct(g['first_roll_exact'], 2)}).")


def _loss_finding(sec: Section, loss: pd.DataFrame, base: str) -> None:
    lb = loss.set_index("mode").loc[base] if base in set(loss["mode"]) else loss.iloc[0]
    sec.findings.append(f"Anxiety costs a greedy player {num_ci(lb['diff'], lb['low'], lb['high'], 3)} squares per turn on "
                        f"{_mode_name(base)} ({100 * lb['diff'] / lb['b']:.1f} % of its advance without Anxiety).")


def _games_finding(sec: Section, game_rows: list[dict], base: str) -> None:
    gr = next((r for r in game_rows if r["mode"] == base), game_rows[0])
    sec.findings.append(f"In whole games the Lion rescues {pct_ci(gr['lion'], gr['lion_low'], gr['lion_high'])} of Anxieties "
                        f"({gr['anx']:.2f} Anxieties per game on {_mode_name(gr['mode'])}).")



def situation_risk(data, modes) -> pd.DataFrame:
    """Exact P(Angoisse on the next reroll) for each mode, herons reserved h < threshold, and
    free dice f rerolled: P(Binomial(f, p) >= threshold - h), p = a die's Héron share (dice of
    a mode must share it; otherwise the mode is left out)."""
    from scipy.stats import binom

    rows = []
    for m in modes:
        key = next((j["key"] for j in data.select(mode=m)), None)
        if key is None:
            continue
        rules = data.rules(key)
        shares = {die.count(6) / len(die) for die in rules.dice} if rules.dice else set()
        if len(shares) != 1:
            continue
        p = shares.pop()
        thr, pond = int(rules.anxiety_threshold), int(rules.pond_threshold)
        n = len(rules.dice)
        for h in range(thr):
            row = {"mode": m, "herons reserved": h}
            for f in range(1, n + 1):
                if f > n - h:
                    row[f"reroll {f}"] = float("nan")
                elif h == 0 and f == n:
                    # every die with none reserved is the first roll: pond or more Hérons open the
                    # Étang Paisible instead, so the Angoisse needs threshold <= herons < pond
                    row[f"reroll {f}"] = float(binom.cdf(pond - 1, f, p) - binom.cdf(thr - 1, f, p)) if pond > thr else 0.0
                else:
                    row[f"reroll {f}"] = float(binom.sf(thr - h - 1, f, p))
            rows.append(row)
    return pd.DataFrame(rows)


def _last_cell(row, cols) -> str | None:
    """The last finite cell of a situation row: with none reserved, the roll of every die."""
    finite = [c for c in cols if row[c] == row[c]]
    return finite[-1] if finite else None


# ---------------------------------------------------------------- the executive page's rows
def anxiety_row(facts: dict[str, Fact]) -> Row | None:
    """The Angoisse du Héron: its rate, its cost, and what the threshold does to length."""
    F = facts.get
    at, cost = F("anxiety.per_turn.8d8.greedy"), F("anxiety.cost.8d8")
    s25 = F("anxiety.situation.8d8.h2.f5")
    s4 = F("sensitivity.anxiety4.length_rel")
    if at:
        answer = (f"A greedy turn on 8 D8 ends in the Angoisse {pc(at.estimate, 0)} of the time"
                  + (f", which costs {cost.estimate:.2f} squares per turn" if cost else "")
                  + (f"; with two Hérons reserved, rerolling 5 dice risks it {pc(s25.estimate, 0)} of the time" if s25 else "")
                  + ".")
        action = _anxiety_action(cost, s4)
        return Row("Angoisse du Héron: the risk from the third Héron", answer, show(at),
                   f"interval ±{100 * (at.high - at.low) / 2:.2f} points; the rates of the report are reconciled below",
                   action, at.id, "anxiety", True, key="angoisse", order=3)


def _anxiety_action(cost: Fact | None, s4: Fact | None) -> str:
    """What the Angoisse threshold does to the length of a game, read against the ±5 % margin:
    "a real brake" only when raising the threshold shortens games beyond the margin."""
    if not s4:
        return "Test a threshold of 4 Hérons in the sensitivity table."
    reading = equivalence(s4.estimate, s4.low, s4.high, LENGTH_MARGIN)
    change = f"moving the threshold to 4 Hérons changes game length by {rel(s4)}"
    if reading == "real and relevant" and s4.high < 0 and (cost is None or cost.low > 0):
        return f"The third Héron is a real brake: {change}."
    if reading in ("negligible", "real but small"):
        return f"The third Héron hardly sets the pace: {change}, within the ±5\u00a0% margin."
    return f"{change[0].upper()}{change[1:]} ({reading}, margin ±5\u00a0%)."
