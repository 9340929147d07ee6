import os
import subprocess

import pytest

os.environ.setdefault("HERON_SIM_PROGRESS", "0")
# The compile note goes to stderr whatever it is; the tests that count stderr lines would
# otherwise depend on whether the kernel cache is warm (tests of the note set it to 1).
os.environ.setdefault("HERON_SIM_COMPILE_NOTE", "0")

# Test tiers (markers registered in pyproject.toml; each module sets ``pytestmark``):
# exact, statistical, cli, browser, and slow for the long runs `make test` leaves out.
# Shared helpers that are not fixtures live in tests/helpers.py.


@pytest.fixture
def tmpfs(tmp_path):
    """Mount small tmpfs folders under ``tmp_path``: ``tmpfs("256k")``, ``tmpfs("64k",
    read_only=True)``. Needs root and mount: the test is skipped where it cannot mount. Every
    mount is lazily unmounted after the test."""
    mounted = []

    def mount(size: str, name: str = "tmpfs", read_only: bool = False, why: str = ""):
        mnt = tmp_path / name
        mnt.mkdir()
        opts = f"size={size}" + (",ro" if read_only else "")
        if subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(mnt)],
                          capture_output=True).returncode != 0:
            pytest.skip(f"cannot mount a {'read-only ' if read_only else ''}tmpfs here{why}")
        mounted.append(mnt)
        return mnt

    yield mount
    for mnt in mounted:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of Chromium; the browser tests are skipped without it (failed where
    HERON_REQUIRE_BROWSER is set, as in CI)."""
    from tests.helpers import find_chromium, skip_or_fail

    path = find_chromium()
    if path is None:
        skip_or_fail("Chromium is not installed (apt-get install chromium; .ci/run does it)")
    return path
