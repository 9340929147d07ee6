"""Every game of the golden file is bit-identical (tests/golden_games.py): a refactor of the
engine, the rules or a strategy that moves one game fails here, naming the case and the game."""

import pytest

from tests.golden_games import CASES, GAMES, SEED, case_hashes, load

pytestmark = pytest.mark.exact


@pytest.mark.parametrize("name,overrides,mode,strategies", CASES, ids=[c[0] for c in CASES])
def test_every_game_is_as_in_the_golden_file(name, overrides, mode, strategies):
    golden = load()
    assert golden["games"] == GAMES and golden["seed"] == SEED
    want = golden["cases"][name]
    got = case_hashes(overrides, mode, strategies, golden["columns"][name])
    moved = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    assert not moved, f"{name}: {len(moved)} of {GAMES} games moved, the first is game {moved[0]}"
    assert len(got) == len(want)
