"""The rule-variant lab: search the rules for a better-balanced game (docs/tuning.md).

    from heron_sim.lab import tune
    result = tune("experiments/tune-guides.toml", trials=40, games=4000)
    result["finding"], result["paths"]["front_md"]
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable

from ..errors import HeronSimError
from .metrics import format_value, unit_suffix
from .outputs import proposed_changes, proposed_changes_markdown, write_outputs
from .spec import TuneSpec, load_spec, parse_spec

__all__ = ["tune", "load_spec", "parse_spec", "TuneSpec", "proposed_changes", "proposed_changes_markdown",
           "TuneInterrupted"]


class TuneInterrupted(HeronSimError):
    """Ctrl-C: the finished trials are kept in the run folder; the same command resumes."""


def _pct(x):
    return f"{100 * x:.1f} %" if x is not None and math.isfinite(x) else "n/a"


def _loss_str(o, key="loss"):
    if "relative distance" in o["objective"]:
        return _pct(o[key])
    return f"{format_value(o['metric'], o[key])}{unit_suffix(o['metric'])}"


def finding_text(spec: TuneSpec, finalists: list[dict]) -> str:
    """What the study found, in one paragraph, honest about goals and intervals."""
    if not finalists:
        return "The search produced no candidate to re-evaluate (no finished trial)."
    feas = [e for e in finalists if e["feasible"]]
    best = finalists[0]
    changes = ", ".join(f"{k} = {v}" for k, v in best["params"].items())
    parts = []
    for o in best["objectives"]:
        s = (f"{o['metric']} {_loss_str(o)} [{_loss_str(o, 'loss_low')}, {_loss_str(o, 'loss_high')}] "
             f"against {_loss_str(o, 'base_loss')} for the base ({o['verdict']}")
        s += ")" if o["verdict"] != "better" else ": the paired interval excludes zero)"
        parts.append(s)
    cons = []
    for c in best["constraints"]:
        if "relative_change" in c:
            cons.append(f"{c['constraint']}: {100 * c['relative_change']:+.1f} % "
                        f"[{100 * c['low']:+.1f}, {100 * c['high']:+.1f}] ({'holds' if c['holds'] else 'violated'})")
        else:
            cons.append(f"{c['constraint']}: {'holds' if c['holds'] else 'violated'}")
    goals = [o for o in best["objectives"] if o["goal"] is not None]
    text = (f"Best variant `{best['id']}` ({changes}), on {best['games']:,} fresh games paired with the base: "
            + "; ".join(parts) + ".")
    if cons:
        text += " Constraints: " + "; ".join(cons) + "."
    if not feas:
        text += (" No re-evaluated variant satisfies every constraint on fresh seeds: the searched space "
                 "holds no such variant (at this precision).")
    if goals:
        met = [o for o in goals if o["goal_met"]]
        sure = [o for o in goals if o["goal_met_95"]]
        if len(met) == len(goals) and best["feasible"]:
            text += " The goal" + ("s are" if len(goals) > 1 else " is") + " met on the estimates"
            text += (" and with 95 % confidence (upper bound within the goal)." if len(sure) == len(goals)
                     else ", but not yet with 95 % confidence (the upper bound of the interval lies past the goal).")
        else:
            missed = [o["metric"] for o in goals if not o["goal_met"]]
            text += (" Goal not reached on " + ", ".join(missed) + ": the searched space holds no variant "
                     "that meets it (at this precision); this is the closest found.")
    return text


def tune(spec: TuneSpec | str | Path, *, trials: int | None = None, games: int | None = None,
         time_limit: float | None = None, precision: float | None = None, scheduler: str | None = None,
         workers: int | None = None, run_dir: str | Path | None = None, out: str | Path | None = None,
         fresh: bool = False, log: Callable[[str], None] | None = None, progress: bool | None = None) -> dict:
    """Run (or resume) a tuning study and write ``results/tune-<name>/``.

    Returns a dict: finding, finalists (paired evidence), paths, trials, games_played, seconds.
    Raises :class:`TuneInterrupted` on Ctrl-C (finished trials kept; call again to resume).
    """
    from ..runner.executor import get_executor
    from .evaluate import Evaluator
    from .progress import StudyProgress
    from .study import evidence, finished_trials, open_study, race, run_search, search_front

    if not isinstance(spec, TuneSpec):
        spec = load_spec(spec)
    if trials is not None and trials < 1:
        raise HeronSimError(f"--trials: {trials}; allowed: >= 1")
    if games is not None and games < 10:
        raise HeronSimError(f"--games: {games}; allowed: >= 10")
    if time_limit is not None and time_limit < 0:
        raise HeronSimError(f"--time-limit: {time_limit}; allowed: seconds >= 0")
    if precision is not None and not 0 < precision < 0.5:
        raise HeronSimError(f"--precision: {precision}; allowed: a half-width between 0 and 0.5 (e.g. 0.005)")
    spec = spec.with_overrides(trials=trials, games=games)
    log = log or (lambda s: None)
    from ..interrupt import handle_signals
    from .checks import check_spec

    check_spec(spec)
    run_dir = Path(run_dir) if run_dir else Path("runs") / f"tune-{spec.name}"
    out = Path(out) if out else Path("results") / f"tune-{spec.name}"
    # Every output place is checked before the first game (and before any folder is made).
    from ..io import check_output

    check_output(run_dir, "--run-dir", folder=True)
    check_output(out, "--out", folder=True)
    t0 = time.perf_counter()
    # One stop mechanism for the whole study (base, search, racing, output): the first
    # SIGINT/SIGTERM sets the flag read between batches; finished work is kept.
    with handle_signals(), get_executor(scheduler, workers) as ex:
        from .rundir import open_run_dir

        lock = open_run_dir(run_dir, fresh=fresh, log=log)
        try:
            return _tune_locked(spec, ex, run_dir, out, precision, time_limit, progress, log, t0)
        finally:
            lock.release()


def _tune_locked(spec, ex, run_dir, out, precision, time_limit, progress, log, t0) -> dict:
    from ..interrupt import stop_requested
    from ..runner.executor import ClusterLost
    from .evaluate import Evaluator
    from .progress import StudyProgress
    from .study import evidence, finished_trials, open_study, race, run_search, search_front

    study = open_study(spec, run_dir)
    done_before = len(finished_trials(study))
    limit = spec.time_limit if time_limit is None else time_limit
    phase = "base"
    try:
        log(f"tune {spec.name}: {spec.trials} trials x {spec.games:,} games on {ex.describe()}; "
            f"study in {run_dir / 'study.journal'} ({done_before} trials already finished)")
        with StudyProgress(spec, enabled=progress) as bar:
            ev = Evaluator(spec, ex, run_dir / "evals", progress=bar.games, log=log)
            base_sums = ev.cached_sums("base", spec.base, 0, spec.games)
            ref_sums = ev.cached_sums("ref", spec.reference, 0, spec.games) if spec.reference else None
            bar.start(done_before)
            width = ex.width if ex.kind != "local" else 1
            phase = "search"
            st = run_search(spec, study, ev, base_sums=base_sums, ref_sums=ref_sums, on_trial=bar.trial,
                            time_limit=limit, width=max(1, min(width, spec.population)))
            if st.interrupted or stop_requested():
                raise TuneInterrupted(_interrupted(study, run_dir))
            if st.stopped_by_time:
                log(f"time limit reached after {len(finished_trials(study))} finished trials")
            cands, complete = search_front(spec, study, base_sums)
            log(f"search done: {len(complete)} trials; {len(cands)} candidates on the front go to racing")
            degenerate = _degenerate(spec, base_sums, complete)
            if degenerate:
                log(degenerate)
            bar.racing()
            phase = "racing"
            finalists, last = race(spec, ev, cands, precision=precision, log=log) if cands else ([], None)
        phase = "output"
        if stop_requested():
            raise KeyboardInterrupt
        fin = evidence(spec, finalists, last) if last else []
        result = {"finalists": fin, "trials": len(complete), "last_games": last["games"] if last else 0,
                  "games_played": ev.games_played, "seconds": round(time.perf_counter() - t0, 1),
                  "executor": ex.describe(), "finding": finding_text(spec, fin)}
        if degenerate:
            result["finding"] = degenerate + " " + result["finding"]
            result["degenerate"] = degenerate
        from ..io import atomic_folder

        # The results folder is written as a whole: a new front never sits beside an old summary.
        with atomic_folder(out, "--out") as tmp:
            paths = write_outputs(spec, result, study.get_trials(deepcopy=False), tmp)
            _retarget(tmp, out)
        paths = _moved(paths, tmp, out)
        result["variant_files"] = _moved(result.get("variant_files", {}), tmp, out)
    except KeyboardInterrupt:
        raise TuneInterrupted(_interrupted(study, run_dir, racing=phase in ("racing", "output"),
                                           phase=phase)) from None
    except ClusterLost as err:
        raise HeronSimError(f"{err}; {len(finished_trials(study))} finished trials (and finished "
                            f"re-evaluations) are kept in {run_dir}; run the same command to resume") from None
    result["paths"] = paths
    log(result["finding"])
    log(f"results in {out} ({result['seconds']:.0f} s, {result['games_played']:,} games played this time)")
    return result


def _moved(x, tmp: Path, out: Path):
    """``x`` (paths, strings, lists, dicts of them) with the temporary folder replaced by ``out``."""
    if isinstance(x, dict):
        return {k: _moved(v, tmp, out) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_moved(v, tmp, out) for v in x)
    if isinstance(x, Path):
        try:
            return out / x.relative_to(tmp)
        except ValueError:
            return x
    if isinstance(x, str):
        return x.replace(tmp.as_posix(), out.as_posix())
    return x


def _retarget(tmp: Path, out: Path) -> None:
    """The files were written into ``tmp`` before the swap: the paths they mention (a variant's
    rules file in summary.json, front.md, a variant's header) must name ``out``."""
    from ..io import write_text

    old, new = tmp.as_posix(), out.as_posix()
    for p in tmp.rglob("*"):
        if p.is_file() and p.suffix in (".json", ".md", ".csv", ".toml", ".txt", ".html"):
            text = p.read_text(encoding="utf-8")
            if old in text:
                write_text(p, text.replace(old, new))


def _degenerate(spec, base_sums, complete) -> str:
    """A sentence when the searched space cannot be judged: no game ends under the base rules
    or under any trial (every metric undefined), else empty."""
    from .metrics import value

    def none_finished(S) -> bool:
        try:
            return not math.isfinite(float(value("length", S, spec.players)))
        except Exception:  # noqa: BLE001 - a metric that cannot be computed at all
            return True

    trial_sums = [t.user_attrs.get("sums") for t in complete if t.user_attrs.get("sums")]
    import numpy as np

    if trial_sums and all(none_finished(np.asarray(S)) for S in trial_sums):
        return ("Degenerate space: no game finished under any searched variant (e.g. a round limit "
                "too low), so no metric is defined and no variant can be judged.")
    if none_finished(base_sums):
        return "Degenerate base: no game finished under the base rules, so no comparison is defined."
    return ""


def _interrupted(study, run_dir, racing=False, phase: str = "") -> str:
    from .study import finished_trials

    n = len(finished_trials(study))
    where = ("during racing (re-evaluations already finished are kept)" if racing
             else "during the base evaluation" if phase == "base" else "")
    return (f"interrupted {where}: {n} finished trials kept in {run_dir / 'study.journal'}; "
            "run the same command to resume").replace("  ", " ")
