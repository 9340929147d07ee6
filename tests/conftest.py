import os
import subprocess

import pytest

os.environ.setdefault("HERON_SIM_PROGRESS", "0")
# The compile note goes to stderr whatever it is; the tests that count stderr lines would
# otherwise depend on whether the kernel cache is warm (tests of the note set it to 1).
os.environ.setdefault("HERON_SIM_COMPILE_NOTE", "0")
# One compiled kernel for every strategy set but greedy alone (heron_sim.loop.kernels: the same
# games, a few minutes less of compiling on a new machine); the tests that compare a strategy's
# own kernel with the shared one reach it with kernels.own_kernel().
os.environ.setdefault("HERON_SIM_SHARED_KERNEL", "1")

# Test tiers (markers registered in pyproject.toml; each module sets ``pytestmark``):
# exact, statistical, cli, browser, and slow for the long runs `make test` leaves out.
# Shared helpers that are not fixtures live in tests/helpers.py.


#: A session of at least this many tests is a whole suite (make test): worth the warm-up.
WARMUP_MIN_TESTS = 200


def pytest_sessionstart(session):
    """Under pytest-xdist (make test) the controller collects nothing: it warms up before its
    workers start (xdist starts them after this hook), for the whole suite."""
    config = session.config
    if getattr(config, "workerinput", None) is None and (config.getoption("numprocesses", None) or 0):
        _warm_up(session, whole_suite=True)


def pytest_collection_finish(session):
    if getattr(session.config, "workerinput", None) is None and not (
            session.config.getoption("numprocesses", None) or 0):
        _warm_up(session, whole_suite=len(session.items) >= WARMUP_MIN_TESTS)


def _warm_up(session, whole_suite: bool):
    """On a new machine (an empty kernel cache), before the first test of a whole suite, compile
    the package's kernels ahead in one process per core instead of one after the other inside
    the tests: the tests then load them from the cache (heron_sim.runner.warm; nothing is
    checked there, a failed warm-up only leaves the compiling to the tests). A few tests run
    alone compile only what they use; HERON_SIM_TEST_WARMUP=0 skips it, =1 forces it."""
    flag = os.environ.get("HERON_SIM_TEST_WARMUP", "")
    if flag == "0" or (flag != "1" and not whole_suite):
        return
    import time

    from heron_sim.runner.warm import compile_machine

    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    t0 = time.perf_counter()
    done = compile_machine(log=(reporter.write_line if reporter else None))
    if done and reporter:
        reporter.write_line(f"warm-up: {done} kernels compiled ahead in {time.perf_counter() - t0:.0f} s")


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
