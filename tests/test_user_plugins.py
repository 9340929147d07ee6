"""User strategies from outside the package (issue 19, item 3): `--plugin MODULE` on the
command line, `plugins = [...]` in an experiment file, and the entry point group
`heron_sim.strategies`; each plays inside the generated kernels."""

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from heron_sim import user_plugins
from heron_sim.cli import app
from heron_sim.errors import HeronSimError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "experiments" / "plugin_strategy.py"
runner = CliRunner()
pytestmark = pytest.mark.cli


def test_plugin_option_loads_a_file_and_plays_it():
    res = runner.invoke(app, ["--plugin", str(EXAMPLE), "simulate", "--strategy", "satisficer:stop_at=3,greedy",
                              "--players", "2", "--games", "60", "--seed", "5", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["games"] == 60 and doc["finished"] == 60


def test_plugin_option_refuses_what_it_cannot_load(tmp_path):
    res = runner.invoke(app, ["--plugin", str(tmp_path / "nope.py"), "rules"])
    assert res.exit_code == 2 and res.output.strip().splitlines() == [
        f"error: --plugin: {tmp_path / 'nope.py'}: file not found"]
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    res = runner.invoke(app, ["--plugin", str(bad), "rules"])
    assert res.exit_code == 2 and "import failed: RuntimeError: boom" in res.output
    res = runner.invoke(app, ["--plugin", "no_such_module_xyz", "rules"])
    assert res.exit_code == 2 and "no module named 'no_such_module_xyz'" in res.output


def test_experiment_file_plugins_are_loaded_before_the_seating(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLE, tmp_path / "my_strategy.py")
    exp = tmp_path / "mine.toml"
    exp.write_text('kind = "modes"\nmodes = ["8d8"]\nplayers = 2\ngames = 40\n'
                   'plugins = ["my_strategy.py"]\nseating = ["satisficer:stop_at=3", "greedy"]\n')
    res = runner.invoke(app, ["run", str(exp), "--run-dir", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    frames = [pd.read_parquet(p) for p in (tmp_path / "run").rglob("*.parquet")]
    seats = set(pd.concat(frames)["strategy_0"]) | set(pd.concat(frames)["strategy_1"])
    assert "satisficer:stop_at=3" in seats
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["experiments"][0]["experiment"]["plugins"] == [str(tmp_path / "my_strategy.py")]
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "modes"\nplugins = ["missing.py"]\n')
    res = runner.invoke(app, ["run", str(bad)])
    assert res.exit_code == 2 and "plugins" in res.output and "file not found" in res.output


def test_entry_point_plugin_is_found_by_name(tmp_path, monkeypatch):
    from importlib import metadata

    from heron_sim.strategies import REGISTRY, parse_strategy

    (tmp_path / "ep_strategy.py").write_text(textwrap.dedent(f'''
        import importlib.util
        spec = importlib.util.spec_from_file_location("ep_example", {str(EXAMPLE)!r})
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)

        def register():
            from heron_sim.strategies import register_strategy
            register_strategy("epsatisficer", example.satisficer_decide, params={{"stop_at": 4.0}}, replace=True)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = metadata.EntryPoint(name="epsatisficer", value="ep_strategy:register", group=user_plugins.ENTRY_POINT_GROUP)
    monkeypatch.setattr(metadata, "entry_points", lambda group=None: [ep] if group == user_plugins.ENTRY_POINT_GROUP else [])
    import heron_sim.strategies as strategies

    monkeypatch.setattr(strategies, "_entry_points_done", False)
    monkeypatch.setitem(sys.modules, "ep_strategy_unused", None)
    assert "epsatisficer" not in REGISTRY
    try:
        assert parse_strategy("epsatisficer:stop_at=2") == ("epsatisficer", {"stop_at": 2.0})
        from heron_sim import Rules, simulate

        df = simulate(Rules.build(players=2), 30, 1, "epsatisficer,greedy")
        assert len(df) == 30 and df["strategy_0"].iloc[0] == "epsatisficer"
    finally:
        REGISTRY.pop("epsatisficer", None)


def test_load_plugin_twice_adds_nothing():
    first = user_plugins.load_plugin(EXAMPLE)
    assert user_plugins.load_plugin(EXAMPLE) == first
    with pytest.raises(HeronSimError):
        user_plugins.load_plugin("definitely_not_a_module_abc")
