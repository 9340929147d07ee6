"""The brief's first screen (issue 60 item 2, issue 58 item 6): one line per problem, the guides
once with the range of the weakest guide across the skill levels, each line's change beside it
(the booklet's words, or that none is proposed) and the tables where it holds, in French that
:func:`heron_sim.glossary.check_fr` passes.

Checked on small fixtures (problems, studies and facts made here) and on a brief rendered from a
report's own findings (``tests/data/executive_facts_8957919.json.gz``) with the studies committed
under results/tune-*.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from heron_sim.analysis.judge import Problem
from heron_sim.glossary import TABLE_ID, check_fr
from heron_sim.report import Section, write_report
from heron_sim.report.brief_lang import Words
from heron_sim.report.first_screen import first_screen
from heron_sim.report.studies import Change
from heron_sim.sections import Fact

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"

#: the words a line's change starts with, by language
CHANGE_WORDS = {"fr": ("Changement proposé", "Aucun changement proposé", "Pas de changement nécessaire"),
                "en": ("Proposed change", "No change proposed", "No change needed")}


def _share(fid: str, est: float, half: float = 0.005) -> Fact:
    return Fact(fid, fid, est, est - half, est + half, 28000, "share", "games where dealt", 1e-9, "fair 0.2500")


def fixtures():
    """Two guides past the margin, overall and per rung (five problems of one finding), the
    first player not settled, comebacks within the floor with a study that finds a fix checked
    at held-out tables, and a problem no study answers."""
    facts = {f.id: f for f in [
        _share("guides.when_dealt.8d8.heron", 0.20), _share("guides.when_dealt.8d8.serpent", 0.272),
        *[_share(f"rungs.{r}.when_dealt.8d8.heron", v) for r, v in
          (("novice", 0.211), ("casual", 0.198), ("regular", 0.197), ("expert", 0.184))],
        _share("balance.seat1.pooled.8d8", 0.258), _share("sensitivity.base.last_wins", 0.134)]}
    wrong = [
        Problem("At every rung of the skill ladder (novice, casual, regular, expert) the Héron guide is weak (Holm over "
                "the 7 guides)", "expert: 18.4 %", 5.0, "q-rungs",
                facts=tuple(f"rungs.{r}.when_dealt.8d8.heron" for r in ("novice", "casual", "regular", "expert"))),
        Problem("The Héron guide is weak: its holder wins less than a fair 25 %", "20.0 %", 4.5, "q-guide-balance",
                facts=("guides.when_dealt.8d8.heron",)),
        Problem("The Serpent guide is strong: its holder wins more than a fair 25 %", "27.2 %", 1.7, "q-guide-balance",
                facts=("guides.when_dealt.8d8.serpent",)),
        Problem("The provisional +10 cap for sets of 9–10 dice hardly ever applies", "0.15 %", 1.2, "q-cap"),
    ]
    open_ = [Problem("The first player's edge is not settled by these games", "25.8 %", 0.5, "q-first-player",
                     facts=("balance.seat1.pooled.8d8",))]
    fine = [Problem("The player last at mid-game wins 13.4 %, at or above the comeback floor of 12.5 % (0.5 × the fair 25 %)", "13.4 %", 0.0, "q-decisiveness", fine=True,
                    facts=("sensitivity.base.last_wins",))]
    held = {"held_out": True, "table_names": ["pairs-4", "club-6"],
            "tables_words": {"pairs-4": {"fr": "2 experts et 2 débutants", "en": "2 experts and 2 novices"},
                             "club-6": {"fr": "1 expert, 2 habitués et 3 débutants", "en": "1 expert, 2 regulars and 3 novices"}},
            "failures": []}
    failed = {"held_out": False, "table_names": ["pairs-4", "club-6"],
              "tables_words": held["tables_words"], "failures": [{"table": "club-6", "seat": 3}, {"table": "club-6", "seat": 6}]}
    rules = {"fr": "Après une Angoisse que le Lion ne sauve pas, le joueur avance de 1 case",
             "en": "Consolation after an Angoisse = 1"}
    changes = [
        Change("guides", "The guides", ("q-guide-balance", "q-rungs", "q-powers"), "no fix",
               "No change in this space passes; the closest: variant L35 (…).",
               slots={"variant": {"en": "variant L35", "fr": "la variante L35"}}, rulings_meet=False),
        Change("first-player", "The first player", ("q-first-player",), "no fix",
               "No change in this space passes; the closest: variant L40 (…).",
               slots={"variant": {"en": "variant L40", "fr": "la variante L40"}}, rulings_meet=False, held_out=failed),
        Change("comebacks", "Comebacks", ("q-decisiveness",), "fix", "Smallest change that passes: variant L9 (…).",
               slots={"variant": {"en": "variant L9", "fr": "la variante L9"}, "rules": rules}, rulings_meet=False,
               held_out=held, measured="measured at 8 tables, 2 to 7 players"),
    ]
    return (wrong, fine, open_), changes, facts


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_one_line_per_problem_with_its_change_beside_it(lang):
    judged, changes, facts = fixtures()
    lines = first_screen(judged, changes, facts, Words(lang))
    # the four guide problems are one line; the cap, the first player and comebacks one each
    assert [ln.study for ln in lines] == ["change-guides", "", "change-first-player", "change-comebacks"]
    assert [ln.state for ln in lines] == ["wrong", "wrong", "open", "tables"]
    guides = lines[0]
    assert sum("Héron" in ln.problem for ln in lines) == 1
    # the range across the skill levels, from the rungs' facts (traceable: their ids)
    lo, hi = ("18,4", "21,1") if lang == "fr" else ("18.4", "21.1")
    assert lo in guides.problem and hi in guides.problem and "25" in guides.problem, guides.problem
    assert {"rungs.expert.when_dealt.8d8.heron", "rungs.novice.when_dealt.8d8.heron"} <= set(guides.facts)
    assert "Serpent" in guides.figure and "guides.when_dealt.8d8.serpent" in guides.facts
    for ln in lines:
        assert ln.change.startswith(CHANGE_WORDS[lang]), ln.change
        assert set(ln.facts) <= set(facts)
    fix = lines[-1]
    assert fix.change.startswith(CHANGE_WORDS[lang][0]) and "L9" in fix.change
    assert ("2 experts et 2 débutants" if lang == "fr" else "2 experts and 2 novices") in fix.holds
    assert "1 expert, 2" in lines[2].holds and "pairs-4" not in lines[2].holds  # the table that failed, in words
    assert lines[1].change.startswith(CHANGE_WORDS[lang][1])  # no study: no change proposed
    if lang == "fr":
        for ln in lines:
            text = " — ".join(x for x in (ln.tag, ln.problem, ln.figure, ln.change, ln.holds) if x)
            assert not check_fr(text, headline=True), [str(f) for f in check_fr(text, headline=True)]
            assert "=" not in ln.change and not TABLE_ID.search(text), text


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_second_study_s_fix_of_the_same_problem_follows_the_first_s_answer(lang):
    """The guides' line: the spread's study proposes no change, a study of one guide's holder a
    fix that holds at the tables set aside — both on the line, the fix with its own tables; a
    second study that proposes no fix adds nothing."""
    judged, changes, facts = fixtures()
    serpent = {"fr": "Le Serpent ne peut annuler qu'un recul d'au plus 4 cases", "en": "Snake cancels at most 4"}
    changes.append(Change("serpent", "One guide: the Serpent's holder within the margin of the fair share",
                          ("q-guide-balance",), "fix", "Smallest change that passes: variant L4 (…).",
                          slots={"variant": {"en": "variant L4", "fr": "la variante L4"}, "rules": serpent},
                          rulings_meet=False, held_out=changes[2].held_out))
    guides = first_screen(judged, changes, facts, Words(lang))[0]
    assert guides.study == "change-guides" and guides.change.startswith(CHANGE_WORDS[lang][1])
    assert serpent[lang] in guides.change and "L4" in guides.change
    assert ("pour le joueur qui a le Guide Serpent dans la marge de sa part équitable\u00a0: Changement proposé"
            if lang == "fr" else "for the Serpent's holder within the margin of the fair share: Proposed change") \
        in guides.change
    assert ("tient aux 2 tables mises de côté" if lang == "fr" else "holds at the 2 tables set aside") in guides.holds
    if lang == "fr":
        assert not check_fr(guides.change + " — " + guides.holds)
    changes[-1].state = "no fix"
    assert "L4" not in first_screen(judged, changes, facts, Words(lang))[0].change


def test_no_change_needed_and_keep_the_rulings():
    judged, changes, facts = fixtures()
    changes[0].state, changes[1].state = "no change needed", "keep the rulings"
    lines = first_screen(judged, changes, facts, Words("fr"))
    assert lines[0].change.startswith("Pas de changement nécessaire") and not lines[0].holds
    assert lines[2].change.startswith("Aucun changement proposé") and "gardez" in lines[2].change


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A report from a real report's findings (no games played), with the committed studies."""
    from tests.test_executive_golden import FACTS_LATER, load_facts

    out = tmp_path_factory.mktemp("first-screen")
    for d in sorted(RESULTS.glob("tune-*")):
        shutil.copytree(d, out / d.name)
    sec = Section(key="across", title="Across the experiments", facts=list(load_facts(FACTS_LATER).values()))
    write_report([sec], {"seeds": "1"}, out)
    return out


def _lines(page: str) -> list[str]:
    m = re.search(r'<ol class="first-screen">(.*?)</ol>', page, re.S)
    assert m, "the brief has no first screen"
    return re.findall(r"<li[^>]*>(.*?)</li>", m.group(1), re.S)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_brief_opens_on_one_line_per_problem(rendered, lang):
    page = (rendered / ("report.html" if lang == "fr" else "report.en.html")).read_text(encoding="utf-8")
    verdict = page.split('<section id="verdict">')[1].split("</section>")[0]
    assert verdict.index('class="first-screen"') < verdict.index("<ol>")  # the first screen, then the details
    lines = _lines(page)
    studies = [re.search(r'href="#(change-[^"]+)"', li) for li in lines]
    named = [s.group(1) for s in studies if s]
    assert len(named) == len(set(named)), named  # one line per study: the guides once
    assert "change-guides" in named and sum("Héron" in li for li in lines) == 1
    findings = {f["id"] for f in json.loads((rendered / "findings.json").read_text(encoding="utf-8"))["findings"]}
    for li in lines:
        change = html.unescape(re.search(r'<b class="change">(.*?)</b>', li, re.S).group(1))
        assert change.startswith(CHANGE_WORDS[lang]), change
        assert 'href="report-annex' in li
    for ids in re.findall(r'data-facts="([^"]*)"', page):
        assert set(ids.split()) <= findings, ids
    md = (rendered / ("report.md" if lang == "fr" else "report.en.md")).read_text(encoding="utf-8")
    head = md.split("## ")[1].split("\n\n")
    assert sum(1 for block in head for ln in block.splitlines() if re.match(r"\d+\. ", ln)
               and "→" in ln) == len(lines)
    if lang == "fr":
        for li in lines:
            text = html.unescape(re.sub(r"<[^>]+>", "", li))
            found = check_fr(text, headline=True)
            assert not found, [str(f) for f in found]
        comebacks = next(li for li in lines if "change-comebacks" in li)
        if (RESULTS / "tune-comebacks" / "held-out.json").is_file():
            assert "tables mises de côté" in comebacks and "2 experts et 2 débutants" in comebacks


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_playtest_kit_is_linked_under_the_verdict(rendered, lang):
    """Issue 60 item 4: the brief links the playtest kit in its own language where the length
    verdict's assumed seconds a turn are read (under the verdict's lines), by a link that works
    from where the page is written."""
    from heron_sim.report.render import PLAYTEST_KIT, _kit_line

    tag = "" if lang == "fr" else ".en"
    page = (rendered / f"report{tag}.html").read_text(encoding="utf-8")
    verdict = page.split('<section id="verdict">')[1].split("</section>")[0]
    kit = re.search(r'<p class="kit">(.*?)</p>', verdict, re.S)
    assert kit, "no playtest kit under the verdict"
    assert verdict.index('class="first-screen"') < verdict.index('class="kit"') < verdict.index("<ol>")
    href = re.search(r'href="([^"]+)"', kit.group(1)).group(1)
    assert (rendered / href).resolve() == PLAYTEST_KIT / f"tally.{lang}.html"
    assert ("40 s par tour" if lang == "fr" else "40 s a turn") in html.unescape(kit.group(1))
    md = (rendered / f"report{tag}.md").read_text(encoding="utf-8")
    verdict_md = md.split("## ")[1]
    link = re.search(r"\]\(([^)]*playtest/tally\.[a-z]+\.md)\)", verdict_md)
    assert link and (rendered / link.group(1)).resolve() == PLAYTEST_KIT / f"tally.{lang}.md", verdict_md[-600:]
    # from results/, where make report writes the brief: beside docs/ in the source tree
    from heron_sim.report.brief_lang import Words

    assert _kit_line(RESULTS, Words(lang), md=True)["href"] == f"../docs/playtest/tally.{lang}.md"
    if lang == "fr":
        text = html.unescape(re.sub(r"<[^>]+>", "", kit.group(1)))
        assert "kit de test" in text and not check_fr(text), [str(f) for f in check_fr(text)]
