"""The embedded sandbox: the UI's default backend when no profile is configured.

Parts, one module:

- `EmbeddedSandbox` (parent side, stdlib-only imports, so the UI can import it before Textual
  without paying for FastAPI, about 0.3 s). Two modes:

  - keep-warm (what `paytui` uses for the default database): one detached server per database on
    `<user runtime dir>/paytui/sandbox-<hash of the db path>.sock` (dir mode 0700). `start()` first
    asks that socket `GET /sandbox/health`; a live server of the same build is reused at once (the
    whole point: the next `paytui` skips FastAPI's start-up). Otherwise a new one is spawned in its
    own session. Each UI holds a shared `flock` on `...clients` (a lease the kernel drops when the
    UI dies); the server exits once no lease is held and no request came for the idle period
    (`PAYTUI_SANDBOX_IDLE` seconds, default 600; 0 turns keep-warm off). `stop_warm()` (and
    `paytui sandbox --stop`) stops it at once.
  - private (tests, `PaytuiApp()`, any explicit `db_path`): `python -m paytui.sandbox.child --uds
    PATH` in a private temp dir; it exits when its stdin reaches EOF, which happens when the
    parent closes it or dies, so no orphan outlives the UI.

- The child (`prepare`, run by `paytui.sandbox.child` in a thread nicer than the UI, then the
  server it returns): builds the database if missing (rebuilds the default one when its schema
  version is not `schema.USER_VERSION`; refuses any other), serves it with uvicorn on the socket,
  prints exactly one `READY` line once it accepts connections.
- `asgi_transport`: the same app in-process over httpx's ASGITransport, for tests.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from paytui.console import SafeArgumentParser, say

if TYPE_CHECKING:
    from collections.abc import Callable

    from paytui.sandbox.faults import Faults
    from paytui.sandbox.transport import InProcessTransport

BASE_URL = "http://sandbox"
READY = "READY"
HEALTH_PATH = "/sandbox/health"
#: Seconds a keep-warm sandbox lives on after its last client and last request.
DEFAULT_IDLE = 600.0
IDLE_ENV = "PAYTUI_SANDBOX_IDLE"


class OutdatedDatabaseError(RuntimeError):
    """A database given with `--db` was built by another sandbox schema version."""


def default_db_path() -> Path:
    """`<user data dir>/paytui/sandbox.sqlite3`, shared with `paytui sandbox`."""
    import platformdirs

    return Path(platformdirs.user_data_dir("paytui")) / "sandbox.sqlite3"


def database_version(db_path: Path) -> int:
    """The database's `PRAGMA user_version` (0 for one built before versioning)."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def ensure_database(
    db_path: Path,
    *,
    charges: int = 3000,
    seed: int = 7,
    fresh: bool = False,
    rebuild_outdated: bool | None = None,
) -> bool:
    """Build the demo database when missing (or when `fresh`); answers whether it built one.

    `rebuild_outdated` (default: only for `default_db_path()`, the demo database that paytui owns)
    also rebuilds one of another schema version (`schema.USER_VERSION`), and one whose data ends on
    an earlier day than today and that nobody has written to since (a demo that stops days ago
    finds nothing for `from:yesterday`); one that was written to is kept, with a line saying how
    to bring it up to today. Any other database of another version raises
    `OutdatedDatabaseError` with what to do about it. A new database ends at the current hour.
    """
    from paytui.sandbox.schema import USER_VERSION

    if db_path.exists() and not fresh:
        if rebuild_outdated is None:
            rebuild_outdated = _same_path(db_path, default_db_path())
        import sqlite3

        try:
            version: int | str = database_version(db_path)
        except sqlite3.DatabaseError:
            if not rebuild_outdated:
                raise
            version = "unreadable"
        if version == USER_VERSION:
            if not rebuild_outdated or not _behind_and_untouched(db_path):
                return False
            say("paytui sandbox: bringing the demo data up to today", err=True)
        elif not rebuild_outdated:
            raise OutdatedDatabaseError(
                f"{db_path} has sandbox schema version {version}, this paytui needs "
                f"{USER_VERSION}: rebuild it with `paytui sandbox --db {db_path} --fresh` "
                "(its data is replaced by the demo seed)"
            )
        else:
            say(
                f"paytui sandbox: rebuilding {db_path} (schema version {version}, "
                f"need {USER_VERSION})",
                err=True,
            )
    from paytui.sandbox.seed import build_database, demo_anchor

    build_database(db_path, charges=charges, seed=seed, anchor=demo_anchor())
    return True


def database_as_is(db_path: Path) -> bool:
    """Whether `ensure_database(db_path)` would serve this database as it is: it exists, has this
    schema version, and is not a demo database due to be brought up to today. Quiet and
    read-only: the first-page reader (`paytui.ui.first_page`) asks it while the server starts,
    to read the store only when the server will answer from that same file."""
    import sqlite3

    from paytui.sandbox.schema import USER_VERSION

    try:
        if not db_path.exists() or database_version(db_path) != USER_VERSION:
            return False
    except sqlite3.DatabaseError:
        return False
    return not (
        _same_path(db_path, default_db_path()) and _behind_and_untouched(db_path, quiet=True)
    )


def _behind_and_untouched(db_path: Path, *, quiet: bool = False) -> bool:
    """The demo data ends before today and holds nothing a user made (else: say how to refresh,
    unless `quiet`)."""
    import sqlite3

    from paytui.sandbox.demo_state import demo_data_state

    try:
        state = demo_data_state(db_path)
    except sqlite3.DatabaseError:
        return False
    if not state.behind():
        return False
    if state.changed:
        if not quiet:
            ends = state.anchor.date().isoformat() if state.anchor else "on an unknown day"
            say(
                f"paytui sandbox: the demo data ends {ends} and holds your changes, so it is"
                " kept; `paytui sandbox --fresh` brings it up to today (replacing them)",
                err=True,
            )
        return False
    return True


def _same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def asgi_transport(
    db_path: Path | str, *, faults: Faults | None = None, boarding_interval: float = 20.0
) -> InProcessTransport:
    """An in-process transport over `create_app(db_path)`; use with base URL `http://sandbox`.

    It enforces the client's timeout and fails like a network (see `InProcessTransport`).
    `boarding_interval`: seconds of the wall clock between the demo accounts' boarding steps."""
    from paytui.sandbox.app import create_app
    from paytui.sandbox.transport import InProcessTransport

    return InProcessTransport(
        create_app(db_path, faults=faults, boarding_interval=boarding_interval)
    )


# -- keep-warm: where the shared server lives, and how to ask it ------------------------------


def runtime_dir() -> Path:
    """`<user runtime dir>/paytui`, created with mode 0700; refused unless ours and private."""
    import platformdirs

    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        path = Path(platformdirs.user_runtime_dir("paytui"))
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        path = Path(tempfile.gettempdir()) / f"paytui-{os.getuid()}"
        path.mkdir(mode=0o700, exist_ok=True)
    info = path.stat()
    if info.st_uid != os.getuid():
        raise OSError(f"{path} belongs to another user")
    if info.st_mode & 0o077:
        path.chmod(0o700)
    return path


def warm_paths(db_path: Path) -> dict[str, Path]:
    """The socket, owner lock, client lease file and log of the warm server of `db_path`."""
    key = hashlib.sha256(str(db_path.resolve()).encode()).hexdigest()[:16]
    base = runtime_dir() / f"sandbox-{key}"
    return {
        "socket": base.with_suffix(".sock"),
        "lock": base.with_suffix(".lock"),
        "clients": base.with_suffix(".clients"),
        "log": base.with_suffix(".log"),
    }


def build_id() -> str:
    """What a warm server must match to be reused: paytui version, schema, sandbox sources.

    The sources' mtimes are part of it so a server started before an edit (or an upgrade that kept
    the version number) is replaced, not reused; stat-ing them costs well under a millisecond.
    """
    from paytui import __version__

    here = Path(__file__).parent
    digest = hashlib.sha256(f"{__version__}|{_schema_version()}".encode())
    for source in sorted(here.glob("*.py")):
        with contextlib.suppress(OSError):
            digest.update(f"{source.name}:{source.stat().st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _schema_version() -> int:
    # Read from the source text: importing schema.py would import sqlite3 in the UI process.
    text = (Path(__file__).with_name("schema.py")).read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("USER_VERSION ="):
            return int(line.split("=", 1)[1].strip())
    return 0


def health(socket_path: Path, timeout: float = 1.0) -> dict[str, Any] | None:
    """`GET /sandbox/health` over the socket with the stdlib; None when nothing sane answers."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(socket_path))
            sock.sendall(
                f"GET {HEALTH_PATH} HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n\r\n".encode()
            )
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
    except OSError:
        return None
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        return None
    try:
        answer = json.loads(body)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def idle_seconds(environ: dict[str, str] | None = None) -> float:
    """`PAYTUI_SANDBOX_IDLE` (seconds; 0 = no keep-warm), else `DEFAULT_IDLE`."""
    value = (os.environ if environ is None else environ).get(IDLE_ENV, "").strip()
    try:
        return max(0.0, float(value)) if value else DEFAULT_IDLE
    except ValueError:
        return DEFAULT_IDLE


def stop_warm(db_path: Path | None = None, timeout: float = 10) -> bool:
    """Stop the warm server of `db_path` (default database) now; answers whether one ran."""
    import fcntl

    paths = warm_paths(db_path or default_db_path())
    answer = health(paths["socket"])
    if answer is None or not isinstance(answer.get("pid"), int):
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(answer["pid"], signal.SIGTERM)
    deadline = time.monotonic() + timeout
    with open(paths["lock"], "a+b") as lock:  # the owner holds it until it has exited
        while time.monotonic() < deadline:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                time.sleep(0.02)
                continue
            fcntl.flock(lock, fcntl.LOCK_UN)
            return True
    return True


def _cpu_ticks(pid: int | None) -> int | None:
    """The CPU ticks process `pid` used (Linux's /proc; None elsewhere, or once it is gone)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[11]) + int(fields[12])


class EmbeddedSandbox:
    """A sandbox server on a Unix socket (parent side, stdlib only): warm shared, or private."""

    base_url = BASE_URL

    def __init__(
        self,
        process: subprocess.Popen[bytes] | None,
        temp_dir: Path | None,
        *,
        socket_path: Path | None = None,
        lease: Any = None,
        log_path: Path | None = None,
        db_path: Path | None = None,
    ) -> None:
        self._process = process
        #: The database its server serves, when known here (the keep-warm server's).
        self.db_path = db_path
        self._temp_dir = temp_dir
        self._lease = lease
        self._ready = threading.Event()
        self._stopped = False
        self.warm = temp_dir is None
        self.reused = process is None
        if socket_path is None:
            assert temp_dir is not None
            socket_path = temp_dir / "sandbox.sock"
        self.socket_path = socket_path
        self._log_path = log_path or (temp_dir / "stderr.log" if temp_dir else None)
        if process is None:
            self._ready.set()
        else:
            threading.Thread(target=self._watch_stdout, name="sandbox-stdout", daemon=True).start()

    @classmethod
    def start(
        cls,
        db_path: Path | None = None,
        *,
        keep_warm: bool | None = None,
        give_way: bool = False,
    ) -> EmbeddedSandbox:
        """Reuse or spawn the server; returns at once (call `wait_ready` before the first request).

        `keep_warm` defaults to: the default database and `PAYTUI_SANDBOX_IDLE` is not 0.
        `give_way`: a new server's start runs 10 nicer than its serving (`paytui.sandbox.child`),
        for the dashboard, whose first page does not wait for it; a caller that waits for the
        server at once (a script command) leaves it at its own priority.
        """
        idle = idle_seconds()
        if keep_warm is None:
            keep_warm = db_path is None and idle > 0
        extra = ["--give-way"] if give_way else []
        if keep_warm:
            return cls._start_warm(db_path or default_db_path(), idle or DEFAULT_IDLE, extra)
        temp_dir = Path(tempfile.mkdtemp(prefix="paytui-sandbox-"))
        command = [
            sys.executable,
            "-m",
            "paytui.sandbox.child",
            "--uds",
            str(temp_dir / "sandbox.sock"),
        ]
        if db_path is not None:
            command += ["--db", str(db_path)]
        command += extra
        with open(temp_dir / "stderr.log", "wb") as stderr:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                close_fds=True,
            )
        return cls(process, temp_dir, db_path=db_path or default_db_path())

    @classmethod
    def _start_warm(cls, db_path: Path, idle: float, extra: list[str]) -> EmbeddedSandbox:
        import fcntl

        paths = warm_paths(db_path)
        # The lease first: a server that sees it does not decide to exit under us. It blocks only
        # for the instant an exiting server holds the file exclusively (see `_IdleWatch`).
        lease = open(paths["clients"], "a+b")  # noqa: SIM115 (held until stop)
        try:
            fcntl.flock(lease, fcntl.LOCK_SH)
            want = build_id()
            answer = health(paths["socket"])
            if answer is not None and answer.get("build") == want:
                return cls(None, None, socket_path=paths["socket"], lease=lease, db_path=db_path)
            if answer is not None and isinstance(answer.get("pid"), int):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(answer["pid"], signal.SIGTERM)  # an older build: replace it
            command = [
                sys.executable,
                "-m",
                "paytui.sandbox.child",
                "--uds",
                str(paths["socket"]),
                "--db",
                str(db_path),
                "--keep-warm",
                "--idle",
                str(idle),
                *extra,
            ]
            with open(paths["log"], "wb") as log:
                process = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    close_fds=True,
                    start_new_session=True,  # not killed by the terminal's Ctrl-C or hang-up
                )
        except BaseException:
            lease.close()
            raise
        return cls(
            process,
            None,
            socket_path=paths["socket"],
            lease=lease,
            log_path=paths["log"],
            db_path=db_path,
        )

    def _watch_stdout(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            if line.strip() == READY.encode():
                self._ready.set()

    def stderr_tail(self, lines: int = 20) -> str:
        if self._log_path is None:
            return ""
        try:
            text = self._log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def wait_ready(self, timeout: float = 30, at_most: float | None = None) -> None:
        """Block until the server accepts connections; RuntimeError if it died or took too long.

        "Too long" is `timeout` without progress: a server whose CPU time went on meanwhile is
        waited for again, up to `at_most` (10 timeouts). The dashboard's starts 10 nicer
        (`child.START_NICE`): with every core busy, a fixed 30 s failed a start only slow."""
        step = 0.02
        waited = 0.0
        total = 0.0
        limit = timeout * 10 if at_most is None else at_most
        pid = self._process.pid if self._process is not None else None
        ticks = _cpu_ticks(pid)
        while not self._ready.wait(step):
            if self._process is not None and self._process.poll() is not None:
                if self._ready.is_set():
                    break
                raise RuntimeError(
                    f"embedded sandbox exited with status {self._process.returncode}:\n"
                    + self.stderr_tail()
                )
            waited += step
            total += step
            if waited >= timeout:
                now = _cpu_ticks(pid)
                if total < limit and now is not None and ticks is not None and now > ticks:
                    ticks, waited = now, 0.0  # still starting, slowly: wait another round
                    continue
                still = "still starting" if total >= limit else "not ready"
                raise RuntimeError(
                    f"embedded sandbox {still} after {total:g} s:\n" + self.stderr_tail()
                )

    @property
    def running(self) -> bool:
        if self.warm:
            return health(self.socket_path) is not None
        assert self._process is not None
        return self._process.poll() is None

    def stop(self, timeout: float = 5) -> None:
        """Let go of the server: a private one is stopped, a warm one only loses this lease.

        A private child gets EOF on stdin (its signal to exit), is waited for, killed if needed.
        """
        if self._stopped:
            return
        self._stopped = True
        if self._lease is not None:
            self._lease.close()
        process = self._process
        if process is None:
            return
        if self.warm:
            # The detached server lives on; reap it if it already ended (e.g. it found another).
            if process.stdout is not None:
                process.stdout.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(0)
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)

    def __enter__(self) -> EmbeddedSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- the child ---------------------------------------------------------------------------------


def _exit_on_stdin_eof(server: Any) -> None:
    """Read stdin until EOF (parent closed it or died), then ask uvicorn to shut down."""
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    server.should_exit = True


class _IdleWatch:
    """ASGI wrapper of a warm server: answers `/sandbox/health`, ends the server when idle.

    Idle means: no request in flight, none for `idle` seconds, and no UI holding a lease (a shared
    flock on the clients file). The check takes that file exclusively and, while holding it,
    removes the socket before asking uvicorn to stop, so a UI starting at that moment either got
    its lease first (and the server stays) or finds no socket (and starts a new server).
    """

    def __init__(self, app: Any, *, idle: float, info: dict[str, Any], paths: dict[str, Path]):
        self.app = app
        self.idle = idle
        self.info = json.dumps(info).encode()
        self.paths = paths
        self.in_flight = 0
        self.last_active = time.monotonic()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.last_active = time.monotonic()
        if scope["path"] == HEALTH_PATH:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(self.info)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": self.info})
            return
        self.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1
            self.last_active = time.monotonic()

    def watch(self, server: Any) -> None:
        """Thread: every few seconds, stop the server once idle (see the class docstring)."""
        import fcntl

        step = min(max(self.idle / 4, 0.05), 5.0)
        with open(self.paths["clients"], "a+b") as clients:
            while not server.should_exit:
                time.sleep(step)
                if self.in_flight or time.monotonic() - self.last_active < self.idle:
                    continue
                try:
                    fcntl.flock(clients, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:  # a UI holds a lease: it counts as activity
                    self.last_active = time.monotonic()
                    continue
                try:
                    if self.in_flight or time.monotonic() - self.last_active < self.idle:
                        continue
                    with contextlib.suppress(OSError):
                        self.paths["socket"].unlink()
                    server.should_exit = True
                finally:
                    fcntl.flock(clients, fcntl.LOCK_UN)


def _become_owner(paths: dict[str, Path], build: str, timeout: float = 30) -> Any:
    """The owner lock of the warm socket, or None once another server of this build answers."""
    import fcntl

    lock = open(paths["lock"], "a+b")  # noqa: SIM115 (held for the server's life)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return lock
        except OSError:
            pass
        answer = health(paths["socket"])
        if answer is not None and answer.get("build") == build:
            lock.close()
            return None
        if time.monotonic() > deadline:
            lock.close()
            raise RuntimeError(f"another sandbox holds {paths['lock']} and does not answer")
        time.sleep(0.02)


def _build(db_path: Path) -> Any:
    """The sandbox's app over `db_path` (its database built or brought up to today first when
    it must be: `ensure_database`, which rebuilds only the default database when outdated), and
    uvicorn imported, without what serving never uses (`serving_imports_only`)."""
    ensure_database(db_path)
    serving_imports_only()
    import uvicorn  # noqa: F401 (the server's, imported here with the rest)

    from paytui.sandbox.app import create_app

    return create_app(db_path)


def serving_imports_only() -> None:
    """Let the server's libraries be imported without what the sandbox's server never runs
    (call before uvicorn and FastAPI are first imported; no effect once they are):

    - uvicorn's command line: its package initialiser imports `uvicorn.main` (click, the
      reloader's and workers' supervisors, multiprocessing) to export `main`, `run` and
      `Server`; a stand-in gives `Server` from `uvicorn.server`, where it is defined, and
      refuses the other two, which the sandbox never calls.
    - `pydantic.v1`: FastAPI imports it on every route it builds only to refuse a pydantic v1
      model in its signature (`fastapi._compat.shared.is_pydantic_v1_model_class`); with the
      module marked absent the check answers "not v1" at once. No sandbox model is a v1 model:
      one would fail at import, not pass silently.

    Together 47 modules, about a tenth of the server's start. Only the served sandbox's process
    calls this (`python -m paytui.sandbox.child`); the in-process sandbox of the tests
    imports both libraries whole."""
    import types

    if "uvicorn" not in sys.modules and "uvicorn.main" not in sys.modules:

        def stand_in(name: str) -> Any:
            if name == "Server":
                from uvicorn.server import Server

                return Server
            if name in ("main", "run"):

                def no_cli(*args: object, **kwargs: object) -> NoReturn:
                    raise RuntimeError("uvicorn's command line is not loaded in the sandbox")

                return no_cli
            raise AttributeError(f"module 'uvicorn.main' has no attribute {name!r}")

        stub = types.ModuleType("uvicorn.main", "Stand-in for uvicorn's CLI (paytui.sandbox).")
        stub.__dict__["__getattr__"] = stand_in
        sys.modules["uvicorn.main"] = stub
    if "fastapi" not in sys.modules:
        sys.modules.setdefault("pydantic.v1", None)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    """`python -m paytui.sandbox.embedded`: the same as the server's own entry,
    `python -m paytui.sandbox.child` (which `EmbeddedSandbox.start` spawns)."""
    from paytui.sandbox.child import main as child_main

    return child_main(argv)


def prepare(argv: list[str] | None) -> int | Callable[[Callable[[], object]], int]:
    """Everything of the server's process before it serves (run by `paytui.sandbox.child` in
    its start thread): the arguments, the owner lock of a kept-warm socket, the database, the
    app. An exit code when there is nothing to serve, else the function that serves (on the
    main thread) and calls its argument once it accepts connections."""
    parser = SafeArgumentParser(prog="python -m paytui.sandbox.child")
    parser.add_argument("--uds", help="Unix socket path to serve on")
    parser.add_argument("--db", type=Path, default=None, help="database (default: user data dir)")
    parser.add_argument(
        "--keep-warm", action="store_true", help="shared server: exit when idle, not on stdin EOF"
    )
    parser.add_argument("--idle", type=float, default=DEFAULT_IDLE, help="idle seconds (warm)")
    parser.add_argument("--stop", action="store_true", help="stop the warm server of --db")
    parser.add_argument(
        "--give-way",
        action="store_true",
        help="start 10 nicer than serving, in a thread of its own (paytui.sandbox.child)",
    )
    args = parser.parse_args(argv)
    db_path = args.db or default_db_path()
    if args.stop:
        say("stopped" if stop_warm(db_path) else "no warm sandbox was running")
        return 0
    if not args.uds:
        parser.error("--uds is required")

    owner_lock = None
    watch: _IdleWatch | None = None
    if args.keep_warm:
        paths = warm_paths(db_path)
        build = build_id()
        owner_lock = _become_owner(paths, build)
        if owner_lock is None:  # another UI started one first: use it
            say(READY, flush=True)
            return 0
        with contextlib.suppress(FileNotFoundError):
            Path(args.uds).unlink()  # stale: its owner is gone (we hold the lock)
    try:
        app: Any = _build(db_path)
    except OutdatedDatabaseError as exc:
        say(f"paytui sandbox: {exc}", err=True)
        return 2
    if args.keep_warm:
        info = {"build": build, "db": str(db_path.resolve()), "pid": os.getpid()}
        app = watch = _IdleWatch(app, idle=args.idle, info=info, paths=paths)

    def serve(serving: Callable[[], object]) -> int:
        import uvicorn  # imported by `_build`

        class _Server(uvicorn.Server):
            async def startup(self, sockets: Any = None) -> None:
                await super().startup(sockets)
                if not self.should_exit:
                    with contextlib.suppress(OSError):
                        os.chmod(args.uds, 0o600)
                    say(READY, flush=True)
                    serving()
                    if args.keep_warm:  # the UI that spawned us may go: never write to its pipe
                        devnull = os.open(os.devnull, os.O_WRONLY)
                        os.dup2(devnull, sys.stdout.fileno())
                        os.close(devnull)

        # h11: it tells a running request that its client hung up (`client_watch`); httptools
        # tells only a pipelined request behind it.
        config = uvicorn.Config(
            app, uds=args.uds, log_level="warning", access_log=False, lifespan="off", http="h11"
        )
        server = _Server(config)
        if watch is not None:
            threading.Thread(target=watch.watch, args=(server,), daemon=True).start()
        else:
            threading.Thread(target=_exit_on_stdin_eof, args=(server,), daemon=True).start()
        try:
            with contextlib.suppress(KeyboardInterrupt):
                server.run()
        finally:
            if owner_lock is not None:
                with contextlib.suppress(OSError):
                    Path(args.uds).unlink()  # nobody else can have bound it: we hold the lock
                owner_lock.close()
        return 0

    return serve


if __name__ == "__main__":
    raise SystemExit(main())
