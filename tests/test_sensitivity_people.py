"""The verdict's length played by people (issue 58 item 5): the sensitivity experiment's
``people`` option plays every table of the lab's default panel under the rulings, and its facts
are each table's own batch (the verdict reading them: tests/test_report_judge.py)."""

from __future__ import annotations

import pytest

from heron_sim.analysis import metrics as M
from heron_sim.rules import Rules
from heron_sim.runner.config import load_experiment
from heron_sim.runner.kinds.common import minutes
from heron_sim.runner.panel import DEFAULT_PANEL
from heron_sim.runner.run import RunData, run_experiments


def _exp(tmp_path, people: int):
    text = (f'name = "s"\nkind = "sensitivity"\nmodes = ["8d8"]\ngames = 40\nseed = 5\nseating = "greedy"\n'
            f"people = {people}\n")
    (tmp_path / "s.toml").write_text(text, encoding="utf-8")
    return load_experiment(tmp_path / "s.toml")


def test_the_option_plays_every_table_of_the_panel_under_the_rulings(tmp_path):
    from heron_sim.runner.kinds.sensitivity import SensitivityKind

    jobs = SensitivityKind().jobs(_exp(tmp_path, 30), lambda n: n)
    people = [j for j in jobs if j.labels.get("part") == "people"]
    assert [j.labels["table"] for j in people] == [sc.name for sc in DEFAULT_PANEL]
    for j, sc in zip(people, DEFAULT_PANEL):
        assert j.n == 30 and j.labels["players"] == sc.players
        assert [list(s) for s in j.seatings] == sc.seatings()
        assert j.rules == Rules.build(mode="8d8", players=sc.players)  # the rulings, at that count
    # off by default: no people's batch
    assert not [j for j in SensitivityKind().jobs(_exp(tmp_path, 0), lambda n: n) if j.labels.get("part") == "people"]


def test_each_tables_facts_are_its_own_batch(tmp_path):
    from heron_sim.runner.kinds import analyse

    exp = _exp(tmp_path, 60)
    run_experiments([exp], tmp_path / "run", games=40)
    (e, data), = RunData(tmp_path / "run").experiments()
    facts = {f.id: f for f in analyse(e, data).facts}
    for sc in DEFAULT_PANEL:
        df = data.frame(f"people_{sc.name}")
        assert set(df["players"]) == {sc.players}
        assert set(",".join(sorted(s.split(","))) for s in df["strategies"]) <= {
            ",".join(sorted(s)) for s in sc.seatings()}
        lt = M.length_table(df)
        got = facts[f"people.{sc.name}.minutes"]
        assert got.estimate == pytest.approx(minutes(lt["mean"], sc.players))
        assert facts[f"people.{sc.name}.length"].estimate == pytest.approx(lt["mean"])
        first = M.seat_table(df).iloc[0]
        assert facts[f"people.{sc.name}.seat1"].estimate == pytest.approx(first["win_rate"])


@pytest.mark.parametrize("bad", ["-5", '"many"', "2.5", "true"])
def test_a_bad_count_of_games_a_table_is_one_error(tmp_path, bad):
    from heron_sim.errors import HeronSimError

    (tmp_path / "s.toml").write_text(f'name = "s"\nkind = "sensitivity"\npeople = {bad}\n', encoding="utf-8")
    with pytest.raises(HeronSimError, match=r"people: .*; allowed: an integer 0\.\.10000000"):
        load_experiment(tmp_path / "s.toml")
