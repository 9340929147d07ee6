"""The report's corrections (issue 20), each on synthetic facts that the old report got wrong:
every test here fails on the old output (the old sentence, flag or missing figure is named)."""

import math

import numpy as np
import pandas as pd
import pytest

from heron_sim.analysis import metrics as M
from heron_sim.analysis.executive import remedy
from heron_sim.report.executive import anxiety_reconciliation, build_rows, verdict
from heron_sim.runner.kinds.guides import doubling_weighing
from heron_sim.runner.kinds.modes import single_use_verdict
from heron_sim.report.judge import (balance_interval, fair_floor, fair_floor_dealt, family_readings, guide_flag,
                                    lower_bound_size, rank, reading, Problem)
from heron_sim.report.section import Fact, Section

pytestmark = pytest.mark.exact


def _f(fid, est, lo=math.nan, hi=math.nan, n=1000, unit="share", note="", p=math.nan, label=None):
    return Fact(fid, label or fid, est, lo, hi, n, unit, "games", p, note)


def _facts(*fs):
    return {f.id: f for f in fs}


def _rows(facts):
    return {r.question: r for r in build_rows(facts, {})}


# ---------------------------------------------------------------- Angoisse single turns
def test_single_turn_angoisse_rates_say_how_they_were_made():
    facts = _facts(_f("anxiety.per_turn.8d8.expert", 0.219, 0.216, 0.222),
                   _f("anxiety.games_per_turn.8d8.expert", 0.323, 0.31, 0.33))
    t = anxiety_reconciliation(facts).set_index("id")
    single, whole = t.loc["anxiety.per_turn.8d8.expert"], t.loc["anxiety.games_per_turn.8d8.expert"]
    # the old table blamed "its own choices of what to keep" for the fresh-power artefact
    assert "own choices" not in single["why it differs"]
    assert "unused Loup power" in single["figure"] and "not a per-strategy rate" in single["why it differs"]
    assert "whole games" in whole["figure"] and "per-strategy rate" in whole["figure"]
    # measured with the powers off (the plan now does so), the single-turn rate says so
    off = _facts(_f("anxiety.per_turn.8d8.expert", 0.339, 0.336, 0.342, note="fresh state; one-shot powers off (no fresh-power artefact)"))
    row = anxiety_reconciliation(off).set_index("id").loc["anxiety.per_turn.8d8.expert"]
    assert "powers off" in row["figure"] and "own choices" in row["why it differs"]


# ---------------------------------------------------------------- one first-player figure, Holm families
def test_a_real_claim_must_survive_holm_over_its_family():
    # 2 players +2.0 points [+0.3, +3.7], p = 0.025: "real" alone, not after Holm over six counts
    assert reading(2.0, 0.3, 3.7, 1.0) == "real, possibly relevant"
    rows = [(2.0, 0.3, 3.7, 0.025)] + [(0.1, -1.5, 1.7, 0.9)] * 5
    (r, q), *_ = family_readings(rows, 1.0)
    assert q == pytest.approx(0.15) and r == "uncertain"
    # a claim that survives keeps its reading
    assert family_readings([(3.0, 2.0, 4.0, 1e-6), (0.0, -1, 1, 0.9)], 1.0)[0][0] == "real and relevant"


def test_the_first_player_row_uses_the_pooled_figure_and_the_family():
    fs = [_f("balance.seat1.pooled.8d8", 0.258, 0.252, 0.264, n=20_000, p=0.01)]
    fs += [_f(f"players.{p}.seat1", 1 / p + (0.02 if p == 2 else 0.0), 1 / p + (0.003 if p == 2 else -0.015),
              1 / p + (0.037 if p == 2 else 0.015), p=0.025 if p == 2 else 0.9) for p in range(2, 8)]
    row = _rows(_facts(*fs))["First-player advantage"]
    assert "one first-player figure" in row.answer and "25.8" in row.figure
    assert "after Holm over the 6 counts: no count differs" in row.answer


# ---------------------------------------------------------------- guides: one scale, one margin
def test_guide_flags_respect_the_one_point_margin():
    # Aigle -0.4 points with a tiny p: the old table flagged it "weak"
    assert guide_flag(0.246, 0.242, 0.250, 0.25, 1e-5) == ""
    assert guide_flag(0.257, 0.253, 0.261, 0.25, 1e-5) == ""          # Cerf +0.7
    assert guide_flag(0.20, 0.19, 0.21, 0.25, 1e-9) == "weak"
    assert guide_flag(0.265, 0.255, 0.275, 0.25, 1e-4) == "possibly strong"
    assert guide_flag(0.257, 0.251, 0.263, 0.25, 1e-4) == ""          # interval reaches out, estimate inside
    assert guide_flag(0.20, 0.19, 0.21, 0.25, 0.2) == ""              # does not survive Holm


def test_guide_table_flags_on_the_when_dealt_scale():
    # 4 seats, guides 0-3 dealt in every game; seat of guide 0 wins 25.75 % (+0.75 point when dealt)
    rng = np.random.default_rng(1)
    n = 40_000
    w = rng.choice(4, size=n, p=[0.2575, 0.2475, 0.2475, 0.2475])
    d = {"winner": w, "finished": np.ones(n, bool), "players": 4}
    for s in range(4):
        d[f"guide_{s}"] = np.full(n, ["loup", "taureau", "serpent", "lion"][s])
    t = M.guide_table(pd.DataFrame(d)).set_index("guide")
    assert t.at["loup", "fair_when_dealt"] == 0.25
    assert t.at["loup", "flag"] == ""  # within ±1 point on the when-dealt scale (the old flag: share of games, p only)


def test_guide_row_reads_win_rate_when_dealt_and_the_noise_floor():
    names = ["loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron"]
    fs = [_f(f"guides.when_dealt.8d8.{g}", 0.25 + d, 0.25 + d - 0.01, 0.25 + d + 0.01, note="fair 0.2500", p=0.5)
          for g, d in zip(names, [0.01, 0.0, 0.0, 0.0, -0.004, 0.007, -0.01])]
    fs += [_f("guides.spread.8d8", 0.02, 0.015, 0.025, unit="share difference"),
           _f("guides.spread_floor.8d8", 0.03, math.nan, 0.05, unit="share difference")]
    row = _rows(_facts(*fs))["Guide balance"]
    assert "fair 25.0" in row.answer and "14.3" not in row.answer  # the old scale: share of all games, fair 14.3 %
    assert "perfectly fair game at the same n reads 3.0" in row.answer
    # one name and one definition of the guide spread (the lab's), with its interval
    assert ("guide spread (largest gap between a guide's win rate when dealt and the fair share) is 2.0 points [1.5, 2.5]"
            in row.answer) and "best − worst" not in row.answer


# ---------------------------------------------------------------- noise floors
def test_a_fair_four_seat_game_reads_about_0954_at_n_500():
    fl = fair_floor(500, 4)
    assert fl["balance_median"] == pytest.approx(0.954, abs=0.01)
    assert fl["balance_p05"] < fl["balance_median"] < 1
    # more games, a higher floor
    assert fair_floor(50_000, 4)["balance_median"] > 0.99
    g = fair_floor_dealt(2_000, 0.25, 7)
    assert 0.01 < g["gap_median"] < g["gap_p95"] < 0.1
    est, lo, hi = balance_interval(np.array([130, 120, 125, 125]), 500)
    assert est == pytest.approx(0.98) and lo < hi
    from heron_sim.report.judge import guide_spread_interval

    # the guide spread is the largest gap to the fair share (the lab's definition), not best − worst (0.10)
    sp, slo, shi = guide_spread_interval([200, 250, 320], [1000, 1000, 1000], 0.25)
    assert sp == pytest.approx(0.07) and slo <= sp <= shi and shi - slo < 0.1


# ---------------------------------------------------------------- the Étang
def _pond_frame():
    # 4 seats; game k: seat (k % 4) rolls the only Étang and hits the three others for 4 squares each
    # except one victim floored at square 0 (2 squares); the roller wins every other game
    rows = []
    for k in range(400):
        r = k % 4
        row = {"players": 4, "winner": r if k % 2 == 0 else (r + 1) % 4, "finished": True}
        for s in range(4):
            row[f"pond_rolls_{s}"] = int(s == r)
            row[f"pond_hits_{s}"] = int(s != r)
            row[f"pond_back_{s}"] = 0 if s == r else (2 if s == (r + 3) % 4 else 4)
        rows.append(row)
    return pd.DataFrame(rows)


def test_the_etang_effects_add_up_and_the_realised_push_back_is_measured():
    from heron_sim.runner.kinds.pond import one_pond

    sec = Section("pond", "pond")
    out = one_pond(_pond_frame(), "8d8", sec)
    assert out["per_hit"][0] == pytest.approx(10 / 3)  # (4 + 4 + 2) / 3, not the nominal 4
    r, v = out["roller"][0], out["victim"][0]
    assert r == pytest.approx(0.5) and r + 3 * v == pytest.approx(1.0)  # one comparison that adds up
    ids = {f.id for f in sec.facts}
    assert {"pond.realised_per_hit.8d8", "pond.one_pond.roller_wins.8d8", "pond.one_pond.victim_wins.8d8"} <= ids


def test_the_etang_row_no_longer_pairs_two_effects_that_cannot_both_hold():
    fs = [_f("pond.rate.8d8", 0.018, 0.0178, 0.0182), _f("pond.exact.8d8", 0.018), _f("pond.pushback_mean.8d8", 4.9, 4.8, 5.0, unit="squares"),
          _f("pond.win_per_pond_rolled.8d8", 0.032, 0.02, 0.04), _f("pond.win_per_square_lost.8d8", -0.0112, -0.013, -0.009),
          _f("pond.realised_per_hit.8d8", 4.15, 4.1, 4.2, unit="squares"),
          _f("pond.one_pond.roller_wins.8d8", 0.31, 0.29, 0.33, n=3000), _f("pond.one_pond.victim_wins.8d8", 0.23, 0.223, 0.237, n=3000)]
    row = _rows(_facts(*fs))["Étang Paisible: push-back of 4 to 8 squares on 8 D8"]
    assert "per square lost" not in row.answer and "really costs 4.15 squares" in row.answer
    assert "roller + 3 victims = 100" in row.answer
    assert "lower the push-back" not in row.action and "push-back's size" in row.action


# ---------------------------------------------------------------- advice weighed, remedies measured
def test_dropping_the_doubling_is_weighed_on_every_measure():
    fs = _facts(_f("guides.nodouble.length.8d8", -7.9, -8.2, -7.6, unit="rounds"),
                _f("guides.doubling_effect.8d8.heron", -0.05, -0.06, -0.04, unit="share difference"),
                _f("guides.spread.8d8", 0.12, unit="share difference"),
                _f("guides.spread_nodouble.8d8", 0.04, unit="share difference"))
    text = doubling_weighing(fs)
    assert "7.9 rounds" in text and "longer" in text and "12.0 → 4.0" in text and "Héron guide +5.0" in text


def _variant(key, label, length_rel, **measures):
    out = [_f(f"sensitivity.{key}.length_rel", length_rel, length_rel - 0.01, length_rel + 0.01, unit="relative change",
              label=f"game length change, {label} vs default (8 D8)")]
    out += [_f(f"sensitivity.{key}.{m}", v, v - 0.01, v + 0.01) for m, v in measures.items()]
    return out


def test_remedy_names_the_smallest_played_fix_or_every_change_tried():
    fs = _facts(*_variant("a", "change A", 0.20, seat1=0.25), *_variant("b", "change B", -0.03, seat1=0.252),
                *_variant("c", "change C", 0.01, seat1=0.28), _f("sensitivity.base.seat1", 0.27))
    fix = lambda f: abs(f.estimate - 0.25) <= 0.01  # noqa: E731
    text = remedy(fs, "seat1", fix, lambda f: f"{f.estimate:.3f}")
    assert text.startswith("Smallest tested change that fixes it: change B") and "2 of 3" in text
    none = remedy(fs, "seat1", lambda f: False, lambda f: f"{100 * f.estimate:.1f} %")
    assert none == "No tested remedy fixes this; tried: change A (25.0 %); change B (25.2 %); change C (28.0 %)."


def test_no_fixed_advice_survives():
    fs = [_f("balance.seat1.pooled.8d8", 0.28, 0.27, 0.29, p=1e-9), _f("turns.dead.10d8", 0.486, 0.48, 0.49),
          _f("modes.mid_leader_wins.8d8", 0.36, 0.35, 0.37, note="fair 0.2500"),
          _f("players.4.minutes", 70, 69, 71, unit="minutes")]
    text = " ".join(r.action for r in build_rows(_facts(*fs), {}))
    for old in ("first-turn bonus", "consolation (e.g.", "lower the push-back", "See the lab", "Time a few real turns",
                "Nothing to fix unless"):
        assert old not in text, old


def test_single_use_variant_judged_on_its_comeback_figures():
    f = _f("variant.last_wins.8d8", -0.031, -0.045, -0.017, p=0.001, unit="share difference",
           note="default 0.1300, single-use squares 0.0990; Holm over the metrics")
    text = single_use_verdict(_facts(f))
    assert "13.0" in text and "9.9" in text and "comebacks rarer" in text
    same = _f("variant.last_wins.8d8", 0.002, -0.01, 0.014, p=0.9, note="default 0.1300, single-use squares 0.1320; x")
    assert "does not change comebacks" in single_use_verdict(_facts(same))


# ---------------------------------------------------------------- the verdict
def test_verdict_ranks_by_effect_against_margin_and_says_what_is_fine():
    names = ["loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron"]
    fs = [_f("balance.seat1.pooled.8d8", 0.251, 0.247, 0.255, n=20_000)]
    fs += [_f(f"guides.when_dealt.8d8.{g}", 0.25, 0.245, 0.255, note="fair 0.2500", p=1.0) for g in names[:-1]]
    fs += [_f("guides.when_dealt.8d8.heron", 0.20, 0.19, 0.21, note="flag weak; fair 0.2500", p=1e-9)]
    fs += [_f("players.4.minutes", 70, 68, 72, unit="minutes"),
           _f("sensitivity.base.last_wins", 0.08, 0.07, 0.09, note="fair 0.2500")]
    wrong, fine, open_ = verdict(_facts(*fs))
    assert [p.anchor for p in wrong] == ["q-length", "q-guide-balance", "q-decisiveness"]
    assert all(a.size >= b.size for a, b in zip(wrong, wrong[1:]))
    assert any(p.anchor == "q-first-player" for p in fine)
    assert lower_bound_size(2.0, -0.1, 4.0, 1.0) == 0.0 and lower_bound_size(-5, -6, -3, 1.0) == 3.0
    w, f, o = rank([Problem("a", "", 0.5, "x"), Problem("b", "", 2.0, "y")])
    assert [p.what for p in w] == ["b"] and [p.what for p in o] == ["a"] and not f


def test_the_verdict_reads_the_designers_targets_and_says_which_are_assumed():
    """Issue 30 item 1: the length target at each player count, the comeback floor (0.5 × fair),
    every guide past its margin (not only the weakest and the strongest), each verdict saying
    which assumed targets it rests on; a negative control on each: inside the target, no problem."""
    from heron_sim.analysis.executive import TARGETS

    assert TARGETS.assumed("length_minutes", "comeback_floor", "share_margin")  # the shipped file: all assumed
    names = ["loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron"]
    rates = dict(zip(names, [0.25, 0.268, 0.272, 0.25, 0.25, 0.25, 0.20]))
    fs = [_f(f"guides.when_dealt.8d8.{g}", r, r - 0.005, r + 0.005, note="fair 0.2500", p=1e-9 if r != 0.25 else 1.0)
          for g, r in rates.items()]
    fs += [_f("players.2.minutes", 20, 19, 21, unit="minutes"), _f("players.4.minutes", 70, 69, 71, unit="minutes"),
           _f("players.6.minutes", 105, 104, 106, unit="minutes"),
           # 13 % against a floor of 12.5 % (0.5 × 25 %): the floor is met, no longer "far below 25 %"
           _f("sensitivity.base.last_wins", 0.13, 0.121, 0.14, note="fair 0.2500")]
    wrong, fine, open_ = verdict(_facts(*fs))
    what = [p.what.replace("\u00a0", " ") for p in wrong]
    assert what[0] == ("Games are longer than the target at 4 and 6 players: 4 players 70 minutes (target 30–45); "
                       "6 players 105 minutes (target 40–65)")
    assert wrong[0].assumed == ("assumed: the length target, the seconds per turn, the length margin "
                                "(experiments/targets.toml)")
    assert "The Taureau guide is strong: its holder wins more than a fair 25 %" in what
    assert {"Héron", "Serpent", "Taureau"} == {w.split()[1] for w in what if w.startswith("The ")}
    assert all(p.assumed == "assumed: the share margin (experiments/targets.toml)" for p in wrong[1:])
    fine_what = [p.what for p in fine]
    assert "Games are within the length target at 2 players: 2 players 20 minutes (target 15–25)" in fine_what
    assert ("The player last at mid-game wins 13.0 %, at or above the comeback floor of 12.5 % (0.5 × the fair 25 %)"
            in [w.replace("\u00a0", " ") for w in fine_what])
    assert not any("meant nothing" in p.what for p in wrong + fine + open_)
    # below the floor: a problem, sized from the floor, not from the fair share
    low = verdict(_facts(_f("sensitivity.base.last_wins", 0.08, 0.07, 0.09, note="fair 0.2500")))[0]
    assert low[0].what.startswith("Comebacks are rare") and low[0].size == pytest.approx(3.5)


def test_a_target_the_designer_set_is_not_called_assumed(monkeypatch):
    """Negative control of the assumed note: with every target set (``assumed = false``) the
    verdict says nothing is assumed; with one assumed it names only that one."""
    import tomllib

    from heron_sim.analysis import executive as X
    from heron_sim.analysis.targets import DEFAULT_PATH, parse_targets

    data = tomllib.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    for name, entry in data.items():
        for e in entry.values() if name == "game" else [entry]:  # the lighter games' sections: one level down
            for t in e.values() if name == "game" else [e]:
                t["assumed"] = False
    monkeypatch.setattr(X, "TARGETS", parse_targets(data, str(DEFAULT_PATH)))
    assert all(g.assumed() == [] for g in X.TARGETS.games.values())
    assert X.assumed_note("share_margin") == "" and X.assumed_note("length_minutes", "seconds_per_turn") == ""
    data["seconds_per_turn"]["assumed"] = True
    monkeypatch.setattr(X, "TARGETS", parse_targets(data, str(DEFAULT_PATH)))
    assert (X.assumed_note("length_minutes", "seconds_per_turn")
            == "assumed: the seconds per turn (experiments/targets.toml)")


def test_power_worth_per_strategy_and_the_within_noise_flag():
    from heron_sim.runner.kinds.guides import _power_by_strategy

    n = 400
    names = ["loup", "taureau", "serpent", "lion"]
    base = {"game": np.arange(n), "players": 4, "finished": True, "strategies": "a,b,a,b"}
    for s in range(4):
        base[f"guide_{s}"] = names[s]
        base[f"strategy_{s}"] = "a" if s % 2 == 0 else "b"
    ref = pd.DataFrame({**base, "winner": np.where(np.arange(n) % 2 == 0, 0, 1)})  # loup (seat 1, strategy a) wins half
    off = ref.copy()
    off["winner"] = 1  # with loup's power off its holder never wins
    sec = Section("guides", "guides")
    t = _power_by_strategy(sec, "8d8", ref, {"loup": off, "taureau": ref.copy()}).set_index(["guide", "strategy"])
    assert t.at[("loup", "a"), "diff"] == pytest.approx(0.5) and t.at[("loup", "a"), "reading"] == "real and relevant"
    assert t.at[("taureau", "b"), "diff"] == 0.0
    f = {x.id: x for x in sec.facts}
    assert f["guides.power_nil.8d8.loup"].estimate == 0.0
    # Taureau's holder plays b only: strategy a says nothing about it and is left out
    assert ("taureau", "a") not in t.index


def test_leader_through_the_game_and_the_winners_worst_deficit():
    from heron_sim.analysis.trajectory import leader_and_deficit

    # 4 rounds, 2 seats: seat 0 leads early, seat 1 is 7 behind after round 2, then wins
    pos = np.array([[5, 2], [12, 5], [14, 13], [15, 63]])
    out = leader_and_deficit(pos, winner=1)
    assert out["leader_0.25"] == 0 and out["leader_0.5"] == 0 and out["leader_0.75"] == 0
    assert out["worst_deficit"] == 7  # the end of round 2; the last row is the winning turn
    tie = leader_and_deficit(np.array([[3, 3], [4, 63]]), winner=1, points=(0.5,))
    assert tie["leader_0.5"] == -1  # a tie for the lead has no leader


def test_a_replay_round_by_round_is_the_stored_game():
    from heron_sim.analysis.trajectory import ReplayMismatch, replay, trajectories
    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate

    rules = Rules.build(mode="8d8", players=3)
    df = simulate(rules, games=12, seed=5, strategies="greedy")
    t = trajectories(rules, df, games=12)
    assert len(t) == int(df["finished"].sum()) and (t["rounds"].to_numpy() == df.loc[df["finished"], "rounds"].to_numpy()).all()
    bad = df.iloc[0].copy()
    bad["winner"] = (int(bad["winner"]) + 1) % 3
    with pytest.raises(ReplayMismatch):
        replay(rules, bad)


def test_the_power_row_names_the_player_counts_it_was_measured_at():
    pv = [_f(f"guides.power_value.8d8.{g}", 0.02, 0.01, 0.03, unit="share difference", p=1e-4) for g in ("loup", "heron")]
    four = [_f("guides.power_nil.8d8.loup", 0.0, unit="flag"), _f("guides.power_nil.8d8.heron", 1.0, unit="flag")]
    row = _rows(_facts(*pv, *four))["Each power's worth to its holder"]
    assert "not at other player counts" in row.action and "Héron" in row.action
    # measured at 2-6 players too: the Héron is not within noise at every count, so none is named
    every = [_f(f"guides.power_nil_every_count.8d8.{g}", 0.0, unit="flag", note="player counts 2, 3, 4, 5, 6")
             for g in ("loup", "heron")]
    row = _rows(_facts(*pv, *four, *every))["Each power's worth to its holder"]
    assert "at 2, 3, 4, 5, 6 players" in row.action and "not at other player counts" not in row.action
    assert "Within noise" not in row.action and "at one player count or more (2, 3, 4, 5, 6)" in row.action
    wrong, fine, open_ = verdict(_facts(*pv, *four, *every))
    assert not any(p.anchor == "q-powers" for p in wrong + fine + open_)


def test_a_remedy_batch_too_small_to_pass_says_so():
    from heron_sim.analysis.executive import underpowered
    from heron_sim.sections import Fact

    small = [Fact("a", "x", 0.245, 0.233, 0.257, n=5000), Fact("b", "x", 0.25, 0.238, 0.262, n=5000)]
    text = underpowered(small, 0.01)
    assert "at 5,000 games their 95 % intervals are ±1.2 points wide" in text and "about 29,000 games" in text
    assert underpowered([Fact("a", "x", 0.245, 0.241, 0.249, n=50000)], 0.01) == ""  # narrow enough: silent


def test_a_fix_of_the_etang_roller_is_an_equivalence_test_not_a_point_estimate():
    """Issue 30 item 5: a remedy whose roller share is near fair but whose interval is wider than
    the margin (few games with exactly one Étang) is not called a fix; the text says the batches
    were too small to show one, and how many games would be needed."""
    from heron_sim.runner.kinds.pond import pushback_test

    m = "8d8"
    fs = [_f(f"sensitivity.base.one_pond.roller_wins.{m}", 0.286, 0.263, 0.310, n=1467, note="fair 0.25"),
          _f(f"sensitivity.base.one_pond.victim_wins.{m}", 0.238, 0.23, 0.245),
          *_variant("pushback_fixed2", "Étang push-back a fixed 2", -0.044),
          _f(f"sensitivity.pushback_fixed2.one_pond.roller_wins.{m}", 0.254, 0.233, 0.277, n=1467, note="fair 0.25"),
          _f(f"sensitivity.pushback_fixed2.one_pond.victim_wins.{m}", 0.249, 0.24, 0.255)]
    text = pushback_test(_facts(*fs), m)
    assert "Smallest tested change that fixes it" not in text and "No tested remedy fixes this" in text
    assert "could not show a fix" in text and "1,467 games" in text
    # the same estimate with an interval inside the margin is a fix
    fs[3] = _f(f"sensitivity.pushback_fixed2.one_pond.roller_wins.{m}", 0.254, 0.247, 0.2595, n=30000, note="fair 0.25")
    assert pushback_test(_facts(*fs), m).count("Smallest tested change that fixes it: Étang push-back a fixed 2") == 1


def test_a_remedy_says_at_which_table_it_was_measured():
    fs = _facts(*_variant("a", "change A", 0.01, seat1=0.251), _f("sensitivity.base.seat1", 0.27),
                _f("sensitivity.table", 4, n=30000, unit="players", note="seating: greedy, prudent, expert, racer"))
    text = remedy(fs, "seat1", lambda f: True, lambda f: f"{f.estimate:.3f}")
    assert text.startswith("Smallest tested change that fixes it at the remedy batches' one table "
                           "(4 players, greedy, prudent, expert, racer): change A")
    none = remedy(fs, "seat1", lambda f: False, lambda f: f"{f.estimate:.3f}")
    assert none.startswith("No tested remedy fixes this at the remedy batches' one table (4 players, greedy,")


def test_a_first_player_remedy_is_a_fix_when_its_whole_interval_lies_inside_the_margin():
    """The equivalence test: [+0.2, +0.8] points (narrow enough to exclude 0, e.g. luck-adjusted)
    is inside ±1 point, a fix; [+0.4, +1.1] is not."""
    fs = [_f("balance.seat1.pooled.8d8", 0.262, 0.259, 0.265, n=30_000, p=1e-9)]
    fs += _variant("start_ladder", "seats 3 and 4 start on square 1", -0.011, seat1=0.255)
    fs += _variant("start_last1", "the last seat starts on square 1", -0.005, seat1=0.2575)
    facts = _facts(*fs)
    facts["sensitivity.start_ladder.seat1"] = _f("sensitivity.start_ladder.seat1", 0.255, 0.252, 0.258)
    facts["sensitivity.start_last1.seat1"] = _f("sensitivity.start_last1.seat1", 0.2575, 0.254, 0.261)
    row = _rows(facts)["First-player advantage"]
    assert "Smallest tested change that fixes it" in row.action and "seats 3 and 4 start on square 1" in row.action
    assert "1 of 2 changes tried fix it" in row.action


def test_the_verdicts_length_is_that_of_people_table_by_table():
    """Issue 58 item 5: where the run played the studies' tables of people (``people.<table>
    .minutes``), the verdict's length is read there, not at the bots' player-count batches: a count
    with several tables shows its range, the problem names the worst table in the rungs' words
    (never an id) and is sized from it; a count whose tables are all within the target is fine;
    the bots' figure is not read at all (negative control: without the people's facts, the old
    reading comes back)."""
    fs = [_f("players.4.minutes", 40, 39, 41, unit="minutes"),   # the bots: within 30–45, ignored
          _f("people.casual-4.minutes", 88, 87, 89, unit="minutes"),
          _f("people.regular-4.minutes", 71, 70, 72, unit="minutes"),
          _f("people.expert-4.minutes", 44, 43, 44.5, unit="minutes"),   # within 30–45 alone
          _f("people.rungs-2.minutes", 20, 19, 21, unit="minutes")]
    wrong, fine, _ = verdict(_facts(*fs))
    lengths = [p for p in wrong if p.what.startswith("Games are")]
    assert [p.what.replace("\u00a0", " ") for p in lengths] == [
        "Games are longer than the target at 4 players, at the studies' tables (players of every level): "
        "4 players 44 to 88 minutes (target 30–45)"]
    assert lengths[0].figure.startswith("4 casual players: 88")
    assert lengths[0].size == pytest.approx((87 - 45) / (0.05 * 45))
    assert set(lengths[0].facts) == {"people.casual-4.minutes", "people.regular-4.minutes"}
    assert [p.what for p in fine if p.what.startswith("Games are")] == [
        "Games are within the length target at 2 players, at the studies' tables (players of every level): "
        "2 players 20 minutes (target 15–25)"]
    # the same verdict without the people's tables reads the bots' batches: 4 players is then within
    wrong, fine, _ = verdict(_facts(fs[0]))
    assert not [p for p in wrong if p.what.startswith("Games are")]
    assert [p.what for p in fine if p.what.startswith("Games are")] == [
        "Games are within the length target at 4 players: 4 players 40 minutes (target 30–45)"]
