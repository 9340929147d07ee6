"""The command line's frame: one error boundary and its exit codes, --version, the `game`
sub-commands, a table that does not depend on optional packages, help from the registries."""

import json
import sys
import types

import pytest
from typer.testing import CliRunner

from heron_sim.cli import ExitCode, app

runner = CliRunner()
pytestmark = pytest.mark.cli


def run(*args):
    return runner.invoke(app, list(map(str, args)))


def test_exit_codes_are_pytest_like():
    assert [int(c) for c in (ExitCode.OK, ExitCode.FAILURE, ExitCode.USAGE, ExitCode.INTERRUPTED)] == [0, 1, 2, 130]


def test_version():
    import heron_sim

    res = run("--version")
    assert res.exit_code == 0 and res.output.strip() == f"heron-sim {heron_sim.__version__}"


def test_domain_error_is_one_line_exit_2():
    res = run("rules", "--set", "rolls=abc")
    assert res.exit_code == ExitCode.USAGE
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "rolls" in lines[0]


def test_game_list_and_simulate_subcommands():
    from heron_sim import games

    listed = json.loads(run("game", "list", "--json").output)
    assert [g["name"] for g in listed] == list(games.available())
    new = run("game", "simulate", "akeruption", "--games", "30", "--seed", "4", "--json")
    old = run("game", "akeruption", "simulate", "--games", "30", "--seed", "4", "--json")
    bare = run("game", "akeruption", "--games", "30", "--seed", "4", "--json")
    assert new.exit_code == 0, new.output
    assert json.loads(new.output) == json.loads(old.output) == json.loads(bare.output)
    assert json.loads(new.output)["games"] == 30
    res = run("game", "simulate", "nosuchgame")
    assert res.exit_code == 2 and "allowed: akeruption" in res.output


def test_simulate_table_is_markdown_without_tabulate(monkeypatch):
    monkeypatch.setitem(sys.modules, "tabulate", None)  # as if it were not installed
    res = run("simulate", "--games", "40", "--players", "2")
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert lines[0].startswith("| ") and set(lines[1]) <= set("|-")
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines[:1] + lines[2:])
    fake = types.ModuleType("tabulate")
    monkeypatch.setitem(sys.modules, "tabulate", fake)  # installed (or broken): the same text
    assert run("simulate", "--games", "40", "--players", "2").output == res.output


def test_help_lists_every_registered_strategy():
    from heron_sim.simulation import user_strategies

    res = run("simulate", "--help")
    text = " ".join(res.output.split())
    for name in user_strategies():
        assert name in text
    assert "(greedy, random)" not in text


# ---------------------------------------------------------------- dependencies held
def test_numba_hooks_present_in_the_installed_numba():
    import numba

    from heron_sim import _deps

    assert _deps.missing_numba_hooks(numba) == []
    _deps.check_numba()


def test_a_numba_without_a_hook_fails_with_one_line_naming_the_version():
    import numba

    from heron_sim import _deps

    class FakeCaching:
        _SourceFileBackedLocatorMixin = _CacheLocator = NullCache = object
        IndexDataCacheFile = numba.core.caching.IndexDataCacheFile

        class CacheImpl:  # lost _locator_classes
            pass

    import numba.core.cgutils
    import numba.core.cpu
    import numba.core.registry

    core = dict(caching=FakeCaching, dispatcher=numba.core.dispatcher, cpu=numba.core.cpu, cgutils=numba.core.cgutils,
                registry=numba.core.registry)
    fake = types.SimpleNamespace(__version__="0.99.0", core=types.SimpleNamespace(**core))
    assert _deps.missing_numba_hooks(fake) == ["numba.core.caching.CacheImpl._locator_classes"]
    # the kernels' private _nrt option and the plug-ins' cgutils are held too (issue 29 item 7)
    no_nrt = types.SimpleNamespace(**core | {"cpu": types.SimpleNamespace(CPUTargetOptions=object),
                                              "cgutils": types.SimpleNamespace()})
    assert _deps.missing_numba_hooks(types.SimpleNamespace(core=no_nrt))[1:] == [
        "numba.core.cpu.CPUTargetOptions._nrt", "numba.core.cgutils.unpack_tuple"]
    with pytest.raises(ImportError) as err:
        _deps.check_numba(fake)
    msg = str(err.value)
    assert "\n" not in msg and "numba 0.99.0" in msg and "_locator_classes" in msg and "numba<0.69" in msg


def test_typer_click_is_the_click_typer_builds_on():
    import typer.core

    from heron_sim import _deps

    click = _deps.typer_click()
    assert issubclass(typer.core.TyperGroup, click.Command)


def test_pyproject_pins_numba_and_typer_below_the_next_minor():
    import re
    import tomllib
    from pathlib import Path

    from heron_sim import _deps

    deps = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]["dependencies"]
    for name in ("numba", "typer"):
        spec = next(d for d in deps if re.match(rf"{name}\b", d))
        assert f"<{_deps._next_minor(_deps.TESTED[name])}" in spec, spec


def test_run_checks_live_in_the_runner(tmp_path):
    from heron_sim.errors import HeronSimError
    from heron_sim.runner.run import prepare_run

    exp = tmp_path / "e.toml"
    exp.write_text('kind = "modes"\nmodes = ["8d8"]\ngames = 10\nseating = "greedy"\n')
    exps, manifest = prepare_run([exp], None, None)
    assert [e.name for e in exps] == ["e"] and manifest is None
    with pytest.raises(HeronSimError, match="--resume: give the run folder"):
        prepare_run([exp], None, None, resume=True)
    with pytest.raises(HeronSimError, match="names must be unique"):
        prepare_run([exp, exp], None, None)
    with pytest.raises(HeronSimError, match="--games: 0"):
        prepare_run([exp], None, 0)


def test_report_json_lists_the_files_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exp = tmp_path / "e.toml"
    exp.write_text('kind = "pond"\nmodes = ["8d8"]\ngames = 20\nturns = 200\nseating = "greedy"\n')
    res = run("run", exp, "--run-dir", tmp_path / "run")
    assert res.exit_code == 0, res.output
    res = run("report", "--from", tmp_path / "run", "--out", tmp_path / "out", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["run_dir"] == str(tmp_path / "run")
    assert doc["html"].endswith("report.html") and (tmp_path / "out" / "report.html").is_file()


def test_tournament_takes_strategy_like_every_other_command():
    res = run("tournament", "--strategy", "greedy,random", "--games", "20", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["strategies"] == ["greedy", "random"]
