"""The engine's array indices (heron_sim.engine.jit): written unsigned, ``w[U(i)]``, so numba
compiles them without its wrap-around of a negative index, and never negative.

Numba reads ``a[i]`` with a signed ``i`` as ``a[i + len(a)]`` where ``i < 0`` (a compare and a
select on each address); an unsigned index is used as it is, which is right only if the engine
never indexes from the end. Numba's own lowering is left alone (issue 62 item 5: no private part
of numba replaced, so a user's ``@njit`` code in the same process indexes as numba does). The
fast tests check the engine's functions compile without the wrap-around, that the hot modules
write every variable index of the workspace, the rules and the tables unsigned, and that bounds
checking still catches a negative one; the slow one plays every strategy, the luck, the modes
and several variants, rules by guide and by player count among them, with numba's bounds
checking on (``NUMBA_BOUNDSCHECK=1``, its own kernel cache), which raises at any negative index."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest
from numba.np import arrayobj

from heron_sim.engine.layout import GUIDE
from heron_sim.loop.turn import swap_guides

from .helpers import ROOT

pytestmark = pytest.mark.exact

#: The modules of the games' hot paths whose compiled functions index the workspace ``w``, the
#: rules ``R`` and the strategies' tables ``sp`` (and their rows) with unsigned indices only.
HOT_MODULES = [
    "loop/game.py", "loop/turn.py", "loop/squares.py", "loop/moves.py", "loop/powers.py", "loop/loops.py",
    "engine/dice.py", "engine/rulebook.py",
    "strategies/expert_turn.py", "strategies/expert_scan.py", "strategies/expert.py",
    "strategies/expert_values.py", "strategies/expert_column.py", "strategies/human.py",
    "strategies/greedy_turn.py", "strategies/greedy.py", "strategies/common.py", "strategies/racer.py",
    "strategies/prudent.py", "strategies/prudent_turn.py", "strategies/random_policy.py",
    "strategies/luck_turn.py", "strategies/luck_weights.py",
]
_ARRAYS = {"w", "R", "sp", "row", "Rg", "spg"}


def _user_swap(a, b, w):
    """swap_guides as a user would write it: four signed indices."""
    g = w[GUIDE + a]
    r = w[GUIDE + 1 + a]
    w[GUIDE + a] = w[GUIDE + b]
    w[GUIDE + 1 + a] = w[GUIDE + 1 + b]
    w[GUIDE + b] = g
    w[GUIDE + 1 + b] = r


def _compiled(fn, **options):
    f = numba.njit(_nrt=False, **options)(fn)
    f.compile("(int64, int64, int64[::1])")
    return f


def _wrap_selects(fn) -> int:
    """The selects of numba's wrap-around (one per signed index) in the compiled function."""
    ir = next(iter(_compiled(fn).inspect_llvm().values()))
    return ir[ir.index("define"):].count("select")


def test_the_engine_functions_are_compiled_without_the_wrap_around_and_numba_is_left_alone():
    assert _wrap_selects(swap_guides.py_func) == 0  # unsigned indices: no wrap-around
    assert _wrap_selects(_user_swap) == 4  # control: four signed indices, each wrapped
    # numba's own lowering, not replaced: heron-sim patches nothing of numba's array indexing
    assert arrayobj.fix_integer_index.__module__ == "numba.np.arrayobj"

    @numba.njit
    def last(a, i):
        return a[i]

    assert last(np.arange(5), -1) == 4  # a user's negative index still counts from the end


def _signed_indices(source: str, name: str) -> list[str]:
    """Variable indices of the engine's arrays not written unsigned in the compiled functions."""
    tree = ast.parse(source)
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or not any(
                ast.unparse(d).startswith(("hot", "njit")) for d in fn.decorator_list):
            continue
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                    and node.value.id in _ARRAYS):
                continue
            for e in node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]:
                constant = isinstance(e, ast.Constant) or (isinstance(e, ast.Name) and e.id.isupper())
                unsigned = isinstance(e, ast.Call) and ast.unparse(e.func) in ("U", "_U")
                if not (constant or unsigned or isinstance(e, ast.Slice)):
                    found.append(f"{name}:{node.lineno} {fn.name}: {ast.unparse(node)}")
    return found


def test_the_hot_modules_index_their_arrays_unsigned():
    """A variable index of ``w``, ``R`` or ``sp`` in a hot module is ``U(...)`` (a constant field
    needs none: LLVM sees it is not negative)."""
    found = [f for rel in HOT_MODULES
             for f in _signed_indices((ROOT / "heron_sim" / rel).read_text(encoding="utf-8"), rel)]
    assert not found, "\n".join(found[:20])


def test_the_generated_dispatchers_index_unsigned():
    """The generated ``decide``, fused turn and scoring (a strategy id read at every turn and
    decision) and each kernel's own ``decide`` read ``w[U(SID + seat)]``."""
    from heron_sim.loop import kernels
    from heron_sim.strategies import dispatch

    sources = {"dispatch": dispatch.dispatch_source(), "shared": kernels.decide_source(kernels.SHARED)}
    sources.update({f"decide {sid}": kernels.decide_source((sid,)) for sid in kernels._strategies()})
    found = [f for name, src in sources.items() for f in _signed_indices(src, name)]
    assert not found, "\n".join(found[:20])
    assert all("w[U(SID + seat)]" in src for src in sources.values())


def test_bounds_checking_catches_a_negative_index_in_an_engine_function():
    """What the slow test relies on: under bounds checking an unsigned index made of a negative
    value raises (it is not wrapped to the end of the array)."""
    w = np.zeros(64, dtype=np.int64)
    f = _compiled(swap_guides.py_func, boundscheck=True)
    f(1, 2, w)
    with pytest.raises(IndexError):
        f(1, -GUIDE - 1, w)
    g = _compiled(_user_swap, boundscheck=True)
    g(1, -GUIDE - 1, w)  # a signed negative index is wrapped, as numba does


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
