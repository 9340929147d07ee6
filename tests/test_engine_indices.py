"""The engine's array indices (heron_sim.engine.jit): compiled without numba's wrap-around of a
negative index, and never negative.

Numba reads ``a[i]`` with a signed ``i`` as ``a[i + len(a)]`` where ``i < 0`` (a compare and a
select on each address); the Héron engine's functions are compiled without it
(``jit._engine_index``), which is right only if the engine never indexes from the end. The fast
tests check that the replacement is in place and reaches the engine's functions only; the slow
one plays every strategy, the luck, the modes and several variants, rules by guide and by player
count among them, with numba's bounds checking
on (``NUMBA_BOUNDSCHECK=1``, its own kernel cache), which raises at any negative index."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest
from numba.np import arrayobj

from heron_sim.engine import jit
from heron_sim.engine.layout import GUIDE
from heron_sim.loop.turn import swap_guides

from .helpers import ROOT

pytestmark = pytest.mark.exact


def _compiled(module: str, **options):
    """A fresh compiled copy of heron_sim.loop.turn.swap_guides (four signed indices, ``GUIDE + a``
    ...) named as a function of ``module``."""
    src = swap_guides.py_func
    fn = type(src)(src.__code__, src.__globals__, "swap_guides")
    fn.__module__ = module
    f = numba.njit(_nrt=False, **options)(fn)
    f.compile("(int64, int64, int64[::1])")
    return f


def _wrap_selects(module: str) -> int:
    """The selects of numba's wrap-around (one per signed index) in the compiled function."""
    ir = next(iter(_compiled(module).inspect_llvm().values()))
    return ir[ir.index("define"):].count("select")


def test_the_engine_functions_are_compiled_without_the_wrap_around_and_others_keep_it():
    assert jit.engine_indices_installed()  # numba's fix_integer_index found and replaced
    for module in ("heron_sim.engine.probe", "heron_sim.loop.turn", "heron_sim.strategies.expert_turn",
                   "heron_sim._kernels_0123456789abcdef_shared.game"):
        assert _wrap_selects(module) == 0, module
    for module in ("heron_sim.games.base", "heron_sim.analysis.stats", "tests.probe", "__main__"):
        assert _wrap_selects(module) == 4, module  # four signed indices, each wrapped


def test_with_numbas_own_indexing_the_engine_functions_keep_the_wrap_around(monkeypatch):
    """Negative control: the count above sees the wrap-around where numba's function is used."""
    monkeypatch.setattr(arrayobj, "fix_integer_index", jit._numba_fix_integer_index)
    assert not jit.engine_indices_installed()
    assert _wrap_selects("heron_sim.engine.probe") == 4


def test_the_hook_is_listed_with_the_private_parts_and_keys_the_kernel_cache(monkeypatch):
    """numba's lowering replaced at import is a private part listed in heron_sim._deps (speed
    only), and whether it is installed is part of the engine's cache folder name: kernels
    lowered with and without the wrap-around never share a cache."""
    from heron_sim import _deps, _numba_cache

    assert _deps.NUMBA_SPEED_HOOKS["numba.np.arrayobj"] == ("fix_integer_index",)
    assert _deps.missing_speed_hooks(numba) == []
    on = _numba_cache.component.__wrapped__("engine")
    monkeypatch.setattr(arrayobj, "fix_integer_index", jit._numba_fix_integer_index)
    off = _numba_cache.component.__wrapped__("engine")
    assert on != off and on.split("-")[0] == off.split("-")[0] == "engine"


def test_bounds_checking_catches_a_negative_index_in_an_engine_function():
    """What the slow test relies on: under bounds checking an engine function's negative index
    raises (it is not wrapped to the end of the array)."""
    w = np.zeros(64, dtype=np.int64)
    f = _compiled("heron_sim.engine.probe", boundscheck=True)
    f(1, 2, w)
    with pytest.raises(IndexError):
        f(1, -GUIDE - 1, w)
    g = _compiled("tests.probe", boundscheck=True)
    g(1, -GUIDE - 1, w)  # outside the engine a negative index is wrapped, as numba does


_PLAY = textwrap.dedent("""
    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate
    ladder = "novice,casual,regular,expert"
    mix = "greedy,prudent,expert,racer"
    runs = [
        ("8d8", {}, ladder, False), ("8d8", {}, mix, True), ("8d8", {}, "random,greedy", False),
        ("8d8", {}, "human:temp=0.7,caution=0.2,forget=0.2,expert,novice,racer,prudent,greedy,casual", False),
        ("7d8", {}, ladder, True), ("10d8", {}, mix, False), ("10d6", {}, ladder, False),
        ("8d8", {"eagle_draws": 6, "heron_patience_doubling": True}, ladder, False),
        ("8d8", {"consolation_anxiety": 2, "consolation_no_set": 1, "rolls": 4}, ladder, True),
        ("8d8", {"disabled_powers": ["aigle", "loup"]}, mix + ",regular", False),
        # rules by guide (each guide's own turn rows) and by player count ([seats.N] lists)
        ("8d8", {"guide": {"heron": {"rolls": 4, "anxiety_threshold": 4}}, "guide.bull.rolls": 2,
                 "guide.loup.pond_pushback_flat": 2}, ladder, True),
        ("10d8", {"guide": {"serpent": {"rolls": 2}, "cerf": {"anxiety_threshold": 4}}}, mix, False),
        ("8d8", {"seats": {"5": {"start_squares": [0, 1, 1, 2, 2], "first_turn_extra_rolls": [0, 0, 0, 0, 1]}}},
         ladder + ",racer", False),
        ("8d8", {"seats": {"3": {"start_squares": [0, 0, 3]}}, "guide.aigle.rolls": 4}, "expert,racer,novice", True),
    ]
    for mode, overrides, seats, luck in runs:
        rules = Rules.build(mode=mode, players=len(seats.split(",")) if "human:" not in seats else 7,
                            overrides=overrides)
        df = simulate(rules, 300, seed=11, strategies=seats, threads=1, luck=luck)
        assert len(df) == 300, (mode, seats)
    print("ok", len(runs))
""")


@pytest.mark.slow
def test_every_strategy_and_variant_plays_with_bounds_checking_on(tmp_path):
    """Games under NUMBA_BOUNDSCHECK=1: any negative (or too large) index in the engine raises
    IndexError and fails the run. Its own kernel cache: the kernels compiled with the checks are
    not the ones a run loads."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", HERON_SIM_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT), HERON_SIM_PROGRESS="0")
    done = subprocess.run([sys.executable, "-c", _PLAY], env=env, capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["ok", "14"]
