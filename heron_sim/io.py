"""Every file the project reads or writes goes through here.

Reading: :func:`read_bytes` / :func:`read_text` turn a missing file, a folder, a permission or
another OS error, and text that is not UTF-8 into one-line errors ``FILE: what went wrong``
(:class:`~heron_sim.errors.HeronSimError`, exit 2 on the command line).

Writing: :func:`atomic_path` hands out a temporary file in the destination's folder and renames
it into place only once it is completely written (``os.replace``, atomic on POSIX): a kill, a
full disk or a read-only folder never leaves a half-written file nor destroys the old one. A
write that fails raises :class:`~heron_sim.errors.OutputError` (exit 1).

JSON: :func:`dumps` writes ``null`` for NaN and infinities (JSON has no NaN).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterator

from .errors import HeronSimError, OutputError

def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()  # what open() would give a new file (mkstemp gives 0600)

#: Output formats by file extension.
TABLE_FORMATS = {".csv": "csv", ".parquet": "parquet"}
#: Version of the result files' layout and metadata (``format_version`` in :func:`read_meta`):
#: raised when a column or a key changes meaning; a reader refuses a newer one.
#: 2: the lighter games' ``strategies`` column is one name per seat in seat order (as Héron's),
#: no longer the sorted unique names; the metadata's ``strategies`` is one name per seat too.
FORMAT_VERSION = 2


# ---------------------------------------------------------------- reading
#: The most bytes :func:`read_bytes` reads: an input file (rules, experiment, tune file, manifest)
#: is small; ``/dev/zero`` or a huge file is refused instead of filling the memory.
MAX_READ = 64 * 2**20


def read_bytes(path: str | Path, field: str | None = None, limit: int = MAX_READ) -> bytes:
    """The bytes of ``path`` (at most ``limit``); OS errors become one-line :class:`HeronSimError`."""
    where = f"{field}: " if field else ""
    try:
        # O_NONBLOCK: a FIFO (a named pipe) with no writer would block the open for ever; it is
        # refused below with devices and sockets (a character device such as /dev/zero is read
        # up to the limit, as before: "larger than")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        kind = os.fstat(fd).st_mode
        if stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind):
            os.close(fd)
            raise HeronSimError(f"{where}{path}: a pipe or socket, not a file; allowed: a regular text file")
        if not stat.S_ISCHR(kind):
            os.set_blocking(fd, True)
        with open(fd, "rb") as fh:
            data = fh.read(limit + 1)
            if len(data) > limit:
                raise HeronSimError(f"{where}{path}: larger than {limit // 2**20} MiB; allowed: a small text file")
            return data
    except FileNotFoundError:
        raise HeronSimError(f"{where}{path}: file not found") from None
    except IsADirectoryError:
        raise HeronSimError(f"{where}{path}: is a folder, not a file") from None
    except PermissionError:
        raise HeronSimError(f"{where}{path}: permission denied") from None
    except OSError as err:
        raise HeronSimError(f"{where}{path}: cannot read: {err.strerror or err}") from None


def read_text(path: str | Path, field: str | None = None) -> str:
    """The text of ``path`` (UTF-8, a leading byte-order mark dropped, as a spreadsheet's "CSV
    UTF-8" writes it); a file that is not UTF-8 is a one-line error. Every text file heron-sim
    reads (rules, targets, experiments, tune files, logs, manifests) goes through here."""
    data = read_bytes(path, field)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        where = f"{field}: " if field else ""
        raise HeronSimError(f"{where}{path}: not UTF-8 text (byte {err.start}); allowed: a UTF-8 file") from None


# ---------------------------------------------------------------- JSON
def clean_json(x: Any) -> Any:
    """``x`` with NaN and infinite floats replaced by None and numpy scalars/arrays unboxed."""
    if isinstance(x, dict):
        return {str(k): clean_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean_json(v) for v in x]
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):
        return clean_json(x.tolist())
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, Path):
        return str(x)
    return x


def dumps(doc: Any, **kw) -> str:
    """JSON text with ``null`` for NaN/inf (never the bare ``NaN`` JSON readers reject)."""
    return json.dumps(clean_json(doc), allow_nan=False, **kw)


# ---------------------------------------------------------------- writing
def check_output(path: str | Path, field: str = "--out", formats: dict | None = None,
                 folder: bool = False) -> Path:
    """Check, before any game is played, that ``path`` can be written.

    ``formats`` maps allowed extensions to formats (an unknown extension is refused); with
    ``folder``, ``path`` is a folder to create or fill. The nearest existing parent must be a
    writable folder.
    """
    path = Path(path)
    if formats is not None and path.suffix.lower() not in formats:
        raise HeronSimError(f"{field}: {path}: unknown extension {path.suffix or '(none)'!r}; "
                            f"allowed: {', '.join(formats)}")
    if folder:
        if path.exists() and not path.is_dir():
            raise HeronSimError(f"{field}: {path} is a file; allowed: a folder")
    elif path.is_dir():
        raise HeronSimError(f"{field}: {path} is a folder; allowed: a file name")
    parent = path if folder and path.is_dir() else path.parent
    while not parent.exists():
        if parent.parent == parent:
            break
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise HeronSimError(f"{field}: {parent} is a file, not a folder")
    if not _writable(parent):
        raise HeronSimError(f"{field}: {parent}: folder not writable (read-only or permission denied)")
    return path


def _same(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file or folder (symbolic links and other spellings
    resolved; two existing names of one file, hard links included, compared by inode)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (resolved)."""
    p, f = path.resolve(), folder.resolve()
    return p == f or f in p.parents


def check_distinct(outputs: dict, inputs: dict | None = None, whole: tuple = ()) -> None:
    """Check, before any game is played, that one command's paths cannot overwrite each other.

    ``outputs`` maps each option that names a file or folder written (``--out``, ``--log-turns``,
    ``--run-dir``, ...) to its path, ``inputs`` each option naming a file or folder read; ``None``
    paths are skipped. ``whole`` names the output folders replaced as a whole when the command
    finishes (heron_sim.io.atomic_folder): nothing else of the command may lie inside one. Two
    outputs that are one file, an output that is an input, or a path inside a folder replaced
    whole is one ``error:`` line naming both options."""
    outs = [(f, Path(p)) for f, p in outputs.items() if p is not None]
    ins = [(f, Path(p)) for f, p in (inputs or {}).items() if p is not None]
    for i, (f1, p1) in enumerate(outs):
        for f2, p2 in outs[i + 1:]:
            if _same(p1, p2):
                raise HeronSimError(f"{f2}: {p2} is also {f1}: one would overwrite the other; "
                                    f"allowed: a different path for each")
        for f2, p2 in ins:
            if _same(p1, p2):
                raise HeronSimError(f"{f1}: {p1} is also {f2}, which the command reads; "
                                    f"allowed: another path")
    for fw, folder in outs:
        if fw not in whole:
            continue
        for f, p in outs + ins:
            if f != fw and _inside(p, folder):
                raise HeronSimError(f"{f}: {p} lies inside {fw} {folder}, which is replaced as a whole "
                                    f"when the command finishes; allowed: a path outside {folder}")


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def _io_error(path: Path, err: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write: {err.strerror or err}")


def mkdir(path: str | Path) -> Path:
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise _io_error(path, err) from None
    return path


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it is synced and renamed onto
    ``path``, on any failure it is removed and ``path`` is left as it was."""
    path = Path(path)
    mkdir(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".part", dir=path.parent)
    except OSError as err:
        raise _io_error(path, err) from None
    os.close(fd)
    tmp = Path(tmp)
    with contextlib.suppress(OSError):
        os.chmod(tmp, _MODE)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as err:
        _unlink(tmp)
        raise _io_error(path, err) from None
    except BaseException:
        _unlink(tmp)
        raise
    _remove_dead_parts(path)
    try:  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the rename has happened


def _remove_dead_parts(path: Path) -> None:
    """Remove the temporary files ``.NAME.<pid>.*.part`` of ``path`` left by processes that no
    longer run (a SIGKILL mid-write): they would otherwise stay forever."""
    prefix = f".{path.name}."
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix) and n.endswith(".part")]
    except OSError:
        return
    for name in names:
        pid_text = name[len(prefix):].split(".", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            os.kill(int(pid_text), 0)
            continue  # still running: its write is in progress
        except ProcessLookupError:
            pass
        except OSError:
            continue
        _unlink(path.parent / name)


class _KeepOld(Exception):
    """Leaves :func:`atomic_path` without writing: the temporary file is removed."""


def _unlink(p: Path) -> None:
    with contextlib.suppress(OSError):
        p.unlink()


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_bytes(path: str | Path, data: bytes) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_json(path: str | Path, doc: Any, **kw) -> Path:
    return write_text(path, dumps(doc, **kw))


def write_frame(df, path: str | Path, meta: dict | None = None) -> Path:
    """Write a DataFrame atomically, as CSV or Parquet by ``path``'s extension.

    ``meta`` (requested, played, interrupted, ...) goes into the Parquet schema metadata
    (key ``heron_sim``), and for a CSV into a ``PATH.meta.json`` file beside it.
    """
    path = Path(path)
    fmt = TABLE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise HeronSimError(f"--out: {path}: unknown extension; allowed: {', '.join(TABLE_FORMATS)}")
    with FrameWriter(path, meta) as w:
        w.write(df)
    return path


class FrameWriter:
    """Append DataFrame batches to one CSV or Parquet file (Parquet: one row group per batch),
    written to a temporary file and renamed into place by :meth:`close` (``commit``).

    Used as a context manager: leaving it by an exception discards the temporary file.

    With ``keep_on_stop`` (a long streamed run, ``simulate --out``), the batches already
    written are what a stop keeps: each :meth:`write` is a :func:`~heron_sim.interrupt.critical`
    block (a second Ctrl-C waits for the batch to be whole), the writer is a
    :func:`~heron_sim.interrupt.keeper` (a second Ctrl-C closes, labels — ``interrupted``,
    ``played`` = the rows written — and renames the file before the command exits at once), and
    leaving the block by a KeyboardInterrupt keeps and labels them too (from Python). A stop
    before any row was written keeps the old file.
    """

    def __init__(self, path: str | Path, meta: dict | None = None, keep_on_stop: bool = False):
        self.path = Path(path)
        self.fmt = TABLE_FORMATS.get(self.path.suffix.lower())
        if self.fmt is None:
            raise HeronSimError(f"--out: {self.path}: unknown extension; allowed: {', '.join(TABLE_FORMATS)}")
        self.meta = dict(meta or {})
        self.rows = 0
        self.keep_on_stop = keep_on_stop
        self.state = "open"  # then "written" (renamed into place) or "discarded"
        self._ctx = atomic_path(self.path)
        self._tmp: Path | None = None
        self._writer = None
        self._schema = None
        self._writing = False
        self._keeper = None
        self._lock = threading.RLock()  # one write or the keeping of the file at a time

    def __enter__(self) -> "FrameWriter":
        self._tmp = self._ctx.__enter__()
        if self.keep_on_stop:
            from .interrupt import keeper

            self._keeper = keeper(self)
            self._keeper.__enter__()
        return self

    def write(self, df) -> None:
        """Append a DataFrame, or (Parquet) a pyarrow Table of the first batch's schema
        (heron_sim.simulation builds them straight from the kernel's columns). May be called
        from a thread of its own (``simulate --out``'s writer): a second Ctrl-C that keeps the
        file (:meth:`keep_now`) waits for the batch being written and then writes no more."""
        from .interrupt import critical

        with critical(), self._lock:  # a second Ctrl-C waits for the batch to be written whole
            if self.state != "open":  # a second Ctrl-C kept the file meanwhile
                raise _io_error(self.path, OSError("the file was closed by a second stop"))
            self._writing = True
            try:
                self._write(df)
                self.rows += len(df)
            finally:
                self._writing = False

    def _write(self, df) -> None:
        try:
            if self.fmt == "csv":
                df.to_csv(self._tmp, mode="w" if self.rows == 0 else "a", header=self.rows == 0, index=False)
            else:
                import pyarrow as pa
                import pyarrow.parquet as pq

                table = df if isinstance(df, pa.Table) else pa.Table.from_pandas(df, preserve_index=False)
                if self._writer is None:
                    self._schema = table.schema
                    self._writer = pq.ParquetWriter(self._tmp, self._schema)
                else:
                    table = table.cast(self._schema)
                self._writer.write_table(table)
        except OSError as err:
            raise _io_error(self.path, err) from None

    def _label_stopped(self) -> None:
        """The metadata of a file cut short: what was asked stays ``requested``; ``played`` is
        the rows written."""
        self.meta.update(played=self.rows, interrupted=True)

    def keep_now(self) -> str:
        """The second Ctrl-C (see :func:`heron_sim.interrupt.keeper`): close, label and rename
        the file with the batches already written; the words that say what was kept."""
        with self._lock:  # a write on the writer's thread ends first
            return self._keep_now()

    def _keep_now(self) -> str:
        requested = self.meta.get("requested")
        of = f" of {requested:,}" if isinstance(requested, int) else ""
        if self.state == "written":  # closed before the second signal (after the first)
            label = " (labelled interrupted)" if self.meta.get("interrupted") else ""
            return f"kept the {self.meta.get('played', self.rows):,}{of} games in {self.path}{label}"
        if self.state == "discarded" or self._writing:
            return f"nothing was written to {self.path} (the old file, if any, is kept)"
        if self.rows == 0:
            self._discard()
            return f"nothing was written to {self.path} (the old file, if any, is kept)"
        self._label_stopped()
        self._commit()
        return (f"kept the {self.rows:,}{of} games already written, in {self.path} (labelled interrupted); "
                "the games not yet written are lost")

    def _commit(self) -> None:
        try:
            self._finish()
        except BaseException as err:
            self._close_writer()
            self.state = "discarded"
            self._ctx.__exit__(type(err), err, err.__traceback__)  # removes the temporary file
            raise
        self._close_writer()
        self.state = "discarded"  # until the rename has happened
        self._ctx.__exit__(None, None, None)
        self.state = "written"

    def _discard(self) -> None:
        self._close_writer()
        self.state = "discarded"
        err = _KeepOld()
        with contextlib.suppress(_KeepOld):
            self._ctx.__exit__(_KeepOld, err, None)

    def __exit__(self, etype, exc, tb):
        from .interrupt import critical

        try:
            with critical(), self._lock:  # the file is committed or discarded whole (a write ends first)
                if self.state != "open":  # a second Ctrl-C already kept it (from Python)
                    return False
                if etype is None:
                    self._commit()
                    return False
                if (self.keep_on_stop and issubclass(etype, KeyboardInterrupt)
                        and not self._writing and self.rows > 0):
                    self._label_stopped()
                    self._commit()
                    return False
                self._close_writer()
                self.state = "discarded"
                return self._ctx.__exit__(etype, exc, tb)
        finally:
            if self._keeper is not None:
                self._keeper.__exit__(None, None, None)
                self._keeper = None

    def _close_writer(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
            self._writer = None

    def _finish(self) -> None:
        from .provenance import package_version

        meta = {"format_version": FORMAT_VERSION, "package_version": package_version(), **self.meta,
                "rows": self.rows}
        try:
            if self.fmt == "parquet":
                import pyarrow.parquet as pq

                if self._writer is None:  # no rows at all: an empty file still says so
                    import pyarrow as pa

                    self._writer = pq.ParquetWriter(self._tmp, pa.schema([]))
                # Parquet metadata is in the footer: rewrite the schema metadata at close.
                self._writer.add_key_value_metadata({"heron_sim": dumps(meta)})
                self._writer.close()
                self._writer = None
            else:
                if self.rows == 0:
                    self._tmp.write_text("", encoding="utf-8")
        except OSError as err:
            raise _io_error(self.path, err) from None
        if self.fmt == "csv":
            write_json(self.path.with_name(self.path.name + ".meta.json"), meta, indent=1)


def read_meta(path: str | Path, check: bool = True) -> dict:
    """The ``heron_sim`` metadata of a result file written by :class:`FrameWriter`
    (``format_version``, ``package_version``, ``requested``, ``played``, ``interrupted``, and
    what the writer added: seed, mode, rules hash and table, git commit, ...).

    With ``check``, a file of a newer format than this heron-sim reads is one-line
    :class:`HeronSimError` (files written before the version was recorded read as version 0).
    """
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        try:
            md = pq.read_metadata(path).metadata or {}
        except OSError as err:
            raise HeronSimError(f"{path}: not a Parquet file heron-sim can read ({err})") from None
        raw = md.get(b"heron_sim")
        meta = json.loads(raw) if raw else {}
    else:
        side = path.with_name(path.name + ".meta.json")
        meta = json.loads(read_text(side)) if side.exists() else {}
    if check:
        version = meta.get("format_version", 0)
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise HeronSimError(f"{path}: result format {version!r}, newer than this heron-sim reads "
                                f"({FORMAT_VERSION}); allowed: files of format <= {FORMAT_VERSION} (upgrade heron-sim)")
    return meta


def read_frame(path: str | Path):
    """A result file written by :class:`FrameWriter` (CSV or Parquet), its format checked;
    ``df.attrs["heron_sim"]`` holds its metadata (:func:`read_meta`)."""
    import pandas as pd

    path = Path(path)
    meta = read_meta(path)
    fmt = TABLE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise HeronSimError(f"{path}: unknown extension; allowed: {', '.join(TABLE_FORMATS)}")
    df = pd.read_parquet(path) if fmt == "parquet" else pd.read_csv(path)
    df.attrs["heron_sim"] = meta
    return df


# ---------------------------------------------------------------- checksummed arrays
_ARRAYS_TRAILER = b"HERONSUM"  # then the SHA-256 of everything before it (as the kernel cache)


def write_arrays(path: str | Path, **arrays) -> Path:
    """Write numpy arrays (an ``.npz`` payload) atomically, with a SHA-256 trailer that
    :func:`read_arrays` checks: a truncated, emptied or flipped file is never read as valid."""
    import hashlib
    import io as _io

    import numpy as np

    buf = _io.BytesIO()
    np.savez(buf, **arrays)
    payload = buf.getvalue()
    return write_bytes(path, payload + _ARRAYS_TRAILER + hashlib.sha256(payload).digest())


def read_arrays(path: str | Path) -> dict | None:
    """The arrays of a file written by :func:`write_arrays`, or None if it is missing or
    damaged (wrong checksum, unreadable): the caller recomputes it."""
    import hashlib
    import io as _io

    import numpy as np

    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    tail = len(_ARRAYS_TRAILER) + 32
    payload = data[:-tail]
    if (len(data) < tail or data[-tail:-32] != _ARRAYS_TRAILER
            or hashlib.sha256(payload).digest() != data[-32:]):
        return None
    try:
        with np.load(_io.BytesIO(payload), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception:  # noqa: BLE001 - a payload that passed its checksum but does not load
        return None


# ---------------------------------------------------------------- a folder written as a whole
@contextlib.contextmanager
def atomic_folder(path: str | Path, field: str = "--out") -> Iterator[Path]:
    """Yield an empty temporary folder beside ``path``; when the block succeeds it replaces
    ``path`` as a whole (the old folder is renamed away, then removed), so a reader never sees
    new files mixed with old ones. On any failure the temporary folder is removed and ``path``
    is left as it was; an OS error becomes :class:`~heron_sim.errors.OutputError`."""
    import shutil

    path = Path(path)
    mkdir(path.parent)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent))
    except OSError as err:
        raise OutputError(f"{field}: {path}: cannot write: {err.strerror or err}") from None
    with contextlib.suppress(OSError):
        os.chmod(tmp, 0o777 & ~_umask())
    try:
        yield tmp
        old = None
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent))
            os.rmdir(old)
            os.replace(path, old)
        try:
            os.replace(tmp, path)
        except OSError:
            if old is not None:  # put the old results back
                os.replace(old, path)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as err:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"{field}: {path}: cannot write: {err.strerror or err}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
