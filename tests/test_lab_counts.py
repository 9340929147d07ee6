"""What the lab counts and files (issue 58 item 4): a rule changed is a value that differs from
the base (a base value restated is no change, under ``[seats.N]`` and ``[guide.X]`` too; a sheet
never lists a row equal in both columns), and a "no change needed" study writes no proposal."""

from __future__ import annotations

import json

import pytest

from heron_sim.lab import load_spec, tune
from heron_sim.lab.changes import rule_changes
from heron_sim.lab.ladder import one_key_entries
from heron_sim.lab.sheets import rule_sheet
from heron_sim.rules import Rules


def _build(**over) -> Rules:
    return Rules.build(mode="8d8", overrides=over)


@pytest.mark.parametrize("base,variant", [
    ({}, {"start_squares": [0, 0, 0, 0]}),                          # the rulings' [] padded with zeros
    ({}, {"first_turn_extra_rolls": [0, 0]}),
    ({"start_squares": [0, 1]}, {"start_squares": [0, 1, 0, 0]}),
    ({}, {"seats": {"5": {"start_squares": [0, 0, 0]}}}),          # a count's list restating every count's
    ({"seats": {"5": {"start_squares": [0, 1, 1]}}}, {"seats": {"5": {"start_squares": [0, 1, 1, 0, 0]}}}),
    ({"start_squares": [0, 1]}, {"start_squares": [0, 1], "seats": {"6": {"start_squares": [0, 1, 0]}}}),
    ({}, {"guide": {"heron": {"rolls": 3}}}),                        # a guide's value restating everyone's
    ({"rolls": 4}, {"rolls": 4, "guide": {"bull": {"rolls": 4}}}),
])
def test_a_base_value_restated_is_no_change(base, variant):
    b, v = _build(**base), _build(**variant)
    assert rule_changes(b, v) == []
    assert "Aucune règle ne change." in rule_sheet(b, v, None, "fr")


def test_a_count_that_keeps_the_old_list_under_a_new_rule_is_a_rule_of_its_own():
    # every count gets a head start but 5 players keep none: two rules, each row says something new
    v = _build(start_squares=[0, 0, 1, 1], seats={"5": {"start_squares": []}})
    keys = [c.key for c in rule_changes(_build(), v)]
    assert keys == ["start_squares", "seats.5.start_squares"]


@pytest.mark.parametrize("variant", [
    {"start_squares": [0, 0, 1, 1], "seats": {"5": {"start_squares": []}}},
    {"seats": {"5": {"start_squares": [0, 1, 1, 2, 2]}}, "start_squares": [0, 0, 0]},
    {"guide": {"heron": {"rolls": 4, "anxiety_threshold": 3}}},
    {"rolls": 4, "guide": {"heron": {"rolls": 3}}},
    {"first_turn_extra_rolls": [0, 1, 0, 0], "pond_pushback_max": 6},
])
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_sheet_never_lists_a_row_equal_in_both_columns(variant, lang):
    md = rule_sheet(_build(), _build(**variant), None, lang)
    rows = [line.split(" | ") for line in md.splitlines()
            if line.startswith("| ") and not line.startswith(("| Rule |", "| Règle |"))]
    assert rows, md
    for cells in rows:
        assert cells[1].strip() != cells[2].strip(" |"), md


def test_the_ladder_skips_a_base_value_restated(tmp_path):
    p = tmp_path / "tune-seat.toml"
    p.write_text('seating = "greedy"\n[[param]]\nkey = "start_squares[3]"\nint = [0, 1]\n'
                 '[[objective]]\nmetric = "first_player_advantage"\ntarget = 0\n', encoding="utf-8")
    spec = load_spec(p)
    # start_squares[3] = 0 gives [0, 0, 0, 0]: the rulings' [], no entry of the ladder
    assert [e.values for e in one_key_entries(spec)] == [{"start_squares[3]": 1}]


CALM = """
name = "calm"
seed = 3
seating = "greedy"
[search]
trials = 1
games = 200
sampler = "random"
[racing]
rungs = [200, 400]
report = 2
[ladder]
max_keys = 1
[[param]]
key = "bull_bonus"
int = [1, 3]
[[objective]]
metric = "completion"
at_least = 0.5
"""


def test_a_no_change_needed_study_writes_its_finding_and_no_proposal(tmp_path):
    p = tmp_path / "tune-calm.toml"
    p.write_text(CALM, encoding="utf-8")
    out = tmp_path / "out"
    res = tune(p, run_dir=tmp_path / "run", out=out, progress=False)
    assert res["base"]["meets"] and res["finding"].startswith("No change needed")
    assert res["finalists"]  # the variants, for information
    assert not (out / "variants").exists()
    assert not list(out.glob("sheet-*")) and not list(out.glob("booklet-*"))
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["finding"].startswith("No change needed")
    assert all(v["rules_file"] is None for v in summary["finalists"])
    assert "No rules file" in (out / "front.md").read_text(encoding="utf-8")
    from heron_sim.lab.outputs import proposed_changes

    (tmp_path / "results").mkdir()
    (out).rename(tmp_path / "results" / "tune-calm")
    (entry,) = proposed_changes(tmp_path / "results")
    assert entry["variants"] == [] and entry["finding"].startswith("No change needed")


KEEP = CALM.replace('name = "calm"', 'name = "keep"').replace("at_least = 0.5", "at_most = 0.5") + "[check]\nheld_out = false\n"


def test_a_keep_the_rulings_study_says_at_the_top_of_each_file_that_it_proposes_nothing(tmp_path):
    """Issue 58 item 4: the rulings miss the goal (every game ends: completion 1, not at most 0.5)
    and no variant does better on any objective: the finding says "keep the rulings", and the
    closest variant's rules file, rule sheet and booklet text say so under their title, in French
    and English, not as a proposal."""
    from heron_sim.glossary import check_fr
    from heron_sim.lab.outputs import KEEP_NOTE, keeps_rulings

    p = tmp_path / "tune-keep.toml"
    p.write_text(KEEP, encoding="utf-8")
    out = tmp_path / "out"
    res = tune(p, run_dir=tmp_path / "run", out=out, progress=False)
    assert "keep the rulings" in res["finding"] and not res["base"]["meets"] and keeps_rulings(res)
    vid = res["finalists"][0]["id"]
    (toml,) = (out / "variants").glob("keep-1-*.toml")
    assert toml.read_text(encoding="utf-8").startswith("# The study advises keeping the rulings: ")
    for kind in ("sheet", "booklet"):
        for lang, says in (("fr", "**L'étude conseille de garder les règles officielles**"),
                           ("en", "**The study advises keeping the rulings**")):
            lines = (out / f"{kind}-{vid}.{lang}.md").read_text(encoding="utf-8").splitlines()
            assert lines[0].startswith("# ") and lines[2] == KEEP_NOTE[lang] and lines[2].startswith(says)
            assert "pas une proposition" in lines[0] if lang == "fr" else "not a proposal" in lines[0]  # its title too
            assert "Proposition de règle" not in lines[0] and "Rule proposal" not in lines[0]
        page = (out / f"{kind}-{vid}.html").read_text(encoding="utf-8")
        assert "<strong>L'étude conseille de garder les règles officielles</strong>" in page.replace("&#x27;", "'")
        assert "<title>" in page and "conseille" not in page.split("<title>")[1].split("</title>")[0]
    assert check_fr(KEEP_NOTE["fr"]) == []
    # a study that proposes a change says nothing of the kind
    calm = json.loads(json.dumps(res, default=str))
    calm["finalists"][0]["objectives"][0]["verdict"] = "better"
    assert not keeps_rulings(calm)
