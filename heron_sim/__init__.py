"""heron-sim: a Monte Carlo balance simulator for the Héron dice race and other board games.

The names a designer's notebook needs, importable from ``heron_sim`` directly and loaded on
first use (PEP 562: ``import heron_sim`` stays cheap and compiles nothing)::

    >>> from heron_sim import Rules, simulate, summarize
    >>> df = simulate(Rules.build(mode="8d8", players=2), games=20, seed=1)
    >>> summary = summarize(df)
    >>> summary["games"], len(summary["win_rate_by_seat"])
    (20, 2)

Everything else lives in its module (``heron_sim.runner``, ``heron_sim.report``,
``heron_sim.lab``, ...); names starting with ``_`` are internals.
"""

from . import _deps

_deps.check_numba()  # one clear line if numba lacks a private hook the kernel cache patches

from . import _numba_cache  # noqa: E402,F401  (must configure numba's cache before any kernel)

__version__ = "0.1.0"

#: public name -> module that defines it (relative to the package)
_PUBLIC = {
    # rules and errors
    "Rules": ".rules", "MODES": ".rules", "HeronSimError": ".errors", "RulesError": ".errors",
    "OutputError": ".errors",
    # playing Héron
    "simulate": ".simulation", "simulate_batches": ".simulation", "simulate_to_file": ".simulation",
    "simulate_turns": ".simulation", "count_turns": ".simulation", "simulate_game": ".simulation",
    "StreamedRun": ".simulation", "simulate_counts": ".simulation", "CountedRun": ".simulation",
    # reading the results
    "summarize": ".analysis", "summary_table": ".analysis", "read_meta": ".io", "read_frame": ".io",
    # exact values
    "p_pond": ".exact", "pond_pushback": ".exact", "greedy_turn": ".exact",
    "exact_figures": ".exact",
    # strategies
    "register_strategy": ".strategies", "load_plugin": ".user_plugins",
    # tournaments, experiments, comparisons
    # (the tournament itself: heron_sim.tournament.tournament; a top-level name "tournament" would
    # shadow the submodule heron_sim.tournament, depending on import order)
    "TournamentResult": ".tournament",
    "load_experiment": ".runner", "run_experiments": ".runner", "RunData": ".runner",
    "compare_rules": ".runner.compare_rules",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'heron_sim' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
