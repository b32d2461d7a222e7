"""`GuardedServer`: textual-serve's server with the guard, a cap on sessions and a clean child.

The terminal streaming (the page, its JavaScript, the socket protocol, the child's packets) is
textual-serve's, unchanged; what changes:

- the guard (`guard.py`) runs before every route, and its headers go on every answer;
- the socket handler is textual-serve's own with two differences: it refuses a session past
  the cap (503, before any process starts) and starts `ScrubbedAppService`, whose child gets
  `environment.child_environment`'s allow-list instead of the server's whole environment;
- the server binds its socket first, so the URL it prints names the port it really has (port 0
  picks a free one) and no request can arrive before the guard knows its origin;
- a session ends when its tab closes (the socket closes, the child is told to quit), and its
  tab's socket closes when the child ends, even without a word (a crash); a child
  that has not quit within `QUIT_GRACE` seconds is terminated, then killed, so a stuck
  dashboard neither keeps its place under the cap nor holds ctrl+c; at exit every open socket
  is closed first, so no child outlives the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import socket
from collections.abc import Callable, Mapping

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager
from textual_serve.server import Server, to_int

from paytui.serve.guard import Guard

log = logging.getLogger("paytui.serve")

#: What textual-serve adds to the child's environment for its web driver (kept as it sets them).
WEB_DRIVER_VARIABLES = (
    "TEXTUAL_DRIVER",
    "TEXTUAL_FPS",
    "TEXTUAL_COLOR_SYSTEM",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
    "COLUMNS",
    "ROWS",
)
DEFAULT_MAX_SESSIONS = 4
#: Seconds a session's child has to quit when its tab closes, then again after SIGTERM.
QUIT_GRACE = 5.0


class ScrubbedAppService(AppService):
    """One tab's dashboard process, with the allow-listed environment only."""

    def __init__(
        self,
        command: str,
        *,
        environment: Mapping[str, str],
        websocket: web.WebSocketResponse,
        download_manager: DownloadManager,
        quit_grace: float = QUIT_GRACE,
    ) -> None:
        async def close() -> None:  # the child said it exited: the tab's socket closes
            await websocket.close()

        super().__init__(
            # textual-serve runs the command through `sh -c`: `exec` makes the dashboard the
            # shell's own process, so terminating the process it knows ends the dashboard.
            f"exec {command}",
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=download_manager,
        )
        self.environment = dict(environment)
        self.quit_grace = quit_grace

    async def run(self) -> None:
        """textual-serve's reading of the child, then the tab's socket closed: it closes only on
        the child's "exit" packet, so a dashboard that died left a frozen page holding a place
        under the cap until someone closed the tab."""
        await super().run()
        await self.remote_close()

    async def stop(self) -> None:
        """textual-serve's stop (the child is asked to quit), bounded: a child that has not
        quit within `quit_grace` is terminated, then killed; its end is awaited."""
        process = self._process
        if process is None:
            await super().stop()
            return
        # Its end awaited too: a process never waited for is reaped only by the garbage
        # collector, after the loop is gone.
        ended = asyncio.gather(super().stop(), process.wait())
        for end in (process.terminate, process.kill):
            done, _ = await asyncio.wait({ended}, timeout=self.quit_grace)
            if done:
                break
            with contextlib.suppress(ProcessLookupError):
                end()
        await ended

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        theirs = super()._build_environment(width=width, height=height)
        return {**self.environment, **{name: theirs[name] for name in WEB_DRIVER_VARIABLES}}


def origin_of(host: str, port: int) -> str:
    """`http://HOST:PORT`, brackets around an IPv6 address."""
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(host).version == 6:
            host = f"[{host}]"
    return f"http://{host}:{port}"


class GuardedServer(Server):
    """Serves `command` (one child per socket) to the holder of the printed URL only."""

    def __init__(
        self,
        command: str,
        *,
        host: str,
        port: int,
        environment: Mapping[str, str],
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        quit_grace: float = QUIT_GRACE,
    ) -> None:
        super().__init__(command, host=host, port=port, title="paytui")
        self.environment = dict(environment)
        self.max_sessions = max_sessions
        self.quit_grace = quit_grace
        self.sockets: set[web.WebSocketResponse] = set()
        self.guard: Guard | None = None

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        assert self.guard is not None, "bind first: the guard needs the server's origin"
        app.middlewares.append(self.guard.middleware)
        app.on_response_prepare.append(self.guard.add_headers)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints a banner here; the command prints its own lines."""

    def bind(self) -> socket.socket:
        """The listening socket; sets the guard, whose origin names the port bound."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.create_server((self.host, self.port), family=family)
        address = sock.getsockname()[0]
        if not ipaddress.ip_address(address).is_loopback:
            # A name (`localhost`) the system resolves elsewhere, or a caller that skipped the
            # command's check: never listen beyond this machine.
            sock.close()
            raise OSError(errno.EADDRNOTAVAIL, f"{self.host} is {address}, not loopback")
        self.port = sock.getsockname()[1]
        self.public_url = origin_of(self.host, self.port)
        self.guard = Guard(self.public_url)
        return sock

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's handler, capped, with `ScrubbedAppService` (the guard ran before)."""
        if len(self.sockets) >= self.max_sessions:
            raise web.HTTPServiceUnavailable(
                text=f"paytui serve: {self.max_sessions} sessions are open, the most it allows "
                "(close a tab, or start it with a higher --max-sessions).",
            )
        websocket = web.WebSocketResponse(heartbeat=15)
        self.sockets.add(websocket)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        service: ScrubbedAppService | None = None
        try:
            await websocket.prepare(request)
            service = ScrubbedAppService(
                self.command,
                environment=self.environment,
                websocket=websocket,
                download_manager=self.download_manager,
                quit_grace=self.quit_grace,
            )
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # one session's failure must not stop the others
            log.warning("a browser session ended: %s", str(error) or type(error).__name__)
        finally:
            if service is not None:
                await service.stop()
            self.sockets.discard(websocket)
        return websocket

    async def run(
        self, sock: socket.socket, *, started: Callable[[], None], stop: asyncio.Event
    ) -> None:
        """Serve on `sock` until `stop` is set; `started` is called once requests are served."""
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None)
        await runner.setup()
        try:
            await web.SockSite(runner, sock).start()
            started()
            await stop.wait()
        finally:
            for websocket in list(self.sockets):  # each child is told to quit, and waited for
                await websocket.close()
            await runner.cleanup()
