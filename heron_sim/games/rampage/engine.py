"""Rampage's numba kernels: small rule functions over arrays, one game, a batch.

Per-game state (allocated by :func:`new_state`, filled by :func:`setup`):

- ``pl``  int64[P, NPF]   per-monster fields (``DIST``, ``TEETH``, ... below);
- ``sto`` int64[P, 6]     meeples in each stomach, by colour;
- ``bm``  int64[B, LMAX, 6] meeples of building b standing on level k (level 0: on the ruin,
  holding floor 1; level k >= 1: on floor k, holding floor k+1 or, on the top floor, the roof
  meeples); ``fl`` int64[B]: floors still standing (the top floor is ``fl[b]``);
- ``ground`` int64[D, 6]  meeples in each district's streets (free: they can be eaten; with
  ``edible = "free"`` so can the meeples on a building's top floor, which hold nothing up);
- ``veh`` int64[V]        district of each vehicle;
- ``gs``  int64[NG]       game fields (escape board, end flags).

Colours: 0 black, 1 grey, 2 red, 3 blue, 4 green, 5 yellow. Randomness only from the game's
stream (:mod:`heron_sim.engine.rng`); every dexterity outcome is a draw with the acting
monster's skill-dependent probability ``pp[p, k]`` (k in :data:`.rules.SKILL_PAIRS` order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.rng import below, uniform
from ..base import game_stream, keep_tied

BLACK, GREY, RED, BLUE, GREEN, YELLOW = range(6)
NC = 6

# Player fields.
DIST, TEETH, COLLECTED, FLOORS, FALLEN, EXTRA, CARDS, HAS_CHAR, CHAR_COL, CORNER, LOST, \
    TOPPLES, ESCAPES, EATEN = range(14)
NPF = 14
# Game fields: escaped meeples (face A), the face-A line-6 loser, ended flag, buildings
# captured, face-B zones (6), lines/zones completed.
G_ESCAPED, G_LOSER, G_ENDED, G_CAPTURED, G_ZONE, G_FIRES = 0, 1, 2, 3, 4, 10
NG = 11
# Integer parameters (ip), in RampageRules.kernel_arrays order.
I_FACE, I_LINE, I_ZONE, I_TEETH, I_CARDS, I_PER_COLOUR, I_PER_LEVEL, I_ROOF, I_STADIUM, \
    I_END_BUILDINGS, I_MAX_ROUNDS, I_SET_PTS, I_FLOOR_PTS, I_TOOTH_PTS, I_CHAR_PTS, \
    I_THROW_N, I_DROP_N, I_BLOW_N, I_EDIBLE_FREE, I_OBSTACLES = range(20)
# Then the extra teeth of seats 1-4 (seat_teeth): ip[I_SEAT_TEETH + p].
I_SEAT_TEETH = 20
# Skill-dependent probabilities (pp columns), in SKILL_PAIRS order.
K_MOVE_OK, K_MOVE_OFF, K_MOVE_TOPPLE, K_THROW_HIT_B, K_THROW_HIT_M, K_THROW_Q, K_VEH_OFF, \
    K_THROW_ESC, K_DROP_HIT, K_DROP_Q, K_DROP_ESC, K_DROP_TOPPLE, K_BLOW_Q, K_BLOW_ESC, \
    K_BLOW_STREET, K_BLOW_TOPPLE = range(16)
# Actions.
MOVE, THROW, DROP, BLOW = range(4)
ACTION_NAMES = ("move", "throw", "drop", "blow")
# Strategies (ids in LightGame.strategies order).
S_GREEDY, S_RANDOM, S_WRECKER = 0, 1, 2
# End reasons.
END_BUILDINGS, END_LINE6, END_CAP = 0, 1, 2
LMAX = 8

# Per-game output columns (og) and per-seat output columns (os).
O_WINNER, O_LENGTH, O_FINISHED, O_REASON, O_ESCAPED, O_FIRES, O_TURNS = range(7)
NOG = 7
S_SCORE, S_SETS, S_FLOORS, S_TEETH, S_CHAR, S_EATEN, S_LOST, S_TOPPLES, S_ESCAPES, S_LOSER, \
    S_ACT_MOVE, S_ACT_THROW, S_ACT_DROP, S_ACT_BLOW = range(14)
NOS = 14


# ---------------------------------------------------------------- small draws
@njit(cache=True)
def binomial(n, q, state):
    """Number of successes in n draws of probability q (a dexterity outcome's damage)."""
    k = 0
    for _ in range(n):
        if uniform(state) < q:
            k += 1
    return k


@njit(cache=True)
def pick_colour(counts, state):
    """Colour of one meeple drawn uniformly from ``counts`` (int64[6], total > 0)."""
    r = below(state, counts.sum())
    for c in range(NC):
        if r < counts[c]:
            return c
        r -= counts[c]
    return NC - 1


# ---------------------------------------------------------------- teeth and toppling
@njit(cache=True)
def lose_teeth(pl, p, n):
    """Monster p loses n teeth to the box (never below 0); returns how many it lost."""
    k = min(n, pl[p, TEETH])
    pl[p, TEETH] -= k
    pl[p, LOST] += k
    return k


@njit(cache=True)
def topple(pl, actor, victim):
    """``actor`` knocks ``victim``'s body over and breaks one of its teeth into its collection.

    A fallen body stays an obstacle until its owner's next turn: it cannot fall again before,
    so a monster loses at most one tooth this way per round. Returns True if a tooth was won.
    """
    if actor == victim or pl[victim, FALLEN] == 1:
        return False
    pl[victim, FALLEN] = 1
    pl[actor, TOPPLES] += 1
    if pl[victim, TEETH] > 0:
        pl[victim, TEETH] -= 1
        pl[victim, LOST] += 1
        pl[actor, COLLECTED] += 1
        return True
    return False


# ---------------------------------------------------------------- ties
#: Two values closer than this are a tie.
EPS = 1e-9


# ---------------------------------------------------------------- district values (heuristics)
@njit(cache=True)
def district_value(d, teeth, ground, fl, b_dist, veh, adj):
    """The greedy heuristic's worth of standing in district d: meeples it could eat now,
    standing buildings to demolish (here, or next door: one step closer to them), a vehicle."""
    v = 1.2 * min(ground[d].sum(), teeth)
    near = 0.0
    for b in range(fl.size):
        if fl[b] > 0:
            if b_dist[b] == d:
                near = 3.0
                break
            if adj[d, b_dist[b]] == 1:
                near = 1.0
    v += near
    if near > 0.0:  # a vehicle only helps with a building in throwing range
        for i in range(veh.size):
            if veh[i] == d:
                v += 1.0
                break
    return v


@njit(cache=True)
def relocate(mover, victim, other, pl, sto, ground, fl, b_dist, veh, adj, strat, state):
    """The ``mover`` puts ``victim``'s monster in a district of its choice (``other``: it must
    change district). Greedy picks the district worth least to the victim; random, any."""
    nd = ground.shape[0]
    cur = pl[victim, DIST]
    if strat[mover] == S_RANDOM:
        if other:
            d = below(state, nd - 1)
            if d >= cur:
                d += 1
        else:
            d = below(state, nd)
    else:
        d = -1
        best = 1e18
        for e in range(nd):
            if other and e == cur:
                continue
            v = district_value(e, pl[victim, TEETH], ground, fl, b_dist, veh, adj)
            if v < best:
                best = v
                d = e
    pl[victim, DIST] = d
    pl[victim, CORNER] = -1


# ---------------------------------------------------------------- the escape board
@njit(cache=True)
def remove_from_stomach(p, n, pl, sto, strat, state):
    """Red zone: monster p puts n meeples of its stomach back in the box (its choice: greedy
    gives up its most plentiful colours, which breaks the fewest sets; random, any)."""
    for _ in range(n):
        total = sto[p].sum()
        if total == 0:
            return
        if strat[p] == S_RANDOM:
            c = pick_colour(sto[p], state)
        else:
            c = 0
            for e in range(1, NC):
                if sto[p, e] > sto[p, c] or (sto[p, e] == sto[p, c] and c == pl[p, CHAR_COL]):
                    c = e
        sto[p, c] -= 1


@njit(cache=True)
def discard_card(p, pl, strat, state):
    """Blue zone: discard one card of p's choice; only the character card scores, so greedy
    keeps it while it holds another card; random discards any card."""
    if pl[p, CARDS] == 0:
        return
    if strat[p] == S_RANDOM:
        lose_char = pl[p, HAS_CHAR] == 1 and below(state, pl[p, CARDS]) == 0
    else:
        lose_char = pl[p, HAS_CHAR] == 1 and pl[p, CARDS] == 1
    if lose_char:
        pl[p, HAS_CHAR] = 0
    pl[p, CARDS] -= 1


@njit(cache=True)
def escape(c, p, pl, sto, gs, ip, ground, fl, b_dist, veh, adj, strat, state):
    """A meeple of colour c leaves the city during p's turn: place it on the escape board and
    apply what it completes to p (face A: lines; face B: colour zones)."""
    n_players = pl.shape[0]
    nxt = (p + 1) % n_players
    pl[p, ESCAPES] += 1
    if ip[I_FACE] == 0:
        gs[G_ESCAPED] += 1
        if gs[G_ESCAPED] % ip[I_LINE] != 0:
            return
        line = gs[G_ESCAPED] // ip[I_LINE]
        gs[G_FIRES] += 1
        if line == 1 or line == 4:
            lose_teeth(pl, p, 1)
            relocate(nxt, p, False, pl, sto, ground, fl, b_dist, veh, adj, strat, state)
        elif line == 2 or line == 5:
            lose_teeth(pl, p, 1)
            for q in range(n_players):
                if q != p:
                    pl[q, EXTRA] += 1
        elif line == 3:
            lose_teeth(pl, p, 2)
        else:  # line 6: the game ends at once and p loses
            gs[G_LOSER] = p
            gs[G_ENDED] = 1
        return
    gs[G_ESCAPED] += 1
    if c == GREY:  # old people do not run away: back to the box
        return
    gs[G_ZONE + c] += 1
    if gs[G_ZONE + c] < ip[I_ZONE]:
        return
    gs[G_ZONE + c] = 0  # the zone's meeples go back to the box
    gs[G_FIRES] += 1
    if c == RED:
        lose_teeth(pl, p, 1)
        remove_from_stomach(p, 4, pl, sto, strat, state)
    elif c == BLUE:
        lose_teeth(pl, p, 1)
        discard_card(p, pl, strat, state)
    elif c == GREEN:
        lose_teeth(pl, p, 2)
    elif c == YELLOW:
        lose_teeth(pl, p, 1)
        for q in range(n_players):
            if q != p:
                pl[q, EXTRA] += 1
    else:  # BLACK
        lose_teeth(pl, p, 1)
        relocate(nxt, p, True, pl, sto, ground, fl, b_dist, veh, adj, strat, state)


# ---------------------------------------------------------------- buildings
@njit(cache=True)
def settle(b, p, pl, bm, fl, ground, b_dist, gs):
    """Award p every floor of building b left empty (nothing standing on it); when the last
    floor goes, the meeples on the ruin are free in the street and the building is captured."""
    while fl[b] > 0 and bm[b, fl[b]].sum() == 0:
        fl[b] -= 1
        pl[p, FLOORS] += 1
        if fl[b] == 0:
            for c in range(NC):
                ground[b_dist[b], c] += bm[b, 0, c]
                bm[b, 0, c] = 0
            gs[G_CAPTURED] += 1


@njit(cache=True)
def damage_building(b, dmg, esc_prob, p, pl, sto, bm, fl, ground, b_dist, veh, adj, gs, ip, strat, state):
    """Apply ``dmg`` damage points to building b during p's turn: each knocks one meeple off
    the top level; it leaves the city with ``esc_prob``, else falls in the street. Emptied
    floors go to p. Returns the meeples knocked off."""
    knocked = 0
    for _ in range(dmg):
        if fl[b] == 0 or gs[G_ENDED] == 1:
            break
        top = fl[b]
        c = pick_colour(bm[b, top], state)
        bm[b, top, c] -= 1
        knocked += 1
        if uniform(state) < esc_prob:
            escape(c, p, pl, sto, gs, ip, ground, fl, b_dist, veh, adj, strat, state)
        else:
            ground[b_dist[b], c] += 1
        settle(b, p, pl, bm, fl, ground, b_dist, gs)
    return knocked


# ---------------------------------------------------------------- the four actions
@njit(cache=True)
def free_corner(p, pl, ground, fl, b_dist, veh, adj, corner, strat, state):
    """A starting corner no other monster's paws occupy, chosen by p."""
    n_players = pl.shape[0]
    free = np.ones(corner.size, dtype=np.bool_)
    for q in range(n_players):
        if q != p and pl[q, CORNER] >= 0:
            free[pl[q, CORNER]] = False
    n_free = free.sum()
    if strat[p] == S_RANDOM:
        k = below(state, n_free)
        for i in range(corner.size):
            if free[i]:
                if k == 0:
                    return i
                k -= 1
    best = -1
    bv = -1e18
    nt = 0
    for i in range(corner.size):
        if free[i]:
            v = district_value(corner[i], pl[p, TEETH], ground, fl, b_dist, veh, adj)
            if v > bv + EPS:
                bv, best, nt = v, i, 1
            elif v >= bv - EPS:
                nt += 1
                if keep_tied(nt, state):
                    best = i
    return best


@njit(cache=True)
def act_move(p, target, pl, pp, adj, ground, fl, b_dist, veh, corner, strat, state, obstacle_pass=1.0):
    """Flick the paws toward district ``target``. Off the city: a tooth is lost and the paws
    restart on a free corner. Else the paws reach the target with ``move_success`` (times
    ``obstacle_pass`` when a fallen body lies there: fallen bodies are obstacles until their
    owner's next turn, the seed) or land in a neighbour of it, and may knock over the monsters
    standing there."""
    if uniform(state) < pp[p, K_MOVE_OFF]:
        lose_teeth(pl, p, 1)
        i = free_corner(p, pl, ground, fl, b_dist, veh, adj, corner, strat, state)
        pl[p, DIST] = corner[i]
        pl[p, CORNER] = i
        return
    d = target
    ok = pp[p, K_MOVE_OK]
    for q in range(pl.shape[0]):
        if q != p and pl[q, FALLEN] == 1 and pl[q, DIST] == target:
            ok *= obstacle_pass
            break
    if uniform(state) >= ok:
        k = below(state, adj[target].sum())
        for e in range(adj.shape[0]):
            if adj[target, e] == 1:
                if k == 0:
                    d = e
                    break
                k -= 1
    pl[p, DIST] = d
    pl[p, CORNER] = -1
    for q in range(pl.shape[0]):
        if q != p and pl[q, DIST] == d and uniform(state) < pp[p, K_MOVE_TOPPLE]:
            topple(pl, p, q)


@njit(cache=True)
def act_throw(p, target, pl, sto, pp, fp, bm, fl, ground, b_dist, veh, veh_home, adj, gs, ip, strat, state):
    """Throw a vehicle of p's district. ``target`` >= 0 is a building, ``-1 - q`` is monster q
    (same or neighbouring district; a neighbour's hit chance is times ``far_factor``). A hit
    building takes Binomial(throw_trials, throw_q) damage; a hit monster falls. The vehicle
    then leaves the city (back to its starting place) with ``vehicle_off``, else lies in the
    target's district."""
    d = pl[p, DIST]
    v = -1
    for i in range(veh.size):
        if veh[i] == d:
            v = i
            break
    if v < 0:
        return
    if target >= 0:
        td = b_dist[target]
        hit = pp[p, K_THROW_HIT_B] * (1.0 if td == d else fp[0])
        if uniform(state) < hit:
            dmg = binomial(ip[I_THROW_N], pp[p, K_THROW_Q], state)
            damage_building(target, dmg, pp[p, K_THROW_ESC], p, pl, sto, bm, fl, ground, b_dist,
                            veh, adj, gs, ip, strat, state)
    else:
        q = -1 - target
        td = pl[q, DIST]
        hit = pp[p, K_THROW_HIT_M] * (1.0 if td == d else fp[0])
        if uniform(state) < hit:
            topple(pl, p, q)
    if uniform(state) < pp[p, K_VEH_OFF]:
        veh[v] = veh_home[v]
    else:
        veh[v] = td


@njit(cache=True)
def act_drop(p, b, pl, sto, pp, bm, fl, ground, b_dist, veh, adj, gs, ip, strat, state):
    """Drop the body on building b of p's district: a miss costs a tooth; a hit does
    Binomial(drop_trials, drop_q) damage and may knock over the other monsters there."""
    if uniform(state) >= pp[p, K_DROP_HIT]:
        lose_teeth(pl, p, 1)
        return
    dmg = binomial(ip[I_DROP_N], pp[p, K_DROP_Q], state)
    damage_building(b, dmg, pp[p, K_DROP_ESC], p, pl, sto, bm, fl, ground, b_dist, veh, adj, gs, ip, strat, state)
    d = pl[p, DIST]
    for q in range(pl.shape[0]):
        if q != p and pl[q, DIST] == d and uniform(state) < pp[p, K_DROP_TOPPLE]:
            topple(pl, p, q)


@njit(cache=True)
def act_blow(p, pl, sto, pp, bm, fl, ground, b_dist, veh, adj, gs, ip, strat, state):
    """Blow across p's district: every standing building takes Binomial(blow_trials, blow_q)
    damage, every meeple in its streets is blown out of the city with ``blow_street``, every
    other monster there falls with ``blow_topple``."""
    d = pl[p, DIST]
    for b in range(fl.size):
        if b_dist[b] == d and fl[b] > 0:
            dmg = binomial(ip[I_BLOW_N], pp[p, K_BLOW_Q], state)
            damage_building(b, dmg, pp[p, K_BLOW_ESC], p, pl, sto, bm, fl, ground, b_dist, veh, adj, gs, ip, strat, state)
            if gs[G_ENDED] == 1:
                return
    for c in range(NC):
        n = ground[d, c]
        for _ in range(n):
            if uniform(state) < pp[p, K_BLOW_STREET]:
                ground[d, c] -= 1
                escape(c, p, pl, sto, gs, ip, ground, fl, b_dist, veh, adj, strat, state)
                if gs[G_ENDED] == 1:
                    return
    for q in range(pl.shape[0]):
        if q != p and pl[q, DIST] == d and uniform(state) < pp[p, K_BLOW_TOPPLE]:
            topple(pl, p, q)


# ---------------------------------------------------------------- eating
@njit(cache=True)
def eat(p, pl, sto, ground, bm, fl, b_dist, gs, free_top, strat, state):
    """Monster p eats free meeples of its district, at most one per tooth: those of its streets
    and, when ``free_top`` (the seed: "libres, ne soutenant aucun élément"), those standing on
    the top floor of a building of its district, which hold nothing up (eating a top floor
    empty wins it, :func:`settle`). Greedy takes, one at a time, the colour it holds fewest of
    (completing sets; its character's colour, then chance, breaks ties), from the street first;
    random takes meeples at random. Returns the number eaten."""
    d = pl[p, DIST]
    k = 0
    for _ in range(pl[p, TEETH]):
        avail = ground[d].copy()          # free now: a top floor eaten empty frees the level below
        if free_top:
            for b in range(fl.size):
                if b_dist[b] == d and fl[b] > 0:
                    avail += bm[b, fl[b]]
        if avail.sum() == 0:
            break
        if strat[p] == S_RANDOM:
            c = pick_colour(avail, state)
        else:
            c, nt = -1, 0
            for e in range(NC):
                if avail[e] == 0:
                    continue
                if c < 0 or sto[p, e] < sto[p, c] or (sto[p, e] == sto[p, c] and e == pl[p, CHAR_COL]
                                                      and c != pl[p, CHAR_COL]):
                    c, nt = e, 1
                elif sto[p, e] == sto[p, c] and c != pl[p, CHAR_COL]:
                    nt += 1
                    if keep_tied(nt, state):
                        c = e
        sto[p, c] += 1
        k += 1
        if ground[d, c] > 0:
            ground[d, c] -= 1
        else:
            for b in range(fl.size):
                if b_dist[b] == d and fl[b] > 0 and bm[b, fl[b], c] > 0:
                    bm[b, fl[b], c] -= 1
                    settle(b, p, pl, bm, fl, ground, b_dist, gs)
                    break
    pl[p, EATEN] += k
    return k


# ---------------------------------------------------------------- choosing actions
@njit(cache=True)
def has_vehicle(d, veh):
    for i in range(veh.size):
        if veh[i] == d:
            return True
    return False


@njit(cache=True)
def hops(src, dst, adj):
    """Fewest steps from district ``src`` to ``dst`` over ``adj`` (a breadth-first search;
    ``adj.shape[0]`` if ``dst`` cannot be reached)."""
    nd = adj.shape[0]
    if src == dst:
        return 0
    dist = np.full(nd, nd, np.int64)
    queue = np.empty(nd, np.int64)
    dist[src] = 0
    queue[0] = src
    head, tail = 0, 1
    while head < tail:
        x = queue[head]
        head += 1
        for y in range(nd):
            if adj[x, y] == 1 and dist[y] == nd:
                dist[y] = dist[x] + 1
                if y == dst:
                    return dist[y]
                queue[tail] = y
                tail += 1
    return nd


@njit(cache=True)
def wrecker_target(d, fl, b_dist, adj):
    """The wrecker's building: the richest standing one (most floors standing, so most meeples
    to eat and floors to take); ties: the nearest to district ``d`` in steps, then the lowest
    index. -1 if none stands. Draws nothing."""
    best, bf, bh = -1, 0, 1 << 30
    for b in range(fl.size):
        if fl[b] <= 0:
            continue
        h = hops(d, b_dist[b], adj)
        if fl[b] > bf or (fl[b] == bf and h < bh):
            best, bf, bh = b, fl[b], h
    return best


@njit(cache=True)
def wrecker_action(p, pl, adj, fl, b_dist, veh):
    """The wrecker's action as (action, target), or (-1, -1) when no building stands: it goes
    for the richest building (:func:`wrecker_target`) and nothing else. Standing in its
    district: drop on it; in throwing range with a vehicle at hand: throw at it; else a step
    towards it (the neighbour fewest steps from it; ties: the lowest district). It never
    attacks a monster and never blows. No draw: its ties are fixed, not random."""
    d = pl[p, DIST]
    b = wrecker_target(d, fl, b_dist, adj)
    if b < 0:
        return -1, -1
    t = b_dist[b]
    if t == d:
        return DROP, b
    if has_vehicle(d, veh) and adj[d, t] == 1:
        return THROW, b
    best, bh = -1, 1 << 30
    for e in range(adj.shape[0]):
        if adj[d, e] == 1:
            h = hops(e, t, adj)
            if h < bh:
                best, bh = e, h
    return MOVE, best


@njit(cache=True)
def choose_action(p, pl, pp, ip, fp, adj, fl, b_dist, ground, veh, strat, state):
    """p's next action as (action, target). Random: :func:`random_action`. Greedy:
    :func:`greedy_action`. Wrecker: :func:`wrecker_action`, greedy's once no building stands."""
    if strat[p] == S_WRECKER:
        a, t = wrecker_action(p, pl, adj, fl, b_dist, veh)
        if a >= 0:
            return a, t
    if strat[p] == S_RANDOM:
        return random_action(p, pl, adj, fl, b_dist, veh, state)
    return greedy_action(p, pl, pp, ip, fp, adj, fl, b_dist, ground, veh, state)


@njit(cache=True)
def random_action(p, pl, adj, fl, b_dist, veh, state):
    """The random monster's action as (action, target): one of the four actions uniformly, drawn
    again while it has no target (a drop with no standing building in p's district, a throw
    with no vehicle there or nothing in range); then a uniform target: a neighbouring district,
    a standing building of the district, or (throw) a standing building or a monster here or
    next door, monster ``q`` as target ``-1 - q``."""
    d = pl[p, DIST]
    nd = adj.shape[0]
    n_players = pl.shape[0]
    while True:
        a = below(state, 4)
        if a == MOVE:
            k = below(state, adj[d].sum())
            for e in range(nd):
                if adj[d, e] == 1:
                    if k == 0:
                        return MOVE, e
                    k -= 1
        elif a == BLOW:
            return BLOW, 0
        elif a == DROP:
            n = 0
            for b in range(fl.size):
                if b_dist[b] == d and fl[b] > 0:
                    n += 1
            if n > 0:
                k = below(state, n)
                for b in range(fl.size):
                    if b_dist[b] == d and fl[b] > 0:
                        if k == 0:
                            return DROP, b
                        k -= 1
        elif has_vehicle(d, veh):
            n = 0
            for b in range(fl.size):
                if fl[b] > 0 and (b_dist[b] == d or adj[d, b_dist[b]] == 1):
                    n += 1
            for q in range(n_players):
                if q != p and (pl[q, DIST] == d or adj[d, pl[q, DIST]] == 1):
                    n += 1
            if n > 0:
                k = below(state, n)
                for b in range(fl.size):
                    if fl[b] > 0 and (b_dist[b] == d or adj[d, b_dist[b]] == 1):
                        if k == 0:
                            return THROW, b
                        k -= 1
                for q in range(n_players):
                    if q != p and (pl[q, DIST] == d or adj[d, pl[q, DIST]] == 1):
                        if k == 0:
                            return THROW, -1 - q
                        k -= 1


#: What greedy counts a tooth lost (or knocked out of a rival) for: roughly a meeple a turn for
#: the rest of the game.
TOOTH = 2.0


@njit(cache=True)
def greedy_action(p, pl, pp, ip, fp, adj, fl, b_dist, ground, veh, state):
    """Greedy's action as (action, target): of every action it can take now, the one of largest
    rough expected value (:func:`move_worth`, :func:`drop_worth`, :func:`throw_worth`,
    :func:`blow_worth`), weighed in that order; ties at random (:func:`offer`)."""
    d = pl[p, DIST]
    nd = adj.shape[0]
    n_players = pl.shape[0]
    here = district_value(d, pl[p, TEETH], ground, fl, b_dist, veh, adj)
    best_a, best_t, best_v, nt = BLOW, 0, -1e18, 0
    for e in range(nd):
        if adj[d, e] == 1:
            v = move_worth(p, e, here, pl, pp, ground, fl, b_dist, veh, adj)
            best_a, best_t, best_v, nt = offer(MOVE, e, v, best_a, best_t, best_v, nt, state)
    for b in range(fl.size):
        if b_dist[b] == d and fl[b] > 0:
            best_a, best_t, best_v, nt = offer(DROP, b, drop_worth(p, pp, ip), best_a, best_t, best_v, nt, state)
    if has_vehicle(d, veh):
        for b in range(fl.size):
            if fl[b] > 0 and (b_dist[b] == d or adj[d, b_dist[b]] == 1):
                v = throw_worth(p, b, d, pl, pp, ip, fp, b_dist)
                best_a, best_t, best_v, nt = offer(THROW, b, v, best_a, best_t, best_v, nt, state)
        for q in range(n_players):
            if q != p and pl[q, FALLEN] == 0 and pl[q, TEETH] > 0 and \
                    (pl[q, DIST] == d or adj[d, pl[q, DIST]] == 1):
                v = throw_worth(p, -1 - q, d, pl, pp, ip, fp, b_dist)
                best_a, best_t, best_v, nt = offer(THROW, -1 - q, v, best_a, best_t, best_v, nt, state)
    v = blow_worth(p, d, pl, pp, ip, ground, fl, b_dist)
    best_a, best_t, best_v, nt = offer(BLOW, 0, v, best_a, best_t, best_v, nt, state)
    return best_a, best_t


@njit(cache=True)
def offer(a, t, v, best_a, best_t, best_v, nt, state):
    """Greedy's running choice after weighing action ``a`` on target ``t`` of value ``v``:
    (action, target, value, number tied for best). A value above the best by more than
    :data:`EPS` replaces it; one within EPS of it is a tie, kept with probability 1 / (ties so
    far) (:func:`keep_tied`, a draw only on a tie)."""
    if v > best_v + EPS:
        return a, t, v, 1
    if v >= best_v - EPS:
        nt += 1
        if keep_tied(nt, state):
            return a, t, best_v, nt
    return best_a, best_t, best_v, nt


@njit(cache=True)
def move_worth(p, e, here, pl, pp, ground, fl, b_dist, veh, adj):
    """What greedy expects of a step to neighbouring district ``e``: the gain in
    :func:`district_value` over ``here`` (the district it stands in) if the step succeeds, less
    a tooth if it falls off."""
    teeth = pl[p, TEETH]
    return pp[p, K_MOVE_OK] * (district_value(e, teeth, ground, fl, b_dist, veh, adj) - here) \
        - pp[p, K_MOVE_OFF] * TOOTH


@njit(cache=True)
def drop_worth(p, pp, ip):
    """What greedy expects of a drop on a building of its district: the meeples knocked into
    the street if it hits (escapes counted against it), less a tooth if it misses."""
    return pp[p, K_DROP_HIT] * ip[I_DROP_N] * pp[p, K_DROP_Q] * (1.0 - 1.5 * pp[p, K_DROP_ESC]) \
        - (1.0 - pp[p, K_DROP_HIT]) * TOOTH


@njit(cache=True)
def throw_worth(p, t, d, pl, pp, ip, fp, b_dist):
    """What greedy expects of throwing the vehicle of district ``d`` at target ``t``: a building
    (``t >= 0``): the meeples knocked into the street if it hits (escapes counted against it;
    next door, the hit chance is times ``far_factor`` ``fp[0]`` and half the meeples fall in
    another street); a monster (``t = -1 - q``): toppled if it hits, a tooth taken from a
    rival into p's collection, counted twice (next door, times ``fp[0]``)."""
    if t >= 0:
        f = 1.0 if b_dist[t] == d else 0.5 * fp[0]  # far meeples fall in another street
        return f * pp[p, K_THROW_HIT_B] * ip[I_THROW_N] * pp[p, K_THROW_Q] * (1.0 - 1.5 * pp[p, K_THROW_ESC])
    f = 1.0 if pl[-1 - t, DIST] == d else fp[0]
    return f * pp[p, K_THROW_HIT_M] * 2.0 * TOOTH


@njit(cache=True)
def blow_worth(p, d, pl, pp, ip, ground, fl, b_dist):
    """What greedy expects of a blow in district ``d``: the meeples knocked off each standing
    building (escapes counted against it) and a tooth counted twice for each standing rival
    here with teeth that may topple, less the meeples in its streets that it would blow out of
    the city (each an escape)."""
    v = -1.5 * ground[d].sum() * pp[p, K_BLOW_STREET]
    for b in range(fl.size):
        if b_dist[b] == d and fl[b] > 0:
            v += ip[I_BLOW_N] * pp[p, K_BLOW_Q] * (1.0 - 1.5 * pp[p, K_BLOW_ESC])
    for q in range(pl.shape[0]):
        if q != p and pl[q, DIST] == d and pl[q, FALLEN] == 0 and pl[q, TEETH] > 0:
            v += pp[p, K_BLOW_TOPPLE] * 2.0 * TOOTH
    return v


# ---------------------------------------------------------------- one turn, one game
@njit(cache=True)
def play_turn(p, pl, sto, pp, ip, fp, adj, bm, fl, ground, veh, b_dist, corner, veh_home, gs,
              strat, acts, state):
    """p's turn: its body stands up again, it takes 2 actions (plus the extra ones others gave
    it), then eats. ``acts`` int64[P, 4] counts the actions taken."""
    pl[p, FALLEN] = 0
    n_actions = 2 + pl[p, EXTRA]
    pl[p, EXTRA] = 0
    for _ in range(n_actions):
        a, t = choose_action(p, pl, pp, ip, fp, adj, fl, b_dist, ground, veh, strat, state)
        acts[p, a] += 1
        if a == MOVE:
            act_move(p, t, pl, pp, adj, ground, fl, b_dist, veh, corner, strat, state,
                     fp[1] if ip[I_OBSTACLES] == 1 else 1.0)
        elif a == THROW:
            act_throw(p, t, pl, sto, pp, fp, bm, fl, ground, b_dist, veh, veh_home, adj, gs, ip, strat, state)
        elif a == DROP:
            act_drop(p, t, pl, sto, pp, bm, fl, ground, b_dist, veh, adj, gs, ip, strat, state)
        else:
            act_blow(p, pl, sto, pp, bm, fl, ground, b_dist, veh, adj, gs, ip, strat, state)
        if gs[G_ENDED] == 1:
            return
    eat(p, pl, sto, ground, bm, fl, b_dist, gs, ip[I_EDIBLE_FREE] == 1, strat, state)


@njit(cache=True)
def score(p, pl, sto, ip, out):
    """p's final score by source into ``out`` float64[5]: sets, floors, teeth, character, total."""
    sets = sto[p].min()
    out[0] = sets * ip[I_SET_PTS]
    out[1] = pl[p, FLOORS] * ip[I_FLOOR_PTS]
    out[2] = pl[p, COLLECTED] * ip[I_TOOTH_PTS]
    out[3] = pl[p, HAS_CHAR] * sto[p, pl[p, CHAR_COL]] * ip[I_CHAR_PTS]
    out[4] = out[0] + out[1] + out[2] + out[3]


@njit(cache=True)
def setup(pl, sto, bm, fl, ground, veh, gs, ip, b_floors, corner, veh_home, state):
    """Build the city: the 6 x meeples_per_colour meeples are shuffled into the buildings (4 under
    each floor tile, 1 on each roof) and the rest go to the stadium's streets; monster p starts
    on corner p with its teeth (start_teeth, plus its seat's seat_teeth) and cards and a character
    colour drawn at random."""
    n_players = pl.shape[0]
    per = ip[I_PER_COLOUR]
    pool = np.empty(NC * per, dtype=np.int64)
    for c in range(NC):
        pool[c * per:(c + 1) * per] = c
    for i in range(pool.size - 1, 0, -1):  # Fisher-Yates
        j = below(state, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    pl[:, :] = 0
    sto[:, :] = 0
    bm[:, :, :] = 0
    ground[:, :] = 0
    gs[:] = 0
    gs[G_LOSER] = -1
    k = 0
    for b in range(b_floors.size):
        fl[b] = b_floors[b]
        for level in range(b_floors[b]):
            for _ in range(ip[I_PER_LEVEL]):
                bm[b, level, pool[k]] += 1
                k += 1
        for _ in range(ip[I_ROOF]):
            bm[b, b_floors[b], pool[k]] += 1
            k += 1
    while k < pool.size:
        ground[ip[I_STADIUM], pool[k]] += 1
        k += 1
    for i in range(veh_home.size):
        veh[i] = veh_home[i]
    for p in range(n_players):
        pl[p, CORNER] = p
        pl[p, DIST] = corner[p]
        pl[p, TEETH] = ip[I_TEETH] + ip[I_SEAT_TEETH + p]
        pl[p, CARDS] = ip[I_CARDS]
        pl[p, HAS_CHAR] = 1
        pl[p, CHAR_COL] = below(state, NC)


@njit(cache=True)
def end_step(final_left, captured, needed, n_players):
    """End-of-turn bookkeeping of the end trigger; returns (final_left, game over).

    ``final_left`` is -1 until ``captured`` buildings reach ``needed``; then every player,
    the one who triggered it last, plays one more turn: n_players turns, counted down.
    """
    if final_left > 0:
        final_left -= 1
        return final_left, final_left == 0
    if final_left < 0 and captured >= needed:
        return n_players, False
    return final_left, False


@njit(cache=True)
def play_game(seed, g, strat, pp, ip, fp, adj, b_dist, b_floors, corner, veh_home, og, os):
    """Play game g of master seed ``seed``; write its row into ``og`` int64[NOG] and its seats
    into ``os`` float64[P, NOS]. Length counts rounds (the last one may be partial)."""
    n_players = strat.size
    nb = b_floors.size
    state = game_stream(seed, g)
    pl = np.zeros((n_players, NPF), np.int64)
    sto = np.zeros((n_players, NC), np.int64)
    bm = np.zeros((nb, LMAX, NC), np.int64)
    fl = np.zeros(nb, np.int64)
    ground = np.zeros((adj.shape[0], NC), np.int64)
    veh = np.zeros(veh_home.size, np.int64)
    gs = np.zeros(NG, np.int64)
    acts = np.zeros((n_players, 4), np.int64)
    setup(pl, sto, bm, fl, ground, veh, gs, ip, b_floors, corner, veh_home, state)
    final_left = -1
    reason = END_CAP
    rounds = 0
    turns = 0
    done = False
    for r in range(ip[I_MAX_ROUNDS]):
        rounds = r + 1
        for p in range(n_players):
            play_turn(p, pl, sto, pp, ip, fp, adj, bm, fl, ground, veh, b_dist, corner, veh_home,
                      gs, strat, acts, state)
            turns += 1
            if gs[G_ENDED] == 1:
                reason = END_LINE6
                done = True
                break
            final_left, over = end_step(final_left, gs[G_CAPTURED], ip[I_END_BUILDINGS], n_players)
            if over:
                reason = END_BUILDINGS
                done = True
                break
        if done:
            break
    sc = np.zeros(5)
    best = -1.0
    winner = -1
    for p in range(n_players):
        score(p, pl, sto, ip, sc)
        os[p, S_SETS] = sc[0]
        os[p, S_FLOORS] = sc[1]
        os[p, S_TEETH] = sc[2]
        os[p, S_CHAR] = sc[3]
        os[p, S_SCORE] = sc[4]
        os[p, S_EATEN] = pl[p, EATEN]
        os[p, S_LOST] = pl[p, LOST]
        os[p, S_TOPPLES] = pl[p, TOPPLES]
        os[p, S_ESCAPES] = pl[p, ESCAPES]
        os[p, S_LOSER] = 1.0 if gs[G_LOSER] == p else 0.0
        for a in range(4):
            os[p, S_ACT_MOVE + a] = acts[p, a]
        if gs[G_LOSER] == p:
            continue  # line 6: the player who filled it loses whatever its score
        if sc[4] > best:
            best = sc[4]
            winner = p
        elif sc[4] == best:
            winner = -2  # a tie for first: no single winner
    og[O_WINNER] = winner if (winner >= 0 and done) else -1
    og[O_LENGTH] = rounds
    og[O_FINISHED] = 1 if done else 0
    og[O_REASON] = reason
    og[O_ESCAPED] = gs[G_ESCAPED]
    og[O_FIRES] = gs[G_FIRES]
    og[O_TURNS] = turns


@njit(cache=True, nogil=True)  # games.base.play_slices runs slices in threads
def play_batch(seed, first_game, strat, pp, ip, fp, adj, b_dist, b_floors, corner, veh_home, og, os):
    """Games first_game .. first_game + len(og) - 1; game i uses only the stream (seed, i)."""
    for i in range(og.shape[0]):
        play_game(seed, first_game + i, strat, pp, ip, fp, adj, b_dist, b_floors, corner, veh_home,
                  og[i], os[i])


def new_state(players: int, rules) -> dict[str, np.ndarray]:
    """Empty per-game state arrays (for tests and tools): pl, sto, bm, fl, ground, veh, gs."""
    ka = rules.kernel_arrays(players)
    nb = ka["b_floors"].size
    gs = np.zeros(NG, np.int64)
    gs[G_LOSER] = -1
    return {
        "pl": np.zeros((players, NPF), np.int64), "sto": np.zeros((players, NC), np.int64),
        "bm": np.zeros((nb, LMAX, NC), np.int64), "fl": np.zeros(nb, np.int64),
        "ground": np.zeros((ka["adj"].shape[0], NC), np.int64),
        "veh": ka["veh_home"].copy(), "gs": gs,
    }
