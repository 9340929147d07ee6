"""Helpers shared by several test modules (the shared fixtures are in conftest.py)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def cli(*args):
    """``heron-sim ARGS`` through typer's CliRunner (arguments turned into strings)."""
    from heron_sim.cli import app

    return runner.invoke(app, [str(a) for a in args])


def one_line_error(res, code=2):
    """The command failed with exactly one ``error:`` line on stderr and no traceback."""
    assert res.exit_code == code, (res.exit_code, res.output)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    return lines[0]


def spawn(args, **kw) -> subprocess.Popen:
    """``python -m heron_sim ARGS`` as a real process (text pipes, progress off)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), HERON_SIM_PROGRESS="0")
    return subprocess.Popen([sys.executable, "-m", "heron_sim", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux /proc); 0 once gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@functools.cache
def startup_cpu() -> float:
    """CPU seconds a ``python -m heron_sim`` process spends before any work (its imports),
    measured once per session on this machine."""
    before = os.times()
    spawn(["rules"]).communicate(timeout=300)
    after = os.times()
    return (after.children_user + after.children_system) - (before.children_user + before.children_system)


def wait_working(proc: subprocess.Popen, seconds: float, timeout: float = 180) -> None:
    """Wait until ``proc`` has been at its work for about ``seconds``: at least that long in
    wall time, and at least its start-up's CPU time plus half of it in CPU time, so that a
    signal sent next lands in the work, not in the imports, however loaded the machine is."""
    t0 = time.monotonic()
    need = startup_cpu() + 0.5 * seconds
    time.sleep(seconds)
    while proc.poll() is None and cpu_seconds(proc.pid) < need and time.monotonic() - t0 < timeout:
        time.sleep(0.05)


def find_chromium() -> str | None:
    """Debian's Chromium (.ci/run installs it), or None."""
    return next((p for p in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
                 if p and Path(p).exists()), None)


def skip_or_fail(why: str):
    """Skip a browser test, or fail it where HERON_REQUIRE_BROWSER is set (CI)."""
    if os.environ.get("HERON_REQUIRE_BROWSER"):
        pytest.fail(why)
    pytest.skip(why)


def keep_screenshot(shot: Path) -> None:
    """Copy a screenshot to $HERON_SCREENSHOTS when set (for a person to look at)."""
    keep = os.environ.get("HERON_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)


def declared_kinds() -> dict[str, str]:
    """kind name -> the module of heron_sim/runner/kinds/ that declares it, read from the folder's
    sources (ast: a class whose bases name an ``...Kind`` and whose body sets ``name = "..."``),
    independently of the registry: what the tests compare the registry with instead of a list
    of names, so that a correct new kind passes them."""
    import ast

    out = {}
    for path in sorted((ROOT / "heron_sim" / "runner" / "kinds").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
            names = [n.value.value for n in node.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                     for t in n.targets if isinstance(t, ast.Name) and t.id == "name"]
            if names and any(b.endswith("Kind") for b in bases):
                out[names[0]] = f"heron_sim.runner.kinds.{path.stem}"
    return out


def game_package(game) -> str:
    """The package of a lighter game (its ``load_rules``'s, through the registry's wrapper)."""
    load = game.load_rules
    return getattr(load, "__wrapped__", load).__module__.rsplit(".", 1)[0]


def shipped_games() -> dict[str, str]:
    """game name -> its package, for every lighter game a package of heron_sim/games/ declares
    (in name order): what the tests parametrise over instead of a list of names."""
    from heron_sim.games import available

    return {name: game_package(g) for name, g in available().items()
            if game_package(g).startswith("heron_sim.games.")}


def french_findings(text: str) -> list[str]:
    """What :func:`heron_sim.glossary.check_fr` finds in a command's French output, line by line
    (issue 60 item 1: the commands' French is held to the pages' glossary)."""
    from heron_sim.glossary import check_fr

    return [f"line {i}: {f}" for i, line in enumerate(text.splitlines(), 1) for f in check_fr(line)]
