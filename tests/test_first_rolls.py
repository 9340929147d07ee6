"""The first rolls' columns (heron_sim.strategies.expert_column, ROW_FIRST): a turn's first
look-up read from the tables' columns of every first roll must be the look-up itself."""

from __future__ import annotations

import itertools

import numba
import numpy as np
import pytest

from heron_sim.rules import Rules
from heron_sim.strategies.expert_build import check_tables, expert_tables
from heron_sim.strategies.expert_column import _first_rank, first_roll_terms, held_column, turn_column, _fresh
from heron_sim.strategies.expert_dp import N_TABLES, ROW_FIRST, ROW_STRIDE

pytestmark = pytest.mark.exact


@pytest.mark.parametrize("n", [7, 8, 10])
def test_the_ranks_of_the_compositions_are_zero_to_their_number(n):
    C, terms = first_roll_terms(n)
    S = n + 1
    t = terms.reshape(6, S, S)
    ranks = []
    for c in itertools.product(range(n + 1), repeat=6):
        if sum(c) <= n:
            rem, k = n, 0
            for a in range(6):
                k += int(t[a, c[a], rem])
                rem -= c[a]
            ranks.append(k)
    assert sorted(ranks) == list(range(C))


@numba.njit
def _mismatches(sp, n, kept_too):
    """Look-ups where turn_column differs from held_column: every first roll of ``n`` dice, every
    table and guide (6: the Héron, no animal), the first rolls' rolls left and one more; with
    ``kept_too``, also one die kept (turn_column then looks up)."""
    fo = int(sp[0, ROW_FIRST])
    r0 = int(sp[0, fo])
    bad = 0
    seen = 0
    c = np.zeros(6, dtype=np.int64)
    while True:
        total = c.sum()
        if total <= n:
            roll = np.uint64(0)
            for a in range(6):
                roll += np.uint64(c[a]) << np.uint64(8 * a)
            roll += np.uint64(n - total) << np.uint64(48)
            for t in range(N_TABLES):
                for g in range(7):
                    for r in (r0, r0 + 1):
                        seen += 1
                        a1, s1 = turn_column(sp, 0, t, g, r, np.uint64(0), roll, n)
                        a2, s2 = held_column(sp, 0, t, g, r, np.uint64(0), roll, n, _fresh(roll))
                        bad += a1 != a2 or (a1 >= 0 and s1 != s2)
                        if kept_too and c[0] > 0:
                            one = np.uint64(1)
                            a1, s1 = turn_column(sp, 0, t, g, r, one, roll - one, n)
                            a2, s2 = held_column(sp, 0, t, g, r, one, roll - one, n, _fresh(roll - one))
                            bad += a1 != a2 or (a1 >= 0 and s1 != s2)
        a = 0
        while a < 6 and c[a] == n:
            c[a] = 0
            a += 1
        if a == 6:
            break
        c[a] += 1
    return bad, seen


def test_a_turns_first_look_up_from_the_first_rolls_columns_is_the_look_up():
    rules = Rules.build(mode="8d8")
    tab = expert_tables(rules)
    row = tab.row
    n = int(row[ROW_STRIDE]) - 1
    assert row[ROW_FIRST] > 0 and row[int(row[ROW_FIRST])] == rules.rolls - 1
    bad, seen = _mismatches(row.reshape(1, row.size), n, True)
    assert bad == 0 and seen == 3003 * N_TABLES * 7 * 2


def test_a_wrong_first_rolls_column_is_caught_and_refused():
    """Negative control: one entry changed is a mismatch above, and check_tables refuses the row."""
    rules = Rules.build(mode="8d8")
    tab = expert_tables(rules)
    row = tab.row.copy()
    fo = int(row[ROW_FIRST])
    n = int(row[ROW_STRIDE]) - 1
    S = n + 1
    roll = np.uint64(3) | (np.uint64(2) << np.uint64(8)) | (np.uint64(3) << np.uint64(16))  # 3, 2, 3 of 8
    k = _first_rank(row, fo, roll, n)
    at = fo + 2 + 6 * S * S + (0 * 6 + 1) * int(row[fo + 1]) + k  # table 0, guide's animal 1
    row[at] += 1.0  # another slot map
    assert _mismatches(row.reshape(1, row.size), n, False)[0] == 1  # table 0, guide 1, r0 only
    assert check_tables(type(tab)(row, tab.value, tab.exact, 0.0, False), rules) == \
        "first rolls' columns are not the tables' columns"
