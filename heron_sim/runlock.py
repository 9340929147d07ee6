"""A run folder has one owner: a lock file holding the owner's pid.

    with RunLock(run_dir, "--run-dir", log=print):
        ...  # only this process writes into run_dir

The lock is ``<folder>/.lock``, held with ``flock`` (released by the kernel when the process
dies, whatever kills it) and holding ``pid host start-time`` so that a refusal names the owner.
A second process that targets the folder is refused with one line
(:class:`~heron_sim.errors.HeronSimError`). A lock file left by a process that is gone (SIGKILL,
power loss) is stale: it is taken over, with one line saying so. The file is removed on release.
"""

from __future__ import annotations

import datetime as _dt
import errno
import os
import socket
from pathlib import Path
from typing import Callable

from .errors import HeronSimError, OutputError

LOCK_NAME = ".lock"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _owner(text: str) -> tuple[int | None, str, str]:
    parts = text.split()
    try:
        pid = int(parts[0])
    except (IndexError, ValueError):
        pid = None
    return pid, parts[1] if len(parts) > 1 else "?", " ".join(parts[2:3])


class RunLock:
    """Exclusive ownership of ``folder`` (created if missing) by this process."""

    def __init__(self, folder: str | Path, field: str = "--run-dir", log: Callable[[str], None] | None = None):
        self.folder = Path(folder)
        self.field = field
        self.log = log or (lambda s: None)
        self.path = self.folder / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> "RunLock":
        import fcntl

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise OutputError(f"{self.field}: {self.folder}: cannot write: {err.strerror or err}") from None
        for _ in range(20):  # the file may be removed between our open and our flock: retry
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as err:
                raise OutputError(f"{self.field}: {self.folder}: cannot write a lock file: "
                                  f"{err.strerror or err}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as err:
                text = _read(fd)
                os.close(fd)
                if err.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise OutputError(f"{self.field}: {self.folder}: cannot lock: {err.strerror or err}") from None
                pid, host, since = _owner(text)
                who = f"process {pid}" if pid else "another process"
                raise HeronSimError(f"{self.field}: {self.folder} is in use by {who}"
                                    f"{' on ' + host if host not in ('?', socket.gethostname()) else ''}"
                                    f"{' since ' + since if since else ''}; wait for it to finish or stop "
                                    "it, or choose another folder") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the previous owner removed the file after we opened it
                os.close(fd)
                continue
            old = _read(fd)
            pid, host, since = _owner(old)
            if pid is not None and pid != os.getpid():
                state = "no longer running" if not _alive(pid) or host != socket.gethostname() else "gone"
                self.log(f"{self.folder}: took over a stale lock of process {pid} ({state}"
                         f"{', since ' + since if since else ''})")
            stamp = _dt.datetime.now().isoformat(timespec="seconds")
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {socket.gethostname()} {stamp}\n".encode(), 0)
            self._fd = fd
            return self
        raise HeronSimError(f"{self.field}: {self.folder}: the lock file keeps changing; another process "
                            "is taking the folder")

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)  # closing drops the flock
        self._fd = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _read(fd: int) -> str:
    try:
        return os.pread(fd, 200, 0).decode("utf-8", "replace")
    except OSError:
        return ""


def is_lock_file(path: Path) -> bool:
    return path.name == LOCK_NAME
