"""A rule's worth is derived, not written: the harness over every rules key a turn reads (issue 57
item 3, issue 62 item 2).

For every rules key that is not ``turn_free`` (heron_sim.rules.keys: the keys that can change a
single turn) a probe changes it, and the turns are played twice on the same dice streams (turn t
from the stream (seed, t)): by a player whose valuation is built from the changed rules, and by the
same player built from the unchanged rules while the engine plays the changed ones -- a player that
*forgot* the rule's worth. The players who value the dice from the expert's programme (``expert``;
the human family, which is the expert at zero noise, turn for turn; ``racer``) must move their
decisions with the rule and, where the programme is exact, gain from it:

- ``valued``: the programme values the rule exactly (no power used while rolling, or the Taureau's
  and the Lion's, which it holds): the expert's mean turn under the changed rules is higher with
  its own valuation than with the forgotten one, beyond 5 standard errors of the paired difference
  (a theorem: the programme is optimal for that objective; a forgotten valuation plays the same
  turns and gains exactly 0); the racer's decisions move and do not lose.
- ``power``: the rule is valued by a power used while rolling, which the expert decides one use at
  a time (not optimal): decisions move, and the turn does not get worse.
- ``shape``: the tables' layout follows the rule (the rolls, the Anxiety's herons), so it cannot be
  forgotten silently; the expert plays the changed rules' exact optimum (heron_sim.strategies
  .expert_build.optimal_turn_value), not the unchanged rules'.
- ``none``: no decision reads it (the Étang opens on the first roll, before any choice): the turns
  are the same decision for decision, and the expert's mean turn is the changed rules' optimum.

A key without a probe fails the first test (a new rule must say how players value it). ``greedy``
(the rulings' exact reference) and ``prudent`` (a rule of thumb on the Anxiety's chance: its
decisions moved with ``bull_min_set`` alone, 0 % of turns otherwise, measured on 100,000 turns a
key) value no rule and are not in the harness. The game-level worths (the squares, a regeneration,
a push-back's worth to a seat) are not turn keys: the champion reads them from the worth of
positions built on the rules' own games (heron_sim.analysis.worth); the others' hand-written
figures are named in docs/strategies.md.

The worth of a turn to the roller is the programme's objective: the squares it moves (an advance,
the consolations; an Étang is 0 for its roller, its push-back is the others')."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from heron_sim.animals import animal_index
from heron_sim.engine import layout as L
from heron_sim.engine.pack import pack_rules
from heron_sim.loop.batch import play_turns
from heron_sim.rules import Rules
from heron_sim.rules.keys import KEYS
from heron_sim.strategies import seat_arrays
from heron_sim.strategies.expert_build import optimal_turn_value

pytestmark = [pytest.mark.statistical]

#: The expert at zero noise: the human family's decisions with no error and no style.
HUMAN_AT_ZERO = "human:temp=0,caution=0,forget=0"


@dataclass(frozen=True)
class Probe:
    """A change of one key: its value, the guide whose holder's turn it matters to, the rules it
    is changed from (``base``), and how the players value it (``kind``, see the module)."""

    key: str
    value: object
    guide: str
    kind: str
    base: dict = field(default_factory=dict)


PROBES: tuple[Probe, ...] = (
    Probe("rolls", 4, "loup", "shape", {"powers": False}),
    Probe("anxiety_threshold", 4, "loup", "shape", {"powers": False}),
    Probe("pond_threshold", 2, "loup", "none", {"powers": False}),  # above 3, an Étang and an Angoisse are both 0 to the roller
    Probe("guide_power_doubling", False, "loup", "valued"),
    # with no power, two herons kept are kept anyway: 0.03 % of the expert's turns move; with the
    # Héron's Patience (a power used while rolling) the rule moves 7 % of them
    Probe("heron_doubling_herons", 2, "heron", "power"),
    Probe("heron_doubling_min_set", 4, "heron", "valued", {"heron_doubling_herons": 2, "powers": False}),
    Probe("bull_bonus", 6, "taureau", "valued"),
    Probe("bull_min_set", 5, "taureau", "valued"),
    Probe("consolation_anxiety", 3, "lion", "valued"),
    Probe("consolation_no_set", 2, "loup", "valued"),
    Probe("eagle_draws", 4, "aigle", "power"),
    Probe("patience_cost", 0, "heron", "power"),
    Probe("heron_patience_doubling", True, "heron", "power"),
)
TURNS = 200_000
SEED = 3


def turns(played: Rules, valued: Rules, strategy: str, guide: str, n: int = TURNS, seed: int = SEED) -> np.ndarray:
    """``n`` single turns from a fresh turn (the guide ready) under the rules ``played``, by
    ``strategy`` with the valuation (tables) built from the rules ``valued``: (outcome, value,
    rolls) a turn, turn t from the stream (seed, t)."""
    sids, sp = seat_arrays([strategy], valued)
    g = animal_index(guide)
    out = np.zeros((n, 3), dtype=np.int64)
    play_turns(np.uint64(seed), 0, pack_rules(played), g, int(sids[0]), sp[played.turn_rows()[1][g]], out)
    return out


def turn_worth(out: np.ndarray, rules: Rules) -> np.ndarray:
    """The squares each turn moves its roller (the programme's objective)."""
    outcome, value = out[:, 0], out[:, 1]
    scored = np.where(value > 0, value, rules.consolation_no_set)
    return np.where((outcome == L.OUT_SCORED) | (outcome == L.OUT_RESCUED), scored,
                    np.where(outcome == L.OUT_ANXIETY, rules.consolation_anxiety, 0)).astype(np.float64)


def paired_gain(probe: Probe, strategy: str, valued: Rules | None = None) -> tuple[float, float, float]:
    """(mean gain, its z, share of turns whose number of rolls differs) of the player valuing the
    changed rules (or ``valued``) over the same player valuing the unchanged ones, both playing the
    changed rules on the same streams."""
    base, new = rules_of(probe)
    a = turns(new, new if valued is None else valued, strategy, probe.guide)
    b = turns(new, base, strategy, probe.guide)
    d = turn_worth(a, new) - turn_worth(b, new)
    se = d.std() / np.sqrt(d.size)
    return float(d.mean()), float(d.mean() / se) if se > 0 else 0.0, float((a[:, 2] != b[:, 2]).mean())


def rules_of(probe: Probe) -> tuple[Rules, Rules]:
    base = Rules.build(mode="8d8", overrides=probe.base)
    return base, Rules.build(mode="8d8", overrides={**probe.base, probe.key: probe.value})


def test_every_key_a_turn_reads_has_a_probe():
    """A rules key that can change a turn says, by its probe, how the players value it."""
    turn_keys = {k.name for k in KEYS.values() if not k.turn_free and k.kind != "seats"}
    assert {p.key for p in PROBES} == turn_keys
    assert {p.kind for p in PROBES} <= {"valued", "power", "shape", "none"}
    for p in PROBES:  # each probe changes its key
        base, new = rules_of(p)
        assert getattr(base, p.key) != getattr(new, p.key), p.key


@pytest.mark.parametrize("probe", [p for p in PROBES if p.kind == "valued"], ids=lambda p: p.key)
def test_a_valued_rule_moves_the_experts_decisions_and_pays(probe):
    gain, z, moved = paired_gain(probe, "expert")
    assert z > 5 and moved > 0, (probe.key, gain, z, moved)
    gain_r, z_r, moved_r = paired_gain(probe, "racer")
    assert moved_r > 0.005 and z_r > -4, (probe.key, gain_r, z_r, moved_r)


@pytest.mark.parametrize("probe", [p for p in PROBES if p.kind == "power"], ids=lambda p: p.key)
def test_a_rule_of_a_power_moves_the_decisions_and_does_not_cost(probe):
    for strategy in ("expert", "racer"):
        gain, z, moved = paired_gain(probe, strategy)
        assert moved > 0.005 and z > -4, (probe.key, strategy, gain, z, moved)


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.key)
def test_the_human_family_at_zero_noise_plays_the_experts_turns(probe):
    """The human's own code (its Lion, its powers, its keep) reads the rule as the expert does:
    with no error and no style it plays the expert's turns, turn for turn, under the changed
    rules."""
    _, new = rules_of(probe)
    assert np.array_equal(turns(new, new, HUMAN_AT_ZERO, probe.guide, 50_000),
                          turns(new, new, "expert", probe.guide, 50_000)), probe.key


@pytest.mark.parametrize("probe", [p for p in PROBES if p.kind in ("shape", "none")], ids=lambda p: p.key)
def test_the_expert_plays_the_changed_rules_optimum(probe):
    base, new = rules_of(probe)
    g = animal_index(probe.guide)
    v = turn_worth(turns(new, new, "expert", probe.guide), new)
    se = v.std() / np.sqrt(v.size)
    assert abs(v.mean() - optimal_turn_value(new, g, powers=False)) < 5 * se, probe.key
    assert abs(v.mean() - optimal_turn_value(base, g, powers=False)) > 5 * se, probe.key


@pytest.mark.parametrize("probe", [p for p in PROBES if p.kind == "none"], ids=lambda p: p.key)
def test_a_rule_no_decision_reads_leaves_every_decision(probe):
    base, new = rules_of(probe)
    for strategy in ("expert", "racer"):
        assert np.array_equal(turns(new, new, strategy, probe.guide, 50_000),
                              turns(new, base, strategy, probe.guide, 50_000)), (probe.key, strategy)


@pytest.mark.parametrize("probe", [p for p in PROBES if p.kind in ("valued", "power")], ids=lambda p: p.key)
def test_the_harness_fails_on_a_forgotten_valuation(probe):
    """Negative control: a player whose valuation forgot the rule (built from the unchanged rules)
    plays exactly the forgotten player's turns: no gain, no decision moved, so each check above
    fails on it."""
    base, _ = rules_of(probe)
    gain, z, moved = paired_gain(probe, "expert", valued=base)
    assert gain == 0 and z == 0 and moved == 0


def test_the_harness_catches_a_valuation_forgotten_in_the_programme(monkeypatch):
    """Negative control in the code: the programme's parameters made to forget the Anxiety's
    consolation (as a new key would be forgotten: the engine applies it, the valuation does not)
    and the tables built afresh (no cache, memory or disk, sees them): the harness's check fails."""
    from heron_sim.strategies import expert_build, expert_dp

    real = expert_dp._params

    def forgetful(rules, t):
        par = real(rules, t)
        par[expert_dp.PAR_CONS_ANX] = 0
        return par

    monkeypatch.setattr(expert_build, "_params", forgetful)
    monkeypatch.setattr(expert_build, "expert_tables", expert_build.build_tables)
    probe = next(p for p in PROBES if p.key == "consolation_anxiety")
    gain, z, moved = paired_gain(probe, "expert")
    assert gain == 0 and moved == 0  # the forgotten rule moves nothing: z > 5 fails
    with pytest.raises(AssertionError):
        test_a_valued_rule_moves_the_experts_decisions_and_pays(probe)
