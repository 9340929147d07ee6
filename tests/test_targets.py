"""The designer's targets (issue 30 item 1): one file, every value assumed until set, every bad
input one line, and the report's margins and minutes read from it."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from heron_sim.analysis.targets import DEFAULT_PATH, TARGETS, load_targets, parse_targets, targets_text
from heron_sim.errors import HeronSimError

pytestmark = pytest.mark.exact


def test_the_shipped_file_names_every_target_and_marks_each_assumed():
    data = tomllib.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    assert set(data) - {"game"} == {t.name for t in TARGETS}
    from heron_sim.games import available

    assert set(data["game"]) == set(available())  # a section per lighter game (issue 34 item 2)
    t = load_targets(DEFAULT_PATH)
    # Nothing in it comes from the seed or a playtest yet: every value is an assumption.
    assert t.assumed() == [k.name for k in TARGETS]
    assert "8 of 8 targets are assumed" in targets_text(t)


def test_a_target_left_out_keeps_its_default_and_counts_as_assumed():
    t = parse_targets({"seconds_per_turn": {"value": 55, "assumed": False, "source": "playtest 2026-11"}})
    assert t["seconds_per_turn"] == 55 and "seconds_per_turn" not in t.assumed()
    assert t["share_margin"] == 0.01 and "share_margin" in t.assumed()
    assert t.minutes(4) == (30.0, 45.0) and t.to_minutes(20, 4) == pytest.approx(20 * 4 * 55 / 60)


@pytest.mark.parametrize("data,message", [
    ({"length": {"value": 3}}, "[length]: unknown target"),
    ({"share_margin": {"value": 1.5}}, "[share_margin].value: 1.5; allowed: a number from 0 to 1"),
    ({"share_margin": {"value": 0.02, "assumd": True}}, "[share_margin].assumd: unknown field"),
    ({"share_margin": {"value": 0.02, "assumed": "yes"}}, "[share_margin].assumed: 'yes'; allowed: true, false"),
    ({"share_margin": 0.02}, "[share_margin]: expected a table"),
    ({"share_margin": {"assumed": True}}, "[share_margin].value: missing"),
    ({"length_minutes": {"value": {"9": [1, 2]}}}, "[length_minutes].value.9: unknown player count"),
    ({"length_minutes": {"value": {"4": [45, 30]}}}, "lowest <= highest"),
    ({"skill_gap": {"value": [0.7]}}, "[skill_gap].value: [0.7]; allowed: [lowest, highest]"),
    ({"seconds_per_turn": {"value": 0}}, "[seconds_per_turn].value: 0; allowed: a finite number above 0"),
])
def test_every_bad_target_is_one_line(data, message):
    with pytest.raises(HeronSimError) as err:
        parse_targets(data, "targets.toml")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_length_target_for_a_count_the_file_lacks_is_refused():
    t = parse_targets({"length_minutes": {"value": {"4": [30, 45]}}})
    with pytest.raises(HeronSimError, match="no length_minutes for 6 players"):
        t.minutes(6)
    with pytest.raises(HeronSimError, match="unknown"):
        t["seconds"]


def test_the_reports_margins_and_minutes_come_from_the_designers_file(tmp_path):
    f = tmp_path / "targets.toml"
    f.write_text('[seconds_per_turn]\nvalue = 60\nassumed = false\n[share_margin]\nvalue = 0.02\n'
                 '[length_minutes]\nvalue = { 4 = [20, 30] }\n', encoding="utf-8")
    code = ("from heron_sim.runner.kinds.common import minutes, SECONDS_PER_TURN\n"
            "from heron_sim.analysis.judge import SHARE_MARGIN\n"
            "from heron_sim.analysis.executive import TARGET_MINUTES\n"
            "print(SECONDS_PER_TURN, minutes(10, 4), SHARE_MARGIN, TARGET_MINUTES)")
    env = {"HERON_SIM_TARGETS": str(f), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["60", "40.0", "0.02", "(20.0,", "30.0)"]


def test_the_targets_file_is_not_an_experiment_of_the_plan():
    from heron_sim.cli.plan import plan_files

    names = [p.name for p in plan_files(DEFAULT_PATH.parent)]
    assert "targets.toml" not in names and "modes.toml" in names


# ---------------------------------------------------------------- every number finite
HUGE = 10 ** 400  # a whole TOML integer too large for a float
NOT_FINITE = [
    ({"seconds_per_turn": {"value": float("inf")}}, "[seconds_per_turn].value: inf"),
    ({"seconds_per_turn": {"value": float("nan")}}, "[seconds_per_turn].value: nan"),
    ({"seconds_per_turn": {"value": HUGE}}, f"[seconds_per_turn].value: {HUGE!r}"),
    ({"length_minutes": {"value": {"4": [30, float("inf")]}}}, "[length_minutes].value.4: inf"),
    ({"length_minutes": {"value": {"4": [float("-inf"), 45]}}}, "[length_minutes].value.4: -inf"),
    ({"length_minutes": {"value": {"4": [30, float("nan")]}}}, "[length_minutes].value.4: nan"),
    ({"length_minutes": {"value": {"4": [30, HUGE]}}}, f"[length_minutes].value.4: {HUGE!r}"),
    ({"game": {"rampage": {"length_rounds": {"value": {"4": [6, float("inf")]}}}}},
     "[game.rampage.length_rounds].value.4: inf"),
]


@pytest.mark.parametrize("data,message", NOT_FINITE, ids=lambda x: None if isinstance(x, dict) else x[:40])
def test_every_number_of_the_targets_is_finite(data, message):
    """TOML reads inf and nan as numbers: an infinite longest length or seconds per turn passed the
    check "above 0" (every game "within" its length, every length 0 or inf rounds in the lab), and a
    whole number too large for a float passed it to raise OverflowError later (a traceback). One
    line naming the file, the key and what is allowed."""
    with pytest.raises(HeronSimError) as err:
        parse_targets(data, "targets.toml")
    assert str(err.value) == f"targets.toml: {message}; allowed: a finite number above 0"


BAD = {"seconds": "[seconds_per_turn]\nvalue = inf\n",
       "length": "[length_minutes]\nvalue = { 2 = [15, 25], 3 = [20, 35], 4 = [30, inf], 5 = [35, 55], "
                 "6 = [40, 65], 7 = [45, 75] }\n"}
SAID = {"seconds": "[seconds_per_turn].value: inf", "length": "[length_minutes].value.4: inf"}


def _bad(tmp_path, which):
    f = tmp_path / "targets.toml"
    f.write_text(BAD[which], encoding="utf-8")
    return f, f"error: targets.toml: {SAID[which]}; allowed: a finite number above 0"


@pytest.mark.parametrize("which", BAD)
def test_heron_sim_targets_refuses_a_number_that_is_not_finite(which, tmp_path):
    from tests.helpers import cli, one_line_error

    f, said = _bad(tmp_path, which)
    assert one_line_error(cli("targets", f)) == said


@pytest.mark.parametrize("which", BAD)
def test_the_report_refuses_a_number_that_is_not_finite(which, tmp_path, monkeypatch):
    """The report reads the targets when it is imported (analysis.judge): a process of its own."""
    from tests.helpers import spawn

    f, said = _bad(tmp_path, which)
    (tmp_path / "run").mkdir()
    monkeypatch.setenv("HERON_SIM_TARGETS", str(f))
    proc = spawn(["report", "--from", tmp_path / "run", "--out", tmp_path / "out"])
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 2 and err.strip() == said and "Traceback" not in out + err, (out, err)
    assert not (tmp_path / "out").exists()


def test_a_study_that_reads_the_length_target_refuses_one_that_is_not_finite(tmp_path, monkeypatch):
    """``tune``: a study whose goal is the designer's length (at_most = "targets") read an infinite
    longest length as an infinite goal; refused before any game, on the command line and in Python."""
    from heron_sim.lab import tune
    from tests.helpers import cli, one_line_error
    from tests.test_lab_decide import HERON_SPEC

    f, said = _bad(tmp_path, "length")
    monkeypatch.setenv("HERON_SIM_TARGETS", str(f))
    study = tmp_path / "tune-choice.toml"
    study.write_text(HERON_SPEC + '\n[[objective]]\nmetric = "length"\nat_most = "targets"\n', encoding="utf-8")
    run, out = tmp_path / "run", tmp_path / "out"
    assert one_line_error(cli("tune", study, "--run-dir", run, "--out", out, "--trials", 1, "--games", 10,
                              "--rungs", 10)) == said
    with pytest.raises(HeronSimError) as err:
        tune(study, run_dir=run, out=out, trials=1, games=10, rungs=(10,))
    assert f"error: {err.value}" == said
    assert not out.exists()


def test_calibrate_refuses_a_seconds_per_turn_that_is_not_finite(tmp_path, monkeypatch):
    """``calibrate LOG.csv`` of a log without seconds says the seconds per turn the length verdict
    keeps: "its assumed inf s a turn" before."""
    from tests.helpers import ROOT, cli, one_line_error

    f, said = _bad(tmp_path, "seconds")
    monkeypatch.setenv("HERON_SIM_TARGETS", str(f))
    assert one_line_error(cli("calibrate", ROOT / "experiments" / "playtest-sample.csv", "--lang", "en")) == said
