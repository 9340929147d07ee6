"""The champion's tables (heron_sim.strategies.champion), built from what only the floors above
the strategies know: the worth of positions (heron_sim.analysis.worth, measured on self-play
games). Registered with heron_sim.strategies.register_seat_block on import (heron_sim.simulation
imports this module), so that the strategies' floor stays below the analysis.

A champion seat's block, after the expert's tables in its row (heron_sim.strategies.champion,
``CH_*``):

- for every column of the expert's tables where the programme would reroll (its best reroll, one
  per post-roll state of each table, rolls left and flag), a pointer to the law of the turn's
  final advance under the expert's programme after that reroll (expert_luck._roll_laws, the
  luck's laws: exact);
- the chains of the worth of positions: each strategy's law of the number of its own turns still
  needed to finish, by Guide, power and square, for the table's seating with each champion played
  by the racer (the player it improves on), truncated at :data:`HORIZON` turns;
- read by the champion's hot loops in the forms they need (the same numbers): each chain's
  survival (``CH_SURV``) and each law's compact record (``CH_CLAW``: its span, then its chances).
"""

from __future__ import annotations

import json
import threading

import numpy as np

from .errors import HeronSimError
from .strategies import register_seat_block
from .strategies.champion import (
    CH_AMAX, CH_ANX, CH_CLAW, CH_FINISH, CH_HEAD, CH_HIT, CH_KIND, CH_LAW, CH_LSPAN, CH_NPRE, CH_PRE, CH_PTR, CH_SPAN, CH_STATES, CH_SURV,
    CH_T, PRE_MAX, T_MAX,
)

#: Own turns of the chains the champion reads (the worth's are longer; past this, a seat that has
#: not finished counts as never finishing: from square 0 a game takes about 25 to 35 turns a seat).
HORIZON = T_MAX
#: A chain's chance of finishing at one turn below which it is dropped (its span is where it is
#: not): the chains' tails, where the champion's sums would spend most of their time for nothing.
TAIL = 1e-9
#: The player whose chains stand for a champion's own future turns (one step of improvement on it).
STAND_IN = "racer"

_LAWS: dict = {}
_LOCK = threading.Lock()


def _laws(rules, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pointer by table column // ENTRY: the law's start in ``laws`` or -1, the laws flattened
    [table, rolls left, kept vector, herons, advance]) for ``rules``' expert tables ``table``."""
    from .strategies.expert_dp import (
        ACTION_BITS, ENTRY, N_TABLES, ROW_DIR, _key, _params, _pre_states, _run_dp, _table_flags, dice_model,
        dir_index, table_rolls,
    )
    from .strategies.expert_build import _structure
    from .strategies.expert_luck import AMAX, _roll_laws

    key = (json.dumps(_key(rules), sort_keys=True, default=str), table.size)
    with _LOCK:
        hit = _LAWS.get(key)
    if hit is not None:
        return hit
    model = dice_model(rules)
    n = model.n
    anx = min(rules.anxiety_threshold, n + 1)
    rmax = table_rolls(rules)
    B = n + 1
    st = _structure(n, model.p_heron, anx)
    pre_T, pre_index = _pre_states(n)
    npre = pre_T.shape[0]
    adv = np.array(rules.combo_advance, dtype=np.int64)
    eff = np.array(rules.combo_effect, dtype=np.int64)
    laws = np.zeros((N_TABLES, max(rmax, 1), npre, anx, AMAX))
    ptr = np.full(table.size // ENTRY + 1, -1.0)
    powers = B ** np.arange(1, 6)
    for t in range(N_TABLES):
        dbl, bull, lion = _table_flags(t, rules.guide_power_doubling)
        par = _params(rules, t)
        Q, A, _QR, AR = _run_dp(n, anx, rmax, st.post_K, st.post_C, st.post_codes, pre_T, pre_index, st.offs,
                                st.cnt, st.probs, adv, eff, dbl, bull, lion, B, par)
        if rmax < 1:
            continue
        laws[t] = _roll_laws(n, anx, rmax, Q, A, st.post_K, pre_T, pre_index, st.post_codes, st.offs, st.cnt,
                             st.probs, adv, eff, dbl, bull, lion, B, par, AMAX)
        for r in range(1, rmax + 1):
            for h in range(anx):
                sel, rk = st.sels[h]
                for fl in range(2):
                    start = int(table[ROW_DIR + 2 * dir_index(t, r, h, fl, rmax, anx)])
                    act = AR[r, sel, fl].astype(np.int64)
                    ok = act >= 0
                    digits = (act[:, None] >> (ACTION_BITS * np.arange(6))) & 15
                    T = st.post_K[sel] + np.where(ok[:, None], digits, 0)
                    rest = -np.sort(-T[:, 1:6], axis=1)  # slots 1..5 non-increasing (expert_dp._pre_code)
                    codes = T[:, 0] + (rest * powers).sum(axis=1)
                    p = pre_index[np.minimum(codes, pre_index.size - 1)]
                    cols = (start + ENTRY * rk) // ENTRY
                    where = (((t * rmax + (r - 1)) * npre + p) * anx + h) * AMAX
                    ptr[cols] = np.where(ok & (p >= 0), where, -1.0)
    out = (ptr, laws.ravel())
    with _LOCK:
        _LAWS[key] = out
    return out


def _chains(rules, seating: list[str]) -> tuple[np.ndarray, list[int], int]:
    """(the chains, [strategies, states, HORIZON], each seat's strategy index, states a strategy)
    of the worth of positions for ``seating`` with every champion played by :data:`STAND_IN`."""
    import sys

    from .analysis.worth import cached, worth_of
    from .interrupt import stop_requested
    from .strategies import parse_strategy

    def stand_in(spec):  # each champion's own future: the racer's, or the champion one step weaker
        name, values = parse_strategy(spec)
        if name != "champion":
            return spec
        steps = int(values.get("steps", 1))
        return STAND_IN if steps <= 1 else f"champion:steps={steps - 1}"

    stand = [stand_in(s) for s in seating]
    if cached(rules, stand) is None:  # say what the pause is (the engine says so of its compiling)
        print(f"building the worth of positions for the champion at this table ({len(stand)} players), once per "
              "rules and table: about 10 to 40 s", file=sys.stderr, flush=True)
    worth = worth_of(rules, stand, stop=stop_requested)  # Ctrl-C: BuildInterrupted, one line, nothing kept
    T = min(HORIZON, worth.hit[0].shape[0])
    blocks = [np.ascontiguousarray(h[:T].reshape(T, -1).T) for h in worth.hit]  # [state, t]
    chains = np.stack(blocks)
    chains[chains < TAIL] = 0.0
    return chains, [worth.strategies.index(s) for s in worth.seating], blocks[0].shape[0]


def _spans(chains: np.ndarray) -> np.ndarray:
    """[first turn, one past the last] where each chain (flattened [strategy, state]) may finish."""
    flat = chains.reshape(-1, chains.shape[-1]) > 0
    any_ = flat.any(axis=1)
    first = np.where(any_, flat.argmax(axis=1), 0)
    last = np.where(any_, flat.shape[1] - flat[:, ::-1].argmax(axis=1), 0)
    return np.stack([first, last], axis=1).astype(np.float64).ravel()


def _survival(chains: np.ndarray) -> np.ndarray:
    """Each chain's ``max(0, 1 - its sum up to turn t)`` (flattened [strategy, state, t]): the
    chance that the seat needs more than t turns, summed turn after turn in float64 as the
    champion once summed it in its loop (the chain is 0 before its span: the same numbers), so
    that :func:`heron_sim.strategies.champion._others_behind` reads it rather than sums it."""
    flat = chains.reshape(-1, chains.shape[-1])
    out = np.empty_like(flat)
    cum = np.zeros(flat.shape[0])
    for t in range(flat.shape[1]):  # one addition a turn, in turn order (not a pairwise sum)
        cum = cum + flat[:, t]
        out[:, t] = np.maximum(0.0, 1.0 - cum)
    return out.ravel()


def _compact_laws(laws: np.ndarray, lspan: np.ndarray, at: float) -> np.ndarray:
    """The laws' compact index and records, to be written at column ``at`` of the row: for each
    law (the dense laws' rows of AMAX advances), the column of its record; a record is the law's
    span ``lo, hi`` then its chances at advances lo .. hi - 1 (the same numbers as the dense row)."""
    from .strategies.expert_luck import AMAX

    rows = laws.reshape(-1, AMAX)
    span = lspan.reshape(-1, 2).astype(np.int64)
    index = np.empty(rows.shape[0])
    parts = []
    col = at + rows.shape[0]
    for i in range(rows.shape[0]):
        lo, hi = int(span[i, 0]), int(span[i, 1])
        index[i] = col
        parts.append(np.concatenate([[float(lo), float(hi)], rows[i, lo:hi]]))
        col += 2 + (hi - lo)
    return np.concatenate([index] + parts)


def kept_index(n: int) -> np.ndarray:
    """Each kept vector of the tables (expert_dp._pre_states: slot 0, then slots 1..5 in
    non-increasing order) at its rank in mixed radix, as the champion ranks it
    (heron_sim.strategies.champion._pre_state: slot 0 in base n + 1, the j-th largest of the others
    in base n // (j + 1) + 1), holding its index; -1 elsewhere. Thousands of entries where the
    expert's own index has B**6 (1.8 million for ten dice)."""
    from .strategies.expert_dp import _pre_states

    pre_T, _ = _pre_states(n)
    radix = [n + 1] + [n // (j + 1) + 1 for j in range(5)]
    size = int(np.prod(radix))
    index = np.full(size, -1.0)
    for p, T in enumerate(pre_T):
        d = sorted((int(x) for x in T[1:6]), reverse=True)
        code, m = int(T[0]), n + 1
        for j in range(5):
            code += d[j] * m
            m *= radix[j + 1]
        if index[code] >= 0:
            raise AssertionError(f"two kept vectors at rank {code}")  # the radix is too narrow: a bug
        index[code] = p
    return index


def champion_block(rules, seating: list[str], seat: int, table: np.ndarray) -> np.ndarray:
    """The block of the champion at ``seat`` of ``seating`` under ``rules``, to be written after
    ``table`` (the expert's tables) in its row: its columns are absolute (the row's)."""
    from .strategies.expert_luck import AMAX

    if getattr(rules, "guides", ()):
        raise HeronSimError("strategy 'champion' does not play rules by guide yet (its worth of positions is "
                            "that of one set of rules)")
    if len(seating) > 7:
        raise HeronSimError(f"strategy 'champion': {len(seating)} seats; allowed: 2..7")
    from .strategies.expert_dp import _pre_states

    ptr, laws = _laws(rules, table)
    chains, kinds, states = _chains(rules, seating)
    n = rules.n_dice
    kept = kept_index(n)
    base = table.size
    head = np.zeros(CH_HEAD)
    head[CH_AMAX] = AMAX
    head[CH_T] = chains.shape[2]
    head[CH_PTR] = base + CH_HEAD
    head[CH_LAW] = head[CH_PTR] + ptr.size
    head[CH_HIT] = head[CH_LAW] + laws.size
    spans = _spans(chains)
    head[CH_SPAN] = head[CH_HIT] + chains.size
    head[CH_PRE] = head[CH_SPAN] + spans.size
    head[CH_NPRE] = _pre_states(n)[0].shape[0]
    if head[CH_NPRE] > PRE_MAX:
        raise HeronSimError(f"strategy 'champion': {n} dice hold {int(head[CH_NPRE])} kept vectors; it plays "
                            f"up to {PRE_MAX}")
    head[CH_ANX] = min(rules.anxiety_threshold, n + 1)
    rows = laws.reshape(-1, AMAX) > 0
    live = rows.any(axis=1)
    lspan = np.stack([np.where(live, rows.argmax(axis=1), 0),
                      np.where(live, AMAX - rows[:, ::-1].argmax(axis=1), 0)], axis=1).astype(np.float64).ravel()
    head[CH_LSPAN] = head[CH_PRE] + kept.size
    head[CH_SURV] = head[CH_LSPAN] + lspan.size
    surv = _survival(chains)
    head[CH_CLAW] = head[CH_SURV] + surv.size
    claw = _compact_laws(laws, lspan, head[CH_CLAW])
    head[CH_STATES] = states
    head[CH_FINISH] = rules.finish
    head[CH_KIND: CH_KIND + len(kinds)] = kinds
    pointers = np.where(ptr >= 0, ptr + head[CH_LAW], -1.0)
    return np.concatenate([head, pointers, laws, chains.ravel(), spans, kept, lspan, surv, claw])


register_seat_block("champion", champion_block)
