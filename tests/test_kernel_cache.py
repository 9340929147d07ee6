"""The compiled-kernel cache: per strategy set, announced once, self-repairing, never stale,
never written outside its folder (issues 9, 10 and 12)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.cli

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "heron_sim"


def _run(args, cache, env_extra=None, cwd=ROOT, pythonpath=ROOT):
    env = dict(os.environ, HERON_SIM_CACHE=str(cache), PYTHONPATH=str(pythonpath),
               HERON_SIM_COMPILE_NOTE="1")
    env.pop("NUMBA_CACHE_DIR", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=900)


SIMULATE = ["-m", "heron_sim", "simulate", "--games", "300", "--seed", "5", "--json"]


def _compiled_names(folder: Path) -> set[str]:
    return {p.name.split("-")[0] for p in folder.rglob("*.nbi")}


@pytest.mark.slow  # a minute compiling the engine into an empty cache of its own (make test-slow)
def test_greedy_run_compiles_greedy_only_says_so_once_and_repairs_a_damaged_cache(tmp_path):
    cold = _run(SIMULATE, tmp_path)
    assert cold.returncode == 0, cold.stderr
    lines = [l for l in cold.stderr.splitlines() if l.startswith("compiling")]
    assert len(lines) == 1 and "greedy" in lines[0] and "once per machine" in lines[0], cold.stderr
    names = _compiled_names(tmp_path)
    assert "greedy.greedy_keep" in names and "loops.play_batch" in names
    assert not any(n.startswith(("expert.", "racer.", "prudent.", "random_policy.")) for n in names)
    (engine,) = (tmp_path / "numba").glob("engine-*")
    decide = (engine / "kernels" / "s0" / "_decide.py").read_text()
    assert "greedy_decide" in decide and "expert" not in decide

    warm = _run(SIMULATE, tmp_path)
    assert warm.returncode == 0 and warm.stderr == "", warm.stderr
    assert json.loads(warm.stdout) == json.loads(cold.stdout)

    # Damage three cache files: flipped bytes in the batch kernel's code, a truncated index, an
    # empty index. The run must repair them (one line), give the same results, and stay repaired.
    data = sorted(engine.rglob("loops.play_batch-*.nbc"))[0]
    raw = bytearray(data.read_bytes())
    for k in range(len(raw) // 3, len(raw) // 3 + 64):
        raw[k] ^= 0xFF
    data.write_bytes(bytes(raw))
    index = sorted(engine.rglob("game.play_game-*.nbi"))[0]
    index.write_bytes(index.read_bytes()[:10])
    sorted(engine.rglob("greedy.greedy_keep-*.nbi"))[0].write_bytes(b"")
    repaired = _run(SIMULATE, tmp_path)
    assert repaired.returncode == 0, repaired.stderr
    damaged = [l for l in repaired.stderr.splitlines() if "damaged" in l]
    assert len(damaged) == 1 and damaged[0].startswith("heron-sim:"), repaired.stderr
    assert json.loads(repaired.stdout) == json.loads(cold.stdout)
    again = _run(SIMULATE, tmp_path)
    assert again.returncode == 0 and "damaged" not in again.stderr, again.stderr


def _tree_files(folder: Path) -> set[str]:
    return {str(p) for p in folder.rglob("*") if p.is_file()}


def test_unwritable_cache_folder_is_reported_once_and_nothing_is_written_elsewhere(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    home = tmp_path / "home"
    home.mkdir()
    before = _tree_files(PACKAGE)
    code = ("import numpy as np, heron_sim\n"
            "from heron_sim.engine.rng import mix64\n"
            "from heron_sim.loop.kernels import strategy_set\n"
            "print(int(mix64(np.uint64(3))))\n")
    out = _run(["-c", code], blocker / "cache", env_extra={"HOME": str(home)})
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and "cannot write the cache folder" in lines[0], out.stderr
    assert _tree_files(PACKAGE) == before  # nothing in the source tree
    assert not any(home.rglob("*"))        # nor in ~/.cache/numba


def test_a_changed_constant_of_a_lighter_game_takes_effect(tmp_path):
    """numba's own cache keys a function on its file only; ours keys a game's whole folder."""
    copy = tmp_path / "src"
    shutil.copytree(PACKAGE, copy / "heron_sim", ignore=shutil.ignore_patterns("__pycache__"))
    game = copy / "heron_sim" / "games" / "akeruption"
    (game / "_probe_rules.py").write_text("P_A, P_B = 0, 1\n")
    (game / "_probe.py").write_text(
        "import numpy as np\nfrom numba import njit\nfrom ._probe_rules import P_B\n\n\n"
        "@njit(cache=True)\ndef probe(params):\n    return params[P_B]\n")
    code = ("import numpy as np, heron_sim\n"
            "from heron_sim.games.akeruption._probe import probe\n"
            "v = probe(np.array([10, 20, 30]))\n"
            "print(v, sum(probe.stats.cache_hits.values()))\n")
    cache = tmp_path / "cache"
    first = _run(["-c", code], cache, cwd=tmp_path, pythonpath=copy)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["20", "0"]
    second = _run(["-c", code], cache, cwd=tmp_path, pythonpath=copy)
    assert second.stdout.split() == ["20", "1"]  # the cache works
    (game / "_probe_rules.py").write_text("P_A, P_B = 2, 0\n")  # only the rules file changes
    third = _run(["-c", code], cache, cwd=tmp_path, pythonpath=copy)
    assert third.returncode == 0, third.stderr
    assert third.stdout.split() == ["10", "0"]
    assert not list(copy.rglob("*.nbi"))  # nothing cached inside the (copied) source tree


@pytest.mark.parametrize("damage", [
    "long_row", "flipped_value",
    pytest.param("short_row", marks=pytest.mark.slow),
    pytest.param("value_shape", marks=pytest.mark.slow),
    pytest.param("head", marks=pytest.mark.slow),
])
def test_expert_tables_of_the_wrong_shape_are_rebuilt(tmp_path, monkeypatch, capsys, damage):
    import numpy as np

    from heron_sim import _numba_cache
    from heron_sim.rules import Rules
    from heron_sim.strategies import expert_build, expert_dp

    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    monkeypatch.setattr(_numba_cache, "_state", dict(_numba_cache._state, said=set()))
    expert_build._tables_cached.cache_clear()
    rules = Rules.build(mode="7d8")
    tab = expert_build.expert_tables(rules)
    (path,) = (tmp_path / "tables").glob("expert-*.npz")
    row, value = tab.row.copy(), tab.value.copy()
    if damage == "short_row":
        row = row[:-8]
    elif damage == "long_row":
        row = np.concatenate([row, row[-8:]])
    elif damage == "value_shape":
        value = value[:3]
    elif damage == "head":
        row[expert_dp.ROW_RMAX] += 1
    checksum = expert_build._checksum(row, value, tab.exact)  # a consistent file, of the wrong shape
    if damage == "flipped_value":
        row[len(row) // 2] += 1.0  # a damaged file: the checksum no longer matches
    np.savez(path, row=row, value=value, exact=tab.exact, version=expert_dp.VERSION, checksum=checksum)
    expert_build._tables_cached.cache_clear()
    capsys.readouterr()
    again = expert_build.expert_tables(rules)
    err = capsys.readouterr().err
    assert not again.loaded and np.array_equal(again.row, tab.row)
    assert len(err.splitlines()) == 1 and "expert tables" in err and "rebuilding" in err
    expert_build._tables_cached.cache_clear()
    assert expert_build.expert_tables(rules).loaded  # the rebuilt file loads cleanly
    expert_build._tables_cached.cache_clear()
