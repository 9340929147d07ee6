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
from tests.helpers import declared_kinds

pytestmark = [pytest.mark.exact, pytest.mark.cli]

#: the kinds heron_sim/runner/kinds/ declares, read from its sources (no list of names: a new kind passes)
SHIPPED = set(declared_kinds())
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
        assert type(kind).__module__ == declared_kinds()[name] == KIND_MODULES[name].__name__
        assert KIND_MODELS[name] is kind.options and kind.options.model_fields["kind"].default == name
        assert tuple(kind.options.model_fields["figures"].default) == kind.figures
        assert kind.intro or kind.own_sections  # a file without a description still gets an introduction


def test_sizes_apply_the_games_override():
    assert (Sizes()(700), Sizes().turns(9000), Sizes(12)(700), Sizes(12).turns(9000), Sizes(12)(700, 0.5)) == (
        700, 9000, 12, 600, 6)
    assert Sizes(1)(700, 0.5) == 1  # never an empty batch


def _plain_kind(kind_name="plain", rows=None, problems=None):
    """A kind that draws no figures (``figures = ()``), with the executive rows ``rows(facts)``."""
    class Plain(HeronExperiment):
        kind: Literal[kind_name] = kind_name
        figures: figures_of(()) = ()

    class PlainKind(ExperimentKind):
        name = kind_name
        options = Plain
        figures = ()
        intro = "Plain."

        def jobs(self, exp, g):
            return []

        def fill(self, exp, data, sec):
            pass

        def summary_rows(self, facts):
            return rows(facts) if rows else []

        def summary_problems(self, facts):
            return problems(facts) if problems else []

    return PlainKind


def test_a_kind_that_draws_no_figures_declares_an_empty_tuple(tmp_path):
    """Issue 29 item 6: a kind declared with no figures once crashed every command at import
    (an empty Literal); now its files take figures = [] only, and a name is one line."""
    _plain_kind()
    try:
        exp = load_experiment(_write(tmp_path, 'kind = "plain"\nfigures = []\n'))
        assert exp.figures == () and registry()["plain"].figures == ()
        path = _write(tmp_path, 'kind = "plain"\nfigures = ["length"]\n', "p2.toml")
        res = runner.invoke(app, ["run", str(path), "--games", "5", "--run-dir", str(tmp_path / "run")])
        lines = res.output.strip().splitlines()
        assert res.exit_code == 2 and len(lines) == 1, res.output
        assert "figures: 'length'; allowed for kind plain: none" in lines[0]
    finally:
        unregister("plain")


BROKEN = {
    "figures": '''
from typing import Literal
from heron_sim.runner.options import HeronExperiment, figures_of
from heron_sim.runner.kinds.base import ExperimentKind

class BadOptions(HeronExperiment):
    kind: Literal["badfigs"] = "badfigs"
    figures: figures_of(()) = ()

class Bad(ExperimentKind):
    name = "badfigs"
    options = BadOptions
    figures = ("length",)
    def jobs(self, exp, g): return []
    def fill(self, exp, data, sec): pass
''',
    "crash": "raise ZeroDivisionError('boom\\nsecond line')\n",
}


@pytest.mark.parametrize("bug,fragment", [
    ("figures", "cannot be loaded: KindError: brokenkinds_figures.b_kind.Bad: kind badfigs: figures ('length',) are not "
                "its options' figures ()"),
    ("crash", "cannot be loaded: ZeroDivisionError: boom second line"),
])
def test_a_broken_kind_module_is_one_error_line_naming_it(tmp_path, monkeypatch, capsys, bug, fragment):
    """Issue 29 item 6: a kind module that fails at import is one ``error:`` line naming the
    module (exit 2), never a traceback; the modules before it are loaded."""
    from heron_sim.cli._app import boundary
    from heron_sim.runner.kinds import import_kinds

    pkg = tmp_path / f"brokenkinds_{bug}"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a_fine.py").write_text("LOADED = True\n")
    (pkg / "b_kind.py").write_text(BROKEN[bug])
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        code = boundary(lambda: import_kinds([str(pkg)], pkg.name))
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1, err
        assert err[0].startswith(f"error: experiment kind module {pkg.name}.b_kind ") and fragment in err[0], err
        assert "Traceback" not in err[0]
        import sys
        assert sys.modules[f"{pkg.name}.a_fine"].LOADED
    finally:
        unregister("badfigs")
    assert "badfigs" not in registry()


def test_a_new_kind_reaches_the_executive_page():
    """A kind's own rows join the page (after the plan's and balance questions unless it says
    where), with its section's anchor; a row that is not a Row is an error naming the kind."""
    from heron_sim.analysis.executive import Row
    from heron_sim.report.executive import build_rows
    from heron_sim.sections import Fact

    def rows(facts):
        f = facts.get("plain.thing")
        return [Row("A plain question", f"{f.estimate:.0f} things.", "x", "", "Nothing to do.", f.id, "plain", False)] if f else []

    _plain_kind(rows=rows)
    try:
        facts = {"plain.thing": Fact("plain.thing", "things", 3.0)}
        got = build_rows(facts, {"plain": "sec-plain"})
        assert [(r.question, r.answer, r.source, r.slug) for r in got] == [
            ("A plain question", "3 things.", "sec-plain", "q-a-plain-question")]
        assert build_rows({}, {}) == []  # its facts missing: no row
    finally:
        unregister("plain")
    _plain_kind(rows=lambda facts: ["not a row"])
    try:
        with pytest.raises(KindError, match="kind plain: summary_rows returned 'not a row', not a"):
            build_rows({}, {})
    finally:
        unregister("plain")


def test_a_new_kinds_problems_reach_the_verdict():
    """A kind's verdict candidates join the others by their order; not a Problem: an error naming it."""
    from heron_sim.analysis.judge import Problem
    from heron_sim.report.executive import verdict
    from heron_sim.sections import Fact

    def problems(facts):
        f = facts.get("plain.thing")
        return [Problem("Plain things are far too many", "x", 3.0, "q-plain")] if f else []

    _plain_kind(problems=problems)
    try:
        wrong, fine, open_ = verdict({"plain.thing": Fact("plain.thing", "things", 3.0)})
        assert [p.what for p in wrong] == ["Plain things are far too many"] and fine == open_ == []
        assert verdict({}) == ([], [], [])
    finally:
        unregister("plain")
    _plain_kind(problems=lambda facts: [None])
    try:
        with pytest.raises(KindError, match="kind plain: summary_problems returned None, not a"):
            verdict({})
    finally:
        unregister("plain")
