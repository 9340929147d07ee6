"""A fifth game is one package of two files (issue 34 item 4): ``tests/fixtures/pig_game`` (its
``__init__.py`` declaration, its ``engine.py`` kernel and its ``data/defaults.toml``) plays
through the shared pieces alone: the rules table (:mod:`heron_sim.games.tables`), the driver
(:mod:`heron_sim.games.driver`), the default summary (:mod:`heron_sim.games.sections`)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from heron_sim.errors import RulesError
from heron_sim.games import _REGISTRY, available, get, register
from heron_sim.games.base import CORE_COLUMNS, LightRules, game_package, rules_words
from heron_sim.games.tables import TableRules

pytestmark = [pytest.mark.exact]

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pig_game"


@pytest.fixture(scope="module")
def pig():
    from tests.fixtures.pig_game import GAME

    game = register(GAME)
    try:
        yield game
    finally:
        _REGISTRY.pop("pig", None)


def test_the_package_is_two_files_and_its_defaults():
    files = sorted(str(p.relative_to(FIXTURE)) for p in FIXTURE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert files == ["__init__.py", "data/defaults.toml", "engine.py"]


def test_registered_it_is_a_game_like_the_others(pig):
    assert get("pig") is pig and "pig" in available()
    assert game_package(pig) == "tests.fixtures.pig_game"
    assert pig.strategies[0] == "greedy" and pig.real_players() == ("greedy", "cautious")
    assert (pig.min_players, pig.max_players) == (2, 4)
    # its words: the comments of its defaults.toml, as the lab's rule sheets read them
    assert rules_words(pig)["hold.cautious"]["en"].startswith("cautious holds after")


def test_its_rules_are_a_table_with_to_table_and_digest(pig):
    rules = pig.load_rules(None, {})
    assert isinstance(rules, TableRules) and isinstance(rules, LightRules)
    assert rules.target == 100 and rules.die == 6 and rules.hold.greedy == 20 and rules["max_turns"] == 5000
    table = rules.to_table()
    assert list(table) == ["target", "die", "max_turns", "hold"] and table["hold"] == {"greedy": 20, "cautious": 1}
    assert pig.load_rules(None, table) == rules and pig.load_rules(None, table).digest() == rules.digest()
    other = pig.load_rules(None, {"hold": {"greedy": 25}})
    assert other.hold.greedy == 25 and other.hold.cautious == 1 and other != rules and other.digest() != rules.digest()
    assert pig.load_rules(None, other.to_table()) == other
    with pytest.raises(AttributeError):
        rules.target = 50
    table["target"] = 7  # the table given away is a copy
    assert rules.target == 100


def test_its_rules_file_round_trips(pig, tmp_path):
    rules = pig.load_rules(None, {"target": 50, "hold": {"cautious": 2}})
    t = rules.to_table()
    path = tmp_path / "pig.toml"
    path.write_text("".join(f"{k} = {v}\n" for k, v in t.items() if k != "hold")
                    + "[hold]\n" + "".join(f"{k} = {v}\n" for k, v in t["hold"].items()), encoding="utf-8")
    assert pig.load_rules(str(path), {}) == rules


@pytest.mark.parametrize("over, message", [
    ({"targett": 5}, "targett: unknown key; allowed: target, die, max_turns, hold"),
    ({"hold": {"brave": 3}}, "hold.brave: unknown key; allowed: greedy, cautious"),
    ({"target": "high"}, "target: 'high'; allowed: an integer"),
    ({"hold": 3}, "hold: 3; allowed: a table with keys greedy, cautious"),
    ({"die": 1}, r"die: 1; allowed: an integer in 2\.\.100"),
    ({"hold": {"cautious": 0}}, r"hold.cautious: 0; allowed: an integer in 1\.\.1000"),
])
def test_a_bad_rules_key_is_one_line(pig, over, message):
    with pytest.raises(RulesError, match=message) as err:
        pig.load_rules(None, over)
    assert "\n" not in str(err.value)


def test_it_simulates_reproducibly_whatever_the_split(pig):
    rules = pig.load_rules(None, {})
    seats = ["greedy", "cautious", "random"]
    one = pig.simulate(rules, games=300, players=3, seed=77, strategies=seats)
    assert tuple(one.columns[:len(CORE_COLUMNS)]) == CORE_COLUMNS
    assert list(one.columns[len(CORE_COLUMNS):]) == [f"{k}_{i}" for k in ("score", "turns", "scoring", "rolls")
                                                     for i in range(3)]
    pd.testing.assert_frame_equal(one, pig.simulate(rules, games=300, players=3, seed=77, strategies=seats))
    parts = [pig.simulate(rules, games=b - a, players=3, seed=77, strategies=seats, first_game=a)
             for a, b in ((0, 1), (1, 130), (130, 300))]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), one)
    assert not one.equals(pig.simulate(rules, games=300, players=3, seed=78, strategies=seats))
    # every game is finished, its winner reached the target, nobody else did before it
    assert one["finished"].all()
    won = one[[f"score_{i}" for i in range(3)]].to_numpy()[np.arange(300), one["winner"].to_numpy()]
    assert (won >= 100).all()
    turns = one[[f"turns_{i}" for i in range(3)]].to_numpy().sum(axis=1)
    assert (turns == one["length"]).all()


def test_a_turn_held_after_one_roll_scores_five_times_in_six(pig):
    # exact: a cautious turn is one roll, which scores unless it shows a 1 (die = 6)
    df = pig.simulate(pig.load_rules(None, {}), games=2000, players=2, seed=12345, strategies=["cautious"])
    turns = int(df[["turns_0", "turns_1"]].to_numpy().sum())
    scoring = int(df[["scoring_0", "scoring_1"]].to_numpy().sum())
    assert int(df[["rolls_0", "rolls_1"]].to_numpy().sum()) == turns
    p = 5 / 6
    z = (scoring / turns - p) / math.sqrt(p * (1 - p) / turns)
    assert abs(z) < 4.5, (scoring, turns, z)


def test_its_summary_has_the_generic_sections_and_its_question(pig):
    df = pig.simulate(pig.load_rules(None, {}), games=400, players=2, seed=3, strategies=["greedy", "cautious"])
    text = pig.summarize(df)
    assert text.startswith("# Pig — 400 games, 2 players")
    for heading in ("## Seat advantage", "## Game length (player turns)", "## Strategy win shares",
                    "## Turns that score"):
        assert f"\n{heading}" in text, heading
    assert "| greedy |" in text and "| cautious |" in text
    turns = int(df[["turns_0", "turns_1"]].to_numpy().sum())
    assert f"of {turns} turns banked points." in text


@pytest.mark.parametrize("engine", sorted(str(p) for p in [*Path(__file__).resolve().parents[2].glob(
    "heron_sim/games/*/engine.py"), FIXTURE / "engine.py"]))
def test_every_kernel_starts_its_streams_through_the_typed_helper(engine):
    # games.base.start_stream / game_stream refuse a wrong-sized state (tests/games/test_games_base);
    # a kernel calling the engine's stream_start itself would skip that check
    text = Path(engine).read_text(encoding="utf-8")
    assert "stream_start" not in text
    assert "start_stream(" in text or "game_stream(" in text
