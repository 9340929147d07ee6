"""The lighter games' registry: discovery finds every game package whatever was imported first."""

import subprocess
import sys
from pathlib import Path

import pytest

import heron_sim.games

pytestmark = pytest.mark.exact

FOUR = ["akeruption", "fire-mountain", "mekong-dragons", "rampage"]


def _packages() -> list[str]:
    root = Path(heron_sim.games.__file__).parent
    return sorted(p.name.replace("_", "-") for p in root.iterdir() if (p / "__init__.py").is_file())


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
    assert listed.split(",") == FOUR == _packages()
    assert got == "rampage"


def test_available_in_this_process_is_the_package_list_and_keeps_registered_games():
    import dataclasses

    from heron_sim.games import _REGISTRY, available, get, register

    assert list(available()) == FOUR
    extra = dataclasses.replace(get("rampage"), name="zz-test-copy")
    try:
        register(extra)
        assert list(available()) == [*FOUR, "zz-test-copy"]
    finally:
        _REGISTRY.pop("zz-test-copy", None)
    assert list(available()) == FOUR
