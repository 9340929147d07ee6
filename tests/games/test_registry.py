"""The lighter games' registry: discovery finds every game package whatever was imported first."""

import subprocess
import sys
from pathlib import Path

import pytest

import heron_sim.games

pytestmark = pytest.mark.exact


def _packages() -> list[str]:
    """The games of heron_sim/games/, one per package folder (no list of names: a new game passes)."""
    root = Path(heron_sim.games.__file__).parent
    return sorted(p.name.replace("_", "-") for p in root.iterdir() if (p / "__init__.py").is_file())


#: every game package of the folder
GAMES = _packages()


def test_the_folder_holds_the_shipped_games():  # else the next tests would prove little
    assert len(GAMES) >= 4 and {"fire-mountain", "rampage"} <= set(GAMES), GAMES


def test_available_lists_every_game_after_one_was_imported_alone():
    # A fresh process: importing one game registers it first, which used to stop discovery
    # (available() looked only at whether the registry was empty), so running the Fire Mountain
    # tests before the runner's in one pytest process planned one game instead of four.
    code = ("import heron_sim.games.fire_mountain\n"
            "from heron_sim.games import available, get\n"
            "print(','.join(available()))\n"
            "print(get('rampage').name)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    listed, got = out.stdout.split()
    assert listed.split(",") == GAMES
    assert got == "rampage"


def test_available_in_this_process_is_the_package_list_and_keeps_registered_games():
    import dataclasses

    from heron_sim.games import _REGISTRY, available, get, register

    assert list(available()) == GAMES
    extra = dataclasses.replace(get("rampage"), name="zz-test-copy")
    try:
        register(extra)
        assert list(available()) == [*GAMES, "zz-test-copy"]
    finally:
        _REGISTRY.pop("zz-test-copy", None)
    assert list(available()) == GAMES
