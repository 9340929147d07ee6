"""The coach (issue 59 item 3): a logged game's keep-or-stop decisions with each option's chance
of winning as the champion values it, the choice and its loss (``heron-sim coach``), and
calibrate's list of the costliest decisions.

- exact: the champion's own decisions in a logged champion game cost nothing (every line says
  « comme le champion »), the coach's figures are heron_sim.playtest.chances' row for row, a
  seat's mean is the mean of its lines; the biggest losses are the largest, in order;
- cli: every bad input is one ``error:`` line; French and English words.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from heron_sim.i18n import catalogue
from heron_sim.playtest import log_turns
from heron_sim.playtest.chances import C_BEST, C_FLAG, C_LOGGED, VALUED, log_chances
from heron_sim.playtest.coach import MESSAGES, coach
from heron_sim.playtest.log import read_log
from heron_sim.rules import Rules
from tests.helpers import ROOT, cli, one_line_error

SAMPLE = ROOT / "experiments" / "playtest-sample.csv"


@pytest.fixture(scope="module")
def duel(tmp_path_factory):
    rules = Rules.build(mode="8d8", players=2)
    path = tmp_path_factory.mktemp("coach") / "duel.csv"
    path.write_text(log_turns(rules, 3, 11, "champion,racer").text, encoding="utf-8")
    return rules, path


def test_every_message_has_its_french():
    assert [m for m in MESSAGES if m not in catalogue("fr")] == []


@pytest.mark.exact
def test_the_coach_shows_the_champions_own_choices_at_no_cost(duel):
    rules, path = duel
    doc = coach(path, rules, game=1, opponents="racer")
    mine = [d for d in doc["decisions"] if d["seat"] == 0]
    other = [d for d in doc["decisions"] if d["seat"] == 1]
    assert len(mine) > 20 and len(other) > 20
    assert all(d["loss_points"] == 0.0 for d in mine)
    assert all((d["chosen"] == "reroll") == d["champion_rerolls"] for d in mine)
    # the figures are the chances' own, row for row, and a seat's mean is its lines' mean
    log = read_log(path, rules)
    v = log_chances(log, rules, "racer")
    rows = np.flatnonzero((log.game == 1) & (v[:, C_FLAG] == VALUED))
    assert [d["line"] for d in doc["decisions"]] == log.lines[rows].tolist()
    assert np.allclose([d["loss_points"] for d in doc["decisions"]], 100 * (v[rows, C_BEST] - v[rows, C_LOGGED]),
                       atol=1e-12, rtol=0)
    seat1 = next(s for s in doc["seats"] if s["seat"] == 1)
    assert seat1["mean_loss_points"] == pytest.approx(np.mean([d["loss_points"] for d in other]), abs=1e-12)
    assert seat1["decisions"] == len(other) and seat1["player"] == "racer"
    # a reroll keeps dice: the champion's keep is named (the expert's best keep)
    assert any(d["champion_keeps"] for d in mine if d["champion_rerolls"])


@pytest.mark.cli
def test_coach_in_words_and_json(duel):
    rules, path = duel
    fr = cli("coach", path, "--game", 1, "--opponents", "racer")
    assert fr.exit_code == 0, fr.output
    assert "comme le champion" in fr.stdout and "Joueur 1 (champion)" in fr.stdout
    en = cli("coach", path, "--game", 1, "--opponents", "racer", "--lang", "en", "--seat", 1)
    assert en.exit_code == 0 and "Seat 2 (racer)" in en.stdout and "Seat 1 " not in en.stdout
    doc = json.loads(cli("coach", path, "--json", "--opponents", "racer").stdout)
    assert doc["game"] == 0 and doc["decisions"] and doc["opponents"] == "racer"


@pytest.mark.cli
def test_the_coachs_french_passes_the_glossary(duel):
    """Issue 60 item 1: coach's French reads as written in French (heron_sim.glossary.check_fr):
    the players in the lab's words (« robot coureur », not racer), the dice's « héron », « sans
    rien garder », numbers the French way."""
    from tests.helpers import french_findings

    _, path = duel
    for game in (0, 1, 2):
        fr = cli("coach", path, "--game", game, "--opponents", "racer")
        assert fr.exit_code == 0, fr.output
        assert french_findings(fr.stdout) == []
        assert "Joueur 2 (robot coureur)" in fr.stdout and "comme le robot coureur" in fr.stdout
        assert "héron" in fr.stdout and "en gardant rien" not in fr.stdout


@pytest.mark.cli
@pytest.mark.parametrize("extra,words", [
    (["--game", 99], "--game: 99 is not in"),
    (["--seat", 5], "--seat: 5 has no decision"),
    (["--opponents", "wizard"], "wizard"),
    (["--lang", "de"], "--lang"),
])
def test_a_bad_option_is_one_line(duel, extra, words):
    _, path = duel
    res = cli("coach", path, *extra)
    one_line_error(res)
    assert words in res.stderr


@pytest.mark.cli
def test_a_log_without_its_table_is_one_line(tmp_path):
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "bare.csv"
    path.write_text("\n".join(ln if ln.startswith("#") else ",".join(ln.split(",")[:15]) for ln in lines) + "\n",
                    encoding="utf-8")
    res = cli("coach", path)
    one_line_error(res)
    assert "does not record the table" in res.stderr


@pytest.mark.cli
def test_calibrate_lists_the_costliest_decisions():
    from heron_sim.playtest import calibrate

    doc = calibrate(SAMPLE, Rules.build(mode="8d8", players=4))
    big = doc["biggest_losses"]
    assert len(big) == 5
    losses = [d["loss_points"] for d in big]
    assert losses == sorted(losses, reverse=True) and losses[-1] > 0
    # no other decision of the log lost more than the fifth
    rules = Rules.build(mode="8d8", players=4)
    log = read_log(SAMPLE, rules)
    v = log_chances(log, rules, doc["nearest_rung"])
    ok = v[:, C_FLAG] == VALUED
    all_losses = np.sort(100 * (v[ok, C_BEST] - v[ok, C_LOGGED]))[::-1]
    assert np.allclose(losses, all_losses[:5], atol=1e-12, rtol=0)
    text = cli("calibrate", SAMPLE).stdout
    assert "Les décisions qui ont coûté le plus de chance de gagner" in text
    assert f"ligne {big[0]['line']} — Tour {big[0]['turn']}" in text
