"""Objectives and constraints over a panel of scenarios (docs/tuning.md, "Objectives").

Sums ``S`` of a candidate carry the scenario first: ``S[i]`` is scenario i's column sums
(``[n_scenarios, K]``, or ``[n_scenarios, B, K]`` for bootstrap replicates). Each objective is a
*loss* (the quantity minimised) computed per scenario, then aggregated over the panel: the worst
scenario (``aggregate = "worst"``, the default: the advice must hold at every table) or the mean.
Constraints must hold at every table (the worst scenario decides).

Kinds of objective:

- ``direction = "minimize"`` / ``"maximize"``: the value itself (maximize: its opposite);
- ``target = T``: the distance |value − T| (``relative``: |value / T − 1|);
- ``at_most = T`` / ``at_least = T``: one-sided, the excess past T (0 when on the right side),
  e.g. "no more dead turns than 8 D8" is ``at_most = "reference"``.

``T`` is a number, ``"base"`` or ``"reference"`` (then the base's or the reference's value in
the same scenario, on the same games). :func:`signed_distance` keeps the sign (value − target)
so a reader sees which side of the target a variant lies on.
"""

from __future__ import annotations

import math

import numpy as np

from .metrics import METRICS, SKILL_METRICS, value

BIG = 1e9

#: Powers whose use is counted: a power used less than this share of its base rate (in a
#: scenario where the base uses it at least MIN_BASE_USE times per game dealt) is inert.
INERT_SHARE = 0.1
MIN_BASE_USE = 0.02


def players_of(spec) -> list[int]:
    return [sc.players for sc in spec.panel] if spec.panel else [spec.players]


def scenarios_of(spec, metric: str, players: int | None = None) -> list[int]:
    """The scenarios (indices into the panel) where ``metric`` is measured: the skill scenario
    for a skill metric (heron_sim.lab.metrics.SKILL_METRICS), every other table otherwise;
    ``players``: only the tables of that player count (an objective's ``players``)."""
    if not spec.panel:
        return [0]
    skill = metric in SKILL_METRICS
    return [i for i, sc in enumerate(spec.panel) if (getattr(sc, "role", "") == "skill") == skill
            and (players is None or sc.players == players)]


def tables_of(spec, x) -> list[int]:
    """The scenarios where objective or constraint ``x`` is measured (its metric, its count)."""
    return scenarios_of(spec, x.metric, getattr(x, "players", None))


def target_value(o, S_base, S_ref, players):
    scale = getattr(o, "scale", 1.0)
    if o.target == "base":
        return scale * value(o.metric, S_base, players)
    if o.target == "reference":
        return scale * value(o.metric, S_ref, players)
    if o.target == "fair":  # a win rate's fair share at this table
        return scale / players
    if o.target == "targets":
        from ..analysis.targets import lab_target

        return scale * lab_target(o.metric, o.direction, players)
    return o.target


def signed_distance(o, S, S_base, S_ref, players):
    """value − target (relative: value / target − 1), in one scenario."""
    v = value(o.metric, S, players)
    t = target_value(o, S_base, S_ref, players)
    with np.errstate(invalid="ignore", divide="ignore"):
        return v / t - 1.0 if o.relative else v - t


def scenario_loss(o, S, S_base, S_ref, players):
    """The quantity minimised for objective ``o`` in one scenario (vectorised over replicates)."""
    if o.direction == "minimize":
        return value(o.metric, S, players)
    if o.direction == "maximize":
        return -value(o.metric, S, players)
    d = signed_distance(o, S, S_base, S_ref, players)
    if o.direction == "target":
        return np.abs(d)
    if o.direction == "at_most":
        return np.maximum(d, 0.0)
    return np.maximum(-d, 0.0)  # at_least


def _ref(S_ref, i):
    return None if S_ref is None else S_ref[i]


def per_scenario(spec, o, S, S_base, S_ref) -> list:
    Ps = players_of(spec)
    return [scenario_loss(o, S[i], S_base[i], _ref(S_ref, i), Ps[i]) for i in tables_of(spec, o)]


def aggregate(spec, xs: list):
    arr = np.stack([np.asarray(x, float) for x in xs])
    bad = ~np.isfinite(arr)
    if spec.aggregate == "mean":
        out = np.where(bad.any(axis=0), BIG, np.where(bad, 0, arr).mean(axis=0))
    else:
        out = np.where(bad.any(axis=0), BIG, np.where(bad, 0, arr).max(axis=0))
    return out


def panel_loss(spec, o, S, S_base, S_ref):
    """The objective's loss over the panel (vectorised over replicate rows)."""
    return aggregate(spec, per_scenario(spec, o, S, S_base, S_ref))


def losses(spec, S, S_base, S_ref) -> list[float]:
    out = []
    for o in spec.objectives:
        x = float(panel_loss(spec, o, S, S_base, S_ref))
        out.append(x if math.isfinite(x) and x < BIG else BIG)
    return out


def constraint_scenario(c, S, S_base, S_ref, players):
    """One constraint in one scenario: <= 0 when it holds (optuna's convention)."""
    v = np.asarray(value(c.metric, S, players), float)
    if c.within is not None:
        ref = np.asarray(value(c.metric, S_base if c.of == "base" else S_ref, players), float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.abs(v / ref - 1.0) - c.within
    worst = np.full(v.shape, -BIG)
    if c.min is not None:
        worst = np.maximum(worst, c.min - v)
    if c.max is not None:
        worst = np.maximum(worst, v - c.max)
    return worst


def constraint_values(spec, S, S_base, S_ref) -> list[float]:
    """One value per constraint, the worst scenario's, <= 0 when it holds at every table; then,
    unless the tune file allows inert powers, :func:`inert_power_value`."""
    out = []
    Ps = players_of(spec)
    for c in spec.constraints:
        xs = [float(constraint_scenario(c, S[i], S_base[i], _ref(S_ref, i), Ps[i]))
              for i in tables_of(spec, c)]
        out.append(BIG if any(not math.isfinite(x) for x in xs) else max(xs))
    if not spec.allow_inert_powers:
        out.append(inert_power_value(spec, S, S_base))
    return out


def power_use(S, guide: str):
    """Uses of the guide's one-shot power per game it is dealt."""
    return value(f"power_{guide}_use", S, 0)


def inert_powers(spec, S, S_base) -> list[str]:
    """Guides whose power the base rules use (at least MIN_BASE_USE times per game dealt, in
    some scenario) but the candidate uses less than INERT_SHARE of that, in that scenario."""
    from ..animals import NAMES

    out = []
    for g in NAMES:
        for i in range(len(players_of(spec))):
            b = float(power_use(S_base[i], g))
            v = float(power_use(S[i], g))
            if math.isfinite(b) and b >= MIN_BASE_USE and not (math.isfinite(v) and v >= INERT_SHARE * b):
                out.append(g)
                break
    return out


def inert_power_value(spec, S, S_base) -> float:
    """The "every power in play" constraint: the number of inert powers (0 holds)."""
    return float(len(inert_powers(spec, S, S_base)))


def constraint_labels(spec) -> list[str]:
    labels = [c.describe() for c in spec.constraints]
    if not spec.allow_inert_powers:
        labels.append("all seven powers in play (no power switched off or made inert)")
    return labels


def mode_words(mode: str) -> str:
    """``"8d8"`` -> ``"8 D8"`` (a study's own dice keep their label)."""
    import re

    m = re.fullmatch(r"(\d+)d(\d+)", mode or "")
    return f"{m.group(1)} D{m.group(2)}" if m else str(mode)


def describe_distance(o, v, t, d, reference: str | None = None) -> str:
    """"dead-turn rate 42.8 % against 39.2 % for 8 D8: +3.6 points" (one scenario);
    ``reference``: what the reference rules are called (e.g. "8 D8")."""
    from .metrics import format_value, unit_suffix

    m = METRICS[o.metric]
    name = m.label.split(" (")[0]
    if o.direction in ("minimize", "maximize"):
        return f"{name} {format_value(o.metric, v)}{unit_suffix(o.metric)}"
    who = {"base": "the base rules", "reference": reference or "the reference",
           "targets": "the designer's target", "fair": "the fair share"}.get(o.target, "the target") \
        if isinstance(o.target, str) else "the target"
    if o.relative:
        dist = f"{100 * d:+z.1f} %" if math.isfinite(d) else "n/a"
    elif m.unit in ("rate", "points"):
        dist = f"{100 * d:+z.1f} points" if math.isfinite(d) else "n/a"
    else:
        dist = f"{format_value(o.metric, d, True)}{unit_suffix(o.metric)}"
    scale = getattr(o, "scale", 1.0)
    if scale != 1.0 and isinstance(o.target, str):
        # a relative goal: the target is a factor of a figure; say both (issue 58), never the
        # target as if it were the base's figure
        of = t / scale if math.isfinite(t) else math.nan
        return (f"{name} {format_value(o.metric, v)}{unit_suffix(o.metric)} against the target "
                f"{format_value(o.metric, t)}{unit_suffix(o.metric)} ({scale:g} × "
                f"{format_value(o.metric, of)}{unit_suffix(o.metric)} for {who}): {dist}")
    return (f"{name} {format_value(o.metric, v)}{unit_suffix(o.metric)} against "
            f"{format_value(o.metric, t)}{unit_suffix(o.metric)} for {who}: {dist}")
