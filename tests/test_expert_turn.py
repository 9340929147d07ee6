"""The expert's fused turn (heron_sim.strategies.expert_turn) must not change a single game.

The reference is the generic path: the same decision function, ``expert_decide``, seated as a
plug-in (its C-callable wrapper, heron_sim.strategies.plugins) plays every decision through the
dispatcher and the generic roll loop of heron_sim.loop.turn, while an ``expert`` seat takes
the fused turn. Same tables, same streams: every counter of every game must agree.
"""

from __future__ import annotations

import numpy as np
import re

import pytest

from heron_sim.animals import AIGLE, CERF, HERON, LION, LOUP, SERPENT, TAUREAU
from heron_sim.loop import kernels
from heron_sim.engine import layout as L
from heron_sim.loop.batch import play_batch, play_turns
from heron_sim.engine.pack import pack_rules
from heron_sim.rules import Rules
from heron_sim.strategies import seat_arrays
from heron_sim.strategies.declared import sid_of
from heron_sim.strategies.dispatch import PLUGIN

EXPERT, GREEDY, PRUDENT, RACER = (sid_of(n) for n in ("expert", "greedy", "prudent", "racer"))

pytestmark = pytest.mark.exact

VARIANTS = [
    dict(mode="8d8", players=4),
    dict(mode="10d6", players=3),  # dice that differ: no stored power decisions, scans
    dict(mode="7d8", players=5, overrides={"rolls": 4, "pond_threshold": 3}),
    dict(mode="8d8", players=2, overrides={"powers": False}),
    # the powers' own keys, played on the counted dice (heron_sim.strategies.expert_turn._counted_power)
    pytest.param(dict(mode="8d8", players=3, overrides={
        "heron_patience_doubling": True, "patience_cost": 0, "eagle_draws": 3, "consolation_anxiety": 1}),
        marks=pytest.mark.slow),
]


@pytest.fixture(scope="module")
def generic_expert():
    """The address of ``expert_decide`` as a plug-in (the generic path's expert)."""
    from heron_sim.strategies.expert import expert_decide
    from heron_sim.strategies.plugins import compile_plugin

    wrapper = compile_plugin(expert_decide)
    return wrapper, wrapper.address


@pytest.fixture(scope="module")
def generic_racer():
    """The address of ``racer_decide`` as a plug-in (the generic path's racer)."""
    from heron_sim.strategies.plugins import compile_plugin
    from heron_sim.strategies.racer import racer_decide

    wrapper = compile_plugin(racer_decide)
    return wrapper, wrapper.address


def _games(rules, sids, address, games, seed=11, first=3, tables="expert"):
    seating = [tables if s in (EXPERT, RACER, PRUDENT, PLUGIN) else "greedy" for s in sids]
    _, sp = seat_arrays(seating, rules)
    sids = np.asarray(sids, dtype=np.int64)
    sp[sids == PLUGIN, 0] = float(address)  # a plug-in's row: its address, then the tables
    out = np.zeros((games, L.n_columns(rules.finish)), dtype=np.int64)
    play_batch(np.uint64(seed), first, pack_rules(rules), sids, sp, out)
    return out


@pytest.mark.parametrize("variant", VARIANTS,
                         ids=lambda v: f"{v['mode']}-{v['players']}p" + ("-" + "-".join(v["overrides"]) if "overrides" in v else ""))
def test_fused_expert_turn_plays_the_same_games_as_the_generic_path(variant, generic_expert):
    rules = Rules.build(**variant)
    n = rules.players
    _, address = generic_expert
    fused = _games(rules, [EXPERT] * n, address, 1500)
    generic = _games(rules, [PLUGIN] * n, address, 1500)
    assert fused[:, L.C_PLAYED].sum() > 20_000
    np.testing.assert_array_equal(fused, generic)
    if rules.powers:  # the roll-time power uses were played
        assert fused[:, L.C_POWERS + np.array([LOUP, AIGLE, CERF, HERON])].sum() > 100


@pytest.mark.parametrize("guide", [LOUP, AIGLE, CERF, HERON, LION])
def test_a_stored_power_use_is_played_on_the_counted_dice(guide):
    """A ready Wolf, Eagle, Deer or Heron guide whose stored decision is to use its power, and a
    ready Lion at an Anxiety, are played by the fused turn itself (no hand-over to the generic
    loop, no replay placing the dice), and the power is used."""
    from heron_sim.loop.loops import make_workspace
    from heron_sim.engine.rng import stream_start
    from heron_sim.strategies.expert_turn import CONTINUE, roll_phase_counts

    rules = Rules.build(mode="8d8")
    R = pack_rules(rules)
    _, sp = seat_arrays(["expert"] * 4, rules)
    w = make_workspace(R, np.full(4, EXPERT, dtype=np.int64), 0)
    rng = np.zeros(3, dtype=np.uint64)
    handed = used = 0
    for t in range(4000):
        stream_start(7, t, rng)
        w[L.GUIDE] = guide
        w[L.READY] = 1
        w[L.PATIENCE] = -1
        handed += roll_phase_counts(0, w, R, rng, sp, False, False) == CONTINUE  # the dice counted, never placed
        used += w[L.READY] == 0
    assert used > 400 and handed == 0


def test_fused_expert_turn_beside_greedy_seats(generic_expert):
    rules = Rules.build(mode="8d8", players=4)
    _, address = generic_expert
    fused = _games(rules, [GREEDY, EXPERT, GREEDY, EXPERT], address, 1500, seed=5)
    generic = _games(rules, [GREEDY, PLUGIN, GREEDY, PLUGIN], address, 1500, seed=5)
    np.testing.assert_array_equal(fused, generic)


@pytest.mark.parametrize("guide", [LOUP, TAUREAU, SERPENT, LION, AIGLE, CERF, HERON])
def test_fused_expert_turns_kernel_matches_the_generic_path(guide, generic_expert):
    """Single turns from a ready guide: the power uses, the Lion's rescues, the Bull."""
    rules = Rules.build(mode="8d8")
    R = pack_rules(rules)
    _, sp = seat_arrays(["expert"], rules)
    _, address = generic_expert
    outs = []
    for sid in (EXPERT, PLUGIN):
        row = sp[0].copy()
        if sid == PLUGIN:
            row[0] = float(address)
        out = np.zeros((20_000, 3), dtype=np.int64)
        play_turns(np.uint64(3), 0, R, guide, sid, row, out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    if guide == LION:
        assert (outs[0][:, 0] == L.OUT_RESCUED).sum() > 100


@pytest.mark.parametrize("mode", ["8d8", "10d6"])
def test_state_column_equals_the_lookup(mode):
    """The fused turn's rank (sizes in the sort keys, slots in a register) finds the same
    table entry and the same slots as expert_values.lookup, on dice of every table state."""
    from heron_sim.strategies import expert_dp
    from heron_sim.strategies.expert import lookup, table_of
    from heron_sim.strategies.expert_powers import _lay_out
    from heron_sim.strategies.expert_turn import state_column

    rules = Rules.build(mode=mode)
    R = pack_rules(rules)
    _, sp = seat_arrays(["expert"], rules)
    n, anx = rules.n_dice, rules.anxiety_threshold
    K, C, _ = expert_dp._post_states(n, anx)
    rng = np.random.default_rng(3)
    checked = 0
    for idx in rng.choice(len(K), 400, replace=False):
        h = n - int((K[idx] + C[idx]).sum())
        fl = 1 if h > 0 else 0
        for g in range(7):
            r = int(rng.integers(0, rules.rolls + 1))
            w = np.zeros(L.HEADER + 4096, dtype=np.int64)
            w[L.NDICE], w[L.GUIDE], w[L.READY], w[L.ROLLS_LEFT] = n, g, int(rng.integers(0, 2)), r
            _lay_out(w, g, K[idx], C[idx], h, fl)  # slot 0: the guide's animal
            kept = roll = 0
            for i in range(n):
                lane = 1 << (8 * int(w[L.FACE + i]))
                if w[L.STATUS + i] == L.FREE or (w[L.FACE + i] == HERON and w[L.FRESH + i]):
                    roll += lane
                else:
                    kept += lane
            ref = lookup(0, w, R, sp, r)
            col, slots = state_column(sp, 0, table_of(0, w, R), g, r, np.uint64(kept),
                                      np.uint64(roll), n)
            assert col == ref, (idx, g, r)
            if ref >= 0:
                checked += 1
                for a in range(6):
                    assert (slots >> (4 * a)) & 15 == w[L.KEEP + 6 + a], (idx, g, a)
    assert checked > 1000


def fused_turn_sids(src: str) -> set[int]:
    """The strategy ids the generated ``fused_turn`` of a kernel's source has a branch for."""
    body = src.split("def fused_turn(", 1)[1].split("def fused_score(", 1)[0]
    return {int(s) for s in re.findall(r"if sid == (\d+):", body)}


def test_kernels_with_expert_seats_take_the_fused_turn():
    assert EXPERT in fused_turn_sids(kernels.decide_source((EXPERT,)))
    assert EXPERT in fused_turn_sids(kernels.decide_source(kernels.SHARED))
    for sid in (GREEDY, PLUGIN):
        assert EXPERT not in fused_turn_sids(kernels.decide_source((sid,)))


RACER_VARIANTS = [
    dict(mode="8d8", players=4),
    dict(mode="10d6", players=3),
    dict(mode="8d8", players=3, overrides={"heron_patience_doubling": True, "consolation_no_set": 1,
                                           "exact_finish": True}),
]


@pytest.mark.parametrize("variant", RACER_VARIANTS,
                         ids=lambda v: f"{v['mode']}-{v['players']}p" + ("-" + "-".join(v["overrides"]) if "overrides" in v else ""))
def test_fused_racer_turn_plays_the_same_games_as_the_generic_path(variant, generic_racer):
    """A racer seat takes the expert's fused turn with its own stop rule (race_action on the
    counted dice): the same games as racer_decide through the generic loop."""
    rules = Rules.build(**variant)
    n = rules.players
    _, address = generic_racer
    fused = _games(rules, [RACER] * n, address, 1200, tables="racer")
    generic = _games(rules, [PLUGIN] * n, address, 1200, tables="racer")
    assert fused[:, L.C_PLAYED].sum() > 15_000
    np.testing.assert_array_equal(fused, generic)


def test_fused_racer_and_expert_seats_at_one_table(generic_racer, generic_expert):
    """Expert and racer seats side by side (the shared kernel): each fused seat plays as its
    generic plug-in; the racer's stop rule differs from the expert's (else this proves nothing)."""
    rules = Rules.build(mode="8d8", players=4)
    seating = ["racer", "expert", "greedy", "racer"]
    _, sp = seat_arrays(seating, rules)
    out = {}
    for label, sids in (("fused", [RACER, EXPERT, GREEDY, RACER]),
                        ("generic", [PLUGIN, PLUGIN, GREEDY, PLUGIN]),
                        ("as-expert", [EXPERT, EXPERT, GREEDY, EXPERT])):
        row = sp.copy()
        if label == "generic":
            row[0, 0] = row[3, 0] = float(generic_racer[1])
            row[1, 0] = float(generic_expert[1])
        rows = np.zeros((1200, L.n_columns(rules.finish)), dtype=np.int64)
        play_batch(np.uint64(7), 0, pack_rules(rules), np.asarray(sids, dtype=np.int64), row, rows)
        out[label] = rows
    np.testing.assert_array_equal(out["fused"], out["generic"])
    assert not np.array_equal(out["fused"], out["as-expert"])


def test_kernels_with_racer_seats_take_the_fused_turn():
    assert RACER in fused_turn_sids(kernels.decide_source((RACER,)))
    assert RACER in fused_turn_sids(kernels.decide_source(kernels.SHARED))
    for sid in (GREEDY, EXPERT, PLUGIN):
        assert RACER not in fused_turn_sids(kernels.decide_source((sid,)))


@pytest.fixture(scope="module")
def generic_prudent():
    """The address of ``prudent_decide`` as a plug-in (the generic path's prudent), reading its
    parameter row after the plug-in's address (column 0)."""
    import numba

    from heron_sim.strategies.plugins import compile_plugin
    from heron_sim.strategies.prudent import prudent_decide

    @numba.njit
    def prudent_as_plugin(kind, seat, w, R, rng, sp):
        return prudent_decide(kind, seat, w, R, rng, sp[:, 1:])

    wrapper = compile_plugin(prudent_as_plugin)
    return wrapper, wrapper.address


def _prudent_games(rules, address, games, seed=11, first=3):
    """(fused, generic): every seat prudent, then every seat the generic plug-in."""
    n = rules.players
    _, sp = seat_arrays(["prudent"] * n, rules)
    outs = []
    for sid, row in ((PRUDENT, sp), (PLUGIN, np.concatenate([np.full((n, 1), float(address)), sp], axis=1))):
        out = np.zeros((games, L.n_columns(rules.finish)), dtype=np.int64)
        play_batch(np.uint64(seed), first, pack_rules(rules), np.full(n, sid, dtype=np.int64),
                   np.ascontiguousarray(row), out)
        outs.append(out)
    return outs


PRUDENT_VARIANTS = [
    dict(mode="8d8", players=4),
    dict(mode="10d6", players=3),  # dice that differ: the generic loop plays every turn
    dict(mode="8d8", players=4, overrides={"anxiety_threshold": 4, "bull_min_set": 3}),
    # the long tier: more tables, the same comparison
    pytest.param(dict(mode="7d8", players=5, overrides={"rolls": 4, "pond_threshold": 3}), marks=pytest.mark.slow),
    pytest.param(dict(mode="8d8", players=2, overrides={"powers": False}), marks=pytest.mark.slow),
    pytest.param(dict(mode="10d8", players=6), marks=pytest.mark.slow),
]


def _variant_id(v):
    return f"{v['mode']}-{v['players']}p" + ("-" + "-".join(v["overrides"]) if "overrides" in v else "")


@pytest.mark.parametrize("variant", PRUDENT_VARIANTS, ids=_variant_id)
def test_fused_prudent_turn_plays_the_same_games_as_the_generic_path(variant, generic_prudent):
    """A prudent seat counts its dice (heron_sim.strategies.prudent_turn), powers included, and
    hands the whole turn to the generic loop where the counts do not tell: the same games as
    prudent_decide there."""
    rules = Rules.build(**variant)
    _, address = generic_prudent
    fused, generic = _prudent_games(rules, address, 1200)
    assert fused[:, L.C_PLAYED].sum() > 15_000
    np.testing.assert_array_equal(fused, generic)
    if rules.powers:  # the counted Wolf, Eagle, Deer and the Lion's rescues were played
        assert (fused[:, L.C_POWERS + np.array([LOUP, AIGLE, CERF, LION])].sum(axis=0) > 20).all()


@pytest.mark.parametrize("guide", [LOUP, LION, CERF, pytest.param(TAUREAU, marks=pytest.mark.slow),
                                   pytest.param(AIGLE, marks=pytest.mark.slow), pytest.param(HERON, marks=pytest.mark.slow)])
def test_fused_prudent_single_turns_match_the_generic_path(guide, generic_prudent):
    rules = Rules.build(mode="8d8")
    R = pack_rules(rules)
    _, sp = seat_arrays(["prudent"], rules)
    _, address = generic_prudent
    outs = []
    for sid in (PRUDENT, PLUGIN):
        row = sp[0].copy()
        if sid == PLUGIN:
            row = np.concatenate([[float(address)], row])  # a plug-in's row: its address first
        row = np.ascontiguousarray(row)
        out = np.zeros((20_000, 3), dtype=np.int64)
        play_turns(np.uint64(3), 0, R, guide, sid, row, out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_kernels_with_prudent_seats_take_the_fused_turn():
    assert PRUDENT in fused_turn_sids(kernels.decide_source((PRUDENT,)))
    assert PRUDENT in fused_turn_sids(kernels.decide_source(kernels.SHARED))
    for sid in (GREEDY, EXPERT, RACER, PLUGIN):
        assert PRUDENT not in fused_turn_sids(kernels.decide_source((sid,)))
