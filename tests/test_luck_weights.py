"""Each seat's luck weighted by the squares at each turn slot's start (heron_sim.strategies.
luck_weights, docs/luck.md): every weighted luck has mean zero for every strategy and three rule
sets, a biased luck is caught through them, the 2-player identity holds exactly, the games are
the same, and the weighted lucks narrow the seats' and the guides' intervals on real games."""

import numpy as np
import pytest

from heron_sim.analysis.luck_adjust import adjusted_win_rates, variance_ratio
from heron_sim.rules import Rules
from heron_sim.simulation import simulate
from heron_sim.strategies.luck_weights import NAMES, OTHER, OWN

pytestmark = pytest.mark.statistical

Z = 4.5


def _weighted(frame, players):
    return {(s, n): frame[f"luck_seat{s + 1}_{n}"].to_numpy(dtype=float) for s in range(players) for n in NAMES}


def _z(x):
    sd = x.std(ddof=1)
    return 0.0 if sd == 0 else x.mean() / (sd / np.sqrt(x.size))


def test_the_basis_is_the_documented_one():
    assert len(OWN) == 9 and all(1 <= a + b <= 3 for a, b in OWN)
    assert len(OTHER) == 11 and all(a + b <= 2 for a, b, _ in OTHER)
    assert len(set(NAMES)) == len(NAMES) == 20


@pytest.mark.parametrize("strategies,overrides", [
    ("greedy", {}),
    ("expert", {}),
    ("novice,casual,regular,expert", {}),
    ("random", {}),
    ("expert", {"pond_threshold": 3, "pond_pushback_per_heron": 2}),
    ("greedy,prudent,expert,racer", {"anxiety_threshold": 4, "rolls": 4}),
    ("novice,casual,regular,expert", {"guide": {"heron": {"anxiety_threshold": 4, "rolls": 4}},
                                      "guide.taureau.bull_bonus": 4}),
], ids=["greedy", "expert", "ladder", "random", "pond-heavy", "mix-anxiety4", "ladder-rules-by-guide"])
def test_every_weighted_luck_has_mean_zero(strategies, overrides):
    """80 weighted lucks a frame (20 a seat), each within 4.5 σ of 0 (per-game sums; the chance
    that one of 80 true zeros leaves 4.5 σ is 5 in 10,000)."""
    rules = Rules.build(mode="8d8", players=4, overrides=overrides)
    frame = simulate(rules, 3000, seed=41, strategies=strategies, luck=True)
    for key, x in _weighted(frame, 4).items():
        assert x.std() > 0, key  # each weight is used
        assert abs(_z(x)) < Z, (strategies, key, x.mean())


@pytest.mark.slow
@pytest.mark.parametrize("strategies", ["greedy", "expert", "novice,casual,regular,expert"])
def test_every_weighted_luck_has_mean_zero_over_many_games(strategies):
    """The same over 60,000 games (about 1.5 million turns a table)."""
    frame = simulate(Rules.build(mode="8d8", players=4), 60_000, seed=47, strategies=strategies, luck=True)
    for key, x in _weighted(frame, 4).items():
        assert abs(_z(x)) < Z, (strategies, key, x.mean())


def test_a_biased_luck_is_caught_through_the_weights(monkeypatch):
    """Negative control: the powers' draws valued 0.05 square too high (expert_luck.powers_only's
    bias) give weighted lucks whose mean leaves 4.5 σ (the own weights, seats pooled)."""
    from heron_sim.strategies import expert_luck

    made = expert_luck.luck_row
    monkeypatch.setattr(expert_luck, "luck_row", lambda rules: expert_luck.powers_only(made(rules), 0.05))
    frame = simulate(Rules.build(mode="8d8", players=4), 4000, seed=31,
                     strategies="novice,casual,regular,expert", luck=True)
    caught = [n for n in NAMES[:len(OWN)]
              if _z(sum(frame[f"luck_seat{s + 1}_{n}"].to_numpy(dtype=float) for s in range(4))) > Z]
    assert len(caught) >= 3, caught


def test_two_players_the_leader_weight_is_the_other_seats_luck():
    """At 2 players the one opponent is always the best: weight t_j·x_j^0·x^0 = 1, so that weighted
    luck is the other seat's plain luck, exactly."""
    frame = simulate(Rules.build(mode="8d8", players=2), 1500, seed=5, strategies="expert,casual", luck=True)
    assert np.array_equal(frame["luck_seat1_j0s0t"].to_numpy(), frame["luck_seat2"].to_numpy(np.float32))
    assert np.array_equal(frame["luck_seat2_j0s0t"].to_numpy(), frame["luck_seat1"].to_numpy(np.float32))


def test_the_weighted_lucks_narrow_the_intervals():
    """On 6,000 games of four experts the weighted lucks raise every seat's variance ratio above
    the plain lucks' (the same games, the weighted columns dropped), and above 1.5."""
    frame = simulate(Rules.build(mode="8d8", players=4), 6000, seed=43, strategies="expert", luck=True)
    plain = frame.drop(columns=[c for c in frame.columns if c.startswith("luck_seat") and "_" in c[9:]])
    assert "luck_seat1" in plain.columns and "luck_seat1_x1m0" not in plain.columns
    weighted = variance_ratio(adjusted_win_rates(frame))["seat"]
    base = variance_ratio(adjusted_win_rates(plain))["seat"]
    assert min(weighted) > 1.5 and all(w > b for w, b in zip(weighted, base)), (weighted, base)


#: the AI mix: 20,000 of its games with the luck are read by three tests (mix_games)
MIX = "greedy,prudent,expert,racer"


@pytest.fixture(scope="module")
def mix_games():
    """20,000 games of the AI mix with the luck (8d8, four players, seed 61), played once for the
    three tests that read them (the landing lucks' means, the adjusted and plain rates' agreement,
    the landing lucks' narrowing): each test's check and tolerance are its own, on the same number
    of games as when each played its own seed. Nothing reading them may change them."""
    return simulate(Rules.build(mode="8d8", players=4), 20_000, seed=61, strategies=MIX, luck=True)


def _batches_frame(strategies, games, seed):
    """The summary columns of the engine's games, batch by batch (a million fit in memory so)."""
    import pandas as pd

    from heron_sim.simulation import simulate_batches, summary_columns

    return pd.concat([summary_columns(b) for b in simulate_batches(
        Rules.build(mode="8d8", players=4), games, seed=seed, strategies=strategies, luck=True,
        batch_size=100_000)], ignore_index=True)


def _agreement(frame):
    """Each seat's and each guide's adjusted win rate against the plain one on the engine's games:
    their difference is the mean of the figure's control (target_control), so it must be within
    4.5 standard errors of that mean of 0."""
    from heron_sim.analysis.luck_adjust import _holder_control, luck_features, seat_controls, target_control
    from heron_sim.simulation import summary_columns

    frame = summary_columns(frame)
    winner = frame["winner"].to_numpy()
    fin = frame["finished"].to_numpy(bool).astype(float)
    Y = np.stack([(winner == s).astype(float) for s in range(4)], axis=1)
    C, Cin = seat_controls(luck_features(frame), Y, inner=True)
    adj = adjusted_win_rates(frame)
    for s in range(4):
        c = target_control(Y[:, s], fin, C[:, s], Cin[:, s]) / fin.mean()
        plain = Y[:, s].sum() / fin.sum()
        assert abs(plain - adj["win_rate_by_seat_adjusted"][s]) < Z * c.std(ddof=1) / np.sqrt(c.size), s
    codes = np.stack([frame[f"guide_{s}"].cat.codes.to_numpy() for s in range(4)], axis=1)
    for a, name in enumerate(adj["win_rate_by_guide_adjusted"]):
        holder = np.where((codes == a).any(axis=1), (codes == a).argmax(axis=1), -1)
        d = (holder >= 0) * fin
        y = ((holder >= 0) & (winner == holder)).astype(float)
        c = target_control(y, d, _holder_control(C, holder), _holder_control(Cin, holder)) / d.mean()
        plain = y.sum() / d.sum()
        assert abs(plain - adj["win_rate_by_guide_adjusted"][name]) < Z * c.std(ddof=1) / np.sqrt(c.size), name


def test_the_adjusted_and_plain_rates_agree_on_engine_games(mix_games):
    _agreement(mix_games)


@pytest.mark.slow
def test_the_adjusted_and_plain_rates_agree_on_a_million_games():
    """Issue 32 item 2: on 10⁶ games (greedy: the fastest with luck) they agree."""
    _agreement(_batches_frame("greedy", 1_000_000, 53))


# ---- where a roll's dice would land the pawn on the board's special squares (luck_turn.land_luck)
def _land_block(rules):
    from heron_sim.strategies import expert_luck as EL

    row, lo = EL.luck_row(rules)
    head = row[lo:lo + EL.LK_HEAD]
    rmax, anx, npre, amax = (int(head[k]) for k in (EL.LK_RMAX, EL.LK_ANX, EL.LK_NPRE, EL.LK_AMAX))
    at = int(head[EL.LK_V])
    V = row[at:at + 5 * rmax * npre * anx].reshape(5, rmax, npre, anx)
    at = int(head[EL.LK_LAND])
    D = row[at:at + 5 * rmax * npre * anx * amax].reshape(5, rmax, npre, anx, amax)
    first = row[int(head[EL.LK_FIRST]):int(head[EL.LK_FIRST]) + 5 * (rmax + 1)].reshape(5, rmax + 1)
    at = int(head[EL.LK_FLAND])
    return V, D, first, row[at:at + 5 * (rmax + 1) * amax].reshape(5, rmax + 1, amax)


@pytest.mark.parametrize("overrides", [{}, {"anxiety_threshold": 4, "rolls": 4}, {"bull_bonus": 4}])
def test_the_laws_of_a_turns_score_are_exact(overrides):
    """Each law of the turn's score under the expert's programme, before a roll, sums to 1 and its
    mean is the value before that roll (V: the same recursion on values), to 1e-12, at every
    number of rolls left."""
    V, D, first, F = _land_block(Rules.build(mode="8d8", overrides=overrides))
    total = D.sum(axis=-1)
    used = total > 0
    assert used[:, 0].sum() > 500 and used[:, -1].sum() > 500
    assert np.abs(total[used] - 1).max() < 1e-12
    assert np.abs((D * np.arange(D.shape[-1])).sum(axis=-1)[used] - V[used]).max() < 1e-12
    assert (V[~used] == 0).all()  # no law where no roll is possible
    assert np.abs(F.sum(axis=-1) - 1).max() < 1e-12  # before the first roll (a Pond scores 0)
    assert np.abs((F * np.arange(F.shape[-1])).sum(axis=-1) - first).max() < 1e-12


@pytest.mark.parametrize("strategies", ["greedy", MIX, "novice,casual,regular,expert"])
def test_every_landing_luck_has_mean_zero(strategies, request):
    """52 landing lucks a frame (13 squares, 4 seats), each within 4.5 σ of 0 (20,000 games), and
    the squares pooled over the seats within 4 σ."""
    frame = (request.getfixturevalue("mix_games") if strategies == MIX else
             simulate(Rules.build(mode="8d8", players=4), 20_000, seed=61, strategies=strategies, luck=True))
    cols = [c for c in frame.columns if "_sq" in c]
    assert len(cols) == 52
    for c in cols:
        x = frame[c].to_numpy(dtype=float)
        assert x.std() > 0 and abs(_z(x)) < Z, (strategies, c, x.mean())
    for q in {c.split("_")[-1] for c in cols}:
        assert abs(_z(frame[[f"luck_seat{s + 1}_{q}" for s in range(4)]].to_numpy(float).sum(axis=1))) < 4.0, q


def test_a_shifted_landing_law_is_caught(monkeypatch):
    """Negative control: the laws read one square off (each moved up by one square) give landing
    lucks whose mean leaves 4.5 σ."""
    from heron_sim.strategies import expert_luck as EL

    made = EL.luck_row

    def shifted(rules):
        row, lo = made(rules)
        row = row.copy()
        at, amax = int(row[lo + EL.LK_LAND]), int(row[lo + EL.LK_AMAX])
        block = row[at:].reshape(-1, amax)
        block[:, 1:] = block[:, :-1].copy()
        block[:, 0] = 0.0
        row[at:] = block.ravel()
        return row, lo

    monkeypatch.setattr(EL, "luck_row", shifted)
    frame = simulate(Rules.build(mode="8d8", players=4), 4000, seed=61, strategies="greedy", luck=True)
    z = [abs(_z(frame[c].to_numpy(dtype=float))) for c in frame.columns if "_sq" in c]
    assert max(z) > Z, max(z)


def test_the_landing_lucks_narrow_the_intervals_further(mix_games):
    """On 20,000 games of the AI mix the landing lucks raise every seat's variance ratio above the
    weighted lucks' alone (the same games, the landing columns dropped)."""
    frame = mix_games
    without = frame.drop(columns=[c for c in frame.columns if "_sq" in c])
    full = variance_ratio(adjusted_win_rates(frame))["seat"]
    base = variance_ratio(adjusted_win_rates(without))["seat"]
    assert all(f > b for f, b in zip(full, base)), (full, base)


def _slot_end_reference(w, finish):
    """The weighted lucks of one slot as docs/luck.md writes them, in plain Python (the basis's
    data, each monomial by repeated products, each term rounded): what slot_end must add."""
    from heron_sim.engine.layout import LUCK, LUCK_SLOT, LUCK_WEIGHTS, LUCKW, PLAYERS, POS_SLOT

    def power(x, a):
        p = 1.0
        for _ in range(a):
            p *= x
        return p

    P = int(w[PLAYERS])
    share = [min(max(float(w[POS_SLOT + s]) / float(finish), 0.0), 1.0) for s in range(P)]
    out = w.copy()
    for s in range(P):
        x = share[s]
        m = max([0.0] + [share[o] for o in range(P) if o != s])
        base = LUCKW + s * LUCK_WEIGHTS
        ds = float(w[LUCK + s] - w[LUCK_SLOT + s])
        if ds != 0.0:
            for k, (a, b) in enumerate(OWN):
                out[base + k] += int(round(ds * power(x, a) * power(m, b)))
        for j in range(P):
            dj = float(w[LUCK + j] - w[LUCK_SLOT + j])
            if j == s or dj == 0.0:
                continue
            top = all(share[o] <= share[j] for o in range(P) if o not in (s, j))
            for k, (a, b, c) in enumerate(OTHER):
                if c == 0 or top:
                    out[base + len(OWN) + k] += int(round(dj * power(share[j], a) * power(x, b)))
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 7])
def test_slot_end_adds_the_documented_terms(players):
    """slot_end (the kernel's, shares and powers computed once a slot) adds exactly the terms of
    the documented weights on random slots: squares below 0 and past the finish, ties for the
    lead, seats whose luck did not move; the same integers, bit for bit."""
    from heron_sim.engine import layout as L
    from heron_sim.engine.pack import pack_rules
    from heron_sim.rules.rules import P_FINISH
    from heron_sim.strategies.luck_weights import slot_end

    rules = Rules.build(mode="8d8", players=players)
    R = pack_rules(rules)
    finish = int(R[P_FINISH])
    gen = np.random.default_rng(players)
    for _ in range(300):
        w = np.zeros(L.workspace_length(rules.finish, 400), dtype=np.int64)
        w[L.PLAYERS] = players
        w[L.POS_SLOT:L.POS_SLOT + players] = gen.choice([-3, 0, 5, 20, 40, finish, finish + 2], players) \
            if gen.random() < 0.3 else gen.integers(-2, finish + 3, players)
        w[L.LUCK_SLOT:L.LUCK_SLOT + players] = gen.integers(-2**36, 2**36, players)
        moved = gen.random(players) < 0.8
        w[L.LUCK:L.LUCK + players] = w[L.LUCK_SLOT:L.LUCK_SLOT + players] + moved * gen.integers(-2**35, 2**35, players)
        w[L.LUCKW:L.LUCKW + players * L.LUCK_WEIGHTS] = gen.integers(-2**40, 2**40, players * L.LUCK_WEIGHTS)
        want = _slot_end_reference(w, finish)
        slot_end(w, R)
        assert np.array_equal(w, want)
