"""Issue 58 item 6: one revised rulebook — the studies' answers merged, played together at every
table, and written as « Règles, 2e édition » with its evidence (heron_sim.lab.combine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heron_sim.errors import HeronSimError
from heron_sim.lab.combine import answer_kind, combine, gather, load, merge

TUNE = """name = "{name}"
title = "{title}"
mode = "8d8"
seed = 5

[[scenario]]
name = "greedy-2"
players = 2
seating = "greedy"

[[param]]
key = "rolls"
int = [3, 4]

[[objective]]
metric = "length"
direction = "minimize"
goal = 40.0
"""


def _study(root: Path, name: str, variant: str, *, meets: bool = False, fix: bool = True, better: bool = True,
           title: str = "", title_fr: str = "") -> Path:
    """A study's folder as ``tune`` leaves it: summary.json, its tune file, its answer ranked first."""
    folder = root / f"tune-{name}"
    (folder / "variants").mkdir(parents=True)
    tune = root / f"tune-{name}.toml"
    tune.write_text(TUNE.format(name=name, title=title or f"Study {name}"), encoding="utf-8")
    summary = {"name": name, "title": title or f"Study {name}", "title_fr": title_fr or None, "tune_file": str(tune),
               "base_evidence": {"meets": meets},
               "finalists": [{"id": "L1", "feasible": True,
                              "objectives": [{"metric": "length", "goal": 40.0, "goal_met_95": fix,
                                              "verdict": "better" if better else "no clear difference"}]}]}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    if not meets:
        (folder / "variants" / f"{name}-1-L1.toml").write_text(variant, encoding="utf-8")
    return folder


def _keys(rules):
    return {r["key"]: r["new"] for r in rules}


# ---------------------------------------------------------------- merging
def test_the_answers_merge_and_a_base_value_restated_is_no_change(tmp_path):
    _study(tmp_path, "alpha", "rolls = 4\nanxiety_threshold = 3\n")
    _study(tmp_path, "beta", "pond_pushback_flat = 2\nstart_squares = [0, 0]\nrolls = 4\n")
    answers, skipped = gather([tmp_path])
    answers, base = load(answers, skipped)
    assert [a.study for a in answers] == ["alpha", "beta"] and not skipped
    assert [c.key for c in answers[0].changes] == ["rolls"]  # anxiety_threshold = 3 restates the rulings
    combined, rules, notes = merge(answers, base)
    assert _keys(rules) == {"rolls": 4, "pond_pushback_flat": 2}  # start_squares [0, 0] is the rulings' []
    assert combined.rolls == 4 and combined.pond_pushback_flat == 2 and not notes
    assert _keys(rules) and rules[0]["studies"] == ["alpha", "beta"]  # the same value twice: no conflict


def test_two_answers_setting_one_rule_differently_are_refused(tmp_path):
    _study(tmp_path, "alpha", "rolls = 4\n")
    _study(tmp_path, "beta", "rolls = 2\n")
    answers, skipped = gather([tmp_path])
    answers, base = load(answers, skipped)
    with pytest.raises(HeronSimError, match="alpha and beta set rolls differently") as err:
        merge(answers, base)
    assert "\n" not in str(err.value)


def test_a_guide_rule_made_every_players_by_another_answer_is_said():
    from heron_sim.lab.combine import Answer
    from heron_sim.lab.changes import rule_changes
    from heron_sim.rules import Rules

    base = Rules.build(players=4)
    a = Answer("guides", "", Path("."), {}, Path("."), Path("."), "L1", "fix")
    a.changes = rule_changes(base, Rules.build(players=4, overrides={"guide.heron.anxiety_threshold": 4}))
    b = Answer("length", "", Path("."), {}, Path("."), Path("."), "L2", "fix")
    b.changes = rule_changes(base, Rules.build(players=4, overrides={"anxiety_threshold": 4}))
    combined, rules, notes = merge([a, b], base)
    assert _keys(rules) == {"anxiety_threshold": 4}
    assert [n["key"] for n in notes] == ["guide.heron.anxiety_threshold"]


def test_studies_that_propose_nothing_are_skipped_with_why(tmp_path):
    _study(tmp_path, "fixed", "rolls = 4\n")
    _study(tmp_path, "fine", "", meets=True)
    _study(tmp_path, "nobetter", "rolls = 4\n", fix=False, better=False)
    _study(tmp_path, "closest", "pond_pushback_flat = 2\n", fix=False)
    answers, skipped = gather([tmp_path])
    assert {a.study: a.kind for a in answers} == {"fixed": "fix", "closest": "closest"}
    assert {x["study"]: x["why"] for x in skipped} == {"fine": "no change needed", "nobetter": "keep the rulings"}
    answers, skipped = gather([tmp_path], fixes_only=True)
    assert [a.study for a in answers] == ["fixed"]
    assert {x["study"]: x["why"] for x in skipped}["closest"] == "no fix"
    assert answer_kind({"base_evidence": {"meets": False}, "finalists": []}) == "no answer"


def test_a_study_of_another_game_or_box_is_left_out(tmp_path):
    _study(tmp_path, "alpha", "rolls = 4\n")
    other = tmp_path / "tune-rampage"
    other.mkdir()
    (other / "summary.json").write_text(json.dumps({"name": "rampage", "game": "rampage", "finalists": []}))
    box = _study(tmp_path, "box", 'mode = "10d6"\nrolls = 4\n')
    tune = Path(json.loads((box / "summary.json").read_text())["tune_file"])
    tune.write_text(tune.read_text().replace('mode = "8d8"', 'mode = "10d6"'))
    answers, skipped = gather([tmp_path])
    answers, base = load(answers, skipped)
    assert [a.study for a in answers] == ["alpha"] and base.mode == "8d8"
    assert {x["study"]: x["why"] for x in skipped} == {"rampage": "another game", "box": "another base"}


# ---------------------------------------------------------------- the rulebook, end to end
@pytest.fixture(scope="module")
def book(tmp_path_factory):
    root = tmp_path_factory.mktemp("combine")
    _study(root, "alpha", "rolls = 4\n", title="Shorter games", title_fr="Des parties plus courtes")
    _study(root, "beta", "pond_pushback_flat = 2\nrolls = 4\n", title="A harder Pond", title_fr="Un Étang plus dur")
    _study(root, "fine", "", meets=True)
    out = root / "rulebook"
    res = combine([root], games=60, seed=11, out=out)
    return root, out, res


def test_the_rulebook_is_written_whole_in_french_and_english(book):
    root, out, res = book
    assert sorted(p.name for p in out.iterdir()) == ["rulebook.en.html", "rulebook.en.md", "rulebook.fr.md",
                                                     "rulebook.html", "rules.toml", "summary.json"]
    fr = (out / "rulebook.fr.md").read_text(encoding="utf-8")
    assert fr.startswith("# Règles, 2e édition\n") and "Ce que montrent les parties" in fr
    assert (out / "rulebook.en.md").read_text(encoding="utf-8").startswith("# Rules, 2nd edition\n")
    html = (out / "rulebook.html").read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "<h1>Règles, 2e édition</h1>" in html and "http" not in html
    from heron_sim.rules import Rules

    rules = Rules.build(rules_file=str(out / "rules.toml"))
    assert rules.rolls == 4 and rules.pond_pushback_flat == 2
    assert not list(root.glob(".rulebook.*"))  # no temporary folder left beside it


def test_the_rulebook_holds_every_merged_answers_changed_blocks(book):
    from heron_sim.i18n import game_words, typography
    from heron_sim.lab.booklet import booklet_blocks
    from heron_sim.rules import Rules

    root, out, res = book
    base = Rules.build(players=2)
    for lang in ("fr", "en"):
        text = (out / f"rulebook.{lang}.md").read_text(encoding="utf-8")
        for over in ({"rolls": 4}, {"pond_pushback_flat": 2}):
            blocks = booklet_blocks(base, base.replace(**over), lang)
            assert blocks
            for b in blocks:
                assert f"## {typography(b['title'], lang) if lang == 'fr' else game_words(b['title'])}" in text
                for para, changed, _ in b["paragraphs"]:
                    if changed:
                        line = para.split("\n")[0]
                        line = typography(line, "fr") if lang == "fr" else game_words(line)
                        assert f"**{line}**" in text or line in text, (lang, line)
    fr = (out / "rulebook.fr.md").read_text(encoding="utf-8")
    assert "**Chaque joueur lance ses dés jusqu'à quatre fois par tour.**" in fr


def test_each_goal_is_given_alone_combined_and_under_the_base(book):
    root, out, res = book
    s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert [a["study"] for a in s["answers"]] == ["alpha", "beta"]
    assert [x["study"] for x in s["skipped"]] == ["fine"] and s["skipped"][0]["why"] == "no change needed"
    assert s["games"] == 60 and s["seed"] == 11
    for g in s["goals"]:
        o = g["objectives"][0]
        assert o["metric"] == "length" and o["interaction"]["verdict"] in ("kept", "weakened", "undone",
                                                                           "strengthened")
        for k in ("base", "alone", "combined"):
            assert o[k]["loss"] > 0 and o[k]["low"] <= o[k]["loss"] <= o[k]["high"]
        row = o["tables"][0]
        assert row["table"] == "greedy-2" and all(len(row[k]) == 3 for k in ("base", "alone", "combined"))
    alpha = s["goals"][0]["objectives"][0]
    assert alpha["alone"]["loss"] != alpha["combined"]["loss"]  # the Pond's change plays too
    metrics = {x["metric"] for x in s["side_effects"]}
    assert {"length", "dead_turn_rate", "anxiety_rate", "comeback", "guide_serpent_win_rate",
            "seat_0_win_rate", "seat_1_win_rate"} <= metrics


def test_the_same_seed_gives_the_same_figures(book, tmp_path):
    root, out, res = book
    again = combine([root / "tune-alpha", root / "tune-beta"], games=60, seed=11, out=tmp_path / "again")
    assert again["goals"] == res["goals"] and again["side_effects"] == res["side_effects"]


def test_the_french_rulebook_reads_as_french(book):
    from heron_sim.glossary import check_page

    root, out, res = book
    for name in ("rulebook.fr.md", "rulebook.html"):
        text = (out / name).read_text(encoding="utf-8")
        found = check_page(text, "html" if name.endswith(".html") else "md")
        assert not found, "\n".join(map(str, found))
        assert "alpha" not in text.replace("tune-alpha", "") and "L1" not in text  # no ids in the prose
        assert "[4" not in text and "rolls" not in text  # no lists, no keys


# ---------------------------------------------------------------- bad input: one line
def _cli(*args):
    from heron_sim.cli import app

    res = CliRunner().invoke(app, ["tune", "--combine", *map(str, args)])
    lines = [x for x in res.output.splitlines() if x.strip()]
    return res.exit_code, lines


def test_bad_input_is_one_error_line(tmp_path):
    code, lines = _cli(tmp_path / "missing")
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:") and "no such file or folder" in lines[0]
    empty = tmp_path / "empty"
    empty.mkdir()
    code, lines = _cli(empty)
    assert code == 2 and len(lines) == 1 and "no study's answers here" in lines[0]
    bad = _study(tmp_path / "bad", "bad", "rolls = [4\n")
    code, lines = _cli(bad, "--out", tmp_path / "o1")
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:") and "bad-1-L1.toml" in lines[0], lines
    unknown = _study(tmp_path / "unk", "unk", "rollz = 4\n")
    code, lines = _cli(unknown, "--out", tmp_path / "o2")
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:") and "rollz" in lines[0], lines
    code, lines = _cli(unknown / "variants" / "unk-1-L1.toml", "--trials", "3")
    assert code == 2 and lines == ["error: --trials: not with --combine"]
    stray = tmp_path / "stray.toml"
    stray.write_text("rolls = 4\n")
    code, lines = _cli(stray)
    assert code == 2 and len(lines) == 1 and "no study's summary.json beside it" in lines[0]
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


def test_without_combine_its_options_are_refused_and_one_file_is_asked():
    from heron_sim.cli import app

    r = CliRunner()
    res = r.invoke(app, ["tune", "a.toml", "b.toml"])
    assert res.exit_code == 2 and "one tune file" in res.output
    res = r.invoke(app, ["tune", "a.toml", "--panel", "family"])
    assert res.exit_code == 2 and "--panel: only with --combine" in res.output
