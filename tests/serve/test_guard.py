"""`paytui serve`'s guard over real HTTP and WebSocket (aiohttp's client against the running
server): no key, a wrong key, a foreign origin, one session too many, and what a session's
process is given. The child here is a stand-in speaking textual-serve's protocol, so the checks
run in milliseconds; `test_browser.py` serves the real dashboard to a real browser.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest

from paytui.serve.cli import main
from paytui.serve.environment import child_environment
from paytui.serve.guard import Guard
from paytui.serve.server import GuardedServer

#: A session's stand-in: records its environment, says it is ready (textual-serve's prelude,
#: then one data packet the browser side receives), and exits on the first byte textual-serve
#: sends (its "quit" when the tab closes).
CHILD = """
import json, os, sys
with open(sys.argv[1], "w") as file:
    json.dump(dict(os.environ), file)
sys.stdout.buffer.write(b"__GANGLION__\\nD" + (5).to_bytes(4, "big") + b"ready")
sys.stdout.buffer.flush()
sys.stdin.buffer.read(1)
"""
SERVER_ENVIRONMENT = {
    "HOME": "/home/ana",
    "XDG_CONFIG_HOME": "/home/ana/.config",
    "LANG": "en_GB.UTF-8",
    "PAYTUI_TOKEN": "tok-live-123",
    "PAYTUI_CLIENT_ID": "ana-client",
    "PAYTUI_CLIENT_SECRET": "cs-live-456",
    "AWS_SECRET_ACCESS_KEY": "aws-789",
    "PAYTUI_BASE_URL": "https://pay.example",
    "PAYTUI_ACCOUNT_ID": "pa_b4kfel3g",
}


#: A session that never quits: says it is ready, writes its process id, ignores stdin.
STUCK_CHILD = """
import os, sys, time
with open(sys.argv[1], "w") as file:
    file.write(str(os.getpid()))
sys.stdout.buffer.write(b"__GANGLION__\\nD" + (5).to_bytes(4, "big") + b"ready")
sys.stdout.buffer.flush()
while True:
    time.sleep(1)
"""


#: A session whose dashboard ends by itself (a crash): ready, then gone without a word.
#: A bound for a hang, never a wait these tests depend on: the tab's socket closes as soon as the
#: server reads the end of its dashboard's output. Under a heavy-load round (three suites and nine
#: busy loops, all at nice 19) a 10 s bound passed twice in one round; alone, under twelve busy
#: loops, the close came within 0.03 s (5 of 5).
HANG_GUARD = 120.0

DYING_CHILD = """
import sys
sys.stdout.buffer.write(b"__GANGLION__\\nD" + (5).to_bytes(4, "big") + b"ready")
sys.stdout.buffer.flush()
"""


@asynccontextmanager
async def served(
    tmp_path: Path, *, max_sessions: int = 4, child: str = CHILD
) -> AsyncIterator[GuardedServer]:
    environment = child_environment(os.environ, profile="support", read_only=True)
    command = shlex.join([sys.executable, "-c", child, str(tmp_path / "env.json")])
    server = GuardedServer(
        command,
        host="127.0.0.1",
        port=0,
        environment=environment,
        max_sessions=max_sessions,
        quit_grace=0.2,
    )
    sock = server.bind()
    stop, started = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(server.run(sock, started=started.set, stop=stop))
    await started.wait()
    try:
        yield server
    finally:
        stop.set()
        await task


@asynccontextmanager
async def entered(
    tmp_path: Path, *, child: str
) -> AsyncIterator[tuple[GuardedServer, Guard, aiohttp.ClientSession]]:
    """A one-session server, and a client that opened its printed URL (so holds the cookie)."""
    # `unsafe`: aiohttp's jar keeps no cookie of an IP address otherwise (a browser does).
    jar = aiohttp.CookieJar(unsafe=True)
    async with (
        served(tmp_path, max_sessions=1, child=child) as server,
        aiohttp.ClientSession(cookie_jar=jar) as http,
    ):
        guard = server.guard
        assert guard is not None
        async with http.get(guard.entry_url):
            pass
        yield server, guard, http


async def test_nothing_is_served_without_the_key_or_from_another_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SERVER_ENVIRONMENT.items():  # the server's own environment: textual-serve
        monkeypatch.setenv(name, value)  # would hand all of it to each session
    # `unsafe`: aiohttp's jar keeps no cookie of an IP address otherwise (a browser does).
    jar = aiohttp.CookieJar(unsafe=True)
    async with (
        served(tmp_path, max_sessions=1) as server,
        aiohttp.ClientSession(cookie_jar=jar) as http,
    ):
        guard = server.guard
        assert guard is not None
        origin = guard.origin
        # No cookie: the page, an asset and the socket answer 401.
        for path in ("/", "/static/js/textual.js", "/download/x"):
            async with http.get(origin + path, allow_redirects=False) as answer:
                assert answer.status == 401, path
                assert answer.headers["X-Frame-Options"] == "DENY"
        # A cookie that is not UTF-8: refused as no key, not a 500 and a traceback.
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nConnection: close\r\n"
            f"Cookie: {guard.cookie_name}=".encode()
            + b"\xff\xfe\r\n\r\n"
        )
        assert (await reader.readline()).startswith(b"HTTP/1.1 401")
        writer.close()
        # A name re-pointed at 127.0.0.1 (DNS rebinding): refused before the key is read.
        rebound = {"Host": f"evil.example:{server.port}"}
        async with http.get(guard.entry_url, headers=rebound, allow_redirects=False) as answer:
            assert answer.status == 403
            assert "Set-Cookie" not in answer.headers
        async with http.get(origin + "/") as answer:
            policy = answer.headers["Content-Security-Policy"]
            assert f"connect-src 'self' ws://127.0.0.1:{server.port};" in policy
            assert "default-src 'self';" in policy
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(origin + "/ws", origin=origin)
        assert refused.value.status == 401
        # A wrong key: 403, and no cookie.
        async with http.get(origin + "/?token=guess", allow_redirects=False) as answer:
            assert answer.status == 403
            assert "Set-Cookie" not in answer.headers
        assert not http.cookie_jar.filter_cookies(origin)

        # The printed URL: an HttpOnly, SameSite=Strict cookie, and off to the clean URL.
        async with http.get(guard.entry_url, allow_redirects=False) as answer:
            assert answer.status == 303
            assert answer.headers["Location"] == "/"
            cookie = answer.headers["Set-Cookie"]
            assert "HttpOnly" in cookie
            assert "SameSite=Strict" in cookie
            assert guard.key in cookie
        async with http.get(origin + "/") as answer:
            assert answer.status == 200
            assert f"ws://127.0.0.1:{server.port}/ws" in await answer.text()
        async with http.get(origin + "/static/js/textual.js") as answer:
            assert answer.status == 200
        # Even with the cookie, only this server's own address is served (page and socket).
        for host in ("evil.example", f"evil.example:{server.port}", f"localhost:{server.port}"):
            async with http.get(origin + "/", headers={"Host": host}) as answer:
                assert answer.status == 403, host
                assert f"127.0.0.1:{server.port}" in await answer.text()
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(origin + "/ws", origin=origin, headers={"Host": host})
            assert refused.value.status == 403, host

        # With the cookie, a socket from another origin (or none) is refused at the handshake:
        # no process starts.
        foreigners = (
            "https://evil.example",
            f"http://localhost:{server.port}",
            None,
            "null",  # a sandboxed frame, a file:// page
            origin.upper(),
            origin + "/",
            f"http://127.0.0.1:{server.port + 1}",
            f"https://127.0.0.1:{server.port}",
        )
        for foreign in foreigners:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(origin + "/ws", origin=foreign)
            assert refused.value.status == 403, foreign
        assert not (tmp_path / "env.json").exists()

        # The page's own socket: a session, with the allow-listed environment only.
        async with http.ws_connect(origin + "/ws?width=100&height=30", origin=origin) as ws:
            assert (await ws.receive_bytes()) == b"ready"
            child = json.loads((tmp_path / "env.json").read_text())
            for secret in ("PAYTUI_TOKEN", "PAYTUI_CLIENT_SECRET", "PAYTUI_CLIENT_ID"):
                assert secret not in child
            assert "AWS_SECRET_ACCESS_KEY" not in child
            assert "PAYTUI_BASE_URL" not in child
            assert not set(SERVER_ENVIRONMENT.values()) & set(child.values()) - {
                "/home/ana",
                "/home/ana/.config",
                "en_GB.UTF-8",
                "pa_b4kfel3g",
            }
            assert child["PAYTUI_PROFILE"] == "support"
            assert child["PAYTUI_READ_ONLY"] == "1"
            assert child["HOME"] == "/home/ana"
            assert child["TEXTUAL_DRIVER"] == "textual.drivers.web_driver:WebDriver"
            assert child["COLUMNS"] == "100"
            # One session is the cap here: a second tab is refused before anything starts.
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(origin + "/ws", origin=origin)
            assert refused.value.status == 503


async def test_a_session_that_does_not_quit_is_ended_when_its_tab_closes(
    tmp_path: Path,
) -> None:
    """A stuck dashboard neither keeps its place under the cap nor outlives its tab."""
    async with entered(tmp_path, child=STUCK_CHILD) as (server, guard, http):
        async with http.ws_connect(guard.origin + "/ws", origin=guard.origin) as ws:
            assert (await ws.receive_bytes()) == b"ready"
        pid = int((tmp_path / "env.json").read_text())
        # The place is free again: a new tab is served (the stuck one was ended to make room).
        async with asyncio.timeout(HANG_GUARD):
            while server.sockets:
                await asyncio.sleep(0.05)
        async with http.ws_connect(guard.origin + "/ws", origin=guard.origin) as ws:
            assert (await ws.receive_bytes()) == b"ready"
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_the_server_itself_never_listens_beyond_loopback() -> None:
    """Whatever name it is given (`localhost` resolved elsewhere, a caller that skipped the
    command's check), the address really bound must be loopback."""
    server = GuardedServer("true", host="0.0.0.0", port=0, environment={})
    with pytest.raises(OSError, match="not loopback"):
        server.bind()
    assert server.guard is None
    loopback = GuardedServer("true", host="localhost", port=0, environment={})
    loopback.bind().close()
    assert loopback.guard is not None


async def test_a_session_whose_dashboard_ends_closes_its_tab(tmp_path: Path) -> None:
    """A dashboard that exits without saying so (a crash) closes its tab's socket, so the page
    says it is disconnected and its place under the cap is free, instead of a frozen screen."""
    async with (
        entered(tmp_path, child=DYING_CHILD) as (_, guard, http),
        http.ws_connect(guard.origin + "/ws", origin=guard.origin) as ws,
    ):
        assert (await ws.receive_bytes()) == b"ready"
        async with asyncio.timeout(HANG_GUARD):
            closing = await ws.receive()
        assert closing.type in {aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED}


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "pay-desk.example"])
def test_a_host_other_than_loopback_is_refused_in_one_line(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--host", host, "--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert f"--host {host}: paytui serve listens on loopback only" in err
    assert "SSH tunnel" in err
    assert "reverse proxy" in err


def test_a_port_out_of_range_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--port", "70000"]) == 2
    assert capsys.readouterr().err == (
        "paytui serve: error: argument --port: '70000' is not a TCP port (0 to 65535) "
        "(see `paytui serve --help`)\n"
    )
