"""The embedded sandbox: the UI's default backend when no profile is configured.

Three parts, one module:

- `EmbeddedSandbox` (parent side): spawns `python -m paytui.sandbox.embedded --uds PATH` in a
  private temp dir and talks to it over that Unix socket. Its module-level imports are stdlib only,
  so the UI can import it before Textual without paying for FastAPI (about 0.3 s); the child
  imports FastAPI and opens the database on the other core while the UI paints.
- The child (`main`): builds the database if missing, serves it with uvicorn on the socket, prints
  exactly one `READY` line once it accepts connections, and exits when its stdin reaches EOF,
  which happens when the parent closes it or dies, so no orphan outlives the UI.
- `asgi_transport`: the same app in-process over httpx's ASGITransport, for tests.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

    from paytui.sandbox.faults import Faults

BASE_URL = "http://sandbox"
READY = "READY"


def default_db_path() -> Path:
    """`<user data dir>/paytui/sandbox.sqlite3`, shared with `paytui sandbox`."""
    import platformdirs

    return Path(platformdirs.user_data_dir("paytui")) / "sandbox.sqlite3"


def ensure_database(
    db_path: Path, *, charges: int = 3000, seed: int = 7, fresh: bool = False
) -> bool:
    """Build the demo database when missing (or when `fresh`); answers whether it built one."""
    if db_path.exists() and not fresh:
        return False
    from paytui.sandbox.seed import build_database

    build_database(db_path, charges=charges, seed=seed)
    return True


def asgi_transport(db_path: Path | str, *, faults: Faults | None = None) -> httpx.ASGITransport:
    """An in-process transport over `create_app(db_path)`; use with base URL `http://sandbox`.

    A dropped answer (fault `drop_after_commit`) surfaces as `httpx.RemoteProtocolError`, what the
    same fault produces over a real socket, instead of the app's internal exception.
    """
    import httpx

    from paytui.sandbox.app import create_app
    from paytui.sandbox.faults import DropResponse

    class _Transport(httpx.ASGITransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            try:
                return await super().handle_async_request(request)
            except DropResponse as exc:
                raise httpx.RemoteProtocolError(
                    f"sandbox dropped the answer after committing the {exc}", request=request
                ) from exc

    return _Transport(app=create_app(db_path, faults=faults))


class EmbeddedSandbox:
    """A sandbox child process serving on a private Unix socket (parent side, stdlib only)."""

    base_url = BASE_URL

    def __init__(self, process: subprocess.Popen[bytes], temp_dir: Path) -> None:
        self._process = process
        self._temp_dir = temp_dir
        self._ready = threading.Event()
        self._stopped = False
        self.socket_path = temp_dir / "sandbox.sock"
        threading.Thread(target=self._watch_stdout, name="sandbox-stdout", daemon=True).start()

    @classmethod
    def start(cls, db_path: Path | None = None) -> EmbeddedSandbox:
        """Spawn the child; returns at once (call `wait_ready` before the first request)."""
        temp_dir = Path(tempfile.mkdtemp(prefix="paytui-sandbox-"))
        command = [
            sys.executable,
            "-m",
            "paytui.sandbox.embedded",
            "--uds",
            str(temp_dir / "sandbox.sock"),
        ]
        if db_path is not None:
            command += ["--db", str(db_path)]
        with open(temp_dir / "stderr.log", "wb") as stderr:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                close_fds=True,
            )
        return cls(process, temp_dir)

    def _watch_stdout(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            if line.strip() == READY.encode():
                self._ready.set()

    def stderr_tail(self, lines: int = 20) -> str:
        try:
            text = (self._temp_dir / "stderr.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def wait_ready(self, timeout: float = 30) -> None:
        """Block until the child accepts connections; RuntimeError if it died or took too long."""
        step = 0.02
        waited = 0.0
        while not self._ready.wait(step):
            if self._process.poll() is not None:
                raise RuntimeError(
                    f"embedded sandbox exited with status {self._process.returncode}:\n"
                    + self.stderr_tail()
                )
            waited += step
            if waited >= timeout:
                raise RuntimeError(
                    f"embedded sandbox not ready after {timeout:g} s:\n" + self.stderr_tail()
                )

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    def stop(self, timeout: float = 5) -> None:
        """Close the child's stdin (its signal to exit), wait, kill if needed, clean up."""
        if self._stopped:
            return
        self._stopped = True
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paytui.sandbox.embedded")
    parser.add_argument("--uds", required=True, help="Unix socket path to serve on")
    parser.add_argument("--db", type=Path, default=None, help="database (default: user data dir)")
    args = parser.parse_args(argv)
    db_path = args.db or default_db_path()
    ensure_database(db_path)

    import uvicorn

    from paytui.sandbox.app import create_app

    class _Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if not self.should_exit:
                print(READY, flush=True)

    config = uvicorn.Config(
        create_app(db_path), uds=args.uds, log_level="warning", access_log=False, lifespan="off"
    )
    server = _Server(config)
    threading.Thread(target=_exit_on_stdin_eof, args=(server,), daemon=True).start()
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
