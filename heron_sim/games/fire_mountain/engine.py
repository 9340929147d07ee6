"""Compiled kernels of Fire Mountain: small pure rule functions over arrays, and the batch loop.

State of one game (all int64, ``P`` players):

- ``grid[16]``: tile id at each grid position (row-major 4x4); tile ids are the positions of the
  start layout, so ``ttype[tile]`` (the layout) never changes while tiles slide;
- ``cm[16, P]``: Cro-Magnons of each player on each tile id (the volcano tile keeps none: its
  spaces are ``volc``);
- ``dsp[P, 8]``, ``dloc[P, 8]``: species of each dinosaur base (-1 empty) and where it stands
  (-1 in the reserve, else a tile id);
- ``res[P]``, ``egg[P]``, ``score[P]``: Cro-Magnons in reserve and on the Egg space, points;
- ``volc[10]``: owner of each volcano space (-1 free), ``supply[6]``: copies left per species.

Compile time (a first run compiles all of this): numba compiles each function once per argument
types, and links and optimises a callee's code again into every caller. So the helpers allocate
nothing and run without reference counting (:func:`rule`, :func:`inner`), calls never pass a
bare literal (a ``Literal[int]`` argument is one more compilation: see ``ZERO``..``FOUR``), and
nothing formats error messages (no slice assignment, no ``np.full``). The batch loop ``run_games``
plays a turn as its four steps (:func:`roll_dice`, :func:`act_step`, :func:`earthquake`,
:func:`erupt`) and the action step plays its blocks (:func:`play_order`), each a function of its
own for the reader: about 4 s more on a first run's compilation than written inline.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.rng import below
from ..base import start_stream
from .rules import BRONTO, CAVE, F_CAVE, F_EGG, F_FOOT, F_HUT, F_VOLCANO, HUT, JUNGLE, LAGOON, \
    PLESIO, PRAIRIE, PTERA, STEGO, TREX, TRICE, VOLCANO

# The layout of the scalar parameter vector lives with the rules that fill it (rules.py).
from .rules import (N_PARAMS, P_COPIES, P_CROMAGNONS, P_DICE, P_END_ROUND, P_FREE_ORDER,  # noqa: E402,F401
                    P_MAX_TURNS, P_REPLAY_ORDERS, P_ROLLS, P_SLOTS, P_SPACES, P_STEGO_VOLCANO, P_TARGET,
                    P_TRICE_GUARD)
# Strategy ids (order of engine.STRATEGIES).
S_RANDOM, S_GREEDY, S_HATCHER = 0, 1, 2
#: greedy: the move of best evaluation (region majorities against the best opponent), Bronto and
#: T-rex first; random: uniform choices; hatcher: greedy's moves and orders, but it builds its herd
#: first (:func:`pick_species`: the cheapest species it can pay, ties by greedy's preference;
#: Cro-Magnons to the Egg space whatever its free bases; the Volcano's from the Egg space last),
#: weighs its own majorities over the leader's (:data:`HATCHER_DENY`) in its footprints and
#: orders, and breaks ties between moves to the first found (no draw).
STRATEGIES = ("greedy", "random", "hatcher")
STRATEGY_ID = {"random": S_RANDOM, "greedy": S_GREEDY, "hatcher": S_HATCHER}
# Per-game counters.
ST_QUAKES, ST_FLIPS, ST_ERUPTIONS, ST_THREATENED, N_STATS = range(5)
STAT_NAMES = ("quakes", "quake_flips", "eruptions", "threatened")
MAX_SLOTS = 8
#: Typed integers for call arguments and counters: a plain literal (``rnd(state, 2)``, or a
#: counter that starts at ``0``) makes numba compile the callee once more for ``Literal[int]``.
ZERO, ONE, TWO, THREE, FOUR = np.int64(0), np.int64(1), np.int64(2), np.int64(3), np.int64(4)
#: Blocks of the action step: eggs and one hatching, Volcano faces, Hut/Cave entries, Footprints.
B_EGGS, B_VOLCANO, B_ENTRIES, B_FOOT = range(4)
#: Orders of the blocks greedy compares under ``free_order`` (the first: the fixed order).
ORDERS = np.array([[B_EGGS, B_VOLCANO, B_ENTRIES, B_FOOT], [B_EGGS, B_ENTRIES, B_VOLCANO, B_FOOT],
                   [B_EGGS, B_ENTRIES, B_FOOT, B_VOLCANO], [B_ENTRIES, B_FOOT, B_EGGS, B_VOLCANO],
                   [B_ENTRIES, B_FOOT, B_VOLCANO, B_EGGS], [B_EGGS, B_VOLCANO, B_FOOT, B_ENTRIES]], np.int64)
#: Two evaluations closer than this are a tie (broken at random).
EPS = 1e-9
#: Greedy preference among species to hatch or to bring in (best first).
PREFERENCE = np.array([BRONTO, TREX, STEGO, PTERA, TRICE, PLESIO], np.int64)
#: The hatcher's weight of the best opponent's projected points (greedy's: 1): it builds its own
#: majorities rather than breaking the leader's.
HATCHER_DENY = 0.5


def _neighbours() -> np.ndarray:
    nb = -np.ones((16, 4), np.int64)
    for pos in range(16):
        r, c = divmod(pos, 4)
        for k, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
            if 0 <= r + dr < 4 and 0 <= c + dc < 4:
                nb[pos, k] = (r + dr) * 4 + c + dc
    return nb


NB = _neighbours()


def rule(fn):
    """A compiled helper that the tests also call from Python: ``njit(cache=True)`` without
    reference counting (it allocates nothing: see heron_sim.engine.jit.hot) and without the
    C-callable wrapper numba would build for it (compile time on a first run)."""
    return njit(cache=True, _nrt=False, no_cfunc_wrapper=True)(fn)


def inner(fn):
    """:func:`rule` for a helper that only compiled code calls: numba then
    builds neither a Python wrapper (argument unboxing) nor a C-callable wrapper for it, which
    costs compile time on a first run."""
    return njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)(fn)


@inner
def rnd(state, n):
    """A uniform integer 0..n-1 from the game's stream (one call site of the inlined
    ``below``, so the kernels stay quick to compile)."""
    return below(state, n)


# ------------------------------------------------------------------ board and regions
@rule
def volcano_pos(grid, ttype):
    """Grid position of the volcano tile."""
    for pos in range(16):
        if ttype[grid[pos]] == VOLCANO:
            return pos
    return -1


@rule
def shift_line(grid, vpos, d):
    """Earthquake: push the volcano at ``vpos`` one cell in direction ``d`` (0 up, 1 down,
    2 left, 3 right). Its whole row (left/right) or column (up/down) slides one cell that way and
    the tile pushed off the edge comes back at the other end; figures travel with their tiles
    (they are kept by tile id). Returns the volcano's new position."""
    last = grid[line_pos(vpos, d, THREE)]
    for i in range(3, 0, -1):
        grid[line_pos(vpos, d, i)] = grid[line_pos(vpos, d, i - 1)]
    grid[line_pos(vpos, d, ZERO)] = last
    new = -1
    for i in range(4):
        if line_pos(vpos, d, i) == vpos:
            new = line_pos(vpos, d, ZERO) if i == 3 else line_pos(vpos, d, i + 1)
    return new


@inner
def line_pos(vpos, d, i):
    """Grid position of the ``i``-th cell (in the order of travel) of the line that an
    earthquake in direction ``d`` slides, the line through ``vpos``."""
    r, c = vpos // 4, vpos % 4
    if d == 3:
        return r * 4 + i
    if d == 2:
        return r * 4 + 3 - i
    if d == 1:
        return i * 4 + c
    return (3 - i) * 4 + c


@rule
def label_regions(grid, ttype, label, size):
    """Regions: maximal orthogonally connected sets of prairie tiles, or of jungle tiles.

    Writes ``label[pos]`` (region index, -1 for volcano, hut, cave, lagoon) and ``size[r]``
    (tiles in region r); returns the number of regions."""
    for i in range(16):
        label[i] = -1
    n = 0
    for s in range(16):
        t = ttype[grid[s]]
        if label[s] != -1 or (t != PRAIRIE and t != JUNGLE):
            continue
        members = ONE << s         # the region of s, grown one ring at a time (bit = position)
        ring = members
        while ring != 0:
            grown = ZERO
            for x in range(16):
                if ring >> x & 1:
                    for k in range(4):
                        y = NB[x, k]
                        if y >= 0 and not members >> y & 1 and ttype[grid[y]] == t:
                            grown |= ONE << y
            members |= grown
            ring = grown
        cnt = 0
        for x in range(16):
            if members >> x & 1:
                label[x] = n
                cnt += 1
        size[n] = cnt
        n += 1
    return n


@rule
def tile_strength(cm, dsp, dloc, n_players, st):
    """Majority strength of each player on each tile id: a Cro-Magnon or a dinosaur counts one,
    a Brontosaurus three. Writes ``st[16, P]``."""
    for t in range(16):
        for p in range(n_players):
            st[t, p] = cm[t, p]
    for p in range(n_players):
        for k in range(dsp.shape[1]):
            if dsp[p, k] >= 0 and dloc[p, k] >= 0:
                st[dloc[p, k], p] += 3 if dsp[p, k] == BRONTO else 1


@rule
def region_strength(grid, label, n_reg, st, n_players, reg):
    """Sum the tile strengths of each region: ``reg[r, p]``."""
    for r in range(n_reg):
        for p in range(n_players):
            reg[r, p] = 0
    for pos in range(16):
        r = label[pos]
        if r >= 0:
            for p in range(n_players):
                reg[r, p] += st[grid[pos], p]


@inner
def leaders(reg, r, n_players):
    """Bit mask of the players with the majority in region ``r`` (all tied firsts; 0 if empty)."""
    best = 0
    for p in range(n_players):
        if reg[r, p] > best:
            best = reg[r, p]
    if best == 0:
        return 0
    mask = 0
    for p in range(n_players):
        if reg[r, p] == best:
            mask |= 1 << p
    return mask


@inner
def projected(reg, size, n_reg, n_players, pts):
    """Points each player would take from the regions if the volcano erupted now."""
    for p in range(n_players):
        pts[p] = 0
    for r in range(n_reg):
        m = leaders(reg, r, n_players)
        for p in range(n_players):
            if m >> p & 1:
                pts[p] += size[r]


@rule
def score_regions(grid, label, n_reg, size, cm, dsp, dloc, res, score, n_players, st, reg):
    """Region scoring of an eruption: each region's majority holders (ties: all of them) score
    one point per tile of the region, then take back all their figures in it to their reserves;
    the other players' figures stay."""
    tile_strength(cm, dsp, dloc, n_players, st)
    region_strength(grid, label, n_reg, st, n_players, reg)
    for r in range(n_reg):
        m = leaders(reg, r, n_players)
        if m == 0:
            continue
        for p in range(n_players):
            if m >> p & 1:
                score[p] += size[r]
        for pos in range(16):
            if label[pos] != r:
                continue
            t = grid[pos]
            for p in range(n_players):
                if m >> p & 1:
                    res[p] += cm[t, p]
                    cm[t, p] = 0
                    for k in range(dsp.shape[1]):
                        if dsp[p, k] >= 0 and dloc[p, k] == t:
                            dloc[p, k] = -1


@inner
def volcano_counts(volc, n_spaces, n_players, cnt):
    """Occupied volcano spaces of each player; returns the number of free spaces."""
    for p in range(n_players):
        cnt[p] = 0
    free = 0
    for s in range(n_spaces):
        if volc[s] >= 0:
            cnt[volc[s]] += 1
        else:
            free += 1
    return free


@inner
def volcano_count(volc, n_spaces, p):
    """Volcano spaces occupied by player ``p``."""
    n = 0
    for s in range(n_spaces):
        if volc[s] == p:
            n += 1
    return n


@rule
def is_worshipper(volc, n_spaces, n_players, p):
    """Supreme Worshipper: occupies the most volcano spaces, alone or tied (and at least one)."""
    best = 0
    for q in range(n_players):
        best = max(best, volcano_count(volc, n_spaces, q))
    mine = volcano_count(volc, n_spaces, p)
    return mine >= 1 and mine == best


@rule
def score_volcano(volc, n_spaces, n_players, score, res):
    """Volcano scoring of an eruption: 3 points to every player tied for the most spaces, 1 to
    every other player present; then every figure on the volcano goes back to its reserve."""
    best = 0
    for p in range(n_players):
        best = max(best, volcano_count(volc, n_spaces, p))
    for p in range(n_players):
        n = volcano_count(volc, n_spaces, p)
        if n > 0:
            score[p] += 3 if n == best else 1
            res[p] += n
    for s in range(n_spaces):
        volc[s] = -1


# ------------------------------------------------------------------ movement
@rule
def reach(grid, ttype, start, steps, species, dist, parent, stego_volcano=0):
    """Where a figure at grid position ``start`` can end a move of up to ``steps`` Footprints.

    Each Footprint is one orthogonal step; the volcano can be neither crossed nor entered,
    lagoons can be crossed but not ended in (except by a Plesiosaurus). A Pteranodon (species
    code) may also fly to any prairie or jungle tile for one Footprint. Writes ``dist[pos]``
    (footprints used, -1 unreachable) and ``parent[pos]`` (previous position on the path);
    returns nothing: a destination is legal iff ``legal_end(...)``. With ``stego_volcano`` a
    Stegosaurus may also step onto the volcano (the seed: "il peut occuper le volcan"), to end
    its move there, never to cross it."""
    for i in range(16):
        dist[i] = -1
        parent[i] = -1
    dist[start] = 0
    queue = ZERO | start       # the breadth-first queue: entry i in bits 4i..4i+3 (16 positions)
    head, tail = 0, 1
    while head < tail:
        x = (queue >> (4 * head)) & 15
        head += 1
        if dist[x] >= steps:
            continue
        for k in range(4):
            y = NB[x, k]
            if y >= 0 and dist[y] == -1 and ttype[grid[y]] != VOLCANO:
                dist[y] = dist[x] + 1
                parent[y] = x
                queue |= y << (4 * tail)
                tail += 1
            elif y >= 0 and dist[y] == -1 and stego_volcano == 1 and species == STEGO:
                dist[y] = dist[x] + 1     # onto the volcano, not through it (not queued)
                parent[y] = x
    if species == PTERA and steps >= 1:
        for y in range(16):
            t = ttype[grid[y]]
            if y != start and (t == PRAIRIE or t == JUNGLE) and (dist[y] == -1 or dist[y] > 1):
                dist[y] = 1
                parent[y] = start


@rule
def legal_end(grid, ttype, pos, dist, species, stego_volcano=0):
    """May a move end at ``pos`` (reached, not the start, not the volcano unless a Stegosaurus
    with ``stego_volcano``, not a lagoon unless Plesiosaurus)?"""
    if dist[pos] <= 0:
        return False
    t = ttype[grid[pos]]
    if t == VOLCANO:
        return stego_volcano == 1 and species == STEGO
    if t == LAGOON and species != PLESIO:
        return False
    return True


@inner
def threaten(tile, p, cm, dsp, dloc, res, n_players, trice_guard=0):
    """Tyrannosaurus of player ``p`` entering ``tile``: opposing Cro-Magnons there go back to
    their reserves, except (with ``trice_guard``, a power the seed does not give) those of a
    player whose Triceratops stands on the tile. Returns how many were sent back."""
    n = 0
    for q in range(n_players):
        if q == p or cm[tile, q] == 0:
            continue
        guarded = False
        for k in range(dsp.shape[1]):
            if trice_guard == 1 and dsp[q, k] == TRICE and dloc[q, k] == tile:
                guarded = True
        if not guarded:
            n += cm[tile, q]
            res[q] += cm[tile, q]
            cm[tile, q] = 0
    return n


@rule
def apply_move(p, fig, src, dst, grid, parent, cm, dsp, dloc, res, n_players, trice_guard=0):
    """Move figure ``fig`` of player ``p`` (-1: a Cro-Magnon, else a dinosaur base) from grid
    position ``src`` to ``dst`` along ``parent``; a Tyrannosaurus threatens every tile it enters.
    Returns the Cro-Magnons it sent back."""
    if fig < 0:
        cm[grid[src], p] -= 1
        cm[grid[dst], p] += 1
        return 0
    dloc[p, fig] = grid[dst]
    if dsp[p, fig] != TREX:
        return 0
    n = 0
    x = dst
    while x != src and x >= 0:
        n += threaten(grid[x], p, cm, dsp, dloc, res, n_players, trice_guard)
        x = parent[x]
    return n


# ------------------------------------------------------------------ strategy helpers
@inner
def evaluate(reg, size, n_reg, n_players, p, pts, deny=1.0):
    """Greedy's value of a position for player ``p``: projected region points minus the best
    opponent's (times 4), plus a small bonus for own strength standing in regions. ``deny``: the
    weight of the best opponent's points (1 for greedy; the hatcher's :data:`HATCHER_DENY`)."""
    projected(reg, size, n_reg, n_players, pts)
    other = 0
    for q in range(n_players):
        if q != p and pts[q] > other:
            other = pts[q]
    mine = 0
    for r in range(n_reg):
        mine += reg[r, p]
    if deny != 1.0:
        return 4.0 * (pts[p] - deny * other) + 0.1 * mine
    return 4.0 * (pts[p] - other) + 0.1 * mine


@inner
def moved_value(reg, size, n_players, p, pts, pts0, lead0, changed, mine, deny=1.0):
    """:func:`evaluate` of a position that differs from a base one only in the regions whose
    bits are set in ``changed``: ``pts0`` and ``lead0`` are the base's projected points and
    region leaders, ``mine`` the position's own strength summed over its regions. Writes the
    position's projected points to ``pts``."""
    for q in range(n_players):
        pts[q] = pts0[q]
    r = ZERO
    while changed != 0:
        if changed & 1:
            m0 = lead0[r]
            m = leaders(reg, r, n_players)
            if m != m0:
                for q in range(n_players):
                    if m0 >> q & 1:
                        pts[q] -= size[r]
                    if m >> q & 1:
                        pts[q] += size[r]
        changed >>= 1
        r += 1
    other = 0
    for q in range(n_players):
        if q != p and pts[q] > other:
            other = pts[q]
    if deny != 1.0:
        return 4.0 * (pts[p] - deny * other) + 0.1 * mine
    return 4.0 * (pts[p] - other) + 0.1 * mine


@inner
def greedy_move(p, steps, grid, ttype, cm, dsp, dloc, res, n_players, label, size, n_reg,
                st, reg, pts, dist, parent, best_parent, state, stego_volcano, pts0, lead0, hatcher=False):
    """Greedy's best single move with at most ``steps`` Footprints; returns (gain, fig, src,
    dst, cost), fig = -2 if no move improves the evaluation; ties between equally good moves
    are broken uniformly at random. Writes the chosen path to ``best_parent``. ``pts0``
    (int64[P]), ``lead0`` (int64[16]): scratch. ``hatcher``: the hatcher's evaluation
    (``deny`` = :data:`HATCHER_DENY`) and its ties to the first move found (no draw)."""
    deny = HATCHER_DENY if hatcher else 1.0
    tile_strength(cm, dsp, dloc, n_players, st)
    region_strength(grid, label, n_reg, st, n_players, reg)
    base = evaluate(reg, size, n_reg, n_players, p, pts, deny)
    # each move changes a few regions only: its evaluation is the base one updated there
    # (moved_value: the same integers as evaluate's, so the same value to the last bit)
    mine0 = ZERO
    for q in range(n_players):
        pts0[q] = pts[q]
    for r in range(n_reg):
        lead0[r] = leaders(reg, r, n_players)
        mine0 += reg[r, p]
    best, bfig, bsrc, bdst, bcost = 1e-9, -2, -1, -1, 0
    nt = ZERO
    n_slots = dsp.shape[1]
    for src in range(16):
        t = grid[src]
        for fig in range(-1, n_slots):
            if fig < 0:
                if cm[t, p] == 0:
                    continue
                w, sp = 1, -1
            else:
                if dsp[p, fig] < 0 or dloc[p, fig] != t:
                    continue
                sp = dsp[p, fig]
                w = 3 if sp == BRONTO else 1
            reach(grid, ttype, src, steps, sp, dist, parent, stego_volcano)
            ra = label[src]
            for dst in range(16):
                if not legal_end(grid, ttype, dst, dist, sp, stego_volcano):
                    continue
                rb = label[dst]
                changed, mine = ZERO, mine0   # regions the move changes (bits), own strength in regions
                if ra >= 0:
                    reg[ra, p] -= w
                    changed |= ONE << ra
                    mine -= w
                if rb >= 0:
                    reg[rb, p] += w
                    changed |= ONE << rb
                    mine += w
                # a Tyrannosaurus also weakens opponents along its path
                if sp == TREX:
                    x = dst
                    while x != src and x >= 0:
                        if label[x] >= 0:
                            changed |= ONE << label[x]
                            for q in range(n_players):
                                if q != p and cm[grid[x], q] > 0:
                                    reg[label[x], q] -= cm[grid[x], q]
                        x = parent[x]
                gain = moved_value(reg, size, n_players, p, pts, pts0, lead0, changed, mine, deny) - base - 0.01 * dist[dst]
                if sp == TREX:
                    x = dst
                    while x != src and x >= 0:
                        if label[x] >= 0:
                            for q in range(n_players):
                                if q != p and cm[grid[x], q] > 0:
                                    reg[label[x], q] += cm[grid[x], q]
                        x = parent[x]
                if ra >= 0:
                    reg[ra, p] += w
                if rb >= 0:
                    reg[rb, p] -= w
                take = False
                if gain > best + EPS:
                    best, nt, take = gain, 1, True
                elif bfig != -2 and gain >= best - EPS and not hatcher:
                    nt += 1
                    take = rnd(state, nt) == 0
                if take:
                    bfig, bsrc, bdst, bcost = fig, src, dst, dist[dst]
                    for i in range(16):
                        best_parent[i] = parent[i]
    return best, bfig, bsrc, bdst, bcost


@rule
def pick_species(p, egg, dsp, supply, species, cost, n_slots, state, strat):
    """The species player ``p`` hatches this turn, or -1: one it can pay with the Cro-Magnons on
    its Egg space, with a copy left and a free base."""
    free = 0
    for k in range(n_slots):
        if dsp[p, k] < 0:
            free += 1
    if free == 0:
        return -1
    if strat == S_HATCHER:                 # the cheapest it can pay; ties: greedy's preference
        best, bc = -1, 1 << 30
        for i in range(PREFERENCE.shape[0]):
            s = PREFERENCE[i]
            for j in range(species.shape[0]):
                if species[j] == s and supply[s] > 0 and cost[s] <= egg[p] and cost[s] < bc:
                    best, bc = s, cost[s]
        return best
    if strat == S_GREEDY:
        for i in range(PREFERENCE.shape[0]):
            s = PREFERENCE[i]
            for j in range(species.shape[0]):
                if species[j] == s and supply[s] > 0 and cost[s] <= egg[p]:
                    return s
        return -1
    n = ZERO
    for j in range(species.shape[0]):
        s = species[j]
        if supply[s] > 0 and cost[s] <= egg[p]:
            n += 1
    if n == 0 or rnd(state, TWO) == 0:
        return -1
    c = rnd(state, n)
    for j in range(species.shape[0]):
        s = species[j]
        if supply[s] > 0 and cost[s] <= egg[p]:
            if c == 0:
                return s
            c -= 1
    return -1


@rule
def hatch(p, s, egg, res, dsp, dloc, supply, n_slots):
    """Hatch species ``s``: the dinosaur joins the reserve and *all* the Cro-Magnons of the Egg
    space go back to the reserve, whatever the cost. Returns the base used (-1 if none)."""
    for k in range(n_slots):
        if dsp[p, k] < 0:
            dsp[p, k] = s
            dloc[p, k] = -1
            supply[s] -= 1
            res[p] += egg[p]
            egg[p] = 0
            return k
    return -1


@rule
def volcano_face(p, volc, n_spaces, res, egg, cm, grid, strat, state, n_players):
    """One Volcano face (mandatory): put a Cro-Magnon on a free volcano space, from the reserve,
    or if it is empty from the Egg space or a tile. No effect once every space is taken.
    Returns True if a space was filled."""
    slot = -1
    for s in range(n_spaces):
        if volc[s] < 0:
            slot = s
            break
    if slot < 0:
        return False
    if res[p] > 0:
        res[p] -= 1
    else:
        n_src = ONE if egg[p] > 0 else ZERO
        for t in range(16):
            if cm[t, p] > 0:
                n_src += 1
        if n_src == 0:
            return False
        if (strat == S_GREEDY and egg[p] > 0) or (strat == S_HATCHER and n_src == 1 and egg[p] > 0):
            c = 0           # the hatcher keeps its eggs: the Egg space only when no tile holds one
        elif strat != S_RANDOM:
            # the tile where this Cro-Magnon weighs least: the one holding the most of them
            bt, bn, nt = -1, -1, ZERO
            for t in range(16):
                if cm[t, p] > bn:
                    bt, bn, nt = t, cm[t, p], ONE
                elif cm[t, p] == bn and bn > 0:
                    nt += 1
                    if rnd(state, nt) == 0:
                        bt = t
            cm[bt, p] -= 1
            volc[slot] = p
            return True
        else:
            c = rnd(state, n_src)
        if egg[p] > 0:
            if c == 0:
                egg[p] -= 1
                volc[slot] = p
                return True
            c -= 1
        for t in range(16):
            if cm[t, p] > 0:
                if c == 0:
                    cm[t, p] -= 1
                    break
                c -= 1
    volc[slot] = p
    return True


# ------------------------------------------------------------------ one turn, one game

@inner
def order_code(order, present):
    """The blocks of ``order`` that do something this turn (bit ``b`` of ``present`` set for block
    ``b``), in their order, as one number (base 5, digits 1..4): two orders with one code make
    the same moves with the same draws."""
    code = ZERO
    for b in range(4):
        if present >> order[b] & 1:
            code = code * 5 + order[b] + 1
    return code


@inner
def copy_state(cm, dsp, dloc, res, egg, volc, supply, hatched, stats, state,
               cm2, dsp2, dloc2, res2, egg2, volc2, supply2, hat2, stats2, state2):
    """Copy what the action step changes (figures, reserves, Egg spaces, volcano spaces, supply,
    counters, random state) into the second set of arrays (same shapes)."""
    for t in range(cm.shape[0]):
        for q in range(cm.shape[1]):
            cm2[t, q] = cm[t, q]
    for q in range(dsp.shape[0]):
        for k in range(dsp.shape[1]):
            dsp2[q, k] = dsp[q, k]
            dloc2[q, k] = dloc[q, k]
        for k in range(hatched.shape[1]):
            hat2[q, k] = hatched[q, k]
        res2[q] = res[q]
        egg2[q] = egg[q]
    for i in range(volc.shape[0]):
        volc2[i] = volc[i]
    for i in range(supply.shape[0]):
        supply2[i] = supply[i]
    for i in range(stats.shape[0]):
        stats2[i] = stats[i]
    for i in range(state.shape[0]):
        state2[i] = state[i]


@njit(cache=True)
def new_workspace(n_players):
    """A set of arrays for :func:`copy_state`: cm, dsp, dloc, res, egg, volc, supply, hatched,
    stats, random state."""
    return (np.zeros((16, n_players), np.int64), np.zeros((n_players, MAX_SLOTS), np.int64),
            np.zeros((n_players, MAX_SLOTS), np.int64), np.zeros(n_players, np.int64),
            np.zeros(n_players, np.int64), np.zeros(10, np.int64), np.zeros(6, np.int64),
            np.zeros((n_players, 6), np.int64), np.zeros(N_STATS, np.int64), np.zeros(3, np.uint64))


@inner
def blocks_present(p, strat, counts, egg, dsp, supply, species, cost, n_slots, state):
    """The blocks of the action step that do something this turn (``counts``: Volcano, Hut,
    Cave, Footprint and Egg faces), bit ``b`` set for block ``b``."""
    n_v, n_h, n_c, n_f, n_e = counts
    present = ZERO
    if n_e > 0 or pick_species(p, egg, dsp, supply, species, cost, n_slots, state, strat) >= 0:
        present |= 1 << B_EGGS   # greedy's pick draws nothing; Egg spaces only shrink outside this block
    if n_v > 0:
        present |= 1 << B_VOLCANO
    if n_h + n_c > 0:
        present |= 1 << B_ENTRIES
    if n_f > 0:
        present |= 1 << B_FOOT
    return present


@inner
def eggs_block(p, strat, n_e, n_slots, species, cost, res, egg, dsp, dloc, supply, hatched, state):
    """Egg faces and one hatching: each Egg face takes a Cro-Magnon from the reserve to the Egg
    space (greedy: only while it has a free base), then ``p`` hatches what :func:`pick_species`
    chooses, if anything."""
    free = 0
    for k in range(n_slots):
        if dsp[p, k] < 0:
            free += 1
    for i in range(n_e):
        if res[p] > 0 and (strat != S_GREEDY or free > 0):
            res[p] -= 1
            egg[p] += 1
    s = pick_species(p, egg, dsp, supply, species, cost, n_slots, state, strat)
    if s >= 0:
        hatch(p, s, egg, res, dsp, dloc, supply, n_slots)
        hatched[p, s] += 1


@inner
def entries_block(p, strat, n_h, n_c, hut_t, cave_t, n_slots, res, cm, dsp, dloc, state):
    """Hut faces, then Cave faces: each brings one figure from the reserve onto that tile (greedy:
    a dinosaur by :data:`PREFERENCE`, else a Cro-Magnon; random: may pass, else a figure held
    uniformly), until the reserve is empty."""
    for i in range(n_h + n_c):
        tile = hut_t if i < n_h else cave_t
        n_d = 0
        for k in range(n_slots):
            if dsp[p, k] >= 0 and dloc[p, k] < 0:
                n_d += 1
        if res[p] + n_d == 0:
            break
        fig = -1
        if strat == S_RANDOM:
            if rnd(state, TWO) == 0:
                continue
            c = rnd(state, res[p] + n_d)
            if c >= res[p]:
                c -= res[p]
                for k in range(n_slots):
                    if dsp[p, k] >= 0 and dloc[p, k] < 0:
                        if c == 0:
                            fig = k
                            break
                        c -= 1
        elif n_d > 0:
            for j in range(PREFERENCE.shape[0]):
                for k in range(n_slots):
                    if fig < 0 and dsp[p, k] == PREFERENCE[j] and dloc[p, k] < 0:
                        fig = k
        if fig < 0:
            res[p] -= 1
            cm[tile, p] += 1
        else:
            dloc[p, fig] = tile


@inner
def random_footprints(p, left, grid, ttype, cm, dsp, dloc, res, n_players, n_slots, dist, parent, state, stats,
                      sv, tg):
    """random's move with ``left`` Footprints: a random figure on the board to a random legal
    end within them. Returns the Footprints used (1 when the figure cannot move: that Footprint
    is lost), or -1 when ``p`` has no figure on the board."""
    n_fig = ZERO
    for t in range(16):
        n_fig += cm[t, p]
    for k in range(n_slots):
        if dsp[p, k] >= 0 and dloc[p, k] >= 0:
            n_fig += 1
    if n_fig == 0:
        return -ONE
    c = rnd(state, n_fig)
    fig, src_t = -1, -1
    for t in range(16):
        if c < cm[t, p]:
            src_t = t
            break
        c -= cm[t, p]
    if src_t < 0:
        for k in range(n_slots):
            if dsp[p, k] >= 0 and dloc[p, k] >= 0:
                if c == 0:
                    fig, src_t = k, dloc[p, k]
                    break
                c -= 1
    src = ZERO
    for pos in range(16):
        if grid[pos] == src_t:
            src = pos
    sp = -1 if fig < 0 else dsp[p, fig]
    reach(grid, ttype, src, left, sp, dist, parent, sv)
    n_dst = ZERO
    for pos in range(16):
        if legal_end(grid, ttype, pos, dist, sp, sv):
            n_dst += 1
    if n_dst == 0:
        return ONE
    c = rnd(state, n_dst)
    for pos in range(16):
        if legal_end(grid, ttype, pos, dist, sp, sv):
            if c == 0:
                stats[ST_THREATENED] += apply_move(p, fig, src, pos, grid, parent, cm, dsp, dloc, res, n_players, tg)
                return dist[pos]
            c -= 1
    return ZERO


@inner
def footprints_block(p, strat, n_f, grid, ttype, cm, dsp, dloc, res, n_slots, label, size, st, reg, pts,
                     dist, parent, bparent, state, stats, sv, tg, pts0, lead0):
    """Footprint faces: ``n_f`` steps spent one move at a time (greedy and the hatcher: the best
    move by :func:`greedy_move` while one gains; random: :func:`random_footprints`)."""
    n_players = cm.shape[1]
    n_reg = label_regions(grid, ttype, label, size)
    left = n_f
    while left > 0:
        if strat != S_RANDOM:
            gain, fig, src, dst, c = greedy_move(p, left, grid, ttype, cm, dsp, dloc, res, n_players,
                                                 label, size, n_reg, st, reg, pts, dist, parent, bparent,
                                                 state, sv, pts0, lead0, strat == S_HATCHER)
            if fig == -2:
                break
            stats[ST_THREATENED] += apply_move(p, fig, src, dst, grid, bparent, cm, dsp, dloc, res, n_players, tg)
            left -= c
            continue
        used = random_footprints(p, left, grid, ttype, cm, dsp, dloc, res, n_players, n_slots, dist, parent, state,
                                 stats, sv, tg)
        if used < 0:
            break
        left -= used


@inner
def play_order(p, strat, order, counts, hut_t, cave_t, grid, ttype, species, cost, params, cm, dsp, dloc, res, egg,
               volc, supply, hatched, stats, state, label, size, st, reg, pts, dist, parent, bparent, pts0, lead0):
    """The four blocks of the action step in ``order`` (a row of ORDERS) on the state given;
    Volcano faces are mandatory whenever they come."""
    n_players = cm.shape[1]
    n_v, n_h, n_c, n_f, n_e = counts
    n_slots = params[P_SLOTS]
    for b in range(4):
        blk = order[b]
        if blk == B_EGGS:
            eggs_block(p, strat, n_e, n_slots, species, cost, res, egg, dsp, dloc, supply, hatched, state)
        elif blk == B_VOLCANO:
            for i in range(n_v):
                volcano_face(p, volc, params[P_SPACES], res, egg, cm, grid, strat, state, n_players)
        elif blk == B_ENTRIES:
            entries_block(p, strat, n_h, n_c, hut_t, cave_t, n_slots, res, cm, dsp, dloc, state)
        else:
            footprints_block(p, strat, n_f, grid, ttype, cm, dsp, dloc, res, n_slots, label, size, st, reg, pts,
                             dist, parent, bparent, state, stats, params[P_STEGO_VOLCANO], params[P_TRICE_GUARD],
                             pts0, lead0)


@rule
def act_step(p, strat, state, grid, ttype, species, cost, params, cm, dsp, dloc, res, egg, volc,
             supply, hatched, stats, label, size, st, reg, pts, dist, parent, bparent, pts0, lead0, counts,
             ws_try, ws_best):
    """Step 2 of a turn: player ``p`` uses its final dice (``counts``: Volcano, Hut, Cave,
    Footprint and Egg faces) in an order of ORDERS (:func:`play_order`); returns the order's index.

    The fixed order is ORDERS[0]. Under free_order greedy plays each order on a copy of the
    state (``ws_try``, a :func:`new_workspace`), each from a copy of the random ``state``, and
    takes the best by its evaluation (ties: the earlier order; orders carry no board or seat
    label): the state that order reached (kept in ``ws_best``, random state included) becomes the
    real one. A block with nothing to do this turn (no Volcano face; no Hut or Cave; no Footprint;
    no Egg and nothing to hatch) changes nothing and draws nothing wherever it comes, so an order
    whose other blocks come in the same sequence as an earlier order's makes the same moves: it is
    not tried (it could only tie), and when every order plays the same none is tried. With
    ``params[P_REPLAY_ORDERS]`` (the reference the tests compare with) every order is tried and
    the best one replayed on the real state."""
    n_players = cm.shape[1]
    n_orders = ORDERS.shape[0]
    hut_t, cave_t = -1, -1
    for t in range(16):
        if ttype[t] == HUT:
            hut_t = t
        elif ttype[t] == CAVE:
            cave_t = t
    replay = params[P_REPLAY_ORDERS] == 1
    tries = strat != S_RANDOM and params[P_FREE_ORDER] == 1
    present = ZERO
    if tries:
        present = blocks_present(p, strat, counts, egg, dsp, supply, species, cost, params[P_SLOTS], state)
    if tries and not replay:
        tries = False
        for o in range(1, n_orders):
            if order_code(ORDERS[o], present) != order_code(ORDERS[0], present):
                tries = True
    cm2, dsp2, dloc2, res2, egg2, volc2, supply2, hat2, stats2, state2 = ws_try
    k_cm, k_dsp, k_dloc, k_res, k_egg, k_volc, k_supply, k_hat, k_stats, k_state = ws_best
    best_o, best_v = ZERO, -1e18
    for o in range(n_orders + 1):  # the orders tried on copies, then the real play
        trying = o < n_orders
        if trying:
            if not tries:
                continue
            if not replay:
                c = order_code(ORDERS[o], present)
                seen = False
                for j in range(o):
                    if order_code(ORDERS[j], present) == c:
                        seen = True
                if seen:
                    continue
            copy_state(cm, dsp, dloc, res, egg, volc, supply, hatched, stats, state,
                       cm2, dsp2, dloc2, res2, egg2, volc2, supply2, hat2, stats2, state2)
            a_cm, a_dsp, a_dloc, a_res, a_egg, a_volc, a_supply, a_hat, a_stats, a_state = \
                cm2, dsp2, dloc2, res2, egg2, volc2, supply2, hat2, stats2, state2
            play = o
        elif tries and not replay:
            copy_state(k_cm, k_dsp, k_dloc, k_res, k_egg, k_volc, k_supply, k_hat, k_stats, k_state,
                       cm, dsp, dloc, res, egg, volc, supply, hatched, stats, state)
            return best_o
        else:
            a_cm, a_dsp, a_dloc, a_res, a_egg, a_volc, a_supply, a_hat, a_stats, a_state = \
                cm, dsp, dloc, res, egg, volc, supply, hatched, stats, state
            play = best_o
        play_order(p, strat, ORDERS[play], counts, hut_t, cave_t, grid, ttype, species, cost, params, a_cm, a_dsp,
                   a_dloc, a_res, a_egg, a_volc, a_supply, a_hat, a_stats, a_state, label, size, st, reg, pts,
                   dist, parent, bparent, pts0, lead0)
        if trying:
            n_reg = label_regions(grid, ttype, label, size)
            tile_strength(cm2, dsp2, dloc2, n_players, st)
            region_strength(grid, label, n_reg, st, n_players, reg)
            v = evaluate(reg, size, n_reg, n_players, p, pts, HATCHER_DENY if strat == S_HATCHER else 1.0)
            if v > best_v + EPS:
                best_o, best_v = play, v
                if not replay:
                    copy_state(cm2, dsp2, dloc2, res2, egg2, volc2, supply2, hat2, stats2, state2,
                               k_cm, k_dsp, k_dloc, k_res, k_egg, k_volc, k_supply, k_hat, k_stats, k_state)
    return best_o


@rule
def quake_flips(grid, ttype, vpos, d, cm, dsp, dloc, n_players, label, size, st, reg, grid2, before):
    """Would the earthquake (``vpos``, ``d``) change the majority holders of the region of some
    occupied prairie or jungle tile? (compared tile by tile, before and after the slide;
    ``grid2``, ``before``: scratch, int64[16])"""
    tile_strength(cm, dsp, dloc, n_players, st)
    for t in range(16):
        before[t] = 0
    nr = label_regions(grid, ttype, label, size)
    region_strength(grid, label, nr, st, n_players, reg)
    for pos in range(16):
        if label[pos] >= 0:
            before[grid[pos]] = leaders(reg, label[pos], n_players)
    for i in range(16):
        grid2[i] = grid[i]
    shift_line(grid2, vpos, d)
    nr = label_regions(grid2, ttype, label, size)
    region_strength(grid2, label, nr, st, n_players, reg)
    for pos in range(16):
        t = grid2[pos]
        if label[pos] >= 0:
            occupied = False
            for p in range(n_players):
                if st[t, p] > 0:
                    occupied = True
            if occupied and leaders(reg, label[pos], n_players) != before[t]:
                return True
    return False


@rule
def winner_of(score, n_players):
    """Best score wins; a tie goes to the tied player farthest from the first in turn order."""
    w = 0
    for p in range(1, n_players):
        if score[p] >= score[w]:
            w = p
    return w


@inner
def new_game(layout, params, grid, ttype, cm, dsp, dloc, res, egg, score, volc, supply, hatched, stats):
    """Set up a game: the start layout, empty bases, full reserves, free volcano spaces, the
    whole supply, zero counters (in loops: no slice assignment, no ``np.full``)."""
    n_players = cm.shape[1]
    for t in range(16):
        grid[t] = t
        ttype[t] = layout[t]
        for q in range(n_players):
            cm[t, q] = 0
    for q in range(n_players):
        for k in range(MAX_SLOTS):
            dsp[q, k] = -1
            dloc[q, k] = -1
        for s in range(6):
            hatched[q, s] = 0
        res[q] = params[P_CROMAGNONS]
        egg[q] = 0
        score[q] = 0
    for i in range(10):
        volc[i] = -1
    for s in range(6):
        supply[s] = params[P_COPIES]
    for i in range(N_STATS):
        stats[i] = 0


@inner
def greedy_reroll(p, state, faces, dv, params, grid, ttype, species, cost, cm, dsp, dloc, res, egg, volc, supply,
                  label, size, st, reg, pts, cnt):
    """Greedy's reroll: each die whose face it has no use for is rolled again (a Volcano face
    while its evaluation is negative and it trails on the volcano, Hut and Cave faces beyond the
    figures it can bring in, Egg faces without a free base or beyond the dearest cost). Returns
    whether a die was rolled."""
    n_players = cm.shape[1]
    nf = faces.shape[0]
    n_slots = params[P_SLOTS]
    n_reg = label_regions(grid, ttype, label, size)
    tile_strength(cm, dsp, dloc, n_players, st)
    region_strength(grid, label, n_reg, st, n_players, reg)
    ev = evaluate(reg, size, n_reg, n_players, p, pts)
    volcano_counts(volc, params[P_SPACES], n_players, cnt)
    other = 0
    for q in range(n_players):
        if q != p:
            other = max(other, cnt[q])
    n_res = res[p]
    free = 0
    max_cost = 0
    for k in range(n_slots):
        if dsp[p, k] < 0:
            free += 1
        elif dloc[p, k] < 0:
            n_res += 1
    for j in range(species.shape[0]):
        if supply[species[j]] > 0:
            max_cost = max(max_cost, cost[species[j]])
    kept_entries, kept_eggs, kept_volc = 0, 0, 0
    any_reroll = False
    for i in range(params[P_DICE]):
        f = dv[i]
        keep = True
        if f == F_VOLCANO:
            keep = ev >= 0 or cnt[p] + kept_volc + 1 >= other
            kept_volc += 1
        elif f == F_HUT or f == F_CAVE:
            keep = kept_entries < n_res
            kept_entries += 1
        elif f == F_EGG:
            keep = free > 0 and egg[p] + kept_eggs < max_cost
            kept_eggs += 1
        if not keep:
            dv[i] = faces[rnd(state, nf)]
            any_reroll = True
    return any_reroll


@inner
def roll_dice(p, sp, state, faces, dv, params, grid, ttype, species, cost, cm, dsp, dloc, res, egg, volc, supply,
              label, size, st, reg, pts, cnt):
    """Step 1 of a turn: roll the dice into ``dv``, then up to ``rolls - 1`` times roll any of
    them again, even ones kept before (random: stops at random, else rolls each die again at
    random; greedy: :func:`greedy_reroll` until it keeps them all). Returns the Volcano, Hut,
    Cave, Footprint and Egg faces rolled."""
    n_dice = params[P_DICE]
    nf = faces.shape[0]
    for i in range(n_dice):
        dv[i] = faces[rnd(state, nf)]
    for roll in range(1, params[P_ROLLS]):
        if sp == S_RANDOM:
            if rnd(state, TWO) == 0:
                break
            for i in range(n_dice):
                if rnd(state, TWO) == 1:
                    dv[i] = faces[rnd(state, nf)]
            continue
        if not greedy_reroll(p, state, faces, dv, params, grid, ttype, species, cost, cm, dsp, dloc, res, egg, volc,
                             supply, label, size, st, reg, pts, cnt):
            break
    n_v, n_h, n_c, n_f, n_e = ZERO, ZERO, ZERO, ZERO, ZERO
    for i in range(n_dice):
        f = dv[i]
        if f == F_VOLCANO:
            n_v += 1
        elif f == F_HUT:
            n_h += 1
        elif f == F_CAVE:
            n_c += 1
        elif f == F_FOOT:
            n_f += 1
        elif f == F_EGG:
            n_e += 1
    return n_v, n_h, n_c, n_f, n_e


@inner
def earthquake(p, sp, state, grid, ttype, cm, dsp, dloc, volc, params, label, size, st, reg, pts, grid2, tmp16,
               stats):
    """Step 3 of a turn: the Supreme Worshipper, or the owner of a Stegosaurus on the board, may
    push the volcano one cell (greedy: the best direction by its evaluation, ties at random;
    random: at random), counted in ``stats`` with the quakes that changed a majority."""
    n_players = cm.shape[1]
    n_reg = label_regions(grid, ttype, label, size)
    may = is_worshipper(volc, params[P_SPACES], n_players, p)
    for k in range(params[P_SLOTS]):
        if dsp[p, k] == STEGO and dloc[p, k] >= 0:
            may = True
    if not may:
        return
    vpos = volcano_pos(grid, ttype)
    d = -1
    if sp == S_RANDOM:
        if rnd(state, TWO) == 1:
            d = rnd(state, FOUR)
    else:
        tile_strength(cm, dsp, dloc, n_players, st)
        region_strength(grid, label, n_reg, st, n_players, reg)
        best = evaluate(reg, size, n_reg, n_players, p, pts) + 1e-9
        ntq = ZERO
        for dd in range(4):
            for i in range(16):
                grid2[i] = grid[i]
            shift_line(grid2, vpos, dd)
            nr = label_regions(grid2, ttype, label, size)
            region_strength(grid2, label, nr, st, n_players, reg)
            e = evaluate(reg, size, nr, n_players, p, pts)
            if e > best + EPS:
                best, d, ntq = e, dd, 1
            elif d >= 0 and e >= best - EPS:
                ntq += 1
                if rnd(state, ntq) == 0:
                    d = dd
    if d >= 0:
        stats[ST_QUAKES] += 1
        if quake_flips(grid, ttype, vpos, d, cm, dsp, dloc, n_players, label, size, st, reg, grid2, tmp16):
            stats[ST_FLIPS] += 1
        shift_line(grid, vpos, d)


@inner
def erupt(volc, params, score, res, grid, ttype, cm, dsp, dloc, label, size, st, reg, stats):
    """Step 4 of a turn: when every volcano space is taken the volcano erupts, and the volcano
    then the regions score (counted in ``stats``). Returns whether it erupted."""
    n_players = cm.shape[1]
    erupted = True
    for s in range(params[P_SPACES]):
        if volc[s] < 0:
            erupted = False
    if erupted:
        stats[ST_ERUPTIONS] += 1
        score_volcano(volc, params[P_SPACES], n_players, score, res)
        n_reg = label_regions(grid, ttype, label, size)
        score_regions(grid, label, n_reg, size, cm, dsp, dloc, res, score, n_players, st, reg)
    return erupted


@njit(cache=True, nogil=True)  # games.base.play_slices runs slices in threads
def run_games(seed, first, n_games, strat, layout, faces, species, cost, params,
              winner, length, finished, scores, hatched, stats):
    """Play games ``first .. first+n_games-1`` of master ``seed``; game i draws only from the
    stream (seed, i). Writes winner[n], length[n] (turns), finished[n], scores[n, P],
    hatched[n, P, 6] (dinosaurs hatched per species), stats[n, N_STATS]."""
    n_players = strat.shape[0]
    # Arrays are filled by loops, never by slices or np.full/np.ones: each numpy overload (and a
    # slice assignment's shape check, which formats its error message) costs compile time.
    ws_try = new_workspace(n_players)
    ws_best = new_workspace(n_players)
    state = np.zeros(3, np.uint64)
    grid = np.zeros(16, np.int64)
    ttype = np.zeros(16, np.int64)
    cm = np.zeros((16, n_players), np.int64)
    dsp = np.zeros((n_players, MAX_SLOTS), np.int64)
    dloc = np.zeros((n_players, MAX_SLOTS), np.int64)
    res = np.zeros(n_players, np.int64)
    egg = np.zeros(n_players, np.int64)
    score = np.zeros(n_players, np.int64)
    volc = np.zeros(10, np.int64)
    supply = np.zeros(6, np.int64)
    label = np.zeros(16, np.int64)
    size = np.zeros(16, np.int64)
    st = np.zeros((16, n_players), np.int64)
    reg = np.zeros((16, n_players), np.int64)
    pts = np.zeros(n_players, np.int64)
    dist = np.zeros(16, np.int64)
    parent = np.zeros(16, np.int64)
    bparent = np.zeros(16, np.int64)
    dv = np.zeros(params[P_DICE], np.int64)
    grid2 = np.zeros(16, np.int64)
    hat = np.zeros((n_players, 6), np.int64)
    stt = np.zeros(N_STATS, np.int64)
    cnt = np.zeros(n_players, np.int64)
    tmp16 = np.zeros(16, np.int64)
    for g in range(n_games):
        start_stream(seed, first + g, state)
        new_game(layout, params, grid, ttype, cm, dsp, dloc, res, egg, score, volc, supply, hat, stt)
        turns, p, done = ZERO, ZERO, False
        while turns < params[P_MAX_TURNS]:
            # one turn of player p: roll, act, earthquake, eruption
            sp = strat[p]
            counts = roll_dice(p, sp, state, faces, dv, params, grid, ttype, species, cost, cm, dsp, dloc, res, egg,
                               volc, supply, label, size, st, reg, pts, cnt)
            act_step(p, sp, state, grid, ttype, species, cost, params, cm, dsp, dloc, res, egg, volc, supply,
                     hat, stt, label, size, st, reg, pts, dist, parent, bparent, cnt, tmp16, counts, ws_try, ws_best)
            earthquake(p, sp, state, grid, ttype, cm, dsp, dloc, volc, params, label, size, st, reg, pts, grid2,
                       tmp16, stt)
            erupted = erupt(volc, params, score, res, grid, ttype, cm, dsp, dloc, label, size, st, reg, stt)
            turns += 1
            if erupted:
                for q in range(n_players):
                    if score[q] >= params[P_TARGET]:
                        done = True
            if done and (params[P_END_ROUND] == 0 or p == n_players - 1):
                break                  # the seed ends at once; end = "round" lets the round finish
            p = (p + 1) % n_players
        winner[g] = winner_of(score, n_players) if done else -1
        length[g] = turns
        finished[g] = done
        for q in range(n_players):
            scores[g, q] = score[q]
            for s in range(6):
                hatched[g, q, s] = hat[q, s]
        for i in range(N_STATS):
            stats[g, i] = stt[i]
