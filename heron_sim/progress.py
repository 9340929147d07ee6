"""A progress bar for long runs (stderr, only when it is a terminal or forced)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Callable, Iterator


@contextlib.contextmanager
def progress_bar(total: int, label: str, enabled: bool | None = None) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; draws a rich bar on stderr when it is a terminal.

    ``HERON_SIM_PROGRESS=1`` forces the bar, ``=0`` hides it.
    """
    if enabled is None:
        forced = os.environ.get("HERON_SIM_PROGRESS")
        enabled = sys.stderr.isatty() if forced is None else forced == "1"
    if not enabled or total <= 0:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=Console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
