"""Compiled kernels of Akeruption on an abstract board: small pure rule functions and the batch.

The board is a graph of lava flows, not a map. An *open end* of a flow (``ends[i]`` =
[target village or -1 for open land, tiles still needed to reach it, wall kind + 1 or 0]) grows
by one lava tile at a time; when it reaches its village the flow *enters* it on one of the
village's ``sides``. State of one game (int64, ``P`` players on villages 0..P-1 of ``V``):

- ``temp[V]``: gauges (°C); ``entered[P, 3]``: zones each player has entered; ``taken[3]``:
  zones already claimed by a first player (one new eruption each);
- ``flow[V, S]``, ``vwall[V, S]``: a flow enters at a side (0/1); a wall stands there (kind+1);
- ``ends[MAX_ENDS, 3]``, ``meta[N_META]`` (number of open ends...), ``pile[3]``: tiles left;
- ``walls[P, 3]``, ``hand[P, 3]``: walls in reserve and action cards by wall kind.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.rng import below, uniform
from ..base import start_stream
from .rules import P_BREAK_HEAT, P_BURNT, P_BYPASS, P_COOLING, P_DMAX, P_DMIN, P_EVERY_WALL, \
    P_FIRST_RANDOM, P_FLOW_HEAT, P_HAND, P_MAX_TURNS, P_OUTLETS, P_PENALTY, P_SIDES, P_START_T, \
    P_STRICT, P_VILLAGES

STRAW, WOOD, STONE = range(3)
DEAD_END, STRAIGHT, FORK = range(3)
MAX_ENDS = 64
M_NENDS, M_ERUPTIONS, M_FLOWS, M_BYPASSED, N_META = range(5)
S_RANDOM, S_GREEDY, S_CAUTIOUS = 0, 1, 2
#: greedy: lava at the nearest rival village, cards for walls it needs now and for tiles that burn
#: a rival now; random: uniform choices; cautious: defence first (see :func:`cautious_end_value`
#: and :func:`play_turn`): lava to neutral villages (cards) before rivals, never on a wall, no card
#: spent on an extra tile, cooling from the first critical zone on; fixed tie-breaks (no draw).
STRATEGIES = ("greedy", "random", "cautious")
STRATEGY_ID = {"random": S_RANDOM, "greedy": S_GREEDY, "cautious": S_CAUTIOUS}
# Per-game counters by wall kind: tests, holds, stops (a wall standing against lava), builds.
K_TESTS, K_HOLDS, K_STOPS, N_KCOUNT = range(4)
END_NONE, END_BURNT, END_PILE = 0, 1, 2


@njit(cache=True)
def rnd(state, n):
    """A uniform integer 0..n-1 from the game's stream (one call site of the inlined ``below``)."""
    return below(state, n)


@njit(cache=True)
def weighted(state, w):
    """An index drawn with integer weights ``w`` (exactly, by one uniform integer)."""
    total = 0
    for i in range(w.shape[0]):
        total += w[i]
    c = rnd(state, total)
    for i in range(w.shape[0]):
        if c < w[i]:
            return i
        c -= w[i]
    return w.shape[0] - 1


@njit(cache=True)
def in_zone(t, threshold, strict):
    """Is a gauge at ``t`` °C in the zone of ``threshold``? The seed: strictly above (> 50,
    > 120, > 200 °C); ``strict`` = 0: at or above."""
    return t > threshold if strict == 1 else t >= threshold


@njit(cache=True)
def bypass(ends, meta, i):
    """The new open end ``i`` heads for the same place as a walled end (same target, same tiles
    left): the lava can feed that place from another side, so the wall is destroyed without a
    test (the seed). Returns the walls destroyed."""
    n = 0
    for j in range(meta[M_NENDS]):
        if j != i and ends[j, 2] > 0 and ends[j, 0] == ends[i, 0] and ends[j, 1] == ends[i, 1]:
            ends[j, 2] = 0
            n += 1
    meta[M_BYPASSED] += n
    return n


@njit(cache=True)
def wall_holds(state, bonus):
    """The dice test of a wall: the orange die is the lava, the white die plus the wall's bonus
    the wall; the wall holds iff white + bonus > orange (a tie goes to the lava)."""
    orange = rnd(state, 6) + 1
    white = rnd(state, 6) + 1
    return white + bonus > orange


@njit(cache=True)
def tested(state, kind, bonus, kstats):
    """``wall_holds`` for a wall of ``kind``, counted in ``kstats[kind]``."""
    h = wall_holds(state, bonus[kind])
    kstats[kind, K_TESTS] += 1
    if h:
        kstats[kind, K_HOLDS] += 1
    return h


# ------------------------------------------------------------------ flows and eruptions
@njit(cache=True)
def add_end(state, ends, meta, n_villages, share, dmin, dmax, check_bypass=0):
    """A new open end (an eruption's outlet or a fork's branch): target a village with
    probability ``share`` (uniform among all villages, with or without a player), else open land;
    distance uniform in dmin..dmax. With ``check_bypass``, see :func:`bypass`."""
    if meta[M_NENDS] >= MAX_ENDS:
        return
    i = meta[M_NENDS]
    ends[i, 0] = rnd(state, n_villages) if uniform(state) < share else -1
    ends[i, 1] = dmin + rnd(state, dmax - dmin + 1)
    ends[i, 2] = 0
    meta[M_NENDS] += 1
    if check_bypass == 1 and ends[i, 0] >= 0:
        bypass(ends, meta, i)


@njit(cache=True)
def remove_end(ends, meta, e):
    last = meta[M_NENDS] - 1
    for j in range(3):
        ends[e, j] = ends[last, j]
    meta[M_NENDS] = last


@njit(cache=True)
def new_eruption(state, ends, meta, params, fl):
    """A new eruption tile: ``eruption_outlets`` new open ends."""
    meta[M_ERUPTIONS] += 1
    for i in range(params[P_OUTLETS]):
        add_end(state, ends, meta, params[P_VILLAGES], fl[0], params[P_DMIN], params[P_DMAX], params[P_BYPASS])


@njit(cache=True)
def enter_village(state, v, flow):
    """A flow reaches village ``v``: it enters on a side chosen uniformly among the sides without
    a flow yet (the board's geometry). Returns the side, or -1 if every side already has one."""
    n = 0
    for s in range(flow.shape[1]):
        if flow[v, s] == 0:
            n += 1
    if n == 0:
        return -1
    c = rnd(state, n)
    for s in range(flow.shape[1]):
        if flow[v, s] == 0:
            if c == 0:
                flow[v, s] = 1
                return s
            c -= 1
    return -1


@njit(cache=True)
def extend(p, e, state, ends, meta, pile, flow, walls, hand, res_w, params, fl):
    """Player ``p`` draws a lava tile and lays it on open end ``e``. A tile on a resource gives a
    wall of that kind; a flow that enters a village (with or without a player, walled or not)
    gives one action card. Returns the cards drawn."""
    kind = weighted(state, pile)
    pile[kind] -= 1
    tgt, dist = ends[e, 0], ends[e, 1]
    remove_end(ends, meta, e)
    if uniform(state) < fl[1]:
        walls[p, weighted(state, res_w)] += 1
    cards = 0
    if kind != DEAD_END:
        if dist - 1 <= 0:
            if tgt >= 0 and enter_village(state, tgt, flow) >= 0:
                meta[M_FLOWS] += 1
                cards += 1
        elif meta[M_NENDS] < MAX_ENDS:
            i = meta[M_NENDS]
            ends[i, 0], ends[i, 1], ends[i, 2] = tgt, dist - 1, 0
            meta[M_NENDS] += 1
            if params[P_BYPASS] == 1 and tgt >= 0:
                bypass(ends, meta, i)
    if kind == FORK:
        add_end(state, ends, meta, params[P_VILLAGES], fl[0], params[P_DMIN], params[P_DMAX], params[P_BYPASS])
    for c in range(cards):
        hand[p, weighted(state, res_w)] += 1
    return cards


@njit(cache=True)
def end_value(p, n_players, ends, e):
    """Greedy's liking for extending open end ``e``: towards a rival's village, the nearer the
    better; a neutral village (a card); never its own village; a walled end is a gamble."""
    tgt, d = ends[e, 0], ends[e, 1]
    if tgt == p:
        v = -100.0 + d
    elif tgt >= 0 and tgt < n_players:
        v = 50.0 - 5.0 * d
    elif tgt >= 0:
        v = 20.0 - 5.0 * d
    else:
        v = 0.0
    if ends[e, 2] > 0:
        v -= 15.0
    return v


@njit(cache=True)
def cautious_end_value(p, n_players, ends, e):
    """The cautious player's liking for extending open end ``e``: a neutral village first (a
    card for its walls), the nearer the better; then a rival's; its own village last; a walled
    end (a gamble that may turn the lava elsewhere) below any open one."""
    tgt, d = ends[e, 0], ends[e, 1]
    if tgt == p:
        v = -100.0 + d
    elif tgt >= n_players:
        v = 50.0 - 5.0 * d
    elif tgt >= 0:
        v = 20.0 - 5.0 * d
    else:
        v = 0.0
    if ends[e, 2] > 0:
        v -= 60.0
    return v


@njit(cache=True)
def place_tile(p, strat, state, ends, meta, pile, flow, walls, hand, res_w, bonus, kstats,
               params, fl, n_players):
    """Draw and lay one lava tile (it must continue an open end). A walled end must pass the
    wall's dice test: if the wall holds the tile goes elsewhere, if the lava wins the wall is
    destroyed. With no end left open the tile is discarded. Returns False if the pile is empty."""
    if pile.sum() == 0:
        return False
    tried = np.zeros(MAX_ENDS, np.bool_)
    while True:
        n = meta[M_NENDS]
        e, best, n_ok = -1, -1e18, 0
        for i in range(n):
            if not tried[i]:
                n_ok += 1
        if n_ok == 0:
            pile[weighted(state, pile)] -= 1   # no legal place: the tile is lost
            return True
        if strat == S_GREEDY:
            nt = 0
            for i in range(n):
                if not tried[i]:
                    v = end_value(p, n_players, ends, i)
                    if v > best:
                        e, best, nt = i, v, 1
                    elif v == best:            # ties: uniformly at random
                        nt += 1
                        if rnd(state, nt) == 0:
                            e = i
        elif strat == S_CAUTIOUS:
            for i in range(n):
                if not tried[i]:
                    v = cautious_end_value(p, n_players, ends, i)
                    if v > best:               # ties: the first end
                        e, best = i, v
        else:
            c = rnd(state, n_ok)
            for i in range(n):
                if not tried[i]:
                    if c == 0:
                        e = i
                        break
                    c -= 1
        if ends[e, 2] > 0:
            kind = ends[e, 2] - 1
            kstats[kind, K_STOPS] += 1
            if tested(state, kind, bonus, kstats):
                tried[e] = True
                continue
            ends[e, 2] = 0
        extend(p, e, state, ends, meta, pile, flow, walls, hand, res_w, params, fl)
        return True


# ------------------------------------------------------------------ temperatures
@njit(cache=True)
def add_heat(p, amount, temp, entered, taken, critical, state, ends, meta, params, fl, n_players):
    """Change player ``p``'s gauge by ``amount`` (clipped to 0..burnt). The first player to enter
    each critical zone lays a new eruption and every other player takes +30 °C at once (which can
    in turn carry someone into a zone)."""
    burnt = params[P_BURNT]
    temp[p] = min(burnt, max(0, temp[p] + amount))
    changed = True
    while changed:
        changed = False
        for q in range(n_players):
            for z in range(3):
                if in_zone(temp[q], critical[z], params[P_STRICT]) and entered[q, z] == 0:
                    entered[q, z] = 1
                    if taken[z] == 0:
                        taken[z] = 1
                        new_eruption(state, ends, meta, params, fl)
                        for r in range(n_players):
                            if r != q:
                                temp[r] = min(burnt, temp[r] + params[P_PENALTY])
                        changed = True


@njit(cache=True)
def damage(p, state, flow, vwall, bonus, kstats, params):
    """Damage phase of player ``p``'s village: +flow_heat per incoming flow not stopped by a wall,
    then the test of each village wall (the seed; ``test_every_wall`` false: only those facing a
    flow); a destroyed wall adds wall_break_heat and leaves its side open. Returns the °C to add."""
    heat = 0
    for s in range(flow.shape[1]):
        if flow[p, s] == 1 and vwall[p, s] == 0:
            heat += params[P_FLOW_HEAT]
    for s in range(flow.shape[1]):
        if vwall[p, s] > 0 and (flow[p, s] == 1 or params[P_EVERY_WALL] == 1):
            kind = vwall[p, s] - 1
            kstats[kind, K_STOPS] += flow[p, s]
            if not tested(state, kind, bonus, kstats):
                vwall[p, s] = 0
                heat += params[P_BREAK_HEAT]
    return heat


@njit(cache=True)
def tie_points(p, walls, vwall, flow):
    """Tie-break points: 3 per stone wall, 2 per wood, 1 per straw (reserve and around the
    village), -1 per lava flow in contact with the village."""
    pts = walls[p, STRAW] + 2 * walls[p, WOOD] + 3 * walls[p, STONE]
    for s in range(flow.shape[1]):
        if vwall[p, s] > 0:
            pts += vwall[p, s]
        pts -= flow[p, s]
    return pts


@njit(cache=True)
def winner_of(temp, walls, vwall, flow, n_players):
    """The coolest village wins; a tie goes to the most tie-break points; still tied: -1."""
    best = temp[0]
    for p in range(n_players):
        best = min(best, temp[p])
    w, wp, n_best = -1, -(1 << 60), 0
    for p in range(n_players):
        if temp[p] == best:
            t = tie_points(p, walls, vwall, flow)
            if t > wp:
                w, wp, n_best = p, t, 1
            elif t == wp:
                n_best += 1
    return w if n_best == 1 else -1


# ------------------------------------------------------------------ a wall's placement
@njit(cache=True)
def best_kind(walls, p):
    for k in range(2, -1, -1):
        if walls[p, k] > 0:
            return k
    return -1


@njit(cache=True)
def wall_on_end(p, e, kind, state, ends, walls, bonus, kstats, built):
    """Build a wall of ``kind`` on open end ``e`` (the protected zone must be empty: not the last
    tile before a village, no wall there yet): dice test at once, a beaten wall is destroyed.
    Returns True if it stands."""
    walls[p, kind] -= 1
    built[p, kind] += 1
    if tested(state, kind, bonus, kstats):
        ends[e, 2] = kind + 1
        return True
    return False


@njit(cache=True)
def wall_ok_on_end(ends, e):
    """May a wall be built on open end ``e``? (no wall yet, and the zone it protects is empty:
    more than one tile from its village)."""
    return ends[e, 2] == 0 and (ends[e, 0] < 0 or ends[e, 1] >= 2)


# ------------------------------------------------------------------ one turn, one game
@njit(cache=True)
def play_turn(p, strat, state, temp, entered, taken, critical, flow, vwall, ends, meta, pile,
              walls, hand, res_w, bonus, kstats, built, params, fl, tiles_allowed):
    """One turn of player ``p``: damage, lava tile(s), action cards (:func:`play_cards`), walls
    (:func:`build_walls`)."""
    n_players = walls.shape[0]
    # ---- 1. damage to the village
    heat = damage(p, state, flow, vwall, bonus, kstats, params)
    if heat > 0:
        add_heat(p, heat, temp, entered, taken, critical, state, ends, meta, params, fl, n_players)
    # ---- 2. lava tile(s): two from the third critical zone
    if tiles_allowed:
        n_tiles = 2 if in_zone(temp[p], critical[2], params[P_STRICT]) else 1
        for i in range(n_tiles):
            place_tile(p, strat, state, ends, meta, pile, flow, walls, hand, res_w, bonus, kstats,
                       params, fl, n_players)
    # ---- 3. action cards: one more from the second zone; exchange, extra tile, cooling
    play_cards(p, strat, state, temp, entered, taken, critical, flow, vwall, ends, meta, pile, walls, hand, res_w,
               bonus, kstats, params, fl, tiles_allowed)
    # ---- 4. walls: one, two from the first critical zone
    build_walls(p, strat, state, temp, critical, flow, vwall, ends, meta, walls, bonus, kstats, built, params)


@njit(cache=True)
def play_cards(p, strat, state, temp, entered, taken, critical, flow, vwall, ends, meta, pile, walls, hand, res_w,
               bonus, kstats, params, fl, tiles_allowed):
    """Step 3 of a turn, the action cards: one more card from the second critical zone, then
    (greedy and cautious) a card for each wall ``p`` needs now, two cards for a tile that burns a
    rival now (greedy), cooling while over the hand limit or near burning (cautious: in the
    first zone); random: each card exchanged, spent on cooling or on a tile, or kept, at random;
    then discards down to the hand limit."""
    n_players = walls.shape[0]
    sides = flow.shape[1]
    if in_zone(temp[p], critical[1], params[P_STRICT]):
        hand[p, weighted(state, res_w)] += 1
    limit = params[P_HAND]
    cool = params[P_COOLING]
    if strat != S_RANDOM:
        need = 0
        for s in range(sides):
            if flow[p, s] == 1 and vwall[p, s] == 0:
                need += 1
        need -= walls[p].sum()
        while need > 0 and hand[p].sum() > 0:      # a card for the wall it needs now
            k = best_kind(hand, p)
            hand[p, k] -= 1
            walls[p, k] += 1
            need -= 1
        while strat == S_GREEDY and tiles_allowed and hand[p].sum() >= 2 and pile.sum() > 0:
            hit = False                            # two cards for a tile that burns a rival now
            for e in range(meta[M_NENDS]):
                if ends[e, 0] >= 0 and ends[e, 0] < n_players and ends[e, 0] != p \
                        and ends[e, 1] == 1 and ends[e, 2] == 0:
                    hit = True
            if not hit:
                break
            for j in range(2):                     # pay with the weakest cards
                for k in range(3):
                    if hand[p, k] > 0:
                        hand[p, k] -= 1
                        break
            place_tile(p, strat, state, ends, meta, pile, flow, walls, hand, res_w, bonus, kstats,
                       params, fl, n_players)
        while cool > 0 and hand[p].sum() > 0 and (hand[p].sum() > limit or temp[p] + 30 >= params[P_BURNT]
                                                  or (strat == S_CAUTIOUS and temp[p] > 0
                                                      and in_zone(temp[p], critical[0], params[P_STRICT]))):
            for k in range(3):                     # cool with the weakest card
                if hand[p, k] > 0:
                    hand[p, k] -= 1
                    break
            add_heat(p, -cool, temp, entered, taken, critical, state, ends, meta, params, fl, n_players)
    else:
        for k in range(3):
            m = hand[p, k]
            for j in range(m):
                if hand[p, k] == 0:
                    break
                a = rnd(state, 4)
                if a == 1:
                    hand[p, k] -= 1
                    walls[p, k] += 1
                elif a == 2 and cool > 0:
                    hand[p, k] -= 1
                    add_heat(p, -cool, temp, entered, taken, critical, state, ends, meta, params,
                             fl, n_players)
                elif a == 3 and tiles_allowed and hand[p].sum() >= 2 and pile.sum() > 0:
                    hand[p, k] -= 1
                    hand[p, weighted(state, (hand[p] > 0) * 1)] -= 1
                    place_tile(p, strat, state, ends, meta, pile, flow, walls, hand, res_w, bonus,
                               kstats, params, fl, n_players)
    while hand[p].sum() > limit:                   # discard down to the hand limit
        hand[p, weighted(state, (hand[p] > 0) * 1)] -= 1


@njit(cache=True)
def build_walls(p, strat, state, temp, critical, flow, vwall, ends, meta, walls, bonus, kstats, built, params):
    """Step 4 of a turn, the walls: one, two from the first critical zone (greedy and cautious:
    the best kind on an open village side facing a flow, else on the nearest open end of its
    own; random: skip, a free village side or an open end, uniformly, with a kind it holds)."""
    sides = flow.shape[1]
    n_build = 2 if in_zone(temp[p], critical[0], params[P_STRICT]) else 1
    for b in range(n_build):
        if walls[p].sum() == 0:
            break
        if strat != S_RANDOM:
            k = best_kind(walls, p)
            side = -1
            for s in range(sides):
                if flow[p, s] == 1 and vwall[p, s] == 0:
                    side = s
            if side >= 0:
                walls[p, k] -= 1
                built[p, k] += 1
                vwall[p, side] = k + 1
                continue
            e, d, nt = -1, 1 << 30, 0
            for i in range(meta[M_NENDS]):
                if ends[i, 0] == p and wall_ok_on_end(ends, i):
                    if ends[i, 1] < d:
                        e, d, nt = i, ends[i, 1], 1
                    elif ends[i, 1] == d and strat == S_GREEDY:  # ties: uniformly at random
                        nt += 1
                        if rnd(state, nt) == 0:
                            e = i
            if e >= 0:
                wall_on_end(p, e, k, state, ends, walls, bonus, kstats, built)
            continue
        # random: skip, a village side or an open end, uniformly; a random kind it holds
        n_side, n_end = 0, 0
        for s in range(sides):
            if vwall[p, s] == 0:
                n_side += 1
        for i in range(meta[M_NENDS]):
            if wall_ok_on_end(ends, i):
                n_end += 1
        c = rnd(state, 1 + n_side + n_end)
        if c == 0:
            continue
        k = weighted(state, (walls[p] > 0) * 1)
        c -= 1
        if c < n_side:
            for s in range(sides):
                if vwall[p, s] == 0:
                    if c == 0:
                        walls[p, k] -= 1
                        built[p, k] += 1
                        vwall[p, s] = k + 1
                        break
                    c -= 1
        else:
            c -= n_side
            for i in range(meta[M_NENDS]):
                if wall_ok_on_end(ends, i):
                    if c == 0:
                        wall_on_end(p, i, k, state, ends, walls, bonus, kstats, built)
                        break
                    c -= 1


@njit(cache=True, nogil=True)  # games.base.play_slices runs slices in threads
def run_games(seed, first, n_games, strat, critical, bonus, start_walls, tiles, res_w, params, fl,
              winner, length, finished, reason, temps, points, kstats_out, built_out, meta_out):
    """Play games ``first .. first+n_games-1`` of master ``seed``; game i draws only from the
    stream (seed, i). Writes winner, length (turns), finished, reason (END_*), temps[n, P],
    points[n, P] (tie-break points), kstats_out[n, 3, N_KCOUNT], built_out[n, P, 3],
    meta_out[n, N_META]."""
    n_players = strat.shape[0]
    n_v, sides = params[P_VILLAGES], params[P_SIDES]
    for g in range(n_games):
        state = np.zeros(3, np.uint64)
        start_stream(seed, first + g, state)
        temp = np.full(n_v, params[P_START_T], np.int64)
        entered = np.zeros((n_players, 3), np.int64)
        taken = np.zeros(3, np.int64)
        flow = np.zeros((n_v, sides), np.int64)
        vwall = np.zeros((n_v, sides), np.int64)
        ends = np.zeros((MAX_ENDS, 3), np.int64)
        meta = np.zeros(N_META, np.int64)
        pile = tiles.copy()
        walls = np.zeros((n_players, 3), np.int64)
        for q in range(n_players):
            walls[q, :] = start_walls
        hand = np.zeros((n_players, 3), np.int64)
        kstats = np.zeros((3, N_KCOUNT), np.int64)
        built = np.zeros((n_players, 3), np.int64)
        new_eruption(state, ends, meta, params, fl)   # the starting eruption
        meta[M_ERUPTIONS] = 0                         # count only the new ones
        z = np.int64(0)  # not a literal 0: keeps numba from compiling play_turn twice
        turns, p, left, why = z, z, z - 1, z
        if params[P_FIRST_RANDOM] == 1:
            p = rnd(state, n_players)
        tiles_allowed = True
        while turns < params[P_MAX_TURNS]:
            play_turn(p, strat[p], state, temp, entered, taken, critical, flow, vwall, ends, meta,
                      pile, walls, hand, res_w, bonus, kstats, built, params, fl, tiles_allowed)
            turns += 1
            if left > 0:
                left -= 1
            elif left < 0:
                if temp[p] >= params[P_BURNT]:   # burnt at the end of its own turn
                    why, left, tiles_allowed = END_BURNT, n_players - 1, False
                elif pile.sum() == 0:            # pile empty: everyone plays once more
                    why, left = END_PILE, n_players
            if left == 0:
                break
            p = (p + 1) % n_players
        done = left == 0
        winner[g] = winner_of(temp, walls, vwall, flow, n_players) if done else -1
        length[g] = turns
        finished[g] = done
        reason[g] = why
        for q in range(n_players):
            temps[g, q] = temp[q]
            points[g, q] = tie_points(q, walls, vwall, flow)
        kstats_out[g, :, :] = kstats
        built_out[g, :, :] = built
        meta_out[g, :] = meta
