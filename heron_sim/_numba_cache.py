"""Where numba keeps heron-sim's compiled kernels, and how that cache stays fresh and sound.

Numba's own cache is keyed on each function's file only: a change in a helper or a constant
that lives in another module (a game's ``rules.py``, the engine's layout) can leave a stale
compiled kernel behind. Here every compiled function of the package is cached in a folder keyed
by a hash of *all* the sources its component is built from:

- ``engine-<hash>``: the Héron engine, its strategies and rules (and the kernels generated per
  strategy set, heron_sim.loop.kernels);
- ``game-<name>-<hash>``: one lighter game: its own folder, the games' shared modules and the
  engine sources it may import (its random streams). Editing one game recompiles that game only.

The folders live under ``$NUMBA_CACHE_DIR`` if set, else ``$HERON_SIM_CACHE/numba`` (default
``~/.cache/heron-sim/numba``); nothing is ever written into the source tree. Every cache file is
written with a SHA-256 trailer: a file that fails to load (empty or damaged index, truncated or
flipped bytes) is discarded with a one-line message and rebuilt, instead of aborting the run. A
cache folder that cannot be written is reported once; the kernels are then compiled in memory.

Must run before any ``@njit(cache=True)`` is decorated: ``heron_sim/__init__.py`` imports this
module first.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import io
import os
import pickle
import sys
import tempfile
from pathlib import Path

import numba
from numba.core import caching
from numba.core.dispatcher import Dispatcher

_PACKAGE = Path(__file__).resolve().parent

#: The sources that the Héron engine's kernels are compiled from.
_KERNEL_SOURCES = ("engine", "loop", "strategies", "rules", "animals.py", "errors.py", "_numba_cache.py")
_TRAILER = b"HERONSUM"  # then the SHA-256 of everything before it
_TAIL = len(_TRAILER) + 32


def _hash_paths(paths, digest) -> None:
    for path in sorted(set(paths)):
        digest.update(str(path.relative_to(_PACKAGE)).encode())
        digest.update(path.read_bytes())


def _kernel_paths() -> list[Path]:
    paths = []
    for name in _KERNEL_SOURCES:
        target = _PACKAGE / name
        paths.extend(target.rglob("*.py") if target.is_dir() else [target])
    return paths


@functools.lru_cache(maxsize=None)
def component(kind: str) -> str:
    """Name of the cache folder of a component: ``engine`` or ``game-<name>`` (with its hash)."""
    digest = hashlib.sha256()
    paths = _kernel_paths()
    if kind.startswith("game-"):
        games = _PACKAGE / "games"
        paths += list((games / kind[5:]).rglob("*.py")) + list(games.glob("*.py"))
    _hash_paths(paths, digest)
    return f"{kind}-{digest.hexdigest()[:16]}"


def _sources_hash() -> str:
    """Hash of the Héron engine's sources (kept for callers of the old name)."""
    return component("engine").rsplit("-", 1)[1]


def _component_of(py_file: Path) -> str | None:
    """The component a package source file belongs to, or None (not ours)."""
    try:
        rel = py_file.relative_to(_PACKAGE)
    except ValueError:
        return None
    if rel.parts[0] == "games" and len(rel.parts) > 2:
        return f"game-{rel.parts[1]}"
    return "engine"


def numba_folder() -> Path:
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("HERON_SIM_CACHE")
    return (Path(base) if base else Path.home() / ".cache" / "heron-sim") / "numba"


_state = {"folder": None, "writable": True, "said": set()}


def say_once(key: str, message: str) -> None:
    """One line on stderr, at most once per process and key."""
    if key not in _state["said"]:
        _state["said"].add(key)
        print(f"heron-sim: {message}", file=sys.stderr, flush=True)


def writable() -> bool:
    return _state["writable"]


def folder() -> Path:
    return _state["folder"]


def component_folder(kind: str) -> Path:
    return folder() / component(kind)


def _cannot_write(path, err) -> None:
    _state["writable"] = False
    say_once("unwritable", f"cannot write the cache folder {path} ({err.strerror or err}); "
                           "compiled kernels are not kept: every run compiles them again")


def _ours(path) -> bool:
    base = folder()
    try:
        Path(path).resolve().relative_to(base.resolve())
        return True
    except (ValueError, OSError):
        return False


class HeronLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Cache folder of the package's functions (by component) and of the generated kernels."""

    def __init__(self, py_func, py_file, cache_path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_path)

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        path = Path(py_file).resolve()
        kind = _component_of(path)
        if kind is not None:
            rel = path.parent.relative_to(_PACKAGE)
            cache_path = component_folder(kind) / rel
        elif _ours(path):  # a kernel module generated into the cache folder: cached beside it
            cache_path = path.parent / "__nbcache__"
        else:
            return None  # not ours: numba's usual locators
        self = cls(py_func, str(path), cache_path)
        try:
            self.ensure_cache_path()
        except OSError as err:  # never fall back to the source tree: report, save nothing
            _cannot_write(cache_path, err)
        return self


class _Damaged(Exception):
    pass


def discard(path, what: str = "a compiled-kernel cache file") -> None:
    """Delete a damaged cache file and say so (once per process)."""
    try:
        os.unlink(path)
    except OSError:
        pass
    say_once("damaged", f"{what} was damaged and is discarded ({path}); rebuilding it once")


class CheckedCacheFile(caching.IndexDataCacheFile):
    """numba's index/data cache files, with a checksum trailer in heron-sim's folders: a file
    that fails its checksum or does not unpickle is discarded and the kernel recompiled."""

    def __init__(self, cache_path, filename_base, source_stamp):
        super().__init__(cache_path, filename_base, source_stamp)
        self._checked = _ours(cache_path)

    def _write(self, path, payload: bytes) -> None:
        if not writable():
            return
        try:
            with self._open_for_write(path) as f:
                f.write(payload + _TRAILER + hashlib.sha256(payload).digest())
        except OSError as err:
            _cannot_write(self._cache_path, err)

    @staticmethod
    def _read(path) -> bytes:
        with open(path, "rb") as f:
            data = f.read()
        payload = data[:-_TAIL]
        if (len(data) < _TAIL or data[-_TAIL:-32] != _TRAILER
                or hashlib.sha256(payload).digest() != data[-32:]):
            raise _Damaged(path)
        return payload

    def _save_index(self, overloads):
        if not self._checked:
            return super()._save_index(overloads)
        head = pickle.dumps(self._version, protocol=-1)
        self._write(self._index_path, head + self._dump((self._source_stamp, overloads)))

    def _load_index(self):
        if not self._checked:
            return super()._load_index()
        try:
            f = io.BytesIO(self._read(self._index_path))
            version = pickle.load(f)
            if version != self._version:
                return {}
            stamp, overloads = pickle.loads(f.read())
        except FileNotFoundError:
            return {}
        except Exception:  # noqa: BLE001 — any unreadable index: discard and recompile
            discard(self._index_path)
            return {}
        return overloads if stamp == self._source_stamp else {}

    def _save_data(self, name, data):
        if not self._checked:
            return super()._save_data(name, data)
        self._write(self._data_path(name), self._dump(data))

    def _load_data(self, name):
        if not self._checked:
            return super()._load_data(name)
        path = self._data_path(name)
        try:
            return pickle.loads(self._read(path))
        except FileNotFoundError:
            raise
        except Exception:  # noqa: BLE001 — numba treats OSError as "not cached": recompile
            discard(path)
            raise OSError(f"damaged cache file {path}") from None


_enable_caching = Dispatcher.enable_caching


def _enable_caching_here(self):
    """Functions of the package cache nothing when the folder cannot be written (numba would
    otherwise fall back to the source tree or ~/.cache/numba)."""
    try:
        src = Path(inspect.getfile(self.py_func)).resolve()
        # The package's sources, and the kernel modules generated into the cache folder: when
        # that folder is read-only they are compiled in memory and never written to disk.
        ours = _component_of(src) is not None or _ours(src)
    except (TypeError, OSError):
        ours = False
    if ours and not writable():
        self._cache = caching.NullCache()
        return
    _enable_caching(self)


def configure() -> Path:
    """Point numba at heron-sim's cache folders (see the module's doc) and return the engine's."""
    base = numba_folder()
    _state["folder"] = base
    try:
        base.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=base).close()
    except OSError as err:
        _cannot_write(base, err)
    if HeronLocator not in caching.CacheImpl._locator_classes:
        caching.CacheImpl._locator_classes.insert(0, HeronLocator)
    caching.IndexDataCacheFile = CheckedCacheFile
    Dispatcher.enable_caching = _enable_caching_here
    if not os.environ.get("NUMBA_CACHE_DIR"):
        numba.config.CACHE_DIR = str(base / "other")  # users' own cached functions
    return component_folder("engine")


CACHE_DIR = configure()


def write_if_changed(path: Path, text: str) -> None:
    """Write a generated kernel source ``text`` to ``path`` atomically, only if it differs
    (numba keys its cache on the file's mtime). OS errors are the caller's to report."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
