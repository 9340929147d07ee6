"""The smallest change first: every one-key change of the space, then the best two- and
three-key combinations, on the search's games (docs/tuning.md, "The ladder").

1. **One-key changes**: for each parameter, each value of its domain other than the base's —
   every choice, every value of an integer range of at most ``ladder.grid`` values, else a grid
   of ``grid`` values evenly spaced over the range (ends included, rounded to the step; floats:
   ``grid`` evenly spaced values, geometric for ``log = true``). Every other key stays at the
   base's value.
2. **Combinations**: the best value of each of the ``ladder.top`` best parameters (by their best
   one-key change), combined two by two, then three by three (``ladder.max_keys``: 1 stops after
   the one-key changes; 0 skips the ladder).

Every ladder candidate plays the search's games (the same seeds as the base and every optuna
trial, cached in the run folder: a resumed study replays none). A rule set is played once: a
candidate whose built rules have the digest of one already played is skipped. The optuna search
then goes on, and never plays a rule set the ladder played.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import HeronSimError, RulesError
from .changes import n_changed, rule_changes
from .decide import race_key
from .optuna_compat import create_trial_kwargs
from .space import Param, build_rules


@dataclass
class Entry:
    """One ladder candidate: its optuna-style values (only the keys it sets)."""

    id: str
    values: dict
    cand: tuple = ()                 # rules by scenario
    digest: str = ""
    n_changed: int = 0
    sums: np.ndarray | None = None
    losses: list = field(default_factory=list)
    constraints: list = field(default_factory=list)
    score: float = math.inf

    @property
    def feasible(self) -> bool:
        return all(c <= 0 for c in self.constraints)


def grid_values(p: Param, grid: int) -> list:
    """The values of ``p`` the ladder tries (optuna's raw values: labels for choices)."""
    if p.kind == "choice":
        return list(p.labels)
    if p.kind == "int":
        lo, hi, step = int(p.low), int(p.high), p.step
        vals = list(range(lo, hi + 1, step))
        if len(vals) <= grid:
            return vals
        picks = {lo + step * round((hi - lo) / step * k / (grid - 1)) for k in range(grid)}
        return sorted(v for v in picks if lo <= v <= hi)
    lo, hi = float(p.low), float(p.high)
    if lo == hi:
        return [lo]
    if p.log:
        return [float(x) for x in np.geomspace(lo, hi, grid)]
    return [float(x) for x in np.linspace(lo, hi, grid)]


def one_key_entries(spec) -> list[Entry]:
    """Every one-key change of the space (a value equal to the base's is no change: skipped)."""
    out = []
    base_digest = spec.base.digest()
    for p in spec.params:
        for v in grid_values(p, spec.ladder_grid):
            try:
                r = build_rules(spec.base, [p], {p.name: v})
            except (RulesError, HeronSimError):
                continue
            if r.digest() == base_digest or not rule_changes(spec.base, r):
                continue  # the base's value, or a base value restated: no change
            out.append(Entry(f"L{len(out) + 1}", {p.name: v}))
    return out


def combine(spec, singles: list[Entry], k: int, start: int) -> list[Entry]:
    """The ``k``-key combinations of the best value of each of the ``ladder.top`` best params."""
    best: dict[str, Entry] = {}
    for e in sorted(singles, key=score_key):
        name = next(iter(e.values))
        best.setdefault(name, e)
    tops = sorted(best.values(), key=score_key)[: spec.ladder_top]
    out = []
    for combo in itertools.combinations(tops, k):
        vals = {}
        for e in combo:
            vals.update(e.values)
        out.append(Entry(f"L{start + len(out) + 1}", vals))
    return out


def score_key(e: Entry):
    """Feasible first, then the sum over objectives of the loss (base-normalised in
    :func:`play`), then the fewest rules changed: the lab's one race key
    (:func:`heron_sim.lab.decide.race_key`)."""
    return race_key(e.feasible, e.score, e.n_changed)


def run_ladder(spec, evaluator, base_sums, ref_sums, *, played: dict, log=lambda s: None) -> list[Entry]:
    """Play the ladder on the search games. ``played`` (digest -> Entry) collects every rule set
    played (the search reads it to never play one twice). Returns every ladder entry played."""
    from .objectives import constraint_values, losses

    if spec.ladder_max_keys < 1:
        return []
    base_l = losses(spec, base_sums, base_sums, ref_sums)
    entries: list[Entry] = []

    def play(batch: list[Entry], what: str):
        fresh = []
        for e in batch:
            try:
                e.cand = spec.rules_for(e.values)
            except (RulesError, HeronSimError):
                continue
            e.digest = e.cand[0].digest()
            if e.digest in played or e.digest == spec.base.digest():
                continue
            e.n_changed = n_changed(spec.base, e.cand[0])
            if e.n_changed == 0:  # the base's rules restated (start_squares = [0, 0, 0]): no change
                continue
            e.id = f"L{len(entries) + len(fresh) + 1}"  # in the order played: the same on every run
            played[e.digest] = e
            fresh.append(e)
        log(f"ladder: {len(fresh)} {what} on the search games ({spec.games:,} games a scenario)")
        for e in fresh:
            e.sums = evaluator.cached_sums("ladder", e.cand, 0, spec.games)
            e.losses = losses(spec, e.sums, base_sums, ref_sums)
            e.constraints = constraint_values(spec, e.sums, base_sums, ref_sums)
            if not spec.allow_inert_powers and disables_a_power(spec.base, e.cand[0]):
                e.constraints = e.constraints[:-1] + [max(1.0, e.constraints[-1])]
            e.score = sum(x / b if b and math.isfinite(b) and b > 0 else x for x, b in zip(e.losses, base_l))
            entries.append(e)
        return fresh

    singles = play(one_key_entries(spec), "one-key changes")
    n = len(singles)
    for k in range(2, spec.ladder_max_keys + 1):
        if len({next(iter(e.values)) for e in singles}) < k:
            break
        play(combine(spec, singles, k, 0), f"{k}-key combinations of the best one-key changes")
    return entries


def disables_a_power(base, variant) -> list[str]:
    """The static half of "les sept Guides sont jouables": rules that switch a power off or set
    its strength to a value that makes it do nothing. Returns the guides concerned."""
    from ..animals import NAMES

    out = []
    if base.powers and not variant.powers:
        out += [g for i, g in enumerate(NAMES) if base.power_enabled(i)]
    off = set(variant.disabled_powers) - set(base.disabled_powers)
    out += [NAMES[i] for i in sorted(off)]
    for key, guide in INERT_VALUES:
        if hasattr(variant, key) and getattr(variant, key) == 0 and getattr(base, key, 0) != 0:
            out.append(guide)
    return sorted(set(out))


#: Strength keys whose value 0 leaves a power nothing to do (bull_bonus = 0: the Taureau adds
#: nothing; eagle_draws = 0: the Aigle reveals nothing). A key absent from the Rules is skipped.
#: Other ways of making a power inert (a Serpent limit below every move back, a Taureau set
#: size no roll reaches) are caught by the measured use rate (objectives.inert_powers).
INERT_VALUES = (("bull_bonus", "taureau"), ("eagle_draws", "aigle"))


def ladder_table(spec, finalists: list[dict]) -> list[dict]:
    """For k = 1 .. max_keys (and 'any'): the best re-evaluated variant that changes at most k
    rules (finalists are already in best-first order), and the smallest that meets every goal
    with 95 % confidence on every constraint."""
    rows = []
    ks = sorted({e["n_changed"] for e in finalists})
    for k in range(1, max(ks + [spec.ladder_max_keys]) + 1):
        pool = [e for e in finalists if e["n_changed"] <= k]
        if not pool:
            continue
        e = pool[0]
        rows.append({"k": k, "id": e["id"], "n_changed": e["n_changed"], "changes": e["changes"],
                     "feasible": e["feasible"], "goals_met_95": meets_95(e), "objectives": e["objectives"]})
    return rows


def meets_95(e: dict) -> bool:
    goals = [o for o in e["objectives"] if o["goal"] is not None]
    return bool(goals) and e["feasible"] and all(o["goal_met_95"] for o in goals)


def smallest_meeting(finalists: list[dict]) -> dict | None:
    ok = [e for e in finalists if meets_95(e)]
    return min(ok, key=lambda e: e["n_changed"]) if ok else None


__all__ = ["grid_values", "one_key_entries", "run_ladder", "ladder_table", "smallest_meeting",
           "disables_a_power", "rule_changes"]


# ---------------------------------------------------------------- the search goes on from the ladder
def base_value(table: dict, key: str):
    """The value of a parameter's key in a full rules table (the inverse of space.apply)."""
    import re

    if key.startswith("board.square."):
        return table.get("board", {}).get("squares", {}).get(key.rsplit(".", 1)[1], "neutral")
    if key.startswith("board.position."):
        return int(key.rsplit(".", 1)[1])
    m = re.match(r"^(?P<key>[A-Za-z_][\w.]*)\[(?P<i>\d+)\]$", key)
    index = int(m.group("i")) if m else None
    cur = table
    for part in (m.group("key") if m else key).split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    if index is not None:
        return cur[index] if isinstance(cur, list) and index < len(cur) else (0 if isinstance(cur, list) else None)
    return cur


def base_params(spec) -> dict | None:
    """The base rules as optuna values of every parameter, or None when one of them cannot hold
    the base's value (a range that excludes it, choices without it)."""
    table = spec.base.to_table()
    out = {}
    for p in spec.params:
        v = base_value(table, p.key)
        if v is None:  # a key the base does not set (seats.5.start_squares, guide.heron.rolls)
            v = no_change_value(spec, p)
            if v is not None and p.kind == "choice":
                out[p.name] = v
                continue
        if p.kind == "choice":
            hits = [lab for lab, c in zip(p.labels, p.choices) if c == v]
            if not hits:
                return None
            out[p.name] = hits[0]
        elif p.kind == "int":
            if isinstance(v, bool) or not isinstance(v, int) or not p.low <= v <= p.high or (v - p.low) % p.step:
                return None
            out[p.name] = v
        else:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not p.low <= v <= p.high:
                return None
            out[p.name] = float(v)
    return out


def no_change_value(spec, p: Param):
    """The value of ``p`` (optuna's: a label for choices) that gives the base rules (a per-count or
    per-guide rule that restates every count's / every player's is no rule), or None."""
    if p.kind == "float":
        return None
    raws = list(p.labels) if p.kind == "choice" else list(range(int(p.low), int(p.high) + 1, p.step))[:1000]
    digest = spec.base.digest()
    for raw in raws:
        try:
            if build_rules(spec.base, [p], {p.name: raw}).digest() == digest:
                return raw
        except (RulesError, HeronSimError):
            continue
    return None


def seed_search(spec, study, entries: list[Entry], log=lambda s: None) -> int:
    """Tell a TPE study what the ladder found, so its search goes on from there: each ladder
    entry becomes a finished trial (user attribute ``ladder``: not counted in ``trials``, not
    raced twice). Done once per study (a resumed study has them already). NSGA-II breeds from its
    own generations and is not seeded. Returns the trials added."""
    import optuna
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    if spec.sampler != "tpe" or not entries:
        return 0
    if any("ladder" in t.user_attrs for t in study.get_trials(deepcopy=False)):
        return 0
    base = base_params(spec)
    if base is None:
        log("ladder: the search is not seeded with it (a parameter's domain does not hold the base's value)")
        return 0
    dists = {}
    for p in spec.params:
        if p.kind == "int":
            dists[p.name] = IntDistribution(int(p.low), int(p.high), step=p.step)
        elif p.kind == "float":
            dists[p.name] = FloatDistribution(float(p.low), float(p.high), log=p.log)
        else:
            dists[p.name] = CategoricalDistribution(list(p.labels))
    n = 0
    for e in entries:
        if e.sums is None:
            continue
        t = optuna.trial.create_trial(
            values=list(e.losses), params={**base, **e.values}, distributions=dists,
            user_attrs={"ladder": e.id, "rules": e.digest, "n_changed": e.n_changed,
                        "constraints": list(e.constraints)},
            **create_trial_kwargs(e.constraints))
        study.add_trial(t)
        n += 1
    return n
