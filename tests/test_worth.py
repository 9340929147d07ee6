"""The worth of a position (heron_sim.analysis.worth): exact laws on hand-made chains, the
replayed positions equal to the games simulate plays, and the chances checked against observed
winners on held-out games (calibration within the designer's point, a biased worth failing)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from heron_sim.analysis import worth as W
from heron_sim.analysis.drama import measures, stories, trace_frame
from heron_sim.analysis.positions import TurnStarts, trace_turn_starts
from heron_sim.animals import N_ANIMALS
from heron_sim.errors import HeronSimError
from heron_sim.rules import Rules


def _worth_from_chain(chain, players, seating=None):
    hit = W.hitting_laws(chain)
    F = chain.shape[2]
    seating = tuple(seating or ("x",) * players)
    strategies = tuple(dict.fromkeys(seating))
    cal = W.identity_calibration()
    steps = np.ones((N_ANIMALS, 2, F, F + 1, 2), dtype=np.int64)
    return W.Worth("test", players, F, seating, strategies, (hit,) * len(strategies),
                   (steps,) * len(strategies), 0, 0, cal)


def _geometric_chain(F, p_by_guide):
    """From any square: finish with chance p (by Guide), else stay where it is (ready kept)."""
    chain = np.zeros((N_ANIMALS, 2, F, F + 1, 2))
    for g in range(N_ANIMALS):
        for s in range(F):
            for r in range(2):
                chain[g, r, s, F, 0] = p_by_guide[g]
                chain[g, r, s, s, r] = 1 - p_by_guide[g]
    return chain


def test_hitting_law_is_the_exact_negative_binomial():
    # a chain that moves one square with chance q, else stays: from square s of F, the turns to
    # finish follow a negative binomial (F - s successes)
    F, q = 4, 0.3
    chain = np.zeros((N_ANIMALS, 2, F, F + 1, 2))
    for s in range(F):
        chain[:, :, s, s + 1, 1] = q
        chain[:, :, s, s, 1] = 1 - q
    hit = W.hitting_laws(chain, horizon=60)
    for s in range(F):
        k = F - s
        for t in range(1, 61):
            exact = math.comb(t - 1, k - 1) * q ** k * (1 - q) ** (t - k) if t >= k else 0.0
            assert hit[t, 2, 1, s] == pytest.approx(exact, abs=1e-12)
    assert (hit[0] == 0).all()


def test_race_of_two_geometric_seats_is_exact():
    # seat A finishes each turn with chance a, seat B with b; A moves first:
    # P(A wins) = a / (1 - (1 - a)(1 - b)); B first: a(1 - b) / (1 - (1 - a)(1 - b))
    a, b = 0.2, 0.35
    p = [a] * N_ANIMALS
    p[3] = b
    w = _worth_from_chain(_geometric_chain(5, p), 2)
    first = w.raw_chances([[2, 2]], [[0, 3]], [[1, 1]], [0])[0]
    second = w.raw_chances([[2, 2]], [[0, 3]], [[1, 1]], [1])[0]
    d = 1 - (1 - a) * (1 - b)
    assert first[0] == pytest.approx(a / d, abs=1e-12)
    assert first[1] == pytest.approx(b * (1 - a) / d, abs=1e-12)
    assert second[0] == pytest.approx(a * (1 - b) / d, abs=1e-12)
    assert first.sum() == pytest.approx(1.0, abs=1e-12)


def test_race_of_three_seats_by_enumeration():
    # three geometric seats, any seat to move: the chances by brute enumeration of the turns
    ps = [0.1, 0.25, 0.4]
    p = [0.1] * N_ANIMALS
    p[1], p[2] = ps[1], ps[2]
    w = _worth_from_chain(_geometric_chain(3, p), 3)
    for m in range(3):
        got = w.raw_chances([[0, 0, 0]], [[0, 1, 2]], [[1, 1, 1]], [m])[0]
        want = np.zeros(3)
        alive = 1.0
        for _ in range(400):  # cycles of the three seats from seat m
            for k in range(3):
                s = (m + k) % 3
                want[s] += alive * ps[s]
                alive *= 1 - ps[s]
        assert got == pytest.approx(want, abs=1e-10)


def test_recalibration_maps_by_stage_and_role_and_normalises():
    p = np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])
    stage = np.array([0, 5])
    role = W.roles(np.array([0, 2]), 3)
    assert role.tolist() == [[0, 1, 1], [1, 1, 0]]
    assert W.recalibrated(p, stage, role, W.identity_calibration()) == pytest.approx(p)
    # a map that shrinks chances towards 1/3 for the others at stage 5 only
    cal = W.identity_calibration()
    cal[1, 5, 1] = 1 / 3 + 0.5 * (cal[0, 5, 1] - 1 / 3)
    q = W.recalibrated(p, stage, role, cal)
    assert q[0] == pytest.approx(p[0])
    raw = np.array([0.5 * (0.3 - 1 / 3) + 1 / 3, 0.5 * (0.3 - 1 / 3) + 1 / 3, 0.4])
    assert q[1] == pytest.approx(raw / raw.sum())


def test_the_fitted_map_is_the_share_of_wins_by_group():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, size=(40_000, 2))
    p /= p.sum(axis=1, keepdims=True)
    truth = p[:, 0] ** 2 / (p[:, 0] ** 2 + p[:, 1] ** 2)  # sharper than p: the map must learn it
    won = np.zeros((p.shape[0], 2))
    first = rng.uniform(size=p.shape[0]) < truth
    won[first, 0], won[~first, 1] = 1, 1
    stage = np.zeros(p.shape[0], dtype=np.int64)
    role = W.roles(np.zeros(p.shape[0], dtype=np.int64), 2)
    cal = W.fit_calibration(p, won, stage, role)
    assert (np.diff(cal[1, 0, 0]) >= 0).all()
    q = W.recalibrated(p, stage, role, cal)
    assert np.abs(q[:, 0] - truth).mean() < 0.02 < np.abs(p[:, 0] - truth).mean()


def test_chances_refuse_positions_out_of_range():
    w = _worth_from_chain(_geometric_chain(5, [0.2] * N_ANIMALS), 2)
    with pytest.raises(HeronSimError, match="out of range"):
        w.chances([[5, 0]], [[0, 0]], [[1, 1]], [0])
    with pytest.raises(HeronSimError, match="3 seats"):
        w.chances([[0, 0, 0]], [[0, 0, 0]], [[1, 1, 1]], [0])


@pytest.mark.parametrize("players", [2, 7])
def test_the_replayed_positions_are_the_games_simulate_plays(players):
    from heron_sim.simulation import simulate

    r = Rules.build("8d8", players=players)
    tr = trace_turn_starts(r, ["greedy"] * players, seed=11, games=60)
    df = simulate(r, 60, seed=11, strategies="greedy")
    assert (df["winner"].to_numpy() == tr.winner).all()
    final = np.array([[df[f"pos_{s}"].iloc[g] for s in range(players)] for g in range(60)])
    assert (final == tr.final).all()
    last = np.flatnonzero(np.r_[tr.game[1:] != tr.game[:-1], True])
    assert (tr.slot[last] // players + 1 == df["rounds"].to_numpy()).all()
    assert (tr.pos[tr.slot == 0] == 0).all()
    assert (tr.to_move == tr.slot % players).all()


def test_steps_are_counted_once_each():
    r = Rules.build("8d8", players=3)
    tr = trace_turn_starts(r, ["greedy"] * 3, seed=2, games=40)
    (c,) = W.count_steps(tr, ["greedy"])
    # every slot of a seat but its last in the game is the start of a step, plus the winner's win
    pairs = sum(int((tr.to_move[tr.game == g] == j).sum()) - 1 for g in range(40) for j in range(3))
    assert int(c.sum()) == pairs + int((tr.winner >= 0).sum())
    assert int(c[..., r.finish, :].sum()) == int((tr.winner >= 0).sum())


@pytest.fixture(scope="module")
def greedy4():
    r = Rules.build("8d8", players=4)
    w = W.build(r, ["greedy"] * 4, games=4000, seed=5)
    held = trace_turn_starts(r, ["greedy"] * 4, seed=6, games=2000)
    return r, w, held


def test_chances_are_calibrated_on_held_out_games(greedy4):
    """Every decile of predicted chance: observed minus predicted within the designer's point,
    give or take 4.5 of its standard errors (the held-out sample is finite)."""
    _, w, held = greedy4
    rel = W.reliability(w, held)
    assert rel.n.sum() == rel.positions > 100_000
    se = (rel.high - rel.low) / (2 * 1.96)
    assert (np.abs(rel.error) <= 0.01 + 4.5 * se).all(), rel.rows()
    # each row of chances sums to one
    p = w.chances(held.pos[:500], held.guide[:500], held.ready[:500], held.to_move[:500])
    assert p.sum(axis=1) == pytest.approx(1.0)


def test_a_biased_worth_fails_the_same_check(greedy4):
    """Negative controls: the chains' chances without their recalibration, and chances that
    favour seat 1, both fail the check the worth passes."""
    _, w, held = greedy4
    raw = W.Worth(w.digest, w.players, w.finish, w.seating, w.strategies, w.hit, w.steps, w.games,
                  w.seed, W.identity_calibration())
    rel = W.reliability(raw, held)
    se = (rel.high - rel.low) / (2 * 1.96)
    assert (np.abs(rel.error) > 0.01 + 4.5 * se).any()

    class Tilted(W.Worth):
        def chances(self, pos, guide, ready, to_move):
            p = super().chances(pos, guide, ready, to_move)
            p[:, 0] *= 2.0
            return p / p.sum(axis=1, keepdims=True)

    tilted = Tilted(**{k: getattr(w, k) for k in W.Worth.__dataclass_fields__})
    rel = W.reliability(tilted, held)
    se = (rel.high - rel.low) / (2 * 1.96)
    assert (np.abs(rel.error) > 0.01 + 4.5 * se).any()


def test_the_worth_is_cached_and_a_damaged_file_is_built_again(greedy4, tmp_path, monkeypatch):
    r, _, _ = greedy4
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    a = W.worth_of(r, ["greedy"] * 4, games=300, seed=9)
    path = W.cache_path(r, ("greedy",) * 4, 300, 9)
    assert path.exists()
    b = W.worth_of(r, ["greedy"] * 4, games=300, seed=9)
    pos, g, rd = [[10, 3, 0, 40]], [[0, 1, 2, 3]], [[1, 0, 1, 1]]
    assert (a.chances(pos, g, rd, [2]) == b.chances(pos, g, rd, [2])).all()
    path.write_bytes(b"not a model")
    c = W.worth_of(r, ["greedy"] * 4, games=300, seed=9)
    assert (a.chances(pos, g, rd, [2]) == c.chances(pos, g, rd, [2])).all()
    with pytest.raises(HeronSimError, match="at least 100"):
        W.build(r, ["greedy"] * 4, games=10)


def test_a_stopped_build_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    r = Rules.build("8d8", players=2)
    calls = iter(range(10 ** 6))
    with pytest.raises(W.BuildInterrupted, match="nothing kept"):
        W.worth_of(r, ["greedy"] * 2, games=500, seed=3, stop=lambda: next(calls) >= 50)
    assert not W.cache_path(r, ("greedy",) * 2, 500, 3).exists()


# ---------------------------------------------------------------- the story of a game
def _hand_trace(chances_by_slot, winner, players=2):
    n = len(chances_by_slot)
    z = np.zeros((n, players), dtype=np.int16)
    tr = TurnStarts(players, 63, np.zeros(n, dtype=np.int32), np.arange(n, dtype=np.int32),
                    (np.arange(n) % players).astype(np.int8), z, z.astype(np.int8), z.astype(np.int8) + 1,
                    np.array([winner], dtype=np.int8), np.zeros((1, players), dtype=np.int16), 1,
                    np.array([0]), ("x",) * players)
    return tr, np.array(chances_by_slot, dtype=np.float64)


def test_story_of_a_hand_made_game():
    # 2 players, 8 slots (4 rounds); seat 1 (index 1) wins after being at 5 %
    c = [[0.5, 0.5], [0.6, 0.4], [0.95, 0.05], [0.7, 0.3], [0.5, 0.5], [0.4, 0.6], [0.15, 0.85], [0.1, 0.9]]
    tr, ch = _hand_trace(c, winner=1)
    s = stories(tr, ch)
    assert s.lead_changes.tolist() == [1.0]           # seat 0 leads, tie names nobody, seat 1 leads
    assert s.decisive_round.tolist() == [4.0]         # slot 6 is in round 4
    assert s.rounds.tolist() == [4.0]
    assert s.decided_early.tolist() == [0.0]
    assert s.comeback.tolist() == [1.0]
    assert s.decisiveness.tolist() == [2 / 8]
    ent = [-(a * math.log(a) + b * math.log(b)) / math.log(2) for a, b in c]
    assert s.uncertainty[0] == pytest.approx(np.mean(ent))
    m = measures(s)
    assert m["games"] == 1 and m["comebacks"]["value"] == 1.0
    frame = trace_frame(tr, ch)
    assert len(frame) == 9 and frame["chance_2"].iloc[-1] == 1.0 and frame["chance_1"].iloc[-1] == 0.0
    assert frame["to_move"].iloc[-1] == 0 and list(frame["to_move"].iloc[:2]) == [1, 2]


def test_an_unfinished_game_is_counted_apart():
    tr, ch = _hand_trace([[0.5, 0.5], [0.5, 0.5]], winner=-1)
    s = stories(tr, ch)
    assert s.unfinished == 1 and s.rounds.size == 0
    assert math.isnan(measures(s)["lead_changes"]["value"])


_MISSED = "measured beyond the point in one decile (docs/worth.md): a known limit, kept visible"


@pytest.mark.slow
@pytest.mark.parametrize("players,overrides", [
    (2, {}), (4, {}), (7, {}),
    (2, {"exact_finish": True}), (7, {"exact_finish": True}), (4, {"mode": "10d8"}), (7, {"mode": "10d8"}),
    pytest.param(4, {"exact_finish": True}, marks=pytest.mark.xfail(strict=False, reason=_MISSED + ", 1.31 points")),
    pytest.param(2, {"mode": "10d8"}, marks=pytest.mark.xfail(strict=False, reason=_MISSED + ", 1.22 points")),
])
def test_calibration_within_one_point_in_every_decile(players, overrides):
    """The documented check (docs/worth.md): 20,000 self-play games built, 10,000 held out (5,000
    at 7 players), every decile within 1 point."""
    over = dict(overrides)
    mode = over.pop("mode", "8d8")
    r = Rules.build(mode, players=players, overrides=over)
    w = W.build(r, ["expert"] * players, games=20_000)
    held = trace_turn_starts(r, ["expert"] * players, seed=77, games=5000 if players == 7 else 10_000)
    rel = W.reliability(w, held)
    assert rel.worst() <= 0.01, rel.rows()


# ---------------------------------------------------------------- simulate --trace
@pytest.fixture()
def small_build(tmp_path, monkeypatch):
    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(W, "BUILD_GAMES", 400)
    return tmp_path


def _cli(*args):
    from typer.testing import CliRunner

    from heron_sim.cli import app

    return CliRunner().invoke(app, list(args))


def test_simulate_trace_writes_the_same_games_with_their_chances(small_build):
    import json

    import pandas as pd

    from heron_sim.io import read_meta

    out = small_build / "t.parquet"
    r = _cli("simulate", "--players", "3", "--games", "50", "--seed", "4", "--trace", str(out),
             "--trace-games", "20", "--json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["trace"]["games"] + summary["trace"]["unfinished"] == 20
    meta = read_meta(out)
    assert meta["played"] == 20 and meta["interrupted"] is False and meta["seed"] == 4
    df = pd.read_parquet(out)
    chances = df[["chance_1", "chance_2", "chance_3"]].to_numpy()
    assert chances.sum(axis=1) == pytest.approx(1.0)
    assert sorted(df["game"].unique()) == list(range(20))
    # the end rows: the winner's chance 1, the squares those simulate gives
    from heron_sim.simulation import simulate

    games = simulate(Rules.build("8d8", players=3), 20, seed=4, strategies="greedy")
    ends = df[df["to_move"] == 0].set_index("game")
    for g in range(20):
        w = int(games["winner"].iloc[g])
        assert ends.loc[g, f"chance_{w + 1}"] == 1.0
        assert [int(ends.loc[g, f"square_{s + 1}"]) for s in range(3)] == \
               [int(games[f"pos_{s}"].iloc[g]) for s in range(3)]


@pytest.mark.parametrize("args,message", [
    (["--trace", "x.txt"], "--trace"),
    (["--trace", "t.csv", "--trace-games", "0"], "--trace-games"),
    (["--trace", "t.csv", "--precision", "0.05"], "not with --precision"),
    (["--trace", "same.csv", "--out", "same.csv"], "same"),
])
def test_simulate_trace_refuses_bad_requests_in_one_line(small_build, monkeypatch, args, message):
    monkeypatch.chdir(small_build)
    r = _cli("simulate", "--players", "2", "--games", "20", *args)
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], r.output
    assert not (small_build / "t.csv").exists()


# ---------------------------------------------------------------- the report's kind
def test_the_drama_kind_reads_its_games_and_gives_intervals(tmp_path, monkeypatch):
    """Kind ``drama`` from a run folder: the same games replayed (a folder whose games differ is
    refused), every measure a fact with its interval, the curves drawn."""
    from heron_sim.report.figures import draw
    from heron_sim.runner import load_experiment, run_experiments
    from heron_sim.runner.kinds import analyse
    from heron_sim.runner.run import RunData

    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "drama.toml"
    f.write_text('name = "drama"\nkind = "drama"\nseed = 4\ngames = 60\nplayer_counts = [2, 4]\n'
                 'strategy = "greedy"\nbuild_games = 500\n')
    exp = load_experiment(f)
    run_experiments([exp], tmp_path / "run")
    (_, data), = RunData(tmp_path / "run").experiments()
    sec = analyse(exp, data)
    facts = {x.id: x for x in sec.facts}
    for P in (2, 4):
        lc = facts[f"drama.{P}.lead_changes"]
        assert lc.low <= lc.estimate <= lc.high and lc.n == 60
        share = facts[f"drama.{P}.comebacks"]
        assert 0 <= share.low <= share.estimate <= share.high <= 1
    assert len(sec.findings) == 2 and sec.figures
    fig = draw(sec.figures[0].plot)
    assert len(fig.axes) == 3
    # a run folder whose games replay differently is refused in one line
    import pandas as pd

    path = tmp_path / "run" / "drama" / "games_8d8_2.parquet"
    df = pd.read_parquet(path)
    df["winner"] = (df["winner"] + 1) % 2
    df.to_parquet(path)
    (_, data), = RunData(tmp_path / "run").experiments()
    with pytest.raises(HeronSimError, match="replay differently"):
        analyse(exp, data)


def test_simulate_trace_of_no_game_writes_nothing_and_says_so(small_build):
    out = small_build / "none.csv"
    r = _cli("simulate", "--players", "2", "--games", "0", "--trace", str(out))
    assert r.exit_code == 0, r.output
    assert "not written (no game was played)" in r.output and not out.exists()


def test_worth_command_builds_checks_and_reuses_its_cache(small_build):
    import json

    args = ("worth", "--players", "2", "--strategy", "greedy", "--build-games", "300", "--check", "200", "--json")
    first = _cli(*args)
    assert first.exit_code == 0, first.output
    a = json.loads(first.stdout)
    assert a["built_now"] is True and len(a["deciles"]) == 10
    assert sum(d["positions"] for d in a["deciles"]) == a["positions"]
    second = json.loads(_cli(*args).stdout)
    assert second["built_now"] is False and second["deciles"] == a["deciles"]


@pytest.mark.parametrize("args,message", [
    (["--build-games", "10"], "--build-games"),
    (["--check", "-1"], "--check"),
    (["--strategy", "nobody"], "nobody"),
    (["--players", "8"], "players"),
])
def test_worth_command_refuses_bad_requests_in_one_line(small_build, args, message):
    r = _cli("worth", *args)
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], r.output


def test_story_speaks_french_by_default_and_passes_the_glossary(small_build):
    """Issue 60 item 1: story's words in French by default (heron_sim.glossary.check_fr: the
    players in the lab's words, « tours de table », numbers the French way), English with --lang
    en; every text has its French entry."""
    from heron_sim.cli.worth import STORY_MESSAGES
    from heron_sim.i18n import catalogue
    from tests.helpers import french_findings

    assert [m for m in STORY_MESSAGES if m not in catalogue("fr")] == []
    args = ("story", "--players", "2", "--strategy", "greedy,casual", "--seed", "5", "--game", "2")
    fr = _cli(*args)
    assert fr.exit_code == 0, fr.output
    assert french_findings(fr.stdout) == []
    assert fr.stdout.startswith("Partie 2 de la graine de hasard 5, 8 D8, 2 joueurs (robot gourmand, joueur occasionnel)")
    assert "Le tour qui a le plus servi au vainqueur" in fr.stdout
    en = _cli(*args, "--lang", "en")
    assert en.exit_code == 0 and en.stdout.startswith("Game 2 of seed 5, 8d8, 2 players (greedy, casual)")
    assert "The turn that did the most for the winner" in en.stdout
    assert _cli(*args, "--lang", "de").exit_code == 2


def test_story_tells_simulates_game_turn_by_turn(small_build):
    import json

    from heron_sim.simulation import simulate

    r = _cli("story", "--players", "3", "--strategy", "greedy", "--seed", "5", "--game", "2", "--json")
    assert r.exit_code == 0, r.output
    story = json.loads(r.stdout)
    games = simulate(Rules.build("8d8", players=3), 3, seed=5, strategies="greedy")
    assert story["winner"] == int(games["winner"].iloc[2]) + 1
    turns = story["turns"]
    assert turns[-1]["round"] == int(games["rounds"].iloc[2])
    assert turns[-1][f"chance_{story['winner']}"] == 1.0
    assert [t["player"] for t in turns[:4]] == [1, 2, 3, 1]
    # each turn starts where the player's previous turn ended, unless someone else moved it
    assert all(abs(sum(t[f"chance_{s}"] for s in (1, 2, 3)) - 1) < 1e-9 for t in turns)
    key = turns[story["key_turn"]]
    assert key["change"] == max(t["change"] for t in turns if t["player"] == story["winner"]) or key["player"] != story["winner"]
