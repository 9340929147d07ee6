"""Ctrl-C and SIGTERM as a first-class outcome: stop at the next batch boundary.

The command line installs :func:`handle_signals`: the first SIGINT or SIGTERM only sets a flag
that every batch loop reads (:func:`stop_requested`) between batches, so the games already
played are kept, written and labelled (``interrupted``); a second signal stops at once
(``KeyboardInterrupt``). From Python, without the handlers, Ctrl-C raises KeyboardInterrupt as
usual and :func:`heron_sim.simulation.simulate` still returns the games already played.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

_stop = threading.Event()
_signal_name = ""


def stop_requested() -> bool:
    """True once SIGINT or SIGTERM has been received (under :func:`handle_signals`)."""
    return _stop.is_set()


def request_stop(name: str = "stop") -> None:
    global _signal_name
    _signal_name = _signal_name or name
    _stop.set()


def reset() -> None:
    global _signal_name
    _stop.clear()
    _signal_name = ""


def signal_name() -> str:
    return _signal_name


def _handler(signum, frame):  # noqa: ARG001
    if _stop.is_set():
        raise KeyboardInterrupt  # second signal: stop now
    request_stop(signal.Signals(signum).name)
    sys.stderr.write(f"\n{signal.Signals(signum).name}: stopping after the current batch "
                     "(again to stop at once)\n")


@contextlib.contextmanager
def handle_signals():
    """Install the flag-setting handlers for SIGINT and SIGTERM (main thread only)."""
    reset()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in old:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
