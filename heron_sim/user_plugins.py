"""Loading user strategies ("plug-ins") from outside the package: a module or file named on the
command line (``heron-sim --plugin MODULE``) or in an experiment file (``plugins = [...]``), and
the installed packages' entry points of the group :data:`ENTRY_POINT_GROUP`.

A plug-in module registers its strategies with :func:`heron_sim.strategies.register_strategy`
when imported, or defines ``register()`` that does (called once here). An entry point names
such a module or a ``register`` callable::

    # pyproject.toml of your package
    [project.entry-points."heron_sim.strategies"]
    satisficer = "my_package.strategies:register"

Entry points are loaded the first time a strategy name is not found (so installing a package
is enough; nothing is compiled before a name asks for it). A plug-in that fails to import or to
register is one ``error:`` line naming it, never a strategy that silently is not there.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from .errors import HeronSimError

ENTRY_POINT_GROUP = "heron_sim.strategies"  # = heron_sim.strategies.ENTRY_POINT_GROUP

_loaded: dict[str, list[str]] = {}


def _registered() -> set[str]:
    from .strategies import REGISTRY

    return set(REGISTRY)


def _call_register(obj, where: str) -> None:
    register = getattr(obj, "register", None) if not callable(obj) or isinstance(obj, type(sys)) else obj
    if register is None:
        return  # a module that registered its strategies on import
    try:
        register()
    except HeronSimError:
        raise
    except Exception as err:  # noqa: BLE001 — a user's module: one line naming it
        raise HeronSimError(f"{where}: register() failed: {type(err).__name__}: {err}") from None


def load_plugin(spec: str | Path, base_dir: str | Path | None = None, field: str = "--plugin") -> list[str]:
    """Import the plug-in ``spec`` (a module name, or a ``.py`` file, relative to ``base_dir``)
    and run its ``register()``; returns the strategy names it added. Loading the same plug-in
    again adds nothing (and compiles nothing)."""
    spec = str(spec)
    is_file = spec.endswith(".py") or "/" in spec or "\\" in spec
    path = None
    if is_file:
        path = Path(spec)
        if base_dir is not None and not path.is_absolute():
            path = Path(base_dir) / path
        path = path.resolve()
        key = str(path)
    else:
        key = spec
    if key in _loaded:
        return _loaded[key]
    before = _registered()
    where = f"{field}: {spec}"
    try:
        if path is not None:
            if not path.is_file():
                raise HeronSimError(f"{where}: file not found")
            name = f"heron_sim_plugin_{path.stem}_{abs(hash(key)) % 10**8}"
            mod_spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(mod_spec)
            sys.modules[name] = module
            mod_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(spec)
    except HeronSimError:
        raise
    except ModuleNotFoundError as err:
        raise HeronSimError(f"{where}: no module named {err.name!r}") from None
    except Exception as err:  # noqa: BLE001 — a user's module: one line naming it
        raise HeronSimError(f"{where}: import failed: {type(err).__name__}: {err}") from None
    _call_register(module, where)
    added = sorted(_registered() - before)
    _loaded[key] = added
    return added


def load_entry_points() -> list[str]:
    """Load the entry points of :data:`ENTRY_POINT_GROUP` now (once per process; otherwise the
    first unknown strategy name does): heron_sim.strategies.load_entry_points."""
    from .strategies import load_entry_points as load

    return load()
