"""Playtest logs and the fit of the human-like player (issue 28, item 3; docs/calibrate.md).

- exact: the logged games are the games ``simulate`` plays (every strategy, the recording plug-in
  on the generic roll loop); the log read back gives the recorded state of every decision; the
  expert's values recomputed from the logged dice are the expert's own (its log matches the
  ``expert`` rung on every decision);
- statistical: recovery: logs of 2,000 turns from three known parameter sets give each
  parameter back inside its 95 % interval (fixed seeds), the shipped sample too;
- cli: ``simulate --log-turns`` writes the same log as the library; ``calibrate --json``'s shape;
  a malformed log is one ``error:`` line naming its line.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from heron_sim.playtest import calibrate, log_turns, player_name
from heron_sim.rules import Rules
from heron_sim.strategies import parse_strategy
from tests.helpers import ROOT, cli

SAMPLE = ROOT / "experiments" / "playtest-sample.csv"
SAMPLE_TRUTH = {"temp": 0.8, "caution": 0.8, "forget": 0.3}
HEADER = "game,turn,seat,player,guide,ready,roll,rolls_left,dice,decision,choice,kept,die,detail,seconds"


def _rules(mode="8d8", players=4):
    return Rules.build(mode=mode, players=players)


@pytest.fixture(scope="module")
def sample_fitted_once():
    """The shipped sample log under the default rules is fitted once for the module's tests that
    read it through the command line (text, --json, the French words; about 5 s a fit): the first
    call fits, the others get a copy of its document, then render it. Only that file, those rules
    and no --player are kept; every other call fits as before."""
    import copy
    from pathlib import Path

    import heron_sim.playtest as P

    fit, kept = P.calibrate_files, {}

    def once(paths, rules, player=None):
        files = [paths] if isinstance(paths, (str, Path)) else list(paths)
        if ([Path(f).resolve() for f in files] != [SAMPLE.resolve()] or player is not None
                or rules.digest() != _rules().digest()):
            return fit(paths, rules, player)
        if "doc" not in kept:
            kept["doc"] = fit(paths, rules, player)
        return copy.deepcopy(kept["doc"])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P, "calibrate_files", once)
        yield


@pytest.mark.exact
@pytest.mark.parametrize("mode,seating", [
    ("8d8", ["greedy", "expert", "prudent", "racer", "novice"]),
    ("8d8", ["champion", "racer", "expert"]),  # its scratch is in the recorder's workspace too
    pytest.param("10d6", ["casual", "random", "regular"], marks=pytest.mark.slow),  # make test-slow
])
def test_logged_games_are_the_simulated_games(mode, seating):
    """Every seat recorded through the plug-in plays the games simulate plays, counter by
    counter (the same draws of the same streams)."""
    from heron_sim import simulate
    from heron_sim.engine import layout as L
    from heron_sim.engine.pack import pack_rules
    from heron_sim.playtest.record import record_game
    from heron_sim.simulation import results_frame
    from heron_sim.strategies import seat_arrays

    rules = _rules(mode, len(seating))
    sids, sp = seat_arrays(seating, rules)
    R = pack_rules(rules)
    rows, decisions = [], 0
    for g in range(25):
        records, row = record_game(9, g, R, sids, sp, L.n_columns(rules.finish), cap=8)  # a buffer that grows
        rows.append(row)
        decisions += len(records)
    assert decisions > 1000
    logged = results_frame(np.array(rows), rules, 9, seating)
    played = simulate(rules, 25, 9, seating, threads=1)
    assert (logged.astype(str).to_numpy() == played.astype(str).to_numpy()).all()


@pytest.fixture(scope="module")
def casual_log(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "casual.csv"
    rules = _rules()
    log = log_turns(rules, 50, 5, "casual,casual,greedy,expert", max_turns=600)
    path.write_text(log.text, encoding="utf-8")
    return path, log, rules


@pytest.mark.exact
def test_log_round_trips(casual_log):
    """The log read back holds every recorded decision's state (dice, kept/reserved/fresh,
    guide, ready, rolls) and choice."""
    from heron_sim.engine import layout as L
    from heron_sim.engine.pack import pack_rules
    from heron_sim.playtest import record as rec
    from heron_sim.playtest.log import DECISIONS, read_log
    from heron_sim.playtest.values import S_FACE, S_FRESH, S_GUIDE, S_READY, S_ROLL, S_ROLLS_LEFT, S_STATUS
    from heron_sim.strategies import parse_seating, seat_arrays

    path, log, rules = casual_log
    assert log.turns == 600 and log.text.startswith("# heron-sim turn log") and "SIMULATED" in log.text
    back = read_log(path, rules)
    seating = parse_seating("casual,casual,greedy,expert", 4)
    sids, sp = seat_arrays(seating, rules)
    records = []
    for g in range(log.games):
        r, _ = rec.record_game(5, g, pack_rules(rules), sids, sp, L.n_columns(rules.finish))
        records += [x for x in r if int(x[rec.R_KIND]) in DECISIONS]
    records = records[: len(back)]
    assert len(back) == len(records) == log.decisions
    n = rules.n_dice
    for j, x in enumerate(records):
        assert back.kind[j] == x[rec.R_KIND] and back.seat[j] == x[rec.R_SEAT]
        assert back.state[j, S_GUIDE] == x[rec.R_GUIDE] and back.state[j, S_READY] == x[rec.R_READY]
        if back.kind[j] == L.D_SNAKE:
            assert back.nominal[j] == x[rec.R_NOMINAL]
            continue
        assert back.state[j, S_ROLL] == x[rec.R_ROLL] and back.state[j, S_ROLLS_LEFT] == x[rec.R_ROLLS_LEFT]
        for off, field in ((S_FACE, rec.R_FACE), (S_STATUS, rec.R_STATUS), (S_FRESH, rec.R_FRESH)):
            assert list(back.state[j, off : off + n]) == list(x[field : field + n]), (j, off)
        if back.kind[j] == L.D_KEEP:
            assert back.choice[j] == (x[rec.R_RESULT] != 0)
            assert back.kept[j] == x[rec.R_KEPT]


@pytest.mark.exact
def test_the_experts_log_matches_the_expert_rung_everywhere():
    """Values recomputed from the logged dice are the expert's own: every modelled decision of
    an expert's games is the expert rung's choice, every reroll keeps the best reroll's dice,
    every power use is a best use; the fit puts temp at its lower bound."""
    rules = _rules(players=3)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/expert.csv"
        from heron_sim.playtest import write_turn_log

        write_turn_log(path, rules, 40, 3, "expert", max_turns=1500)
        doc = calibrate(path, rules)
    assert doc["modelled_decisions"] > 1000 and doc["decisions"]["power"] > 100
    assert doc["move_matching"]["expert"] == 1.0
    assert doc["kept_dice_matching"]["rate"] == 1.0 and doc["power_target_matching"]["rate"] == 1.0
    assert doc["estimates"]["temp"]["estimate"] < 0.02
    assert doc["move_matching"]["novice"] < 0.6  # the measure separates the players


@pytest.mark.exact
def test_model_constants_are_the_players():
    from scipy.stats import chi2

    from heron_sim.playtest import fit
    from heron_sim.strategies import human

    assert fit.SNAKE_WORTH == human.SNAKE_WORTH
    assert fit.HALF_CHI2 == pytest.approx(chi2.ppf(0.95, 1) / 2, abs=1e-12)
    name = player_name({"temp": 0.8, "caution": 0.75, "forget": 0.3})
    assert name == "human:temp=0.8;caution=0.75;forget=0.3"
    assert parse_strategy(name) == ("human", {"temp": 0.8, "caution": 0.75, "forget": 0.3})


def _inside(doc, truth):
    for p, v in truth.items():
        e = doc["estimates"][p]
        assert e["low"] <= v <= e["high"], (p, v, e)
        assert e["low"] <= e["estimate"] <= e["high"]


#: (strategy, seed): three parameter sets (the rungs below the expert), 2,000 turns each
# casual in make test; novice and regular in make test-slow (the same check, 5 s each)
RECOVERY = [("casual", 11), pytest.param("novice", 12, marks=pytest.mark.slow),
            pytest.param("regular", 13, marks=pytest.mark.slow)]


@pytest.mark.statistical
@pytest.mark.parametrize("spec,seed", RECOVERY)
def test_recovery_of_known_parameters(spec, seed, tmp_path):
    """A log of 2,000 turns (4 players, every seat the same parameters) gives each parameter
    back inside its 95 % profile likelihood interval."""
    from heron_sim.strategies.human import RUNGS

    rules = _rules()
    log = log_turns(rules, 200, seed, spec, max_turns=2000)
    assert log.turns == 2000
    path = tmp_path / "log.csv"
    path.write_text(log.text, encoding="utf-8")
    doc = calibrate(path, rules)
    _inside(doc, RUNGS[spec])
    # the fit's match is the best of the rungs' (up to sampling: within 1 %), its own rung's close
    m = doc["move_matching"]
    assert m["fit"] >= max(m.values()) - 0.01
    assert m[spec] >= m["fit"] - 0.01


#: A bold and a timid player of the same skill (issue 57, item 5): caution's sign is read back.
STYLES = [("human:temp=0.8;caution=-1.5;forget=0.3", 21),
          pytest.param("human:temp=0.8;caution=1.5;forget=0.3", 22, marks=pytest.mark.slow)]


@pytest.mark.statistical
@pytest.mark.parametrize("spec,seed", STYLES)
def test_recovery_of_the_risk_appetite_both_ways(spec, seed, tmp_path):
    """2,000 turns of a bold (or a timid) player: each parameter inside its 95 % interval, and the
    interval of caution on the player's side of zero (a bold player is not read as timid)."""
    truth = parse_strategy(spec)[1]
    rules = _rules()
    log = log_turns(rules, 200, seed, spec, max_turns=2000)
    path = tmp_path / "log.csv"
    path.write_text(log.text, encoding="utf-8")
    doc = calibrate(path, rules)
    _inside(doc, truth)
    c = doc["estimates"]["caution"]
    assert (c["high"] < 0) if truth["caution"] < 0 else (c["low"] > 0), c
    assert "reckless" in doc["move_matching"]


@pytest.mark.statistical
@pytest.mark.cli
def test_sample_log_gives_back_its_parameters_json(sample_fitted_once):
    res = cli("calibrate", SAMPLE, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert set(doc["estimates"]) == {"temp", "caution", "forget"}
    for e in doc["estimates"].values():
        assert set(e) == {"estimate", "low", "high"} and all(isinstance(e[k], float) for k in e)
    _inside(doc, SAMPLE_TRUTH)
    assert set(doc["move_matching"]) == {"fit", "novice", "casual", "regular", "expert", "reckless"}
    assert parse_strategy(doc["strategy"])[0] == "human"
    assert doc["turns"] >= 2000 and doc["seconds_per_turn"] is None
    assert SAMPLE.stat().st_size < 1_000_000
    assert "SIMULATED" in SAMPLE.read_text(encoding="utf-8").splitlines()[1]


@pytest.mark.cli
def test_calibrate_prints_the_player_and_the_matching(sample_fitted_once):
    res = cli("calibrate", SAMPLE, "--lang", "en")
    assert res.exit_code == 0, res.output
    for text in ("player to use: human:temp=", "| temp |", "| casual |", "| expert |", "seconds per turn: not logged"):
        assert text in res.stdout, text


@pytest.mark.cli
def test_simulate_log_turns_writes_the_librarys_log(tmp_path):
    path = tmp_path / "t.csv"
    res = cli("simulate", "--games", 6, "--players", 3, "--seed", 4, "--strategy", "casual,greedy,expert",
              "--threads", 1, "--log-turns", path)
    assert res.exit_code == 0, res.output
    assert "saved the turn log of 6 games" in res.output
    assert path.read_text(encoding="utf-8") == log_turns(_rules(players=3), 6, 4, "casual,greedy,expert").text
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]  # atomic: no part left


def _one_error(res, *texts):
    lines = [x for x in res.output.strip().splitlines() if x]
    assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error:"), res.output
    for t in texts:
        assert t in lines[0], (t, lines[0])


@pytest.mark.cli
@pytest.mark.parametrize("args,texts", [
    (["--precision", "0.01"], ["--log-turns", "--precision"]),
    (["--games", "2"], ["--log-turns", ".csv"]),
])
def test_simulate_log_turns_bad_options(tmp_path, args, texts):
    name = "t.csv" if "--precision" in args else "t.parquet"
    _one_error(cli("simulate", *args, "--log-turns", tmp_path / name), *texts)
    assert not list(tmp_path.iterdir())


GOOD = "0,1,0,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle cerf,keep,reroll,0 4 5 6,,,3.5"


@pytest.mark.cli
@pytest.mark.parametrize("row,texts", [
    ("0,1,0,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle lapin,keep,stop,,,,", ["line 3", "dice", "lapin"]),
    ("0,1,0,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle,keep,stop,,,,", ["line 3", "dice", "7 dice"]),
    ("0,1,0,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle cerf,keep,maybe,,,,", ["line 3", "choice", "maybe"]),
    ("0,1,0,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle cerf,jump,stop,,,,", ["line 3", "decision", "jump"]),
    ("0,1,0,me,loup,1,3,0,aigle serpent cerf loup aigle aigle aigle cerf,keep,reroll,0,,,", ["line 3", "choice", "reroll"]),
    ("0,1,9,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle cerf,keep,stop,,,,", ["line 3", "seat", "0..6"]),
    ("0,1,0,me,loup,1,1,2,aigle* serpent cerf loup aigle aigle aigle cerf,keep,reroll,0,,,", ["line 3", "kept", "not free"]),
    ("0,1,0,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle cerf,keep,stop,,,,slow", ["line 3", "seconds"]),
    ("0,1,0,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle cerf,keep,stop", ["line 3", "fields"]),
])
def test_malformed_log_is_one_error_line(tmp_path, row, texts):
    path = tmp_path / "bad.csv"
    path.write_text(f"# a log\n{HEADER}\n{row}\n{GOOD}\n", encoding="utf-8")
    _one_error(cli("calibrate", path), str(path), *texts)


@pytest.mark.cli
@pytest.mark.parametrize("text,needle", [
    ("", "no header"),
    ("game,turn,seat\n", "missing column"),
    (HEADER + ",colour\n" + GOOD + ",red\n", "unknown column"),
    (HEADER + "\n", "no decision rows"),
])
def test_malformed_log_file_is_one_error_line(tmp_path, text, needle):
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    _one_error(cli("calibrate", path), needle)


@pytest.mark.cli
def test_missing_log_is_one_error_line(tmp_path):
    res = cli("calibrate", tmp_path / "none.csv")
    lines = [x for x in res.output.strip().splitlines() if x]
    assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error:"), res.output


def test_seconds_per_turn_and_player_filter(tmp_path):
    """Seconds are summed by turn; --player keeps that player's rows (an unknown one is an error)."""
    from heron_sim.errors import HeronSimError

    rows = [GOOD,
            "0,1,0,me,loup,1,2,1,aigle* serpent cerf loup aigle* aigle* aigle* cerf,keep,stop,,,,1.5",
            "0,2,1,you,cerf,1,1,2,aigle serpent cerf loup aigle aigle aigle cerf,keep,stop,,,,2"]
    path = tmp_path / "s.csv"
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    doc = calibrate(path, _rules())
    assert doc["seconds_per_turn"] == {"mean": 3.5, "median": 3.5, "turns": 2, "rows_with_seconds": 3}
    assert doc["players_in_log"] == ["me", "you"]
    assert calibrate(path, _rules(), "you")["rows"] == 1
    with pytest.raises(HeronSimError, match="--player: 'them'"):
        calibrate(path, _rules(), "them")
    assert math.isfinite(doc["log_likelihood"])


@pytest.mark.cli
def test_calibrate_says_when_the_rules_differ_from_the_logs():
    res = cli("calibrate", SAMPLE, "--set", "rolls=4", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["rules_of_log"] == _rules().digest() != doc["rules"]
    assert "note :" in res.stderr and "nomme les règles" in res.stderr and _rules().digest() in res.stderr  # French by default
    en = cli("calibrate", SAMPLE, "--set", "rolls=4", "--json", "--lang", "en")
    assert "note: " in en.stderr and "names the rules" in en.stderr and _rules().digest() in en.stderr


@pytest.mark.cli
def test_the_decision_log_says_its_rung_in_words(sample_fitted_once):
    """The tally's words (issue 60 item 4), on a decision log: French by default (here, not in
    tests/test_calibrate_tally.py, to share this module's fit of the sample)."""
    res = cli("calibrate", SAMPLE)
    assert res.exit_code == 0, res.output
    assert "Vos joueurs jouent comme l'échelon occasionnel (concordance 70\u00a0%)" in res.stdout
    assert "non chronométrées" in res.stdout and "| joueur occasionnel |" in res.stdout


@pytest.mark.cli
def test_the_decision_logs_french_passes_the_glossary(sample_fitted_once):
    """Issue 60 item 1: calibrate's French on a full decision log, its details (the model's
    table) included, reads as written in French (heron_sim.glossary.check_fr: no English left,
    numbers the French way, no Python list, the singular below 2)."""
    from tests.helpers import french_findings

    res = cli("calibrate", SAMPLE)
    assert res.exit_code == 0, res.output
    assert french_findings(res.stdout) == []
    assert "Détails (termes du modèle)" in res.stdout and "| bruit des choix (`temp`) | 0,7" in res.stdout
    assert "héron" in res.stdout  # the costliest decisions' dice
