"""The experiment runner: validation, seeding, chunking, the run folder."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from heron_sim.errors import HeronSimError
from heron_sim.rules import Rules
from heron_sim.runner import RunData, load_experiment, run_experiments, seatings
from heron_sim.simulation import simulate

pytestmark = [pytest.mark.exact, pytest.mark.cli]

TINY = """
name = "tiny"
kind = "modes"
seed = 7
games = 30
modes = ["8d8", "10d6"]
players = 4
seating = ["greedy", "random"]
"""


def write(tmp_path, text, name="exp.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("text, fragment", [
    ('kind = "modes"\nbogus = 1', "bogus: unknown key"),
    ('kind = "nope"', "kind: 'nope'"),
    ('kind = "modes"\nmodes = ["9d9"]', "'9d9' is not a mode"),
    ('kind = "modes"\ngames = 0', "games: 0"),
    ('kind = "modes"\ngames = "many"', "games: 'many'"),
    ('kind = "modes"\nfigures = ["pie"]', "figures: 'pie'"),
    ('kind = "modes"\n[rules]\nset = { rolls = 0 }', "rolls"),
    ('kind = "modes"\n[rules]\nfile = "missing.toml"', "rules file not found"),
    ('kind = "compare"', "needs tables [a] and [b]"),
    ('kind = = "x"', "malformed TOML"),
])
def test_bad_experiments_fail_with_one_line(tmp_path, text, fragment):
    with pytest.raises(HeronSimError) as err:
        load_experiment(write(tmp_path, text))
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_missing_file():
    with pytest.raises(HeronSimError, match="not found"):
        load_experiment("no/such/file.toml")


def test_seatings_rotate_every_strategy_through_every_seat():
    s = seatings(["a", "b"], 4)
    assert len(s) == 4 and all(sorted(x) == ["a", "a", "b", "b"] for x in s)
    assert {x[0] for x in s} == {"a", "b"}
    s = seatings(["a", "b", "c", "d", "e"], 4)  # more strategies than seats: none left out
    assert len(s) == 5 and {n for x in s for n in x} == set("abcde")
    for seat in range(4):
        assert sorted(x[seat] for x in s) == list("abcde")
    assert seatings(["greedy"], 4) == [["greedy"] * 4]


def test_run_tiny_experiment(tmp_path):
    exp = load_experiment(write(tmp_path, TINY))
    manifest = run_experiments([exp], tmp_path / "run")
    assert (tmp_path / "run" / "manifest.json").is_file()
    assert [j["key"] for j in manifest["experiments"][0]["jobs"]] == ["games_8d8", "games_10d6"]
    df = pd.read_parquet(tmp_path / "run" / "tiny" / "games_8d8.parquet")
    assert list(df["game"]) == list(range(30)) and (df["seed"] == 7).all()
    # four rotated seatings, each over a contiguous chunk of game indices
    assert df["strategies"].nunique() == 2  # ABAB rotated: ABAB, BABA, ABAB, BABA
    # game i is exactly the game the engine plays from stream (seed, i) with that seating
    row = df.iloc[17]
    seating = row["strategies"].split(",")
    ref = simulate(Rules.build(mode="8d8"), 1, 7, seating, first_game=17)
    assert int(ref["winner"].iloc[0]) == int(row["winner"]) and int(ref["rounds"].iloc[0]) == int(row["rounds"])
    # same seeds in both modes (common random numbers) and reproducible
    again = run_experiments([exp], tmp_path / "run2")
    df2 = pd.read_parquet(tmp_path / "run2" / "tiny" / "games_8d8.parquet")
    pd.testing.assert_frame_equal(df, df2)
    run = RunData(tmp_path / "run")
    (e, data), = run.experiments()
    assert e.name == "tiny" and data.rules("games_10d6").mode == "10d6"
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["strategies_available"]


def test_games_override_scales_turn_jobs(tmp_path):
    from heron_sim.runner.kinds import plan_jobs

    exp = load_experiment(write(tmp_path, 'kind = "pond"\nmodes = ["8d8"]\nturns = 1000000\ngames = 5000\nseating = "greedy"'))
    jobs = {j.key: j for j in plan_jobs(exp, games_override=10)}
    assert jobs["turns_8d8"].n == 500 and jobs["games_8d8"].n == 10


def test_cli_bad_input_exits_2_with_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    res = runner.invoke(app, ["run", str(write(tmp_path, 'kind = "modes"\nmodes = ["9d9"]'))])
    assert res.exit_code == 2
    assert res.output.strip().startswith("error:") and len(res.output.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()  # nothing is created for a bad experiment
    res = runner.invoke(app, ["run", str(tmp_path / "exp.toml"), "--games", "0"])
    assert res.exit_code == 2 and "--games: 0" in res.output
    res = runner.invoke(app, ["report", "--from", str(tmp_path / "nothing")])
    assert res.exit_code == 2 and "not a run folder" in res.output
    res = runner.invoke(app, ["compare", str(tmp_path / "a.toml"), str(tmp_path / "b.toml")])
    assert res.exit_code == 2 and "not found" in res.output


def test_guides_plan_ablates_each_power_alone_on_the_same_games(tmp_path):
    from heron_sim.animals import NAMES
    from heron_sim.runner.kinds import plan_jobs

    exp = load_experiment(write(tmp_path, 'kind = "guides"\nmodes = ["8d8"]\ngames = 300\nablation_games = 300\nseating = "greedy"'))
    jobs = {j.key: j for j in plan_jobs(exp)}
    on = jobs["games_8d8_on"]
    assert not jobs["games_8d8_off"].rules.powers and "games_8d8_ref" not in jobs
    for a, name in enumerate(NAMES):
        j = jobs[f"games_8d8_no_{name}"]
        assert j.labels["disabled"] == name and j.n == on.n and j.seed == on.seed and j.seatings == on.seatings
        assert j.rules.powers and not j.rules.power_enabled(a)
        assert all(j.rules.power_enabled(b) for b in range(len(NAMES)) if b != a)
        assert j.rules.replace(disabled_powers=()) == on.rules  # nothing else differs
    # ablations of another size get a default-rules batch of their own size to pair with
    exp = load_experiment(write(tmp_path, 'kind = "guides"\nmodes = ["8d8"]\ngames = 300\nablation_games = 100\nseating = "greedy"'))
    jobs = {j.key: j for j in plan_jobs(exp)}
    assert jobs["games_8d8_ref"].n == 100 and jobs["games_8d8_ref"].rules == jobs["games_8d8_on"].rules
    assert jobs["games_8d8_no_aigle"].n == 100 and jobs["games_8d8_on"].n == 300
    # a power already disabled by the experiment's rules is not ablated again
    exp = load_experiment(write(tmp_path, 'kind = "guides"\nmodes = ["8d8"]\nseating = "greedy"\n[rules]\nset = { disabled_powers = ["lion"] }'))
    keys = {j.key for j in plan_jobs(exp, games_override=10)}
    assert "games_8d8_no_lion" not in keys and "games_8d8_no_aigle" in keys


def test_guides_plan_measures_each_power_again_at_other_player_counts(tmp_path):
    from heron_sim.animals import NAMES
    from heron_sim.runner.kinds import plan_jobs

    exp = load_experiment(write(tmp_path, 'kind = "guides"\nmodes = ["8d8"]\ngames = 300\nablation_games = 100\n'
                                          'ablation_players = [6, 2, 4]\nseating = "ai"'))
    jobs = {j.key: j for j in plan_jobs(exp)}
    assert not any(k.startswith("games_8d8_p4_") for k in jobs)  # the plan's own count is the main table
    for q in (2, 6):
        ref = jobs[f"games_8d8_p{q}_ref"]
        assert ref.rules.players == q and ref.n == 100 and ref.labels["at_players"] == q
        assert ref.rules.replace(players=4) == jobs["games_8d8_on"].rules and all(len(s) == q for s in ref.seatings)
        for a, name in enumerate(NAMES):
            j = jobs[f"games_8d8_p{q}_no_{name}"]
            assert j.seed == ref.seed and j.seatings == ref.seatings and j.n == ref.n and not j.rules.power_enabled(a)
            assert j.rules.replace(disabled_powers=()) == ref.rules and j.labels["at_players"] == q
    with pytest.raises(Exception, match="ablation_players"):
        load_experiment(write(tmp_path, 'kind = "guides"\nablation_players = [1]', "bad.toml"))


def test_guides_power_worth_at_another_player_count_on_a_tiny_run(tmp_path):
    """The 2-player restricted play is its own table and facts; the plan's 4-player figures are
    the same as in a run without it (its batches are not mixed in)."""
    from heron_sim.analysis import metrics as M
    from heron_sim.runner.kinds import analyse

    body = 'kind = "guides"\nmodes = ["8d8"]\ngames = 80\nseed = 3\nseating = ["greedy", "prudent"]\n'
    g2 = load_experiment(write(tmp_path, 'name = "g2"\n' + body + "ablation_players = [2]\n", "g2.toml"))
    g = load_experiment(write(tmp_path, 'name = "g"\n' + body, "g.toml"))
    run_experiments([g2, g], tmp_path / "run")
    out = {e.name: (analyse(e, d), d) for e, d in RunData(tmp_path / "run").experiments()}
    (s2, d2), (s, _) = out["g2"], out["g"]
    f2, f = {x.id: x for x in s2.facts}, {x.id: x for x in s.facts}
    for k, v in f.items():  # the 4-player figures do not move
        assert f2[k].estimate == pytest.approx(v.estimate, nan_ok=True), k
    ref = d2.frame("games_8d8_p2_ref")
    assert M.seats(ref) == 2
    want = M.power_ablation(ref, {"cerf": d2.frame("games_8d8_p2_no_cerf")}).iloc[0]
    got = f2["guides.power_value_at.8d8.p2.cerf"]
    assert got.estimate == pytest.approx(want["diff"], nan_ok=True) and got.n == want["n"]
    tab = next(t for t in s2.tables if "at every player count measured" in t.caption)
    assert sorted(set(tab.frame.index.get_level_values("players"))) == [2, 4]
    every = f2["guides.power_nil_every_count.8d8.cerf"].estimate
    assert every == float(f2["guides.power_nil.8d8.cerf"].estimate == 1 and f2["guides.power_nil_at.8d8.p2.cerf"].estimate == 1)
    assert any("at 2, 4 players" in x for x in s2.findings) and not any("at 2, 4 players" in x for x in s.findings)


def test_guides_and_pond_analyses_on_a_tiny_run(tmp_path):
    """The per-power table pairs each ablation with the default batch, and the Pond table
    reports the lead-loss rates from pond_lead_losses."""
    from heron_sim.analysis import metrics as M
    from heron_sim.runner.kinds import analyse

    g = load_experiment(write(tmp_path, 'name = "g"\nkind = "guides"\nmodes = ["8d8"]\ngames = 60\nseating = "greedy"', "g.toml"))
    p = load_experiment(write(tmp_path, 'name = "p"\nkind = "pond"\nmodes = ["8d8"]\ngames = 60\nturns = 2000\nseating = "greedy"', "p.toml"))
    run_experiments([g, p], tmp_path / "run")
    secs = {e.name: analyse(e, d) for e, d in RunData(tmp_path / "run").experiments()}
    (e, d), = [x for x in RunData(tmp_path / "run").experiments() if x[0].name == "g"]
    tab = next(t for t in secs["g"].tables if "one power switched off at a time" in t.caption)
    assert list(tab.data["guide"]) == list(M.ANIMALS) and (tab.data["games"] == 60).all()
    assert (tab.data["uses_off"] == 0).all()  # the ablated power is really off
    on = d.frame("games_8d8_on")
    want = M.power_ablation(on, {"aigle": d.frame("games_8d8_no_aigle")}).iloc[0]
    got = tab.data.set_index("guide").loc["aigle"]
    assert got["diff"] == pytest.approx(want["diff"], nan_ok=True) and got["n"] == want["n"]
    assert any("One power at a time" in f for f in secs["g"].findings)
    (e, d), = [x for x in RunData(tmp_path / "run").experiments() if x[0].name == "p"]
    games = next(t for t in secs["p"].tables if "decides the lead" in t.caption).data.iloc[0]
    df = d.frame("games_8d8")
    assert games["lead_ponds"] == df["ponds"].sum() and games["lead_lead_losses"] == df["pond_lead_losses"].sum()
    assert games["lead_per_pond"] == pytest.approx(df["pond_lead_losses"].sum() / df["ponds"].sum())
    assert any("decides the lead" in f for f in secs["p"].findings)
    seats = next(t for t in secs["p"].tables if "Push-back received per player" in t.caption).data
    assert list(seats["back"]) == pytest.approx([df[f"pond_back_{s}"].mean() for s in range(4)])
    wins = next(t for t in secs["p"].tables if "chance of winning" in t.caption).data.set_index("group")
    fin = df[df["winner"] >= 0]
    rolled = sum(((fin[f"pond_rolls_{s}"] > 0) & (fin["winner"] == s)).sum() for s in range(4))
    assert wins.loc["rolled", "win_yes"] * wins.loc["rolled", "n_yes"] == pytest.approx(rolled)


LIGHT = """
name = "light"
kind = "games"
seed = 11
games = 40
mixed_games = 24
players = 4
light_games = ["fire-mountain", "mekong-dragons"]
"""


def test_games_kind_validation(tmp_path):
    with pytest.raises(HeronSimError, match="light_games: 'chess' is not a game"):
        load_experiment(write(tmp_path, 'kind = "games"\nlight_games = ["chess"]'))
    with pytest.raises(HeronSimError, match="only for kind games"):
        load_experiment(write(tmp_path, 'kind = "modes"\nlight_games = ["rampage"]'))
    with pytest.raises(HeronSimError, match="own default rules"):
        load_experiment(write(tmp_path, 'kind = "games"\n[rules]\nset = { rolls = 4 }'))
    exp = load_experiment(write(tmp_path, 'kind = "games"\nplayers = 7'))
    assert exp.light_games == "all" and exp.figures == ("seats", "length", "strategies")


def test_games_kind_plans_runs_and_analyses(tmp_path):
    from heron_sim.analysis import metrics as M
    from heron_sim.games import available, get
    from heron_sim.runner.kinds import analyse, plan_jobs

    exp = load_experiment(write(tmp_path, LIGHT))
    jobs = {j.key: j for j in plan_jobs(exp)}
    from heron_sim.games.fire_mountain import summary as FS
    from heron_sim.games.mekong_dragons import summary as MS
    expect = set()
    for name, mod in (("fire-mountain", FS), ("mekong-dragons", MS)):
        for P in mod.PLAYERS:
            second = get(name).heuristics[1]
            expect |= {f"{name}_{P}p_greedy", f"{name}_{P}p_mixed", f"{name}_{P}p_{second}", f"{name}_{P}p_pair"}
            expect |= {f"{name}_{P}p_reading{i}" for i, over in enumerate(mod.READINGS.values()) if over}
    assert set(jobs) == expect
    assert jobs["fire-mountain_4p_greedy"].seatings == [["greedy"] * 4] and jobs["fire-mountain_4p_greedy"].n == 40
    mixed = jobs["fire-mountain_4p_mixed"]
    assert mixed.n == 24 and mixed.seatings == seatings(["greedy", "random"], 4)
    assert jobs["mekong-dragons_3p_greedy"].labels["unit"] == "rounds"
    assert jobs["fire-mountain_2p_greedy"].labels["unit"] == "player turns"
    reading = jobs["fire-mountain_3p_reading1"]
    assert reading.labels["overrides"] == {"free_order": False} and not reading.rules.free_order
    # the seat findings' panels: the second real player alone, the two alternating round the table
    assert jobs["fire-mountain_4p_hatcher"].seatings == [["hatcher"] * 4]
    assert jobs["fire-mountain_4p_pair"].seatings == [["greedy", "hatcher"] * 2, ["hatcher", "greedy"] * 2]
    assert jobs["fire-mountain_3p_pair"].seatings == [
        ["greedy", "hatcher", "greedy"], ["hatcher", "greedy", "greedy"], ["greedy", "greedy", "hatcher"],
        ["hatcher", "greedy", "hatcher"], ["greedy", "hatcher", "hatcher"], ["hatcher", "hatcher", "greedy"]]
    # every player count each game allows; "all" plans every registered game
    big = load_experiment(write(tmp_path, 'kind = "games"\nplayers = 7', "big.toml"))
    planned = plan_jobs(big, games_override=5)
    for name, g in available().items():
        assert {j.labels["players"] for j in planned if j.labels["game"] == name} == set(
            range(g.min_players, g.max_players + 1))
    assert all(j.n == 5 for j in planned)

    run_experiments([exp], tmp_path / "run")
    df = pd.read_parquet(tmp_path / "run" / "light" / "fire-mountain_4p_mixed.parquet")
    assert list(df["game"]) == list(range(24)) and df["seats"].nunique() == 2
    # game i is the game the simulator plays from stream (seed, i) with that seating
    game = get("fire-mountain")
    row = df.iloc[13]
    ref = game.simulate(game.load_rules(None, {}), games=1, players=4, seed=11,
                        strategies=row["seats"].split(","), first_game=13)
    assert int(ref["winner"].iloc[0]) == int(row["winner"]) and int(ref["length"].iloc[0]) == int(row["length"])

    (e, data), = RunData(tmp_path / "run").experiments()
    secs = analyse(e, data)
    assert [s.key for s in secs] == ["light-fire-mountain", "light-mekong-dragons"]
    fm = secs[0]
    seats_t = next(t for t in fm.tables if t.caption.startswith("Seat win shares")).data
    g = pd.read_parquet(tmp_path / "run" / "light" / "fire-mountain_4p_greedy.parquet")
    fin = g[g["finished"]]
    four = seats_t[seats_t["players"] == 4]
    assert list(four["wins"]) == [int((fin["winner"] == s).sum()) for s in range(4)]   # no shared win here
    assert (seats_t["low"] <= seats_t["win_rate"]).all() and (seats_t["win_rate"] <= seats_t["high"]).all()
    assert sorted(seats_t["players"].unique()) == [2, 3, 4]
    # every seat finding is read over the three panels: the game's, or "depends on the players"
    assert fm.findings and all(any(w in f for w in ("every player tried", "any player tried", "depends on the players"))
                               for f in fm.findings)
    assert "4 players" in fm.findings[0] and any("2 players" in f for f in fm.findings)
    panels = next(t for t in fm.tables if "with each real player" in t.caption).data
    assert set(panels["panel"]) == {"greedy", "hatcher", "greedy+hatcher"}
    readings = next(t for t in fm.tables if t.caption.startswith("The seed's readings")).data
    assert set(readings["variant"]) == set(FS.READINGS) and len(readings) == 3 * len(FS.READINGS)
    strat = next(t for t in fm.tables if t.caption.startswith("Strategy win shares")).data
    tot = strat[(strat["seat"].astype(str) == "all") & (strat["players"] == 4)].set_index("strategy")
    mfin = df[df["finished"]]
    assert tot.loc["greedy", "seat_games"] == 2 * len(mfin)
    assert tot["wins"].sum() == pytest.approx(len(mfin))
    assert any("(rounds" in t.caption for t in secs[1].tables)
    assert {f.name for f in fm.figures} == {"seats", "length", "strategies"}
    assert fm.markdown and fm.markdown[0].endswith(game.summarize(g).strip())
    assert M.light_length_table(g)["finished"] == len(fin)
