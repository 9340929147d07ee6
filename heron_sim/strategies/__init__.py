"""Strategies: declared here by name, dispatched inside the kernel by an integer id.

Each strategy module declares ``NAME``, ``DESCRIPTION`` (and ``PARAMS``, its parameters with
their defaults, when it has some) and a compiled decision function; the id below is what
``heron_sim.strategies.dispatch.decide`` switches on.

A seat is named ``name`` or ``name:key=value,...`` — e.g. ``prudent:risk=0.6`` (in a comma
list of seats, separate a seat's parameters with ``;``: ``prudent:risk=0.1;...``). Each seat
gets one float64 parameter row (its parameters in declaration order from column 0; the
``expert`` and ``racer`` rows carry their value tables from column 4 on); rows are padded to
the widest.

User strategies: :func:`register_strategy` (see heron_sim.strategies.plugins and
docs/strategies.md), loaded from a module, a file or an entry point by heron_sim.user_plugins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import HeronSimError
from .declared import declarations
from .dispatch import PLUGIN  # noqa: F401

N_STRATEGY_PARAMS = 4  # width of the per-seat parameter rows (before any table)
SEAT_BLOCK_COLUMN = N_STRATEGY_PARAMS - 1  # where a SEAT_BLOCK strategy's row says where its block starts


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    sid: int
    description: str
    user_facing: bool = True
    #: parameter names and defaults, in the order of the row's columns
    params: dict = field(default_factory=dict)
    #: the row carries the expert's tables (built from the rules)
    tables: bool = False
    #: plug-ins: the compiled wrapper (kept alive here) whose address goes in column 0
    plugin: object = None
    #: built-in strategies: the module and decision function the kernels call, and its arguments
    module: str = ""
    decide: str = ""
    args: str = ""
    #: in the "ai" and "all" sets of the experiments
    in_sets: bool = True
    #: parameter name -> (low, high), inclusive
    bounds: dict = field(default_factory=dict)
    #: a rung: the strategy whose named parameter set this is (e.g. novice -> human)
    rung_of: str = ""
    #: the row carries, after the tables, a block of its own (:func:`register_seat_block`)
    seat_block: bool = False


#: Every strategy by name: the built-in ones as their modules declare them
#: (heron_sim.strategies.declared), then the plug-ins registered in this process.
REGISTRY: dict[str, StrategyInfo] = {
    d.name: StrategyInfo(d.name, d.sid, d.description, d.user_facing, dict(d.params), d.tables,
                         module=d.module, decide=d.decide, args=d.args, in_sets=d.in_sets,
                         bounds=dict(d.bounds), seat_block=d.seat_block)
    for d in declarations()
}
# The named rungs (heron_sim.strategies.human's RUNGS): each a name of its own, its parameter
# set as the defaults (``novice:temp=2`` overrides one), played by its strategy's decisions.
REGISTRY.update({
    name: StrategyInfo(name, d.sid, desc, d.user_facing, dict(values), d.tables, module=d.module,
                       decide=d.decide, args=d.args, in_sets=False, bounds=dict(d.bounds), rung_of=d.name)
    for d in declarations() for name, values, desc in d.rungs
})


#: The builders of the seats' own blocks (``SEAT_BLOCK`` strategies), by strategy name:
#: ``fn(rules, seating, seat, table) -> float64[...]``, the block written after the tables in the
#: seat's row (its offset in column SEAT_BLOCK_COLUMN). Registered by a module above this floor (the champion's,
#: heron_sim.champion_tables, which reads the worth of positions of heron_sim.analysis).
SEAT_BLOCKS: dict[str, Callable] = {}


def register_seat_block(name: str, fn: Callable) -> None:
    """Register the builder of strategy ``name``'s own block (see :data:`SEAT_BLOCKS`)."""
    SEAT_BLOCKS[name] = fn


def memo_words(R: np.ndarray, sids) -> int:
    """The words the seated strategies ``sids`` need at the end of a workspace (their
    ``WORKSPACE_WORDS``, each seated strategy's once: the kernels' generated ``workspace_words``,
    heron_sim.strategies.dispatch), for a workspace built in Python (heron_sim.engine.pack.new_workspace)."""
    import importlib

    from .dispatch import PLUGIN

    seated = {int(x) for x in np.asarray(sids).ravel()}
    total = 0
    for d in declarations():  # a plug-in may hand its decisions to any strategy (the dispatcher's rule)
        if d.workspace_words and (d.sid in seated or PLUGIN in seated):
            module, _, fn = d.workspace_words.rpartition(".")
            total += int(getattr(importlib.import_module(f"{__name__}.{module}"), fn)(R, len(np.asarray(sids))))
    return total


#: The entry point group of user strategies (see heron_sim.user_plugins and docs/strategies.md).
ENTRY_POINT_GROUP = "heron_sim.strategies"
_entry_points_done = False


def load_entry_points() -> list[str]:
    """Load every entry point of :data:`ENTRY_POINT_GROUP` once per process (a ``register``
    callable, or a module that registers on import); returns the strategy names added. Called
    the first time a strategy name is not found."""
    global _entry_points_done
    if _entry_points_done:
        return []
    _entry_points_done = True
    from importlib.metadata import entry_points

    before = set(REGISTRY)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        where = f"entry point {ep.name} = {ep.value!r} ({ENTRY_POINT_GROUP})"
        try:
            obj = ep.load()
            if callable(obj):
                obj()
            elif callable(getattr(obj, "register", None)):
                obj.register()
        except HeronSimError:
            raise
        except Exception as err:  # noqa: BLE001 — an installed package's: one line naming it
            raise HeronSimError(f"{where}: {type(err).__name__}: {err}") from None
    return sorted(set(REGISTRY) - before)


def names(user_facing_only: bool = True) -> list[str]:
    return [n for n, s in REGISTRY.items() if s.user_facing or not user_facing_only]


def register_strategy(name: str, decide: Callable, description: str = "",
                      params: dict | None = None, replace: bool = False) -> StrategyInfo:
    """Register a user decision function under ``name`` (a plug-in).

    ``decide(kind, seat, w, R, rng, sp) -> int`` must be a numba ``@njit`` function (a plain
    function is compiled with ``numba.njit``). Its parameters ``params`` (name -> default) are
    read by it as ``sp[seat, 1 + i]`` in the given order (column 0 holds the address of its
    compiled wrapper). Returns the registry entry; the name is then usable everywhere a
    strategy name is (``simulate``, ``tournament``, the command line within the same process).
    """
    from .plugins import compile_plugin

    if not name or any(c in name for c in ",:;= "):
        raise HeronSimError(f"strategy name {name!r}: use letters, digits, '-' or '_'")
    if name in REGISTRY and not (replace and REGISTRY[name].sid == PLUGIN):
        raise HeronSimError(f"strategy {name!r} is already registered")
    wrapper = compile_plugin(decide)
    info = StrategyInfo(name, PLUGIN, description or f"user strategy {name}",
                        params=dict(params or {}), plugin=wrapper)
    REGISTRY[name] = info
    return info


def parse_strategy(spec: str) -> tuple[str, dict[str, float]]:
    """``'prudent:risk=0.6'`` -> ('prudent', {'risk': 0.6}) (validated against the registry)."""
    spec = spec.strip()
    name, _, rest = spec.partition(":")
    name = name.strip()
    if name not in REGISTRY:  # perhaps an installed package's plug-in (entry point)
        load_entry_points()
    if name not in REGISTRY or not REGISTRY[name].user_facing and name != "scripted":
        raise HeronSimError(f"--strategy: {name!r} is not a strategy; allowed: {', '.join(names())}")
    info = REGISTRY[name]
    values = dict(info.params)
    seen: set[str] = set()
    for item in filter(None, (x.strip() for x in rest.replace(";", "&").replace(",", "&").split("&"))):
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or key not in info.params:
            allowed = ", ".join(f"{k}=<number>" for k in info.params) or "none"
            raise HeronSimError(f"--strategy: {spec!r}: bad parameter {item!r}; allowed: {allowed}")
        if key in seen:
            raise HeronSimError(f"--strategy: {spec!r}: parameter {key} given twice; allowed: once")
        seen.add(key)
        try:
            values[key] = float(raw)
        except ValueError:
            raise HeronSimError(f"--strategy: {spec!r}: {key} must be a number, got {raw!r}") from None
    if name == "prudent" and not 0.0 <= values["risk"] <= 1.0:
        raise HeronSimError(f"--strategy: {spec!r}: risk must be in 0..1")
    for key, (low, high) in info.bounds.items():
        if not low <= values[key] <= high:  # NaN fails too
            raise HeronSimError(f"--strategy: {spec!r}: {key} = {values[key]:g}; allowed: {low:g}..{high:g}")
        if isinstance(low, int) and isinstance(high, int) and not float(values[key]).is_integer():
            raise HeronSimError(f"--strategy: {spec!r}: {key} = {values[key]:g}; allowed: a whole number in "
                                f"{low}..{high}")
    return name, values


def split_names(spec: str) -> list[str]:
    """A comma list of strategy names, where a name's parameters may be comma-separated too:
    ``"novice,human:temp=1,caution=0.5,expert"`` -> ["novice", "human:temp=1,caution=0.5",
    "expert"] (an item ``key=value`` without a ``:`` continues the name before it)."""
    out: list[str] = []
    for item in spec.split(","):
        if out and "=" in item and ":" not in item and ":" in out[-1]:
            out[-1] += "," + item.strip()
        else:
            out.append(item.strip())
    return out


def parse_seating(spec: str | list[str], players: int) -> list[str]:
    """One strategy for every seat, or a comma list with one per seat (``name:key=value``, several
    parameters separated by ``,`` or ``;``)."""
    items = split_names(spec) if isinstance(spec, str) else list(spec)
    items = [s.strip() for s in items]
    if len(items) == 1:
        items = items * players
    if len(items) != players:
        raise HeronSimError(
            f"--strategy: {len(items)} names for {players} players; give one name or one per seat"
        )
    for s in items:
        parse_strategy(s)
    return items


def seat_row(spec: str, rules=None) -> np.ndarray:
    """The parameter row of one seat (its tables included)."""
    name, values = parse_strategy(spec)
    info = REGISTRY[name]
    params = [values[k] for k in info.params]
    if info.plugin is not None:
        from .plugins import plugin_row

        return plugin_row(info.plugin.address, params)
    if info.tables:
        return seat_arrays([spec], rules)[1][0]
    row = np.zeros(max(N_STRATEGY_PARAMS, len(params)))
    row[: len(params)] = params
    return row


def seat_arrays(seating: list[str], rules=None) -> tuple[np.ndarray, np.ndarray]:
    """Strategy ids and parameter rows by seat, as the kernel reads them (see :func:`_seat_block`).

    With rules by guide (``rules.guides``), ``sp`` holds one block of ``players`` rows per set of
    a turn's rules (Rules.turn_rows), one after the other: block k is the seats' rows built for
    ``sets[k]`` (their tables), and the turn of a guide's holder reads its set's block
    (heron_sim.loop.game.turn_rules), so a strategy plays that guide's rules exactly.
    """
    if rules is None or not getattr(rules, "guides", ()):
        return _seat_block(seating, rules)
    sets, _ = rules.turn_rows()
    heads = [_seat_heads(seating, r) for r in sets]
    p = len(seating)
    sp = np.zeros((p * len(heads), max(_width(h) for h in heads)), dtype=np.float64)
    for k, h in enumerate(heads):  # each row's own values only: the rest is zeros already (megabytes a row)
        _fill_rows(sp[k * p: (k + 1) * p], h)
    return heads[0][0], sp


def _seat_block(seating: list[str], rules=None) -> tuple[np.ndarray, np.ndarray]:
    """Ids and rows for rules without rules by guide (:func:`_seat_heads`)."""
    h = _seat_heads(seating, rules)
    sp = np.zeros((len(seating), _width(h)), dtype=np.float64)
    _fill_rows(sp, h)
    return h[0], sp


def _seat_heads(seating: list[str], rules=None):
    """Strategy ids, each seat's head row, the tables' row and the seat holding it (-1: none),
    for rules without rules by guide.

    Table seats share one copy of the tables (they depend on the rules only): the first one's
    row holds them, the others keep their head and name that seat (fewer cache misses); the
    tables are copied once, straight into that row of the seats' array (:func:`_fill_rows`;
    megabytes: a batch of a study is short).
    """
    from .expert_build import expert_tables
    from .expert_dp import ROW_DIR, ROW_TSEAT

    names = [parse_strategy(s)[0] for s in seating]
    missing = next((n for n in names if REGISTRY[n].seat_block and n not in SEAT_BLOCKS), None)
    if missing:
        raise HeronSimError(f"strategy {missing!r} needs its tables' builder: import heron_sim.simulation "
                            "first (it registers it)")
    sids = np.array([REGISTRY[n].sid for n in names], dtype=np.int64)
    holder = next((i for i, n in enumerate(names) if REGISTRY[n].tables and REGISTRY[n].plugin is None), -1)
    table = None
    if holder >= 0:
        if rules is None:
            raise HeronSimError(f"strategy {names[holder]!r} needs the rules (its tables depend on them)")
        table = expert_tables(rules).row
    heads = []
    blocks = {}
    for i, s in enumerate(seating):
        info = REGISTRY[names[i]]
        if info.tables and info.plugin is None:
            name, values = parse_strategy(s)
            params = [values[k] for k in info.params]
            head = table[:ROW_DIR].copy()
            head[: len(params)] = params
            head[ROW_TSEAT] = holder
            if info.seat_block:  # its own block after the tables, its offset in the row's last parameter column
                blocks[i] = SEAT_BLOCKS[name](rules, list(seating), i, table)
                head[SEAT_BLOCK_COLUMN] = table.size
        else:
            head = seat_row(s, rules)
        heads.append(head)
    return sids, heads, table, holder, blocks


def _width(h) -> int:
    """The widest row of :func:`_seat_heads`' seats."""
    _, heads, table, _, blocks = h
    return max(N_STRATEGY_PARAMS, *(x.size for x in heads), table.size if table is not None else 0,
               *(table.size + b.size for b in blocks.values()))


def _fill_rows(sp: np.ndarray, h) -> None:
    """Write :func:`_seat_heads`' rows into ``sp`` (zeros, one row a seat): the tables into their
    holder's row, then each head, then each seat's own block."""
    _, heads, table, holder, blocks = h
    for i, head in enumerate(heads):
        if i == holder:
            sp[i, : table.size] = table
        sp[i, : head.size] = head
        if i in blocks:
            sp[i, table.size: table.size + blocks[i].size] = blocks[i]
