"""The lock file and the optuna versions the lab supports (docs/dependencies.md)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from types import SimpleNamespace as NS

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytestmark = pytest.mark.exact

ROOT = Path(__file__).resolve().parents[1]


def _locked() -> dict[str, list[tuple[str, str]]]:
    """name -> [(version, marker)] of requirements.lock."""
    out: dict[str, list[tuple[str, str]]] = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^ ;]+)\s*(?:;\s*(.*))?$", line)
        if m:
            out.setdefault(canonicalize_name(m[1]), []).append((m[2], m[3] or ""))
    return out


def test_every_dependency_is_pinned_inside_its_range():
    """A range changed in pyproject.toml without `make lock` fails here (the install would
    otherwise stop on a conflict, or pin a version outside the range)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]
    locked = _locked()
    assert len(locked) > len(wanted)  # the transitive dependencies are pinned too
    for req in wanted:
        name = canonicalize_name(req.name)
        assert name in locked, f"{req.name} is not in requirements.lock: run make lock"
        for version, _marker in locked[name]:
            assert req.specifier.contains(version, prereleases=True), (
                f"requirements.lock pins {req.name}=={version}, outside {req.specifier}: run make lock")


def test_the_locked_versions_are_the_installed_ones():
    """The suite runs with what the lock says (the Makefile installs with -c requirements.lock)."""
    from importlib.metadata import version

    from packaging.markers import Marker

    for name, pins in _locked().items():
        for v, marker in pins:
            if marker and not Marker(marker).evaluate():
                continue
            if name in ("numpy", "optuna", "numba", "pandas", "scipy", "typer", "dask", "statsmodels"):
                assert version(name) == v, f"{name} {version(name)} installed, {v} locked"


def test_older_optuna_reads_constraints_from_the_trials_user_attribute(monkeypatch):
    """optuna 3 and 4 take a constraints_func; it reads the values the lab stores on each trial."""
    from heron_sim.lab import optuna_compat as oc

    monkeypatch.setattr(oc, "trial_constraints", lambda: False)
    func = oc.sampler_kwargs(2)["constraints_func"]
    assert func(NS(user_attrs={"constraints": [-1, 0.5]})) == [-1.0, 0.5]
    assert func(NS(user_attrs={"error": "rules could not be built"})) == [1.0, 1.0]  # pruned: infeasible
    assert oc.sampler_kwargs(0) == {}
    assert oc.create_trial_kwargs([0.0, 2.0]) == {"system_attrs": {"constraints": [0.0, 2.0]}}
    monkeypatch.setattr(oc, "trial_constraints", lambda: True)
    assert oc.sampler_kwargs(2) == {}
    assert oc.create_trial_kwargs([0.0, 2.0]) == {"constraints": {"c0": 0.0, "c1": 2.0}}
    told = {}
    oc.set_constraints(NS(set_constraint=lambda k, v: told.__setitem__(k, v)), [3, -1])
    assert told == {"c0": 3.0, "c1": -1.0}
