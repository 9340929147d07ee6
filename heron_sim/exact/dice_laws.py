"""Exact dice laws of the Héron dice race, by enumeration (no sampling).

These are the reference values the simulator's tests compare against, so this module is
independent of the compiled engine: it reads only a :class:`~heron_sim.rules.Rules` (dice
composition, thresholds, combination table, switches) and enumerates outcomes.

- First-roll laws, the Peaceful Pond and its push-back (rulings §2.2, §3) are computed with
  :class:`fractions.Fraction` and reported as floats.
- :func:`greedy_turn` is the exact law of one turn of the reference policy ``greedy``
  (rulings §7) from a fresh turn. It is a forward dynamic programme over turn states
  ``(K, F)``: ``K`` = counts of each animal among kept dice (reserved herons included), ``F`` =
  number of free dice of each *die type* (dice with the same face law are interchangeable).
  Which kept die shows what never matters again, only the totals ``K``; which dice are free
  matters only through their types. A roll of the free dice is enumerated as multisets per
  type (multinomial probabilities), convolved across types and aggregated on what the policy
  reads: the rolled counts ``R`` and, for a target ``t``, the free counts left after keeping
  the herons and the ``t`` dice. Sums are exact float sums over the enumerated outcomes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, product

import numpy as np

from ..animals import HERON, LION, N_ANIMALS, TAUREAU, animal_index
from ..errors import HeronSimError
from ..rules import Rules

__all__ = [
    "TurnLaw",
    "heron_probabilities",
    "first_roll_herons",
    "p_pond",
    "pond_pushback",
    "pond_pushback_unconditional",
    "p_first_roll_anxiety",
    "greedy_turn",
]

N_PLAIN = HERON  # animals 0..5 can form combinations; 6 is the heron

# ------------------------------------------------------------------ die laws


def _die_law(die: tuple[int, ...]) -> tuple[Fraction, ...]:
    """Probability of each animal 0..6 on one die (faces equiprobable, repeats allowed)."""
    n = len(die)
    return tuple(Fraction(die.count(a), n) for a in range(N_ANIMALS))


def _heron_groups(rules: Rules) -> tuple[tuple[Fraction, int], ...]:
    """Dice grouped by their heron probability: ((q, number of dice), ...)."""
    counts: dict[Fraction, int] = defaultdict(int)
    for die in rules.dice:
        counts[_die_law(die)[HERON]] += 1
    return tuple(sorted(counts.items()))


def _binomial(n: int, q: Fraction) -> list[Fraction]:
    return [math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(n + 1)]


# ------------------------------------------------------------------ first roll and Pond


def heron_probabilities(rules: Rules) -> np.ndarray:
    """P(heron) of each die, shape ``[n_dice]`` float64."""
    return np.array([float(_die_law(d)[HERON]) for d in rules.dice], dtype=np.float64)


@lru_cache(maxsize=64)
def _first_roll_fraction(groups: tuple[tuple[Fraction, int], ...]) -> tuple[Fraction, ...]:
    law = [Fraction(1)]
    for q, m in groups:
        b = _binomial(m, q)
        new = [Fraction(0)] * (len(law) + m)
        for i, x in enumerate(law):
            for j, y in enumerate(b):
                new[i + j] += x * y
        law = new
    return tuple(law)


def first_roll_herons(rules: Rules) -> np.ndarray:
    """Law of the number of herons on the first roll of all dice (Poisson-binomial).

    Shape ``[n_dice + 1]`` float64, index = number of herons.
    """
    return np.array([float(x) for x in _first_roll_fraction(_heron_groups(rules))], dtype=np.float64)


def _p_pond_fraction(rules: Rules) -> Fraction:
    law = _first_roll_fraction(_heron_groups(rules))
    return sum(law[rules.pond_threshold:], Fraction(0))


def p_pond(rules: Rules) -> float:
    """P(the first roll shows at least ``pond_threshold`` herons): the Peaceful Pond."""
    return float(_p_pond_fraction(rules))


def p_first_roll_anxiety(rules: Rules) -> float:
    """P(anxiety_threshold <= first-roll herons < pond_threshold): Anxiety on the first roll."""
    law = _first_roll_fraction(_heron_groups(rules))
    lo, hi = rules.anxiety_threshold, rules.pond_threshold
    return float(sum(law[lo:hi], Fraction(0)))


@lru_cache(maxsize=64)
def _pond_joint_fraction(groups: tuple[tuple[Fraction, int], ...], threshold: int) -> dict[int, Fraction]:
    """Joint law P(Pond and push-back H = k) (rulings §3), exact.

    The Pond depends only on herons, so dice are grouped by heron probability; the state of
    the free rolls is the number of unreserved dice of each group.
    """
    qs = [q for q, _ in groups]

    @lru_cache(maxsize=None)
    def more(free: tuple[int, ...]) -> tuple[tuple[int, Fraction], ...]:
        # Law of the herons still to come from a state with these unreserved dice.
        if sum(free) == 0:
            return ((0, Fraction(1)),)
        out: dict[int, Fraction] = defaultdict(Fraction)
        laws = [_binomial(f, q) for f, q in zip(free, qs)]
        for xs in product(*(range(f + 1) for f in free)):
            p = Fraction(1)
            for law, x in zip(laws, xs):
                p *= law[x]
            if p == 0:
                continue
            new = sum(xs)
            if new == 0:  # a roll with no heron ends the Pond
                out[0] += p
                continue
            for k, pk in more(tuple(f - x for f, x in zip(free, xs))):
                out[new + k] += p * pk
        return tuple(sorted(out.items()))

    joint: dict[int, Fraction] = defaultdict(Fraction)
    sizes = [m for _, m in groups]
    first = [_binomial(m, q) for q, m in groups]
    for xs in product(*(range(m + 1) for m in sizes)):
        h = sum(xs)
        if h < threshold:
            continue
        p = Fraction(1)
        for law, x in zip(first, xs):
            p *= law[x]
        if p == 0:
            continue
        for k, pk in more(tuple(m - x for m, x in zip(sizes, xs))):
            joint[h + k] += p * pk
    return dict(sorted(joint.items()))


def pond_pushback_unconditional(rules: Rules) -> dict[int, float]:
    """P(Pond and total push-back H = k), by k (sums to :func:`p_pond`)."""
    joint = _pond_joint_fraction(_heron_groups(rules), rules.pond_threshold)
    return {k: float(p) for k, p in joint.items() if p}


def pond_pushback(rules: Rules) -> dict[int, float]:
    """Law of the Pond's total push-back H, conditional on a Pond (rulings §3).

    First roll: h >= pond_threshold herons reserved (H = h); then roll all unreserved dice,
    reserve the new herons (H += new), until a roll shows no heron or every die is reserved.
    Empty dict when a Pond is impossible.
    """
    joint = _pond_joint_fraction(_heron_groups(rules), rules.pond_threshold)
    total = sum(joint.values(), Fraction(0))
    if total == 0:
        return {}
    return {k: float(p / total) for k, p in joint.items() if p}


# ------------------------------------------------------------------ greedy turn


@dataclass(frozen=True)
class TurnLaw:
    """Exact law of one turn of ``greedy`` from a fresh turn (guide ready).

    All probabilities are joint (unconditional), so
    ``p_pond + p_anxiety + sum(advance.values()) == 1``.
    """

    p_pond: float
    #: P(the turn ends in Heron's Anxiety), Lion rescues included.
    p_anxiety: float
    #: advance -> P(no Pond, no Anxiety, and this advance), advance 0 included.
    advance: dict[int, float]
    #: push-back H -> P(Pond and H).
    pushback: dict[int, float]
    #: mean advance per turn over all turns (Pond and unrescued Anxiety count 0).
    expected_advance: float
    #: advance -> P(Anxiety and the Lion's rescue scores this advance); {0: p_anxiety} without Lion.
    anxiety_advance: dict[int, float] = field(default_factory=dict)


class _Spec:
    """Cache key of :func:`greedy_turn`: the rules digest and the arguments; carries the rules."""

    __slots__ = ("rules", "key")

    def __init__(self, rules: Rules, guide: int, rolls: int, powers: bool):
        self.rules = rules
        self.key = (rules.digest(), guide, rolls, powers)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Spec) and self.key == other.key


def greedy_turn(rules: Rules, guide: int | str, rolls: int | None = None,
                powers: bool | None = None) -> TurnLaw:
    """Exact law of one turn of the reference policy ``greedy`` (rulings §7).

    Parameters
    ----------
    rules : the rules (any dice composition).
    guide : the player's guide animal (index 0..6 or name); it breaks ties and is doubled.
    rolls : rolls in the turn, first roll included (default ``rules.rolls``).
    powers : guide powers on/off (default ``rules.powers``). Only the Bull (+2 on a set of 3+)
        and the Lion (scores the non-heron dice at Anxiety) change a greedy turn.

    A combination is a set of 3 or more: Guide Power doubling and the Bull's +2 apply only to
    those (advance = ``combo_advance[s]`` undoubled below 3). Cost grows with the number of
    distinct dice types (the states hold free dice by type): 10d6 (6 types) takes seconds;
    16 all-different dice would be much slower. Results are cached on
    ``(rules.digest(), guide, rolls, powers)``.
    """
    g = animal_index(guide, "guide")
    r = rules.rolls if rolls is None else int(rolls)
    if r < 1:
        raise HeronSimError(f"rolls: {r}; allowed: an integer >= 1")
    pw = rules.powers if powers is None else bool(powers)
    return _greedy_cached(_Spec(rules, g, r, pw))


@lru_cache(maxsize=256)
def _greedy_cached(spec: _Spec) -> TurnLaw:
    _, guide, rolls, powers = spec.key
    return _GreedyDP(spec.rules, guide, rolls, powers).run()


class _GreedyDP:
    """Forward dynamic programme over turn states (K, F); see the module docstring."""

    CHUNK = 400_000  # rows (states x roll outcomes) evaluated at once

    def __init__(self, rules: Rules, guide: int, rolls: int, powers: bool):
        self.rules = rules
        self.guide = guide
        self.rolls = rolls
        self.n = rules.n_dice
        laws: dict[tuple[Fraction, ...], int] = defaultdict(int)
        for die in rules.dice:
            laws[_die_law(die)] += 1
        keys = sorted(laws)
        self.type_law = [np.array([float(x) for x in k]) for k in keys]
        self.mult = tuple(laws[k] for k in keys)
        self.base = self.n + 1
        self.r_pow = self.base ** np.arange(N_ANIMALS, dtype=np.int64)  # R code digits
        self.r_mod = int(self.base ** N_ANIMALS)
        radices = [m + 1 for m in self.mult]
        self.f_stride = np.array([math.prod(radices[:k]) for k in range(len(radices))], dtype=np.int64)
        self.f_radix = np.array(radices, dtype=np.int64)
        self.f_mod = int(math.prod(radices))  # F codes are < f_mod
        self.adv = np.array(rules.combo_advance, dtype=np.int64)
        self.bull_bonus, self.bull_min = rules.bull_bonus, rules.bull_min_set
        self.max_adv = 2 * int(self.adv.max()) + max(2, rules.bull_bonus)
        self.doubling = rules.guide_power_doubling
        self.bull = powers and guide == TAUREAU and TAUREAU not in rules.disabled_powers
        self.lion = powers and guide == LION and LION not in rules.disabled_powers
        self.pond = rules.pond_threshold
        self.anx = rules.anxiety_threshold
        self._comp: dict = {}
        self._rtab: dict = {}
        self._ttab: dict = {}

    # ---------------------------------------------------------- roll tables
    def _compositions(self, k: int, f: int):
        """Multisets of f dice of type k: counts [M, 7] and probabilities [M]."""
        key = (k, f)
        if key not in self._comp:
            law = self.type_law[k]
            support = [a for a in range(N_ANIMALS) if law[a] > 0]
            rows, probs = [], []
            for combo in combinations_with_replacement(support, f):
                c = np.bincount(np.array(combo, dtype=np.int64), minlength=N_ANIMALS)
                coef = math.factorial(f)
                p = 1.0
                for a in support:
                    coef //= math.factorial(int(c[a]))
                    p *= law[a] ** int(c[a])
                rows.append(c)
                probs.append(coef * p)
            self._comp[key] = (np.array(rows, dtype=np.int64).reshape(-1, N_ANIMALS), np.array(probs))
        return self._comp[key]

    def _convolve(self, free: tuple[int, ...], contribution):
        keys = np.zeros(1, dtype=np.int64)
        probs = np.ones(1)
        for k, f in enumerate(free):
            if f == 0:
                continue
            counts, p = self._compositions(k, f)
            ck = contribution(k, f, counts)
            keys = (keys[:, None] + ck[None, :]).ravel()
            probs = (probs[:, None] * p[None, :]).ravel()
            keys, inv = np.unique(keys, return_inverse=True)
            probs = np.bincount(inv.ravel(), weights=probs, minlength=len(keys))
        return keys, probs

    def _decode_r(self, codes: np.ndarray) -> np.ndarray:
        return (codes[:, None] // self.r_pow[None, :]) % self.base

    def _roll_table(self, free: tuple[int, ...]):
        """Law of the rolled counts R of the free dice: codes [M] (sorted), R [M, 7], p [M]."""
        if free not in self._rtab:
            keys, probs = self._convolve(free, lambda k, f, c: c @ self.r_pow)
            self._rtab[free] = (keys, self._decode_r(keys), probs)
        return self._rtab[free]

    def _target_table(self, free: tuple[int, ...], t: int):
        """Joint law of R and of what greedy keeps for the target t (sparse).

        Returns ``ridx, jidx, p [M]``: P(R = row ridx of :meth:`_roll_table`, J = jidx) = p,
        and for each keep J = j: rolled herons ``h [M_J]``, rolled t dice ``k [M_J]`` and the
        free dice left of each type ``F' [M_J, T]``. Which dice are left depends on the dice
        types, not only on R, hence this finer law.
        """
        key = (free, t)
        if key not in self._ttab:
            def contribution(k, f, c):
                left = f - c[:, HERON] - c[:, t]
                return c @ self.r_pow + self.r_mod * self.f_stride[k] * left
            keys, probs = self._convolve(free, contribution)
            rcodes, r, _ = self._roll_table(free)
            ridx = np.searchsorted(rcodes, keys % self.r_mod)
            fcode = keys // self.r_mod
            rr = r[ridx]
            jcode = fcode + self.f_mod * (rr[:, HERON] + self.base * rr[:, t])
            juniq, jidx = np.unique(jcode, return_inverse=True)
            fp = ((juniq % self.f_mod)[:, None] // self.f_stride[None, :]) % self.f_radix[None, :]
            hk = juniq // self.f_mod
            self._ttab[key] = (ridx, jidx.ravel(), probs, hk % self.base, hk // self.base, fp)
        return self._ttab[key]

    # ---------------------------------------------------------- policy and scoring
    def _pick(self, c: np.ndarray):
        """Largest count s of a non-heron animal and its animal (guide if tied, else lowest)."""
        plain = c[..., :N_PLAIN]
        s = plain.max(axis=-1)
        a = np.argmax(plain == s[..., None], axis=-1)
        if self.guide < N_PLAIN:
            a = np.where(plain[..., self.guide] == s, self.guide, a)
        return s, a

    def _score(self, s: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Advance of final dice whose largest set has size s and animal a."""
        adv = self.adv[s]
        combo = s >= 3
        if self.doubling:
            adv = np.where(combo & (a == self.guide), 2 * adv, adv)
        if self.bull:
            adv = adv + self.bull_bonus * (s >= self.bull_min)
        return adv

    # ---------------------------------------------------------- the programme
    def run(self) -> TurnLaw:
        out = np.zeros(2 * (self.max_adv + 1))
        p_pond = 0.0
        # A level: the states before a roll, as codes K * f_mod + F (see _encode) -> mass.
        codes = np.array([self._encode(np.zeros((1, N_ANIMALS), dtype=np.int64),
                                       np.array([self.mult], dtype=np.int64))[0]])
        masses = np.ones(1)
        for roll in range(self.rolls):
            if len(codes) == 0:
                break
            codes, inv = np.unique(codes, return_inverse=True)
            masses = np.bincount(inv.ravel(), weights=masses, minlength=len(codes))
            fcodes = codes % self.f_mod
            kept_all = self._decode_r(codes // self.f_mod)
            nxt_codes: list[np.ndarray] = []
            nxt_mass: list[np.ndarray] = []
            order = np.argsort(fcodes, kind="stable")
            bounds = np.flatnonzero(np.diff(fcodes[order])) + 1
            for grp in np.split(order, bounds):
                fc = int(fcodes[grp[0]])
                free = tuple(int(x) for x in (fc // self.f_stride) % self.f_radix)
                step = max(1, self.CHUNK // len(self._roll_table(free)[2]))
                for lo in range(0, len(grp), step):
                    rows = grp[lo:lo + step]
                    p_pond += self._roll(kept_all[rows], masses[rows], free, roll == 0,
                                         roll == self.rolls - 1, out, nxt_codes, nxt_mass)
            codes = np.concatenate(nxt_codes) if nxt_codes else np.zeros(0, dtype=np.int64)
            masses = np.concatenate(nxt_mass) if nxt_mass else np.zeros(0)
        advance = {a: float(out[a]) for a in range(self.max_adv + 1) if out[a] > 0}
        anx = {a: float(out[self.max_adv + 1 + a]) for a in range(self.max_adv + 1)
               if out[self.max_adv + 1 + a] > 0}
        p_anx = float(out[self.max_adv + 1:].sum())
        pushback = pond_pushback_unconditional(self.rules)
        expected = float(sum(a * p for a, p in advance.items()) + sum(a * p for a, p in anx.items()))
        return TurnLaw(p_pond=p_pond, p_anxiety=p_anx, advance=advance, pushback=pushback,
                       expected_advance=expected, anxiety_advance=anx)

    def _encode(self, kept: np.ndarray, free: np.ndarray) -> np.ndarray:
        """State codes K * f_mod + F of kept counts K [S, 7] and free dice by type F [S, T]."""
        return (kept @ self.r_pow) * self.f_mod + free @ self.f_stride

    def _roll(self, kept, mass, free, first, last, out, nxt_codes, nxt_mass) -> float:
        """Roll the free dice of states [S] that share them; returns the Pond mass found.

        Stopping outcomes go to ``out``; rerolls append the next states' codes and masses.
        """
        _, r, p = self._roll_table(free)
        c = kept[:, None, :] + r[None, :, :]            # [S, M, 7] all dice showing
        w = mass[:, None] * p[None, :]                  # [S, M]
        size, target = self._pick(c)                    # target t = the set greedy builds
        anxious = c[..., HERON] >= self.anx
        live = np.ones(w.shape, dtype=bool)
        pond_mass = 0.0
        if first:  # only the first roll (nothing kept yet) can open the Pond
            is_pond = np.broadcast_to(r[None, :, HERON] >= self.pond, w.shape)
            pond_mass = float(w[is_pond].sum())
            live &= ~is_pond
        if last:
            reroll = np.zeros(w.shape, dtype=bool)
        else:
            # Whether greedy rerolls depends on R only: newly kept = herons + t dice of the
            # roll, free dice left = free dice rolled - newly kept.
            newly = r[:, HERON][None, :] + r[np.arange(r.shape[0])[None, :], target]
            left = sum(free) - newly
            reroll = live & ~anxious & (newly >= 1) & (left >= 1)
        stop = live & ~reroll
        if stop.any():
            adv = self._score(size[stop], target[stop])
            if self.lion:
                idx = np.where(anxious[stop], self.max_adv + 1 + adv, adv)
            else:
                idx = np.where(anxious[stop], self.max_adv + 1, adv)
            out += np.bincount(idx, weights=w[stop], minlength=len(out))
        if not reroll.any():
            return pond_mass
        for t in range(N_PLAIN):
            sel = reroll & (target == t)
            if not sel.any():
                continue
            ridx, jidx, pt, h, k, fp = self._target_table(free, t)
            use = sel.any(axis=0)[ridx]                 # rows some state selects
            ridx, jidx, pt = ridx[use], jidx[use], pt[use]
            si, mi = np.nonzero(sel[:, ridx])
            n_j = len(h)
            flow = np.bincount(si * n_j + jidx[mi], weights=mass[si] * pt[mi],
                               minlength=len(mass) * n_j).reshape(len(mass), n_j)
            si, ji = np.nonzero(flow)                   # mass into each (state, keep)
            k2 = kept[si].copy()
            k2[:, HERON] += h[ji]
            k2[:, t] += k[ji]
            nxt_codes.append(self._encode(k2, fp[ji]))
            nxt_mass.append(flow[si, ji])
        return pond_mass
