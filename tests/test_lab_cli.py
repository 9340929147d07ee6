"""`heron-sim tune` and `simulate --precision` on the command line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from tests.test_lab import SMALL

pytestmark = pytest.mark.cli

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


@pytest.mark.parametrize("text,message", [
    (None, "no such tune file"),
    ("name = ", "not valid TOML"),
    (SMALL.replace('metric = "guide_spread"', 'metric = "fun"'), "objective[0].metric"),
    (SMALL.replace("int = [0, 6]", "int = [0, 99]"), "param[0] (bull_bonus = 99)"),
])
def test_tune_bad_input_is_one_error_line(tmp_path, text, message):
    path = tmp_path / "tune-x.toml"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    res = run("tune", str(path))
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], res.output


@pytest.mark.parametrize("args,message", [
    (["--trials", "0"], "--trials"), (["--time-limit", "soon"], "--time-limit"),
    (["--precision", "2"], "--precision"), (["--scheduler", "ftp://x"], "--scheduler"),
])
def test_tune_bad_options(tmp_path, args, message):
    path = tmp_path / "tune-small.toml"
    path.write_text(SMALL, encoding="utf-8")
    res = run("tune", str(path), "--run-dir", str(tmp_path / "run"), "--out", str(tmp_path / "out"), *args)
    assert res.exit_code == 2 and res.output.startswith("error: ") and message in res.output, res.output


def test_tune_command_writes_results(tmp_path):
    path = tmp_path / "tune-small.toml"
    path.write_text(SMALL, encoding="utf-8")
    res = run("tune", str(path), "--trials", "3", "--games", "200", "--time-limit", "5m",
              "--run-dir", str(tmp_path / "run"), "--out", str(tmp_path / "out"))
    assert res.exit_code == 0, res.output
    assert "## Finding" in res.output
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["trials"] == 3


def test_simulate_precision_plays_until_the_win_rates_are_that_narrow():
    res = run("simulate", "--games", "2000", "--precision", "0.02", "--seed", "3", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output.splitlines()[-1])
    widths = [(hi - lo) / 2 for lo, hi in doc["win_rate_by_seat_ci"]]
    widths += [(hi - lo) / 2 for lo, hi in doc["win_rate_by_guide_ci"].values()]
    assert max(widths) <= 0.02
    assert doc["games"] % 2000 == 0 and doc["games"] > 2000
    # One block fewer would not have been enough.
    from heron_sim.lab.precision import widest_halfwidth
    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate

    fewer = simulate(Rules.build(), doc["games"] - 2000, 3, "greedy")
    assert widest_halfwidth(fewer) > 0.02
