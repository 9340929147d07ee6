"""The command line: JSON outputs, and a one-line error with exit code 2 on bad input."""

import json

import pytest
from typer.testing import CliRunner

from heron_sim.cli import app

pytestmark = pytest.mark.cli

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_turns_json_has_exactly_the_documented_keys():
    res = run("turns", "--mode", "8d8", "--strategy", "greedy", "--guide", "loup", "--rolls", "3",
              "--turns", "20000", "--seed", "1", "--no-powers", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert list(doc) == ["mode", "strategy", "guide", "rolls", "powers", "turns", "seed", "pond",
                         "anxiety", "advance", "pond_pushback", "requested", "played", "interrupted"]
    assert doc["powers"] is False and doc["turns"] == 20000 and doc["guide"] == "loup"
    assert doc["pond"] + doc["anxiety"] + sum(doc["advance"].values()) == 20000
    assert sum(doc["pond_pushback"].values()) == doc["pond"]
    assert all(int(k) >= 4 for k in doc["pond_pushback"])


def test_turns_accepts_english_guide_names():
    a = json.loads(run("turns", "--turns", "5000", "--guide", "wolf", "--json").output)
    b = json.loads(run("turns", "--turns", "5000", "--guide", "loup", "--json").output)
    assert a == b


def test_simulate_json_summary():
    res = run("simulate", "--mode", "7d8", "--games", "500", "--players", "3", "--seed", "2", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    for key in ("games", "finished", "rounds_mean", "rounds_median", "win_rate_by_seat",
                "win_rate_by_guide", "pond_per_game", "anxiety_per_played_turn",
                "advance_per_played_turn"):
        assert key in doc
    assert doc["games"] == 500 and len(doc["win_rate_by_seat"]) == 3
    # wins / finished games (the report's seat table); the unfinished ones counted apart
    assert doc["finished"] > 0 and abs(sum(doc["win_rate_by_seat"]) - 1) < 1e-9
    assert doc["unfinished"] == 500 - doc["finished"]
    assert set(doc["win_rate_by_guide"]) == {"loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron"}


def test_simulate_saves_parquet(tmp_path):
    import pandas as pd

    path = tmp_path / "games.parquet"
    res = run("simulate", "--games", "300", "--out", str(path), "--json")
    assert res.exit_code == 0
    df = pd.read_parquet(path)
    assert len(df) == 300 and {"seed", "game", "winner", "rounds", "guide_0"} <= set(df.columns)


def test_rules_file_and_set_overrides(tmp_path):
    f = tmp_path / "variant.toml"
    f.write_text('rolls = 4\nexact_finish = true\n[combinations]\nadvance = [0, 0, 0, 2]\n')
    res = run("rules", "--rules", str(f), "--set", "players=5")
    assert res.exit_code == 0, res.output
    table = json.loads(res.stdout)
    assert table["rolls"] == 4 and table["exact_finish"] is True and table["players"] == 5
    assert table["combinations"]["advance"][3:] == [2] * 6


BAD = [
    (["simulate", "--mode", "9d8"], "mode"),
    (["simulate", "--players", "1"], "players"),
    (["simulate", "--players", "8"], "players"),
    (["simulate", "--games", "-5"], "--games"),
    (["simulate", "--strategy", "wizard"], "--strategy"),
    (["simulate", "--strategy", "greedy,random"], "--strategy"),
    (["simulate", "--set", "rolls=-1"], "rolls"),
    (["simulate", "--set", "colour=blue"], "colour"),
    (["turns", "--guide", "dragon"], "--guide"),
    (["simulate", "--threads", "0"], "--threads"),
]


@pytest.mark.parametrize("args,field", BAD)
def test_bad_input_exits_2_with_one_line(args, field):
    res = run(*args, "--games", "10") if args[0] == "simulate" and "--games" not in args else run(*args)
    assert res.exit_code == 2
    lines = [l for l in res.output.strip().splitlines() if l]
    assert len(lines) == 1 and lines[0].startswith("error:") and field in lines[0], res.output


@pytest.mark.parametrize("content,field", [
    ("rolls = [", "malformed TOML"),
    ("[board]\nsquares = { 70 = \"loup\" }", "board.squares"),
    ("[board]\nsquares = { 10 = \"volcano\" }", "board.squares.10"),
    ("[dice]\nfaces = [[\"loup\", \"dragon\"]]", "dice.faces"),
    ("[dice]\ncount = -1", "dice.count"),
    ("[combinations]\nadvance = [0, -1]", "combinations.advance"),
    ("mode = \"12d8\"", "mode"),
])
def test_bad_rules_file_exits_2(tmp_path, content, field):
    f = tmp_path / "bad.toml"
    f.write_text(content)
    res = run("simulate", "--games", "10", "--rules", str(f))
    assert res.exit_code == 2
    lines = [l for l in res.output.strip().splitlines() if l]
    assert len(lines) == 1 and lines[0].startswith("error:") and field in lines[0], res.output


def test_disabled_powers_must_name_guides(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('disabled_powers = ["dragon"]')
    res = run("simulate", "--games", "10", "--rules", str(f))
    assert res.exit_code == 2 and res.output.startswith("error: disabled_powers[0]")


def test_exact_optimal_is_the_expert_optimum_or_a_bound():
    from heron_sim.animals import HERON
    from heron_sim.rules import Rules
    from heron_sim.strategies.expert_build import optimal_turn_value

    res = run("exact", "--mode", "7d8", "--guide", "heron", "--optimal", "--json")
    assert res.exit_code == 0, res.output
    opt = json.loads(res.stdout)["optimal_turn"]
    assert opt["exact"] is True
    assert opt["value"] == pytest.approx(optimal_turn_value(Rules.build(mode="7d8"), HERON, powers=False), abs=1e-12)
    res = run("exact", "--set", "dice.faces=[['loup','heron'],['taureau','heron'],['loup','taureau','heron']]",
              "--optimal", "--json")
    assert res.exit_code == 0, res.output
    opt = json.loads(res.stdout)["optimal_turn"]
    assert opt["exact"] is False and opt["upper_bound"] >= 0.0


def test_simulate_help_imports_no_game_nor_scipy():
    """The help of a command loads only what it shows (issue 61: every lighter game, pandas'
    frames and scipy were imported for one help line, about a second of every command's start)."""
    import subprocess
    import sys

    code = ("import sys\nfrom typer.testing import CliRunner\nfrom heron_sim.cli import app\n"
            "r = CliRunner().invoke(app, ['simulate', '--help'])\nassert r.exit_code == 0, r.output\n"
            "print(sorted(m for m in ('heron_sim.games', 'scipy.stats', 'heron_sim.analysis') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
