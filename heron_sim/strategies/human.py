"""``human``: a human-like player over the expert's values (and the named rungs of the ladder).

At each decision the options are valued in squares of the turn's expected advance with the
expert's tables (heron_sim.strategies.expert_dp) and one is drawn by a softmax of temperature
``temp`` (squares): an option worth ``d`` squares more than the other is taken with
probability ``1 / (1 + exp(-d / temp))``. Two more parameters make the player human:

- ``caution``: the squares of expected advance the player wants to gain before it rerolls
  rather than stops: the reroll is valued at the table's best reroll value minus ``caution``,
  against the score of the dice showing. Positive, the player stops too early (timid); negative,
  it rerolls too much (bold: it pushes its luck where the expert would stop);
- ``forget``: the chance that a ready power is overlooked at a decision where it could be used
  (roll-time powers at each decision point, the Lion's rescue, the Bull, the Serpent).

The decisions and their values:

- keep/stop: stop (the dice showing's score, or the consolation of a turn worth 0) against
  the expert's best reroll (its keep, its expected advance, minus ``caution``);
- Wolf, Eagle, Deer, Héron's Patience: not using (the dice's value plus ``POWER_MARGIN``, what
  the expert gives to keeping the power) against the best use (its one-step look-ahead value);
- the Eagle's face: a softmax over the original and the drawn faces by their table values;
- the Lion's rescue: the rescued dice's score against the Anxiety's consolation;
- the Bull: +bull_bonus against ``POWER_MARGIN`` (keeping it);
- the Serpent: the move back avoided plus its advance against 2.5 (the expert's threshold);
- the squares: 🔄 +1 for itself against 1 / (players - 1) for moving back the opponent furthest
  ahead; the Aigle square's swap with the opponent furthest ahead (the gap) against not;
  the Cerf square's regeneration (``REGEN_WORTH``) against its 2 squares.
  Guide swaps of a 7- or 8+ set: as the expert (never; an 8+ set regenerates).

Which dice to keep when it rerolls is the expert's best reroll: the tables hold the value of
the best keep only, not of every keep (so the softmax is over stop or that reroll).

Randomness comes from the game's own stream (``rng``), drawn only where the parameters make a
decision random: ``temp=0, caution=0, forget=0`` draws nothing and plays exactly the expert's
games (tests/test_human.py, game by game). It plays on the expert's fused counted-dice turn
(heron_sim.strategies.expert_turn: its keep/stop, Lion's rescue and roll-time power decisions on
the dice counted, the same draws: :func:`power_counted`); where it uses a roll-time power (or
the tables do not store the decision) the dice are laid out, :func:`power_after_draw` answers
and the generic loop goes on from there (tests/test_human.py: the same games as
``human_decide`` on the generic path; tests/test_human_golden.py: the same games as before this
was made faster). The softmax of a power weighs the value of its best use stored in the
expert's tables (:func:`best_use_value`): the full scan of the uses runs only when it is used.

The rungs (``RUNGS``) are named parameter sets: ``novice``, ``casual``, ``regular``; the top
rung is ``expert`` itself (the family at 0). docs/strategies.md gives the ladder's measures.
"""

from __future__ import annotations

import math

from ..engine.jit import U, hot, hot_inline
from ..engine.rulebook import bull_bonus, consolation_anxiety, consolation_no_set
from ..engine.layout import (
    D_BULL, D_DEER_SQUARE, D_EAGLE_PICK, D_EAGLE_SQUARE, D_EXCHANGE, D_KEEP, D_LION, D_POWER, D_SNAKE,
    EAGLE_DIE, EAGLE_FACES, GUIDE, HERON, MEMO, NOMINAL, PLAYERS, POS, RESERVED, ROLLS_LEFT, STATUS,
    SCORE_GENERIC_COUNTED, TAUREAU, X_EAGLE_DRAWS,
)
from ..engine.dice import count_animals
from .greedy_turn import counts_into, greedy_score
from ..engine.rng import uniform
from ..rules.rules import P_SNAKE_ADVANCE
from .common import furthest_ahead_opponent, param_column
from .expert import (
    KEEP_STOP, POWER_MARGIN, _value_with_face, apply_keep_action, best_power, counted_advance,
    decode_power, eagle_pick, expert_decide, final_advance, has_tables, keep_column,
    lookup, memo_stamp, near_scan, power_column, state_value, table_seat,
)
from .expert_scan import power_scan_counted
from .expert_dp import E_WOLF, ROW_POWERS
from .greedy import greedy_keep

NAME = "human"
DESCRIPTION = "Human-like: the expert's values chosen by a softmax (temp), with caution and forgetting."
PARAMS = {"temp": 0.3, "caution": 0.3, "forget": 0.1}  # the defaults: the ``regular`` rung
#: each parameter's allowed range (inclusive); checked when a name is parsed
BOUNDS = {"temp": (0.0, 100.0), "caution": (-100.0, 100.0), "forget": (0.0, 1.0)}
SID = 6  # the kernel's id of this strategy (unique; heron_sim.strategies.dispatch)
DECIDE = "human_decide"  # its decision function, called by the generated dispatcher
ORDER = 4  # where it is listed (help)
TABLES = True
FUSED_TURN = "expert_turn.expert_roll_phase"  # the expert's fused turn, its own softmax
FUSED_SCORE = "human.human_score"  # as the expert, but for the Bull's decision
IN_SETS = False  # not in the "ai" and "all" sets (the rungs are seated by name)

#: The named rungs of the ladder (docs/strategies.md: each beats the one below, 2 players,
#: seats and guides mirrored, with 95 % confidence; novice loses to greedy). ``expert`` is the
#: top rung (the family at temp = caution = forget = 0, played by the expert itself).
RUNGS = {
    "novice": {"temp": 1.5, "caution": 1.5, "forget": 0.5},
    "casual": {"temp": 0.8, "caution": 0.8, "forget": 0.3},
    "regular": {"temp": 0.3, "caution": 0.3, "forget": 0.1},
}
#: Styles beside the ladder: a player of the novice's skill (its temp and forget) who pushes
#: its luck instead of stopping early (docs/strategies.md: its Angoisse rate, above the expert's).
STYLES = {
    "reckless": {"temp": 1.5, "caution": -12.0, "forget": 0.5},
}
RUNG_DESCRIPTIONS = {
    "reckless": "A bold beginner (human:temp=1.5,caution=-12,forget=0.5): the novice's skill, rerolls nearly whenever it may.",
    "novice": "Ladder rung 1 (human:temp=1.5,caution=1.5,forget=0.5): weaker than greedy.",
    "casual": "Ladder rung 2 (human:temp=0.8,caution=0.8,forget=0.3).",
    "regular": "Ladder rung 3 (human:temp=0.3,caution=0.3,forget=0.1); expert is rung 4.",
}

#: The parameters' columns of a seat's row (heron_sim.strategies.common.param_column).
TEMP, CAUTION, FORGET = (param_column(PARAMS, p) for p in ("temp", "caution", "forget"))

REGEN_WORTH = 2.5  # squares a regenerated guide is worth (the expert prefers it to 2 squares)
SNAKE_WORTH = 2.5  # squares a kept Serpent is worth (the expert cancels a swing of 3 or more)


@hot
def chance(d, temp):
    """The softmax probability ``1 / (1 + exp(-d / temp))`` of the option worth ``d`` squares
    more than the other (``temp`` > 0)."""
    x = d / temp
    if x > 700.0:
        return 1.0
    if x < -700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


@hot_inline
def under(u, d, temp):
    """``u < chance(d, temp)``, without the exponential where the sign of ``d`` settles it: for
    ``d > 0`` the chance is at least 1/2 (``exp(-x) <= 1``), for ``d <= 0`` at most 1/2 (the
    same answers as the comparison itself, bit for bit)."""
    if d > 0.0:
        if u < 0.5:
            return True
    elif u >= 0.5:
        return False
    return u < chance(d, temp)


@hot_inline
def take(rng, d, temp):
    """True with probability :func:`chance` (one draw of the game's stream)."""
    return under(uniform(rng), d, temp)


@hot
def forgets(rng, sp, seat):
    """The ready power is overlooked (chance ``forget``; no draw when it is 0)."""
    f = sp[U(seat), FORGET]
    return f > 0.0 and uniform(rng) < f


@hot
def zero(sp, seat):
    """The seat plays exactly as the expert (temp = caution = forget = 0): the expert's fused
    turn, unchanged."""
    return sp[U(seat), TEMP] == 0.0 and sp[U(seat), CAUTION] == 0.0 and sp[U(seat), FORGET] == 0.0


@hot_inline
def human_action(seat, w, R, rng, sp, ts, col):
    """The keep action at table column ``col`` of the row of seat ``ts`` (-1: stop): stop
    against the best reroll minus ``caution``, by the softmax. Reads the dice counted by animal
    in w[COUNTS] (the generic path counts them, :func:`human_keep`; the expert's fused turn
    counts them as it rolls, heron_sim.strategies.expert_turn)."""
    action = int(sp[U(ts), U(col)])
    temp = sp[U(seat), TEMP]
    caution = sp[U(seat), CAUTION]
    if temp > 0.0 or caution != 0.0:
        reroll = int(sp[U(ts), U(col + 2)])
        if reroll < 0:
            return -1  # no legal reroll
        if action < 0:
            stop_value = sp[U(ts), U(col + 1)]  # the table's value is the stop's
        else:
            adv = counted_advance(seat, w, R)
            stop_value = float(adv if adv > 0 else consolation_no_set(R))
        d = sp[U(ts), U(col + 3)] - caution - stop_value
        go = d > 0.0 if temp <= 0.0 else take(rng, d, temp)
        return reroll if go else -1
    return action


@hot
def human_keep(seat, w, R, rng, sp):
    col = keep_column(seat, w, R, sp)
    if col == KEEP_STOP:
        return 0
    if col < 0:
        return greedy_keep(seat, w)  # as the expert: dice its tables do not hold
    count_animals(w)  # what human_action reads (apply_keep_action rewrites w[COUNTS] after)
    return apply_keep_action(seat, w, sp, human_action(seat, w, R, rng, sp, table_seat(seat, sp), col))


@hot
def human_lion(seat, R, rng, sp, adv):
    """The Lion's rescue of an Anxiety whose rescued dice score ``adv``: 1 or 0."""
    if forgets(rng, sp, seat):
        return 0
    temp = sp[U(seat), TEMP]
    d = float(adv - consolation_anxiety(R))
    if temp <= 0.0:
        return 1 if d > 0.0 else 0  # expert.lion_worth_it
    return 1 if take(rng, d, temp) else 0


@hot
def human_power(seat, w, R, rng, sp):
    """A roll-time power (Wolf, Eagle, Deer, Héron's Patience): -1 or a D_POWER action.

    The use is taken when the draw ``u`` is below ``1 / (1 + exp(-d / temp))``, ``d`` the best
    use's gain over ``POWER_MARGIN``. The tables' stored decision (expert.best_power) gives the
    sign of ``d``, which settles half the draws without the scan: no use stored (``d <= 0``)
    and ``u >= 1/2``: not used; a use stored (``d > 0``) and ``u < 1/2``: that use. In the
    other half the tables' stored value of the best use (:func:`best_use_value`) gives ``d``;
    the scan (expert_values.power_scan) runs only where the power is used (for the die to use it on)
    or where nothing is stored (dice that differ)."""
    if forgets(rng, sp, seat):
        w[MEMO] = 0
        return -1
    temp = sp[U(seat), TEMP]
    if temp <= 0.0:
        return best_power(seat, w, R, sp, POWER_MARGIN)
    w[MEMO] = 0
    if not has_tables(seat, sp):
        return -1
    return power_after_draw(seat, w, R, sp, uniform(rng))


@hot
def power_after_draw(seat, w, R, sp, u):
    """:func:`human_power` once ``u`` is drawn (temp > 0, the seat has tables): -1 or a
    D_POWER action, on the dice laid out in the workspace (the fused turn calls it where
    :func:`power_counted` cannot decide, heron_sim.strategies.expert_turn)."""
    temp = sp[U(seat), TEMP]
    ts = table_seat(seat, sp)
    r = w[ROLLS_LEFT]
    best = math.nan  # the best use's stored value (identical dice), else scanned below
    codef = -2.0  # the stored decision (its near uses: expert.near_scan)
    if sp[U(ts), ROW_POWERS] != 0:
        col = lookup(seat, w, R, sp, r)
        if col >= 0:
            codef = sp[U(ts), U(col + power_column(w[U(GUIDE + seat)]))]
            code = int(codef)
            if code == -1 and u >= 0.5:
                w[MEMO] = memo_stamp(seat, w)  # the D_KEEP that follows finds the same dice
                w[U(MEMO + 1)] = col
                return -1
            if code >= 0 and u < 0.5:
                action = decode_power(seat, w, R, sp, code)
                if action >= 0:
                    return action
            if code != -2:
                best = best_use_value(sp, ts, col, w[U(GUIDE + seat)])
    base = state_value(seat, w, R, sp, r)
    if best == best and not under(u, best - base - POWER_MARGIN, temp):
        return -1  # not used: the stored value says so without the scan
    v, action = near_scan(seat, w, R, sp, codef)  # power_scan's answer from the uses the tables name
    if action == -2:
        v, action = power_scan_counted(seat, w, R, sp, -1e300)  # expert_values.power_scan's answer, faster
    if action < 0:
        return -1
    return action if under(u, v - base - POWER_MARGIN, temp) else -1


@hot
def power_counted(seat, w, R, rng, sp, ts, col, guide, r, stored, total):
    """:func:`human_power` at a decision point of the fused turn (temp > 0, the seat has
    tables), on the dice's table column ``col`` (-1: not in the tables) and the dice counted
    ``total`` (packed 8 bits an animal, heron_sim.strategies.expert_turn): the same draws and,
    where it can decide without the dice laid out, the same answer. Returns (decided, u):
    decided (the power is not used; nothing else to do), or not, with the draw ``u`` that
    :func:`power_after_draw` then takes on the dice laid out (it uses the power, or must scan
    or decode a stored use)."""
    w[MEMO] = 0  # as human_power leaves it (keep_column's note of this decision point)
    if forgets(rng, sp, seat):
        return True, 0.0
    u = uniform(rng)
    if col < 0 or not stored:
        return False, u
    code = int(sp[U(ts), U(col + power_column(guide))])
    if code == -1 and u >= 0.5:
        return True, u
    if code == -2 or (code >= 0 and u < 0.5):
        return False, u
    if r > 0:
        base = sp[U(ts), U(col + 1)]  # expert_values.state_value: the entry's value
    else:
        counts_into(w, total)
        adv = counted_advance(seat, w, R)
        base = float(adv if adv > 0 else consolation_no_set(R))
    return not under(u, best_use_value(sp, ts, col, guide) - base - POWER_MARGIN, sp[U(seat), TEMP]), u


@hot
def best_use_value(sp, ts, col, guide):
    """The look-ahead value of the best use of ``guide``'s roll-time power from the state of the
    entry at ``col`` (what :func:`heron_sim.strategies.expert_values.power_scan` finds on those dice,
    stored when the tables were built, expert_powers; -1e300: no legal use). Only where the
    tables store the power decisions (sp[ts, ROW_POWERS] != 0) and that entry's is not -2."""
    return sp[U(ts), U((col + int(sp[U(ts), ROW_POWERS])) // 2 + power_column(guide) - E_WOLF)]


@hot
def human_eagle_pick(seat, w, R, rng, sp):
    """The Eagle's face by a softmax over the original and the drawn faces' table values."""
    temp = sp[U(seat), TEMP]
    if temp <= 0.0:
        return eagle_pick(seat, w, R, sp)
    die = w[EAGLE_DIE]
    r = w[ROLLS_LEFT]
    st = w[U(STATUS + die)]
    v0 = state_value(seat, w, R, sp, r)
    k = R[X_EAGLE_DRAWS]
    top = v0
    for j in range(k):  # no array in a decision: the faces are valued again below
        top = max(top, _eagle_value(seat, w, R, sp, r, die, st, j))
    total = math.exp((v0 - top) / temp)
    for j in range(k):
        total += math.exp((_eagle_value(seat, w, R, sp, r, die, st, j) - top) / temp)
    u = uniform(rng) * total
    acc = math.exp((v0 - top) / temp)
    if u < acc:
        return 0
    for j in range(k - 1):
        acc += math.exp((_eagle_value(seat, w, R, sp, r, die, st, j) - top) / temp)
        if u < acc:
            return j + 1
    return k


@hot
def _eagle_value(seat, w, R, sp, r, die, st, j):
    """Table value of the dice with the Eagle's die showing its j-th drawn face."""
    f = w[U(EAGLE_FACES + j)]
    return _value_with_face(seat, w, R, sp, r, die, f, RESERVED if f == HERON else st)


@hot
def human_decide(kind, seat, w, R, rng, sp):
    temp = sp[U(seat), TEMP]
    if kind == D_KEEP:
        return human_keep(seat, w, R, rng, sp)
    if kind == D_POWER:
        return human_power(seat, w, R, rng, sp)
    if kind == D_EAGLE_PICK:
        return human_eagle_pick(seat, w, R, rng, sp)
    if kind == D_LION:
        return human_lion(seat, R, rng, sp, final_advance(seat, w, R))
    if kind == D_BULL:
        if forgets(rng, sp, seat):
            return 0
        if temp <= 0.0:
            return 1
        return 1 if take(rng, bull_bonus(R) - POWER_MARGIN, temp) else 0
    if kind == D_SNAKE:
        if forgets(rng, sp, seat):
            return 0
        swing = float(w[NOMINAL] + R[P_SNAKE_ADVANCE])
        if temp <= 0.0:
            return expert_decide(kind, seat, w, R, rng, sp)
        return 1 if take(rng, swing - SNAKE_WORTH, temp) else 0
    if temp > 0.0:
        if kind == D_EXCHANGE:  # -1: +1 for itself; else the opponent moved back 1
            o = furthest_ahead_opponent(w, seat)
            if o < 0:
                return -1
            return o if take(rng, 1.0 / (w[PLAYERS] - 1) - 1.0, temp) else -1
        if kind == D_EAGLE_SQUARE:
            o = furthest_ahead_opponent(w, seat)
            if o < 0:
                return -1
            return o if take(rng, float(w[U(POS + o)] - w[U(POS + seat)]), temp) else -1
        if kind == D_DEER_SQUARE:
            return 1 if take(rng, REGEN_WORTH - 2.0, temp) else 0
    return expert_decide(kind, seat, w, R, rng, sp)


@hot_inline
def human_score(seat, w, R):
    """A human seat's scoring after its fused turn: the expert's (its set choices are the
    expert's) but for the Bull's seat, which the game loop scores (the Bull's decision is a
    draw: it may forget or decline it) from the counts the turn left."""
    if w[U(GUIDE + seat)] != TAUREAU:
        return greedy_score(seat, w, R)
    return SCORE_GENERIC_COUNTED
