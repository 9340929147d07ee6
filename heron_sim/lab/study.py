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
from .metrics import METRICS, SKILL_METRICS, headline_metrics, value
from .changes import changes_text, n_changed, rule_changes
from .decide import dominates, goal_test, holm_over_family, pareto  # noqa: F401 - the shared decisions
from .optuna_compat import sampler_kwargs, set_constraints
from .space import build_rules
from .spec import FRESH, Objective, TuneSpec

BIG = 1e9


# ---------------------------------------------------------------- losses and constraints
# Over the panel: heron_sim.lab.objectives (sums carry the scenario first, [n_sc, K]).
from .objectives import constraint_values, losses, panel_loss, players_of  # noqa: E402,F401


def loss(o: Objective, S, S_base, S_ref, spec):
    """The quantity minimised for objective ``o`` over the panel (vectorised over replicates)."""
    return panel_loss(spec, o, S, S_base, S_ref)


def rank_sum(points: list[list[float]]) -> list[float]:
    """Sum over objectives of each point's rank (0 = best): a simple scalar order."""
    arr = np.asarray(points, float)
    if arr.size == 0:
        return []
    import pandas as pd

    ranks = pd.DataFrame(arr).rank(method="min", axis=0).to_numpy() - 1  # ties share a rank
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
    exhausted: bool = False
    trials_run_now: int = 0


def journal_storage(path: Path):
    """optuna's JournalStorage over the file ``path``: ``JournalFileBackend`` from optuna 4 on,
    ``JournalFileStorage`` in optuna 3 (the same file format)."""
    from optuna.storages import JournalStorage

    try:
        from optuna.storages.journal import JournalFileBackend
    except ImportError:  # optuna 3.x
        from optuna.storages import JournalFileStorage as JournalFileBackend
    return JournalStorage(JournalFileBackend(str(path)))


def _storage(run_dir: Path):
    return journal_storage(run_dir / "study.journal")


def open_study(spec: TuneSpec, run_dir: Path, fresh: bool = False):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    run_dir.mkdir(parents=True, exist_ok=True)
    journal = run_dir / "study.journal"
    if fresh and journal.exists():
        journal.unlink()
    if (run_dir / OLD_SAMPLER_FILE).exists():  # the pickled state of an older version: never read again
        (run_dir / OLD_SAMPLER_FILE).unlink()
    storage = _storage(run_dir)
    # Constraints travel with each trial (Trial.set_constraint): every sampler reads them.
    sampler = make_sampler(spec, 0)   # replaced before each ask (sampler_for_next_trial)
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


#: The pickled sampler of versions before the sampler scheme below (removed when a study opens).
OLD_SAMPLER_FILE = "sampler.pkl"

def trial_seed(seed: int, k: int) -> int:
    """The seed of the sampler that asks the trial following ``k`` finished trials: a function of
    the study's seed and ``k`` only (numpy's SeedSequence), so nothing of the sampler is saved."""
    return int(np.random.SeedSequence([int(seed) % 2**63, int(k)]).generate_state(1, np.uint32)[0])


def make_sampler(spec: TuneSpec, k: int):
    """A new sampler of the study's kind (``search.sampler``), seeded for the trial that follows
    ``k`` finished trials.

    optuna's samplers keep everything but their random generator in the study's storage (the
    trials, NSGA-II's generations), so a sampler rebuilt from the journal and this seed asks
    exactly what the sampler of an uninterrupted study would: a resumed study needs no pickled
    sampler (optuna 5 samplers hold thread locks and cannot be pickled) and behaves alike on
    optuna 3, 4 and 5 (each version draws its own sequence, the lock file pins which)."""
    import optuna

    seed = trial_seed(spec.seed, k)
    if spec.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    extra = sampler_kwargs(len(spec.constraints) + (0 if spec.allow_inert_powers else 1))
    if spec.sampler == "nsga2":
        return optuna.samplers.NSGAIISampler(population_size=spec.population, seed=seed, **extra)
    # n_startup_trials is fixed (not --trials), so a resume with more trials asks alike.
    return optuna.samplers.TPESampler(seed=seed, multivariate=True, n_startup_trials=10, **extra)


def finished_count(study) -> int:
    """Trials finished so far (complete or pruned: ladder entries and duplicates included; failed
    and waiting ones not, so a trial re-run after an interrupt is asked as it first was)."""
    from optuna.trial import TrialState

    return sum(t.state in (TrialState.COMPLETE, TrialState.PRUNED) for t in study.get_trials(deepcopy=False))


def sampler_for_next_trial(spec: TuneSpec, study) -> None:
    """Give the study the sampler that asks its next trial (:func:`make_sampler`)."""
    study.sampler = make_sampler(spec, finished_count(study))


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
    """Finished trials that played a rule set of their own (a duplicate is not counted)."""
    from optuna.trial import TrialState

    return [t for t in study.get_trials(deepcopy=False) if t.state in (TrialState.COMPLETE, TrialState.PRUNED)
            and "duplicate_of" not in t.user_attrs and "ladder" not in t.user_attrs]


#: Consecutive asks giving rule sets already played after which the space counts as exhausted.
MAX_DUPLICATES = 50


def run_search(spec: TuneSpec, study, evaluator, *, base_sums, ref_sums, on_trial: Callable | None = None,
               time_limit: float = 0.0, width: int = 1, played: dict | None = None,
               run_dir: Path | None = None) -> SearchState:
    """Ask, play, tell until ``spec.trials`` trials are finished (or the time limit).

    Trials are asked one at a time, whatever the executor's width (the batches of one trial
    spread over the workers), so a study on a cluster of any width asks the same trials in the
    same order as a local one. ``played`` (digest -> anything with ``sums``) holds the rule sets
    already played (the ladder's, earlier trials'): a trial that builds one of them is told the
    same values and marked ``duplicate_of`` (not counted: ``trials = N`` buys N distinct rule
    sets). Each trial is asked by a sampler seeded from the study's seed and the number of finished
    trials (:func:`make_sampler`): a resume asks what an uninterrupted study would."""
    state = SearchState(study, base_sums, ref_sums)
    t0 = time.monotonic()
    played = {} if played is None else played
    for t in study.get_trials(deepcopy=False):
        d = t.user_attrs.get("rules")
        if d and t.user_attrs.get("sums") is not None and d not in played:
            played[d] = _Played(np.asarray(t.user_attrs["sums"], dtype=np.int64).reshape(len(spec.scenario_bases), -1))
    guard = _DeferInterrupt().install()
    try:
        _search_loop(spec, study, evaluator, state, guard, base_sums, ref_sums, on_trial, time_limit, t0,
                     played, run_dir)
    finally:
        guard.uninstall()
    return state


@dataclass
class _Played:
    sums: np.ndarray


def _search_loop(spec, study, evaluator, state, guard, base_sums, ref_sums, on_trial, time_limit, t0,
                 played, run_dir):
    from optuna.trial import TrialState

    from .ladder import disables_a_power

    dup_run = 0
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
        if dup_run >= MAX_DUPLICATES:
            state.exhausted = True
            break
        asked = None
        try:
            with guard():  # a trial is asked, suggested and recorded whole, or not at all
                sampler_for_next_trial(spec, study)
                t = study.ask()
                values = {p.name: p.suggest(t) for p in spec.params}
                try:
                    cand = spec.rules_for(values)
                except HeronSimError as err:
                    t.set_user_attr("error", str(err))
                    study.tell(t, state=TrialState.PRUNED)
                    continue
                digest = cand[0].digest()
                t.set_user_attr("rules", digest)
                t.set_user_attr("n_changed", n_changed(spec.base, cand[0]))
                prev = played.get(digest)
                if prev is None and digest == spec.base.digest():
                    prev = _Played(base_sums)
                if prev is not None:
                    dup_run += 1
                    t.set_user_attr("duplicate_of", digest)
                    _tell(spec, study, t, prev.sums, base_sums, ref_sums, cand, record=False)
                    continue
                dup_run = 0
                asked = (t, cand)
            S = evaluator.sums([cand], 0, spec.games)[0]
            with guard():
                _tell(spec, study, t, S, base_sums, ref_sums, cand, record=True)
                played[digest] = _Played(S)
                asked = None
            state.trials_run_now += 1
            if on_trial is not None:
                on_trial(study)
        except KeyboardInterrupt:
            with guard():
                if asked is not None:
                    try:
                        study.tell(asked[0], state=TrialState.FAIL)
                    except Exception:  # noqa: BLE001 - already told: resume re-runs it anyway
                        pass
            state.interrupted = True
            break


def _tell(spec, study, t, S, base_sums, ref_sums, cand, record: bool):
    from .ladder import disables_a_power

    if record:
        t.set_user_attr("sums", [int(x) for x in np.asarray(S).ravel()])
        # The variant's name counts distinct finished trials: the same whatever failed before.
        t.set_user_attr("seq", len(finished_trials(study)) + 1)
    cv = constraint_values(spec, S, base_sums, ref_sums)
    if not spec.allow_inert_powers:
        off = disables_a_power(spec.base, cand[0])
        if off:
            cv[-1] = max(cv[-1], float(len(off)))
            t.set_user_attr("powers_off", off)
    t.set_user_attr("constraints", cv)
    set_constraints(t, cv)
    if record:
        t.set_user_attr("metrics", {m: _f(value(m, S[0], spec.scenario_bases[0].players))
                                    for m in headline_metrics(spec.scenario_bases[0].players)})
    study.tell(t, losses(spec, S, base_sums, ref_sums))


def _f(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


# ---------------------------------------------------------------- the front of the search
@dataclass
class Candidate:
    id: str                     # "t<trial number>", or "L<n>" for a ladder entry
    trial: int                  # optuna trial number (-1: a ladder entry)
    params: dict                # optuna values (choice labels) it sets
    rules: Any                  # the rules of the first scenario (the study's base players)
    search_losses: list[float]
    search_feasible: bool
    rungs: list[dict] = field(default_factory=list)   # per rung: games, losses, feasible
    cand: tuple = ()            # the rules of each scenario
    n_changed: int = 0
    protected: bool = False     # a ladder pick: raced to the last rung whatever its rank


def search_front(spec: TuneSpec, study, base_sums=None, ladder=None) -> tuple[list[Candidate], list]:
    """The candidates racing starts from: the ladder's best variant changing at most k rules
    (k = 1 .. ladder.max_keys, protected: they reach the last rung), then the feasible
    non-dominated trials of the search (or, if none is feasible, the least-violating ones),
    one per distinct rule set, at most ``max_candidates`` in all."""
    from optuna.trial import TrialState

    complete = [t for t in study.get_trials(deepcopy=False)
                if t.state == TrialState.COMPLETE and "duplicate_of" not in t.user_attrs and "ladder" not in t.user_attrs]
    base_key = tuple(int(x) for x in np.asarray(base_sums).ravel()) if base_sums is not None else None
    seen, cands = set(), []
    # The ladder's picks: the best entry changing at most k rules, for each k.
    from .ladder import score_key

    entries = sorted(ladder or [], key=score_key)
    for k in range(1, spec.ladder_max_keys + 1):
        pool = [e for e in entries if e.n_changed <= k and e.digest not in seen]
        if not pool:
            continue
        e = pool[0]
        seen.add(e.digest)
        cands.append(Candidate(e.id, -1, dict(e.values), e.cand[0], list(e.losses), e.feasible,
                               cand=e.cand, n_changed=e.n_changed, protected=True))
    # One trial per behaviour: trials whose games came out identical (the same column sums over
    # the same seeds, e.g. a key that has no effect while another is off) are one candidate,
    # and a trial that plays exactly like the base rules is no proposal at all.
    sums_seen, uniq = set(), []
    for t in complete:
        d = tuple(t.user_attrs.get("sums") or ()) or t.user_attrs.get("rules")
        if d in sums_seen or d == base_key or t.user_attrs.get("rules") in seen:
            continue
        sums_seen.add(d)
        uniq.append(t)
    feas = [t for t in uniq if all(c <= 0 for c in t.user_attrs.get("constraints", []))]
    pool = feas
    if not pool:
        pool = sorted(uniq, key=lambda t: sum(max(0.0, c) for c in t.user_attrs.get("constraints", [])))[: spec.keep]
    room = max(0, spec.max_candidates - len(cands))
    front = [pool[i] for i in select([list(t.values) for t in pool], [True] * len(pool), room)] if room else []
    for t in front:
        cand = spec.rules_for(t.params)
        cands.append(Candidate(f"t{t.user_attrs.get('seq', t.number)}", t.number, dict(t.params), cand[0], list(t.values),
                               all(c <= 0 for c in t.user_attrs.get("constraints", [])), cand=cand,
                               n_changed=n_changed(spec.base, cand[0])))
    return cands, complete


# ---------------------------------------------------------------- racing
def race(spec: TuneSpec, evaluator, cands: list[Candidate], *, precision: float | None = None,
         log: Callable[[str], None] = lambda s: None, on_rung: Callable | None = None):
    """Successive halving on fresh seeds, every scenario of the panel. Returns (finalists, last
    rung data). ``on_rung(r, games_to_play)`` is told the games a rung is about to play."""
    from .evaluate import max_rate_halfwidth
    from .ladder import disables_a_power

    Ps = players_of(spec)
    base_c = tuple(spec.scenario_bases)
    ref_c = tuple(spec.scenario_refs) if spec.reference else None
    alive = list(cands)
    last = None
    for r, games in enumerate(spec.rungs):
        first = (r + 1) * FRESH
        final = r == len(spec.rungs) - 1
        rules = [base_c] + ([ref_c] if ref_c else []) + [c.cand for c in alive]
        log(f"racing rung {r + 1}/{len(spec.rungs)}: {len(alive)} candidates + base, {games:,} games each "
            f"in each of {len(base_c)} scenario(s), on fresh seeds")
        if on_rung is not None:
            on_rung(r, len(rules) * games * len(base_c))
        luck = final and spec.luck  # the evidence's games only: the luck costs ~5x their CPU
        reps = evaluator.replicates(rules, first, games, boot_seed=spec.seed % 2**32 + r, luck=luck)
        n_used = games
        if final and precision:
            # Play more blocks of fresh games until every headline win rate is that precise.
            block = 1
            while (max(max_rate_halfwidth(s, Ps) for s, _ in reps) > precision
                   and n_used + games <= spec.max_games):
                block += 1
                more = evaluator.replicates(rules, first + (block - 1) * games, games,
                                            boot_seed=spec.seed % 2**32 + r + 7919 * (block - 1), luck=luck)
                reps = [(a[0] + b[0], a[1] + b[1]) for a, b in zip(reps, more)]
                n_used += games
            log(f"  precision {precision}: {n_used:,} games a candidate and scenario "
                f"(widest win-rate half-width {100 * max(max_rate_halfwidth(s, Ps) for s, _ in reps):.2f} pt)")
        base = reps[0]
        ref = reps[1] if ref_c else None
        creps = reps[2:] if ref_c else reps[1:]
        pts, feas = [], []
        for c, (S, _) in zip(alive, creps):
            L_ = losses(spec, S, base[0], ref[0] if ref else None)
            cv = constraint_values(spec, S, base[0], ref[0] if ref else None)
            if not spec.allow_inert_powers and disables_a_power(spec.base, c.rules):
                cv[-1] = max(cv[-1], 1.0)
            c.rungs.append({"rung": r + 1, "games": n_used, "first_game": first, "losses": L_,
                            "constraints": cv, "feasible": all(v <= 0 for v in cv)})
            pts.append(L_)
            feas.append(all(v <= 0 for v in cv))
        last = {"games": n_used, "first_game": first, "base": base, "ref": ref, "luck": luck,
                "cands": {c.id: rep for c, rep in zip(alive, creps)}}
        if final:
            break
        front = set(select(pts, feas, spec.keep)) | {i for i, c in enumerate(alive) if c.protected}
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


def _shown(x):
    """``x`` (a loss, or an array of them) with the search's stand-in for an undefined value
    (:data:`BIG`: no game finished) replaced by NaN, which the pages write as n/a."""
    x = np.asarray(x, float)
    return np.where(np.abs(x) >= BIG, np.nan, x)


def _q(x, qs=(0.025, 0.975)):
    x = np.asarray(x, float)
    x = x[np.isfinite(x)]
    return tuple(float(v) for v in np.quantile(x, qs)) if x.size >= 10 else (math.nan, math.nan)


def past_goal(reps, goal: float | None, direction: str) -> list[int] | None:
    """How many of a loss's bootstrap replicates ``reps`` lie past its goal, and how many are
    finite: ``[past, n]`` (None without a goal), for :func:`goal_decision`'s p where the normal
    approximation has no width to read."""
    if goal is None:
        return None
    g = -goal if direction == "maximize" else goal
    x = _shown(reps)
    x = x[np.isfinite(x)]
    return [int(np.sum(x > g)), int(x.size)]


def goal_decision(lv: float, lo: float, hi: float, goal: float, direction: str, games: int,
                  past: list[int] | None = None) -> dict:
    """Whether a variant's loss meets its goal, as an equivalence test reads it (issue 30 item 5).

    ``passes``: the upper bound of the 95 % interval lies within the goal; ``fails (decisive)``:
    its lower bound lies past it; ``undecided (underpowered)``: the estimate meets the goal but
    the interval reaches past it; ``undecided (no margin)``: a one-sided goal with no excess
    allowed (goal 0) whose estimate shows no excess: more games would not settle it, a margin
    would (``goal = "targets"`` or a number); ``likely fails (not decisive)``: the estimate misses, the
    interval reaches back. ``games_needed``: the games a table that would decide it if the
    estimate held (the half-width shrinks as 1/sqrt(games)); ``p``: the one-sided p-value of
    "the goal is not met" (normal approximation from the upper half-width), for Holm. Where the
    upper half-width is nil — a one-sided goal's loss, clipped at 0, whose every replicate shows no
    excess — the normal approximation has nothing to read (it gave 0.5, so Holm refused a goal the
    interval had shown met); ``past`` (:func:`past_goal`: the replicates past the goal, of how
    many) then gives the bootstrap's one-sided p, (past + 1) / (n + 1)."""
    from scipy.stats import norm

    g = -goal if direction == "maximize" else goal  # losses are minimised: met when loss <= g
    d = goal_test(lv, lo, hi, g, games)
    if d["decision"] == "undecided (no interval)":
        return {**d, "p": 1.0}
    if hi - lv <= 0 and past is not None and past[1] > 0:
        p = (past[0] + 1) / (past[1] + 1)
    else:
        se = max(hi - lv, 1e-12) / 1.959963984540054
        p = float(norm.sf((g - lv) / se))
    if d["decision"] in ("passes", "fails (decisive)"):
        return {**d, "games_needed": games, "p": p}  # decided at the games played
    if d["decision"] == "undecided (underpowered)" and g == 0 and lv == 0 and direction in ("at_most", "at_least"):
        # "no worse than T" with no margin: the estimate sits on the bound (no excess), so more
        # games would not decide it; only a margin would (issue 58)
        return {"decision": "undecided (no margin)", "games_needed": None, "p": p}
    return {**d, "p": p}


def moved_unfairness(e: dict, margin: float | None = None) -> list[dict]:
    """Where a variant moves the unfairness (issue 30 item 4): at any table of the panel, a seat
    or a guide (when dealt) whose win rate ends farther from its fair share (1 / players) than
    the margin (the designer's ``share_margin``), farther than under the base, with a paired 95 %
    interval of the change that excludes zero in that direction. Seats are numbered from 1."""
    from ..analysis.judge import SHARE_MARGIN
    from ..rules.words import GUIDES

    margin = SHARE_MARGIN if margin is None else margin
    out = []
    for table, rows in (e.get("effects_by_scenario") or {}).items():
        seats = [x for x in rows if x["metric"].startswith("seat_") and x["metric"].endswith("_win_rate")]
        fair = 1.0 / len(seats) if seats else None
        for x in rows:
            m = x["metric"]
            if fair is None or not m.endswith("_win_rate") or not m.startswith(("seat_", "guide_")):
                continue
            b, v, lo, hi = x["base"], x["variant"], x["low"], x["high"]
            if not all(map(math.isfinite, (b, v, lo, hi))):
                continue
            away = (v - fair) * (v - b) > 0 and (lo > 0 or hi < 0)
            if abs(v - fair) > margin and abs(v - fair) > abs(b - fair) and away:
                part = m.split("_")[1]
                what = f"seat {int(part) + 1}" if m.startswith("seat_") else \
                    f"the {GUIDES['en'].get(part, part)} guide"
                out.append({"table": table, "what": what, "metric": m, "fair": fair, "base": b, "variant": v,
                            "diff": x["diff"], "low": lo, "high": hi})
    return out


def side_effects(e: dict, spec: TuneSpec) -> tuple[int, float]:
    """A variant's side effects: the headline figures it moves at any table of the panel (the
    paired 95 % interval excludes zero) outside the objectives' own measures, as (how many,
    the sum of |difference| / half-width): fewer and smaller first."""
    own = {o.metric for o in spec.objectives}
    n, size = 0, 0.0
    for rows in (e.get("effects_by_scenario") or {}).values():
        for x in rows:
            lo, hi = x["low"], x["high"]
            if x["metric"] in own or not (math.isfinite(lo) and math.isfinite(hi)) or not (lo > 0 or hi < 0):
                continue
            n += 1
            half = (hi - lo) / 2
            size += abs(x["diff"]) / half if half > 0 else 0.0
    return n, size


def designer_order(spec: TuneSpec, out: list[dict]) -> None:
    """Sort re-evaluated variants as a designer chooses among them (issue 30), in place.

    1. The variants that meet every goal with 95 % confidence and every constraint, the fewest
       rules changed first, then the smallest side effects (:func:`side_effects`), then the
       estimates (sum of ranks over the objectives).
    2. The others, closest first: feasible first, the most goals met with 95 % confidence, then
       on the estimates; then the most objectives on which the variant cannot be told from the best
       variant (its interval reaches the best estimate), and among those **the fewest rules**: noise
       between two variants alike never promotes the larger change; then the most objectives
       better than the base, the fewest worse, the side effects and the estimates.
    Each entry gets ``side_effects`` (count, size) and ``near_best`` (objectives)."""
    from .ladder import meets_95

    if not out:
        return
    raw = [[o.pop("_rank_loss") for o in e["objectives"]] for e in out]  # BIG where undefined
    rs = rank_sum(raw)
    best = [min(x[k] for x in raw) for k in range(len(spec.objectives))]
    for e, r, lv in zip(out, rs, raw):
        n_side, size = side_effects(e, spec)
        near = sum(1 for o, v, b in zip(e["objectives"], lv, best)
                   if v <= b or (math.isfinite(o["loss_low"]) and o["loss_low"] <= b))
        e["side_effects"] = {"figures_moved": n_side, "size": round(size, 3)}
        e["near_best"] = near
        if meets_95(e):
            e["_rank"] = (0, e["n_changed"], n_side, size, r)
        else:
            e["_rank"] = (1, not e["feasible"], -sum(1 for o in e["objectives"] if o["goal_met_95"]),
                          -sum(1 for o in e["objectives"] if o["goal_met"]), -near, e["n_changed"],
                          -sum(1 for o in e["objectives"] if o["verdict"] == "better"),
                          sum(1 for o in e["objectives"] if o["verdict"] == "worse"), n_side, size, r)
    out.sort(key=lambda e: e["_rank"])
    for e in out:
        e.pop("_rank")


def _plain_view(x):
    return x


def _adjusted_view(x):
    """The luck-adjusted sums (:func:`heron_sim.lab.metrics.adjusted_sums`) of the last rung's
    sums or replicates; None stays None (no reference)."""
    from .metrics import adjusted_sums

    return None if x is None else adjusted_sums(x)


def _width(fig: dict, lo: str, hi: str) -> float:
    w = fig[hi] - fig[lo]
    return w if math.isfinite(w) else math.inf


def _narrower(figures: Callable, last: dict, lo: str, hi: str) -> tuple[dict, dict]:
    """A figure from the last rung's games, plain or luck-adjusted (issue 32 item 3): where the
    last rung measured the luck (``[racing] luck = true``), ``figures`` is computed on both sums,
    and the one whose interval ``[lo, hi]`` is narrower is used (the plain one on a tie: a metric
    the luck does not touch, or dice whose luck is not measured). Returns (the figures used, what
    says which, nothing without the luck: ``estimate``, ``plain`` (the plain figures, when the adjusted ones are used) and
    ``luck_variance_ratio`` (plain width ÷ adjusted width, squared: how many times fewer games
    the adjusted interval needs))."""
    plain = figures(_plain_view)
    if not last.get("luck"):
        return plain, {}  # a plain study's evidence as before the luck (its pages unchanged)
    adj = figures(_adjusted_view)
    wp, wa = _width(plain, lo, hi), _width(adj, lo, hi)
    ratio = (wp / wa) ** 2 if 0 < wa < math.inf and wp < math.inf else None
    if wa < wp:
        return adj, {"estimate": "luck-adjusted", "plain": plain, "luck_variance_ratio": ratio}
    return plain, {"estimate": "plain", "luck_variance_ratio": ratio}


def estimate_words(x: dict) -> str:
    """`` (luck-adjusted: plain [lo, hi], 2.1x fewer games)`` after a figure that used the
    luck-adjusted estimate; empty for a plain one."""
    if x.get("estimate") != "luck-adjusted":
        return ""
    from .metrics import format_value, unit_suffix

    m, p = x["metric"], x["plain"]
    lo, hi = ("loss_low", "loss_high") if "loss_low" in p else ("low", "high")
    r = x.get("luck_variance_ratio")
    return (f" (luck-adjusted; plain [{format_value(m, p[lo])}, {format_value(m, p[hi])}]{unit_suffix(m)}"
            + (f", {r:.1f}x fewer games for this interval" if r else "") + ")")


def base_evidence(spec: TuneSpec, last: dict) -> dict:
    """Do the rulings already meet the goals? The base's loss per objective with its interval
    from the last rung's games, each goal met with 95 % confidence (upper bound within it), and
    the constraints on the base's own figures. ``meets``: every objective has a goal, every goal
    is met with 95 % confidence and every constraint holds: then no change is needed."""
    bS, bR = last["base"]
    rS, rR = last["ref"] if last["ref"] else (None, None)
    objs = []
    for o in spec.objectives:
        def figures(view):
            b, br, r_, rr = view(bS), view(bR), view(rS), view(rR)
            lv = float(loss(o, b, b, r_, spec))
            reps = loss(o, br, br, rr, spec)
            lo, hi = _q(_shown(reps))
            if math.isfinite(lo):
                lo, hi = min(lo, lv), max(hi, lv)
            return {"loss": lv, "loss_low": lo, "loss_high": hi, "past_goal": past_goal(reps, o.goal, o.direction)}

        fig, used = _narrower(figures, last, "loss_low", "loss_high")
        lv, lo, hi = fig["loss"], fig["loss_low"], fig["loss_high"]
        met = met_sure = None
        if o.goal is not None:
            if o.direction == "maximize":
                met, met_sure = bool(-lv >= o.goal), bool(math.isfinite(hi) and -hi >= o.goal)
            else:
                met, met_sure = bool(lv <= o.goal), bool(math.isfinite(hi) and hi <= o.goal)
        dec = goal_decision(lv, lo, hi, o.goal, o.direction, last["games"],
                            fig.get("past_goal")) if o.goal is not None else {}
        objs.append({"metric": o.metric, "objective": o.describe(), "loss": float(_shown(lv)), "loss_low": lo,
                     "loss_high": hi, "goal": o.goal, "goal_met": met, "goal_met_95": met_sure,
                     "decision": dec.get("decision"), "games_needed": dec.get("games_needed"), **used})
    cv = constraint_values(spec, bS, bS, rS)[: len(spec.constraints)]
    holds = all(x <= 0 for x in cv)
    meets = bool(objs) and all(x["goal"] is not None and x["goal_met_95"] for x in objs) and holds
    return {"objectives": objs, "constraints_hold": holds, "meets": meets, "games": last["games"]}


def _objective_keys(o: Objective) -> dict:
    """What a page needs of an objective besides its words: its player count (``players``), a
    relative goal's factor and what it multiplies (``scale``, ``of``: "base", "reference",
    "targets"), where the goal's margin was read (``goal_from``); only those set."""
    out = {}
    if o.players:
        out["players"] = o.players
    if o.scale != 1.0 and isinstance(o.target, str):
        out.update(scale=o.scale, of=o.target)
    if o.goal_from:
        out["goal_from"] = o.goal_from
    if o.target == "fair":
        out["of"] = "fair"
    return out


def evidence(spec: TuneSpec, finalists: list[Candidate], last: dict) -> list[dict]:
    """Per finalist: paired effects on the objectives (losses over the panel, and each
    scenario's value, target and signed distance), constraints, each power's use and every
    headline metric of each scenario, from the last rung's games. Sorted best first."""
    from .evaluate import max_rate_halfwidth
    from .ladder import disables_a_power
    from .objectives import (constraint_labels, constraint_scenario, describe_distance, inert_powers,
                             scenario_loss, scenarios_of, signed_distance, tables_of, target_value)

    from .objectives import mode_words

    Ps = players_of(spec)
    names = [sc.name for sc in spec.panel] or ["table"]
    ref_name = mode_words(spec.reference.mode) if spec.reference is not None else None
    bS, bR = last["base"]
    rS, rR = last["ref"] if last["ref"] else (None, None)
    labels = constraint_labels(spec)
    out = []
    for c in finalists:
        S, R = last["cands"][c.id]
        obj = []
        for o in spec.objectives:
            def figures(view):
                s_, r_, b_, br_, rs_, rr_ = (view(x) for x in (S, R, bS, bR, rS, rR))
                lb = float(loss(o, b_, b_, rs_, spec))
                lv = float(loss(o, s_, b_, rs_, spec))
                reps = loss(o, r_, br_, rr_, spec)
                lo, hi = _q(_shown(reps) - _shown(loss(o, br_, br_, rr_, spec)))
                llo, lhi = _q(_shown(reps))
                # The bootstrap of a maximum (the worst table, an absolute distance) is biased
                # upward: the interval is widened to contain its own estimate.
                if math.isfinite(llo):
                    llo, lhi = min(llo, lv), max(lhi, lv)
                return {"base_loss": lb, "loss": lv, "low": lo, "high": hi, "loss_low": llo, "loss_high": lhi,
                        "past_goal": past_goal(reps, o.goal, o.direction)}

            fig, used = _narrower(figures, last, "loss_low", "loss_high")
            lb, lv, lo, hi, llo, lhi = (fig[k] for k in ("base_loss", "loss", "low", "high", "loss_low", "loss_high"))
            view = _adjusted_view if used.get("estimate") == "luck-adjusted" else _plain_view
            vS, vR, vbS, vbR, vrS, vrR = (view(x) for x in (S, R, bS, bR, rS, rR))  # each table on the same sums
            met = met_sure = None
            decision = {}
            if o.goal is not None:
                if o.direction == "maximize":
                    met = bool(-lv >= o.goal)
                    met_sure = bool(-lhi >= o.goal) if math.isfinite(lhi) else False
                else:
                    met = bool(lv <= o.goal)
                    met_sure = bool(lhi <= o.goal) if math.isfinite(lhi) else False
                d = goal_decision(lv, llo, lhi, o.goal, o.direction, last["games"], fig.get("past_goal"))
                decision = {"decision": d["decision"], "games_needed": d["games_needed"], "p_goal": d["p"]}
            scen = []
            for i in tables_of(spec, o):  # each table on the figures used (plain or adjusted)
                P = Ps[i]
                rs_i = None if vrS is None else vrS[i]
                rr_i = None if vrR is None else vrR[i]
                v = float(value(o.metric, vS[i], P))
                vlo, vhi = _q(value(o.metric, vR[i], P))
                t = (float(target_value(o, vbS[i], rs_i, P)) if o.direction not in ("minimize", "maximize") else None)
                d = (float(signed_distance(o, vS[i], vbS[i], rs_i, P)) if t is not None else None)
                dlo, dhi = (_q(signed_distance(o, vR[i], vbR[i], rr_i, P)) if t is not None else (None, None))
                bl = float(value(o.metric, vbS[i], P))
                sl = float(scenario_loss(o, vS[i], vbS[i], rs_i, P))
                scen.append({"scenario": names[i], "value": v, "low": vlo, "high": vhi, "base": bl, "loss": sl,
                             "target": t, "distance": d, "distance_low": dlo, "distance_high": dhi,
                             "text": describe_distance(o, v, t, d, ref_name) if t is not None else
                             describe_distance(o, v, None, None)})
            # A loss undefined on these games (no game finished: the search's stand-in BIG) is
            # shown as n/a, never as a figure; the ranking still reads it as the worst.
            obj.append({"metric": o.metric, "objective": o.describe(), **_objective_keys(o), "base_loss": float(_shown(lb)),
                        "loss": float(_shown(lv)), "_rank_loss": lv, "loss_low": llo, "loss_high": lhi,
                        "diff": float(_shown(lv) - _shown(lb)), "low": lo, "high": hi, "verdict": verdict(lo, hi),
                        "goal": o.goal, "goal_met": met, "goal_met_95": met_sure, **decision, "scenarios": scen,
                        **used})
        cv = constraint_values(spec, S, bS, rS)
        off = disables_a_power(spec.base, c.rules) if not spec.allow_inert_powers else []
        inert = inert_powers(spec, S, bS) if not spec.allow_inert_powers else []
        if off:
            cv[-1] = max(cv[-1], 1.0)
        cons = []
        for k, lab in enumerate(labels):
            entry = {"constraint": lab, "value": cv[k], "holds": cv[k] <= 0}
            if k < len(spec.constraints):
                cst = spec.constraints[k]
                if cst.within is not None:
                    refS, refR = (bS, bR) if cst.of == "base" else (rS, rR)
                    at = scenarios_of(spec, cst.metric)
                    rel = {i: float(value(cst.metric, S[i], Ps[i]) / value(cst.metric, refS[i], Ps[i]) - 1) for i in at}
                    worst = max(at, key=lambda i: abs(rel[i]))
                    entry["relative_change"] = rel[worst]
                    entry["scenario"] = names[worst]
                    entry["low"], entry["high"] = _q(np.asarray(value(cst.metric, R[worst], Ps[worst]), float)
                                                     / np.asarray(value(cst.metric, refR[worst], Ps[worst]), float) - 1)
                else:
                    # a bound (min / max): the value at the table closest to breaking it, with its interval
                    at = scenarios_of(spec, cst.metric)
                    worst = max(at, key=lambda i: float(constraint_scenario(cst, S[i], bS[i], None, Ps[i])))
                    entry["estimate"] = float(value(cst.metric, S[worst], Ps[worst]))
                    entry["low"], entry["high"] = _q(value(cst.metric, R[worst], Ps[worst]))
                    entry["scenario"] = names[worst]
                    entry["metric"] = cst.metric
                entry["scenarios"] = {names[i]: float(constraint_scenario(cst, S[i], bS[i], None if rS is None else rS[i],
                                                                          Ps[i])) <= 0
                                      for i in scenarios_of(spec, cst.metric)}
            else:
                entry["powers_off"] = off
                entry["inert"] = inert
            cons.append(entry)
        effects, by_scenario = [], {}
        for i, P in enumerate(Ps):
            rows = []
            skill_table = getattr(spec.panel[i], "role", "") == "skill" if spec.panel else False
            for m in headline_metrics(P) + (list(SKILL_METRICS) if skill_table else []):
                def row(view):
                    b_, s_, r_, br_ = view(bS[i]), view(S[i]), view(R[i]), view(bR[i])
                    lo, hi = _q(np.asarray(value(m, r_, P), float) - np.asarray(value(m, br_, P), float))
                    return {"base": float(value(m, b_, P)), "variant": float(value(m, s_, P)), "low": lo, "high": hi,
                            "reference": (float(value(m, view(rS[i]), P)) if rS is not None else None)}

                x, used = _narrower(row, last, "low", "high")
                lo, hi = x["low"], x["high"]
                sig = "differs" if (math.isfinite(lo) and (lo > 0 or hi < 0)) else "no clear difference"
                rows.append({"metric": m, "label": METRICS[m].label, "base": x["base"], "variant": x["variant"],
                             "reference": x["reference"], "diff": x["variant"] - x["base"], "low": lo, "high": hi,
                             "significant": sig, **used})
            by_scenario[names[i]] = rows
            if i == 0:
                effects = rows
        out.append({"id": c.id, "trial": c.trial, "params": c.params, "rules": c.rules, "digest": c.rules.digest(),
                    "changes": changes_text(spec.base, c.rules), "n_changed": c.n_changed,
                    "rule_changes": [{"key": x.key, "old": x.old, "new": x.new} for x in rule_changes(spec.base, c.rules)],
                    "ladder": c.protected,
                    "games": last["games"], "first_game": last["first_game"], "objectives": obj,
                    "constraints": cons, "feasible": all(x["holds"] for x in cons), "effects": effects,
                    "effects_by_scenario": by_scenario, "scenarios": names,
                    "rate_halfwidth": max_rate_halfwidth(S, Ps),
                    "rungs": c.rungs, "search_losses": c.search_losses})
    for e in out:
        e["moves_unfairness"] = moved_unfairness(e)
    holm_over_family(out)
    designer_order(spec, out)
    return out
