"""Is there a Dask scheduler at this address? Asked once, with a hard time limit.

``distributed.Client(address, timeout=...)`` waits without bound when the port answers but does
not speak Dask's protocol (a dashboard, a web server): the handshake never completes. Before
creating a client, :func:`probe` opens one comm, asks the scheduler's ``identity`` and requires
a scheduler's answer, all within ``timeout`` seconds (also reading the stop flag, so a Ctrl-C
is not ignored meanwhile); anything else is one :class:`~heron_sim.errors.HeronSimError` line.
"""

from __future__ import annotations

import asyncio
import time

from ..errors import HeronSimError


async def _identity(address: str, timeout: float):
    from distributed.comm import connect

    comm = await connect(address, timeout=timeout)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        try:
            comm.abort()
        except Exception:  # noqa: BLE001 - nothing to clean up then
            pass


async def _ask(address: str, timeout: float):
    from ..interrupt import stop_requested

    # connect() has its own timeout (an unreachable address: OSError); the outer limit catches a
    # port that accepts but never completes Dask's handshake or answers.
    task = asyncio.ensure_future(asyncio.wait_for(_identity(address, timeout), timeout + 1.0))
    while not task.done():
        if stop_requested():
            task.cancel()
            break
        await asyncio.sleep(0.1)
    return await task


#: Seconds a refused connection is tried again (a scheduler that is starting) before the one
#: line that says nothing listens there: Dask's own connect would retry it for the whole
#: timeout (20 s) and then say only that it timed out.
REFUSED_GRACE = 3.0


def _listening(address: str, timeout: float) -> None:
    """One line at once where nothing listens at ``address`` (connection refused, a few seconds
    of grace) or its host does not resolve; anything that accepts a connection goes on to the
    Dask handshake."""
    import socket

    from ..interrupt import Stopped, stop_requested

    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    host = host.strip("[]")
    if not port.isdigit():
        return  # get_executor has said what an address is; Dask says the rest
    deadline = time.monotonic() + min(REFUSED_GRACE, timeout)
    while True:
        try:
            socket.create_connection((host, int(port)), timeout=min(timeout, 5.0)).close()
            return
        except socket.gaierror as err:
            raise HeronSimError(f"--scheduler: cannot reach {address}: unknown host {host!r} "
                                f"({err.strerror or err})") from None
        except ConnectionRefusedError:
            if time.monotonic() >= deadline:
                raise HeronSimError(f"--scheduler: nothing listens at {address} (connection refused); "
                                    "start the scheduler there (dask scheduler) or check the host and port") from None
            if stop_requested():
                raise Stopped("stop") from None
            time.sleep(0.25)
        except OSError:
            return  # unreachable, filtered: Dask's connect says it within the timeout


def probe(address: str, timeout: float = 20.0) -> dict:
    """The scheduler's identity at ``address``; one-line error if none answers in ``timeout`` s."""
    from ..interrupt import Stopped, stop_requested

    _listening(address, timeout)
    t0 = time.monotonic()
    try:
        reply = asyncio.run(_ask(address, timeout))
    except asyncio.CancelledError:
        if stop_requested():
            raise Stopped("stop") from None
        reply = None
    except (asyncio.TimeoutError, TimeoutError):
        raise HeronSimError(f"--scheduler: {address} does not answer as a Dask scheduler within "
                            f"{timeout:g} s (is it a dashboard or another service?); allowed: the "
                            "address of a Dask scheduler, e.g. tcp://127.0.0.1:8786") from None
    except OSError as err:
        if "handshake" in str(err).lower():
            raise HeronSimError(f"--scheduler: {address} does not answer as a Dask scheduler within "
                                f"{timeout:g} s (is it a dashboard or another service?); allowed: the "
                                "address of a Dask scheduler, e.g. tcp://127.0.0.1:8786") from None
        raise HeronSimError(f"--scheduler: cannot reach {address}: {err.strerror or err}") from None
    except Exception as err:  # noqa: BLE001 - a protocol error: not a Dask scheduler
        raise HeronSimError(f"--scheduler: {address} is not a Dask scheduler "
                            f"({type(err).__name__} after {time.monotonic() - t0:.1f} s)") from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise HeronSimError(f"--scheduler: {address} is not a Dask scheduler (it answered, but not "
                            "as one); allowed: the address of a Dask scheduler, e.g. tcp://127.0.0.1:8786")
    return reply
