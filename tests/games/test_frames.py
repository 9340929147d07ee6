"""The summary modules' tidy frames for the report: every player count, fair shares, intervals."""

import importlib
import importlib.util

import numpy as np
import pytest

from heron_sim.games import get
from tests.helpers import shipped_games

pytestmark = pytest.mark.exact

#: every lighter game of heron_sim/games/ and its package (no list of names: a new game is covered)
GAMES = shipped_games()
#: the games whose summary module (optional: heron_sim.runner.kinds.games) offers ``seat_shares``
SUMMARIES = {name: pkg for name, pkg in GAMES.items() if importlib.util.find_spec(f"{pkg}.summary") is not None
             and hasattr(importlib.import_module(f"{pkg}.summary"), "seat_shares")}


def test_the_shipped_games_have_summaries():  # else the next test would prove little
    assert len(SUMMARIES) >= 4 and set(SUMMARIES) <= set(GAMES)


@pytest.mark.parametrize("name", list(SUMMARIES))
def test_seat_shares_cover_every_player_count_with_fair_shares(name):
    S = importlib.import_module(f"{SUMMARIES[name]}.summary")
    game = get(name)
    assert tuple(S.PLAYERS) == tuple(range(game.min_players, game.max_players + 1))
    t = S.seat_shares(games=30, seed=2)
    assert sorted(t["players"].unique()) == list(S.PLAYERS)
    for P, g in t.groupby("players"):
        assert list(g["seat"]) == list(range(P)) and np.allclose(g["fair"], 1 / P)
        if g["games"].iloc[0]:
            assert g["win_rate"].sum() == pytest.approx(1.0)
        assert ((g["low"] <= g["win_rate"] + 1e-12) & (g["win_rate"] <= g["high"] + 1e-12)).all()


def test_readings_frames_have_every_variant_and_player_count():
    from heron_sim.games.akeruption import summary as S
    seats, lengths = S.readings(games=20, seed=1, players=(2, 3))
    assert set(lengths["variant"]) == set(S.READINGS) and set(lengths["players"]) == {2, 3}
    assert len(seats) == len(S.READINGS) * (2 + 3)
    assert {"length_mean", "length_low", "length_high", "balance", "min_p_holm"} <= set(lengths.columns)


def test_strategy_frame_rotates_the_second_strategy():
    from heron_sim.games.mekong_dragons import summary as S
    t = S.strategies(games=30, seed=1, players=(2, 3))
    alls = t[t["seat"].astype(str) == "all"]
    assert set(alls["strategy"]) == {"greedy", "random"} and set(alls["players"]) == {2, 3}


@pytest.mark.parametrize("name", list(GAMES))
def test_a_lighter_game_plays_the_same_games_on_one_thread_or_two(name):
    """games.base.play_slices runs slices of games in threads (the kernels release the GIL):
    the frame must not depend on it."""
    import numba

    from heron_sim.games import get

    game = get(name)
    rules = game.load_rules(None, {})
    players = game.min_players + 1
    frames = []
    for threads in (1, 2):
        old = numba.get_num_threads()
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            frames.append(game.simulate(rules, games=301, players=players, seed=5,
                                        strategies=[game.strategies[0]] * players, first_game=7))
        finally:
            numba.set_num_threads(old)
    import pandas as pd

    assert len(frames[0]) == 301
    pd.testing.assert_frame_equal(frames[0], frames[1])
