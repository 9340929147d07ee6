"""What each study answers (issue 30 items 2-3): no change needed, the smallest fix with its
booklet text, or none and why; and the tables it was measured on."""

from __future__ import annotations

import json

import pytest

from heron_sim.lab.outputs import study_answers, study_answers_markdown

pytestmark = pytest.mark.exact


def _obj(decision, met):
    return {"metric": "guide_spread", "goal": 0.01, "goal_met": met, "goal_met_95": met, "decision": decision,
            "games_needed": 1000, "verdict": "better"}


def _write(root, name, finalists, base=None):
    d = root / f"tune-{name}"
    d.mkdir(parents=True)
    (d / "summary.json").write_text(json.dumps({
        "name": name, "title": f"Problem {name}", "finding": "…", "panel": [{"name": "casual-4"}, {"name": "rungs-5"}],
        "base_evidence": base, "finalists": finalists}), encoding="utf-8")
    return d


def test_each_study_gives_one_answer(tmp_path):
    fix = {"id": "L1", "n_changed": 1, "changes": "rolls = 4", "feasible": True, "objectives": [_obj("passes", True)]}
    d = _write(tmp_path, "a", [fix])
    (d / "booklet-L1.fr.md").write_text("# Texte", encoding="utf-8")
    _write(tmp_path, "b", [{**fix, "id": "t3", "objectives": [_obj("undecided (underpowered)", False)]}])
    _write(tmp_path, "c", [fix], base={"meets": True})
    by = {a["study"]: a for a in study_answers(tmp_path)}
    assert by["a"]["answer"] == "fix" and by["a"]["variant"]["booklet"]["fr.md"].endswith("booklet-L1.fr.md")
    assert by["b"]["answer"] == "no fix" and by["c"]["answer"] == "no change needed"
    md = study_answers_markdown(tmp_path)
    assert "**`L1`**, 1 rule (rolls = 4); booklet text:" in md
    assert "no change in this space passes**; closest `t3` (rolls = 4): undecided (underpowered)" in md
    assert "**no change needed**" in md and "Measured at 2 tables: casual-4, rungs-5" in md


def test_a_study_where_no_variant_beats_the_rulings_says_keep_them(tmp_path):
    same = {"id": "L4", "n_changed": 1, "changes": "pond_pushback_flat = 2", "feasible": True,
            "objectives": [{"metric": "guide_spread", "goal": None, "goal_met": None, "goal_met_95": None,
                            "decision": None, "verdict": "no clear difference"}]}
    _write(tmp_path, "p", [same])
    (a,) = study_answers(tmp_path)
    assert a["answer"] == "keep the rulings"
    assert "**keep the rulings**: no variant is shown better" in study_answers_markdown(tmp_path)


def test_a_study_that_finds_the_rulings_short_somewhere_is_not_called_within_its_target():
    """The verdict's one figure (4 players) meets the comeback floor, but the study finds tables
    (5-7 players) where the rulings miss it: the brief says both, not "within its target"."""
    from types import SimpleNamespace

    from heron_sim.report.studies import Change, attach

    fine = [SimpleNamespace(anchor="q-decisiveness")]
    short = Change("comebacks", "comebacks", ("q-decisiveness",), "no fix", "…", rulings_meet=False)
    met = Change("comebacks", "comebacks", ("q-decisiveness",), "no change needed", "…", rulings_meet=True)
    assert attach([short], [], fine, [])[0].verdict.startswith("within its target in the verdict's figure, but not")
    assert attach([met], [], fine, [])[0].verdict == "within its target"
