"""The public namespace (issue 19, item 5): what the README shows imports from ``heron_sim``,
lazily; the docstring examples of the cheap modules run as doctests."""

import doctest
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.exact

ROOT = Path(__file__).resolve().parents[1]


def test_readme_names_import_from_the_package():
    from heron_sim import Rules, simulate, summarize  # the docstring of simulation.py

    df = simulate(Rules.build(mode="8d8", players=3), games=12, seed=2)
    assert summarize(df)["games"] == 12


def test_every_public_name_resolves_to_its_module():
    import heron_sim

    for name in heron_sim.__all__:
        assert getattr(heron_sim, name) is not None, name
    assert set(heron_sim.__all__) <= set(dir(heron_sim))
    with pytest.raises(AttributeError):
        heron_sim.no_such_name  # noqa: B018


def test_no_public_name_hides_a_submodule():
    import pkgutil

    import heron_sim

    submodules = {m.name for m in pkgutil.iter_modules(heron_sim.__path__)}
    assert not submodules & set(heron_sim.__all__), submodules & set(heron_sim.__all__)


def test_import_is_lazy():
    code = ("import sys, heron_sim; print(sorted(m for m in ('heron_sim.simulation', 'heron_sim.runner', "
            "'heron_sim.report', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


#: Modules whose examples are cheap (a few games at most); checked like `pytest --doctest-modules`.
DOCTEST_MODULES = ["heron_sim", "heron_sim.simulation", "heron_sim.runner.panel", "heron_sim.rules.keys", "heron_sim.lab.sheets"]


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    res = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert res.attempted > 0, f"{name} has no examples"
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples of {name} failed"


def test_no_public_name_shadows_a_submodule():
    """A lazy public name equal to a submodule's name (``tournament``) is replaced by the module
    as soon as anything imports that submodule: which one a user gets would depend on import order."""
    from pathlib import Path

    import heron_sim

    pkg = Path(heron_sim.__file__).parent
    clash = [n for n in heron_sim._PUBLIC if (pkg / f"{n}.py").exists() or (pkg / n / "__init__.py").exists()]
    assert clash == []
