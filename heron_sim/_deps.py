"""The private parts of our dependencies that heron-sim relies on, checked once at import.

``heron_sim._numba_cache`` patches numba's cache machinery (private classes of
``numba.core.caching`` and ``Dispatcher.enable_caching``), the kernels pass numba's private
``_nrt=False`` and the plug-in strategies' intrinsic uses ``numba.core.cgutils`` (all listed in
:data:`NUMBA_HOOKS`); the command line catches the exceptions of the click that typer vendors as the
private ``typer._click``. pyproject.toml pins both below their next untested minor; if another
version is installed anyway, the check below fails at import with one line naming the version
instead of an ``AttributeError`` deep inside the first compile.
"""

from __future__ import annotations

#: The newest minors heron-sim was tested with (pyproject.toml pins below the next one).
TESTED = {"numba": "0.68", "typer": "0.29"}

#: numba internals used by heron_sim._numba_cache: module attribute -> attributes of it.
NUMBA_HOOKS = {
    "numba.core.caching": ("_SourceFileBackedLocatorMixin", "_CacheLocator", "IndexDataCacheFile",
                           "NullCache", "CacheImpl"),
    "numba.core.caching.IndexDataCacheFile": ("_save_index", "_load_index", "_save_data",
                                              "_load_data", "_open_for_write", "_dump", "_data_path"),
    "numba.core.caching.CacheImpl": ("_locator_classes",),
    "numba.core.dispatcher.Dispatcher": ("enable_caching",),
    # the kernels' private ``_nrt=False`` option of njit and cfunc (engine/jit.py, loop/kernels.py,
    # strategies/decide_c.py, games/fire_mountain/engine.py): a target option numba may drop
    "numba.core.cpu.CPUTargetOptions": ("_nrt",),
    # the plug-in strategies' intrinsic (strategies/plugins.py) unpacks array shapes with cgutils
    # and checks a function is already compiled against the CPU dispatcher
    "numba.core.cgutils": ("unpack_tuple",),
    "numba.core.registry": ("CPUDispatcher",),
}


class DependencyError(ImportError):
    """An installed dependency lacks a private hook heron-sim relies on (one line)."""


def _resolve(path: str, root):
    obj = root
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _missing(hooks: dict, numba_module) -> list[str]:
    missing = []
    for owner, attrs in hooks.items():
        try:
            obj = _resolve(owner, numba_module)
        except AttributeError:
            missing.append(owner)
            continue
        missing += [f"{owner}.{a}" for a in attrs if not hasattr(obj, a)]
    return missing


def missing_numba_hooks(numba_module) -> list[str]:
    """The hooks of :data:`NUMBA_HOOKS` that ``numba_module`` lacks (dotted names)."""
    return _missing(NUMBA_HOOKS, numba_module)


def _fail(package: str, version: str, missing: list[str]) -> None:
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    raise DependencyError(
        f"heron-sim: {package} {version} is not supported: it lacks {missing[0]}{more}, a private "
        f"hook heron-sim relies on (tested up to {package} {TESTED[package]}.x); install "
        f"'{package}<{_next_minor(TESTED[package])}'")


def _next_minor(version: str) -> str:
    major, minor = version.split(".")[:2]
    return f"{major}.{int(minor) + 1}"


def check_numba(numba_module=None) -> None:
    """Raise :class:`DependencyError` if numba lacks a hook of :data:`NUMBA_HOOKS`."""
    if numba_module is None:
        import numba
        import numba.core.caching  # noqa: F401
        import numba.core.cgutils  # noqa: F401
        import numba.core.cpu  # noqa: F401
        import numba.core.dispatcher  # noqa: F401
        import numba.core.registry  # noqa: F401

        numba_module = numba
    missing = missing_numba_hooks(numba_module)
    if missing:
        _fail("numba", getattr(numba_module, "__version__", "?"), missing)


def typer_click(typer_module=None):
    """The click module typer builds its commands on (typer >= 0.25 vendors it as the private
    ``typer._click``; older typers use click itself); :class:`DependencyError` if neither is."""
    if typer_module is None:
        import typer

        typer_module = typer
    import typer.core

    group = typer.core.TyperGroup
    candidates = []
    try:
        from typer import _click

        candidates.append(_click)
    except ImportError:
        pass
    try:
        import click as _plain

        candidates.append(_plain)
    except ImportError:
        pass
    for mod in candidates:
        if issubclass(group, mod.Command) and hasattr(mod, "exceptions") and all(
                hasattr(mod.exceptions, n) for n in ("UsageError", "NoArgsIsHelpError", "ClickException")):
            return mod
    _fail("typer", getattr(typer_module, "__version__", "?"),
          ["typer._click (the click its commands are built on)"])


def __getattr__(name):  # ``click``: the click of the CLI, resolved on first use (PEP 562)
    if name == "click":
        globals()["click"] = mod = typer_click()
        return mod
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
