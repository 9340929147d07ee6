"""The brief's last first-screen line: the studies' proposals played together (tune --combine)."""

from __future__ import annotations

import json

import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab.combine_text import headline
from heron_sim.report.brief_lang import Words
from heron_sim.report.render import _rulebook, _rulebook_line


def plain(s: str) -> str:
    """French typography's narrow and non-breaking spaces read as spaces."""
    return s.replace("\u00a0", " ").replace("\u202f", " ")


def _goal(metric: str, verdict: str, alone_holds=True, combined_holds=True) -> dict:
    cons = {"alone": [{"constraint": "length within ±5 % of base", "holds": alone_holds}],
            "combined": [{"constraint": "length within ±5 % of base", "holds": combined_holds}]}
    return {"objectives": [{"metric": metric, "interaction": {"verdict": verdict}}], "constraints": cons}


def _res(goals: list[dict]) -> dict:
    return {"title": {"fr": "Règles, 2e édition", "en": "Rules, 2nd edition"}, "answers": [{}] * len(goals),
            "tables": [{}] * 13, "goals": goals}


def test_headline_names_what_the_other_changes_undo_weaken_and_break():
    res = _res([_goal("guide_spread", "undone", combined_holds=False), _goal("comeback", "weakened"),
                _goal("length", "kept")])
    fr = plain(headline(res, "fr"))
    assert fr.startswith("Réunies en « Règles, 2e édition » et jouées ensemble à 13 tables, les 3 propositions se gênent")
    assert "défont celle sur l'écart entre Guides et affaiblissent celle sur les remontées" in fr
    assert "ne respectent plus « durée moyenne à ±5 % près des règles actuelles »" in fr
    assert "durée moyenne à" not in fr.split("ne respectent plus")[0]  # the kept length goal is not named
    en = headline(res, "en")
    assert "undo the one on guide spread and weaken the one on comebacks" in en
    assert "no longer keep" in en


def test_headline_says_when_the_proposals_hold_together():
    res = _res([_goal("guide_spread", "kept"), _goal("comeback", "strengthened")])
    assert plain(headline(res, "fr")).endswith("les 2 propositions tiennent ensemble : chacune fait aussi bien que seule.")
    # only weakened: the other changes are the subject
    res = _res([_goal("comeback", "weakened")])
    assert "se gênent : les autres changements affaiblissent celle sur les remontées." in plain(headline(res, "fr"))


def test_the_brief_reads_the_rulebook_beside_it(tmp_path):
    assert _rulebook(tmp_path) is None and _rulebook_line(None, Words("fr"), md=True) is None
    (tmp_path / "rulebook").mkdir()
    (tmp_path / "rulebook" / "summary.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(HeronSimError, match="not a rulebook summary"):
        _rulebook(tmp_path)
    (tmp_path / "rulebook" / "summary.json").write_text(json.dumps({"title": {}}), encoding="utf-8")
    with pytest.raises(HeronSimError, match="not a rulebook summary"):
        _rulebook(tmp_path)
    (tmp_path / "rulebook" / "summary.json").write_text(json.dumps(_res([_goal("guide_spread", "undone")])),
                                                        encoding="utf-8")
    res = _rulebook(tmp_path)
    line = _rulebook_line(res, Words("fr"), md=True)
    assert line["href"] == "rulebook/rulebook.fr.md" and line["link"] == "lire le livret révisé"
    assert "défont celle sur l'écart entre Guides" in plain(line["text"])
    assert _rulebook_line(res, Words("en"), md=False)["href"] == "rulebook/rulebook.en.html"
    assert _rulebook_line(res, Words("fr"), md=False)["href"] == "rulebook/rulebook.html"


def test_a_rulebook_played_on_earlier_answers_says_so(tmp_path):
    res = _res([_goal("guide_spread", "undone")])
    res["answers"] = [{"study": "guides", "id": "L35"}]
    (tmp_path / "rulebook").mkdir()
    (tmp_path / "rulebook" / "summary.json").write_text(json.dumps(res), encoding="utf-8")
    (tmp_path / "tune-guides" / "variants").mkdir(parents=True)
    (tmp_path / "tune-guides" / "variants" / "guides-1-L57.toml").write_text("", encoding="utf-8")  # run again since
    assert "make rulebook" in _rulebook_line(_rulebook(tmp_path), Words("fr"), md=True)["text"]
    (tmp_path / "tune-guides" / "variants" / "guides-1-L35.toml").write_text("", encoding="utf-8")
    assert "make rulebook" not in _rulebook_line(_rulebook(tmp_path), Words("fr"), md=True)["text"]
