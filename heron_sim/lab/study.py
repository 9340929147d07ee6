"""The study: an optuna search over rule variants, then racing on fresh seeds.

1. **Search** (optuna, NSGA-II or TPE, multi-objective, constraints): each trial's rules play
   the same ``games`` games (indices ``0..games-1``, common random numbers) as the base rules;
   its objective losses and constraint values come from the column sums. The study lives in
   ``<run_dir>/study.journal`` (optuna JournalStorage): Ctrl-C keeps every finished trial and
   the same command resumes; a trial cut short is run again (its parameters are re-enqueued).
2. **Racing** (successive halving): the feasible Pareto front of the search is re-played with
   more games on fresh seeds (rung r: indices from ``(r + 1) * FRESH``), together with the base
   rules; after each rung only the feasible, non-dominated candidates go on (at most ``keep``).
   The last rung's games — never seen by any selection — give the reported estimates and the
   paired 95 % intervals (base and variant on the same games, Poisson bootstrap over games).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import HeronSimError
from .metrics import METRICS, headline_metrics, value
from .space import build_rules
from .spec import FRESH, Objective, TuneSpec

BIG = 1e9


# ---------------------------------------------------------------- losses and constraints
def objective_value(o: Objective, S, players):
    return value(o.metric, S, players)


def target_value(o_target, metric, S_base, S_ref, players):
    if o_target == "base":
        return value(metric, S_base, players)
    if o_target == "reference":
        return value(metric, S_ref, players)
    return o_target


def loss(o: Objective, S, S_base, S_ref, players):
    """The quantity minimised for objective ``o`` (vectorised over replicate rows)."""
    v = objective_value(o, S, players)
    if o.direction == "minimize":
        return v
    if o.direction == "maximize":
        return -v
    t = target_value(o.target, o.metric, S_base, S_ref, players)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(v / t - 1.0) if o.relative else np.abs(v - t)


def goal_met(o: Objective, S, S_base, S_ref, players) -> bool | None:
    if o.goal is None:
        return None
    if o.direction == "maximize":
        return bool(objective_value(o, S, players) >= o.goal)
    return bool(loss(o, S, S_base, S_ref, players) <= o.goal)


def constraint_values(spec: TuneSpec, S, S_base, S_ref) -> list[float]:
    """One value per constraint, <= 0 when it holds (optuna's convention)."""
    P = spec.players
    out = []
    for c in spec.constraints:
        v = float(value(c.metric, S, P))
        if not math.isfinite(v):
            out.append(BIG)
            continue
        if c.within is not None:
            ref = float(value(c.metric, S_base if c.of == "base" else S_ref, P))
            out.append(abs(v / ref - 1.0) - c.within)
        else:
            worst = -BIG
            if c.min is not None:
                worst = max(worst, c.min - v)
            if c.max is not None:
                worst = max(worst, v - c.max)
            out.append(worst)
    return out


def losses(spec: TuneSpec, S, S_base, S_ref) -> list[float]:
    out = []
    for o in spec.objectives:
        x = float(loss(o, S, S_base, S_ref, spec.players))
        out.append(x if math.isfinite(x) else BIG)
    return out


def dominates(a, b) -> bool:
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def pareto(points: list[list[float]]) -> list[int]:
    """Indices of the non-dominated points."""
    return [i for i, p in enumerate(points) if not any(dominates(q, p) for j, q in enumerate(points) if j != i)]


def rank_sum(points: list[list[float]]) -> list[float]:
    """Sum over objectives of each point's rank (0 = best): a simple scalar order."""
    arr = np.asarray(points, float)
    if arr.size == 0:
        return []
    ranks = np.argsort(np.argsort(arr, axis=0, kind="stable"), axis=0, kind="stable")
    return ranks.sum(axis=1).tolist()


def select(points: list[list[float]], feasible: list[bool], k: int) -> list[int]:
    """Up to ``k`` indices: feasible points first (all points if none is), by non-dominated
    layers (the front, then the front of the rest, ...), a layer that does not fit cut by rank sum."""
    pool = [i for i in range(len(points)) if feasible[i]] or list(range(len(points)))
    out: list[int] = []
    while pool and len(out) < k:
        layer = [pool[i] for i in pareto([points[i] for i in pool])]
        if len(out) + len(layer) > k:
            rs = rank_sum([points[i] for i in layer])
            layer = [layer[i] for i in sorted(range(len(layer)), key=lambda i: rs[i])[: k - len(out)]]
        out += layer
        pool = [i for i in pool if i not in layer]
    return out


# ---------------------------------------------------------------- the search
@dataclass
class SearchState:
    study: Any
    base_sums: np.ndarray
    ref_sums: np.ndarray | None
    interrupted: bool = False
    stopped_by_time: bool = False
    trials_run_now: int = 0


def _storage(run_dir: Path):
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    return JournalStorage(JournalFileBackend(str(run_dir / "study.journal")))


def open_study(spec: TuneSpec, run_dir: Path, fresh: bool = False):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    run_dir.mkdir(parents=True, exist_ok=True)
    journal = run_dir / "study.journal"
    if fresh and journal.exists():
        journal.unlink()
    storage = _storage(run_dir)
    # Constraints travel with each trial (Trial.set_constraint): both samplers read them.
    if spec.sampler == "nsga2":
        sampler = optuna.samplers.NSGAIISampler(population_size=spec.population, seed=spec.seed % 2**32)
    else:
        sampler = optuna.samplers.TPESampler(seed=spec.seed % 2**32, multivariate=True,
                                             n_startup_trials=min(10, spec.trials))
    study = optuna.create_study(study_name=f"tune-{spec.name}", storage=storage, sampler=sampler,
                                directions=["minimize"] * len(spec.objectives), load_if_exists=True)
    fp = study.user_attrs.get("fingerprint")
    if fp is None:
        study.set_user_attr("fingerprint", spec.fingerprint())
        study.set_user_attr("objectives", [o.describe() for o in spec.objectives])
    elif fp != spec.fingerprint():
        raise HeronSimError(f"{run_dir}: holds a study of a different tune file or engine (rules, parameters, "
                            "objectives, seed, games or the engine's sources changed); pass --fresh to start over "
                            "or --run-dir for another folder")
    _requeue_interrupted(study)
    return study


def _requeue_interrupted(study) -> None:
    """Trials left RUNNING by a stopped process fail now; each failed trial whose parameters
    have no finished or waiting twin is enqueued again (run again, never lost)."""
    from optuna.trial import TrialState

    trials = study.get_trials(deepcopy=False)
    for t in trials:
        if t.state == TrialState.RUNNING:
            study.tell(t.number, state=TrialState.FAIL)
    trials = study.get_trials(deepcopy=False)
    have = {_pkey(t.params) for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED, TrialState.WAITING)}
    for t in trials:
        if t.state == TrialState.FAIL and t.params and _pkey(t.params) not in have:
            study.enqueue_trial(dict(t.params))
            have.add(_pkey(t.params))


def _pkey(params: dict) -> str:
    return repr(sorted(params.items()))


class _DeferInterrupt:
    """Ctrl-C never lands inside a write to the study's journal. The stop mechanism is
    :mod:`heron_sim.interrupt` (installed for the whole study by :func:`heron_sim.lab.tune`):
    the first SIGINT/SIGTERM sets the flag read between batches; a second one inside
    ``with guard():`` is deferred to the end of the block (a write cut in the middle could
    leave optuna's lock or a half trial behind)."""

    def install(self):
        return self

    def uninstall(self):
        pass

    def __call__(self):
        from ..interrupt import critical

        return critical()


def finished_trials(study):
    from optuna.trial import TrialState

    return [t for t in study.get_trials(deepcopy=False) if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]


def run_search(spec: TuneSpec, study, evaluator, *, base_sums, ref_sums, on_trial: Callable | None = None,
               time_limit: float = 0.0, width: int = 1) -> SearchState:
    """Ask, play, tell until ``spec.trials`` trials are finished (or the time limit)."""
    from optuna.trial import TrialState

    state = SearchState(study, base_sums, ref_sums)
    t0 = time.monotonic()
    P = spec.players
    guard = _DeferInterrupt().install()
    try:
        _search_loop(spec, study, evaluator, state, guard, base_sums, ref_sums, on_trial, time_limit, width, t0, P)
    finally:
        guard.uninstall()
    return state


def _search_loop(spec, study, evaluator, state, guard, base_sums, ref_sums, on_trial, time_limit, width, t0, P):
    from optuna.trial import TrialState

    from ..interrupt import stop_requested

    while True:
        if stop_requested():  # Ctrl-C / SIGTERM between two trials
            state.interrupted = True
            break
        done = len(finished_trials(study))
        if done >= spec.trials:
            break
        if time_limit and time.monotonic() - t0 >= time_limit:
            state.stopped_by_time = True
            break
        k = max(1, min(width, spec.trials - done))
        asked = []
        try:
            for _ in range(k):
                with guard():  # a trial is asked, suggested and recorded whole, or not at all
                    t = study.ask()
                    values = {p.name: p.suggest(t) for p in spec.params}
                    try:
                        rules = build_rules(spec.base, list(spec.params), values)
                    except HeronSimError as err:
                        t.set_user_attr("error", str(err))
                        study.tell(t, state=TrialState.PRUNED)
                        continue
                    t.set_user_attr("rules", rules.digest())
                    asked.append((t, rules))
            if not asked:
                continue
            sums = evaluator.sums([r for _, r in asked], 0, spec.games)
            for (t, rules), S in zip(asked, sums):
                with guard():
                    t.set_user_attr("sums", [int(x) for x in S])
                    cv = constraint_values(spec, S, base_sums, ref_sums)
                    t.set_user_attr("constraints", cv)
                    for i, c in enumerate(cv):
                        t.set_constraint(f"c{i}", c)
                    t.set_user_attr("metrics", {m: _f(value(m, S, P)) for m in headline_metrics(P)})
                    study.tell(t, losses(spec, S, base_sums, ref_sums))
                    asked = [a for a in asked if a[0] is not t]
                state.trials_run_now += 1
                if on_trial is not None:
                    on_trial(study)
            asked = []
        except KeyboardInterrupt:
            with guard():
                for t, _ in asked:
                    try:
                        study.tell(t, state=TrialState.FAIL)
                    except Exception:  # noqa: BLE001 - already told: resume re-runs it anyway
                        pass
            state.interrupted = True
            break


def _interval95(x) -> tuple[float, float]:
    """The 2.5 % and 97.5 % quantiles of the finite values of ``x`` (NaN if fewer than 10:
    e.g. a space where no game ends, whose metrics are all undefined)."""
    x = np.asarray(x, float)
    x = x[np.isfinite(x)]
    if x.size < 10:
        return math.nan, math.nan
    lo, hi = np.quantile(x, [0.025, 0.975])
    return float(lo), float(hi)


def _f(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


# ---------------------------------------------------------------- the front of the search
@dataclass
class Candidate:
    id: str                     # "t<trial number>"
    trial: int
    params: dict                # optuna values (choice labels)
    rules: Any
    search_losses: list[float]
    search_feasible: bool
    rungs: list[dict] = field(default_factory=list)   # per rung: games, losses, feasible


def search_front(spec: TuneSpec, study, base_sums=None) -> tuple[list[Candidate], list]:
    """The feasible non-dominated trials (or, if none is feasible, the least-violating ones),
    one per distinct rules set, at most ``max_candidates``."""
    from optuna.trial import TrialState

    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    # One trial per behaviour: trials whose games came out identical (the same column sums over
    # the same seeds, e.g. a key that has no effect while another is off) are one candidate,
    # and a trial that plays exactly like the base rules is no proposal at all.
    base_key = tuple(int(x) for x in base_sums) if base_sums is not None else None
    seen, uniq = set(), []
    for t in complete:
        d = tuple(t.user_attrs.get("sums") or ()) or t.user_attrs.get("rules")
        if d in seen or d == base_key:
            continue
        seen.add(d)
        uniq.append(t)
    feas = [t for t in uniq if all(c <= 0 for c in t.user_attrs.get("constraints", []))]
    pool = feas
    if not pool:
        pool = sorted(uniq, key=lambda t: sum(max(0.0, c) for c in t.user_attrs.get("constraints", [])))[: spec.keep]
    # The front, then the next non-dominated layers while there is room: with noisy estimates a
    # trial just behind the front on the search games may well be ahead on fresh seeds.
    front = [pool[i] for i in select([list(t.values) for t in pool], [True] * len(pool), spec.max_candidates)]
    if len(front) > spec.max_candidates:
        best_each = {min(range(len(front)), key=lambda i: front[i].values[k]) for k in range(len(spec.objectives))}
        rs = rank_sum([list(t.values) for t in front])
        order = sorted(range(len(front)), key=lambda i: (i not in best_each, rs[i]))
        front = [front[i] for i in order[: spec.max_candidates]]
    cands = []
    for t in front:
        rules = build_rules(spec.base, list(spec.params), t.params)
        cands.append(Candidate(f"t{t.number}", t.number, dict(t.params), rules, list(t.values),
                               all(c <= 0 for c in t.user_attrs.get("constraints", []))))
    return cands, complete


# ---------------------------------------------------------------- racing
def race(spec: TuneSpec, evaluator, cands: list[Candidate], *, precision: float | None = None,
         log: Callable[[str], None] = lambda s: None):
    """Successive halving on fresh seeds. Returns (finalists, last rung data)."""
    from .evaluate import max_rate_halfwidth

    P = spec.players
    alive = list(cands)
    last = None
    for r, games in enumerate(spec.rungs):
        first = (r + 1) * FRESH
        final = r == len(spec.rungs) - 1
        rules = [spec.base] + ([spec.reference] if spec.reference else []) + [c.rules for c in alive]
        log(f"racing rung {r + 1}/{len(spec.rungs)}: {len(alive)} candidates + base, {games:,} games each on fresh seeds")
        reps = evaluator.replicates(rules, first, games, boot_seed=spec.seed % 2**32 + r)
        n_used = games
        if final and precision:
            # Play more blocks of fresh games until every headline win rate is that precise.
            block = 1
            while (max(max_rate_halfwidth(s, P) for s, _ in reps) > precision
                   and n_used + games <= spec.max_games):
                block += 1
                more = evaluator.replicates(rules, first + (block - 1) * games, games,
                                            boot_seed=spec.seed % 2**32 + r + 7919 * (block - 1))
                reps = [(a[0] + b[0], a[1] + b[1]) for a, b in zip(reps, more)]
                n_used += games
            log(f"  precision {precision}: {n_used:,} games a candidate "
                f"(widest win-rate half-width {100 * max(max_rate_halfwidth(s, P) for s, _ in reps):.2f} pt)")
        base = reps[0]
        ref = reps[1] if spec.reference else None
        creps = reps[2:] if spec.reference else reps[1:]
        pts, feas = [], []
        for c, (S, _) in zip(alive, creps):
            L_ = losses(spec, S, base[0], ref[0] if ref else None)
            cv = constraint_values(spec, S, base[0], ref[0] if ref else None)
            c.rungs.append({"rung": r + 1, "games": n_used, "first_game": first, "losses": L_,
                            "constraints": cv, "feasible": all(v <= 0 for v in cv)})
            pts.append(L_)
            feas.append(all(v <= 0 for v in cv))
        last = {"games": n_used, "first_game": first, "base": base, "ref": ref,
                "cands": {c.id: rep for c, rep in zip(alive, creps)}}
        if final:
            break
        front = select(pts, feas, spec.keep)
        dropped = [alive[i].id for i in range(len(alive)) if i not in front]
        if dropped:
            log(f"  dropped (behind or infeasible on fresh seeds): {', '.join(dropped)}")
        alive = [alive[i] for i in sorted(front)]
    return alive, last


# ---------------------------------------------------------------- final evidence
def verdict(diff_low: float, diff_high: float) -> str:
    """For a loss difference (variant - base): better / worse only when the interval excludes 0."""
    if not (math.isfinite(diff_low) and math.isfinite(diff_high)):
        return "unclear"
    if diff_high < 0:
        return "better"
    if diff_low > 0:
        return "worse"
    return "no clear difference"


def evidence(spec: TuneSpec, finalists: list[Candidate], last: dict) -> list[dict]:
    """Per finalist: paired effects on the objectives (losses), constraints and every headline
    metric, from the last rung's games. Sorted best first."""
    from .evaluate import max_rate_halfwidth

    P = spec.players
    bS, bR = last["base"]
    rS, rR = last["ref"] if last["ref"] else (None, None)
    out = []
    for c in finalists:
        S, R = last["cands"][c.id]
        obj = []
        for o in spec.objectives:
            lb = float(loss(o, bS, bS, rS, P))
            lv = float(loss(o, S, bS, rS, P))
            d = np.asarray(loss(o, R, bR, rR, P), float) - np.asarray(loss(o, bR, bR, rR, P), float)
            d = d[np.isfinite(d)]
            lo, hi = (np.quantile(d, [0.025, 0.975]) if d.size >= 10 else (math.nan, math.nan))
            lvr = np.asarray(loss(o, R, bR, rR, P), float)
            lvr = lvr[np.isfinite(lvr)]
            llo, lhi = (np.quantile(lvr, [0.025, 0.975]) if lvr.size >= 10 else (math.nan, math.nan))
            met = goal_met(o, S, bS, rS, P)
            met_sure = None
            if o.goal is not None:
                met_sure = bool(lhi <= o.goal) if o.direction != "maximize" else None
            obj.append({"metric": o.metric, "objective": o.describe(), "base_loss": lb, "loss": lv,
                        "loss_low": float(llo), "loss_high": float(lhi),
                        "diff": lv - lb, "low": float(lo), "high": float(hi), "verdict": verdict(lo, hi),
                        "goal": o.goal, "goal_met": met, "goal_met_95": met_sure})
        cons = []
        for k, cst in enumerate(spec.constraints):
            cv = constraint_values(spec, S, bS, rS)[k]
            entry = {"constraint": cst.describe(), "value": cv, "holds": cv <= 0}
            if cst.within is not None:
                refS, refR = (bS, bR) if cst.of == "base" else (rS, rR)
                ratio = np.asarray(value(cst.metric, R, P), float) / np.asarray(value(cst.metric, refR, P), float) - 1
                ratio = ratio[np.isfinite(ratio)]
                entry["relative_change"] = float(value(cst.metric, S, P) / value(cst.metric, refS, P) - 1)
                entry["low"], entry["high"] = _interval95(ratio)
            cons.append(entry)
        effects = []
        for m in headline_metrics(P):
            b = float(value(m, bS, P))
            v = float(value(m, S, P))
            d = np.asarray(value(m, R, P), float) - np.asarray(value(m, bR, P), float)
            d = d[np.isfinite(d)]
            lo, hi = (np.quantile(d, [0.025, 0.975]) if d.size >= 10 else (math.nan, math.nan))
            ref_v = float(value(m, rS, P)) if rS is not None else None
            sig = "differs" if (math.isfinite(lo) and (lo > 0 or hi < 0)) else "no clear difference"
            effects.append({"metric": m, "label": METRICS[m].label, "base": b, "variant": v, "reference": ref_v,
                            "diff": v - b, "low": float(lo), "high": float(hi), "significant": sig})
        out.append({"id": c.id, "trial": c.trial, "params": c.params, "rules": c.rules, "digest": c.rules.digest(),
                    "games": last["games"], "first_game": last["first_game"], "objectives": obj,
                    "constraints": cons, "feasible": all(x["holds"] for x in cons), "effects": effects,
                    "rate_halfwidth": max_rate_halfwidth(S, P),
                    "rungs": c.rungs, "search_losses": c.search_losses})
    rs = rank_sum([[o["loss"] for o in e["objectives"]] for e in out]) if out else []
    for e, r in zip(out, rs):
        # Feasible first, then the most goals met, the most objectives better than the base
        # (paired interval below zero), the fewest worse, then the sum of ranks.
        e["_rank"] = (not e["feasible"], -sum(1 for o in e["objectives"] if o["goal_met"]),
                      -sum(1 for o in e["objectives"] if o["verdict"] == "better"),
                      sum(1 for o in e["objectives"] if o["verdict"] == "worse"), r)
    out.sort(key=lambda e: e["_rank"])
    for e in out:
        e.pop("_rank")
    return out
