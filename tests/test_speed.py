"""The engine's speed work must not change a single game: greedy's fused turn against the
generic path, kernels per strategy set, threads."""

from __future__ import annotations

import contextlib
import os

import numba
import numpy as np
import pytest

from heron_sim.loop import kernels
from heron_sim.engine import layout as L
from heron_sim.loop.batch import play_batch, play_turns
from heron_sim.engine.pack import pack_rules
from heron_sim.rules import Rules
from heron_sim.strategies.declared import sid_of

GREEDY, SCRIPTED = sid_of("greedy"), sid_of("scripted")

pytestmark = pytest.mark.exact

VARIANTS = [
    dict(mode="8d8", players=4),
    dict(mode="10d6", players=3),
    dict(mode="7d8", players=5, overrides={"rolls": 4, "pond_threshold": 3}),
    dict(mode="10d8", players=2, overrides={"powers": False, "exact_finish": True,
                                            "single_use_squares": True}),
]


def _games(rules, sid, games=3000, seed=11, first=5):
    R = pack_rules(rules)
    sids = np.full(rules.players, sid, dtype=np.int64)
    sp = np.zeros((rules.players, 4))
    out = np.zeros((games, L.n_columns(rules.finish)), dtype=np.int64)
    play_batch(np.uint64(seed), first, R, sids, sp, out)
    return out


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v['mode']}-{v['players']}p")
def test_fused_greedy_turn_plays_the_same_games_as_the_generic_path(variant):
    """``scripted`` with an empty script plays greedy through ``decide`` and the generic turn;
    ``greedy`` takes the fused turn. Every counter of every game must agree."""
    rules = Rules.build(**variant)
    fused = _games(rules, GREEDY)
    generic = _games(rules, SCRIPTED)
    assert fused[:, L.C_PLAYED].sum() > 10_000
    np.testing.assert_array_equal(fused, generic)


def test_fused_greedy_turns_kernel_matches_the_generic_path():
    rules = Rules.build(mode="8d8")
    R = pack_rules(rules)
    outs = []
    for sid in (GREEDY, SCRIPTED):
        out = np.zeros((20_000, 3), dtype=np.int64)
        play_turns(np.uint64(3), 0, R, 3, sid, np.zeros(4), out)  # Lion: rescues included
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    assert (outs[0][:, 0] == L.OUT_RESCUED).sum() > 100


def test_results_do_not_depend_on_threads_or_split():
    rules = Rules.build(mode="8d8")
    numba.set_num_threads(1)
    try:
        one = _games(rules, GREEDY, games=5000)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    many = _games(rules, GREEDY, games=5000)
    part = np.vstack([_games(rules, GREEDY, games=1234, first=5),
                      _games(rules, GREEDY, games=5000 - 1234, first=5 + 1234)])
    np.testing.assert_array_equal(one, many)
    np.testing.assert_array_equal(one, part)


def test_single_strategies_get_their_own_decide_and_mixes_share_one_kernel():
    with kernels.own_kernel():  # the default without HERON_SIM_SHARED_KERNEL (the suite sets it)
        _single_strategies_get_their_own_decide()


def test_the_shared_kernel_by_default_keeps_greedy_alone_in_its_own():
    """HERON_SIM_SHARED_KERNEL=1 (the suite's setting, conftest.py): single strategies play in the
    shared kernel, greedy alone still in its own; own_kernel() reaches a strategy's own."""
    import subprocess
    import sys

    code = ("from heron_sim.loop import kernels as k; "
            "print(k.kernel_key([3, 3]) == k.SHARED, k.kernel_key([0, 0]) == (0,)); "
            "cm = k.own_kernel(); cm.__enter__(); print(k.kernel_key([3, 3]) == (3,))")
    for flag, first in (("1", "True"), ("0", "False")):
        env = dict(os.environ, HERON_SIM_SHARED_KERNEL=flag)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split() == [first, "True", "True"], (flag, out)


def _single_strategies_get_their_own_decide():
    assert kernels.strategy_set([3, 0, 0, 3]) == (0, 3)
    assert kernels.kernel_key([0, 0, 0]) == (0,)
    assert kernels.kernel_key([3, 3]) == (3,)
    assert kernels.kernel_key([3, 0, 0, 3]) == kernels.SHARED
    assert kernels.kernel_key([4, 5]) == kernels.SHARED
    with kernels.shared_kernel():
        assert kernels.kernel_key([3, 3]) == kernels.SHARED
        assert kernels.kernel_key([0, 0]) == (0,)  # greedy alone keeps its fused, direct kernel
    assert kernels.kernel_key([3, 3]) == (3,)
    src = kernels.decide_source((0,))
    assert "greedy_decide" in src and "expert" not in src and "greedy_fused_turn(" in src
    src = kernels.decide_source((3,))
    assert "expert_decide" in src and "greedy_decide" not in src and "greedy_fused_turn" not in src
    src = kernels.decide_source(kernels.SHARED)
    assert "call_address(w[DECIDE_FN]" in src and "greedy_fused_turn(" in src
    decide = src.split("from heron_sim.engine.layout import SCORE_GENERIC", 1)[0]  # before the fused turns' hooks
    assert "expert" not in decide and "greedy_decide" not in decide  # no decision function linked in
    assert kernels.decide_address([0, 0]) == 0 and kernels.decide_address([0, 3]) != 0
    with pytest.raises(ValueError):
        kernels.strategy_set([42])
    # every template's relative imports are rewritten (no import of the generic dispatcher)
    for name in kernels.TEMPLATES:
        text = kernels.template_source(name, "pkg")
        assert "strategies.dispatch" not in text and "\nfrom ." not in text


@pytest.mark.parametrize("sid", [1, pytest.param(3, marks=pytest.mark.slow), pytest.param(4, marks=pytest.mark.slow),
                                 pytest.param(5, marks=pytest.mark.slow), pytest.param(6, marks=pytest.mark.slow)],
                         ids=["random", "expert", "prudent", "racer", "human"])  # slow: a kernel each
def test_the_shared_kernel_plays_the_same_games_as_a_strategys_own(sid):
    """The shared kernel calls the strategies through an address; a strategy's own kernel calls
    it directly. Same games, same counters, same single turns."""
    rules = Rules.build(mode="8d8", players=4)
    with kernels.own_kernel():
        own = _games(rules, sid, games=400)
    with kernels.shared_kernel():
        shared = _games(rules, sid, games=400)
    assert shared[:, L.C_PLAYED].sum() > 1_000
    np.testing.assert_array_equal(own, shared)
    R = pack_rules(rules)
    turns = []
    for ctx in (kernels.own_kernel(), kernels.shared_kernel()):
        out = np.zeros((3000, 3), dtype=np.int64)
        with ctx:
            play_turns(np.uint64(3), 0, R, 3, sid, np.zeros(4), out)
        turns.append(out)
    np.testing.assert_array_equal(turns[0], turns[1])


def test_a_mixed_seating_plays_the_same_games_whatever_the_other_seats():
    """In the shared kernel each seat calls its own strategy: greedy seats (fused turn) beside
    expert seats give, seat for seat, the decisions of their own kernels. Checked through a
    seating that puts the scripted-greedy generic path beside the fused one: same games as
    greedy everywhere."""
    rules = Rules.build(mode="8d8", players=4)
    R = pack_rules(rules)
    out = {}
    for name, sids in {"greedy": [GREEDY] * 4, "mixed": [GREEDY, SCRIPTED, GREEDY, SCRIPTED]}.items():
        rows = np.zeros((1500, L.n_columns(rules.finish)), dtype=np.int64)
        play_batch(np.uint64(9), 0, R, np.array(sids, dtype=np.int64), np.zeros((4, 4)), rows)
        out[name] = rows
    assert kernels.kernel_key([GREEDY, SCRIPTED]) == kernels.SHARED
    np.testing.assert_array_equal(out["greedy"], out["mixed"])


def test_the_shared_kernel_preference_belongs_to_its_thread():
    """Interleaved blocks on two threads (the explorer plays on several) used to leave the
    process-wide flag set for good: later single-strategy runs then took the shared kernel."""
    with kernels.own_kernel():
        _preference_belongs_to_its_thread()


def _preference_belongs_to_its_thread():
    import threading

    inside, release = threading.Event(), threading.Event()

    def hold():
        with kernels.shared_kernel():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    inside.wait(5)
    with kernels.shared_kernel():  # entered after the other thread's block, left before it ends
        assert kernels.kernel_key([3, 3]) == kernels.SHARED
    assert kernels.kernel_key([3, 3]) == (3,)  # the other thread's block changes nothing here
    release.set()
    t.join(5)
    assert kernels.kernel_key([3, 3]) == (3,)
