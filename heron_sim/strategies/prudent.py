"""``prudent``: a risk-aware heuristic with a risk-appetite parameter ``risk`` (default 0.3).

After each roll it chases the same target as ``greedy`` (the largest set showing) and keeps
its dice, then weighs, from the dice actually showing:

- ``p_anx``: the probability that the next roll of the dice it would reroll brings the reserved
  herons to the Anxiety threshold (each die's own heron probability, averaged over those dice);
- ``gain``: the expected advance after one more roll (target dice only, Anxiety scoring 0)
  minus the advance of the dice showing now.

It rerolls when the dice showing score nothing, or when ``p_anx <= risk`` and ``gain > 0``.
So ``risk`` is the largest chance of Anxiety on the next roll it accepts to put a scoring hand
at stake: 0 never risks a scoring hand, 1 rerolls whenever the expected gain is positive.

Powers: Wolf rerolls a reserved heron when one more heron would be Anxiety and it means to
reroll; Eagle and Deer improve the target set on the last decision of the turn (the Eagle
takes a drawn face only if it shows the target); Lion rescues when the rescued dice score;
Bull always (its bonus and smallest set read from the rules); Snake only on a move back of 3
or more (saved for large push-backs; 4 - snake_advance under that key); never
Heron's Patience, never a guide swap. Squares as ``greedy``.
"""

from __future__ import annotations

from ..engine.jit import U, hot
from ..engine.dice import best_set, count_animals
from ..engine.rulebook import bull_applies, bull_bonus
from ..engine.layout import (
    AIGLE, CERF, COUNTS, D_BULL, D_DEER_SQUARE, D_EAGLE_PICK, D_EAGLE_SQUARE, D_KEEP, D_LION,
    D_POWER, D_SNAKE, EAGLE_FACES, FACE, FREE, FRESH, GUIDE, HERON, KEEP, LOUP, MAX_FACES, NDICE, NOMINAL,
    POWER_ARG, PMEMO, PMEMO_LEN, R_ADVANCE, R_ROWS, R_FACES, R_NDICE, R_NFACES, R_UNIFORM, READY, RESERVED, ROLLS_LEFT, STATUS, TAUREAU,
    X_EAGLE_DRAWS,
)
from ..rules.rules import P_ANXIETY, P_DOUBLING, P_SNAKE_ADVANCE
from .common import furthest_ahead_opponent, param_column

NAME = "prudent"
DESCRIPTION = "Risk-aware heuristic: rerolls when P(Anxiety next roll) <= risk and the gain is positive."
PARAMS = {"risk": 0.3}
RISK = param_column(PARAMS, "risk")  # its column of the seat's row
SID = 4  # the kernel's id of this strategy (unique; heron_sim.strategies.dispatch)
DECIDE = "prudent_decide"  # its decision function, called by the generated dispatcher
FUSED_TURN = "prudent_turn.prudent_roll_phase"  # its turn, counted (heron_sim.loop.turn)
FUSED_SCORE = "greedy_turn.greedy_score"  # it scores as greedy does (no swap, regenerate, Bull)
WORKSPACE_WORDS = "prudent.memo_words"  # its memo's words in the workspace, (R, players)
ORDER = 1  # where it is listed (help, "all", "ai")




@hot
def _advance_of(seat, w, R, size, animal):
    adv = R[U(R_ADVANCE + size)]
    g = w[U(GUIDE + seat)]
    if R[P_DOUBLING] != 0 and animal == g and size > 0:
        adv *= 2
    if bull_applies(R, size, g, w[U(READY + seat)]):
        adv += bull_bonus(R)
    return adv


@hot
def _face_prob(R, die, animal):
    nf = R[U(R_NFACES + die)]
    c = 0
    for k in range(nf):
        if R[U(R_FACES + MAX_FACES * die + k)] == animal:
            c += 1
    return c / nf


@hot
def _comb(n, k):
    c = 1.0
    for i in range(k):
        c = c * (n - i) / (i + 1)
    return c


@hot
def prudent_keep(seat, w, R, sp):
    n = w[NDICE]
    count_animals(w)
    size0, target = best_set(w, w[U(GUIDE + seat)])
    s0 = _advance_of(seat, w, R, size0, target)
    herons = 0
    fresh_held = 0
    kt = w[U(COUNTS + target)]
    f = 0
    qh = 0.0
    qt = 0.0
    for i in range(n):
        st = w[U(STATUS + i)]
        keep = st == FREE and w[U(FACE + i)] == target
        w[U(KEEP + i)] = 1 if keep else 0
        if w[U(FACE + i)] == HERON:
            herons += 1
        if st == FREE and not keep:
            f += 1
            qh += _face_prob(R, i, HERON)
            qt += _face_prob(R, i, target)
    # newly kept: target dice of this roll, or a fresh reserved die (heron of this roll)
    newly = 0
    for i in range(n):
        if w[U(KEEP + i)] != 0:
            newly += 1
        elif w[U(STATUS + i)] != FREE and w[U(FRESH + i)] != 0:
            newly += 1
    if w[ROLLS_LEFT] <= 0 or f == 0 or newly == 0:
        return 0
    if s0 <= 0:
        return 1
    if R[R_UNIFORM] != 0:  # every die alike: the fused turn's memo (the same answer, once computed)
        again = memo_rerolls(seat, w, R, sp, f, herons, size0, target, s0, w[U(GUIDE + seat)], n, R[P_ANXIETY])
    else:
        again = rerolls(seat, w, R, sp, f, qh / f, qt / f, herons, kt, size0, target, s0)
    if again:
        return 1
    for i in range(n):
        w[U(KEEP + i)] = 0
    return 0


@hot
def rerolls(seat, w, R, sp, f, qh, qt, herons, kt, size0, target, s0):
    """Whether a scoring hand (advance ``s0`` > 0 of its largest set, ``size0`` dice of
    ``target``, ``kt`` of them) is put at stake: ``f`` dice rerolled, each showing a heron with
    probability ``qh`` and the target with ``qt`` (their means), ``herons`` herons held. Pure:
    the generic path (:func:`prudent_keep`) and the fused turn
    (heron_sim.strategies.prudent_turn) ask it the same numbers."""
    need = R[P_ANXIETY] - herons  # herons on the next roll that would be Anxiety
    p_safe = 0.0
    ev = 0.0
    for j in range(0, min(need, f + 1)):
        pj = _comb(f, j) * qh**j * (1.0 - qh) ** (f - j)
        p_safe += pj
        # given j herons, the other f - j dice show the target with prob qt / (1 - qh)
        rest = f - j
        pt = qt / (1.0 - qh) if qh < 1.0 else 0.0
        for x in range(rest + 1):
            px = _comb(rest, x) * pt**x * (1.0 - pt) ** (rest - x)
            s = kt + x
            if s < size0:
                s = size0  # the largest set showing can only grow (approximately)
            ev += pj * px * _advance_of(seat, w, R, s, target)
    p_anx = 1.0 - p_safe
    risk = sp[U(seat), RISK]
    return p_anx <= risk and ev > s0


@hot
def memo_words(R, players):
    """Words of the memo of :func:`memo_rerolls` (2 bits an answer) for these rules and seats;
    none with rules by guide (R_ROWS: an answer would depend on the guide's rules too)."""
    if R[R_ROWS] != 0:
        return 0
    n = R[R_NDICE]
    entries = players * (n + 1) * R[P_ANXIETY] * (n + 1) * 6 * 4
    return (entries + 31) // 32


@hot
def _rerolls(seat, w, R, sp, f, h, size0, target, s0):
    """:func:`rerolls` for every die alike: the heron and target probabilities summed die by
    die, as prudent_keep sums them (the same floating-point numbers)."""
    ph = _face_prob(R, 0, HERON)  # every die alike: die 0's faces
    pt = _face_prob(R, 0, target)
    qh = 0.0
    qt = 0.0
    for _ in range(f):
        qh += ph
        qt += pt
    return rerolls(seat, w, R, sp, f, qh / f, qt / f, h, size0, size0, target, s0)


@hot
def memo_rerolls(seat, w, R, sp, f, h, size0, target, s0, guide, n, anxiety):
    """:func:`_rerolls`, remembered in the workspace's memo (w[PMEMO], 2 bits an answer: 0 not
    known yet, 1 stop, 2 reroll). Its answer depends on these numbers only, given the rules and
    the seat's risk, which do not change within a batch: whether the target is the guide's
    animal (the doubling) and whether a ready Taureau adds its bonus stand for the guide. No memo
    under rules by guide (its words are 0 there, :func:`memo_words`; the turn's rules are a
    guide's row, R_ROWS -1, heron_sim.engine.pack): the workspace's words may then be another
    strategy's (the champion's scratch), never prudent's."""
    words = w[PMEMO_LEN]
    if words == 0 or R[R_ROWS] != 0:
        return _rerolls(seat, w, R, sp, f, h, size0, target, s0)
    dbl = 1 if target == guide else 0
    bull = 1 if guide == TAUREAU and w[U(READY + seat)] != 0 else 0
    idx = ((((seat * (n + 1) + f) * anxiety + h) * (n + 1) + size0) * 6 + target) * 4 + dbl * 2 + bull
    at = w[PMEMO] + (idx >> 5)
    shift = 2 * (idx & 31)
    v = (w[U(at)] >> shift) & 3
    if v == 0:
        v = 2 if _rerolls(seat, w, R, sp, f, h, size0, target, s0) else 1
        w[U(at)] |= v << shift
    return v == 2


@hot
def prudent_power(seat, w, R, sp):
    n = w[NDICE]
    g = w[U(GUIDE + seat)]
    herons = 0
    heron_die = -1
    for i in range(n):
        if w[U(STATUS + i)] == RESERVED:
            herons += 1
            heron_die = i
    if g == LOUP:
        if herons == R[P_ANXIETY] - 1 and w[ROLLS_LEFT] > 0 and heron_die >= 0:
            return heron_die
        return -1
    if w[ROLLS_LEFT] > 0:
        return -1  # Eagle and Deer wait for the last decision
    count_animals(w)
    size, target = best_set(w, g)
    if g == CERF:
        if size >= 2 and size < n and R[U(R_ADVANCE + size + 1)] > R[U(R_ADVANCE + size)]:
            for i in range(n):
                f = w[U(FACE + i)]
                if f != HERON and f != target:
                    return i + POWER_ARG * target
        return -1
    if g == AIGLE:
        if size >= 2:
            for i in range(n):
                f = w[U(FACE + i)]
                if w[U(STATUS + i)] != RESERVED and f != target:
                    return i
        return -1
    return -1


@hot
def prudent_eagle_pick(seat, w, R):
    count_animals(w)
    _, target = best_set(w, w[U(GUIDE + seat)])
    for k in range(R[X_EAGLE_DRAWS]):
        if w[U(EAGLE_FACES + k)] == target:
            return k + 1
    return 0


@hot
def prudent_decide(kind, seat, w, R, rng, sp):
    if kind == D_KEEP:
        return prudent_keep(seat, w, R, sp)
    if kind == D_POWER:
        return prudent_power(seat, w, R, sp)
    if kind == D_EAGLE_PICK:
        return prudent_eagle_pick(seat, w, R)
    if kind == D_LION:
        count_animals(w)
        size, animal = best_set(w, w[U(GUIDE + seat)])
        return 1 if R[U(R_ADVANCE + size)] > 0 else 0
    if kind == D_BULL or kind == D_DEER_SQUARE:
        return 1
    if kind == D_SNAKE:
        return 1 if w[NOMINAL] + R[P_SNAKE_ADVANCE] >= 4 else 0  # a move back of 3+ (advance 1)
    if kind == D_EAGLE_SQUARE:
        return furthest_ahead_opponent(w, seat)
    return -1
