"""Fair seat and strategy shares when games can end in a shared win (synthetic data, known answers)."""

import numpy as np
import pandas as pd
import pytest

from heron_sim.analysis import metrics as M
from heron_sim.analysis.stats import binom_test, holm

pytestmark = [pytest.mark.exact, pytest.mark.statistical]


def light_frame(winners_masks, players, seats=None, finished=None):
    """A minimal lighter-game frame from co-winner bit masks (0: no winner)."""
    m = np.asarray(winners_masks, np.int64)
    n = m.size
    single = np.array([int(x).bit_length() - 1 if x and (x & (x - 1)) == 0 else -1 for x in m])
    fin = np.ones(n, bool) if finished is None else np.asarray(finished, bool)
    return pd.DataFrame({"seed": 0, "game": np.arange(n), "players": players,
                         "seats": seats if seats is not None else ",".join(["greedy"] * players),
                         "strategies": "greedy", "winner": single, "length": 10, "finished": fin,
                         "winners": m})


def test_shares_known_values():
    # 4 games, 3 seats: seat 0 alone, seat 1 alone, seats 0+1 shared, all three shared
    df = light_frame([0b001, 0b010, 0b011, 0b111], 3)
    sh = M.light_win_shares(df)
    assert np.allclose(sh, [[1, 0, 0], [0, 1, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]])
    t = M.light_seat_table(df)
    assert np.allclose(t["wins"], [1 + 0.5 + 1 / 3, 1 + 0.5 + 1 / 3, 1 / 3])
    assert list(t["games"]) == [4, 4, 4] and list(t["shared"]) == [2, 2, 1]
    assert np.allclose(t["win_rate"], t["wins"] / 4)
    assert np.isclose(t["win_rate"].sum(), 1.0)         # shares of decided games sum to 1


def test_unfinished_and_undecided_games_are_left_out():
    df = light_frame([0b01, 0b10, 0b01, 0], 2, finished=[True, True, False, True])
    t = M.light_seat_table(df)
    assert list(t["games"]) == [2, 2] and np.allclose(t["wins"], [1, 1])


def test_without_shared_wins_the_exact_binomial_test_is_kept():
    rng = np.random.default_rng(3)
    w = rng.integers(0, 4, 400)
    df = light_frame(1 << w, 4)
    t = M.light_seat_table(df)
    for s in range(4):
        k = int((w == s).sum())
        assert t.loc[s, "wins"] == k and t.loc[s, "p"] == pytest.approx(binom_test(k, 400, 0.25))
    assert np.allclose(t["p_holm"], holm(t["p"]))


def _symmetric_with_ties(n, players, tie_rate, seed):
    """Seat-symmetric games: a tie between two random seats with probability tie_rate, else
    one uniformly random winner."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, players, n)
    masks = (1 << w).astype(np.int64)
    tie = rng.random(n) < tie_rate
    other = (w + rng.integers(1, players, n)) % players
    masks[tie] |= (1 << other[tie])
    return masks


def test_symmetric_game_with_shared_wins_is_fair_and_the_old_rule_was_not():
    # 15 % shared wins between two seats, every seat symmetric: no seat may be flagged
    masks = _symmetric_with_ties(20_000, 4, 0.15, seed=11)
    df = light_frame(masks, 4)
    t = M.light_seat_table(df)
    assert (t["p_holm"] > 0.01).all(), t
    se = np.sqrt(0.25 * 0.75 / len(df))
    assert np.all(np.abs(t["win_rate"] - 0.25) < 5 * se)
    # the old rule: single wins only, over every finished game, against 1/players -> every
    # seat is ~0.2125 and all are "significantly below fair"
    single = df["winner"].to_numpy()
    old_p = holm([binom_test(int((single == s).sum()), len(df), 0.25) for s in range(4)])
    assert (old_p < 1e-6).all()


def test_a_real_seat_advantage_is_still_found_with_shared_wins():
    rng = np.random.default_rng(5)
    n = 20_000
    w = rng.choice(3, n, p=[0.40, 0.30, 0.30])           # seat 0 favoured
    masks = (1 << w).astype(np.int64)
    tie = rng.random(n) < 0.1
    masks[tie] = 0b111
    t = M.light_seat_table(light_frame(masks, 3))
    assert t.loc[0, "p_holm"] < 1e-6 and t.loc[0, "win_rate"] > 1 / 3
    expect = 0.9 * 0.40 + 0.1 / 3
    assert abs(t.loc[0, "win_rate"] - expect) < 5 * np.sqrt(expect * (1 - expect) / n)


def test_fractional_score_test_is_not_anticonservative():
    # under the null, p < 0.05 in at most ~5 % of replicates (here: 200 replicates, 4 sigma)
    rejections = 0
    for r in range(200):
        masks = _symmetric_with_ties(2000, 3, 0.3, seed=100 + r)
        t = M.light_seat_table(light_frame(masks, 3))
        rejections += int(t.loc[0, "p"] < 0.05)
    assert rejections <= 0.05 * 200 + 4 * np.sqrt(0.05 * 0.95 * 200)


def test_strategy_shares_with_shared_wins():
    # seatings rotated: A,B and B,A; every game shared: each strategy gets exactly 1/2
    masks = np.full(100, 0b11)
    seats = np.where(np.arange(100) % 2 == 0, "A,B", "B,A")
    t = M.light_strategy_table(light_frame(masks, 2, seats=seats))
    alls = t[t["seat"] == "all"].set_index("strategy")
    assert np.allclose(alls["win_rate"], 0.5) and np.allclose(alls["seat_games"], 100)
    assert (alls["p"] == 1.0).all()


def test_frames_without_a_winners_column_use_winner():
    df = light_frame([0b01, 0b10, 0b01], 2).drop(columns="winners")
    assert np.allclose(M.light_seat_table(df)["wins"], [2, 1])


def test_heron_seat_table_leaves_out_unfinished_games():
    n = 100
    winner = np.r_[np.tile([0, 1], 45), np.full(10, -1)]
    df = pd.DataFrame({"players": 2, "winner": winner, "finished": winner >= 0, "game": np.arange(n)})
    t = M.seat_table(df)
    assert list(t["games"]) == [90, 90] and np.allclose(t["win_rate"], 0.5) and (t["p"] == 1.0).all()


def test_heron_guide_table_leaves_out_unfinished_games():
    from heron_sim.animals import NAMES
    n = 70
    winner = np.r_[np.zeros(63, int), np.full(7, -1)]
    d = {"players": 1, "winner": winner, "finished": winner >= 0, "game": np.arange(n)}
    d["guide_0"] = pd.Categorical.from_codes(np.arange(n) % 7, categories=list(NAMES))
    t = M.guide_table(pd.DataFrame(d))
    assert (t["games"] == 63).all() and np.allclose(t["win_rate"], 1 / 7) and np.allclose(t["p"], 1.0)
