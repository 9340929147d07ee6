"""The executive page's vocabulary, shared by the experiment kinds (each writes the rows of its
own questions: ``ExperimentKind.summary_rows(facts)``) and the report (which gathers them:
:func:`heron_sim.report.executive.build_rows`): a :class:`Row`, how a fact is shown, how a share
is read against its margin, and the remedies the sensitivity batches measured.

Every sentence is built from the facts at render time; a question whose facts are missing (an
experiment left out of the plan) is left out rather than guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..sections import Fact
from .judge import SHARE_MARGIN, TARGETS, Problem
from .targets import DEFAULT_PATH
from .stats import equivalence


#: The target length of a 4-player game in minutes at the table (Ludii's IdealDuration), from the
#: designer's targets (``length_minutes``; 30 to 45 minutes, assumed until the designer states one).
TARGET_MINUTES = TARGETS.minutes(4)

MODE_NAMES = {"8d8": "8 D8", "7d8": "7 D8", "10d8": "10 D8", "10d6": "10 D6"}
MODE_ORDER = ("8d8", "7d8", "10d8", "10d6")
GUIDES = {"loup": "Loup", "taureau": "Taureau", "serpent": "Serpent", "lion": "Lion", "aigle": "Aigle",
          "cerf": "Cerf", "heron": "Héron"}


@dataclass
class Row:
    """One question of the executive page, answered from the facts."""

    question: str
    answer: str
    figure: str
    sure: str
    action: str
    fact_id: str  # the fact shown in ``figure`` (the browser test checks it against findings.json)
    #: the section that holds the details: the kind names the head of its facts ("modes"),
    #: :func:`heron_sim.report.executive.build_rows` turns it into that section's anchor
    source: str
    plan: bool    # a question of the seed's test plan (else a balance question)
    #: the row's anchor without its "q-" (the verdict links to it); default: from the question
    key: str = ""
    #: where the row stands on the page (the seed's test plan 1-5, the balance questions 6-13;
    #: a new kind's question without one comes after them, in the order of the kinds' names)
    order: float = 1000.0

    @property
    def slug(self) -> str:
        """The row's anchor (the verdict links to it)."""
        return "q-" + (self.key or re.sub(r"\W+", "-", self.question.lower()).strip("-"))



#: The guide spread, one definition and one name for the report, the lab and the explorer.
GUIDE_SPREAD_WORDS = "guide spread (largest gap between a guide's win rate when dealt and the fair share)"


def margin_words(margin: float = SHARE_MARGIN) -> str:
    """A share's margin as the page says it: "±1 point" (``margin`` a fraction: 0.01)."""
    pts = 100 * margin
    return f"±{pts:g} point" + ("" if pts == 1 else "s")


def targets_file() -> str:
    """Where the designer's targets were read from, as the page names it."""
    if TARGETS.path is None:
        return "heron-sim's defaults (no experiments/targets.toml)"
    p = Path(TARGETS.path)
    return "experiments/targets.toml" if p.resolve() == DEFAULT_PATH.resolve() else str(p)


def assumed_note(*names: str) -> str:
    """What a verdict resting on the targets ``names`` says when some are still assumed ("" when
    the designer set them all), the targets in words: "assumed: the share margin
    (experiments/targets.toml)"."""
    a = TARGETS.assumed(*names)
    if not a:
        return ""
    words = [TARGETS.items[n].key.label or n.replace("_", " ") for n in a]
    return f"assumed: {', '.join(words)} ({targets_file()})"


def pc(x: float, d: int = 1) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:.{d}f}\u00a0%"


def show(f: Fact) -> str:
    """A fact as the page shows it: estimate [interval], n."""
    if f.unit == "share":
        d = 2 if abs(f.estimate) < 0.1 else 1
        est = pc(f.estimate, d)
        ci = f" [{100 * f.low:.{d}f}, {100 * f.high:.{d}f}]" if finite(f.low, f.high) and f.n else ""
    elif f.unit == "share difference":
        est = f"{100 * f.estimate:+z.1f} points"
        ci = f" [{100 * f.low:+z.1f}, {100 * f.high:+z.1f}]" if finite(f.low, f.high) else ""
    elif f.unit == "relative change":
        est = f"{100 * f.estimate:+z.1f} %"
        ci = f" [{100 * f.low:+z.1f}, {100 * f.high:+z.1f}]" if finite(f.low, f.high) else ""
    else:
        est = f"{f.estimate:.2f} {f.unit}"
        ci = f" [{f.low:.2f}, {f.high:.2f}]" if finite(f.low, f.high) and f.n else ""
    n = f", n = {f.n:,} {f.n_unit}" if f.n else (f" ({f.n_unit})" if f.n_unit else "")
    return est + ci + n


def finite(*xs) -> bool:
    return all(x is not None and math.isfinite(x) for x in xs)


def points_from(f: Fact, ref: float) -> tuple[float, float, float]:
    return 100 * (f.estimate - ref), 100 * (f.low - ref), 100 * (f.high - ref)


def sure_share(f: Fact, ref: float, what: str | None = "fair share") -> str:
    d, lo, hi = points_from(f, ref)
    reading = equivalence(d, lo, hi, 100 * SHARE_MARGIN)
    p = f"; p {'< 0.001' if f.p < 0.001 else f'= {f.p:.3f}'}" if finite(f.p) else ""
    where = f" from the {what}" if what else ""
    assumed = ", assumed" if TARGETS.assumed("share_margin") else ""
    return f"{d:+z.1f} points{where} [{lo:+z.1f}, {hi:+z.1f}]: {reading} (margin {margin_words()}{assumed}){p}"


def rel(f: Fact) -> str:
    return f"{100 * f.estimate:+z.0f}\u00a0% [{100 * f.low:+z.0f}, {100 * f.high:+z.0f}]"


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
        parts.append(f"length {rel(ln)}")
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


def underpowered(tried: list[Fact], margin: float) -> str:
    """When the remedy batches were too small for any fix to pass (issue 30 item 5): a share
    shown within ±``margin`` of fair needs a 95 % interval narrower than the margin, and these
    are wider. Says so, with the games a batch would need for half-widths of half the margin
    (so a remedy whose estimate lies within half the margin of fair can pass); "" otherwise."""
    widths = [((f.high - f.low) / 2, f.n) for f in tried
              if f is not None and math.isfinite(f.low) and math.isfinite(f.high) and f.n]
    if not widths:
        return ""
    h, n = sorted(widths)[len(widths) // 2]
    if h < margin:
        return ""
    need = int(math.ceil(n * (h / (margin / 2)) ** 2 / 1000.0)) * 1000
    return (f" These batches could not show a fix: at {n:,} games their 95 % intervals are ±{100 * h:.1f} points "
            f"wide, wider than the ±{100 * margin:g}-point margin, so no remedy could pass; about {need:,} games a "
            "batch would be needed (the half-width shrinks as 1/√games): this is not evidence that no remedy works.")


def remedy(facts: dict[str, Fact], measure: str, fixed, describe, keys=None, score=None,
           margin: float | None = None) -> str:
    """The smallest played change that fixes a problem, with its effect, interval and side
    effects; or "no tested remedy fixes this; tried: …". ``measure``: the suffix of the
    variant's fact (``seat1``, ``weakest``, ``length``, …); ``fixed(fact)`` says whether the
    variant's figure is a fix; ``describe(fact)`` shows it. "Smallest": the fix that changes the
    game's length least (every change is one rules key). ``score(fact)`` (lower: closer to a fix)
    names the closest changes when many were tried and none fixes the problem. ``margin`` (a
    share's): when none fixes it, say whether the batches were large enough for a fix to pass
    (:func:`underpowered`)."""
    vs = variants(facts)
    if keys is not None:
        vs = {k: v for k, v in vs.items() if k in keys}
    if not vs:
        return "No remedy was played for this in the plan."
    table = facts.get("sensitivity.table")  # the one table of the remedy batches, said with every answer
    where = (f" at the remedy batches' one table ({int(table.estimate)} players, "
             f"{(table.note or '').removeprefix('seating: ')})" if table is not None else "")
    fixes = []
    for k, label in vs.items():
        f = facts.get(f"sensitivity.{k}.{measure}")
        if f is not None and fixed(f):
            ln = facts.get(f"sensitivity.{k}.length_rel")
            fixes.append((abs(ln.estimate) if ln else math.inf, k, label, f))
    if not fixes:
        power = underpowered([facts.get(f"sensitivity.{k}.{measure}") for k in vs], margin) if margin else ""
        return _no_fix(facts, vs, measure, describe, score).replace("fixes this", "fixes this" + where, 1) + power
    _, k, label, f = min(fixes, key=lambda t: t[0])
    side = side_effects(facts, k, skip=measure)
    return (f"Smallest tested change that fixes it{where}: {label} ({describe(f)}" + (f"; side effects: {side}" if side else "")
            + f"). {len(fixes)} of {len(vs)} changes tried fix it.")


def _no_fix(facts, vs, measure, describe, score) -> str:
    """"No tested remedy fixes this", with what each tried change did (or the closest)."""
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


def fair_of(f: Fact, default: float) -> float:
    m = re.search(r"fair ([0-9.]+)", f.note or "")
    return float(m.group(1)) if m else default



@dataclass
class Comeback:
    """The player last at mid-game against the designer's comeback floor (``comeback_floor`` ×
    the fair share): one-sided, only a shortfall counts; in points from the floor."""

    floor: float   # the floor, a share
    fair: float    # the fair share, 1 / players
    d: float
    low: float
    high: float
    size: float    # how far the interval lies below the floor, in margins (0: not below)
    fine: bool     # the whole interval lies above the floor less the margin

    @property
    def words(self) -> str:
        """The floor in words: "the comeback floor of 12.5 % (0.5 × the fair 25 %)"."""
        return f"the comeback floor of {pc(self.floor)} ({TARGETS['comeback_floor']:g} × the fair {pc(self.fair, 0)})"


def comeback(last: Fact) -> Comeback:
    """The comeback verdict of ``last`` (the player last at mid-game's win rate, "fair F" in its note)."""
    fair = fair_of(last, 0.25)
    floor = TARGETS["comeback_floor"] * fair
    d, lo, hi = points_from(last, floor)
    mg = 100 * SHARE_MARGIN
    size = -hi / mg if finite(hi) and hi < 0 else 0.0
    return Comeback(floor, fair, d, lo, hi, size, finite(lo) and lo >= -mg)


def rows_of(facts: dict[str, Fact], *questions) -> list[Row]:
    """The rows of ``questions`` (each a function ``facts -> Row | None``: None when its facts are
    missing) that the facts allow, in the order given."""
    return [r for q in questions if (r := q(facts)) is not None]


def problems_of(facts: dict[str, Fact], *questions) -> list[Problem]:
    """The verdict's problems of ``questions`` (each a function ``facts -> list[Problem]``: empty
    when its facts are missing), in the order given."""
    return [p for q in questions for p in q(facts)]


def at_order(order: float, problems: list[Problem]) -> list[Problem]:
    """``problems``, each placed at ``order`` among the verdict's (see :class:`Row`'s ``order``)."""
    for p in problems:
        p.order = order
    return problems


def is_fine(r: str) -> bool:
    """Whether a reading shows a problem as fine (inside its margin)."""
    return r in ("negligible", "real but small")
