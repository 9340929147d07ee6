"""What to change for each problem of the verdict: its lab study's answer (issue 30, item 2).

Each problem the verdict names (guides, length, first player at every count 2–7, comebacks, the
Étang's roller; the modes' length for 7 D8 and 10 D6) has a study declared in
``experiments/tune-<name>.toml``; what the report says a designer should change **is** that
study's answer (:func:`heron_sim.lab.outputs.study_answers`, read from
``results/tune-<name>/summary.json``): the rulings already meet the goal; the smallest fix that
passes, with its booklet text and rule sheet; or "no change in this space passes", with the
closest, why it fails and whether more games could change that. A study declared and not run
yet says so; the report never guesses its answer.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

#: The studies, in the verdict's words: (study name, the problem in words, the answers' anchors
#: of the verdict's problems it answers). The tune file is ``experiments/tune-<name>.toml``.
STUDIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("guides", "The guides: every guide's win rate when dealt within the margin of the fair share",
     ("q-guide-balance", "q-rungs", "q-powers")),
    ("serpent", "One guide: the Serpent's holder within the margin of the fair share", ("q-guide-balance",)),
    ("length", "The length at every player count 2–7", ("q-length",)),
    ("first-player", "The first player, at every player count 2–7", ("q-first-player",)),
    ("comebacks", "Comebacks: the player last at mid-game", ("q-decisiveness",)),
    ("pond", "The Étang's roller and its push-back", ("q-etang",)),
    ("7d8", "The test plan's dice modes: 7 D8 as long as 8 D8", ("q-modes",)),
    ("10d6", "The test plan's dice modes: 10 D6 keeping its ten dice", ("q-modes",)),
)
#: The studies of the test plan's questions that are no problem of the verdict (the dice modes:
#: the verdict's "q-modes" line is that every 8 D8 game finishes).
NOT_IN_VERDICT = ("7d8", "10d6")

#: The answers' words (one per state of a study).
STATES = ("no change needed", "fix", "keep the rulings", "no fix", "not run")


@dataclass
class Change:
    """One study's answer as the brief shows it."""

    study: str                 # the study's name (tune-<name>)
    problem: str               # the problem in words
    anchors: tuple[str, ...]   # the answers (q-…) of the verdict it answers
    state: str                 # one of STATES
    answer: str                # the answer in one paragraph (plain text)
    links: list[tuple[str, str]] = field(default_factory=list)  # (words, href relative to the page)
    verdict: str = ""          # where its problems stand in the verdict ("wrong: 2, 3", "fine", …)
    rulings_meet: bool | None = None  # whether the rulings meet the study's goals at all its tables (None: not run)

    @property
    def slug(self) -> str:
        return f"change-{self.study}"

    @property
    def tune_file(self) -> str:
        return f"experiments/tune-{self.study}.toml"

    @property
    def study_words(self) -> str:
        """The study in a few words, as the annex's answers name it."""
        return self.problem[0].lower() + self.problem[1:]

    def link_words(self, among: int = 1) -> str:
        """A link to this study's answer: "what to change", named ("what to change: 7 D8 as long
        as 8 D8") when it is one of several."""
        return "what to change" if among <= 1 else f"what to change: {self.problem.split(': ')[-1]}"

    #: the answer in a few words (the annex's answers table), set with the answer
    short: str = ""
    #: the answer's words that are the study's own, by language (``{"rules": {"en": …, "fr": …},
    #: "variant": {"en": "t60", "fr": "t60"}}``): the French brief fills them into the
    #: catalogue's phrase (:func:`heron_sim.i18n.phrase`), so that one entry serves every study
    slots: dict = field(default_factory=dict)
    #: the held-out check of its variant ranked first (:func:`heron_sim.lab.outputs.held_out_of`:
    #: ``held_out``, ``table_names``, ``tables_words``, ``failures``…), None without one
    held_out: dict | None = None
    #: where the study was measured, in English words ("measured at 8 tables, 2 to 7 players")
    measured: str = ""


def _rel(path: str | Path, out_dir: Path) -> str:
    return Path(os.path.relpath(Path(path), out_dir)).as_posix()


def _num(x) -> float:
    return math.nan if x is None else float(x)


def _objective_words(o: dict) -> str:
    """An objective of the closest variant against its goal: "guide spread …: 1.61 pt [1.56 pt,
    2.01 pt] against a goal of at most 1.00 pt (the rulings: 5.40 pt)"."""
    from .lab_page import _loss, metric_words

    head = metric_words(o["metric"], "en").split(" (")[0]
    # a one-sided goal's loss is how far the figure lies past its bound, not the figure itself
    side = o.get("objective") or ""
    head += (" below its target by" if "no less than" in side else " above its target by" if "no more than" in side
             else "")
    shown = f"{_loss(o, 'loss', 'en')} [{_loss(o, 'loss_low', 'en')}, {_loss(o, 'loss_high', 'en')}]"
    goal = o.get("goal")
    goal_w = ""
    if goal is not None:
        goal_w = " against a goal of at most " + _loss({**o, "g": goal}, "g", "en")
    return f"{head} {shown}{goal_w} (the rulings: {_loss(o, 'base_loss', 'en')})"


def _why(first: dict) -> tuple[str, str]:
    """Why the closest variant fails (each goal it misses) and whether more games could change
    that: ("", "") when it has no goal to miss."""
    missed = [o for o in first.get("objectives", []) if o.get("goal") is not None and not o.get("goal_met_95")]
    if not missed:
        better = [o for o in first.get("objectives", []) if o.get("verdict") == "better"]
        if not better:
            return ("no variant is shown better than the rulings on any objective (the study sets no goal to pass)",
                    "no: more games could only narrow intervals that already hold zero")
        return "", ""
    why = "; ".join(_objective_words(o) for o in missed)
    more = []
    for o in missed:
        lo, goal = _num(o.get("loss_low")), _num(o.get("goal"))
        from .lab_page import metric_words

        head = metric_words(o["metric"], "en").split(" (")[0]
        if o.get("decision"):
            need = o.get("games_needed") if "not decisive" in o["decision"] or "undecided" in o["decision"] else None
            more.append(f"{head}: {o['decision']}" + (f"; about {int(need):,} games a table would decide it if the "
                                                      "estimate held" if need else ""))
        elif math.isfinite(lo) and math.isfinite(goal) and lo > goal:
            more.append(f"{head}: decisive, its whole 95 % interval lies past the goal, so more games would not "
                        "change the answer")
        else:
            more.append(f"{head}: not decisive, its interval reaches the goal, so more games could change the answer")
    return why, "; ".join(more)


def _changes_words(changes: dict) -> str:
    from .lab_page import changes_words

    return changes_words(changes, "en")


def study_changes(results_root: str | Path, out_dir: str | Path | None = None, lab_page: bool = True) -> list[Change]:
    """Every study of :data:`STUDIES` with its answer, from ``results_root/tune-<name>/`` (links
    relative to ``out_dir``, default the same folder); ``lab_page``: link each study's part of the
    lab's page (written beside the report)."""
    from ..lab.outputs import study_answers
    from .lab_page import FILES

    root = Path(results_root)
    out_dir = Path(out_dir) if out_dir is not None else root
    answers = {a["study"]: a for a in study_answers(root)} if root.is_dir() else {}
    out = []
    for name, problem, anchors in STUDIES:
        a = answers.get(name)
        tune = f"experiments/tune-{name}.toml"
        if a is None:
            out.append(Change(name, problem, anchors, "not run",
                          f"Not run yet: the study is declared in {tune} (heron-sim tune {tune}); until it runs, "
                          "the report has no measured fix for this problem and proposes none.",
                          short="not run yet."))
            continue
        v = a.get("variant") or {}
        first = _finalist(root, name, v.get("id")) if v else None
        changes = {c["key"]: c["new"] for c in (first or {}).get("rule_changes", [])}
        n = v.get("n_changed") or len(changes)
        rules = f"{n} rule{'s' if n != 1 else ''}: {_changes_words(changes) if changes else v.get('changes')}"
        tables = _tables_words(a)
        state = a["answer"]
        if state == "no change needed":
            text = f"No change needed: the rulings already meet every goal of the study with 95 % confidence, {tables}."
        elif state == "fix":
            text = (f"Smallest change that passes (every goal met with 95 % confidence at every table): variant "
                    f"{v['id']} ({rules}), {tables}.")
            if not v.get("holm", True):
                text += (f" It passes each of its goal tests, but not after Holm's correction over the "
                         f"{v.get('holm_family', 0)} goal tests of the study's finalists: replay it on fresh seeds "
                         "(heron-sim replay) before adopting it.")
        else:
            why, more = _why(first) if first else ("", "")
            keep = state == "keep the rulings" or (why.startswith("no variant is shown better"))
            lead = ("No variant is shown better than the rulings on any objective: on this evidence, keep the rulings"
                    if keep else "No change in this space passes")
            if keep:
                why = ""
            text = f"{lead}; the closest: variant {v['id']} ({rules}), {tables}." if v else f"{lead}."
            if why:
                text += f" Why it fails: {why}."
            if more:
                text += f" More games? {more[0].upper() + more[1:]}."
        moved = _moved_words(a, v.get("moves_unfairness") or [])
        if moved:
            text += f" It moves the unfairness elsewhere: {moved}."
        if state == "fix" and first:  # an advised change says what else it does, at every table
            side = side_effects_words(first)
            if side:
                text += f" {side}"
        links = []
        if lab_page:
            links.append(("the study", f"{FILES['en']}#{name}"))
        for words, key in (("booklet text (French)", "fr.md"), ("booklet text (English)", "en.md")):
            book = (v.get("booklet") or {}).get(key)
            if book:
                links.append((words, _rel(book, out_dir)))
        sheet = (v.get("sheets") or {}).get("html")
        if sheet:
            links.append(("rule sheet", _rel(sheet, out_dir)))
        # the variant's id as a code span: one catalogue entry whichever variant a study names
        vid = f"`{v.get('id')}`"
        short = {"no change needed": "no change needed.",
                 "fix": f"the smallest change that passes is variant {vid} ({n} rule{'s' if n != 1 else ''})."}.get(
            state, f"no variant shown better than the rulings: keep them (closest: variant {vid})." if text.startswith("No variant")
            else f"no change in its space passes (closest: variant {vid}).")
        slots = {}
        if v.get("id"):
            slots["variant"] = {"en": f"variant {v['id']}", "fr": f"la variante {v['id']}"}
        if changes:
            from .lab_page import changes_words

            slots["rules"] = {lg: changes_words(changes, lg) for lg in ("en", "fr")}
        out.append(Change(name, problem, anchors, state, text, links, short=short, slots=slots,
                          rulings_meet=a.get("rulings_meet"), held_out=a.get("held_out"), measured=tables))
    return out


def _moved_words(a: dict, moved: list[dict]) -> str:
    """Where the variant moves the unfairness (the study's flags), in a few words, one phrase per
    seat or guide: "seat 2 at 3 players (-0.4 points)", "the Snake (Serpent) guide at 6 tables
    (+0.4 to +0.6 points)"."""
    import re

    where = {}
    for name, d in zip(a.get("tables") or [], a.get("tables_described") or []):
        m = re.match(r"(\d+) players(?:: (\w+)$)?", str(d))
        where[name] = (f"the {m.group(1)}-player {m.group(2)} table" if m and m.group(2) else
                       f"{m.group(1)} players" if m else name)
    groups: dict[str, list[dict]] = {}
    for m in moved:
        groups.setdefault(str(m.get("what", "?")), []).append(m)
    parts = []
    for what, ms in groups.items():
        ds = [100 * m["diff"] for m in ms if isinstance(m.get("diff"), (int, float)) and math.isfinite(m["diff"])]
        if len(ms) == 1:
            parts.append(f"{what} at {where.get(ms[0].get('table'), ms[0].get('table'))}"
                         + (f" ({ds[0]:+z.1f} points)" if ds else ""))
        else:
            span = (f"{min(ds):+z.1f} points" if min(ds) == max(ds) else f"{min(ds):+z.1f} to {max(ds):+z.1f} points") if ds else ""
            parts.append(f"{what} at {len(ms)} tables" + (f" ({span})" if span else ""))
    return "; ".join(parts)


#: The side effects an advised change lists (issue 58 item 5), in the study's metrics: (metric, words,
#: scale, unit). Length as a relative change; the rates and win rates in points.
SIDE_EFFECTS = (("length", "length", 100.0, "%"), ("dead_turn_rate", "dead turns", 100.0, "points"),
                ("anxiety_rate", "Angoisse", 100.0, "points"), ("comeback", "comebacks", 100.0, "points"))
_GUIDES = ("loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron")
_GUIDE_NAMES = ("Loup", "Taureau", "Serpent", "Lion", "Aigle", "Cerf", "Héron")


def side_effects_words(finalist: dict) -> str:
    """What else an advised change does, at every table of its study, from the study's own
    paired differences (``effects_by_scenario``: each metric's difference and whether it differs
    from the rulings with 95 % confidence): the length, dead turns, Angoisse, comebacks, each guide
    and each seat, in that order, each with the span of its differences where the study shows one
    and at how many of the tables, or "unchanged" where it shows none at any table."""
    by = finalist.get("effects_by_scenario") or {}
    if not by:
        return ""
    tables = len(by)
    seats = max((int(e["metric"].split("_")[1]) for es in by.values() for e in es
                 if e.get("metric", "").startswith("seat_") and e["metric"].endswith("_win_rate")), default=-1)
    wanted = list(SIDE_EFFECTS) + [(f"guide_{g}_win_rate", f"the {n} guide", 100.0, "points")
                                   for g, n in zip(_GUIDES, _GUIDE_NAMES)] + [
        (f"seat_{k}_win_rate", f"seat {k + 1}", 100.0, "points") for k in range(seats + 1)]
    items = []
    for metric, words, scale, unit in wanted:
        ds = []
        seen = False
        for es in by.values():
            for e in es:
                if e.get("metric") != metric:
                    continue
                seen = True
                d = e.get("diff")
                if e.get("significant") == "differs" and isinstance(d, (int, float)) and math.isfinite(d):
                    if unit == "%":
                        b = e.get("base")
                        if not isinstance(b, (int, float)) or not b:
                            continue
                        d = d / b
                    ds.append(scale * d)
        if not seen:
            continue
        if not ds:
            items.append(f"{words} unchanged")
            continue
        lo, hi = min(ds), max(ds)
        dp = 2 if max(abs(lo), abs(hi)) < 0.095 else 1  # a difference shown to be real never reads "+0.0"
        span = f"{lo:+z.{dp}f} {unit}" if f"{lo:+z.{dp}f}" == f"{hi:+z.{dp}f}" else f"{lo:+z.{dp}f} to {hi:+z.{dp}f} {unit}"
        items.append(f"{words} {span} ({len(ds)} of {tables} tables)")
    if not items:
        return ""
    items[0] = items[0][0].upper() + items[0][1:]
    return (f"What else it changes against the rulings, at its {tables} tables (a difference shown with 95 % "
            f"confidence). " + "; ".join(items) + ".")


def _tables_words(a: dict) -> str:
    """Where a study was measured, short: "measured at 8 tables, 2 to 7 players"."""
    import re

    counts = sorted({int(m.group(1)) for d in a.get("tables_described") or []
                     if (m := re.match(r"(\d+) players", str(d)))})
    n = len(a.get("tables") or [])
    if not counts:
        return f"measured at {n} tables"
    span = f"{counts[0]} to {counts[-1]} players" if len(counts) > 1 else f"{counts[0]} players"
    if len(counts) > 1 and counts != list(range(counts[0], counts[-1] + 1)):
        span = ", ".join(map(str, counts[:-1])) + f" and {counts[-1]} players"
    return f"measured at {n} tables, {span}"


def _finalist(root: Path, name: str, vid) -> dict | None:
    import json

    path = root / f"tune-{name}" / "summary.json"
    try:
        s = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return next((f for f in s.get("finalists") or [] if f.get("id") == vid), None)


def attach(changes: list[Change], wrong: list, fine: list, open_: list) -> list[Change]:
    """Each study's place in the verdict (``verdict``: "wrong: 1, 3" — the problems' numbers —,
    "not settled", "fine"), ordered as the verdict ranks its problems (the studies of problems it
    does not name last)."""
    rank = {}
    for c in changes:
        if c.study in NOT_IN_VERDICT:
            c.verdict = "a question of the test plan, not a problem of the verdict"
            rank[c.study] = 250
            continue
        nums = [i for i, p in enumerate(wrong, 1) if p.anchor in c.anchors]
        if nums:
            c.verdict = "past its margin: verdict " + ", ".join(f"#{i}" for i in nums)
            rank[c.study] = min(nums)
        elif any(p.anchor in c.anchors for p in open_):
            c.verdict = "not settled by these games"
            rank[c.study] = 100
        elif any(p.anchor in c.anchors for p in fine) and c.rulings_meet is False:
            # the verdict's one figure meets the target, but the study finds tables where the rulings do not
            c.verdict = "within its target in the verdict's figure, but not at every table of its study"
            rank[c.study] = 150
        elif any(p.anchor in c.anchors for p in fine):
            c.verdict = "within its target"
            rank[c.study] = 200
            if c.state == "not run":
                c.answer = ("No change needed today: the measure is within its target (the verdict). A study to check that "
                            f"other changes keep it so is declared in {c.tune_file} and not run yet.")
        else:
            c.verdict = "not in the verdict"
            rank[c.study] = 300
    return sorted(changes, key=lambda c: rank[c.study])


def action_words(action: str, studies: list[Change]) -> str:
    """A measured-remedy sentence of the plan's own batches (an answer's "what to do") where a
    lab study answers the same problem: "no tested remedy fixes this" speaks of the plan's
    one-key batches only, so where a study finds a fix (or no change needed) it says so instead
    of contradicting it."""
    if not any(c.state in ("fix", "no change needed") for c in studies):
        return action
    return action.replace("No tested remedy fixes this",
                          "None of the plan's own one-key batches fixes this (the lab's study does: below)")


def study_of(anchor: str, changes: list[Change], verdict: bool = False) -> list[Change]:
    """The studies that answer the question whose answer is ``anchor`` (``verdict``: only those
    of the verdict's problems)."""
    return [c for c in changes if anchor in c.anchors and not (verdict and c.study in NOT_IN_VERDICT)]
