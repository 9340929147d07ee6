"""Each logged keep-or-stop decision valued in chances of winning, as the champion values it, and
a player's loss of winning chance per decision against the champion (heron_sim.playtest.chances;
issue 57 items 4 and 5).

- exact: the champion's own logged decisions cost nothing against itself (the valuation is the
  champion's, row for row); an expert's logged reroll keeps the expert's best keep, and its chance
  read from the law of the kept dice is that of the first champion's reroll (a wrong decoding of
  the kept dice's law fails it); the champion's reroll is the best of every legal keep, each
  valued alone; the interval's arithmetic by hand;
- statistical: the novice loses more winning chance per decision than the regular player, with
  intervals apart (fixed seeds);
- the table's columns: every bad one is one line naming the file, the line and the column.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.playtest import log_turns
from heron_sim.playtest.chances import (
    C_BEST, C_FLAG, C_KEEP, C_LOGGED, C_REROLL, C_STOP, VALUED, log_chances, loss_of,
)
from heron_sim.playtest.log import read_log
from heron_sim.rules import Rules


def _log(tmp_path, rules, games, seed, seating, name="log.csv"):
    path = tmp_path / name
    path.write_text(log_turns(rules, games, seed, seating).text, encoding="utf-8")
    return read_log(path, rules)


@pytest.fixture(scope="module")
def champion_log(tmp_path_factory):
    rules = Rules.build(mode="8d8", players=2)
    log = _log(tmp_path_factory.mktemp("ch"), rules, 40, 11, "champion,racer")
    return rules, log, log_chances(log, rules, "racer")


@pytest.mark.exact
def test_the_champion_loses_nothing_against_itself(champion_log):
    """Seat 0's decisions (the champion, valued at the same table: a racer opposite) are the
    champion's own choices at every valued decision: its loss is 0, row for row."""
    rules, log, v = champion_log
    mine = (log.seat == 0) & (v[:, C_FLAG] == VALUED)
    assert mine.sum() > 500
    rerolled = v[mine, C_REROLL] > v[mine, C_STOP] + 1e-12
    assert (rerolled == (log.choice[mine] == 1)).all()
    assert np.abs(v[mine, C_BEST] - v[mine, C_LOGGED]).max() <= 1e-12
    loss = loss_of(v, log.game, log.seat == 0)
    assert loss.points == 0.0 and loss.agree == 1.0
    # the racer opposite does not play as the champion: it loses some
    other = loss_of(v, log.game, log.seat == 1)
    assert other.decisions > 500 and other.agree < 1.0 and other.points > 0


@pytest.mark.exact
def test_a_logged_reroll_is_valued_from_the_law_of_the_dice_kept(tmp_path):
    """An expert rerolls with its best keep: the chance read from the law of the dice it kept is
    the first champion's reroll's (``champion:keeps=0``, whose reroll is the expert's keep: the
    same law), at every reroll; a stop is valued as stopping. The champion that chooses among every
    keep does at least as well, the same where it keeps the expert's dice, and better somewhere."""
    rules = Rules.build(mode="8d8", players=3)
    log = _log(tmp_path, rules, 12, 3, "expert,expert,expert")
    v = log_chances(log, rules, "expert", champion="champion:keeps=0")
    ok = v[:, C_FLAG] == VALUED
    rr = ok & (log.choice == 1)
    st = ok & (log.choice == 0)
    assert rr.sum() > 300 and st.sum() > 20  # the expert stops with a roll left rarely
    assert np.abs(v[rr, C_LOGGED] - v[rr, C_REROLL]).max() <= 1e-12
    assert (v[st, C_LOGGED] == v[st, C_STOP]).all()
    assert (v[rr, C_KEEP] == log.kept[rr]).all()  # the dice it keeps are the expert's
    both = v[ok][:, [C_STOP, C_REROLL]]
    assert (both >= 0).all() and (both <= 1 + 1e-12).all()  # chances (a law's mass sums to 1 within rounding)
    b = log_chances(log, rules, "expert")
    assert (b[:, C_FLAG] == v[:, C_FLAG]).all() and (b[ok, C_STOP] == v[ok, C_STOP]).all()
    assert (b[ok, C_REROLL] >= v[ok, C_REROLL]).all()
    same = ok & (b[:, C_KEEP] == v[:, C_KEEP])
    assert (b[same, C_REROLL] == v[same, C_REROLL]).all()
    assert (b[ok, C_REROLL] > v[ok, C_REROLL] + 1e-9).sum() >= 0.05 * ok.sum()


def _legal_keeps(row):
    """Every legal keep of a keep decision's dice, as masks of the free dice: at least one die
    newly held (a fresh heron counts) and one left to roll; written from the rulings, not from
    the champion's odometer."""
    from heron_sim.engine.layout import FREE, HERON
    from heron_sim.playtest.values import S_FACE, S_FRESH, S_NDICE, S_STATUS

    n = int(row[S_NDICE])
    free = [i for i in range(n) if row[S_STATUS + i] == FREE and row[S_FACE + i] != HERON]
    fresh_heron = any(row[S_FACE + i] == HERON and row[S_FRESH + i] for i in range(n))
    for bits in range(1 << len(free)):
        taken = [free[k] for k in range(len(free)) if (bits >> k) & 1]
        if len(taken) < len(free) and (taken or fresh_heron):
            yield sum(1 << i for i in taken)


@pytest.mark.exact
def test_the_champions_keep_is_the_best_of_every_legal_keep(tmp_path):
    """At each of 40 decisions, every legal keep of the dice, valued one by one as a logged keep
    (its own law), is worth at most the champion's reroll, and the dice the champion keeps are
    worth exactly it: a keep the champion's enumeration skipped, or a wrong rank of a kept vector,
    fails."""
    from heron_sim.playtest.coach import _take

    rules = Rules.build(mode="8d8", players=2)
    log = _log(tmp_path, rules, 6, 17, "champion,racer")
    v = log_chances(log, rules, "racer")
    rows = np.flatnonzero((v[:, C_FLAG] == VALUED) & (log.seat == 0))[:40]
    assert rows.size == 40
    take, masks = [], []
    for i in rows:
        for mask in _legal_keeps(log.state[i]):
            take.append(i)
            masks.append(mask)
    take = np.array(take)
    assert take.size > 200
    many = _take(log, take)
    many.choice[:] = 1
    many.kept[:] = masks
    u = log_chances(many, rules, "racer")
    ok = u[:, C_FLAG] == VALUED
    best = {}
    for j in np.flatnonzero(ok):
        best[take[j]] = max(best.get(take[j], -1.0), u[j, C_LOGGED])
    for i in rows:
        assert best[i] <= v[i, C_REROLL] + 1e-12
        assert best[i] >= v[i, C_REROLL] - 1e-12  # the champion's keep is one of them
    theirs = ok & (np.array(masks) == v[take, C_KEEP].astype(np.int64))
    assert np.abs(u[theirs, C_LOGGED] - v[take[theirs], C_REROLL]).max() <= 1e-12
    assert len(set(take[theirs].tolist())) == rows.size


@pytest.mark.exact
def test_another_keep_has_its_own_law(tmp_path):
    """A reroll that keeps other dice than the expert's best keep is valued from its own law:
    the novice's keeps are the expert's (its family has no keep errors), so its rerolls equal the
    first champion's reroll (the expert's keep); moving one kept die to the rerolled ones changes
    the chance."""
    rules = Rules.build(mode="8d8", players=2)
    log = _log(tmp_path, rules, 10, 5, "novice,novice")
    v = log_chances(log, rules, "novice", champion="champion:keeps=0")
    rr = np.flatnonzero((v[:, C_FLAG] == VALUED) & (log.choice == 1) & (log.kept != 0))
    assert rr.size > 100
    assert np.abs(v[rr, C_LOGGED] - v[rr, C_REROLL]).max() <= 1e-12
    for i in rr[:60]:
        kept = int(log.kept[i])
        low = kept & -kept  # one kept die rerolled instead
        log.kept[i] = kept ^ low
    w = log_chances(log, rules, "novice", champion="champion:keeps=0")
    moved = rr[:60][w[rr[:60], C_FLAG] == VALUED]
    changed = int((np.abs(w[moved, C_LOGGED] - v[moved, C_LOGGED]) > 1e-9).sum())
    assert changed >= 0.8 * moved.size


def test_the_interval_takes_the_games_as_clusters():
    """Mean loss = total loss / decisions; variance G/(G-1) * sum_g (L_g - mean n_g)^2 / N^2."""
    v = np.zeros((5, 5))
    v[:, C_FLAG] = VALUED
    v[:, C_BEST] = [0.5, 0.5, 0.5, 0.5, 0.5]
    v[:, C_LOGGED] = [0.5, 0.49, 0.47, 0.5, 0.5]
    game = np.array([0, 0, 1, 1, 2])
    loss = loss_of(v, game)
    per = np.array([1.0, 3.0, 0.0])  # points lost by game
    n = np.array([2, 2, 1])
    mean = per.sum() / n.sum()
    half = 1.959963984540054 * math.sqrt(3 / 2 * ((per - mean * n) ** 2).sum() / n.sum() ** 2)
    assert loss.points == pytest.approx(mean, abs=1e-12)
    assert loss.low == pytest.approx(mean - half, abs=1e-12) and loss.high == pytest.approx(mean + half, abs=1e-12)
    assert loss.decisions == 5 and loss.games == 3 and loss.agree == pytest.approx(3 / 5)
    v[:, C_FLAG] = 0
    assert loss_of(v, game) is None


@pytest.mark.statistical
def test_the_novice_loses_more_than_the_regular_player(tmp_path):
    """Four-player tables of one rung each (fixed seeds, 60 games): the novice's loss per decision
    lies above the regular player's, their 95 % intervals apart; both above 0."""
    rules = Rules.build(mode="8d8", players=4)
    out = {}
    for rung in ("novice", "regular"):
        log = _log(tmp_path, rules, 60, 21, ",".join([rung] * 4), name=f"{rung}.csv")
        out[rung] = loss_of(log_chances(log, rules, rung), log.game)
    assert out["regular"].low > 0
    assert out["novice"].low > out["regular"].high, out


# ---------------------------------------------------------------- the table's columns
HEAD = "game,turn,seat,guide,ready,roll,dice,decision,choice,kept,squares,guides,guides_ready,protected"
GOOD = "0,1,0,loup,1,1,taureau taureau loup taureau cerf serpent cerf serpent,keep,stop,,12 30,loup cerf,1 0,0 0"


def _bad(tmp_path, head, row):
    p = tmp_path / "t.csv"
    p.write_text(f"{head}\n{row}\n", encoding="utf-8")
    with pytest.raises(HeronSimError) as err:
        read_log(p, Rules.build(mode="8d8", players=2))
    msg = str(err.value)
    assert "\n" not in msg and str(p) in msg
    return msg


def test_a_good_table_is_read(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(f"{HEAD}\n{GOOD}\n", encoding="utf-8")
    log = read_log(p, Rules.build(mode="8d8", players=2))
    assert log.table_players.tolist() == [2]
    assert log.squares[0, :2].tolist() == [12, 30] and log.readies[0, :2].tolist() == [1, 0]


@pytest.mark.parametrize("change,words", [
    (lambda r: r.replace(",12 30,", ",12 30 4,"), "one of each per seat"),
    (lambda r: r.replace(",12 30,", ",12 63,"), "allowed: 0..62"),
    (lambda r: r.replace(",12 30,", ",12 x,"), "not a whole number"),
    (lambda r: r.replace(",loup cerf,", ",cerf loup,"), "seat 0 holds cerf"),
    (lambda r: r.replace(",loup cerf,", ",loup chat,"), "not an animal"),
    (lambda r: r.replace(",1 0,0 0", ",1 2,0 0"), "guides_ready: 2"),
    (lambda r: r.replace(",1 0,0 0", ",1 0,0 0 1"), "values for 2 seats"),
    (lambda r: r.replace(",12 30,loup cerf,1 0,0 0", ",,,,1 0"), "without squares"),
    (lambda r: r.replace(",12 30,loup cerf,1 0,", ",12,loup,1,"), "allowed: 2..7"),
    (lambda r: r.replace("0,1,0,loup", "0,1,2,loup"), "the table has 2 seats"),
])
def test_a_bad_table_is_one_line(tmp_path, change, words):
    assert words in _bad(tmp_path, HEAD, change(GOOD))


def test_the_table_columns_go_together(tmp_path):
    head = HEAD.replace(",guides_ready,protected", "")
    row = GOOD.rsplit(",", 2)[0]
    assert "go together" in _bad(tmp_path, head, row)


def test_a_game_keeps_its_number_of_players(tmp_path):
    second = GOOD.replace(",12 30,loup cerf,1 0,0 0", ",12 30 5,loup cerf lion,1 0 1,0 0 0")
    p = tmp_path / "t.csv"
    p.write_text(f"{HEAD}\n{GOOD}\n{second}\n", encoding="utf-8")
    with pytest.raises(HeronSimError, match="the earlier rows of game 0 have 2"):
        read_log(p, Rules.build(mode="8d8", players=2))


# ---------------------------------------------------------------- calibrate
@pytest.mark.cli
def test_calibrate_reports_the_loss_against_the_champion_and_the_rung(tmp_path):
    """The shipped sample records the table: calibrate values its keep-or-stop decisions in
    chances (the same figure as the library's), beside the nearest rung's own loss; the same log
    without the table's columns says, in words, that the loss was not measured and why."""
    import json

    from heron_sim.playtest import calibrate
    from tests.helpers import ROOT, cli

    sample = ROOT / "experiments" / "playtest-sample.csv"
    rules = Rules.build(mode="8d8", players=4)
    doc = calibrate(sample, rules)
    loss = doc["loss_per_decision"]
    assert loss["measured"] and loss["rung"] == doc["nearest_rung"] == "casual"
    log = read_log(sample, rules)
    mine = loss_of(log_chances(log, rules, "casual"), log.game)
    assert loss["points"] == pytest.approx(mine.points, abs=1e-12) and loss["decisions"] == mine.decisions
    assert loss["low"] < loss["points"] < loss["high"] and loss["rung_loss"]["decisions"] > 1000
    words = cli("calibrate", sample).stdout
    assert "Face au champion" in words and "l'échelon occasionnel en perd" in words
    # the same log without its table
    lines = sample.read_text(encoding="utf-8").splitlines()
    bare = [ln if ln.startswith("#") else ",".join(ln.split(",")[:15]) for ln in lines]
    # (a row's dice and kept cells hold no comma: the first 15 fields are the columns before the table)
    path = tmp_path / "bare.csv"
    path.write_text("\n".join(bare) + "\n", encoding="utf-8")
    res = cli("calibrate", path, "--json")
    assert json.loads(res.stdout)["loss_per_decision"] == {"measured": False, "why": "no table"}
    assert "non mesurée, le journal ne décrit pas la table" in cli("calibrate", path).stdout


@pytest.mark.statistical
@pytest.mark.parametrize("rung,seed", [("reckless", 12), ("novice", 12)])
def test_calibrate_reads_a_bold_and_a_timid_player(tmp_path, rung, seed):
    """Logs of 20 four-player games of a bold (reckless: caution -12) and a timid player (novice:
    caution 1.5), fixed seeds: each parameter's interval holds the truth, the caution's sign is
    told, the nearest rung is the player itself, and its loss per decision against the champion
    has an interval that holds the rung's own loss in other games."""
    from heron_sim.playtest import calibrate
    from heron_sim.strategies.human import RUNGS, STYLES

    rules = Rules.build(mode="8d8", players=4)
    path = tmp_path / f"{rung}.csv"
    path.write_text(log_turns(rules, 20, seed, ",".join([rung] * 4)).text, encoding="utf-8")
    doc = calibrate(path, rules)
    truth = {**RUNGS, **STYLES}[rung]
    for p, v in truth.items():
        e = doc["estimates"][p]
        assert e["low"] <= v <= e["high"], (p, v, e)
    c = doc["estimates"]["caution"]
    assert (c["high"] < 0) if truth["caution"] < 0 else (c["low"] > 0)
    assert doc["nearest_rung"] == rung
    loss = doc["loss_per_decision"]
    assert loss["low"] <= loss["rung_loss"]["points"] <= loss["high"], loss
