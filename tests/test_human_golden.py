"""The human rungs and the expert play the games of the golden file (tests/data/human_golden.json):
a change that makes their turn faster must not change a game (issue 28, item 6). The cases and
the hashing are in tests/human_golden.py (``python tests/human_golden.py`` prints them)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from human_golden import CASES, GOLDEN, digest, play  # noqa: E402

pytestmark = pytest.mark.exact


@pytest.mark.parametrize("name,case", [(c[0], c[1:]) for c in CASES], ids=[c[0] for c in CASES])
def test_games_match_the_golden_file(name, case):
    golden = json.loads(GOLDEN.read_text())
    assert digest(play(*case)) == golden[name], f"{name}: the games changed"


def test_the_hash_sees_a_changed_game():
    """A negative control: one counter of one game changed gives another hash."""
    out = play(*CASES[0][1:])
    before = digest(out)
    out[17, 3] += 1
    assert digest(out) != before
    assert not np.array_equal(play("8d8", 4, {}, ["regular"] * 4, 1, 50), play("8d8", 4, {}, ["regular"] * 4, 2, 50))
