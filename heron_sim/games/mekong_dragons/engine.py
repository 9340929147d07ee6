"""Les Dragons du Mékong's numba kernels: small rule functions over arrays, one game, a batch.

Board: nodes 0..5 are the villages (always supports), nodes >= 6 islands (a support once a
stone is on it); ``dist`` float64[N, N] in plank units. Per-game state:

- ``stone`` int64[N]   1 where an island holds a stone; ``load`` int64[N] planks resting on a node;
- planks on the board, by slot: ``pa``, ``pb`` (end nodes), ``plen`` (number 1..6), ``pon``
  (1 while on the board), int64[MAXP] with MAXP = 6 * players;
- ``res`` int64[P, 7]   planks of each number (1..6) in each player's reserve;
- ``loc`` int64[P]      where each pawn is: a plank slot (>= 0) or village v as ``-1 - v``;
- ``home``/``target`` int64[P] each player's village and the village facing it;
- ``gs`` int64[NG]      stones left in the reserve, the winner.

Randomness only from the game's stream (:mod:`heron_sim.engine.rng`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.rng import below, uniform
from ..base import game_stream, keep_tied

# Cards (ids in rules.CARDS order).
STONE, STONES2, PLANK, PLANKS2, RM_STONE, RM_PLANK, MOVE, MOVE2, JUMP, DRAGON = range(10)
NCARDS = 10
# Strategies (ids in LightGame.strategies order).
S_GREEDY, S_RANDOM, S_BLOCKER = 0, 1, 2
# Integer parameters (rules.kernel_params order).
I_STONES, I_MAXLOAD, I_NPROG, I_NDRAGONS, I_MAX_ROUNDS, I_FORBID = 0, 1, 2, 3, 4, 5
#: after the ten forbidden-card flags: 1 if greedy guesses its dragon's step (rules.dragon_step).
I_DRAGON_GUESS = I_FORBID + 10
# Game fields.
G_STONES, G_WINNER = 0, 1
NG = 2
INF = 1 << 30
NV = 6
# Per-seat counters (os columns): card plays (10), then these.
C_CANCELLED, C_WATER, C_FALLEN, C_PLACED = NCARDS, NCARDS + 1, NCARDS + 2, NCARDS + 3
NOS = NCARDS + 4
# Per-game output (og).
O_WINNER, O_LENGTH, O_FINISHED, O_STONES_LEFT, O_PLANKS_ON = range(5)
NOG = 5


# ---------------------------------------------------------------- ties
#: Two values closer than this are a tie (distances are floats: symmetric gaps differ by ulps).
EPS = 1e-9


# ---------------------------------------------------------------- the board
@njit(cache=True)
def is_support(n, stone):
    """Villages are always supports; an island is one once a stone is on it."""
    return n < NV or stone[n] == 1


@njit(cache=True)
def plank_between(i, j, pa, pb, pon):
    """Slot of the plank on the board between nodes i and j, or -1."""
    for e in range(pa.size):
        if pon[e] == 1 and ((pa[e] == i and pb[e] == j) or (pa[e] == j and pb[e] == i)):
            return e
    return -1


@njit(cache=True)
def pawn_on(e, loc):
    """Seat whose pawn stands on plank slot e, or -1."""
    for q in range(loc.size):
        if loc[q] == e:
            return q
    return -1


@njit(cache=True)
def support_hops(t, pa, pb, pon, n_nodes):
    """Planks needed from each node to village t along planks on the board (INF: not linked)."""
    d = np.full(n_nodes, INF, np.int64)
    d[t] = 0
    queue = np.empty(n_nodes, np.int64)
    queue[0] = t
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for e in range(pa.size):
            if pon[e] == 1 and (pa[e] == u or pb[e] == u):
                w = pb[e] if pa[e] == u else pa[e]
                if d[w] == INF:
                    d[w] = d[u] + 1
                    queue[tail] = w
                    tail += 1
    return d


@njit(cache=True)
def pawn_hops(l, t, d, pa, pb):
    """Moves a pawn at location l needs to reach village t, given ``d`` = support_hops(t)."""
    if l < 0:
        v = -1 - l
        if v == t:
            return 0
        return INF if d[v] >= INF else d[v] + 1
    m = min(d[pa[l]], d[pb[l]])
    return INF if m >= INF else m + 1


@njit(cache=True)
def reachable(l, pa, pb, pon, n_nodes):
    """int64[N] flags: nodes the pawn at l can reach along planks (occupancy ignored)."""
    seen = np.zeros(n_nodes, np.int64)
    queue = np.empty(n_nodes, np.int64)
    tail = 0
    if l < 0:
        seen[-1 - l] = 1
        queue[0] = -1 - l
        tail = 1
    else:
        seen[pa[l]] = 1
        seen[pb[l]] = 1
        queue[0] = pa[l]
        queue[1] = pb[l]
        tail = 2
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        for e in range(pa.size):
            if pon[e] == 1 and (pa[e] == u or pb[e] == u):
                w = pb[e] if pa[e] == u else pa[e]
                if seen[w] == 0:
                    seen[w] = 1
                    queue[tail] = w
                    tail += 1
    return seen


@njit(cache=True)
def neighbours(l, pa, pb, pon, loc, me, out):
    """Where a pawn at l may step: free neighbouring planks (sharing an end) and the villages at
    its ends (a village takes any number of pawns). Writes locations into ``out``; returns the
    count. The pawn ``me`` itself does not block."""
    n = 0
    if l < 0:
        v = -1 - l
        for e in range(pa.size):
            if pon[e] == 1 and (pa[e] == v or pb[e] == v):
                q = pawn_on(e, loc)
                if q < 0 or q == me:
                    out[n] = e
                    n += 1
        return n
    a, b = pa[l], pb[l]
    for e in range(pa.size):
        if e != l and pon[e] == 1 and (pa[e] == a or pb[e] == a or pa[e] == b or pb[e] == b):
            q = pawn_on(e, loc)
            if q < 0 or q == me:
                out[n] = e
                n += 1
    if a < NV:
        out[n] = -1 - a
        n += 1
    if b < NV:
        out[n] = -1 - b
        n += 1
    return n


# ---------------------------------------------------------------- pawns
@njit(cache=True)
def fall_in_water(p, loc, home, counts):
    """The pawn falls in the water: straight back to its home village."""
    loc[p] = -1 - home[p]
    counts[p, C_WATER] += 1


@njit(cache=True)
def choose_step(p, opts, n, target, pa, pb, pon, n_nodes, strat, state):
    """Index into opts of p's step: greedy the one fewest moves from its target village
    (ties: uniformly at random), random any."""
    if strat[p] == S_RANDOM:
        return below(state, n)
    d = support_hops(target[p], pa, pb, pon, n_nodes)
    best, bh, nt = 0, INF + 1, 0
    for i in range(n):
        h = pawn_hops(opts[i], target[p], d, pa, pb)
        if h < bh:
            best, bh, nt = i, h, 1
        elif h == bh:
            nt += 1
            if keep_tied(nt, state):
                best = i
    return best


@njit(cache=True)
def act_move(p, steps, loc, home, target, pa, pb, pon, n_nodes, strat, counts, state):
    """Move the pawn ``steps`` planks (1 or 2), each to a free neighbouring plank or a village;
    going back to the starting place is allowed. No free neighbour: the pawn falls in the
    water. Returns True if the pawn reached its target village (the game is won)."""
    opts = np.empty(pa.size + 2, np.int64)
    for _ in range(steps):
        n = neighbours(loc[p], pa, pb, pon, loc, p, opts)
        if n == 0:
            fall_in_water(p, loc, home, counts)
            return False
        loc[p] = opts[choose_step(p, opts, n, target, pa, pb, pon, n_nodes, strat, state)]
        if loc[p] == -1 - target[p]:
            return True
    return False


@njit(cache=True)
def act_jump(p, loc, home, target, pa, pb, pon, n_nodes, strat, counts, state):
    """Jump over a pawn on a neighbouring plank (sharing an end with p's place) to a free plank
    beyond it (touching that plank's other end). No pawn to jump over, or nowhere free to land:
    the pawn falls in the water. Returns True if the landing wins (never: planks only)."""
    opts = np.empty(pa.size, np.int64)
    n = 0
    l = loc[p]
    for f in range(pa.size):
        if pon[f] == 0 or f == l or pawn_on(f, loc) < 0:
            continue
        # the end s of f that p's place touches, and the far end t
        for side in range(2):
            s = pa[f] if side == 0 else pb[f]
            t = pb[f] if side == 0 else pa[f]
            touches = (l < 0 and -1 - l == s) or (l >= 0 and (pa[l] == s or pb[l] == s))
            if not touches:
                continue
            for g in range(pa.size):
                if pon[g] == 1 and g != f and g != l and (pa[g] == t or pb[g] == t) \
                        and pawn_on(g, loc) < 0:
                    opts[n] = g
                    n += 1
    if n == 0:
        fall_in_water(p, loc, home, counts)
        return False
    loc[p] = opts[choose_step(p, opts, n, target, pa, pb, pon, n_nodes, strat, state)]
    return False


# ---------------------------------------------------------------- stones
@njit(cache=True)
def frontier(p, loc, target, pa, pb, pon, dist):
    """Distance to p's target village from the nearest node p's pawn can reach."""
    seen = reachable(loc[p], pa, pb, pon, dist.shape[0])
    best = np.inf
    for n in range(dist.shape[0]):
        if seen[n] == 1 and dist[n, target[p]] < best:
            best = dist[n, target[p]]
    return best, seen


@njit(cache=True)
def act_place_stone(p, stone, load, gs, loc, target, pa, pb, pon, res, dist, strat, state):
    """Place a stone of the reserve on a free island (never a village). Greedy: the island
    nearest its target within reach of its longest plank from where its pawn can get; random:
    any free island. Returns the island, or -1 if no stone or no free island is left."""
    n_nodes = dist.shape[0]
    if gs[G_STONES] == 0:
        return -1
    n_free = 0
    for n in range(NV, n_nodes):
        if stone[n] == 0:
            n_free += 1
    if n_free == 0:
        return -1
    pick = -1
    if strat[p] == S_RANDOM:
        k = below(state, n_free)
        for n in range(NV, n_nodes):
            if stone[n] == 0:
                if k == 0:
                    pick = n
                    break
                k -= 1
    else:
        front, seen = frontier(p, loc, target, pa, pb, pon, dist)
        reach = 0
        for length in range(6, 0, -1):
            if res[p, length] > 0:
                reach = length
                break
        mine = np.empty(n_nodes, np.int64)  # the supports p's pawn can reach
        n_mine = 0
        for m in range(n_nodes):
            if seen[m] == 1 and is_support(m, stone):
                mine[n_mine] = m
                n_mine += 1
        best = -np.inf
        nt = 0
        for n in range(NV, n_nodes):
            if stone[n] != 0:
                continue
            near = np.inf
            for k in range(n_mine):
                if dist[mine[k], n] < near:
                    near = dist[mine[k], n]
            # out of reach, a stone is best near what its pawn can reach (a later plank fits)
            v = front - dist[n, target[p]] if near <= reach else -100.0 - near
            if v > best + EPS:
                best, pick, nt = v, n, 1
            elif v >= best - EPS:
                nt += 1
                if keep_tied(nt, state):
                    pick = n
    stone[pick] = 1
    gs[G_STONES] -= 1
    return pick


@njit(cache=True)
def act_remove_stone(p, stone, load, gs, loc, target, pa, pb, pon, dist, strat, state):
    """Optionally take a stone no plank rests on back to the reserve. Greedy removes the one
    that helps an opponent most and itself least (only if it helps them more), or, when the
    reserve is empty, the one farthest from its own target; random removes any such stone.
    Returns the island, or -1."""
    n_nodes = dist.shape[0]
    n_players = loc.size
    pick = -1
    if strat[p] == S_RANDOM:
        n_ok = 0
        for n in range(NV, n_nodes):
            if stone[n] == 1 and load[n] == 0:
                n_ok += 1
        if n_ok == 0:
            return -1
        k = below(state, n_ok)
        for n in range(NV, n_nodes):
            if stone[n] == 1 and load[n] == 0:
                if k == 0:
                    pick = n
                    break
                k -= 1
    else:
        # with the reserve empty any stone is worth having back: the farthest from its target
        best = 0.0 if gs[G_STONES] > 0 else -np.inf
        nt = 0
        for n in range(NV, n_nodes):
            if stone[n] != 1 or load[n] != 0:
                continue
            v = -np.inf  # the stone's value: the most it helps one opponent
            for q in range(n_players):
                if q == p:
                    continue
                w = dist[n, target[p]] - dist[n, target[q]] if gs[G_STONES] > 0 else dist[n, target[p]]
                v = max(v, w)
            if v > best + EPS:
                best, pick, nt = v, n, 1
            elif pick >= 0 and v >= best - EPS:
                nt += 1
                if keep_tied(nt, state):
                    pick = n
        if pick < 0:
            return -1
    stone[pick] = 0
    gs[G_STONES] += 1
    return pick


# ---------------------------------------------------------------- planks
@njit(cache=True)
def plank_fits(length, d):
    """A plank numbered ``length`` rests on supports ``d`` plank units apart iff d <= length."""
    return d <= length + 1e-9


@njit(cache=True)
def choose_plank(p, d, res, judgement, strat, state):
    """Number of the plank p takes from its reserve for a gap of true length d, judged blind as
    d * (1 + e), e uniform in [-judgement, judgement]: greedy the shortest plank that looks long
    enough (else its longest), random any. Returns 0 if the reserve is empty."""
    total = 0
    for length in range(1, 7):
        total += res[p, length]
    if total == 0:
        return 0
    if strat[p] == S_RANDOM:
        k = below(state, total)
        for length in range(1, 7):
            if k < res[p, length]:
                return length
            k -= res[p, length]
    seen = d * (1.0 + judgement * (2.0 * uniform(state) - 1.0))
    longest = 0
    for length in range(1, 7):
        if res[p, length] > 0:
            longest = length
            if length >= seen:
                return length
    return longest


@njit(cache=True)
def pair_ok(i, j, stone, load, maxload, pa, pb, pon):
    """A plank may rest on i and j: two stones or a village and a stone, each stone carrying
    fewer than ``maxload`` planks, no plank already between them."""
    if i == j or not is_support(i, stone) or not is_support(j, stone):
        return False
    if i < NV and j < NV:
        return False
    if (i >= NV and load[i] >= maxload) or (j >= NV and load[j] >= maxload):
        return False
    return plank_between(i, j, pa, pb, pon) < 0


@njit(cache=True)
def lay_plank(p, i, j, length, stone, load, pa, pb, plen, pon, res, dist, counts):
    """p lays plank ``length`` on i and j: it rests if long enough, else falls in the water and
    is lost for good. Returns the slot, or -1 if it fell."""
    res[p, length] -= 1
    if not plank_fits(length, dist[i, j]):
        counts[p, C_FALLEN] += 1
        return -1
    for e in range(pon.size):
        if pon[e] == 0:
            pa[e], pb[e], plen[e], pon[e] = i, j, length, 1
            load[i] += 1
            load[j] += 1
            counts[p, C_PLACED] += 1
            return e
    return -1


@njit(cache=True)
def act_place_plank(p, stone, load, ip, loc, target, pa, pb, plen, pon, res, dist, judgement,
                    strat, counts, state):
    """Place one plank of p's reserve on a legal pair of supports (mandatory while there is one).
    Greedy: the pair that brings the supports its pawn can reach nearest its target village, a
    gap its longest plank spans; random: any legal pair and any plank."""
    n_nodes = dist.shape[0]
    longest = 0
    for length in range(1, 7):
        if res[p, length] > 0:
            longest = length
    if longest == 0:
        return -1
    sup = np.empty(n_nodes, np.int64)  # the supports, in node order
    ns = 0
    for i in range(n_nodes):
        if is_support(i, stone):
            sup[ns] = i
            ns += 1
    bi, bj = -1, -1
    if strat[p] == S_RANDOM:
        n_ok = 0
        for a in range(ns):
            for b in range(a + 1, ns):
                i, j = sup[a], sup[b]
                if dist[i, j] <= 6.0 + 1e-9 and pair_ok(i, j, stone, load, ip[I_MAXLOAD], pa, pb, pon):
                    n_ok += 1
        if n_ok == 0:
            return -1
        k = below(state, n_ok)
        for a in range(ns):
            for b in range(a + 1, ns):
                i, j = sup[a], sup[b]
                if dist[i, j] <= 6.0 + 1e-9 and pair_ok(i, j, stone, load, ip[I_MAXLOAD], pa, pb, pon):
                    if k == 0:
                        bi, bj = i, j
                    k -= 1
    else:
        front, seen = frontier(p, loc, target, pa, pb, pon, dist)
        t = target[p]
        best = -np.inf
        nt = 0
        for a in range(ns):
            for b in range(a + 1, ns):
                i, j = sup[a], sup[b]
                if dist[i, j] > 6.0 + 1e-9 or not pair_ok(i, j, stone, load, ip[I_MAXLOAD], pa, pb, pon):
                    continue
                if seen[i] == 1 and seen[j] == 0:
                    v = front - dist[j, t]
                elif seen[j] == 1 and seen[i] == 0:
                    v = front - dist[i, t]
                elif seen[i] == 0:
                    v = -20.0 - min(dist[i, t], dist[j, t])  # a plank ahead, for later
                else:
                    v = -50.0                                 # both ends already reachable
                if dist[i, j] > longest:
                    v -= 100.0                                # no plank of ours spans it
                if v > best + EPS:
                    best, bi, bj, nt = v, i, j, 1
                elif v >= best - EPS:
                    nt += 1
                    if keep_tied(nt, state):
                        bi, bj = i, j
    if bi < 0:
        return -1
    length = choose_plank(p, dist[bi, bj], res, judgement, strat, state)
    return lay_plank(p, bi, bj, length, stone, load, pa, pb, plen, pon, res, dist, counts)


@njit(cache=True)
def act_remove_plank(p, load, gs, loc, target, pa, pb, plen, pon, res, dist, strat, state):
    """Optionally take a plank no pawn stands on into p's own reserve. Greedy takes the one
    that shortens an opponent's route most and is not on its own way forward (if any), or,
    holding fewer than two planks (or with fewer than two stones in the reserve), the longest
    plank off its own way, better one whose removal frees a stone; random, any free plank.
    Returns the slot, or -1."""
    n_nodes = dist.shape[0]
    n_players = loc.size
    pick = -1
    if strat[p] == S_RANDOM:
        n_ok = 0
        for e in range(pon.size):
            if pon[e] == 1 and pawn_on(e, loc) < 0:
                n_ok += 1
        if n_ok == 0:
            return -1
        k = below(state, n_ok)
        for e in range(pon.size):
            if pon[e] == 1 and pawn_on(e, loc) < 0:
                if k == 0:
                    pick = e
                    break
                k -= 1
    else:
        mine = reachable(loc[p], pa, pb, pon, n_nodes)
        dme = support_hops(target[p], pa, pb, pon, n_nodes)
        n_res = 0
        for length in range(1, 7):
            n_res += res[p, length]
        # short of planks, any plank off its own way will do (the longest); else only one
        # that shortens an opponent's way more than it would shorten its own
        short = n_res < 2 or gs[G_STONES] < 2  # no planks, or stones locked under planks
        best = -np.inf if short else 0.0
        nt = 0
        for e in range(pon.size):
            if pon[e] == 0 or pawn_on(e, loc) >= 0:
                continue
            a, b = pa[e], pb[e]
            if mine[a] == 1 and mine[b] == 1 and abs(dme[a] - dme[b]) == 1:
                continue  # a plank on its own way forward is worth keeping
            v = 0.1 * plen[e] if short else -np.inf
            if short and gs[G_STONES] < 2 and ((a >= NV and load[a] == 1) or (b >= NV and load[b] == 1)):
                v += 1.0  # frees a stone
            for q in range(n_players):
                if q == p:
                    continue
                theirs = reachable(loc[q], pa, pb, pon, n_nodes)
                if theirs[a] == 1 and theirs[b] == 1:
                    # both ends alike (which end is ``a`` only depends on node numbers)
                    w = min(dist[a, target[p]], dist[b, target[p]]) \
                        - min(dist[a, target[q]], dist[b, target[q]]) + 0.1 * plen[e]
                    if w > v:
                        v = w
            if v > best + EPS:
                best, pick, nt = v, e, 1
            elif pick >= 0 and v >= best - EPS:
                nt += 1
                if keep_tied(nt, state):
                    pick = e
        if pick < 0:
            return -1
    load[pa[pick]] -= 1
    load[pb[pick]] -= 1
    pon[pick] = 0
    res[p, plen[pick]] += 1
    return pick


# ---------------------------------------------------------------- programming
@njit(cache=True)
def program_random(p, prog, dtarget, ip, n_players, state):
    """Five cards in random order from the nine actions and the dragons of the other colours
    (one per opponent), at most ``max_dragons_programmed`` dragons."""
    n_deck = 9 + n_players - 1
    deck = np.arange(n_deck)
    for i in range(n_deck - 1, 0, -1):
        j = below(state, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    k = 0
    dragons = 0
    dtarget[p] = -1
    for c in deck:
        if k == ip[I_NPROG]:
            break
        card = c if c < 9 else DRAGON
        if p == 0 and ip[I_FORBID + card] == 1:
            continue
        if card == DRAGON:
            if dragons >= ip[I_NDRAGONS]:
                continue
            dragons += 1
            q = c - 9
            dtarget[p] = q if q < p else q + 1
        prog[p, k] = card
        k += 1
    for i in range(k, prog.shape[1]):
        prog[p, i] = -1


@njit(cache=True)
def program_greedy(p, prog, dtarget, ip, loc, target, pa, pb, pon, res, gs, n_nodes, state, block=False):
    """Greedy's five cards: moves first when its pawn is linked to its target village,
    otherwise build (stones, planks) then move; takes planks back when short of them; a dragon
    on the opponent nearest to winning (at the first card, when greedy opponents move) when
    that opponent is within three moves and no farther than itself; and a plank taken from the
    way of an opponent linked to its village and nearer to it than itself. Ties between
    leaders are broken at random. Programmes are hidden and simultaneous: with
    ``dragon_step = "guess"`` greedy cannot know at which step the leader will move, so its
    dragon goes to a uniformly random step of its programme (``"first"``: always the first).

    ``block`` (the blocker): the leader is the opponent nearest its village, ties to the first
    after ``p`` in seat order (no draw); a dragon on it whenever it is within four moves and
    no farther than one move more than itself; a plank taken from its way first whenever it
    is no farther than itself; then greedy's building and moving.

    The steps: the leader (:func:`race_leader`), the cards wished for in order
    (:func:`greedy_wishes`), the programme made of them (:func:`fill_programme`), the dragon's
    step (:func:`place_dragon`)."""
    d = support_hops(target[p], pa, pb, pon, n_nodes)
    mine = pawn_hops(loc[p], target[p], d, pa, pb)
    leader, lh = race_leader(p, loc, target, pa, pb, pon, n_nodes, state, block)
    dragon = ip[I_NDRAGONS] > 0 and ((lh <= 4 and lh <= mine + 1) if block else (lh <= 3 and lh <= mine))
    dtarget[p] = -1
    if dragon:
        dtarget[p] = leader
    plan, k = greedy_wishes(p, mine, lh, dragon, res, gs, block)
    n = fill_programme(p, prog, plan, k, ip)
    if dtarget[p] >= 0:
        place_dragon(p, prog, dtarget, n, ip, state)


@njit(cache=True)
def race_leader(p, loc, target, pa, pb, pon, n_nodes, state, block):
    """The opponent nearest to winning as (seat, its moves to its village over the supports
    laid now; ``INF`` if it has no way). Greedy looks at the opponents in seat order (``p``
    left out) and breaks ties at random (:func:`keep_tied`); the blocker looks from the seat
    after ``p`` round the table and keeps the first (no draw)."""
    leader, lh, nt = -1, INF, 0
    n_players = loc.size
    for j in range(1, n_players):
        q = (p + j) % n_players if block else j - 1 + (1 if j - 1 >= p else 0)
        dq = support_hops(target[q], pa, pb, pon, n_nodes)
        h = pawn_hops(loc[q], target[q], dq, pa, pb)
        if h < lh:
            leader, lh, nt = q, h, 1
        elif h == lh and not block:
            nt += 1
            if keep_tied(nt, state):
                leader = q
    return leader, lh


@njit(cache=True)
def greedy_wishes(p, mine, lh, dragon, res, gs, block):
    """The cards greedy wants, most wanted first, as (cards, how many; repeats allowed): the
    dragon if ``dragon``; a plank taken from the leader's way when the leader (``lh`` moves
    from its village) is nearer than ``p`` (``mine`` moves; the blocker: no farther); then,
    linked to its village, moves before building; not linked, two stones (with fewer than two
    in the reserve: a plank taken back and a stone freed instead), then two planks and moves
    when it holds two planks or more, else a plank taken back, a plank and moves."""
    n_planks = 0
    for length in range(1, 7):
        n_planks += res[p, length]
    plan = np.empty(16, np.int64)
    k = 0
    if dragon:
        plan[k] = DRAGON
        k += 1
    if (lh <= mine if block else lh < mine) and lh < INF:  # cut the leader's way before it walks it
        plan[k] = RM_PLANK
        k += 1
    if mine < INF:
        for c in (MOVE2, MOVE, PLANK, STONE, PLANKS2, RM_PLANK, STONES2):
            plan[k] = c
            k += 1
    else:
        if gs[G_STONES] < 2:  # no stones to build with: free one and take it back first
            plan[k] = RM_PLANK
            plan[k + 1] = RM_STONE
            k += 2
        first = STONES2 if gs[G_STONES] >= 2 else RM_PLANK
        plan[k] = first
        k += 1
        if n_planks >= 2:
            for c in (PLANKS2, MOVE2, PLANK, MOVE, RM_PLANK, STONE):
                plan[k] = c
                k += 1
        else:
            for c in (RM_PLANK, PLANK, MOVE2, STONE, MOVE, PLANKS2):
                if c != first:
                    plan[k] = c
                    k += 1
    return plan, k


@njit(cache=True)
def fill_programme(p, prog, plan, k, ip):
    """Writes p's programme ``prog[p]`` from the first ``k`` wishes of ``plan``: each card once,
    in the order wished, up to ``cards_programmed`` (seat 0 skips its forbidden cards); then
    topped up with the cards not yet used, lowest id first (forbidden ones aside); the unused
    steps -1. Returns the number of cards programmed."""
    n = 0
    for i in range(k):
        c = plan[i]
        if p == 0 and ip[I_FORBID + c] == 1:
            continue
        dup = False
        for j in range(n):
            if prog[p, j] == c:
                dup = True
        if dup:
            continue
        if n < ip[I_NPROG]:
            prog[p, n] = c
            n += 1
    for c in range(9):  # top up with cards not yet used (forbidden ones aside)
        if n >= ip[I_NPROG]:
            break
        if p == 0 and ip[I_FORBID + c] == 1:
            continue
        dup = False
        for j in range(n):
            if prog[p, j] == c:
                dup = True
        if not dup:
            prog[p, n] = c
            n += 1
    for i in range(n, prog.shape[1]):
        prog[p, i] = -1
    return n


@njit(cache=True)
def place_dragon(p, prog, dtarget, n, ip, state):
    """The step of greedy's dragon among its ``n`` programmed cards: none (``dtarget[p] = -1``)
    if the dragon did not make the programme; with ``dragon_step = "guess"`` it moves to a
    uniformly random step, the cards between shifting by one (``"first"``: it stays where it
    was wished, first)."""
    at = -1
    for i in range(n):
        if prog[p, i] == DRAGON:
            at = i
    if at < 0:
        dtarget[p] = -1
    elif ip[I_DRAGON_GUESS] == 1 and n > 1:
        j = below(state, n)              # the guessed step: move the dragon there
        c = prog[p, at]
        if j < at:
            for i in range(at, j, -1):
                prog[p, i] = prog[p, i - 1]
        else:
            for i in range(at, j):
                prog[p, i] = prog[p, i + 1]
        prog[p, j] = c


# ---------------------------------------------------------------- resolution
@njit(cache=True)
def cancelled_at(step, prog, dtarget):
    """bool[P]: whose card of this step a dragon cancels. A dragon cancels the action card of
    the player of its colour at the same step; it never cancels a dragon."""
    n_players = prog.shape[0]
    out = np.zeros(n_players, np.bool_)
    for q in range(n_players):
        if prog[q, step] == DRAGON and dtarget[q] >= 0:
            t = dtarget[q]
            if prog[t, step] != DRAGON and prog[t, step] >= 0:
                out[t] = True
    return out


@njit(cache=True)
def execute(p, card, stone, load, gs, ip, loc, home, target, pa, pb, plen, pon, res, dist,
            judgement, strat, counts, state):
    """Carry out p's action card; returns True if p has won."""
    n_nodes = dist.shape[0]
    if card == STONE or card == STONES2:
        for _ in range(1 if card == STONE else 2):
            act_place_stone(p, stone, load, gs, loc, target, pa, pb, pon, res, dist, strat, state)
    elif card == PLANK or card == PLANKS2:
        for _ in range(1 if card == PLANK else 2):
            act_place_plank(p, stone, load, ip, loc, target, pa, pb, plen, pon, res, dist,
                            judgement, strat, counts, state)
    elif card == RM_STONE:
        act_remove_stone(p, stone, load, gs, loc, target, pa, pb, pon, dist, strat, state)
    elif card == RM_PLANK:
        act_remove_plank(p, load, gs, loc, target, pa, pb, plen, pon, res, dist, strat, state)
    elif card == MOVE or card == MOVE2:
        return act_move(p, 1 if card == MOVE else 2, loc, home, target, pa, pb, pon, n_nodes,
                        strat, counts, state)
    elif card == JUMP:
        return act_jump(p, loc, home, target, pa, pb, pon, n_nodes, strat, counts, state)
    return False


@njit(cache=True)
def play_round(first, prog, dtarget, stone, load, gs, ip, loc, home, target, pa, pb, plen, pon,
               res, dist, judgement, strat, counts, state):
    """One round: everyone programs (on the same board, before any card is revealed), then
    the cards are resolved. Returns the winner or -1."""
    n_players = loc.size
    n_nodes = dist.shape[0]
    for p in range(n_players):
        if strat[p] == S_RANDOM:
            program_random(p, prog, dtarget, ip, n_players, state)
        else:
            program_greedy(p, prog, dtarget, ip, loc, target, pa, pb, pon, res, gs, n_nodes, state,
                           strat[p] == S_BLOCKER)
    return resolve(first, prog, dtarget, stone, load, gs, ip, loc, home, target, pa, pb, plen,
                   pon, res, dist, judgement, strat, counts, state)


@njit(cache=True)
def resolve(first, prog, dtarget, stone, load, gs, ip, loc, home, target, pa, pb, plen, pon,
            res, dist, judgement, strat, counts, state):
    """Reveal the programmed cards step by step; at each step, the player holding the
    statuette (``first``) acts first, then the others leftwards, unless a dragon of the same
    step cancels their card. Returns the winner (the game ends at once) or -1."""
    n_players = loc.size
    for step in range(ip[I_NPROG]):
        cancel = cancelled_at(step, prog, dtarget)
        for k in range(n_players):
            p = (first + k) % n_players
            card = prog[p, step]
            if card < 0:
                continue
            counts[p, card] += 1
            if card == DRAGON:
                continue
            if cancel[p]:
                counts[p, C_CANCELLED] += 1
                continue
            if execute(p, card, stone, load, gs, ip, loc, home, target, pa, pb, plen, pon, res,
                       dist, judgement, strat, counts, state):
                return p
    return -1


@njit(cache=True)
def play_game(seed, g, strat, home, ip, dist, judgement, og, os):
    """Play game g of master seed ``seed``. Seat 0 (the youngest) starts with the statuette,
    which passes left each round. Writes og int64[NOG] and os int64[P, NOS]; length in rounds."""
    n_players = strat.size
    n_nodes = dist.shape[0]
    state = game_stream(seed, g)
    maxp = 6 * n_players
    stone = np.zeros(n_nodes, np.int64)
    load = np.zeros(n_nodes, np.int64)
    pa = np.zeros(maxp, np.int64)
    pb = np.zeros(maxp, np.int64)
    plen = np.zeros(maxp, np.int64)
    pon = np.zeros(maxp, np.int64)
    res = np.zeros((n_players, 7), np.int64)
    res[:, 1:] = 1
    loc = np.empty(n_players, np.int64)
    target = np.empty(n_players, np.int64)
    for p in range(n_players):
        loc[p] = -1 - home[p]
        target[p] = (home[p] + 3) % NV
    gs = np.zeros(NG, np.int64)
    gs[G_STONES] = ip[I_STONES]
    gs[G_WINNER] = -1
    prog = np.full((n_players, 9), -1, np.int64)
    dtarget = np.full(n_players, -1, np.int64)
    counts = os
    counts[:, :] = 0
    winner = -1
    rounds = 0
    for r in range(ip[I_MAX_ROUNDS]):
        rounds = r + 1
        winner = play_round(r % n_players, prog, dtarget, stone, load, gs, ip, loc, home, target,
                            pa, pb, plen, pon, res, dist, judgement, strat, counts, state)
        if winner >= 0:
            break
    og[O_WINNER] = winner
    og[O_LENGTH] = rounds
    og[O_FINISHED] = 1 if winner >= 0 else 0
    og[O_STONES_LEFT] = gs[G_STONES]
    og[O_PLANKS_ON] = pon.sum()


@njit(cache=True, nogil=True)  # games.base.play_slices runs slices in threads
def play_batch(seed, first_game, strat, home, ip, dist, judgement, og, os):
    """Games first_game .. first_game + len(og) - 1; game i uses only the stream (seed, i)."""
    for i in range(og.shape[0]):
        play_game(seed, first_game + i, strat, home, ip, dist, judgement, og[i], os[i])
