"""results/findings.json agrees with the page: every figure of the answers table is the
finding of the same id, formatted; every finding has an estimate, interval, n and unit."""

import html
import json
import math
import os
import re
from pathlib import Path

import pytest

from heron_sim.report.executive import show
from heron_sim.report.section import Fact

pytestmark = pytest.mark.exact

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(os.environ.get("HERON_RESULTS", ROOT / "results"))


def _facts() -> dict:
    path = RESULTS / "findings.json"
    if not path.is_file():
        pytest.fail("results/findings.json is missing: run `make report`")
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for f in data["findings"]:
        lo, hi = f["interval"]
        out[f["id"]] = Fact(f["id"], f["label"], f["estimate"] if f["estimate"] is not None else math.nan,
                            math.nan if lo is None else lo, math.nan if hi is None else hi, f["n"], f["unit"],
                            f["n_unit"], math.nan if f["p"] is None else f["p"], f["note"])
    return out


def test_findings_are_complete_and_unique():
    data = json.loads((RESULTS / "findings.json").read_text(encoding="utf-8"))
    ids = [f["id"] for f in data["findings"]]
    assert len(ids) == len(set(ids)) and len(ids) > 100
    for f in data["findings"]:
        assert f["unit"] and isinstance(f["n"], int) and f["label"], f
        lo, hi = f["interval"]
        if f["estimate"] is not None and lo is not None and hi is not None:
            assert lo - 1e-9 <= f["estimate"] <= hi + 1e-9, f
    assert "git commit (report)" in data["meta"]


def test_answers_table_agrees_with_findings_json():
    facts = _facts()
    annex = RESULTS / "report-annex.html"
    if (RESULTS / "report-annex.en.html").is_file():  # the annex in French (issue 33): its English beside it
        annex = RESULTS / "report-annex.en.html"
    page = (annex if annex.is_file() else RESULTS / "report.html").read_text(encoding="utf-8")
    cells = re.findall(r'<td data-label="figure" class="fig" data-fact="([^"]+)">(.*?)</td>', page, re.S)
    assert len(cells) >= 8
    for fid, text in cells:
        assert fid in facts, fid
        assert html.unescape(text).strip() == show(facts[fid]), fid
    md = (RESULTS / (annex.name.replace(".html", ".md") if annex.is_file() else "report.md")).read_text(encoding="utf-8")
    for fid, text in cells:
        assert html.unescape(text).strip() in md, fid
    if annex.is_file():  # the brief shows the same figures (French by default: written the French way)
        from heron_sim.i18n import phrase

        for name, lang in (("report.en.html", "en"), ("report.html", "fr")):
            if not (RESULTS / name).is_file():  # results/ predates the French brief
                name, lang = "report.html", "en"
            brief = (RESULTS / name).read_text(encoding="utf-8")
            lang = "fr" if '<html lang="fr">' in brief else "en"
            shown = re.findall(r'<span data-fact="([^"]+)">(.*?)</span>', brief, re.S)
            assert len(shown) == len(cells)
            for fid, text in shown:
                assert html.unescape(text).strip() == phrase(show(facts[fid]), lang), (name, fid)
