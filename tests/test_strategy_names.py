"""A player's name with several parameters reads the same alone and in a list of seats:
``human:temp=1,caution=0.5`` (the name ``heron-sim calibrate`` prints) or with ``;``."""

import pytest

from heron_sim.errors import HeronSimError
from heron_sim.strategies import parse_seating, parse_strategy, split_names


def test_a_name_with_comma_separated_parameters_parses_alone_and_in_a_list():
    assert parse_strategy("human:temp=1,caution=0.5,forget=0.2") == parse_strategy("human:temp=1;caution=0.5;forget=0.2")
    assert parse_strategy("human:temp=1,caution=0.5")[1] == {"temp": 1.0, "caution": 0.5, "forget": 0.1}
    assert split_names("novice,human:temp=1,caution=0.5,expert") == ["novice", "human:temp=1,caution=0.5", "expert"]
    assert parse_seating("greedy,human:temp=2,forget=0.3,expert", 3) == ["greedy", "human:temp=2,forget=0.3", "expert"]


def test_a_stray_parameter_is_refused_not_merged():
    with pytest.raises(HeronSimError, match="bad parameter 'risk=0.5'"):
        parse_seating("human:temp=1,risk=0.5,expert", 2)
    with pytest.raises(HeronSimError, match="'risk=0.5' is not a strategy|is not a strategy"):
        parse_seating("greedy,risk=0.5", 2)
