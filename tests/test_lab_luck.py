"""The lab's evidence luck-adjusted (issue 32 item 3): the last rung (and a replay) played with
the players' luck, each figure of the wins read luck-adjusted where its interval is narrower,
the plain figure kept beside it, the same games as without luck."""

from __future__ import annotations

import math

import numpy as np
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab.metrics import ADJUSTED, IX, K, KA, adjusted_sums, luck_adjusted_columns
from heron_sim.lab.replay import replay, replay_text
from heron_sim.lab.spec import load_spec
from tests.test_lab import SMALL, write

pytestmark = pytest.mark.statistical

GAMES = 3000
WINS = ("guide_spread", "first_player_advantage", "seat_balance", *(f"seat_{s}_win_rate" for s in range(4)),
        *(f"guide_{g}_win_rate" for g in ("loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron")))


@pytest.fixture(scope="module")
def replays(tmp_path_factory):
    d = tmp_path_factory.mktemp("lab-luck")
    spec = write(d, SMALL)
    v = d / "v.toml"
    v.write_text("bull_bonus = 3\n", encoding="utf-8")
    return replay(spec, v, seed=21, games=GAMES), replay(spec, v, seed=21, games=GAMES, luck=True)


def test_adjusted_sums_put_the_adjusted_wins_in_the_wins_place():
    S = np.arange(KA, dtype=float)[None, :].repeat(3, axis=0)
    A = adjusted_sums(S)
    assert A.shape == (3, K)
    for j, name in enumerate(ADJUSTED):
        assert (A[:, IX[name]] == K + j).all()
    others = [i for i in range(K) if i not in {IX[n] for n in ADJUSTED}]
    assert (A[:, others] == S[:, others]).all()
    assert adjusted_sums(S[:, :K]) is None


def test_without_luck_measured_the_adjusted_wins_are_the_wins():
    X = np.zeros((20, K), dtype=np.int32)
    X[::3, IX["seat_win_1"]] = 1
    X[:, IX["dealt_lion"]] = 1
    X[::4, IX["won_lion"]] = 1
    A = luck_adjusted_columns(X, None, np.zeros((20, 7), dtype=np.int8))
    for j, name in enumerate(ADJUSTED):
        assert (A[:, j] == X[:, IX[name]]).all()


def test_the_luck_changes_no_game_and_keeps_the_plain_figures(replays):
    plain, lucky = replays
    assert lucky["luck"] and not plain["luck"]
    ep, el = plain["evidence"], lucky["evidence"]
    assert not any("estimate" in o for o in ep["objectives"])  # a plain replay: its figures as before
    for a, b in zip(ep["effects"], el["effects"]):
        assert a["metric"] == b["metric"]
        shown = b.get("plain", b)  # the plain figures, where the adjusted ones are used
        for k in ("base", "variant", "low", "high"):
            assert shown[k] == pytest.approx(a[k], rel=1e-9, abs=1e-12, nan_ok=True), (a["metric"], k)
    for a, b in zip(ep["objectives"], el["objectives"]):
        shown = b.get("plain", b)
        for k in ("loss", "loss_low", "loss_high"):
            assert shown[k] == pytest.approx(a[k], rel=1e-9, abs=1e-12, nan_ok=True), (a["metric"], k)


def test_the_wins_are_luck_adjusted_and_narrower_the_rest_plain(replays):
    _, lucky = replays
    rows = {x["metric"]: x for x in lucky["evidence"]["effects"]}
    for m, x in rows.items():
        if m in WINS:
            # a paired difference of win rates: about 2x fewer games for its interval (greedy, 8 D8)
            assert x["estimate"] == "luck-adjusted", m
            assert x["luck_variance_ratio"] > 1.3, (m, x["luck_variance_ratio"])
            assert x["high"] - x["low"] < x["plain"]["high"] - x["plain"]["low"]
        else:
            assert x["estimate"] == "plain", m  # the luck does not touch a length, a Pond rate ...
    obj = {o["metric"]: o for o in lucky["evidence"]["objectives"]}
    assert obj["guide_spread"]["estimate"] == "luck-adjusted" and obj["length"]["estimate"] == "plain"
    assert "luck-adjusted; plain [" in replay_text(lucky)
    assert lucky["base"]["objectives"][0]["estimate"] == "luck-adjusted"


def test_the_adjusted_and_plain_differences_agree(replays):
    """Both estimate the same paired difference: they differ by the controls' mean, whose standard
    error is about sqrt(plain variance - adjusted variance) (the control is the part of the win the
    luck explains). Each within 4.5 of those standard errors."""
    _, lucky = replays
    for x in lucky["evidence"]["effects"]:
        if x["metric"] not in WINS or x["metric"] == "seat_balance":
            continue
        p = x["plain"]
        se_p, se_a = (p["high"] - p["low"]) / 3.92, (x["high"] - x["low"]) / 3.92
        se = math.sqrt(max(se_p ** 2 - se_a ** 2, 1e-12))
        z = ((x["variant"] - x["base"]) - (p["variant"] - p["base"])) / se
        assert abs(z) < 4.5, (x["metric"], z)


def test_a_control_with_a_mean_is_caught():
    """Negative control: luck features shifted off zero make the adjusted win rates biased, and
    the comparison with the plain rates above catches it."""
    from heron_sim.lab.metrics import batch_matrix_luck
    from heron_sim.rules import Rules
    from heron_sim.runner.executor import split_games

    rules = Rules()
    parts = [batch_matrix_luck(b) for b in split_games(rules, [["greedy"] * 4], 5, 4000, luck=True)]
    X = np.concatenate([p[0] for p in parts])
    F = np.concatenate([p[1] for p in parts])
    H = np.concatenate([p[2] for p in parts])

    def z_of(F):
        A = luck_adjusted_columns(X, F, H)
        zs = []
        for s in range(4):
            y = X[:, IX[f"seat_win_{s}"]].astype(float)
            c = y - A[:, s]
            zs.append(c.mean() / (c.std(ddof=1) / math.sqrt(c.size)))
        return np.array(zs)

    assert np.abs(z_of(F)).max() < 4.5
    shifted = F.copy()
    shifted[:, :, 0] += 3.0  # each seat's own luck 3 squares too high (a third of its standard deviation)
    assert np.abs(z_of(shifted)).max() > 4.5


def test_the_file_and_the_option(tmp_path):
    spec = load_spec(write(tmp_path, SMALL.replace("report = 3", "report = 3\nluck = true")))
    assert spec.luck is True
    assert load_spec(write(tmp_path, SMALL)).luck is False
    with pytest.raises(HeronSimError, match="racing.luck"):
        load_spec(write(tmp_path, SMALL.replace("report = 3", 'report = 3\nluck = "yes"')))


def test_dice_whose_luck_is_not_measured_stay_plain(tmp_path):
    spec = write(tmp_path, SMALL.replace('seating = "greedy"', 'seating = "greedy"\nmode = "10d6"'))
    v = tmp_path / "v.toml"
    v.write_text("bull_bonus = 3\n", encoding="utf-8")
    res = replay(spec, v, seed=3, games=300, luck=True)
    assert all(x["estimate"] == "plain" for x in res["evidence"]["effects"])
    assert all(o["estimate"] == "plain" for o in res["evidence"]["objectives"])


def test_the_command_line_replay_says_which_figures_are_luck_adjusted(tmp_path):
    from typer.testing import CliRunner

    from heron_sim.cli import app

    spec = write(tmp_path, SMALL)
    v = tmp_path / "v.toml"
    v.write_text("bull_bonus = 3\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["replay", str(spec), str(v), "--seed", "5", "--games", "400", "--luck"])
    assert res.exit_code == 0, res.output
    assert "guide_spread" in res.output and "(luck-adjusted; plain [" in res.output
    res = CliRunner().invoke(app, ["replay", str(spec), str(v), "--seed", "5", "--games", "400"])
    assert res.exit_code == 0 and "luck-adjusted" not in res.output
    res = CliRunner().invoke(app, ["tune", "--help"])
    assert "--luck" in res.output


def test_a_study_with_a_luck_adjusted_last_rung_says_so_in_its_pages(tmp_path):
    import json

    import pandas as pd

    from heron_sim.lab import tune

    spec = write(tmp_path, SMALL)
    res = tune(spec, run_dir=tmp_path / "run", out=tmp_path / "out", luck=True)
    assert res["finalists"] and all(o["estimate"] == "luck-adjusted" for e in res["finalists"]
                                    for o in e["objectives"] if o["metric"] == "guide_spread")
    front = (tmp_path / "out" / "front.md").read_text(encoding="utf-8")
    assert "**luck-adjusted**" in front and " †" in front
    csv = pd.read_csv(tmp_path / "out" / "front.csv")
    assert set(csv["guide_spread estimate"]) == {"luck-adjusted"} and set(csv["length estimate"]) == {"plain"}
    assert (csv["guide_spread luck variance ratio"] > 1).all()
    eff = pd.read_csv(tmp_path / "out" / "effects.csv")
    wins = eff[eff["metric"].str.startswith(("seat_", "guide_")) & eff["metric"].str.endswith("_win_rate")]
    assert (wins["estimate"] == "luck-adjusted").all() and (wins["high"] - wins["low"] < wins["plain_high"] - wins["plain_low"]).all()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["luck_adjusted"] is True
    # the rule sheets (French and English) mark the luck-adjusted objective and say what it means
    fr = sorted((tmp_path / "out").glob("sheet-*.fr.md"))[0].read_text(encoding="utf-8")
    en = sorted((tmp_path / "out").glob("sheet-*.en.md"))[0].read_text(encoding="utf-8")
    assert " †" in fr and "† corrigé de la chance aux dés" in fr
    assert " †" in en and "† luck-adjusted: each player's dice luck taken out" in en
    # the same study without the luck: its last rung's plain figures, the search and first rung re-used
    plain = tune(spec, run_dir=tmp_path / "run", out=tmp_path / "out2")
    assert "luck-adjusted" not in (tmp_path / "out2" / "front.md").read_text(encoding="utf-8")
    # a plain study's pages hold no luck column nor key (its outputs as before the luck)
    assert not any("estimate" in c or "luck" in c for c in pd.read_csv(tmp_path / "out2" / "front.csv").columns)
    assert not any("estimate" in c or "luck" in c for c in pd.read_csv(tmp_path / "out2" / "effects.csv").columns)
    assert "luck_adjusted" not in json.loads((tmp_path / "out2" / "summary.json").read_text(encoding="utf-8"))
    assert "†" not in sorted((tmp_path / "out2").glob("sheet-*.fr.md"))[0].read_text(encoding="utf-8")
    a = {e["id"]: e for e in res["finalists"]}
    for e in plain["finalists"]:
        o = e["objectives"][0]
        assert a[e["id"]]["objectives"][0]["plain"]["loss"] == pytest.approx(o["loss"], rel=1e-9)


@pytest.mark.slow
def test_the_adjusted_paired_intervals_cover_the_truth(tmp_path):
    """Coverage with a known truth (issue 32: 95 % ± 3 over 200 repetitions): the paired
    difference bull_bonus 3 − rulings at a table of four greedy players, its truth from 10⁶ plain
    games of another seed (half-widths 0.08–0.15 point, a tenth of a replay's); 200 replays of
    2,000 games with the luck, each seat's and guide's interval luck-adjusted, its coefficients
    held fixed in the bootstrap (docs/tuning.md). Measured: seat 1 96.0 %, seat 4 94.5 %, the
    Taureau 93.5 %, the Héron 95.0 % (the plain intervals 95.0, 94.5, 93.5, 99.0)."""
    spec = write(tmp_path, SMALL)
    v = tmp_path / "v.toml"
    v.write_text("bull_bonus = 3\n", encoding="utf-8")
    metrics = ("seat_0_win_rate", "seat_3_win_rate", "guide_taureau_win_rate", "guide_heron_win_rate")
    truth = {x["metric"]: x["diff"] for x in replay(spec, v, seed=1000, games=1_000_000)["evidence"]["effects"]}
    hits = dict.fromkeys(metrics, 0)
    for s in range(1, 201):
        for x in replay(spec, v, seed=s, games=2000, luck=True)["evidence"]["effects"]:
            if x["metric"] in hits:
                assert x["estimate"] == "luck-adjusted"
                hits[x["metric"]] += x["low"] <= truth[x["metric"]] <= x["high"]
    for m, k in hits.items():
        assert 0.92 <= k / 200 <= 0.98, (m, k / 200)
