"""Reliability, round five (issue 63): one command's paths never overwrite each other, and every
text file heron-sim reads (targets included) goes through the one reader.

Each test reproduces a reported failure (it fails on the code before the fix): ``simulate --out
F.csv --log-turns F.csv`` exited 0 with the games gone; a targets file with one Latin-1 byte was a
``UnicodeDecodeError`` traceback in every reader; a tune whose ``--out`` held its own run folder
or tune file would have replaced them with its results.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from heron_sim.analysis.targets import load_targets
from heron_sim.errors import HeronSimError
from heron_sim.io import check_distinct, read_text
from tests.helpers import cli, one_line_error

pytestmark = [pytest.mark.cli, pytest.mark.exact]


# ---------------------------------------------------------------- distinct output paths
@pytest.mark.parametrize("spelling", ["same", "dot", "link"])
def test_simulate_refuses_one_file_for_games_and_turn_log(tmp_path, spelling):
    out = tmp_path / "F.csv"
    out.write_text("kept\n", encoding="utf-8")
    other = {"same": out, "dot": tmp_path / "." / "F.csv", "link": tmp_path / "L.csv"}[spelling]
    if spelling == "link":
        other.symlink_to(out)
    line = one_line_error(cli("simulate", "--games", 5, "--out", out, "--log-turns", other))
    assert "--log-turns" in line and "--out" in line
    assert out.read_text(encoding="utf-8") == "kept\n"  # nothing written over, no game played
    assert not (tmp_path / "F.csv.meta.json").exists()


def test_check_distinct_hard_link_and_inputs(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("x", encoding="utf-8")
    os.link(a, tmp_path / "b.csv")
    with pytest.raises(HeronSimError, match=r"--log-turns: .*b\.csv is also --out"):
        check_distinct({"--out": a, "--log-turns": tmp_path / "b.csv"})
    with pytest.raises(HeronSimError, match=r"--out: .*a\.csv is also --rules, which the command reads"):
        check_distinct({"--out": a}, {"--rules": tmp_path / "b.csv"})
    # distinct names, absent options and a folder that is not replaced whole all pass
    check_distinct({"--out": a, "--log-turns": tmp_path / "c.csv", "--trace": None}, {"--rules": None})
    check_distinct({"--run-dir": tmp_path / "run", "--out": tmp_path / "run" / "report"})


def test_check_distinct_folder_replaced_whole(tmp_path):
    out = tmp_path / "results"
    with pytest.raises(HeronSimError, match=r"--run-dir: .* lies inside --out .*replaced as a whole"):
        check_distinct({"--run-dir": out / "run", "--out": out}, whole=("--out",))
    with pytest.raises(HeronSimError, match=r"tune file: .* lies inside --out"):
        check_distinct({"--run-dir": tmp_path / "run", "--out": out}, {"tune file": out / "t.toml"},
                       whole=("--out",))
    # the folder above --out is not inside it
    check_distinct({"--run-dir": tmp_path, "--out": out}, whole=())


TUNE = """
name = "tiny"
seed = 3
[search]
trials = 1
games = 50
population = 2
batch_games = 50
[racing]
rungs = [50]
keep = 1
report = 1
max_candidates = 1
[ladder]
max_keys = 0
[[param]]
key = "bull_bonus"
int = [0, 3]
[[objective]]
metric = "guide_spread"
direction = "minimize"
"""


@pytest.mark.parametrize("layout", ["same", "run-inside-out", "file-inside-out"])
def test_tune_refuses_paths_its_results_would_replace(tmp_path, layout):
    out = tmp_path / "out"
    out.mkdir()
    spec = (out if layout == "file-inside-out" else tmp_path) / "tune-tiny.toml"
    spec.write_text(TUNE, encoding="utf-8")
    run_dir = {"same": out, "run-inside-out": out / "run", "file-inside-out": tmp_path / "run"}[layout]
    line = one_line_error(cli("tune", spec, "--run-dir", run_dir, "--out", out))
    assert "--out" in line
    assert spec.read_text(encoding="utf-8") == TUNE
    assert sorted(p.name for p in out.iterdir()) == (["tune-tiny.toml"] if layout == "file-inside-out" else [])


def test_report_refuses_one_folder_for_run_and_report(tmp_path):
    line = one_line_error(cli("report", "--run-dir", tmp_path / "x", "--out", tmp_path / "x"))
    assert "--out" in line and "--run-dir" in line
    assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------- the one reader: targets
def test_targets_file_not_utf8_is_one_line(tmp_path):
    bad = tmp_path / "targets.toml"
    bad.write_bytes(b"# cible d'\xe9quit\xe9\nfirst_player_edge = 0.02\n")
    with pytest.raises(HeronSimError, match="not UTF-8"):
        load_targets(bad)
    line = one_line_error(cli("targets", bad))
    assert "not UTF-8" in line and "targets.toml" in line


@pytest.mark.parametrize("content, words", [
    ("a = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    ("first_player_edge = ", "malformed TOML"),
])
def test_targets_file_damaged_is_one_line(tmp_path, content, words):
    bad = tmp_path / "targets.toml"
    bad.write_text(content, encoding="utf-8")
    assert words in one_line_error(cli("targets", bad))


def test_targets_missing_file_is_one_line(tmp_path):
    assert "file not found" in one_line_error(cli("targets", tmp_path / "none.toml"))


def test_byte_order_mark_is_read_as_text(tmp_path):
    """A spreadsheet's "CSV UTF-8" or an editor's BOM is no part of the text."""
    p = tmp_path / "t.toml"
    p.write_bytes("\ufeffname = \"été\"\n".encode("utf-8"))
    assert read_text(p) == 'name = "été"\n'
    from heron_sim.tomlfile import read_toml

    assert read_toml(p, "--rules") == {"name": "été"}


def test_targets_byte_order_mark_accepted(tmp_path):
    good = tmp_path / "targets.toml"
    base = Path(__file__).resolve().parents[1] / "experiments" / "targets.toml"
    text = base.read_text(encoding="utf-8") if base.is_file() else ""
    good.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_targets(good).items == load_targets(base if base.is_file() else None).items


@pytest.mark.parametrize("command", [("targets",), ("rules", "--rules"), ("calibrate",)])
def test_a_named_pipe_is_refused_not_waited_on(tmp_path, command):
    """A FIFO with no writer would block the reader's open for ever: one line instead."""
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    line = one_line_error(cli(*command, fifo))
    assert "pipe" in line and "not a file" in line
