"""The brief's first screen (issue 60 item 2, issue 58 item 6): one line per problem, the change
proposed beside it and the tables where it holds, before the details.

A problem is what one lab study answers (:data:`heron_sim.report.studies.STUDIES`): the verdict's
problems that share a study make one line (the guides: the weakest or strongest guide with the
range of its win rate across the skill levels, the other guides past the margin after it), a
problem no study answers its own. Each line says, in the page's language:

- the problem with its figure and 95 % interval, each figure a fact of ``results/findings.json``
  (:attr:`Line.facts`);
- the change the study proposes, in the booklet's words (never a rule's key), or that none is
  proposed (none of the changes tried passes, the rulings already meet every goal, no study),
  and the fix of any other study of the same problem after it (the guides' spread and one
  guide's holder);
- where it holds: at the tables its held-out check played (the tables in words, « 2 experts et 2
  débutants »), on its panel only, or not checked yet.

The lines are those of the verdict's problems past their margin (largest first), then those it
leaves open, then those within their target in the verdict's figure whose study finds tables
where the rulings miss it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..i18n import NBSP, interval, number

#: The first screen's own words (English message ids, their French in heron_sim/locale/fr.po).
TEXTS = (
    "At a glance: each problem, the change proposed beside it and the tables where it holds; the details follow.",
    "The details: every gap, largest first ({basis}):",
    "not settled", "within its target in the verdict's figure, not at every table of its study",
    "The {guide} guide is weak: its holder wins {low} to {high} depending on the skill level, against a fair {fair}",
    "The {guide} guide is strong: its holder wins {low} to {high} depending on the skill level, against a fair {fair}",
    "The {guide} guide is weak: its holder wins {rate}, against a fair {fair}",
    "The {guide} guide is strong: its holder wins {rate}, against a fair {fair}",
    "{low} for {low_rung}, {high} for {high_rung}",
    "also past the margin: the {guides} guide (weak, down to {rate})",
    "also past the margin: the {guides} guides (weak, down to {rate})",
    "also past the margin: the {guides} guide (strong, up to {rate})",
    "also past the margin: the {guides} guides (strong, up to {rate})",
    "Proposed change: {rules} (variant {variant})",
    "No change needed: the rulings already meet every goal of its study",
    "No change proposed: no change tried does better than the rulings; keep them",
    "No change proposed: none of the changes tried passes (the closest: variant {variant})",
    "No change proposed: its study has not run yet",
    "No change proposed: no study answers this problem yet",
    "holds at the {n} tables set aside ({tables})",
    "holds on its panel only: fails at the table set aside of {tables}",
    "holds on its panel only: fails at the tables set aside of {tables}",
    "not settled at the tables set aside of {tables}",
    "checked at the tables set aside, it fails at the table of {tables}",
    "checked at the tables set aside, it fails at the tables of {tables}",
    "{measured}; not yet checked at tables set aside",
    "novices", "casual players", "regulars", "experts", "champions",
    "for {problem}: {change}", "the change for {problem}: {holds}",
)

#: The skill ladder's rungs as the first screen names them (plural, they follow « for »).
RUNGS = {"novice": "novices", "casual": "casual players", "regular": "regulars", "expert": "experts",
         "champion": "champions"}

_DEALT = re.compile(r"(?:guides|rungs\.(\w+))\.when_dealt\.8d8\.(\w+)")


@dataclass
class Line:
    """One problem of the first screen, its words in the page's language (plain text)."""

    problem: str
    figure: str
    change: str
    holds: str = ""
    #: "wrong" (past its margin), "open" (not settled), "tables" (within its target in the
    #: verdict's figure, not at every table of its study)
    state: str = "wrong"
    anchor: str = ""            # the answer below (q-…) and the annex's detail
    study: str = ""             # the study's part of the brief (change-…), "" without one
    facts: list[str] = field(default_factory=list)  # the findings.json ids of its figures
    tag: str = ""               # "not settled", … in the page's language ("" for a problem past its margin)


def _pc(f, lang: str) -> str:
    return f"{number(100 * f.estimate, 1, lang)}{NBSP}%"


def _pci(f, lang: str) -> str:
    return interval(100 * f.estimate, 100 * f.low, 100 * f.high, 1, lang, " %")


def _joined(names: list[str], lang: str) -> str:
    """« Serpent, Taureau et Cerf » in the page's language."""
    return ", ".join(names[:-1]) + (" and " if lang == "en" else " et ") + names[-1] if len(names) > 1 else names[0]


def _guide_line(probs: list, facts: dict, w) -> tuple[str, str, list[str]] | None:
    """The guides' problems as one line: the guide furthest past the margin with the range of its
    win rate across the skill levels, the other guides past it after; None when the problems name
    no guide fact."""
    from ..analysis.executive import GUIDES, fair_of

    groups: dict[tuple[str, bool], list] = {}
    for p in probs:
        for fid in getattr(p, "facts", ()) or ():
            m = _DEALT.fullmatch(fid)
            if m and fid in facts:
                f = facts[fid]
                groups.setdefault((m.group(2), f.estimate < fair_of(f, 0.25)), []).append(p)
    if not groups:
        return None
    size = {k: max(p.size for p in ps) for k, ps in groups.items()}
    (g, weak) = max(groups, key=lambda k: size[k])
    shown = sorted({fid for p in groups[(g, weak)] for fid in p.facts if _DEALT.fullmatch(fid)})
    head = facts[shown[0]]
    fair = f"{number(100 * fair_of(head, 0.25), 0, w.lang)}{NBSP}%"
    # the range across the skill levels: every rung's figure of this guide, else the figures it rests on
    rungs = {m.group(1): facts[k] for k in facts if (m := _DEALT.fullmatch(k)) and m.group(1) and m.group(2) == g}
    side = "weak" if weak else "strong"
    if len(rungs) > 1:
        lo_r, hi_r = min(rungs, key=lambda r: rungs[r].estimate), max(rungs, key=lambda r: rungs[r].estimate)
        problem = w.text(f"The {{guide}} guide is {side}: its holder wins {{low}} to {{high}} depending on the skill level, "
                         "against a fair {fair}", guide=GUIDES[g], low=_pc(rungs[lo_r], w.lang),
                         high=_pc(rungs[hi_r], w.lang), fair=fair)
        figure = w.text("{low} for {low_rung}, {high} for {high_rung}", low=_pci(rungs[lo_r], w.lang),
                        low_rung=w.text(RUNGS.get(lo_r, lo_r)), high=_pci(rungs[hi_r], w.lang),
                        high_rung=w.text(RUNGS.get(hi_r, hi_r)))
        ids = [rungs[lo_r].id, rungs[hi_r].id]
    else:
        f = max((facts[k] for k in shown), key=lambda f: abs(f.estimate - fair_of(f, 0.25)))
        problem = w.text(f"The {{guide}} guide is {side}: its holder wins {{rate}}, against a fair {{fair}}",
                         guide=GUIDES[g], rate=_pc(f, w.lang), fair=fair)
        figure, ids = _pci(f, w.lang), [f.id]
    others = []
    for other_weak in (True, False):
        names = [k[0] for k in sorted(groups, key=lambda k: -size[k]) if k[1] == other_weak and k != (g, weak)]
        if not names:
            continue
        fs = [facts[fid] for (gg, ww), ps in groups.items() if gg in names and ww == other_weak
              for p in ps for fid in p.facts if _DEALT.fullmatch(fid) and _DEALT.fullmatch(fid).group(2) == gg]
        end = (min if other_weak else max)(fs, key=lambda f: f.estimate)
        many = "guides" if len(names) > 1 else "guide"
        others.append(w.text(f"also past the margin: the {{guides}} {many} " + ("(weak, down to {rate})" if other_weak
                                                                               else "(strong, up to {rate})"),
                             guides=_joined([GUIDES[n] for n in names], w.lang), rate=_pci(end, w.lang)))
        ids.append(end.id)
    if others:
        figure += ("\u202f; " if w.lang == "fr" else "; ") + ("\u202f; " if w.lang == "fr" else "; ").join(others)
    return problem, figure, ids


def _tables(names: list[str], held: dict, lang: str) -> str:
    from ..glossary import table_words

    words = held.get("tables_words") or {}
    said = [(words.get(n) or {}).get(lang) or table_words(n, lang) for n in names]
    return ("\u202f; " if lang == "fr" else "; ").join(said)


def _holds(c, w, proposed: bool) -> str:
    """Where the study's answer holds: at its held-out tables, on its panel only, or not checked."""
    held = getattr(c, "held_out", None)
    if not held:
        return w.text("{measured}; not yet checked at tables set aside", measured=w.tr(c.measured)) if proposed and c.measured else ""
    names = list(held.get("table_names") or [])
    if held.get("held_out"):
        return w.text("holds at the {n} tables set aside ({tables})", n=number(len(names), 0, w.lang),
                      tables=_tables(names, held, w.lang)) if proposed else ""
    failed = list(dict.fromkeys(x.get("table") for x in (held.get("failures") or []) if x.get("table")))
    if failed:
        one = len(failed) == 1
        if proposed:
            msg = ("holds on its panel only: fails at the table set aside of {tables}" if one else
                   "holds on its panel only: fails at the tables set aside of {tables}")
        else:
            msg = ("checked at the tables set aside, it fails at the table of {tables}" if one else
                   "checked at the tables set aside, it fails at the tables of {tables}")
        return w.text(msg, tables=_tables(failed, held, w.lang))
    open_ = list(dict.fromkeys(x.get("table") for x in (held.get("undecided") or []) if x.get("table")))
    if open_:
        return w.text("not settled at the tables set aside of {tables}", tables=_tables(open_, held, w.lang))
    return ""


def _change(c, w) -> tuple[str, str]:
    """(the change proposed or why none is, where it holds) of a study ``c`` (None: no study)."""
    if c is None:
        return w.text("No change proposed: no study answers this problem yet"), ""
    variant = (c.slots.get("variant") or {}).get("en", "").removeprefix("variant ")
    if c.state == "fix":
        rules = (c.slots.get("rules") or {}).get(w.lang) or ""
        return w.text("Proposed change: {rules} (variant {variant})", rules=rules, variant=variant), _holds(c, w, True)
    if c.state == "no change needed":
        return w.text("No change needed: the rulings already meet every goal of its study"), ""
    if c.state == "not run":
        return w.text("No change proposed: its study has not run yet"), ""
    if c.state == "keep the rulings" or c.answer.startswith("No variant is shown better"):
        return w.text("No change proposed: no change tried does better than the rulings; keep them"), ""
    return (w.text("No change proposed: none of the changes tried passes (the closest: variant {variant})",
                   variant=variant), _holds(c, w, False))


def _also_fixed(anchors: set, c, studies: list, change: str, holds: str, w) -> tuple[str, str]:
    """The line's change and where it holds, with the fix of each other study of the same problem
    (a study of any of the line's ``anchors``) after them (the guides: the spread's study proposes
    no change, the Serpent's holder's study a fix): « … ; pour le joueur qui a le Guide Serpent
    dans la marge de sa part équitable : Changement proposé : … »."""
    sep = "\u202f; " if w.lang == "fr" else "; "
    for o in studies:
        if c is None or o is c or not anchors & set(o.anchors) or o.state != "fix":
            continue
        what = w.tr(o.problem.split(": ")[-1])
        oc, oh = _change(o, w)
        change += sep + w.text("for {problem}: {change}", problem=what, change=oc)
        if oh:
            more = w.text("the change for {problem}: {holds}", problem=what, holds=oh)
            holds = holds + sep + more if holds else more
    return change, holds


def first_screen(judged: tuple[list, list, list], changes: list, facts: dict, w) -> list[Line]:
    """The first screen's lines from the verdict (``judged``: wrong, fine, open), the studies'
    answers (:func:`heron_sim.report.studies.attach`'s, each with ``held_out``) and the facts,
    in the words of ``w`` (a :class:`heron_sim.report.brief_lang.Words`)."""
    from .studies import NOT_IN_VERDICT

    wrong, fine, open_ = judged
    studies = [c for c in changes if c.study not in NOT_IN_VERDICT]

    def study_of(p):
        return next((c for c in studies if p.anchor in c.anchors), None)

    lines: list[tuple[float, Line]] = []
    done: set[str] = set()
    for state, probs in (("wrong", wrong), ("open", open_), ("tables", fine)):
        for i, p in enumerate(probs):
            c = study_of(p)
            key = c.study if c is not None else f"{state}:{i}"
            if key in done or (state == "tables" and (c is None or c.rulings_meet is not False)):
                continue
            if state == "open" and c is None:
                continue  # an open question no study answers stays in the details
            done.add(key)
            mine = [q for q in probs if c is not None and study_of(q) is c] or [p]
            guide = _guide_line(mine, facts, w) if state == "wrong" else None
            if guide is not None:
                problem, figure, ids = guide
            else:
                problem, figure, ids = w.tr(p.what), w.tr(p.figure), list(getattr(p, "facts", ()) or ())
            change, holds = _change(c, w)
            change, holds = _also_fixed({q.anchor for q in mine}, c, studies, change, holds, w)
            tag = {"wrong": "", "open": w.text("not settled"),
                   "tables": w.text("within its target in the verdict's figure, not at every table of its study")}[state]
            rank = {"wrong": 0, "open": 1000, "tables": 2000}[state] + i
            lines.append((rank, Line(problem, figure, change, holds, state, p.anchor, c.slug if c else "", ids, tag)))
    return [ln for _, ln in sorted(lines, key=lambda t: t[0])]
