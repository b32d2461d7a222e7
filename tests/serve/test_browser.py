"""`paytui serve` in a real browser: headless Chromium (Debian's `chromium`, never a download)
driven by playwright. One browser for the module; one server, started as a person starts it.

The test opens the printed URL, clicks once to focus the terminal and searches
`status:chargeback`; what the app painted is read from the socket's frames (the terminal's own
bytes, escapes removed): the count of chargebacks the sandbox holds, on a read-only session in
which the server's `PAYTUI_TOKEN` never arrived. A page of another origin cannot open the socket.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("PAYTUI_CHROMIUM", "/usr/bin/chromium"))
#: Escape sequences (CSI, OSC, and the two-byte ones) between the painted characters.
ESCAPES = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
#: How long a wait for the served screen may last before the test fails. A wait for an event,
#: not a measure: at load 25 on two cores the served app's first frame took longer than 30 s.
WAIT_MS = 180_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A real Chromium: the one at `CHROMIUM` (Debian's, which .ci/run installs), else the one
    playwright manages (`.venv/bin/playwright install chromium`, on a machine that reaches its
    download host). Neither: the test fails, saying how to get one."""
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as playwright:
        # As root (CI containers) Chromium starts only without its own sandbox.
        args = ["--no-sandbox"] if os.geteuid() == 0 else []
        try:
            if CHROMIUM.exists():
                launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
            else:
                launched = playwright.chromium.launch(args=args)
        except Error as exc:
            pytest.fail(
                f"no Chromium at {CHROMIUM}, nor one of playwright's ({str(exc).splitlines()[0]}):"
                " run `.venv/bin/playwright install chromium`, install Debian's `chromium`"
                " (.ci/run does), or point PAYTUI_CHROMIUM at one",
                pytrace=False,
            )
        yield launched
        launched.close()


@pytest.fixture
def served(sandbox_template: Path, isolated_user_dirs: Path) -> Iterator[str]:
    """`paytui serve --port 0` on the demo sandbox; yields the URL it printed."""
    data = Path(os.environ["XDG_DATA_HOME"]) / "paytui"
    data.mkdir(parents=True)
    shutil.copyfile(sandbox_template, data / "sandbox.sqlite3")
    env = {
        **os.environ,
        "HOME": str(isolated_user_dirs),
        "PAYTUI_SANDBOX_IDLE": "0",  # each session's sandbox is its own and ends with it
        "PAYTUI_TOKEN": "tok-from-the-server-shell",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "paytui.cli", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("Open http://127.0.0.1:"), line + server.communicate()[1]
        yield line.split()[-1]
    finally:
        server.terminate()
        server.wait(timeout=30)


def chargebacks(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        (count,) = connection.execute(
            "SELECT count(*) FROM charges WHERE status = 'chargeback'"
        ).fetchone()
    return int(count)


def test_a_person_opens_the_url_and_searches_chargebacks(
    browser: Any, served: str, sandbox_template: Path
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    frames: list[bytes] = []

    def screen(extra: object = b"") -> str:
        painted = b"".join([*frames, extra if isinstance(extra, bytes) else b""])
        return ESCAPES.sub(b"", painted).decode("utf-8", "replace")

    def wait_for(pattern: str) -> str:
        """The screen once `pattern` is painted (each frame received is checked as it comes)."""
        if not re.search(pattern, screen()):
            socket.wait_for_event(
                "framereceived",
                predicate=lambda payload: bool(re.search(pattern, screen(payload))),
                timeout=WAIT_MS,
            )
        return screen()

    page.set_default_timeout(WAIT_MS)
    with page.expect_websocket() as opened:
        page.goto(served)
    socket = opened.value
    socket.on(
        "framereceived", lambda payload: isinstance(payload, bytes) and frames.append(payload)
    )
    assert "token" not in page.url  # the key left the address bar at once
    wait_for(r"Showing \d+ of 3,015")

    page.locator(".textual-terminal").click()  # once, to focus the terminal
    page.keyboard.type("/status:chargeback")
    count = chargebacks(sandbox_template)
    painted = wait_for(rf"Showing \d+ of {count}\b")
    assert "status:chargeback" in painted
    assert "READ-ONLY" in painted
    assert "PAYTUI_TOKEN" not in painted  # the embedded sandbox would have said it was ignored

    # The help says which keys the browser keeps. (Down leaves the query line: a lone escape
    # followed at once by "?" would read as alt+?, as in a terminal.)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("?")
    wait_for(r"the browser keeps ctrl\+w")
    # The profile stays the one the server was started with (and so does read-only).
    page.keyboard.press("q")
    page.keyboard.press("P")
    wait_for(r"stays on the profile")

    # A page of another origin: the cookie is not sent (SameSite=Strict), the socket refused.
    other = browser.new_page()
    other.goto("about:blank")
    outcome = other.evaluate(
        """url => new Promise(done => {
            const socket = new WebSocket(url);
            socket.onopen = () => done("open");
            socket.onerror = () => done("refused");
        })""",
        served.split("/?")[0].replace("http:", "ws:") + "/ws",
    )
    assert outcome == "refused"
    other.close()
    page.close()
