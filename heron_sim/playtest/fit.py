"""Maximum likelihood of the ``human`` family's parameters over the logged decisions.

Each modelled decision is a choice between options valued by the expert's tables
(heron_sim.playtest.values), with the family's probabilities (heron_sim.strategies.human):

- keep: reroll with probability ``σ((reroll − caution − stop) / temp)``;
- power (Wolf, Eagle, Deer, Héron's Patience), Lion, Bull, Serpent: used with probability
  ``(1 − forget) · σ(g / temp)``, ``g`` the gain of the best use over keeping the power
  (``POWER_MARGIN``), the rescued dice's score over the Anxiety's consolation, the Bull's bonus
  over ``POWER_MARGIN``, the move back avoided plus the Serpent's advance over ``SNAKE_WORTH``;
- eagle_face: each face with probability ``∝ exp(value / temp)``.

``σ(x) = 1 / (1 + exp(−x))``. Which dice are kept on a reroll is not in the likelihood (the
family keeps the best reroll's dice); its agreement is reported apart. Intervals are profile
likelihood intervals (the others re-fitted at each value; 95 %: a drop of χ²₁(0.95)/2 = 1.92).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize
from scipy.special import expit, log_expit

from ..engine.layout import D_BULL, D_EAGLE_PICK, D_KEEP, D_LION, D_POWER, D_SNAKE, X_CONS_ANX
from ..interrupt import check
from ..rules.rules import P_BULL_BONUS, P_SNAKE_ADVANCE
from ..strategies.expert_dp import POWER_MARGIN
from .values import V_A, V_B, V_C, V_FLAG

PARAMS = ("temp", "caution", "forget")
#: caution goes both ways (heron_sim.strategies.human.BOUNDS): below 0 a bold player, who
#: rerolls where the expert stops
LOW = {"temp": 0.01, "caution": -100.0, "forget": 0.0}
HIGH = {"temp": 100.0, "caution": 100.0, "forget": 0.999}  # forget = 1 makes every use impossible
HALF_CHI2 = 1.920729410347062  # chi2(1).ppf(0.95) / 2
SNAKE_WORTH = 2.5  # heron_sim.strategies.human.SNAKE_WORTH (checked by tests/test_calibrate.py)


@dataclass
class Data:
    """The modelled decisions, as arrays."""

    keep_delta: np.ndarray      # reroll − stop value
    keep_y: np.ndarray          # 1 reroll
    keep_expert: np.ndarray     # 1 where the expert rerolls (its table's action)
    use_gain: np.ndarray        # power, Lion, Bull, Serpent: the gain g
    use_y: np.ndarray           # 1 used
    use_kind: np.ndarray        # their D_* kinds
    eagle_values: np.ndarray    # float[e, k + 1] (original face first)
    eagle_pick: np.ndarray      # the face chosen (0: original)

    @property
    def counts(self) -> dict:
        out = {"keep": int(len(self.keep_y))}
        for k, name in ((D_POWER, "power"), (D_LION, "lion"), (D_BULL, "bull"), (D_SNAKE, "serpent")):
            out[name] = int((self.use_kind == k).sum())
        out["eagle_face"] = int(len(self.eagle_pick))
        return out


def build_data(kind, choice, nominal, vals, R) -> Data:
    """The arrays of the modelled decisions (``vals`` from heron_sim.playtest.values)."""
    flag = vals[:, V_FLAG]
    k = (kind == D_KEEP) & (flag == 1)
    parts_g, parts_y, parts_k = [], [], []
    p = (kind == D_POWER) & (flag == 1)
    parts_g.append(vals[p, V_B] - vals[p, V_A] - POWER_MARGIN)
    parts_y.append(choice[p])
    parts_k.append(np.full(int(p.sum()), D_POWER))
    li = kind == D_LION
    parts_g.append(vals[li, V_A] - float(R[X_CONS_ANX]))
    parts_y.append(choice[li])
    parts_k.append(np.full(int(li.sum()), D_LION))
    b = kind == D_BULL
    parts_g.append(np.full(int(b.sum()), float(R[P_BULL_BONUS]) - POWER_MARGIN))
    parts_y.append(choice[b])
    parts_k.append(np.full(int(b.sum()), D_BULL))
    s = kind == D_SNAKE
    parts_g.append(nominal[s].astype(float) + float(R[P_SNAKE_ADVANCE]) - SNAKE_WORTH)
    parts_y.append(choice[s])
    parts_k.append(np.full(int(s.sum()), D_SNAKE))
    e = kind == D_EAGLE_PICK
    from ..engine.layout import X_EAGLE_DRAWS

    draws = int(R[X_EAGLE_DRAWS])
    ev = vals[e][:, V_A : V_A + draws + 1]
    return Data(vals[k, V_B] - vals[k, V_A], choice[k].astype(float), vals[k, V_C] == 1, np.concatenate(parts_g),
                np.concatenate(parts_y).astype(float), np.concatenate(parts_k), ev, choice[e].astype(int))


def _log_softmax(v):
    m = v.max(axis=1, keepdims=True)
    z = v - m
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def log_likelihood(theta, d: Data, grad: bool = False):
    """The log-likelihood of (temp, caution, forget) (temp > 0); with ``grad``, also its
    gradient in (log temp, caution, forget)."""
    t, c, f = theta
    ll = 0.0
    g = np.zeros(3)
    if len(d.keep_y):
        z = (d.keep_delta - c) / t
        ll += float(np.sum(d.keep_y * log_expit(z) + (1 - d.keep_y) * log_expit(-z)))
        if grad:
            dz = d.keep_y - expit(z)  # dll/dz
            g[0] += float(np.sum(dz * -z))
            g[1] += float(np.sum(dz)) * (-1.0 / t)
    if len(d.use_y):
        z = d.use_gain / t
        with np.errstate(divide="ignore"):
            lf, l1f = math.log(f) if f > 0 else -math.inf, math.log1p(-f) if f < 1 else -math.inf
        used = l1f + log_expit(z)
        not_used = np.logaddexp(lf, l1f + log_expit(-z))
        yes = d.use_y == 1
        ll += float(np.sum(np.where(yes, used, not_used)))
        if grad:
            sz = expit(z)
            q = np.exp(not_used)  # f + (1 - f) σ(-z)
            with np.errstate(divide="ignore", invalid="ignore"):
                dz = np.where(yes, 1.0 - sz, -(1.0 - f) * sz * (1.0 - sz) / q)
                df = np.where(yes, -1.0 / (1.0 - f), sz / q)
            g[0] += float(np.sum(dz * -z))
            g[2] += float(np.sum(df))
    if len(d.eagle_pick):
        u = d.eagle_values / t
        ls = _log_softmax(u)
        rows = np.arange(len(d.eagle_pick))
        ll += float(ls[rows, d.eagle_pick].sum())
        if grad:
            p = np.exp(ls)
            g[0] += float(np.sum(-(u[rows, d.eagle_pick] - (p * u).sum(axis=1))))
    return (ll, g) if grad else ll


def informed(d: Data) -> dict:
    """Which parameters the decisions inform (a parameter no decision reads is not fitted)."""
    return {"temp": bool(len(d.keep_y) or len(d.use_y) or len(d.eagle_pick)),
            "caution": bool(len(d.keep_y)), "forget": bool(len(d.use_y))}


class _Problem:
    """The negative log-likelihood over the free parameters (temp on a log scale)."""

    def __init__(self, d: Data):
        self.d = d
        self.free = [p for p, ok in informed(d).items() if ok]

    def theta(self, x, fixed=None):
        values = {"temp": 1.0, "caution": 0.0, "forget": 0.0}
        for p, v in zip([p for p in self.free if not fixed or p not in fixed], x):
            values[p] = math.exp(v) if p == "temp" else v
        values.update(fixed or {})
        return values

    def nll(self, x, fixed=None):
        """The negative log-likelihood and its gradient over the parameters not fixed (Ctrl-C
        under the command line stops here: heron_sim.interrupt.check raises Stopped)."""
        check()
        th = self.theta(x, fixed)
        v, g = log_likelihood((th["temp"], th["caution"], th["forget"]), self.d, grad=True)
        idx = [PARAMS.index(p) for p in self.free if not (fixed and p in fixed)]
        if not math.isfinite(v) or not np.all(np.isfinite(g[idx])):
            return 1e300, np.zeros(len(idx))
        return -v, -g[idx]

    def bounds(self, fixed=None):
        out = []
        for p in self.free:
            if fixed and p in fixed:
                continue
            out.append((math.log(LOW[p]), math.log(HIGH[p])) if p == "temp" else (LOW[p], HIGH[p]))
        return out

    def start(self, guess, fixed=None):
        return [math.log(guess[p]) if p == "temp" else guess[p] for p in self.free if not (fixed and p in fixed)]

    def fit(self, guesses, fixed=None):
        """The best of L-BFGS-B runs from each guess: (theta, negative log-likelihood)."""
        best = None
        for guess in guesses:
            x0 = self.start(guess, fixed)
            if not x0:
                return self.theta([], fixed), self.nll([], fixed)[0]
            res = minimize(self.nll, x0, args=(fixed,), jac=True, method="L-BFGS-B", bounds=self.bounds(fixed),
                           options={"ftol": 1e-12, "gtol": 1e-8})
            if best is None or res.fun < best.fun:
                best = res
        return self.theta(best.x, fixed), float(best.fun)


def fit(d: Data) -> dict:
    """Estimates and 95 % profile likelihood intervals: {param: (estimate, low, high)}, None
    for a parameter no decision informs."""
    prob = _Problem(d)
    if not prob.free:
        return {p: None for p in PARAMS}, 0.0
    starts = [{"temp": t, "caution": c, "forget": f}
              for t, c, f in ((1.0, 0.5, 0.2), (0.3, 0.3, 0.1), (3.0, 2.0, 0.5), (1.0, -1.0, 0.2))]
    theta, best = prob.fit(starts)
    out = {}
    for p in PARAMS:
        if p not in prob.free:
            out[p] = None
            continue
        est = theta[p]

        def excess(x, p=p):
            _, v = prob.fit([theta], {p: x})
            return v - best - HALF_CHI2

        ends = []
        for side in (-1, 1):
            bound = LOW[p] if side < 0 else HIGH[p]
            if est == bound or excess(bound) < 0:
                ends.append(bound)
                continue
            # step out (geometrically) until the drop passes 1.92, then solve
            inner = est
            step = 0.05 * max(abs(est), 0.1)
            while True:
                x = est + side * step
                if (side < 0 and x <= bound) or (side > 0 and x >= bound):
                    x = bound
                if excess(x) > 0:
                    break
                inner = x
                step *= 2
            ends.append(brentq(excess, min(inner, x), max(inner, x), xtol=1e-4 * max(abs(est), 0.1)))
        out[p] = (float(est), float(ends[0]), float(ends[1]))
    return out, -best


def choose(theta: dict, d: Data) -> dict:
    """The most likely choice of each modelled decision under ``theta`` (temp = 0: the argmax,
    ties to stopping, not using, the original face)."""
    t, c, f = theta["temp"], theta["caution"], theta["forget"]
    keep = d.keep_expert.copy() if t <= 0 and c == 0 else d.keep_delta - c > 0  # temp = caution = 0: the expert
    if t <= 0:
        use = (d.use_gain > 0) & (f < 0.5)
    else:
        with np.errstate(over="ignore"):
            use = (1 - f) / (1 + np.exp(-d.use_gain / t)) > 0.5
    eagle = np.argmax(d.eagle_values, axis=1) if len(d.eagle_pick) else np.zeros(0, dtype=int)
    return {"keep": keep, "use": use, "eagle": eagle}


def matching(theta: dict, d: Data) -> dict:
    """Move matching: the share of modelled decisions whose most likely choice is the one logged
    (all of them, and by decision)."""
    ch = choose(theta, d)
    hits = {"keep": ch["keep"] == (d.keep_y == 1)}
    for k, name in ((D_POWER, "power"), (D_LION, "lion"), (D_BULL, "bull"), (D_SNAKE, "serpent")):
        m = d.use_kind == k
        hits[name] = ch["use"][m] == (d.use_y[m] == 1)
    hits["eagle_face"] = ch["eagle"] == d.eagle_pick
    n = sum(len(h) for h in hits.values())
    total = sum(int(h.sum()) for h in hits.values())
    return {"rate": total / n if n else None, "decisions": n,
            "by_decision": {k: (float(h.mean()) if len(h) else None) for k, h in hits.items()}}
