"""Experiment kinds as small plug-ins over a base that owns the bookkeeping (issue 19, item 4;
emcee's moves): a kind is a subclass of heron_sim.runner.kinds.base.ExperimentKind that says its
name, options, figures, jobs and how it fills its section; the base registers it, applies the
--games override, checks the planned jobs, builds the section and its notes, and refuses a figure
the kind did not declare. A toy kind defined here runs through the same path as the shipped ones."""

from typing import Literal

import numpy as np
import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from heron_sim.errors import HeronSimError
from heron_sim.runner import RunData, load_experiment, run_experiments, seatings
from heron_sim.runner.config import experiment_schema
from heron_sim.runner.jobs import Job
from heron_sim.runner.kinds import KIND_MODELS, KIND_MODULES, analyse, plan_jobs, registry
from heron_sim.runner.kinds.base import ExperimentKind, KindError, Sizes, unregister
from heron_sim.runner.options import HeronExperiment, Turns, figures_of
from heron_sim.sections import Figure, Table, plot

pytestmark = [pytest.mark.exact, pytest.mark.cli]

SHIPPED = {"anxiety", "compare", "games", "guides", "modes", "pond", "sensitivity", "strategies"}
runner = CliRunner()


class ToyExperiment(HeronExperiment):
    """The options of the toy kind: a batch of greedy games and one of single turns."""

    kind: Literal["toy"] = "toy"
    figures: figures_of(("rounds",)) = ("rounds",)
    turns: Turns = 200


def _define_toy():
    class Toy(ExperimentKind):
        """Greedy games: their mean length."""

        name = "toy"
        options = ToyExperiment
        figures = ("rounds",)
        intro = "A toy kind."

        def jobs(self, exp, g):
            P = exp.players
            r = exp.rules.build(exp.modes[0], P)
            return [Job("games", "games", r, g(exp.games), exp.seed, seatings(["greedy"], P), labels={"mode": exp.modes[0]}),
                    Job("turns", "turns", r, g.turns(exp.turns), exp.seed, strategy="greedy", guide="loup",
                        labels={"mode": exp.modes[0]})]

        def fill(self, exp, data, sec):
            df = data.frame("games")
            rounds = df.loc[df["finished"].astype(bool), "rounds"].astype(float)
            sec.fact("toy.rounds", "mean rounds", rounds.mean(), n=len(rounds), unit="rounds")
            sec.tables.append(Table("Toy", rounds.describe().to_frame("rounds")))
            sec.findings.append(f"{len(df)} greedy games last {rounds.mean():.2f} rounds.")
            if self.want(exp, "rounds"):
                sec.figures.append(Figure("rounds", "Rounds", plot("hazard", rounds.to_frame())))

    return Toy


@pytest.fixture
def toy():
    cls = _define_toy()
    yield cls
    unregister("toy")


def _write(tmp_path, body, name="toy.toml"):
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    return p


def test_a_toy_kind_registers_itself_and_joins_the_options_union(toy):
    assert isinstance(registry()["toy"], toy)
    assert KIND_MODELS["toy"] is ToyExperiment and KIND_MODULES["toy"].__name__ == __name__
    from heron_sim.runner import FIGURES, KINDS

    assert "toy" in KINDS and FIGURES["toy"] == ("rounds",)
    assert "toy" in experiment_schema()["discriminator"]["mapping"]
    unregister("toy")
    assert "toy" not in registry() and "toy" not in KIND_MODELS
    assert "toy" not in experiment_schema()["discriminator"]["mapping"]


def test_a_toy_kind_loads_plans_runs_and_analyses(toy, tmp_path):
    exp = load_experiment(_write(tmp_path, 'kind = "toy"\nname = "t"\ngames = 24\nplayers = 2\nseed = 5\nturns = 300\n'))
    assert type(exp) is ToyExperiment and (exp.games, exp.players, exp.turns, exp.figures) == (24, 2, 300, ("rounds",))
    jobs = {j.key: j for j in plan_jobs(exp)}
    assert (jobs["games"].n, jobs["turns"].n) == (24, 300)
    jobs = {j.key: j for j in plan_jobs(exp, games_override=10)}
    assert (jobs["games"].n, jobs["turns"].n) == (10, 500)  # the base's override: 50 single turns per game

    run_experiments([exp], tmp_path / "run")
    (e, data), = RunData(tmp_path / "run").experiments()
    assert type(e) is ToyExperiment
    sec = analyse(e, data)
    df = data.frame("games")
    assert len(df) == 24 and len(data.frame("turns")) == 300
    want = float(np.mean(df["rounds"].to_numpy(float)[df["finished"].to_numpy(bool)]))
    (fact,) = sec.facts
    assert fact.id == "toy.rounds" and fact.estimate == pytest.approx(want)
    assert (sec.key, sec.title, sec.intro) == ("t", "t", "A toy kind.")  # no description: the kind's intro
    assert [f.name for f in sec.figures] == ["rounds"] and sec.tables[0].caption == "Toy"
    assert sec.notes[-1].startswith("Sample sizes: 24 games per job; 300 turns per job; seed 5; 2 jobs;")

    # the file's own description and figures: the base keeps the intro, the kind draws nothing
    exp2 = load_experiment(_write(tmp_path, 'kind = "toy"\nname = "t"\ngames = 24\nplayers = 2\nseed = 5\nturns = 300\n'
                                            'figures = []\ndescription = "Mine."\n', "t2.toml"))
    sec2 = analyse(exp2, data)
    assert sec2.intro == "Mine." and sec2.figures == [] and sec2.facts[0].estimate == fact.estimate


@pytest.mark.parametrize("line,fragment", [
    ("games = 2.5", "games: 2.5; allowed: an integer 1..10000000"),
    ("ablation_games = 3", "unknown key for kind toy (only for kind guides)"),
    ('figures = ["length"]', "figures: 'length'; allowed for kind toy: rounds"),
])
def test_a_bad_option_of_the_toy_kind_is_one_line(toy, tmp_path, line, fragment):
    path = _write(tmp_path, f'kind = "toy"\n{line}\n')
    res = runner.invoke(app, ["run", str(path), "--games", "5", "--run-dir", str(tmp_path / "run")])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: ") and fragment in lines[0], lines
    assert not (tmp_path / "run").exists()


def test_a_kind_name_declared_twice_is_refused():
    shipped = registry()["pond"]
    with pytest.raises(KindError, match=r"experiment kind 'pond' is declared twice: heron_sim.runner.kinds.pond.PondKind "
                                        r"and .*Pond2; a kind name must be unique"):
        class Pond2(ExperimentKind):
            name = "pond"
            options = KIND_MODELS["pond"]
            figures = shipped.figures

            def jobs(self, exp, g):
                return []

            def fill(self, exp, data, sec):
                pass
    assert registry()["pond"] is shipped


class NoDefault(HeronExperiment):
    kind: Literal["toy2"]


@pytest.mark.parametrize("model", [ToyExperiment, NoDefault], ids=["other literal", "no default"])
def test_the_options_literal_must_be_the_kinds_name(model):
    with pytest.raises(KindError, match=rf"kind toy2: its options model {model.__name__} must declare kind: Literal\['toy2'\] = 'toy2'"):
        class Toy2(ExperimentKind):
            name = "toy2"
            options = model
            figures = ("rounds",)

            def jobs(self, exp, g):
                return []

            def fill(self, exp, data, sec):
                pass
    assert "toy2" not in registry()


def test_a_kind_must_declare_its_options_figures_and_one_way_to_analyse():
    class NoFill(ToyExperiment):
        kind: Literal["nofill"] = "nofill"

    with pytest.raises(KindError, match="figures .* are not its options' figures"):
        class Figs(ExperimentKind):
            name = "nofill"
            options = NoFill
            figures = ("rounds", "other")

            def jobs(self, exp, g):
                return []

            def fill(self, exp, data, sec):
                pass
    with pytest.raises(KindError, match="exactly one of fill"):
        class Neither(ExperimentKind):
            name = "nofill"
            options = NoFill
            figures = ("rounds",)

            def jobs(self, exp, g):
                return []
    assert "nofill" not in registry()

    class Base(ExperimentKind):  # no name of its own: a base for kinds, not a kind
        figures = ("rounds",)

    class MoreModes(type(registry()["modes"])):  # a subclass of a kind that names no kind of its own
        pass
    assert all(type(k) not in (Base, MoreModes) for k in registry().values()) and set(registry()) == SHIPPED


class DupExperiment(ToyExperiment):
    kind: Literal["toydup"] = "toydup"


def test_a_duplicate_job_key_is_an_error_naming_it(toy, tmp_path):
    class Dup(ExperimentKind):
        name = "toydup"
        options = DupExperiment
        figures = ("rounds",)

        def jobs(self, exp, g):
            return toy().jobs(exp, g) + [toy().jobs(exp, g)[1]]  # "turns" planned twice

        def fill(self, exp, data, sec):
            pass
    try:
        path = _write(tmp_path, 'kind = "toydup"\nplayers = 2\n', "dup.toml")
        exp = load_experiment(path)
        with pytest.raises(HeronSimError, match=rf"^{path}: kind toydup planned two jobs named 'turns'; "):
            plan_jobs(exp)
        res = runner.invoke(app, ["run", str(path), "--games", "5", "--run-dir", str(tmp_path / "run")])
        assert res.exit_code == 2 and res.output.strip().splitlines() == [
            f"error: {path}: kind toydup planned two jobs named 'turns'; each job needs its own key "
            "(is a name repeated in the file?)"], res.output
        assert [j.key for j in plan_jobs(load_experiment(_write(tmp_path, 'kind = "toy"\nplayers = 2\n')))] == ["games", "turns"]
    finally:
        unregister("toydup")


def test_an_undeclared_figure_name_is_an_error_not_a_figure_silently_missing(toy, tmp_path):
    modes = registry()["modes"]
    exp = load_experiment(_write(tmp_path, 'kind = "modes"\nfigures = ["seats"]\n', "m.toml"))
    assert modes.want(exp, "seats") and not modes.want(exp, "length")
    with pytest.raises(KindError, match=r"kind modes: figure 'pushback' is not declared in its figures \(length, combos, seats, pace\)"):
        modes.want(exp, "pushback")
    toy_exp = load_experiment(_write(tmp_path, 'kind = "toy"\n'))
    with pytest.raises(KindError, match="kind toy: figure 'round' is not declared"):
        registry()["toy"].want(toy_exp, "round")  # a typo in a kind
    assert registry()["toy"].want(toy_exp, "rounds")


def test_the_registry_lists_every_shipped_kind():
    reg = registry()
    assert set(reg) == SHIPPED and list(reg) == sorted(reg)
    for name, kind in reg.items():
        assert isinstance(kind, ExperimentKind) and kind.name == name
        assert type(kind).__module__ == f"heron_sim.runner.kinds.{name}" == KIND_MODULES[name].__name__
        assert KIND_MODELS[name] is kind.options and kind.options.model_fields["kind"].default == name
        assert tuple(kind.options.model_fields["figures"].default) == kind.figures
        assert kind.intro or kind.own_sections  # a file without a description still gets an introduction


def test_sizes_apply_the_games_override():
    assert (Sizes()(700), Sizes().turns(9000), Sizes(12)(700), Sizes(12).turns(9000), Sizes(12)(700, 0.5)) == (
        700, 9000, 12, 600, 6)
    assert Sizes(1)(700, 0.5) == 1  # never an empty batch
