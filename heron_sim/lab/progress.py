"""The study's progress bars (stderr, rich): the ladder's and each racing rung's games with the
time left, the search's finished trials with the best front so far. Log lines go through the
bar's console (:meth:`StudyProgress.wrap_log`), above the bars, never over them."""

from __future__ import annotations

import os
import sys

from .metrics import format_value, unit_suffix


class StudyProgress:
    def __init__(self, spec, enabled: bool | None = None):
        if enabled is None:
            forced = os.environ.get("HERON_SIM_PROGRESS")
            enabled = sys.stderr.isatty() if forced is None else forced == "1"
        self.spec = spec
        self.enabled = enabled
        self.bar = None
        self.task = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                                TextColumn("{task.fields[front]}"),
                                console=Console(stderr=True), transient=False)
            self.bar.__enter__()
        self.games_task = None
        return self

    def wrap_log(self, log):
        """A log that prints above the bars while they are shown (else ``log`` itself)."""
        if self.bar is None:
            return log
        return lambda s: self.bar.console.print(s, markup=False, highlight=False)

    def phase(self, name: str, games: int) -> None:
        """A bar of games for the ladder or a racing rung (time left from the games' pace)."""
        if self.bar is None:
            return
        if self.games_task is not None:
            self.bar.update(self.games_task, visible=False)
        self.games_task = self.bar.add_task(f"tune {self.spec.name}: {name}", total=max(1, games), front="")

    def rung(self, r: int, games: int) -> None:
        self.phase(f"racing rung {r + 1}/{len(self.spec.rungs)} (games)", games)

    def _trials_task(self):
        if self.bar is not None and self.task is None:
            if self.games_task is not None:
                self.bar.update(self.games_task, visible=False)
                self.games_task = None
            self.task = self.bar.add_task(f"tune {self.spec.name}: search (trials)", total=self.spec.trials, front="")
        return self.task

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def start(self, done: int) -> None:
        if self.bar is not None:
            self.bar.update(self._trials_task(), completed=done)

    def games(self, n: int) -> None:
        if self.bar is not None and self.games_task is not None:
            self.bar.advance(self.games_task, n)

    def trial(self, study) -> None:
        if self.bar is None:
            return
        from .study import finished_trials

        done = len(finished_trials(study))
        self.bar.update(self._trials_task(), completed=done, front=self.front_text(study))

    def front_text(self, study) -> str:
        try:
            best = study.best_trials
        except Exception:  # noqa: BLE001 - no finished trial yet
            return ""
        best = [t for t in best if "duplicate_of" not in t.user_attrs and "ladder" not in t.user_attrs] or best
        feas = [t for t in best if all(c <= 0 for c in t.user_attrs.get("constraints", []))] or best
        if not feas:
            return ""
        parts = []
        for k, o in enumerate(self.spec.objectives):
            v = min(t.values[k] for t in feas)
            if o.relative:
                parts.append(f"{o.metric} {100 * v:.1f} %")
            else:
                parts.append(f"{o.metric} {format_value(o.metric, v)}{unit_suffix(o.metric)}")
        return f"front ({len(feas)}): best " + ", ".join(parts)
