"""The embedded sandbox child process over a private Unix socket."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, child
from paytui.sandbox.embedded import BASE_URL, EmbeddedSandbox
from tests.fixtures_sandbox import raw_client
from tests.sandbox.helpers import get_token


def _printed(code: str) -> str:
    """What `python -c code` prints, in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def test_the_launcher_imports_nothing_heavy() -> None:
    code = (
        "import sys, paytui.sandbox.embedded, paytui.sandbox;"
        "heavy = {'fastapi', 'uvicorn', 'httpx', 'starlette', 'pydantic', 'textual', 'sqlite3'};"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    assert _printed(code) == "[]"


def test_the_servers_start_imports_only_what_serving_needs(sandbox_db: Path) -> None:
    """The served sandbox's start (`embedded._build`) leaves out uvicorn's command line (click,
    the reloader's and workers' supervisors, multiprocessing) and pydantic v1, which FastAPI
    imports only to refuse its models; the app it builds serves (the test below goes through
    the same start)."""
    code = (
        "import sys; from pathlib import Path;"
        "from paytui.sandbox.embedded import _build;"
        f"app = _build(Path({str(sandbox_db)!r}));"
        "import uvicorn, uvicorn.server;"
        "assert uvicorn.Server is uvicorn.server.Server;"
        "left = {'click', 'multiprocessing', 'uvicorn.supervisors', 'pydantic.v1'};"
        "print(sorted(m for m in left if sys.modules.get(m) is not None))"
    )
    assert _printed(code) == "[]"


def test_the_server_process_imports_only_threading_before_its_start_thread() -> None:
    """`python -m paytui.sandbox.child` starts its nicer thread before importing anything of
    its own: the embedded module's imports (json, socket, subprocess, typing, ...) run there."""
    code = (
        "import sys, paytui.sandbox.child;"
        "later = {'typing', 'json', 'socket', 'subprocess', 'paytui.sandbox.embedded'};"
        "print(sorted(m for m in later if m in sys.modules))"
    )
    assert _printed(code) == "[]"


def test_the_servers_start_runs_nicer_than_its_serving() -> None:
    """The start (imports, the app's construction) runs `START_NICE` nicer than the process,
    in a thread of its own: the thread that goes on to serve keeps the process's priority."""
    import os
    import threading

    def own_nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = own_nice()
    during = child.below_the_ui(own_nice)
    assert during == min(before + child.START_NICE, 19)
    assert own_nice() == before


def test_only_a_start_that_gives_way_runs_nicer(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--give-way` (the dashboard's launcher) runs the start nicer; without it (a script
    command waits for the server at once) the start keeps the process's priority."""
    import os
    import threading

    def own_nice(argv: list[str] | None) -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    monkeypatch.setattr(child, "_prepare", own_nice)
    before = own_nice(None)
    assert child.main(["--uds", "x", "--give-way"]) == min(before + child.START_NICE, 19)
    assert child.main(["--uds", "x"]) == before


async def test_a_server_that_gives_way_serves(sandbox_db: Path) -> None:
    sandbox = EmbeddedSandbox.start(sandbox_db, give_way=True)
    try:
        assert "--give-way" in sandbox._process.args
        sandbox.wait_ready(timeout=30)
        transport = httpx.AsyncHTTPTransport(uds=str(sandbox.socket_path))
        async with raw_client(transport, BASE_URL) as http:
            token = await get_token(http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
        assert token
    finally:
        sandbox.stop()
    assert sandbox._process.returncode == 0


def test_a_failing_start_raises_in_the_serving_thread() -> None:
    def fail() -> None:
        raise OSError("no such database")

    with pytest.raises(OSError, match="no such database"):
        child.below_the_ui(fail)


async def test_child_serves_over_the_socket_and_stops(sandbox_db: Path) -> None:
    sandbox = EmbeddedSandbox.start(sandbox_db)
    try:
        sandbox.wait_ready(timeout=30)
        assert sandbox.socket_path.exists()
        transport = httpx.AsyncHTTPTransport(uds=str(sandbox.socket_path))
        async with raw_client(transport, BASE_URL) as http:
            http.headers["Authorization"] = "Bearer " + await get_token(
                http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
            )
            page = (await http.get("/v2/charges", params={"limit": 3})).json()
        assert page["total"] == 3015
        assert len(page["data"]) == 3
    finally:
        sandbox.stop()
    assert not sandbox.running
    assert sandbox._process.returncode == 0  # exited on stdin EOF, not killed
    assert not sandbox.socket_path.parent.exists()


def test_a_dying_child_raises_with_its_stderr(tmp_path: Path) -> None:
    not_a_database = tmp_path / "garbage.sqlite3"
    not_a_database.write_bytes(b"this is not sqlite" * 100)
    sandbox = EmbeddedSandbox.start(not_a_database)
    try:
        with pytest.raises(RuntimeError, match="exited with status") as info:
            sandbox.wait_ready(timeout=30)
        assert "DatabaseError" in str(info.value) or "not a database" in str(info.value)
    finally:
        sandbox.stop()


def _not_a_server(tmp_path: Path, argv: list[str]) -> EmbeddedSandbox:
    """An `EmbeddedSandbox` around a child that never says it is ready: `argv` runs instead."""
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    return EmbeddedSandbox(process, None, socket_path=tmp_path / "s", log_path=None)


def test_a_start_still_getting_on_is_waited_for_past_its_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dashboard's server starts nicer and, with every core busy, slowly: a start whose
    CPU time goes on is waited for round after round (up to `at_most`), where a fixed timeout
    failed it; one that makes no progress fails after its timeout, as before.

    The child's CPU time is what the wait reads (`_cpu_ticks`); here it goes on at every look, or
    stays, so the rule is shown whatever share of the machine a child gets. (A real busy child,
    at load 20, got no tick of CPU in half a second twice in three loaded runs of the suite:
    the wait then rightly said "not ready". Reading a real child's ticks is the test below.)"""
    from paytui.sandbox import embedded

    looks = itertools.count()
    monkeypatch.setattr(embedded, "_cpu_ticks", lambda pid: next(looks))
    busy = _not_a_server(tmp_path, ["sleep", "60"])
    try:
        with pytest.raises(RuntimeError, match="still starting") as info:
            busy.wait_ready(timeout=0.5, at_most=2.0)
        assert "after 2" in str(info.value)
    finally:
        busy._process.kill()
        busy._process.wait()
    monkeypatch.setattr(embedded, "_cpu_ticks", lambda pid: 7)
    idle = _not_a_server(tmp_path, ["sleep", "60"])
    try:
        with pytest.raises(RuntimeError, match=r"not ready after 0\.5 s"):
            idle.wait_ready(timeout=0.5, at_most=2.0)
    finally:
        idle._process.kill()
        idle._process.wait()


def test_a_child_s_cpu_ticks_are_read_from_the_system() -> None:
    """`_cpu_ticks` reads what a child spent: a child that has spent 0.1 s of CPU (it says so
    itself, when its own clock shows it: an event, not a wait) shows ticks; one gone, None."""
    from paytui.sandbox.embedded import _cpu_ticks

    spend = (
        "import sys, time\n"
        "while time.process_time() < 0.1: pass\n"
        "print('spent', flush=True)\n"
        "sys.stdin.read()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", spend], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "spent\n"
        ticks = _cpu_ticks(child.pid)
        assert ticks is not None and ticks >= 5  # 0.1 s at 100 ticks a second, start included
    finally:
        child.kill()
        child.wait()
    assert _cpu_ticks(child.pid) is None
