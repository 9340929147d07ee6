"""The study's progress bar: finished trials, and the best front so far (stderr, rich)."""

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
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TextColumn("{task.fields[front]}"),
                                console=Console(stderr=True), transient=False)
            self.bar.__enter__()
            self.task = self.bar.add_task(f"tune {self.spec.name}", total=self.spec.trials, front="")
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def start(self, done: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done)

    def games(self, n: int) -> None:
        pass

    def trial(self, study) -> None:
        if self.bar is None:
            return
        from .study import finished_trials

        done = len(finished_trials(study))
        self.bar.update(self.task, completed=done, front=self.front_text(study))

    def front_text(self, study) -> str:
        try:
            best = study.best_trials
        except Exception:  # noqa: BLE001 - no finished trial yet
            return ""
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

    def racing(self) -> None:
        if self.bar is not None:
            self.bar.update(self.task, description=f"tune {self.spec.name}: racing the front on fresh seeds")
