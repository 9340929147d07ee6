"""Kernels specialised by the strategies seated: compiled on first use, cached on disk.

The game loop (heron_sim.loop: powers, moves, squares, turn, game, loops) asks a seat's
strategy for its decisions through one function, ``decide``. Numba links a callee's code into
every function that calls it, so a ``decide`` that calls every strategy directly makes each of
the engine's functions carry (and compile) the expert's, racer's and prudent's code. This module
writes a small package into the engine's cache folder, with copies of the loop's modules whose
imports are rewritten to use one of two ``decide``:

- **one strategy** (greedy alone is the default seating, the hot path of most runs): a direct
  call of its decision function. A greedy run compiles greedy and the engine, nothing else.
- **every other seating** (one *shared* kernel, also used for a single strategy inside
  :func:`shared_kernel`, as the test plan's runner does): an indirect call through the address of
  heron_sim.strategies.decide_c, a C-callable ``decide`` of every strategy compiled once, stored
  in the workspace (``w[DECIDE_FN]``). Numba compiles the strategies once and the engine's
  functions stay as small as greedy's; one kernel serves every mix of strategies, so a plan that
  seats fifteen different sets compiles two kernels, not fifteen. The price is one indirect
  call per decision (greedy seats keep their fused turn, heron_sim.strategies.greedy_turn).

The kernels take the ``decide`` address as their last argument (0 for greedy alone). The cache
folder is keyed on a hash of every engine source (heron_sim._numba_cache), so the generated
copies can never be stale. If the folder cannot be written, the package is built in memory
(compiled each run). The first compilation of a kernel prints one line on stderr, whatever
stderr is (``HERON_SIM_COMPILE_NOTE=0`` silences it).
"""

from __future__ import annotations

import contextlib
import threading
import importlib.util
import os
import re
import sys
import time
import types
from pathlib import Path

from .. import _numba_cache as cache

_HERE = Path(__file__).resolve().parent

#: The template modules, in import order: every module of the loop that calls ``decide``.
TEMPLATES = ("powers", "moves", "squares", "turn", "game", "loops")



def _strategies() -> dict[int, tuple[str, str, str, str]]:
    """Strategy id -> (module, decision function, its arguments, name for the message): derived
    from the strategies' own declarations (heron_sim.strategies.declared), plus plug-ins."""
    global _STRATEGIES
    if _STRATEGIES is None:
        from ..strategies.declared import declarations
        from ..strategies.dispatch import PLUGIN, PLUGIN_CALL

        table = {d.sid: (d.module, d.decide, d.args, d.name) for d in declarations()}
        table[PLUGIN] = (*PLUGIN_CALL, "plug-in")
        _STRATEGIES = table
    return _STRATEGIES


_STRATEGIES: dict | None = None
#: The key of the kernel shared by every strategy set but greedy alone.
SHARED = ("shared",)

#: One compiled ``decide`` per set (numba would otherwise compile one per call site's literal
#: decision kind: 22 copies of every strategy). The kernels' arrays are all C-contiguous.
_DECIDE_SIGNATURE = "int64(int64, int64, int64[::1], int64[::1], uint64[::1], float64[:, ::1])"

#: First-compile seconds measured on the 2-core development machine (engine + each strategy),
#: for the one-line message.
_BASE_SECONDS = {"play_batch": 15, "play_turns": 6, "play_scripted": 10}
_SHARED_SECONDS = 30  # heron_sim.strategies.decide_c: every strategy, compiled once

_loaded: dict[tuple, types.ModuleType] = {}
_ready: set[tuple] = set()


def strategy_set(sids) -> tuple[int, ...]:
    ids = tuple(sorted({int(s) for s in sids}))
    for s in ids:
        if s not in _strategies():
            raise ValueError(f"unknown strategy id {s}")
    return ids


#: ``HERON_SIM_SHARED_KERNEL=1``: every strategy set but greedy alone plays in the shared kernel
#: by default (the same games; one kernel compiled instead of one per strategy: the test suite
#: sets it, ``tests/conftest.py``; :func:`own_kernel` still reaches a strategy's own kernel).
SHARED_BY_DEFAULT = os.environ.get("HERON_SIM_SHARED_KERNEL", "0") == "1"


class _Preference(threading.local):
    shared = SHARED_BY_DEFAULT  # per thread: a block in one thread never changes another thread's kernels


_prefer = _Preference()


@contextlib.contextmanager
def own_kernel():
    """Within this block, a single strategy plays in its own kernel (direct calls), whatever
    ``HERON_SIM_SHARED_KERNEL`` says (the tests that compare the two kernels)."""
    before, _prefer.shared = _prefer.shared, False
    try:
        yield
    finally:
        _prefer.shared = before


@contextlib.contextmanager
def shared_kernel():
    """Within this block, a single strategy other than greedy plays in the shared kernel too
    (a plan or a study that seats many strategy sets compiles two kernels, not one per
    strategy); results are the same, decisions cost one indirect call more.

    The preference belongs to the calling thread (the explorer plays on several threads at
    once: a process-wide flag restored by interleaved blocks could stay set for good)."""
    before, _prefer.shared = _prefer.shared, True
    try:
        yield
    finally:
        _prefer.shared = before


def kernel_key(sids) -> tuple:
    """The kernel that plays the strategy set of ``sids``: its own for a single strategy
    (``(sid,)``; greedy alone always), else :data:`SHARED` (see :func:`shared_kernel`)."""
    if tuple(sids) == SHARED:
        return SHARED
    ids = strategy_set(sids)
    if len(ids) == 1 and (not _prefer.shared or _own_kernel(ids[0])):
        return ids
    return SHARED


def _own_kernel(sid: int) -> bool:
    """The strategy declares that, seated alone, it always plays in its own kernel (greedy: the
    default seating, the hot path of most runs)."""
    from ..strategies.declared import declarations

    return any(d.sid == sid and d.own_kernel for d in declarations())


def set_name(key: tuple) -> str:
    return "every strategy" if key == SHARED else "+".join(_strategies()[s][3] for s in key)


def _key(key: tuple) -> str:
    return "shared" if key == SHARED else "s" + "_".join(str(s) for s in key)


def decide_address(sids) -> int:
    """The ``decide`` address the kernels of ``sids`` take (0: they call their strategy directly)."""
    if kernel_key(sids) != SHARED:
        return 0
    from ..strategies import decide_c  # compiled (or loaded from the cache) on first use

    return decide_c.address()


def decide_source(key: tuple) -> str:
    """The ``decide`` of a kernel: a direct call of one strategy's decisions, or (:data:`SHARED`)
    an indirect call of every strategy's through the address in ``w[DECIDE_FN]``."""
    from ..strategies.declared import declarations
    from ..strategies.dispatch import fused_source

    single = None if key == SHARED else key[0]
    seated = [d for d in declarations() if single is None or d.sid == single]
    lines = [
        '"""Generated by heron_sim.loop.kernels: decide for '
        f'{set_name(key)} (do not edit)."""',
        "from numba import njit",
        "from heron_sim.engine.jit import U, hot, hot_inline",
        "from heron_sim.engine.layout import DECIDE_FN, SID",
    ]
    if key == SHARED:
        lines += ["from heron_sim.strategies.plugins import call_address", "", "",
                  f"@njit({_DECIDE_SIGNATURE!r}, cache=True, _nrt=False)",
                  "def decide(kind, seat, w, R, rng, sp):",
                  "    return call_address(w[DECIDE_FN], kind, seat, w, R, rng, sp)", ""]
    else:
        mod, fn, args, _ = _strategies()[single]
        lines += [f"from {mod} import {fn}", "", "",
                  f"@njit({_DECIDE_SIGNATURE!r}, cache=True, _nrt=False)",
                  "def decide(kind, seat, w, R, rng, sp):", "    sid = w[U(SID + seat)]",
                  f"    if sid == {single}:", f"        return {fn}({args})",
                  '    raise ValueError("strategy id not in this kernel\'s strategy set")', ""]
    # the strategies' own turns, scoring and workspace words: those of this kernel's set only
    return "\n".join(lines + fused_source(seated))


_SIBLING = re.compile(r"^(\s*)from \.(\w+) import", re.M)


def template_source(name: str, package: str) -> str:
    """Source of template module ``name`` with its imports made absolute; the dispatcher and
    the other templates are taken from ``package`` (the generated one)."""
    src = (_HERE / f"{name}.py").read_text(encoding="utf-8")
    src = re.sub(r"^(\s*)from \.\.strategies\.dispatch import", rf"\1from {package}._decide import",
                 src, flags=re.M)
    src = re.sub(r"^(\s*)from \.\.", r"\1from heron_sim.", src, flags=re.M)

    def sibling(m):
        mod = m.group(2)
        target = f"{package}.{mod}" if mod in TEMPLATES else f"heron_sim.loop.{mod}"
        return f"{m.group(1)}from {target} import"

    src = _SIBLING.sub(sibling, src)
    if re.search(r"^\s*(from \.|import \.)", src, flags=re.M):
        raise RuntimeError(f"loop/{name}.py: a relative import the kernel generator cannot place")
    return f"# Generated by heron_sim.loop.kernels from heron_sim/loop/{name}.py (do not edit).\n" + src


def _exec_module(fullname: str, source: str, filename: str) -> types.ModuleType:
    module = types.ModuleType(fullname)
    module.__file__ = filename
    sys.modules[fullname] = module
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
    except BaseException:
        del sys.modules[fullname]
        raise
    return module


def kernels_for(sids) -> types.ModuleType:
    """The ``loops`` module compiled for the strategy set of ``sids`` (play_batch,
    play_turns, play_scripted): greedy's own, or the shared one (:func:`kernel_key`)."""
    ids = kernel_key(sids)
    if ids in _loaded:
        return _loaded[ids]
    key = _key(ids)
    package = f"heron_sim._kernels_{cache.component('engine').rsplit('-', 1)[1]}_{key}"
    folder = cache.component_folder("engine") / "kernels" / key
    sources = {"_decide": decide_source(ids)}
    sources.update({name: template_source(name, package) for name in TEMPLATES})
    on_disk = cache.writable()
    if on_disk:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for name, text in sources.items():
                cache.write_if_changed(folder / f"{name}.py", text)
        except OSError as err:
            cache._cannot_write(folder, err)
            on_disk = False
    pkg = types.ModuleType(package)
    pkg.__path__ = [str(folder)]
    sys.modules[package] = pkg
    for name in ("_decide",) + TEMPLATES:
        fullname = f"{package}.{name}"
        path = folder / f"{name}.py"
        if on_disk:
            spec = importlib.util.spec_from_file_location(fullname, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[fullname] = module
            spec.loader.exec_module(module)
        else:
            module = _exec_module(fullname, sources[name], str(path))
        setattr(pkg, name, module)
    _loaded[ids] = pkg.loops
    return pkg.loops


def _marker(ids: tuple[int, ...], entry: str) -> Path:
    return cache.component_folder("engine") / "kernels" / _key(ids) / f"{entry}.compiled"


def kernel(sids, entry: str):
    """The compiled kernel ``entry`` of the strategy set of ``sids``."""
    return getattr(kernels_for(sids), entry)


def _announce() -> bool:
    """The compile note (one line on stderr) is printed whatever stderr is, a terminal, a log
    or a pipe: a first run that compiles for 20 s says why it is silent
    (``HERON_SIM_COMPILE_NOTE=0``: never)."""
    return os.environ.get("HERON_SIM_COMPILE_NOTE", "1") != "0"


def run_kernel(sids, entry: str, *args):
    """Call kernel ``entry`` of the strategy set of ``sids`` with ``args`` and the ``decide``
    address (:func:`decide_address`, added last); the first time it is compiled on this
    machine, say so on stderr (one line)."""
    ids = kernel_key(sids)
    fn = getattr(kernels_for(ids), entry)
    if (ids, entry) in _ready:
        return fn(*args, decide_address(ids))
    marker = _marker(ids, entry)
    cold = not (cache.writable() and marker.exists())
    if cold and _announce():
        first_shared = ids == SHARED and "heron_sim.strategies.decide_c" not in sys.modules
        seconds = _BASE_SECONDS[entry] + (_SHARED_SECONDS if first_shared else 0)
        what = "the engine" if entry == "play_batch" else f"the engine's {entry.replace('play_', '')} kernel"
        when = "once per machine" if cache.writable() else "not kept: the cache folder is read-only"
        print(f"compiling {what} for {set_name(ids)}, {when}: about {seconds} s",
              file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    result = fn(*args, decide_address(ids))
    _ready.add((ids, entry))
    if cold and cache.writable():
        from ..errors import OutputError
        from ..io import write_text

        try:  # atomic: a kill never leaves a torn marker
            write_text(marker, f"{time.perf_counter() - t0:.1f}\n")
        except OutputError:
            pass
    return result
