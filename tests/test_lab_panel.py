"""Issue 17's lab: panels of tables, the ladder of smallest changes, the powers in play,
objectives that read right, one dead-turn definition, rule sheets, resumable sampler."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab import load_spec, parse_spec, tune
from heron_sim.lab.changes import changes_text, n_changed, rule_changes
from heron_sim.lab.ladder import disables_a_power, grid_values, one_key_entries
from heron_sim.runner.panel import BOTS_PANEL, DEFAULT_PANEL, LADDER
from heron_sim.lab.sheets import LANGS, PHRASES, phrase, rule_sheet, sheet_html
from heron_sim.lab.space import parse_param
from heron_sim.rules import Rules

pytestmark = pytest.mark.exact

BASE = {
    "name": "p", "seed": 3,
    "search": {"trials": 3, "games": 200}, "racing": {"rungs": [200, 300], "keep": 2, "report": 3},
    "param": [{"key": "rolls", "int": [2, 4]}, {"key": "bull_bonus", "int": [1, 3]}],
    "objective": [{"metric": "length", "at_most": 26.0, "goal": 0.0}],
}


def spec_of(**kw):
    return parse_spec({**BASE, **kw}, "tune-p.toml")


# ---------------------------------------------------------------- panels
def test_a_file_without_scenarios_is_a_panel_of_one():
    s = spec_of(players=3, seating="greedy,prudent")
    assert len(s.panel) == 1 and s.panel[0].players == 3 and s.panel[0].strategies == ("greedy", "prudent")
    assert s.players == 3 and len(s.scenario_bases) == 1 and s.scenario_bases[0].players == 3


def test_the_default_panel_seats_people_at_every_player_count():
    """Issue 58 item 1: the default panel seats people only (the ladder's rungs and the bold
    beginner: no bot nobody is), at every count 2 to 7: a table of each of casual, regular and
    expert at 4 players, mixed tables where every player sits in every seat, and every rung
    rotated at 2, 5 and 7."""
    from heron_sim.strategies.human import RUNGS

    assert LADDER[-1] == "expert" and set(LADDER[:-1]) == set(RUNGS)
    s = spec_of(panel="default")
    assert s.panel == DEFAULT_PANEL and s.aggregate == "worst"
    assert [b.players for b in s.scenario_bases] == [sc.players for sc in DEFAULT_PANEL]
    seated = {n for sc in DEFAULT_PANEL for seating in sc.seatings() for n in seating}
    assert seated == set(LADDER) | {"reckless"}
    alone = {sc.strategies for sc in DEFAULT_PANEL if sc.players == 4 and len(set(sc.strategies)) == 1}
    assert alone >= {("casual",), ("regular",), ("expert",)}
    assert {sc.players for sc in DEFAULT_PANEL} == {2, 3, 4, 5, 6, 7}
    rungs = {sc.players: sc for sc in DEFAULT_PANEL if sc.strategies == LADDER}
    assert sorted(rungs) == [2, 5, 7]
    for sc in DEFAULT_PANEL:
        if len(set(sc.strategies)) == 1:
            continue
        # every player sits in every seat, in some seating of the rotation
        for seat in range(sc.players):
            assert {x[seat] for x in sc.seatings()} == set(sc.strategies), (sc.name, seat)
    assert len({sc.name for sc in DEFAULT_PANEL}) == len(DEFAULT_PANEL)


def test_the_bots_panel_is_the_old_default_table_for_table():
    """panel = "bots": greedy (the rulings' exact reference) and the AI mix, the tables of issue 17,
    so a study of that time replays the same games (scenario i: streams (seed + i, game))."""
    s = spec_of(panel="bots")
    assert s.panel == BOTS_PANEL
    assert [(sc.name, sc.players, sc.strategies) for sc in BOTS_PANEL] == [
        ("mix-4", 4, ("greedy", "prudent", "expert", "racer")), ("greedy-4", 4, ("greedy",)),
        ("expert-4", 4, ("expert",)), *((f"mix-{p}", p, ("greedy", "prudent", "expert", "racer")) for p in (2, 3, 5, 6))]
    assert spec_of(panel="bots").fingerprint() != spec_of(panel="default").fingerprint()


def test_the_precision_of_a_study_reads_every_table_of_the_default_panel():
    """--precision plays on until the widest win-rate half-width of *every* table (11, the
    7-player one included, each at its own player count) is that narrow."""
    from heron_sim.animals import NAMES
    from heron_sim.lab.evaluate import max_rate_halfwidth
    from heron_sim.lab.metrics import IX, K, wilson_halfwidth
    from heron_sim.lab.objectives import players_of

    s = spec_of(panel="default")
    Ps = players_of(s)
    assert Ps == [sc.players for sc in DEFAULT_PANEL] == [4, 4, 4, 4, 4, 4, 3, 6, 2, 5, 7]
    S = np.zeros((len(Ps), K), dtype=np.int64)
    for i, P in enumerate(Ps):
        n = 10_000 if i < len(Ps) - 1 else 1_000  # the last table (7 players) played fewer games
        S[i, IX["games"]] = n
        for seat in range(P):
            S[i, IX[f"seat_win_{seat}"]] = n // P
        for g in NAMES:
            S[i, IX[f"dealt_{g}"]] = n * P // 7
            S[i, IX[f"won_{g}"]] = n // 7
    widest = max_rate_halfwidth(S, Ps)
    assert widest == max_rate_halfwidth(S[-1], Ps[-1]) > max_rate_halfwidth(S[:-1], Ps[:-1])
    assert widest == pytest.approx(wilson_halfwidth(1_000 // 7, 1_000))


def test_default_panel_and_scenarios():
    s = spec_of(scenario=[{"players": 2, "seating": ["expert", "racer"]}, {"players": 5, "mode": "7d8"}],
                aggregate="mean")
    assert [sc.name for sc in s.panel] == ["mix-2", "greedy-5-7d8"] and s.aggregate == "mean"
    assert s.scenario_bases[1].mode == "7d8" and s.scenario_bases[1].players == 5
    # A candidate is the rules of every table, each with the table's players and mode.
    cand = s.rules_for({"rolls": 4})
    assert [(r.players, r.mode, r.rolls) for r in cand] == [(2, "8d8", 4), (5, "7d8", 4)]


@pytest.mark.parametrize("extra,message", [
    ({"panel": "big"}, "panel: 'big'; allowed"),
    ({"panel": "default", "scenario": [{"players": 2}]}, "not both"),
    ({"panel": "default", "players": 4}, "default panel sets its own tables"),
    ({"panel": "bots", "seating": "greedy"}, "bots panel sets its own tables"),
    ({"panel": 3}, "panel: 3; allowed: \"default\", \"ladder\", \"bots\""),
    ({"scenario": [{"players": 9}]}, r"scenario\[0\].players: 9"),
    ({"scenario": [{"players": 3, "seating": "nobody"}]}, r"scenario\[0\].seating"),
    ({"scenario": [{"players": 3, "mode": "9d9"}]}, r"scenario\[0\].mode"),
    ({"scenario": [{"players": 3}, {"players": 3}]}, "used twice"),
    ({"scenario": [{"players": 3, "colour": 1}]}, "unknown field"),
    ({"aggregate": "median"}, "aggregate: 'median'; allowed: worst, mean"),
    ({"allow_inert_powers": "yes"}, "allow_inert_powers"),
    ({"ladder": {"max_keys": 9}}, "ladder.max_keys"),
    ({"objective": [{"metric": "length", "at_most": 3, "target": 2}]}, "one of target, at_most, at_least"),
])
def test_bad_panels_give_one_line_errors(extra, message):
    with pytest.raises(HeronSimError, match=message) as err:
        spec_of(**extra)
    assert "\n" not in str(err.value)


# ---------------------------------------------------------------- changes and the ladder
def test_changes_count_rules_that_differ_not_keys_listed():
    base = Rules.build()
    v = Rules.build(overrides={"rolls": 4, "bull_bonus": 2, "combinations.advance": [0, 0, 0, 2, 2, 5, 7, 9, 10]})
    assert [c.key for c in rule_changes(base, v)] == ["rolls", "combinations.advance[3]"]
    assert n_changed(base, v) == 2 and changes_text(base, v) == "rolls = 4, combinations.advance[3] = 2"
    assert n_changed(base, base) == 0 and changes_text(base, base) == "none"
    assert changes_text(base, Rules.build(overrides={"powers": False})) == "powers = false"   # TOML's words
    sw = Rules.build(overrides={"board.squares": {**{str(k): e for k, e in base.to_table()["board"]["squares"].items()},
                                                  "60": "neutral"}})
    assert [c.key for c in rule_changes(base, sw)] == ["board.square.60"]
    assert [c.key for c in rule_changes(base, Rules.build(overrides={"dice.count": 7}))] == ["dice.count"]


def test_finish_can_be_a_parameter():
    from heron_sim.lab.space import build_rules

    p = parse_param({"key": "finish", "int": [54, 63]}, "p")
    r = build_rules(Rules.build(), [p], {"finish": 54})
    assert r == Rules.build(overrides={"finish": 54})        # as --set finish=54
    assert changes_text(Rules.build(), r) == "finish = 54"    # its squares past 54 go with it
    spec_of(param=[{"key": "finish", "int": [54, 63]}])       # both ends validate


def test_grid_values_cover_each_value_or_a_documented_grid():
    assert grid_values(parse_param({"key": "rolls", "int": [1, 5]}, "p"), 9) == [1, 2, 3, 4, 5]
    big = grid_values(parse_param({"key": "max_rounds", "int": [100, 900]}, "p"), 9)
    assert big == [100, 200, 300, 400, 500, 600, 700, 800, 900]
    assert len(grid_values(parse_param({"key": "x", "float": [0.1, 10.0], "log": True}, "p"), 5)) == 5
    assert grid_values(parse_param({"key": "d", "choices": [[], ["lion"]], "labels": ["no", "lion"]}, "p"), 9) == ["no", "lion"]


def test_one_key_entries_skip_the_base_value():
    s = spec_of()
    vals = [e.values for e in one_key_entries(s)]
    assert vals == [{"rolls": 2}, {"rolls": 4}, {"bull_bonus": 1}, {"bull_bonus": 3}]


def test_switching_a_power_off_is_seen():
    base = Rules.build()
    assert disables_a_power(base, Rules.build(overrides={"bull_bonus": 0})) == ["taureau"]
    assert disables_a_power(base, Rules.build(overrides={"disabled_powers": ["lion"]})) == ["lion"]
    assert len(disables_a_power(base, Rules.build(overrides={"powers": False}))) == 7
    assert disables_a_power(base, Rules.build(overrides={"bull_bonus": 1})) == []


# ---------------------------------------------------------------- objectives
def test_one_sided_objectives_and_signed_distances():
    from heron_sim.lab.metrics import IX, K
    from heron_sim.lab.objectives import scenario_loss, signed_distance

    s = spec_of(objective=[{"metric": "dead_turn_rate", "at_most": 0.39}, {"metric": "dead_turn_rate", "at_least": 0.39},
                           {"metric": "dead_turn_rate", "target": 0.39}])
    S = np.zeros(K)
    S[IX["games"]], S[IX["played"]], S[IX["dead"]] = 10, 1000, 428
    at_most, at_least, target = s.objectives
    assert signed_distance(at_most, S, S, None, 4) == pytest.approx(0.038)
    assert scenario_loss(at_most, S, S, None, 4) == pytest.approx(0.038)
    assert scenario_loss(at_least, S, S, None, 4) == 0.0               # above the floor: no loss
    assert scenario_loss(target, S, S, None, 4) == pytest.approx(0.038)
    S[IX["dead"]] = 350
    assert scenario_loss(at_most, S, S, None, 4) == 0.0                # fewer dead turns is never punished
    assert signed_distance(target, S, S, None, 4) == pytest.approx(-0.04)
    # "no more than" is a goal of its own: no excess allowed unless the file gives one
    assert at_most.goal == 0.0 and at_least.goal == 0.0 and target.goal is None
    allowed = spec_of(objective=[{"metric": "dead_turn_rate", "at_most": 0.39, "goal": 0.01}]).objectives[0]
    assert allowed.goal == 0.01


def test_a_pond_is_not_a_dead_turn_for_the_lab_nor_the_report():
    from heron_sim.analysis.deadturns import is_dead
    from heron_sim.engine import layout as L

    out = np.array([L.OUT_POND, L.OUT_SCORED, L.OUT_SCORED, L.OUT_ANXIETY, L.OUT_RESCUED])
    moved = np.array([0, 0, 2, 0, 1])
    assert is_dead(out, moved).tolist() == [False, True, False, True, False]
    src = Path("heron_sim/runner/kinds/pond.py").read_text(encoding="utf-8")
    assert "is_dead(" in src  # the report's pond section counts with the same function


# ---------------------------------------------------------------- rule sheets
def _rules_keys() -> set[str]:
    from heron_sim.rules import rules as R

    table = tomllib.loads((Path(R.__file__).parent / "data" / "defaults.toml").read_text(encoding="utf-8"))
    keys = {k for k, v in table.items() if not isinstance(v, dict)}
    keys |= {k for k, v in Rules.build().to_table().items() if not isinstance(v, dict)}
    keys |= {"combinations.advance", "combinations.effect", "dice.faces", "dice.count", "dice.file",
             "board.squares", "board.file"}
    for sub in ("combinations", "dice", "board"):
        keys |= {f"{sub}.{k}" for k in table.get(sub, {})}
    return keys


def test_every_rules_key_has_a_phrase_in_both_languages():
    missing = sorted(k for k in _rules_keys() if k not in PHRASES)
    assert not missing, f"no phrase for {missing}"
    samples = {"combinations.advance": 2, "combinations.effect": "swap", "board.squares": "lion",
               "dice.faces": [["loup", "heron"]], "disabled_powers": ["lion"], "start_squares": [0, 0, 1, 1],
               "first_turn_extra_rolls": [0, 1], "heron_patience_doubling": True}
    for k in PHRASES:
        for lang in LANGS:
            title, text = phrase(k + ("[3]" if k.startswith("combinations") else ""), samples.get(k, 3), lang)
            assert title and text and "_" not in text, (k, lang, text)


def test_a_sheet_states_each_changed_rule_in_words():
    base = Rules.build()
    v = Rules.build(overrides={"bull_bonus": 1, "combinations.advance": [0, 0, 0, 2, 2, 5, 7, 9, 10]})
    fr = rule_sheet(base, v, None, "fr")
    en = rule_sheet(base, v, None, "en")
    assert "Taureau : +2 cases après une combinaison réussie." in fr and "Taureau : +1 case après" in fr
    assert "3 identiques : +1 case." in fr and "3 identiques : +2 cases." in fr
    assert "Bull: +1 square after a successful combination." in en and "3 of a kind: +2 squares." in en
    assert "bull_bonus" not in fr + en and "Règles modifiées : 2." in fr
    page = sheet_html(fr, "fr")
    assert page.startswith("<!doctype html>") and "<table>" in page and "<td>Taureau : +1 case" in page
    with pytest.raises(HeronSimError, match="lang"):
        rule_sheet(base, v, None, "de")
    with pytest.raises(HeronSimError, match="no phrase for rules key 'nope'"):
        phrase("nope", 1, "fr")


# ---------------------------------------------------------------- a whole small study, end to end
STUDY = """
name = "e2e"
seed = 11
[[scenario]]
players = 4
seating = "greedy"
[[scenario]]
players = 3
seating = ["greedy", "prudent"]
[search]
trials = 3
games = 150
[racing]
rungs = [200, 300]
keep = 2
report = 3
[[param]]
key = "rolls"
int = [2, 5]
[[param]]
key = "bull_bonus"
int = [0, 3]
[[objective]]
metric = "length"
at_most = 28.0
goal = 0.0
"""


def test_panel_ladder_and_sheets_end_to_end(tmp_path):
    p = tmp_path / "tune-e2e.toml"
    p.write_text(STUDY, encoding="utf-8")
    out = tmp_path / "out"
    res = tune(p, run_dir=tmp_path / "run", out=out, progress=False)
    fin = res["finalists"]
    # The rulings miss the goal (the first question); one more roll alone shortens the game below
    # 28 rounds at both tables: named first, and ranked first.
    assert res["finding"].startswith("The rulings do not meet every goal (not with 95 % confidence on length")
    assert res["base"]["meets"] is False
    assert "Smallest change that meets every goal with 95 % confidence" in res["finding"]
    assert fin[0]["n_changed"] == 1 and fin[0]["rules"].rolls == 4
    assert "(1 rule: rolls = 4)" in res["finding"]
    assert res["ladder"][0]["k"] == 1 and res["ladder"][0]["n_changed"] == 1
    # Each finalist: each table's figure with its interval; bull_bonus = 0 (the Taureau inert) never holds.
    for e in fin:
        assert [x["scenario"] for x in e["objectives"][0]["scenarios"]] == ["greedy-4", "mix-3"]
        assert e["n_changed"] == len(rule_changes(Rules.build(), e["rules"]))
        if e["rules"].bull_bonus == 0:
            assert not e["feasible"]
    # No rule set was played twice: ladder entries and counted trials have distinct digests.
    import optuna
    from heron_sim.lab.study import journal_storage

    st = optuna.load_study(study_name="tune-e2e",
                           storage=journal_storage(str(tmp_path / "run" / "study.journal")))
    counted = [t for t in st.trials if t.state.name == "COMPLETE" and "duplicate_of" not in t.user_attrs]
    assert len(counted) == 3
    digests = [t.user_attrs["rules"] for t in counted]
    assert len(set(digests)) == 3
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert [s["name"] for s in summary["panel"]] == ["greedy-4", "mix-3"] and summary["ladder"]
    assert summary["ladder_played"] == 3 + 3 + 1  # rolls 2/4/5, bull 0/1/3; the best pair
    best = fin[0]["id"]
    fr = (out / f"sheet-{best}.fr.md").read_text(encoding="utf-8")
    assert "| Lancers par tour | Chaque joueur lance jusqu'à 3 fois par tour." in fr or "Taureau" in fr
    assert "4 robots gourmands" in fr and "3 robots mêlés" in fr and " min" in fr
    assert "greedy-4" not in fr and "mix-3" not in fr  # a table in words in French, never its id
    assert (out / f"sheet-{best}.en.md").is_file() and (out / f"sheet-{best}.html").is_file()
    # The booklet's text with the change in place: one more roll, in the booklet's words.
    book = (out / f"booklet-{best}.fr.md").read_text(encoding="utf-8")
    assert "**Chaque joueur lance ses dés jusqu'à quatre fois par tour.**" in book
    assert (out / f"booklet-{best}.en.md").is_file() and "<li>" not in (out / f"booklet-{best}.html").read_text()
    md = (out / "front.md").read_text(encoding="utf-8")
    assert "## The ladder: the smallest change first" in md and "## Every table" in md and "rules changed" in md


@pytest.mark.parametrize("sampler", ["tpe", "nsga2", "random"])
def test_a_resumed_study_asks_the_trials_of_an_uninterrupted_one(tmp_path, sampler):
    # Every sampler the lab offers (heron_sim.lab.spec.SAMPLERS); stopped past TPE's 10 random
    # start-up trials and inside NSGA-II's second generation (population 4 below).
    from heron_sim.lab.spec import SAMPLERS

    assert set(SAMPLERS) == {"tpe", "nsga2", "random"}
    text = STUDY.replace("trials = 3", "trials = 13").replace(
        "[search]", f"[ladder]\nmax_keys = 0\n[search]\nsampler = \"{sampler}\"\npopulation = 4")
    text = text.replace('key = "bull_bonus"\nint = [0, 3]', 'key = "bull_bonus"\nint = [0, 9]').replace("games = 150", "games = 40").replace("rungs = [200, 300]", "rungs = [40]")
    p = tmp_path / "tune-e2e.toml"
    p.write_text(text, encoding="utf-8")

    def params(run):
        import optuna
        from heron_sim.lab.study import journal_storage

        st = optuna.load_study(study_name="tune-e2e", storage=journal_storage(str(run / "study.journal")))
        return [t.params for t in st.trials if t.state.name == "COMPLETE" and "duplicate_of" not in t.user_attrs]

    a = tmp_path / "a"
    tune(p, run_dir=a, out=tmp_path / "oa", progress=False)
    b = tmp_path / "b"
    tune(p, run_dir=b, out=tmp_path / "ob", trials=11, progress=False)  # past TPE's 10 random trials
    assert not (b / "sampler.pkl").exists()                                 # nothing of the sampler pickled
    tune(p, run_dir=b, out=tmp_path / "ob", progress=False)
    assert params(a) == params(b) and len(params(a)) == 13
    assert len({repr(sorted(x.items())) for x in params(a)}) == 13         # the sampler did draw, distinct sets
    names = lambda o: sorted(x.name for x in (o / "variants").glob("*.toml"))  # noqa: E731
    assert names(tmp_path / "oa") == names(tmp_path / "ob")


@pytest.mark.slow
def test_a_study_on_a_cluster_gives_the_local_front(tmp_path):
    p = tmp_path / "tune-e2e.toml"
    p.write_text(STUDY.replace("trials = 3", "trials = 5"), encoding="utf-8")
    tune(p, run_dir=tmp_path / "a", out=tmp_path / "oa", progress=False)
    tune(p, run_dir=tmp_path / "b", out=tmp_path / "ob", progress=False, scheduler="local-cluster:2")
    assert (tmp_path / "oa" / "front.csv").read_text() == (tmp_path / "ob" / "front.csv").read_text()
    names = lambda o: sorted(x.name for x in (o / "variants").glob("*.toml"))  # noqa: E731
    assert names(tmp_path / "oa") == names(tmp_path / "ob")


def test_a_distance_reads_with_its_sign_beside_value_and_target():
    from heron_sim.lab.objectives import describe_distance, mode_words
    from heron_sim.lab.spec import Objective

    o = Objective("dead_turn_rate", "at_most", "reference")
    assert (describe_distance(o, 0.428, 0.392, 0.036, mode_words("8d8"))
            == "dead-turn rate 42.80 % against 39.20 % for 8 D8: +3.6 points")
    rel = Objective("length", "target", "reference", relative=True)
    assert describe_distance(rel, 25.0, 28.0, 25 / 28 - 1, "8 D8").endswith("for 8 D8: -10.7 %")


def test_a_power_the_base_uses_but_a_variant_does_not_is_inert():
    from heron_sim.lab.metrics import IX, K
    from heron_sim.lab.objectives import inert_power_value, inert_powers

    s = spec_of(scenario=[{"players": 4}, {"players": 2}])
    base = np.zeros((2, K))
    base[:, IX["dealt_serpent"]] = 100
    base[:, IX["dealt_loup"]] = 100
    base[:, IX["power_serpent"]] = 140                  # 1.4 uses a game dealt at both tables
    var = base.copy()
    var[1, IX["power_serpent"]] = 5                      # at the 2-player table: 0.05, under a tenth
    assert inert_powers(s, var, base) == ["serpent"] and inert_power_value(s, var, base) == 1.0
    var[1, IX["power_serpent"]] = 20                     # 0.2: still in play
    assert inert_powers(s, var, base) == []              # the Loup, never used by the base, is not checked


def test_a_tpe_search_goes_on_from_the_ladder(tmp_path):
    import optuna
    from heron_sim.lab.study import journal_storage

    p = tmp_path / "tune-e2e.toml"
    p.write_text(STUDY.replace("[search]", "[search]\nsampler = \"tpe\"").replace("games = 150", "games = 60")
                 .replace("rungs = [200, 300]", "rungs = [60]"), encoding="utf-8")
    res = tune(p, run_dir=tmp_path / "run", out=tmp_path / "out", progress=False)
    st = optuna.load_study(study_name="tune-e2e",
                           storage=journal_storage(str(tmp_path / "run" / "study.journal")))
    told = [t for t in st.trials if "ladder" in t.user_attrs]
    counted = [t for t in st.trials if t.state.name == "COMPLETE" and "ladder" not in t.user_attrs
               and "duplicate_of" not in t.user_attrs]
    assert len(told) == res["ladder_played"] == 7 and len(counted) == 3
    # The ladder's entries sit in the study at the base's values but for their own key(s) ...
    one = [t for t in told if t.user_attrs["n_changed"] == 1]
    assert all(sum(t.params[k] != {"rolls": 3, "bull_bonus": 2}[k] for k in t.params) == 1 for t in one)
    # ... and the search never plays one of their rule sets again.
    assert not {t.user_attrs["rules"] for t in counted} & {t.user_attrs["rules"] for t in told}
    tune(p, run_dir=tmp_path / "run", out=tmp_path / "out", progress=False)   # resumed: not told twice
    st = optuna.load_study(study_name="tune-e2e",
                           storage=journal_storage(str(tmp_path / "run" / "study.journal")))
    assert sum("ladder" in t.user_attrs for t in st.trials) == 7


def test_a_sheet_takes_the_explorers_paired_figures_as_evidence():
    base, v = Rules.build(), Rules.build(overrides={"rolls": 4})
    eff = [{"metric": "length", "base": 28.0, "variant": 24.5, "diff": -3.5, "low": -3.9, "high": -3.1},
           {"metric": "dead_turn_rate", "base": 0.37, "variant": 0.36, "diff": -0.01, "low": -0.02, "high": 0.0},
           {"metric": "power_serpent", "base": 1.4, "variant": 1.3, "diff": -0.1, "low": -0.2, "high": 0.0},
           *({"metric": f"seat_{s}_win_rate", "base": 0.25, "variant": 0.25, "diff": 0.0, "low": 0.0, "high": 0.0}
             for s in range(4))]
    en = rule_sheet(base, v, {"games": 2000, "effects": eff, "seatings": [["greedy"] * 4]}, "en")
    assert "2,000 games a table" in en
    assert "28.0 → 24.5 rounds (-3.5 [-3.9, -3.1]); ≈ 75 → 65 min" in en     # 4 players at 40 s a turn
    assert "37.0 % → 36.0 %" in en and "1.40 → 1.30" in en and "| n/a |" in en  # no Pond figure given
    fr = rule_sheet(base, v, {"games": 2000, "effects": eff, "seatings": [["greedy"] * 4]}, "fr")
    # the French sheet writes its numbers the French way (decimal comma, « ; » in an interval)
    assert "28,0 → 24,5 tours de table (−3,5 [−3,9 ; −3,1])" in fr and "37,0 % → 36,0 %" in fr
    assert "2 000" in fr and "28.0" not in fr and "1,40 → 1,30" in fr


@pytest.mark.parametrize("value", ["5", "400,x", ""])
def test_tune_rungs_option_is_checked(tmp_path, value):
    from typer.testing import CliRunner

    from heron_sim.cli import app

    p = tmp_path / "tune-e2e.toml"
    p.write_text(STUDY, encoding="utf-8")
    res = CliRunner().invoke(app, ["tune", str(p), "--rungs", value, "--run-dir", str(tmp_path / "r"),
                                   "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "error: --rungs:" in res.output and not (tmp_path / "o").exists()


def test_tune_rungs_replace_the_files(tmp_path):
    p = tmp_path / "tune-e2e.toml"
    p.write_text(STUDY.replace("[ladder]", "").replace("[search]", "[ladder]\nmax_keys = 1\n[search]"), encoding="utf-8")
    res = tune(p, run_dir=tmp_path / "r", out=tmp_path / "o", progress=False, rungs=(60,))
    assert res["last_games"] == 60 and all(len(e["rungs"]) == 1 for e in res["finalists"])


def test_a_french_sheet_says_rounds_in_french():
    """A length objective's figures carry the unit in the sheet's language (the French sheets said
    "rounds" before)."""
    base = Rules()
    v = base.replace(bull_bonus=3)
    ev = {"games": 1000, "objectives": [{
        "metric": "length", "objective": "length: relative distance to base", "goal": None, "goal_met_95": None,
        "scenarios": [{"scenario": "t", "value": 27.5, "low": 27.2, "high": 27.8, "base": 28.1, "target": 28.1,
                       "distance": -0.021}]}]}
    fr = rule_sheet(base, v, ev, "fr")
    en = rule_sheet(base, v, ev, "en")
    assert "27,500 [27,200 ; 27,800] tours de table" in fr and "rounds" not in fr
    assert "27.500 [27.200, 27.800] rounds" in en
