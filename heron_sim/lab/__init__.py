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
from .spec import TIME_LIMIT_ALLOWED, TuneSpec, is_time_limit, load_spec, parse_spec

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


def _objective_text(o: dict) -> str:
    # The table that decides the panel's loss (the largest loss there).
    worst = max(o["scenarios"], key=lambda x: x["loss"] if x["loss"] == x["loss"] else -1e18) \
        if o["scenarios"] else None
    s = (f"{o['metric']} loss {_loss_str(o)} [{_loss_str(o, 'loss_low')}, {_loss_str(o, 'loss_high')}] "
         f"against {_loss_str(o, 'base_loss')} for the base ({o['verdict']}")
    s += ")" if o["verdict"] != "better" else ": the paired interval excludes zero)"
    if worst is not None and len(o["scenarios"]) > 1:
        s += f"; worst table {worst['scenario']}: {worst['text']}"
    elif worst is not None:
        s += f"; {worst['text']}"
    return s


def _base_text(spec: TuneSpec, base: dict, tables: str) -> str:
    """The first question: do the rulings already meet the goals?"""
    from .metrics import format_value

    def one(x):
        lo, hi = x["loss_low"], x["loss_high"]
        iv = f" [{format_value(x['metric'], lo)}, {format_value(x['metric'], hi)}]" if lo == lo and hi == hi else ""
        goal = f", goal <= {format_value(x['metric'], x['goal'])}" if x["goal"] is not None else ""
        return f"{x['metric']} loss {format_value(x['metric'], x['loss'])}{iv}{goal}"

    objs = "; ".join(one(x) for x in base["objectives"])
    if base["meets"]:
        return (f"No change needed: the rulings already meet every goal with 95 % confidence on {tables}, "
                f"and every constraint holds ({objs}; {base['games']:,} fresh games a table). The variants "
                "below are shown for information, not as a proposal. ")
    missed = [x["metric"] for x in base["objectives"] if x["goal"] is not None and not x["goal_met_95"]]
    if not any(x["goal"] is not None for x in base["objectives"]):
        return ""
    why = (f"not with 95 % confidence on {', '.join(missed)}" if missed else "a constraint does not hold")
    return f"The rulings do not meet every goal ({why}: {objs}). "


def finding_text(spec: TuneSpec, finalists: list[dict], base: dict | None = None) -> str:
    """What the study found, in one paragraph, honest about goals and intervals, in a designer's
    order: do the rulings already meet the goals; then the smallest change that meets every goal
    with 95 % confidence (the variant ranked first, :func:`study.designer_order`); else the
    closest variant."""
    from .ladder import smallest_meeting

    if not finalists:
        return "The search produced no candidate to re-evaluate (no finished trial)."
    feas = [e for e in finalists if e["feasible"]]
    best = finalists[0]
    small = smallest_meeting(finalists)
    tables = (f"{len(best['scenarios'])} tables ({spec.aggregate} over the panel)" if len(best["scenarios"]) > 1
              else "one table")
    text = _base_text(spec, base, tables) if base else ""
    if not any(o["verdict"] == "better" for e in finalists for o in e["objectives"]):
        text += ("No re-evaluated variant is shown better than the rulings on any objective (paired 95 % intervals "
                 "on fresh seeds): on this evidence, keep the rulings. ")
    if small is not None:
        text += (f"Smallest change that meets every goal with 95 % confidence on {tables}: `{small['id']}` "
                 f"({small['n_changed']} rule{'s' if small['n_changed'] != 1 else ''}: {small['changes']}). ")
    elif any(o.goal is not None for o in spec.objectives):
        text += ("No re-evaluated variant meets every goal with 95 % confidence at every table "
                 f"(ladder of up to {spec.ladder_max_keys} rules and the search, at this precision). ")
    parts = [_objective_text(o) for o in best["objectives"]]
    cons = []
    for c in best["constraints"]:
        if "relative_change" in c:
            cons.append(f"{c['constraint']}: {100 * c['relative_change']:+z.1f} % "
                        f"[{100 * c['low']:+z.1f}, {100 * c['high']:+z.1f}] at {c.get('scenario', 'the table')} "
                        f"({'holds' if c['holds'] else 'violated'})")
        elif "estimate" in c:
            from .metrics import format_value, unit_suffix

            m = c["metric"]
            cons.append(f"{c['constraint']}: {format_value(m, c['estimate'])}{unit_suffix(m)} "
                        f"[{format_value(m, c['low'])}, {format_value(m, c['high'])}] at {c['scenario']} "
                        f"({'holds' if c['holds'] else 'violated'})")
        elif c.get("inert") or c.get("powers_off"):
            cons.append(f"{c['constraint']}: violated ({', '.join(sorted(set(c.get('powers_off', []) + c.get('inert', []))))})")
        else:
            cons.append(f"{c['constraint']}: {'holds' if c['holds'] else 'violated'}")
    goals = [o for o in best["objectives"] if o["goal"] is not None]
    nc = best["n_changed"]
    if small is best:
        text += f"On {best['games']:,} fresh games a table paired with the base: " + "; ".join(parts) + "."
    else:
        word = "Closest variant (the fewest rules among those the best cannot be told from)" if small is None \
            else "Ranked first"
        text += (f"{word}: `{best['id']}` ({nc} rule{'s' if nc != 1 else ''} changed: {best['changes']}), on "
                 f"{best['games']:,} fresh games a table paired with the base: " + "; ".join(parts) + ".")
    if cons:
        text += " Constraints: " + "; ".join(cons) + "."
    if not feas:
        text += (" No re-evaluated variant satisfies every constraint on fresh seeds at every table "
                 "(at this precision): this is the closest found.")
    if goals:
        met = [o for o in goals if o["goal_met"]]
        sure = [o for o in goals if o["goal_met_95"]]
        if len(met) == len(goals) and best["feasible"]:
            text += " The goal" + ("s are" if len(goals) > 1 else " is") + " met on the estimates"
            text += (" and with 95 % confidence (upper bound within the goal)." if len(sure) == len(goals)
                     else ", but not yet with 95 % confidence (the upper bound of the interval lies past the goal).")
        else:
            missed = [o["metric"] for o in goals if not o["goal_met"]]
            text += (" Goal not reached on " + ", ".join(missed) + " by any re-evaluated variant "
                     f"(the ladder's one- to {spec.ladder_max_keys}-rule changes and the search's front); "
                     "this is the closest found.")
        text += " " + _power_text(best, goals, small is best)
    moved = best.get("moves_unfairness") or []
    if moved:
        text += (" It moves the unfairness elsewhere: " + "; ".join(
            f"{x['what']} at {x['table']} {100 * (x['base'] - x['fair']):+z.1f} → {100 * (x['variant'] - x['fair']):+z.1f} "
            f"points from fair (change {100 * x['diff']:+z.1f} [{100 * x['low']:+z.1f}, {100 * x['high']:+z.1f}])"
            for x in moved[:6]) + (f"; and {len(moved) - 6} more" if len(moved) > 6 else "") + ".")
    return text


def _power_text(best: dict, goals: list[dict], passes: bool) -> str:
    """Whether the equivalence test was decisive, and the games it would need (issue 30 item 5)."""
    if not goals or "decision" not in goals[0]:
        return ""
    n = best["games"]
    if passes:
        holm = all(o.get("goal_met_holm") for o in goals)
        fam = best.get("holm_family", 0)
        return (f"It passes the equivalence test at every goal on {n:,} games a table"
                + (f", and still after Holm's correction over the {fam} goal tests of the finalists." if holm
                   else f", but not after Holm's correction over the {fam} goal tests of the finalists: "
                   "replay it on fresh seeds (`--precision`) before adopting it."))
    words = []
    for o in goals:
        d, need = o["decision"], o.get("games_needed")
        if d == "passes":
            continue
        if d == "fails (decisive)":
            words.append(f"{o['metric']}: decisive, more games would not change it")
        elif need:
            words.append(f"{o['metric']}: {d}; about {need:,} games a table would decide it if the estimate held")
        elif d == "undecided (no margin)":
            words.append(f"{o['metric']}: {d}, no excess allowed: a variant that leaves it as it stands can never "
                         "pass; give the excess allowed (goal = \"targets\": the designer's margin, or a number)")
        else:
            words.append(f"{o['metric']}: {d}")
    return ("No fix here: " + "; ".join(words) + f" ({n:,} games a table played).") if words else ""


def tune(spec: TuneSpec | str | Path, *, trials: int | None = None, games: int | None = None,
         time_limit: float | None = None, precision: float | None = None, scheduler: str | None = None,
         workers: int | None = None, run_dir: str | Path | None = None, out: str | Path | None = None,
         fresh: bool = False, log: Callable[[str], None] | None = None, progress: bool | None = None,
         rungs: tuple[int, ...] | None = None, luck: bool | None = None) -> dict:
    """Run (or resume) a tuning study and write ``results/tune-<name>/``.

    ``rungs``: the racing rungs' games instead of the file's (a quick look with small budgets).
    ``luck``: the last rung luck-adjusted (``[racing] luck`` of the file otherwise).

    Returns a dict: finding, finalists (paired evidence), paths, trials, games_played, seconds.
    Raises :class:`TuneInterrupted` on Ctrl-C (finished trials kept; call again to resume).
    """
    from ..runner.executor import get_executor
    from .evaluate import Evaluator
    from .progress import StudyProgress
    from .study import base_evidence, evidence, finished_trials, open_study, race, run_search, search_front

    source = None if isinstance(spec, TuneSpec) else Path(spec)  # the tune file, read: never written over
    if not isinstance(spec, TuneSpec):
        from .spec import read_tune_table

        table = read_tune_table(spec)
        if table.get("game", "heron") != "heron":
            # A lighter game's study (issue 34): the same questions through what the game declares.
            from .light_run import LightInterrupted, tune_light

            given = [n for n, v in (("--precision", precision), ("--scheduler", scheduler),
                                    ("--time-limit", time_limit), ("--workers", workers),
                                    ("--luck", luck or None)) if v is not None]
            if given:
                raise HeronSimError(f"{given[0]}: not available for a lighter game's study (game = "
                                    f"{table['game']!r}); allowed: --trials, --games, --rungs, --run-dir, --out, --fresh")
            try:
                return tune_light(table, spec, trials=trials, games=games, rungs=rungs, run_dir=run_dir, out=out,
                                  fresh=fresh, log=log)
            except LightInterrupted as err:
                raise TuneInterrupted(str(err)) from None
        spec = parse_spec(table, Path(spec))
    if trials is not None and trials < 1:
        raise HeronSimError(f"--trials: {trials}; allowed: >= 1")
    if games is not None and games < 10:
        raise HeronSimError(f"--games: {games}; allowed: >= 10")
    if time_limit is not None and not is_time_limit(time_limit):
        raise HeronSimError(f"--time-limit: {time_limit!r}; allowed: {TIME_LIMIT_ALLOWED}")
    if precision is not None and not 0 < precision < 0.5:
        raise HeronSimError(f"--precision: {precision}; allowed: a half-width between 0 and 0.5 (e.g. 0.005)")
    if rungs is not None and (not rungs or any(isinstance(x, bool) or not isinstance(x, int) or x < 10 for x in rungs)):
        raise HeronSimError(f"--rungs: {rungs!r}; allowed: game counts of 10 or more")
    spec = spec.with_overrides(trials=trials, games=games, rungs=tuple(rungs) if rungs is not None else None,
                               luck=luck)
    log = log or (lambda s: None)
    from ..interrupt import handle_signals
    from .checks import check_spec

    check_spec(spec)
    # Every output place is checked before the first game (and before any folder is made).
    from .rundir import study_folders

    run_dir, out = study_folders(spec.name, run_dir, out, source)
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
    from ..errors import RunFailure
    from ..runner.executor import ClusterLost
    from .evaluate import Evaluator
    from .progress import StudyProgress
    from .ladder import ladder_table, run_ladder, seed_search
    from .study import base_evidence, evidence, finished_trials, open_study, race, run_search, search_front

    study = open_study(spec, run_dir)
    done_before = len(finished_trials(study))
    limit = spec.time_limit if time_limit is None else time_limit
    phase = "base"
    try:
        log(f"tune {spec.name}: {spec.trials} trials x {spec.games:,} games x {len(spec.scenario_bases)} scenario(s) "
            f"on {ex.describe()}; study in {run_dir / 'study.journal'} ({done_before} trials already finished)")
        with StudyProgress(spec, enabled=progress) as bar:
            log = bar.wrap_log(log)
            ev = Evaluator(spec, ex, run_dir / "evals", progress=bar.games, log=log)
            base_c = tuple(spec.scenario_bases)
            ref_c = tuple(spec.scenario_refs) if spec.reference else None
            base_sums = ev.cached_sums("base", base_c, 0, spec.games)
            ref_sums = ev.cached_sums("ref", ref_c, 0, spec.games) if ref_c else None
            phase = "ladder"
            played: dict = {}
            bar.phase("ladder", _ladder_games(spec))
            ladder = run_ladder(spec, ev, base_sums, ref_sums, played=played, log=log)
            if stop_requested():
                raise KeyboardInterrupt
            seed_search(spec, study, ladder, log=log)
            bar.start(done_before)
            phase = "search"
            st = run_search(spec, study, ev, base_sums=base_sums, ref_sums=ref_sums, on_trial=bar.trial,
                            time_limit=limit, played=played, run_dir=run_dir)
            if st.interrupted or stop_requested():
                raise TuneInterrupted(_interrupted(study, run_dir))
            if st.stopped_by_time:
                log(f"time limit reached after {len(finished_trials(study))} finished trials")
            if st.exhausted:
                log(f"the space holds no further rule set to play: {len(finished_trials(study))} distinct trials")
            cands, complete = search_front(spec, study, base_sums, ladder)
            log(f"search done: {len(ladder)} ladder entries and {len(complete)} trials; {len(cands)} candidates "
                "go to racing")
            degenerate = _degenerate(spec, base_sums, complete)
            if degenerate:
                log(degenerate)
            phase = "racing"
            finalists, last = (race(spec, ev, cands, precision=precision, log=log, on_rung=bar.rung)
                               if cands else ([], None))
        phase = "output"
        if stop_requested():
            raise KeyboardInterrupt
        fin = evidence(spec, finalists, last) if last else []
        result = {"finalists": fin, "trials": len(complete), "ladder_played": len(ladder),
                  "last_games": last["games"] if last else 0, "luck": bool(last and last.get("luck")),
                  "games_played": ev.games_played, "games_reused": ev.games_reused, "seconds": round(time.perf_counter() - t0, 1),
                  "executor": ex.describe()}
        result["ladder"] = ladder_table(spec, fin)
        result["base"] = base_evidence(spec, last) if last else None
        result["finding"] = finding_text(spec, fin, result["base"])
        if degenerate:
            # No game finished under any variant: no variant's figure is one (docs/tuning.md);
            # the finding says so and quotes none.
            result["finding"] = (degenerate if degenerate.startswith("Degenerate space")
                                 else degenerate + " " + result["finding"])
            result["degenerate"] = degenerate
        phase = "check"
        held = _held_out(spec, fin, result, ex, run_dir, last, log) if not degenerate else None
        if held is not None:
            result["held_out"] = held
            result["finding"] += f" Held-out check of `{fin[0]['id']}`: " + held["words"]["en"]
        phase = "output"
        from ..io import atomic_folder

        # The results folder is written as a whole: a new front never sits beside an old summary.
        with atomic_folder(out, "--out") as tmp:
            paths = write_outputs(spec, result, study.get_trials(deepcopy=False), tmp, final=out)
            if stop_requested():  # a stop while the results were written: none of them replaces the old
                raise KeyboardInterrupt
        def moved(v):
            if isinstance(v, list):
                return [moved(x) for x in v]
            return out / Path(v).relative_to(tmp) if isinstance(v, Path) and _under(v, tmp) else v

        paths = {k: moved(v) for k, v in paths.items()}
    except KeyboardInterrupt:
        raise TuneInterrupted(_interrupted(study, run_dir, racing=phase in ("racing", "output"),
                                           phase=phase, out=out)) from None
    except ClusterLost as err:
        raise RunFailure(f"{err}; {len(finished_trials(study))} finished trials (and finished "
                            f"re-evaluations) are kept in {run_dir}; run the same command to resume") from None
    result["paths"] = paths
    log(result["finding"])
    reused = (f"; {result['games_reused']:,} not replayed: rules that play like rules already played, a key "
              "without effect there (docs/tuning.md)" if result["games_reused"] else "")
    log(f"results in {out} ({result['seconds']:.0f} s, {result['games_played']:,} games played this time{reused})")
    return result


def _held_out(spec, fin, result, ex, run_dir, last, log) -> dict | None:
    """The held-out check of the answer (issue 58 item 2; heron_sim.lab.heldout): the variant
    ranked first replayed at the held-out tables on fresh games, unless the rulings already meet
    every goal, the study has no tune table or asks for no check (``[check] held_out = false``).
    ``[check] games`` a table, else the smaller of heron_sim.lab.heldout.DEFAULT_GAMES and the last
    rung's games. Returns what summary.json keeps, or None."""
    from .heldout import DEFAULT_GAMES, held_out_check, summary_of
    from ..runner.panel import held_out_tables

    if (not fin or spec.check_games is None or spec.table is None or (result.get("base") or {}).get("meets")
            or not held_out_tables(spec.panel)):
        return None
    games = spec.check_games or min(DEFAULT_GAMES, int(last["games"]))
    res = held_out_check(spec.path, f"{fin[0]['id']}.toml", games=games, executor=ex, cache_dir=run_dir / "evals",
                         log=log, data=spec.table, spec=spec, variant_rules=fin[0]["rules"])
    return summary_of(res)


def _ladder_games(spec) -> int:
    """Games the ladder plays at most (a bound for the progress bar: cached entries finish at once)."""
    from .ladder import grid_values

    n1 = sum(len(grid_values(p, spec.ladder_grid)) for p in spec.params)
    top = min(spec.ladder_top, len(spec.params))
    n = n1 + sum(math.comb(top, k) for k in range(2, spec.ladder_max_keys + 1)) if spec.ladder_max_keys else 0
    return n * spec.games * len(spec.scenario_bases)


def _under(p: Path, folder: Path) -> bool:
    try:
        Path(p).relative_to(folder)
        return True
    except ValueError:
        return False


def _degenerate(spec, base_sums, complete) -> str:
    """A sentence when the searched space cannot be judged: no game ends under the base rules
    or under any trial (every metric undefined) at any table, else empty."""
    import numpy as np

    from .metrics import value

    n_sc = len(spec.scenario_bases)
    players = [b.players for b in spec.scenario_bases]

    def none_finished(S) -> bool:
        S = np.asarray(S).reshape(n_sc, -1)
        try:
            return not any(math.isfinite(float(value("length", S[i], players[i]))) for i in range(n_sc))
        except Exception:  # noqa: BLE001 - a metric that cannot be computed at all
            return True

    trial_sums = [t.user_attrs.get("sums") for t in complete if t.user_attrs.get("sums")]
    if trial_sums and all(none_finished(S) for S in trial_sums):
        return ("Degenerate space: no game finished under any searched variant (e.g. a round limit "
                "too low), so no metric is defined and no variant can be judged.")
    if none_finished(base_sums):
        return "Degenerate base: no game finished under the base rules, so no comparison is defined."
    return ""


def _interrupted(study, run_dir, racing=False, phase: str = "", out=None) -> str:
    from .study import finished_trials

    n = len(finished_trials(study))
    where = (f"while writing the results (nothing written to {out}; re-evaluations already finished "
             "are kept)" if phase == "output" and out is not None
             else "during racing (re-evaluations already finished are kept)" if racing
             else "during the base evaluation" if phase == "base" else "")
    where = f" {where}" if where else ""
    return (f"interrupted{where}: {n} finished trials kept in {run_dir / 'study.journal'}; "
            "run the same command to resume")
