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


def probe(address: str, timeout: float = 20.0) -> dict:
    """The scheduler's identity at ``address``; one-line error if none answers in ``timeout`` s."""
    from ..interrupt import Stopped, stop_requested

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
