"""The worker plugin the Dask executor registers (heron_sim.runner.executor.DaskExecutor):
each worker imports the engine and loads greedy's kernel once, when it starts (or when the
plugin is registered on a running worker), on a thread of its own so that the worker answers
the scheduler meanwhile; its tasks then find the kernel loaded (heron_sim.runner.tasks: a
task waiting for the load waits on the same lock). Imported only where Dask is installed."""

from __future__ import annotations

import threading

from distributed.diagnostics.plugin import WorkerPlugin


class WarmKernels(WorkerPlugin):
    """Load the engine's greedy kernel on each worker, once a process."""

    name = "heron-sim-warm-kernels"
    idempotent = True  # registered again by another client: nothing to redo

    def setup(self, worker) -> None:
        from .tasks import warm

        threading.Thread(target=_quiet(warm), name="heron-sim-warm", daemon=True).start()


def _quiet(fn):
    def run():
        try:
            fn()
        except Exception:  # noqa: BLE001 - the first task loads it then, and says what fails
            pass
    return run
