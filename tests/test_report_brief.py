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

import html
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


#: The report's phrases the French catalogue lacks, from the module's rendered report.
MISSING: list[str] = []


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A report from a real report's findings (no games played), with the committed studies."""
    out = tmp_path_factory.mktemp("brief")
    for d in sorted(RESULTS.glob("tune-*")):
        shutil.copytree(d, out / d.name)
    sec = Section(key="across", title="Across the experiments", facts=list(load_facts(FACTS_LATER).values()))
    MISSING[:] = write_report([sec], {"seeds": "1"}, out)["missing"]
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
    no "no tested remedy" where a study answers, "not run yet" for a study declared and not run
    (its words: the English brief; the French one says the same, tests below)."""
    brief = (rendered / "report.en.html").read_text(encoding="utf-8")
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


def test_two_studies_of_one_problem_are_two_links_that_read_differently(rendered):
    """A problem two studies answer (the guides: the spread, and one guide's holder) links each by
    its study's words, never twice "what to change" (HTML and Markdown, both languages)."""
    two = [c for c in {a for _, _, anchors in STUDIES for a in anchors}
           if sum(c in anchors for _, _, anchors in STUDIES) > 1]
    assert two  # the guides' problem has two studies
    for name in ("report.en.html", "report.html"):
        verdict = (rendered / name).read_text(encoding="utf-8").split('<section id="verdict">')[1].split("</section>")[0]
        for li in re.findall(r"<li>(.*?)</li>", verdict, re.S):
            words = re.findall(r'<a href="#change-[^"]+">(.*?)</a>', li)
            assert len(words) == len(set(words)), (name, words)
    md = (rendered / "report.en.md").read_text(encoding="utf-8")
    assert "[what to change: the Serpent's holder within the margin of the fair share](#change-serpent)" in md


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


def test_the_length_study_goal_is_the_designers_target():
    """tune-length's goal is read from targets.toml at every table: at most the longest acceptable
    game at that player count, in rounds; and today's games (results/findings.json) miss it at every
    count, so the study has something to find."""
    from heron_sim.analysis.judge import TARGETS
    from heron_sim.lab.objectives import players_of, target_value
    from heron_sim.lab.spec import load_spec

    spec = load_spec(ROOT / "experiments" / "tune-length.toml")
    length = next(o for o in spec.objectives if o.metric == "length")
    assert (length.direction, length.target, length.scale) == ("at_most", "targets", 1.0)
    found = {f["id"]: f for f in json.loads((RESULTS / "findings.json").read_text(encoding="utf-8"))["findings"]}
    assert sorted(set(players_of(spec))) == list(range(2, 8))
    for p in range(2, 8):
        rounds = float(target_value(length, None, None, p))
        assert TARGETS.to_minutes(rounds, p) == pytest.approx(TARGETS.minutes(p)[1])
        assert found[f"players.{p}.minutes"]["estimate"] > TARGETS.minutes(p)[1]


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


# ---------------------------------------------------------------- in French (issue 33, item 1)
def _visible(page: str) -> str:
    """The words a reader sees on a page: no tags, no <code>, no <style>, no element marked English."""
    page = re.sub(r"<style>.*?</style>|<code>.*?</code>|<title>.*?</title>", " ", page, flags=re.S)
    page = re.sub(r'<(?!html)(\w+)[^>]*\blang="en"[^>]*>.*?</\1>', " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def english_left(text: str) -> list[str]:
    """The catalogue's English sentences (its message ids of three words or more that French
    changes; figures and a study's words matched as any number or words) found in ``text``."""
    from heron_sim.i18n import _NUM, catalogue

    text = " ".join(text.replace("\u00a0", " ").replace("\u202f", " ").split())
    found = []
    for en, fr in catalogue("fr").items():
        if en == fr or len(en.split()) < 3 or "{" in en.replace("{{", "") and not re.search(r"\{\w+\}", en):
            continue
        parts = re.split(r"(\{\w+\})", " ".join(en.split()))
        while parts and (not parts[0].strip() or re.fullmatch(r"\{\w+\}", parts[0])):
            parts.pop(0)  # the sentence without the figures or words at its edges
        while parts and (not parts[-1].strip() or re.fullmatch(r"\{\w+\}", parts[-1])):
            parts.pop()
        literal = [p for p in parts if not re.fullmatch(r"\{\w+\}", p)]
        if not literal or max(len(p) for p in literal) < 8 or not all(p in text for p in literal):
            continue  # too short to be a sentence, or a literal part of it is absent (and the search stays fast)
        pat = "".join((_NUM.pattern if p[1:-1].isdigit() else ".{1,300}?") if re.fullmatch(r"\{\w+\}", p) else re.escape(p)
                      for p in parts)
        if re.search(pat, text):
            found.append(en)
    return found


def test_the_brief_is_french_with_the_english_beside_it(rendered):
    """report.html, report.md, index.html and the annex are French (the designers' language); the
    English brief, index and annex stand beside them and each links the other; the French brief
    links the French annex, the English brief the English one."""
    fr, en = (rendered / "report.html").read_text(encoding="utf-8"), (rendered / "report.en.html").read_text(encoding="utf-8")
    assert '<html lang="fr">' in fr and '<html lang="en">' in en
    assert "la synthèse pour l'auteur" in fr and "the designer's brief" in en
    assert 'href="report.en.html"' in fr and 'href="report.html"' in en
    assert "annexe (en anglais)" not in fr and f'href="{ANNEX}#' in fr and 'href="report-annex.en.html#' in en
    assert f'href="{ANNEX}#' not in en and 'href="report-annex.en.html' not in fr
    annex, annex_en = (rendered / ANNEX).read_text(encoding="utf-8"), (rendered / "report-annex.en.html").read_text(encoding="utf-8")
    assert '<html lang="fr">' in annex and '<html lang="en">' in annex_en
    assert "Les réponses d'un coup d'œil" in annex and "Answers at a glance" in annex_en
    assert 'href="report-annex.en.html"' in annex and f'href="{ANNEX}"' in annex_en  # each links the other
    assert 'href="report.html"' in annex and 'href="report.en.html"' in annex_en  # and its brief
    md_annex, md_annex_en = ((rendered / n).read_text(encoding="utf-8") for n in ("report-annex.md", "report-annex.en.md"))
    assert md_annex.startswith("# Course de dés du Héron") and md_annex_en.startswith("# Héron dice race")
    assert "(report-annex.md#" in (rendered / "report.md").read_text(encoding="utf-8")
    assert "(report-annex.en.md#" in (rendered / "report.en.md").read_text(encoding="utf-8")
    # the annex's figures, numbers and the game's words the French way
    assert "26,26 tours de table [26,13 ; 26,39], n = 10 000 parties terminées" in annex
    assert "Étang Paisible" in annex and "Angoisse du Héron" in annex and "Puissance du Guide" in annex
    assert "Glossaire" in annex and "Hypothèses" in annex and "graines" in annex
    md, md_en = (rendered / "report.md").read_text(encoding="utf-8"), (rendered / "report.en.md").read_text(encoding="utf-8")
    assert md.startswith("# Course de dés du Héron") and md_en.startswith("# Héron dice race")
    assert "## Réponses au plan de test" in md and "## Answers to the test plan" in md_en
    index, index_en = (rendered / "index.html").read_text(encoding="utf-8"), (rendered / "index.en.html").read_text(encoding="utf-8")
    assert '<html lang="fr">' in index and '<html lang="en">' in index_en
    for page in (index, index_en):
        assert 'href="report.html"' in page and 'href="report.en.html"' in page
    assert 'href="index.en.html"' in index and 'href="index.html"' in index_en
    # the numbers the French way, the game's words kept, « tours de table » for rounds
    assert "25,8\u00a0% [25,5\u202f; 26,1]" in fr or "25,8\u00a0% [25,5 ; 26,1]" in fr
    assert "26,3 tours de table" in fr and "n = 93\u202f000 parties" in fr
    assert "Étang Paisible" in fr and "Angoisse du Héron" in fr and "Puissance du Guide" in fr
    assert "Étang Paisible" in en and "Angoisse du Héron" in en


def test_every_phrase_of_the_french_brief_has_an_entry(rendered):
    """Every sentence of the report's answers (rendered from the golden facts) and every text of
    the brief, the index and the annex of their own has a French entry: none is left in English."""
    from heron_sim.i18n import catalogue
    from heron_sim.report.annex_lang import msgids as annex_msgids
    from heron_sim.report.brief_lang import msgids

    fr = catalogue("fr")
    assert [m for m in msgids() if not fr.get(m, "").strip()] == []
    assert [m for m in annex_msgids() if not fr.get(m, "").strip()] == []
    assert "a brief text nobody translated" not in fr  # the check can fail
    assert MISSING == [], f"no French entry in heron_sim/locale/fr.po for: {MISSING}"


def test_no_english_sentence_and_no_key_id_on_the_french_pages(rendered):
    for name in ("report.html", "index.html", "report.md", "report-annex.html", "report-annex.md"):
        text = (rendered / name).read_text(encoding="utf-8")
        text = _visible(text) if name.endswith(".html") else re.sub(r"<a id=[^>]*></a>|\]\([^)]*\)|`[^`]*`", " ", text)
        assert english_left(text) == [], (name, english_left(text)[:5])
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), (name, re.findall(r"\b[a-z]+_[a-z_]+\b", text)[:5])
    en = _visible((rendered / "report.en.html").read_text(encoding="utf-8"))
    assert "Games are longer than the target" in en and english_left(en)  # the check finds English where it is
    assert "Every Angoisse rate of this report, reconciled (8 D8)" in english_left(
        _visible((rendered / "report-annex.en.html").read_text(encoding="utf-8")))


def test_the_french_phrases_write_the_numbers_the_french_way():
    from heron_sim.i18n import phrase

    missing = []
    got = phrase("25.8\u00a0% [25.5, 26.1], n = 93,000 games; a sentence nobody wrote; p < 0.001", "fr", missing)
    assert got.startswith("25,8\u00a0% [25,5\u202f; 26,1], n = 93\u202f000 parties\u202f; a sentence nobody wrote\u202f; ")
    assert got.endswith("p < 0,001") and missing == ["a sentence nobody wrote"]
    assert phrase("-4.8 points [-7.0, -2.6], n = 2,853 paired games where dealt", "fr") == \
        "−4,8 points [−7,0\u202f; −2,6], n = 2\u202f853 parties appariées où il est distribué"
    assert phrase("n = 5,000 games", "en") == "n = 5,000 games"


def test_lang_en_makes_english_the_default(tmp_path):
    write_report([Section(key="across", title="Across the experiments", facts=[])], {"seeds": "1"}, tmp_path, lang="en")
    assert '<html lang="en">' in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<html lang="fr">' in (tmp_path / "report.fr.html").read_text(encoding="utf-8")
    assert (tmp_path / "report.fr.md").read_text(encoding="utf-8").startswith("# Course de dés")
    assert '<html lang="en">' in (tmp_path / "report-annex.html").read_text(encoding="utf-8")
    assert '<html lang="fr">' in (tmp_path / "report-annex.fr.html").read_text(encoding="utf-8")
    assert (tmp_path / "report-annex.fr.md").read_text(encoding="utf-8").startswith("# Course de dés")
    assert 'href="report-annex.html"' in (tmp_path / "report.html").read_text(encoding="utf-8")
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in index and 'href="index.fr.html"' in index and not (tmp_path / "report.en.html").exists()
    with pytest.raises(ValueError, match="lang"):
        write_report([], {}, tmp_path, lang="de")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_sentences_other_figures_write_have_their_french(seed):
    """The answers and the verdict of figures moved by up to their interval (other branches of the
    kinds' sentences: other guides, rungs, readings) are French too, by the catalogue's general
    entries where no entry holds the sentence's own words."""
    from heron_sim.i18n import phrase
    from heron_sim.report.executive import build_rows, verdict
    from heron_sim.report.render import brief_words, vocab
    from tests.test_executive_golden import _shifted

    facts = _shifted(load_facts(FACTS_LATER), seed)
    texts = [t for r in build_rows(facts, {}) for t in (r.question, brief_words(r.answer), r.figure, brief_words(r.sure))]
    texts += [t for p in sum(verdict(facts), []) for t in (p.what, p.figure, p.assumed)]
    missing: list[str] = []
    for t in texts:
        phrase(vocab(t), "fr", missing)
    assert missing == [], f"no French entry in heron_sim/locale/fr.po for: {missing}"


def test_one_annex_entry_serves_every_guide_player_and_reading():
    """The annex's sentences name a guide, a player or a reading that changes from run to run:
    each is a slot of one entry (the guide kept, the player and the reading in French), and a
    sentence without an entry is listed, never silently left English."""
    from heron_sim.report.annex_lang import AnnexWords

    w = AnnexWords("fr")
    for guide in ("Loup", "Aigle", "Héron"):
        got = w.tr(f"On 8 D8 the player dealt the {guide} guide wins 21.0 % [19.9, 22.1] of its games against a fair "
                   "25.0 % (Holm p < 0.001)")
        assert got.startswith(f"À 8 D8, le joueur qui reçoit le Guide {guide} gagne 21,0\u00a0% [19,9\u202f; 22,1]"), got
    assert w.tr("+0.3 pts [-1.2, +1.8]: uncertain") == "+0,3 pts [−1,2\u202f; +1,8]\u00a0: incertain"
    assert w.tr("Anxiety / turn, racer") == "Angoisse / tour, coureur"  # the game's word, the player in French
    assert w.missing == []
    assert w.tr("A sentence nobody wrote about the Lion.") == "A sentence nobody wrote about the Lion."
    assert w.missing == ["A sentence nobody wrote about the Lion."]
