"""Ctrl-C and SIGTERM as a first-class outcome: stop at the next batch boundary.

One mechanism for every long phase. The command line installs :func:`handle_signals` for the
whole command (``tune`` and :func:`heron_sim.lab.tune` install it too, re-entrantly): the first
SIGINT or SIGTERM only sets a flag that every batch loop reads (:func:`stop_requested`) between
batches — simulate, modes, the run folder's jobs, every executor (:func:`check` raises
:class:`Stopped` there), the study's base evaluation, search, racing and output — so the games
already played are kept, written and labelled (``interrupted``, exit 130); a second signal
stops at once (``KeyboardInterrupt``), except inside a :func:`critical` block (a write to a
study's journal, one batch appended to a result file), where it is deferred to the end of the
block. Before a second signal ends the command line at once, every :func:`keeper` registered
(a result file being streamed) keeps what it already holds: the file is closed, labelled and
renamed into place, and the one line printed says what was kept. From Python, without the
handlers, Ctrl-C raises KeyboardInterrupt as usual and :func:`heron_sim.simulation.simulate`
still returns the games already played.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

_stop = threading.Event()
_signal_name = ""
_state = {"installed": 0, "critical": 0, "pending": False}
#: Objects with a ``keep_now() -> str`` method, run by a second signal before the command line
#: exits at once (see :func:`keeper`); each returns the words that say what it kept.
_keepers: list = []


class Stopped(KeyboardInterrupt):
    """Raised by :func:`check` at a batch boundary once a stop was requested (the first
    SIGINT/SIGTERM): the work already finished is kept by whoever catches it."""


def stop_requested() -> bool:
    """True once SIGINT or SIGTERM has been received (under :func:`handle_signals`)."""
    return _stop.is_set()


def check() -> None:
    """Raise :class:`Stopped` if a stop was requested (call it between batches)."""
    if _stop.is_set():
        raise Stopped(signal_name() or "stop")


def request_stop(name: str = "stop") -> None:
    global _signal_name
    _signal_name = _signal_name or name
    _stop.set()


def reset() -> None:
    global _signal_name
    _stop.clear()
    _signal_name = ""
    _state["pending"] = False
    _state["said"] = False
    _state["stopping"] = False
    _state["second"] = ""
    _keepers.clear()


def handlers_installed() -> bool:
    """True inside :func:`handle_signals` (the command line, a study): a :func:`keeper` then
    stays registered after its work is done, so that a second signal still says what it kept."""
    return bool(_state["installed"])


def signal_name() -> str:
    return _signal_name


def stopped_at_once() -> bool:
    """True once a second signal stopped the command at once (and said so on stderr)."""
    return bool(_state.get("said"))


def _exit_quietly(signum, frame):  # noqa: ARG001
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe: nothing more to say
            pass
    os._exit(130)


def quiet_exit_on_signal() -> None:
    """After the command's work is done (everything written, the exit status decided): a late
    SIGINT/SIGTERM is ignored, so the interpreter's shutdown ends with that status instead of a
    traceback from ``threading._shutdown`` or a death by the signal (Python resets the handlers
    to their defaults while it finalizes)."""
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)


def _handler(signum, frame):  # noqa: ARG001
    name = signal.Signals(signum).name
    if _stop.is_set():
        if _state.get("stopping"):  # a third signal while the second one keeps what was written
            return
        _state["second"] = name
        if _state["critical"]:  # a journal record or a batch is being written: stop right after it
            _state["pending"] = True
            return
        _stop_now()
    request_stop(name)
    sys.stderr.write(f"\n{name}: stopping after the current batch (again to stop at once)\n")


@contextlib.contextmanager
def keeper(obj):
    """Register ``obj`` (a ``keep_now() -> str`` method) for the block: a second signal that
    stops the command line at once first calls ``obj.keep_now()``, which keeps what ``obj``
    already holds (a streamed result file: the batches written, labelled) and returns the words
    that say so (``"kept the 8,192 of 100,000 games already written, in g.parquet"``)."""
    _keepers.append(obj)
    try:
        yield obj
    finally:
        # Under the handlers, a keeper whose file is done stays until they are removed: a
        # second signal after the file was closed (while the summary is printed) still says it.
        if not handlers_installed():
            with contextlib.suppress(ValueError):
                _keepers.remove(obj)


def _second_line() -> str:
    """Run the keepers and say, in one line, what the second signal stopped and what was kept."""
    name = _state.get("second") or "signal"
    kept = []
    for obj in list(_keepers):
        try:
            words = obj.keep_now()
        except Exception as err:  # noqa: BLE001 - keep going: the line must still be printed
            words = f"could not keep {getattr(obj, 'path', obj)}: {err}"
        if words:
            kept.append(words)
    if kept:
        return f"interrupted ({name} again): stopped at once; {'; '.join(kept)}"
    return (f"interrupted ({name} again): stopped at once; the games of the current "
            "batch are lost and nothing of it was written")


@contextlib.contextmanager
def critical():
    """A block that a second signal never cuts: it is raised as KeyboardInterrupt when the
    outermost block ends (a study's journal record is written whole or not at all)."""
    _state["critical"] += 1
    try:
        yield
    finally:
        _state["critical"] -= 1
        if not _state["critical"] and _state["pending"]:
            _state["pending"] = False
            _stop_now()


def _stop_now():
    """The second signal: the command line keeps what its keepers hold (a streamed result
    file: the batches already written, labelled), says so in one line and exits at once (130;
    every other file it writes is atomic, so nothing half-written is left, and the temporary
    file of the write in progress is removed by the next write); a library caller gets
    KeyboardInterrupt."""
    if not _state.get("said"):
        # Say it here, once: the KeyboardInterrupt may land anywhere (a thread pool's wait,
        # a write) and whoever catches it must not need to print for the user to know.
        _state["said"] = True
        _state["stopping"] = True  # a third signal does not cut the keepers
        line = _second_line() if _state.get("hard_exit") else (
            f"interrupted ({_state.get('second') or 'signal'} again): stopped at once; the games of "
            "the current batch are lost and nothing of it was written")
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    if _state.get("hard_exit"):
        _exit_quietly(None, None)
    _state["stopping"] = False
    raise KeyboardInterrupt


@contextlib.contextmanager
def handle_signals(hard_exit: bool = False):
    """Install the flag-setting handlers for SIGINT and SIGTERM (main thread only).

    Re-entrant: an inner ``with handle_signals():`` (a library call inside a command) keeps the
    outer handlers and the flag as they are. ``hard_exit`` (the command line): a second signal
    exits the process at once with 130 instead of raising KeyboardInterrupt wherever it lands."""
    if _state["installed"]:
        yield
        return
    reset()
    _state["hard_exit"] = hard_exit
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in old:
        signal.signal(s, _handler)
    _state["installed"] += 1
    try:
        yield
    finally:
        _state["installed"] -= 1
        _state["hard_exit"] = False
        _keepers.clear()
        for s, h in old.items():
            signal.signal(s, h)
