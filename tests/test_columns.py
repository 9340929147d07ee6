"""take_columns (the frame's columns read from the kernel's rows in one pass) gives each column
as it is, whatever the number of games (blocks of 64 and a partial one) and the order asked."""

from __future__ import annotations

import numpy as np
import pytest

from heron_sim.engine.columns import take_columns


@pytest.mark.parametrize("games", [0, 1, 63, 64, 65, 1000])
def test_each_column_as_it_is(games):
    rng = np.random.default_rng(games)
    out = rng.integers(-5, 10**12, size=(games, 163))
    asked = [162, 0, 17, 17, 5, 100]
    cols = take_columns(out, asked)
    assert sorted(cols) == [0, 5, 17, 100, 162]
    for c, values in cols.items():
        np.testing.assert_array_equal(values, out[:, c])
        assert values.flags.c_contiguous and values.dtype == out.dtype


def test_a_row_slice_of_the_output():
    out = np.arange(300 * 20, dtype=np.int64).reshape(300, 20)
    part = out[100:230]
    cols = take_columns(part, [3, 19])
    np.testing.assert_array_equal(cols[3], part[:, 3])
    np.testing.assert_array_equal(cols[19], part[:, 19])
