"""Replaying a proposal at every table on fresh seeds (issue 30 items 3-4): judged as the study
judged its finalists, the same games for base and variant, and a constraint that fails at one
table fails the proposal."""

from __future__ import annotations

import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab.replay import REPLAY_FIRST, replay, replay_text
from tests.test_lab import SMALL, write

pytestmark = pytest.mark.statistical


def test_a_replay_is_reproducible_and_names_its_tables(tmp_path):
    spec = write(tmp_path, SMALL)
    v = tmp_path / "v.toml"
    v.write_text("bull_bonus = 3\n", encoding="utf-8")
    a = replay(spec, v, seed=11, games=300)
    b = replay(spec, v, seed=11, games=300)
    assert a["evidence"]["objectives"][0]["loss"] == b["evidence"]["objectives"][0]["loss"]
    assert a["evidence"]["first_game"] == REPLAY_FIRST and a["games"] == 300
    c = replay(spec, v, seed=12, games=300)
    assert c["evidence"]["objectives"][0]["loss"] != a["evidence"]["objectives"][0]["loss"]
    text = replay_text(a)
    assert "bull_bonus = 3" in text and "replayed on seed 11" in text and "4 players" in text
    assert ("HOLDS at every table" in text) == a["holds"]


def test_a_power_made_inert_never_holds(tmp_path):
    spec = write(tmp_path, SMALL)
    v = tmp_path / "off.toml"
    v.write_text("bull_bonus = 0\n", encoding="utf-8")
    res = replay(spec, v, seed=3, games=200)
    assert not res["feasible"] and not res["holds"]
    assert "DOES NOT HOLD at every table: a constraint fails." in replay_text(res)


def test_bad_inputs_are_one_line(tmp_path):
    spec = write(tmp_path, SMALL)
    with pytest.raises(HeronSimError, match="no such rules file"):
        replay(spec, tmp_path / "nope.toml", seed=1, games=100)
    with pytest.raises(HeronSimError, match="no such tune file"):
        replay(tmp_path / "nope.toml", tmp_path / "v.toml", seed=1, games=100)
    with pytest.raises(HeronSimError, match="--games"):
        replay(spec, tmp_path / "v.toml", seed=1, games=5)


# ---------------------------------------------------------------- the variant read as simulate reads rules
@pytest.mark.parametrize("line,message", [('mode = "9d9"', "mode: '9d9' is not a mode"),
                                          ("players = 1", "players: 1 is out of range")])
def test_a_variant_file_is_checked_as_simulate_checks_rules(tmp_path, line, message):
    """A variant's own mode and player count are checked, not overridden by the study's: the
    same error as `simulate --rules` gives for the file, one `error:` line, exit 2."""
    from tests.helpers import cli

    spec = write(tmp_path, SMALL)
    v = tmp_path / "bad.toml"
    v.write_text(f"bull_bonus = 3\n{line}\n", encoding="utf-8")
    with pytest.raises(HeronSimError, match=message):
        replay(spec, v, seed=1, games=100)
    sim = cli("simulate", "--rules", v, "--games", 10)
    res = cli("replay", spec, v, "--games", 100)
    assert sim.exit_code == res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert lines == [ln for ln in sim.output.splitlines() if ln.strip()], (res.output, sim.output)
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], res.output


def test_a_variant_under_which_no_game_finishes_says_degenerate(tmp_path):
    """A variant under which every game hits the round limit: the replay says in words that no
    game finished (how many were played, the limit), in its text and its JSON, and never that
    it holds; the base, whose games finish, is not called degenerate."""
    import json

    from tests.helpers import cli

    spec = write(tmp_path, SMALL)
    v = tmp_path / "stuck.toml"
    v.write_text("max_rounds = 1\n", encoding="utf-8")
    games = 200
    res = replay(spec, v, seed=5, games=games)
    tables = len(res["table_names"])
    words = res["degenerate"]
    assert words and words.startswith("degenerate: no game finished under these rules"), words
    assert f"({games * tables:,} games played, all hit the round limit, max_rounds = 1)" in words, words
    assert [u["games"] for u in res["unfinished"]["variant"]] == [games] * tables
    assert res["unfinished"]["base"] == [] and "base rules" not in words
    assert not res["holds"]
    text = replay_text(res)
    assert "Degenerate: no game finished under these rules" in text, text
    assert "DOES NOT HOLD" in text and "(degenerate)" in text, text
    out = cli("replay", spec, v, "--seed", 5, "--games", games, "--json")
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["degenerate"] == words
    # a variant whose games finish is not degenerate
    ok = tmp_path / "ok.toml"
    ok.write_text("bull_bonus = 3\n", encoding="utf-8")
    fine = replay(spec, ok, seed=5, games=games)
    assert fine["degenerate"] is None and fine["unfinished"] == {"variant": [], "base": []}
    assert "egenerate" not in replay_text(fine)
