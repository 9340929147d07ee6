"""The designer's brief and its annex (issue 30, items 8 and 2), without a browser.

The brief (``report.html``, ``report.md``) holds the verdict, what to change for each problem
(its lab study's answer) and the answers in a few lines; the annex (``report-annex.html``,
``report-annex.md``) every table, the reconciliations and the methods. Checked on a brief rendered
here from a report's own findings (``tests/data/executive_facts_8957919.json.gz``) and the studies
committed under results/tune-*, and on the committed report: every verdict line and every answer
links to an anchor that exists in the annex, every study link to a file that exists, and each
problem's "what to change" is its study's answer. The printed length (at most 10 A4 pages) is
measured in a real browser by tests/test_report_browser.py.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from heron_sim.report import Section, write_report
from heron_sim.report.render import ANNEX, BRIEF
from heron_sim.report.studies import STUDIES
from tests.test_executive_golden import FACTS_LATER, load_facts

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def link_problems(out: Path) -> list[str]:
    """What is wrong with the links of the brief in ``out`` (empty: nothing): an answer or a
    verdict line without a link to the annex, a link to an annex anchor that does not exist, a
    link to a file that does not exist; the same for the Markdown pair."""
    bad = []
    brief, annex = (out / BRIEF).read_text(encoding="utf-8"), (out / ANNEX).read_text(encoding="utf-8")
    ids = set(re.findall(r'\bid="([^"]+)"', annex))
    for target in re.findall(rf'href="{re.escape(ANNEX)}#([^"]+)"', brief):
        if target not in ids:
            bad.append(f"{BRIEF} links {ANNEX}#{target}, which the annex lacks")
    answers = re.findall(r'<div class="answer" id="([^"]+)">(.*?)</div>', brief, re.S)
    if not answers:
        bad.append("the brief has no answers")
    for slug, body in answers:
        if f'href="{ANNEX}#{slug}"' not in body:
            bad.append(f"answer {slug}: no link to its detail in the annex")
    verdict = brief.split('<section id="verdict">')[1].split("</section>")[0]
    for li in re.findall(r"<li>(.*?)</li>", verdict, re.S):
        if f'href="{ANNEX}#' not in li:
            bad.append(f"verdict line without a link to the annex: {li[:80]}")
    own = set(re.findall(r'\bid="([^"]+)"', brief))
    for target in re.findall(r'href="#([^"]+)"', brief):
        if target not in own:
            bad.append(f"{BRIEF} links #{target}, which it lacks")
    for href in re.findall(r'href="([^"#:]+)(?:#[^"]*)?"', brief):
        if not (out / href).is_file():
            bad.append(f"{BRIEF} links {href}, which is missing")
    md, md_annex = (out / "report.md").read_text(encoding="utf-8"), (out / "report-annex.md").read_text(encoding="utf-8")
    md_ids = set(re.findall(r'<a id="([^"]+)"></a>', md_annex))
    for target in re.findall(r"\(report-annex\.md#([^)]+)\)", md):
        if target not in md_ids:
            bad.append(f"report.md links report-annex.md#{target}, which it lacks")
    for href in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", md):
        if not (out / href).is_file():
            bad.append(f"report.md links {href}, which is missing")
    return bad


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A report from a real report's findings (no games played), with the committed studies."""
    out = tmp_path_factory.mktemp("brief")
    for d in sorted(RESULTS.glob("tune-*")):
        shutil.copytree(d, out / d.name)
    sec = Section(key="across", title="Across the experiments", facts=list(load_facts(FACTS_LATER).values()))
    write_report([sec], {"seeds": "1"}, out)
    return out


def test_every_answer_links_to_an_anchor_of_the_annex(rendered):
    assert not link_problems(rendered), link_problems(rendered)
    brief = (rendered / BRIEF).read_text(encoding="utf-8")
    assert brief.count('<div class="answer"') >= 10 and 'id="verdict"' in brief
    # the detail is in the annex, not in the brief
    annex = (rendered / ANNEX).read_text(encoding="utf-8")
    assert "<table" not in brief and 'class="exec"' in annex and 'id="anxiety-rates"' in annex
    assert 'href="report.html"' in annex and 'href="report-annex.html"' in (rendered / "index.html").read_text()


def test_link_problems_can_fail(rendered, tmp_path):
    out = tmp_path / "broken"
    shutil.copytree(rendered, out)
    annex = (out / ANNEX).read_text(encoding="utf-8")
    (out / ANNEX).write_text(annex.replace('id="q-guide-balance"', 'id="q-gone"'), encoding="utf-8")
    assert any("q-guide-balance" in p for p in link_problems(out))


def test_what_to_change_is_each_problems_study(rendered):
    """Every problem of the verdict with a study links it, and the brief says the study's answer:
    no "no tested remedy" where a study answers, "not run yet" for a study declared and not run."""
    brief = (rendered / BRIEF).read_text(encoding="utf-8")
    assert "No tested remedy" not in brief and "no tested remedy" not in brief
    changes = dict(re.findall(r'<div class="change" id="change-([^"]+)">(.*?)</div>', brief, re.S))
    assert set(changes) == {name for name, _, _ in STUDIES}
    for name, body in changes.items():
        summary = RESULTS / f"tune-{name}" / "summary.json"
        if summary.is_file():
            s = json.loads(summary.read_text(encoding="utf-8"))
            first = s["finalists"][0]["id"]
            assert f"variant {first} " in body, (name, body[:300])
            assert "Not run yet" not in body
        else:
            assert "not run yet" in body.lower() and f"experiments/tune-{name}.toml" in body, name
    for name in ("first-player", "pond"):  # shipped with booklet text: linked
        assert f'href="tune-{name}/booklet-' in changes[name], name
    # each verdict line of a problem with a study links its "what to change"
    verdict = brief.split('<section id="verdict">')[1].split("</section>")[0]
    for li in re.findall(r"<li>(.*?)</li>", verdict, re.S):
        anchor = re.search(r'href="#(q-[^"]+)"', li).group(1)
        if any(anchor in anchors for _, _, anchors in STUDIES):
            assert 'href="#change-' in li, li[:120]


def test_every_study_is_declared():
    """Each problem's study has its tune file in experiments/, valid; the declared-only ones
    (length, comebacks) carry goals read from the designer's targets."""
    from heron_sim.lab.spec import load_spec

    for name, _, _ in STUDIES:
        assert (ROOT / "experiments" / f"tune-{name}.toml").is_file(), name
    for name in ("length", "comebacks"):  # the shipped ones are loaded by the lab's tests
        spec = load_spec(ROOT / "experiments" / f"tune-{name}.toml")
        assert spec.name == name and spec.params and spec.objectives
        assert all(o.direction in ("at_most", "at_least") for o in spec.objectives)  # one-sided goals


def test_the_length_study_goal_follows_the_targets():
    """tune-length's "at most F × today's length" puts every player count inside the designer's
    longest acceptable length (targets.toml) at today's measured minutes (results/findings.json),
    and is not needlessly stricter than that (within 0.03)."""
    from heron_sim.analysis.judge import TARGETS
    from heron_sim.lab.spec import load_spec

    spec = load_spec(ROOT / "experiments" / "tune-length.toml")
    length = next(o for o in spec.objectives if o.metric == "length")
    assert length.direction == "at_most" and length.target == "base"
    found = {f["id"]: f for f in json.loads((RESULTS / "findings.json").read_text(encoding="utf-8"))["findings"]}
    need = min(TARGETS.minutes(p)[1] / found[f"players.{p}.minutes"]["estimate"] for p in range(2, 8))
    assert need - 0.03 <= length.scale <= need, (length.scale, need)


def test_the_committed_brief_links():
    if not (RESULTS / ANNEX).is_file():
        pytest.skip("results/ predates the brief: `make report` writes it")
    assert not link_problems(RESULTS), link_problems(RESULTS)


def test_the_lab_pages_link_files_that_exist(rendered, tmp_path):
    """The lab's page links each study's rule sheets and booklet text where they stand beside it
    (never results/results/tune-…)."""
    from heron_sim.report.lab_page import write_lab_pages

    pages = write_lab_pages(rendered, {"git commit (report)": "abc"})
    for page in pages:
        hrefs = re.findall(r'href="([^"#:]+)(?:#[^"]*)?"', page.read_text(encoding="utf-8"))
        assert any(h.startswith("tune-") for h in hrefs), page.name
        missing = [h for h in hrefs if not (rendered / h).is_file() and h != "index.html"]
        assert not missing, (page.name, missing[:5])


def test_no_tested_remedy_never_contradicts_a_study():
    """Where a study finds a fix or no change needed, the plan's own "no tested remedy fixes this"
    is said of its one-key batches only; elsewhere it stays."""
    from heron_sim.report.studies import Change, action_words

    said = "No tested remedy fixes this; tried: 2 rolls per turn."
    fix = Change("first-player", "The first player", ("q-first-player",), "fix", "Smallest change that passes: …")
    none = Change("first-player", "The first player", ("q-first-player",), "no fix", "No change in this space passes")
    assert "No tested remedy" not in action_words(said, [fix]) and "one-key batches" in action_words(said, [fix])
    assert action_words(said, [none]) == said and action_words(said, []) == said
