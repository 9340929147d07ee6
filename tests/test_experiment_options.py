"""Each experiment kind's options are its own typed model (issue 19, item 4): a key the kind does
not have (another kind's option, a typo) or a bad value is one `error:` line naming the file, the
key and what is allowed (exit 2), never skipped; every experiment file of the plan still loads;
the JSON schema of an experiment file names every kind."""

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from heron_sim.errors import HeronSimError
from heron_sim.runner import KINDS, load_experiment
from heron_sim.runner.config import experiment_from_dict, experiment_schema
from heron_sim.runner.kinds import KIND_MODELS, KIND_MODULES, ExperimentKind, registry
from tests.helpers import declared_kinds

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT_FILES = sorted(p for p in (ROOT / "experiments").glob("*.toml")
                          if "kind" in tomllib.loads(p.read_text(encoding="utf-8")))
#: the kinds heron_sim/runner/kinds/ declares, read from its sources (no list of names: a new kind passes)
ALL_KINDS = set(declared_kinds())
runner = CliRunner()


def _write(tmp_path, body, name="exp.toml"):
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    return p


def test_the_plan_has_a_file_of_every_kind():  # else the next test would prove little
    """Every declared kind is registered and ships an example file in experiments/ (a kind's
    contract: the next test loads it)."""
    kinds = {tomllib.loads(p.read_text(encoding="utf-8"))["kind"] for p in EXPERIMENT_FILES}
    assert ALL_KINDS == set(KINDS)
    assert not ALL_KINDS - kinds, f"kinds without a file in experiments/: {sorted(ALL_KINDS - kinds)}"
    assert kinds <= ALL_KINDS


@pytest.mark.parametrize("path", EXPERIMENT_FILES, ids=lambda p: p.name)
def test_every_experiment_file_loads_into_its_kinds_model(path):
    exp = load_experiment(path)
    assert type(exp) is KIND_MODELS[exp.kind] and exp.source == str(path)
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    assert set(table) <= set(type(exp).model_fields)
    back = experiment_from_dict(json.loads(json.dumps(exp.to_dict())))  # as a run's manifest keeps it
    assert back.to_dict() | {"source": ""} == exp.to_dict() | {"source": ""}


@pytest.mark.parametrize("kind,line,key,fragment", [
    ("modes", "turns = 5000", "turns", "unknown key for kind modes (only for kinds anxiety, pond)"),
    ("modes", "strategies = [\"greedy\"]", "strategies", "unknown key for kind modes"),
    ("anxiety", "seating = \"ai\"", "seating", "unknown key for kind anxiety"),
    ("pond", "ablation_games = 10", "ablation_games", "only for kind guides"),
    ("guides", "h2h_games = 10", "h2h_games", "only for kind strategies"),
    ("games", "modes = [\"8d8\"]", "modes", "unknown key for kind games"),
    ("sensitivity", "gmaes = 10", "gmaes", "unknown key for kind sensitivity"),
    ("modes", "source = \"x\"", "source", "unknown key"),
    ("modes", "games = 2.5", "games", "2.5; allowed: an integer 1..10000000"),
    ("modes", "players = \"4\"", "players", "'4'; allowed: an integer 2..7"),
    ("pond", "turns = true", "turns", "True; allowed: an integer 1..100000000"),
    ("modes", "figures = [\"pushback\"]", "figures", "'pushback'; allowed for kind modes: length, combos, seats, pace"),
    ("pond", "guide = \"dragon\"", "guide", "'dragon' is not an animal"),
])
def test_a_key_the_kind_lacks_or_a_bad_value_is_one_line_exit_2(tmp_path, kind, line, key, fragment):
    path = _write(tmp_path, f'kind = "{kind}"\n{line}\n')
    res = runner.invoke(app, ["run", str(path), "--games", "5", "--run-dir", str(tmp_path / "run")])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: {key}:") and fragment in lines[0], lines
    if "unknown key" in fragment:
        allowed = lines[0].split("allowed: ")[1].split(", ")
        assert allowed == sorted(KIND_MODELS[kind].model_fields) and key not in allowed
    assert not (tmp_path / "run").exists()


def test_a_rules_table_refuses_unknown_keys(tmp_path):
    path = _write(tmp_path, 'kind = "modes"\n[rules]\nsett = { rolls = 4 }\n')
    with pytest.raises(HeronSimError, match=r"exp.toml: rules.sett: unknown key; allowed: file, set, label, own_mode$"):
        load_experiment(path)


def test_a_manifest_of_before_the_models_reads_back(tmp_path):
    # run folders written when every kind had every key (the kind never read the others)
    old = {"name": "m", "kind": "modes", "title": "M", "description": "", "seed": 3, "games": 40, "turns": 100000,
           "players": 4, "seating": "ai", "strategies": "all", "guide": "loup", "skill_games": 0, "h2h_games": 0,
           "ablation_games": 0, "mixed_games": 0, "source": "x.toml", "light_games": "all", "modes": ["8d8"],
           "figures": ["length"], "plugins": [], "a": None, "b": None,
           "rules": {"file": None, "set": {"rolls": 4}, "label": "", "own_mode": False}}
    exp = experiment_from_dict(old)
    assert (exp.kind, exp.seed, exp.games, exp.figures, exp.rules.overrides) == ("modes", 3, 40, ("length",), {"rolls": 4})
    assert not hasattr(exp, "turns")
    with pytest.raises(HeronSimError, match="kind: 'nope'"):
        experiment_from_dict(old | {"kind": "nope"})


def test_every_kind_module_declares_its_model_figures_plan_and_analysis():
    assert set(KIND_MODELS) == set(KIND_MODULES) == ALL_KINDS
    for kind, mod in KIND_MODULES.items():
        k = registry()[kind]
        assert KIND_MODELS[kind].__module__ == mod.__name__ == type(k).__module__
        assert tuple(KIND_MODELS[kind].model_fields["figures"].default) == mod.FIGURES == k.figures
        assert k.own_sections == (type(k).fill is ExperimentKind.fill)  # exactly one way to analyse


def test_the_json_schema_names_every_kind_and_its_options():
    res = runner.invoke(app, ["experiment-schema"])
    assert res.exit_code == 0, res.output
    schema = json.loads(res.output)
    assert schema == json.loads(json.dumps(experiment_schema()))
    assert schema["discriminator"]["propertyName"] == "kind"
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == ALL_KINDS and len(schema["oneOf"]) == len(ALL_KINDS)
    for kind, ref in mapping.items():
        model = schema["$defs"][ref.rsplit("/", 1)[1]]
        assert model["additionalProperties"] is False
        assert model["properties"]["kind"]["const"] == kind
        assert set(model["properties"]) == set(KIND_MODELS[kind].model_fields)
        assert model["properties"]["figures"]["items"] in ({"enum": list(KIND_MODULES[kind].FIGURES), "type": "string"},
                                                           {"const": KIND_MODULES[kind].FIGURES[0], "type": "string"})
    modes = schema["$defs"][mapping["modes"].rsplit("/", 1)[1]]["properties"]
    assert "turns" not in modes and modes["games"]["minimum"] == 1 and modes["players"]["maximum"] == 7
    assert schema["$defs"][mapping["compare"].rsplit("/", 1)[1]]["required"] == ["a", "b"]
