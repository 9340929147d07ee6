"""Nothing silent (issue 19, item 1): an unknown name is refused where the file is loaded, a
broken module is an error rather than a vanished section, `compare` plays what each file says
and states it, and the compile note reaches stderr whatever stderr is."""

import json
import sys
import types

import pandas as pd
import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from heron_sim.errors import HeronSimError
from heron_sim.runner import load_experiment

runner = CliRunner()
pytestmark = pytest.mark.cli


def _exp(tmp_path, body, name="exp.toml"):
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    return p


@pytest.mark.parametrize("key,value", [("seating", '["greedy", "expret"]'), ("seating", '"greedy,expret"'),
                                       ("strategies", '["expret"]'), ("seating", '"prudent:rsk=0.3"')])
def test_unknown_strategy_in_an_experiment_file_is_refused_at_load(tmp_path, key, value):
    kind = "anxiety" if key == "strategies" else "modes"  # each kind has its own keys
    path = _exp(tmp_path, f'kind = "{kind}"\nmodes = ["8d8"]\n{key} = {value}\n')
    with pytest.raises(HeronSimError) as err:
        load_experiment(path)
    msg = str(err.value)
    assert "\n" not in msg and key in msg and "allowed" in msg and "unknown key" not in msg


def test_unknown_strategy_on_the_command_line_run_is_one_line_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _exp(tmp_path, 'kind = "modes"\nmodes = ["8d8"]\nseating = ["greedy", "expret"]\n')
    res = runner.invoke(app, ["run", str(path), "--games", "10"])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "'expret' is not a strategy" in lines[0]
    assert not (tmp_path / "runs").exists()


def test_known_strategies_are_kept_in_order():
    from heron_sim.runner import resolve_strategies

    assert resolve_strategies("greedy, random") == ["greedy", "random"]
    assert resolve_strategies(["prudent:risk=0.2", "greedy"]) == ["prudent:risk=0.2", "greedy"]


def test_a_broken_lab_module_is_an_error_not_a_vanished_section(monkeypatch, tmp_path):
    from heron_sim import report

    broken = types.ModuleType("heron_sim.lab.outputs")  # lost its function (a bug in the module)
    monkeypatch.setitem(sys.modules, "heron_sim.lab.outputs", broken)
    with pytest.raises(ImportError):
        report.proposals_section(tmp_path)


def test_tournament_frame_accepts_only_a_tournament_result():
    from heron_sim.runner.run import _as_frame

    with pytest.raises(TypeError):
        _as_frame(pd.DataFrame({"ranking": [1]}))
    with pytest.raises(TypeError):
        _as_frame({"table": pd.DataFrame()})


def test_cli_registers_every_command_module_directly():
    names = {c.name for c in app.registered_commands} | {g.name for g in app.registered_groups}
    assert {"simulate", "turns", "modes", "exact", "rules", "run", "plan", "report", "compare",
            "tournament", "tune", "game"} <= names
    import inspect

    import heron_sim.cli as cli

    assert "ModuleNotFoundError" not in inspect.getsource(cli)


# ---------------------------------------------------------------- compare
def test_compare_plays_each_files_own_mode_and_says_so(tmp_path):
    a = _exp(tmp_path, 'rolls = 3\n', "a.toml")
    b = _exp(tmp_path, 'mode = "10d6"\n', "b.toml")
    res = runner.invoke(app, ["compare", str(a), str(b), "--games", "30", "--strategy", "greedy",
                              "--run-dir", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    first = res.stdout.splitlines()[0]
    assert first.startswith("compare: ") and "on 8d8" in first and "on 10d6" in first
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    modes = {j["key"]: j["mode"] for e in manifest["experiments"] for j in e["jobs"]}
    assert sorted(modes.values()) == ["10d6", "8d8"]
    assert "8 D8 (A) and 10 D6 (B)" in res.output


def test_compare_refuses_a_pair_with_different_players(tmp_path):
    a = _exp(tmp_path, 'rolls = 3\n', "a.toml")
    b = _exp(tmp_path, 'players = 5\n', "b.toml")
    res = runner.invoke(app, ["compare", str(a), str(b), "--games", "10"])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "4 players and B 5" in lines[0] and "--players" in lines[0]
    assert not (tmp_path / "runs").exists()


def test_compare_with_players_plays_both_with_them(tmp_path):
    from heron_sim.runner.compare_rules import compare_experiment

    a = _exp(tmp_path, 'rolls = 3\n', "a.toml")
    b = _exp(tmp_path, 'players = 5\n', "b.toml")
    exp = compare_experiment(a, b, players=3, games=10)
    assert exp.players == 3 and exp.a.build("8d8", 3).players == exp.b.build("8d8", 3).players == 3


def test_compare_reads_an_experiment_files_a_and_b(tmp_path):
    from heron_sim.runner.compare_rules import compare_experiment

    path = _exp(tmp_path, 'kind = "compare"\nmodes = ["8d8"]\nseating = "greedy"\ngames = 77\n'
                          '[a]\nlabel = "base"\n[b]\nlabel = "four"\nset = { rolls = 4 }\n')
    exp = compare_experiment(path)
    assert exp.games == 77 and exp.a.label == "base" and exp.b.overrides == {"rolls": 4}
    assert exp.b.build("8d8", 4).rolls == 4
    res = runner.invoke(app, ["compare", str(path), str(path)])
    assert res.exit_code == 2 and "give it alone" in res.output


def test_compare_of_an_experiment_file_side_uses_its_rules_and_mode(tmp_path):
    from heron_sim.runner.compare_rules import compare_experiment

    rules = _exp(tmp_path, 'rolls = 3\n', "a.toml")
    exp_file = _exp(tmp_path, 'kind = "modes"\nmodes = ["10d8"]\n[rules]\nset = { rolls = 4 }\n', "e.toml")
    exp = compare_experiment(rules, exp_file, games=10)
    rb = exp.b.build(exp.modes[0], exp.players)
    assert rb.mode == "10d8" and rb.rolls == 4 and exp.a.build(exp.modes[0], exp.players).mode == "8d8"


# ---------------------------------------------------------------- the compile note
def test_compile_note_is_printed_when_stderr_is_not_a_terminal(monkeypatch):
    from heron_sim.loop import kernels

    monkeypatch.delenv("HERON_SIM_COMPILE_NOTE", raising=False)
    monkeypatch.setattr(sys, "stderr", types.SimpleNamespace(isatty=lambda: False, write=lambda s: None))
    assert kernels._announce() is True
    monkeypatch.setenv("HERON_SIM_COMPILE_NOTE", "0")
    assert kernels._announce() is False
