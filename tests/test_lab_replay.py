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
