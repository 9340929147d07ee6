"""User strategies registered from outside the package play inside the compiled loop."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.rules import Rules
from heron_sim.simulation import simulate, simulate_turns
from heron_sim.strategies import parse_strategy

pytestmark = pytest.mark.exact

EXAMPLE = Path(__file__).resolve().parents[1] / "experiments" / "plugin_strategy.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("user_plugin_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.register()
    return mod


def test_plugin_registers_and_plays():
    _load_example()
    rules = Rules.build(mode="8d8", overrides={"powers": False})
    df = simulate(rules, 400, 3, "satisficer:stop_at=3,greedy,greedy,greedy")
    assert len(df) == 400 and df["finished"].all()
    assert df["strategy_0"].iloc[0] == "satisficer:stop_at=3"
    # Its decisions really are its own: stopping at any set of 3 ends turns on earlier rolls
    # than greedy (which never stops voluntarily).
    a = simulate_turns(rules, 20_000, 1, "satisficer:stop_at=3")
    g = simulate_turns(rules, 20_000, 1, "greedy")
    assert a[:, 2].mean() < g[:, 2].mean() - 0.05
    # With stop_at above the dice count it never stops early: identical to greedy.
    b = simulate_turns(rules, 20_000, 1, "satisficer:stop_at=99")
    np.testing.assert_array_equal(b, g)


def test_plugin_bad_parameter():
    _load_example()
    with pytest.raises(HeronSimError):
        parse_strategy("satisficer:speed=3")
