"""Ctrl-C in a lighter game acts within seconds in every phase, the first one included: the
compilation of the game's kernels on a cold cache (after any edit of the engine's or the games'
sources), which numba cannot interrupt, used to hold `game simulate` for 50 to 75 s on a loaded
two-core machine. Each chunk of games now plays on its own thread while the caller reads the
stop flag (heron_sim.games.base.simulate_chunks): a chunk still playing STOP_GRACE seconds
after the stop is left, its games not kept, and its threads (daemons) never hold the process
at exit. The games kept are the same whatever the chunks (game i from stream (seed, i)).

Real signals go to real processes; the bounds are generous (a loaded two-core machine). The
runs of all four games, cold and warm, are marked slow; rampage on a cold cache stays in the
default tier.
"""

from __future__ import annotations

import re
import signal
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers import spawn, wait_working

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("rampage", "fire-mountain", "mekong-dragons", "akeruption")
REQUESTED = 5_000_000


# ---------------------------------------------------------------- in the library
class _Blocked:
    """A game whose first chunk never ends by itself (a cold cache compiling for a minute), the
    later ones at once; ``release`` lets the first end."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls: list[tuple[int, int]] = []

    def simulate(self, rules, games, players, seed, strategies, progress, first_game):
        self.calls.append((first_game, games))
        if len(self.calls) == 1:
            self.release.wait(30)
        if progress is not None:
            progress(games)
        return pd.DataFrame({"game": range(first_game, first_game + games)})


@pytest.fixture
def clean_stop():
    from heron_sim import interrupt

    interrupt.reset()
    yield interrupt
    interrupt.reset()


def test_a_stop_leaves_a_chunk_that_does_not_end(clean_stop):
    """A stop while the first chunk is still compiling: simulate_chunks returns within about
    STOP_GRACE, nothing kept and nothing counted, instead of waiting for the chunk to end."""
    from heron_sim.games import base

    game = _Blocked()
    counted = []
    timer = threading.Timer(0.3, clean_stop.request_stop, ("SIGINT",))
    timer.start()
    t0 = time.monotonic()
    try:
        frames = list(base.simulate_chunks(game, None, 10_000, 2, 1, ["greedy"] * 2, counted.append))
        secs = time.monotonic() - t0
    finally:
        game.release.set()
        timer.cancel()
    assert frames == [] and game.calls == [(0, base.FIRST_CHUNK)]
    assert secs < 0.3 + base.STOP_GRACE + 2.0, f"{secs:.1f} s to leave the chunk"
    time.sleep(0.2)  # the chunk, released, ends: what it says now is no longer counted
    assert counted == []


def test_a_chunk_that_ends_within_the_grace_is_kept(clean_stop):
    """A stop that comes while a chunk plays, the chunk ending soon after: its games are kept
    (counted in order, in the caller's thread), and no chunk starts after it."""
    from heron_sim.games import base

    game = _Blocked()
    counted = []
    threading.Timer(0.2, clean_stop.request_stop, ("SIGINT",)).start()
    threading.Timer(0.4, game.release.set).start()
    main = threading.get_ident()
    frames = list(base.simulate_chunks(game, None, 10_000, 2, 1, ["greedy"] * 2,
                                       lambda n: counted.append((n, threading.get_ident()))))
    assert [len(f) for f in frames] == [base.FIRST_CHUNK] and len(game.calls) == 1
    assert counted == [(base.FIRST_CHUNK, main)]


def test_an_error_in_a_chunk_is_raised_in_the_caller(clean_stop):
    from heron_sim.errors import HeronSimError
    from heron_sim.games import base

    class Bad:
        def simulate(self, *a, **k):
            raise HeronSimError("strategies: ['nope']; allowed: greedy")

    with pytest.raises(HeronSimError, match="nope"):
        list(base.simulate_chunks(Bad(), None, 100, 2, 1, ["nope"] * 2))


@pytest.mark.parametrize("name", GAMES)
def test_chunks_of_any_size_join_into_the_games_of_one_call(name):
    """The chunks, each played on its own thread, join into the frame of one call (game i from
    stream (seed, i)), whatever their size and wherever the run starts."""
    from heron_sim.games import get
    from heron_sim.games.base import simulate_chunks

    game = get(name)
    rules = game.load_rules(None, {})
    players = game.min_players + 1
    seats = [game.strategies[0]] * players
    whole = game.simulate(rules, games=257, players=players, seed=11, strategies=seats, first_game=5)
    for chunk in (1, 37, 256, 10_000):
        counted = []
        parts = list(simulate_chunks(game, rules, 257, players, 11, seats, counted.append, first_game=5,
                                     chunk=chunk))
        pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)
        assert sum(counted) == 257


def test_a_left_chunk_never_holds_the_process_at_exit(tmp_path):
    """A script stopped while a chunk's slices play on several threads (a kernel compiling):
    simulate_chunks returns and the process exits at once, its threads (daemons) not joined."""
    script = tmp_path / "left.py"
    script.write_text(textwrap.dedent("""
        import threading, time
        import numba
        import pandas as pd
        from heron_sim import interrupt
        from heron_sim.games.base import play_slices, simulate_chunks

        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))

        class Game:
            def simulate(self, rules, games, players, seed, strategies, progress, first_game):
                play_slices(games, 50, lambda a, b: time.sleep(20), progress)
                return pd.DataFrame({"game": range(first_game, first_game + games)})

        threading.Timer(0.5, interrupt.request_stop, ("SIGINT",)).start()
        t0 = time.monotonic()
        frames = list(simulate_chunks(Game(), None, 10_000, 2, 1, ["greedy"] * 2))
        print(len(frames), round(time.monotonic() - t0, 1), flush=True)
    """), encoding="utf-8")
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    secs = time.monotonic() - t0
    assert res.returncode == 0, res.stderr
    kept, inside = res.stdout.split()
    assert kept == "0" and float(inside) < 5, res.stdout
    assert secs < 15, f"{secs:.1f} s to exit: a left chunk's threads held the process"


# ---------------------------------------------------------------- the command line, real signals
def _interrupted_run(name: str, work: float = 4.0):
    """`game simulate NAME`, SIGINT once it has worked ``work`` seconds: (seconds from the
    signal to the exit, rc, stdout, stderr)."""
    proc = spawn(["game", "simulate", name, "--games", REQUESTED])
    try:
        wait_working(proc, work)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        out, err = proc.communicate(timeout=180)
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    return time.monotonic() - t0, proc.returncode, out, err


def _check_labelled(rc: int, out: str, err: str) -> int:
    """Exit 130, no traceback, the interrupted line and the summary's label: the games kept."""
    assert rc == 130 and "Traceback" not in err, err
    last = [ln for ln in err.splitlines() if ln.strip()][-1]
    m = re.fullmatch(rf"interrupted \(SIGINT\): kept the ([\d,]+) of {REQUESTED:,} games already played", last)
    assert m, last
    kept = int(m.group(1).replace(",", ""))
    assert f"(interrupted: this summary holds {kept:,} of the {REQUESTED:,} games requested)" in out, out
    return kept


def test_ctrl_c_while_rampage_compiles_acts_at_once(tmp_path, monkeypatch):
    """Rampage on a cold kernel cache (12 s of compiling on an idle machine, about a minute on
    a loaded one), SIGINT early in the compiling: the command exits 130 within seconds and says
    it kept none of the games (the first chunk was never finished; it used to be finished
    first, the compiling with it)."""
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path / "cache"))
    secs, rc, out, err = _interrupted_run("rampage")
    assert _check_labelled(rc, out, err) == 0, err
    assert secs < 10, f"{secs:.1f} s from SIGINT to exit"


@pytest.mark.slow
@pytest.mark.parametrize("cold", [True, False], ids=["cold-cache", "warm-cache"])
@pytest.mark.parametrize("name", GAMES)
def test_ctrl_c_acts_within_seconds_in_every_lighter_game(tmp_path, monkeypatch, name, cold):
    """Every lighter game, SIGINT after a few seconds of work: while it compiles (a cold
    cache: nothing kept) or while it plays (the cache warmed first: the chunks finished are
    kept). Exit 130 within seconds, the games kept labelled."""
    if cold:
        monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path / "cache"))
    else:
        warm = spawn(["game", "simulate", name, "--games", 10])
        _, warm_err = warm.communicate(timeout=600)
        assert warm.returncode == 0, warm_err
    secs, rc, out, err = _interrupted_run(name, work=6.0)
    kept = _check_labelled(rc, out, err)
    assert (kept == 0) if cold else (kept > 0), err
    assert secs < 10, f"{secs:.1f} s from SIGINT to exit"
