"""The keep-warm embedded sandbox (reuse, lease, idle exit, stop) and the database version check."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.demo_state import demo_data_state
from paytui.sandbox.embedded import (
    BASE_URL,
    EmbeddedSandbox,
    OutdatedDatabaseError,
    database_as_is,
    database_version,
    default_db_path,
    ensure_database,
    health,
    stop_warm,
    warm_paths,
)
from paytui.sandbox.schema import USER_VERSION
from paytui.sandbox.seed import DEFAULT_ANCHOR, demo_anchor
from paytui.sandbox.wire import iso_ms
from tests.fixtures_sandbox import raw_client
from tests.sandbox.helpers import card, get_token


def _set_version(db: Path, version: int) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute(f"PRAGMA user_version = {version}")
    finally:
        conn.close()


# -- database version ------------------------------------------------------------------------------


def test_a_built_database_carries_the_schema_version(sandbox_db: Path) -> None:
    assert database_version(sandbox_db) == USER_VERSION
    assert ensure_database(sandbox_db) is False  # current: kept as is


def test_an_outdated_database_given_explicitly_is_refused_with_a_fix(sandbox_db: Path) -> None:
    _set_version(sandbox_db, 0)  # what a database of an older sandbox schema reads
    with pytest.raises(OutdatedDatabaseError, match="--fresh") as info:
        ensure_database(sandbox_db)
    assert f"needs {USER_VERSION}" in str(info.value)
    assert database_version(sandbox_db) == 0  # untouched


def _as_default(db: Path) -> Path:
    default = default_db_path()  # inside the test's own XDG data dir
    default.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(FULL)")  # what a sandbox wrote is in the file
    finally:
        conn.close()
    shutil.copyfile(db, default)
    return default


def _as_todays_demo(db: Path) -> None:
    """Say the copy ends this hour, so the sandbox keeps it (tests here are not about its dates)."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'anchor'", (iso_ms(demo_anchor()),))
        conn.commit()
    finally:
        conn.close()


def test_an_outdated_default_database_is_rebuilt(sandbox_db: Path) -> None:
    default = _as_default(sandbox_db)
    _set_version(default, 0)
    assert not database_as_is(default)  # what the first-page reader asks before reading it
    assert ensure_database(default, charges=100) is True
    assert database_as_is(default)
    assert database_version(default) == USER_VERSION


def test_demo_data_that_ended_before_today_is_brought_up_to_today(sandbox_db: Path) -> None:
    default = _as_default(sandbox_db)
    assert demo_data_state(default).anchor == DEFAULT_ANCHOR  # days ago: from:yesterday is empty
    assert not database_as_is(default)
    assert ensure_database(default, charges=300) is True
    assert database_as_is(default)
    state = demo_data_state(default)
    assert state.anchor is not None and not state.behind() and not state.changed
    conn = sqlite3.connect(default)
    try:
        newest = conn.execute("SELECT max(ts) FROM charges").fetchone()[0]
    finally:
        conn.close()
    assert newest > iso_ms(demo_anchor() - timedelta(days=2))  # charges yesterday and today
    assert ensure_database(default) is False  # up to date: kept


async def test_demo_data_holding_the_users_changes_is_kept_with_a_way_to_refresh(
    sandbox_db: Path, api: httpx.AsyncClient, account_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sale = await api.post(
        "/v2/charges",
        json={"account_id": account_id, "total_amount": 4, "payment_method": card()},
    )
    assert sale.status_code == 201
    default = _as_default(sandbox_db)
    assert demo_data_state(default).changed
    assert database_as_is(default)
    assert capsys.readouterr().err == ""  # asking is quiet: the server's start says it once
    assert ensure_database(default) is False
    assert demo_data_state(default).anchor == DEFAULT_ANCHOR  # the user's sale is still there
    said = capsys.readouterr().err
    assert "ends 2026-11-20" in said and "paytui sandbox --fresh" in said


# -- keep-warm -----------------------------------------------------------------------------------


@pytest.fixture
def warm_env(monkeypatch: pytest.MonkeyPatch, sandbox_db: Path) -> Iterator[Path]:
    """A private runtime dir (short path: socket names are limited), the default database in
    place, a one-second idle; whatever server a test leaves behind is stopped."""
    runtime = Path(tempfile.mkdtemp(prefix="ptw-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("PAYTUI_SANDBOX_IDLE", "1")
    default = default_db_path()
    default.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sandbox_db, default)
    _as_todays_demo(default)
    try:
        yield default
    finally:
        stop_warm(default)
        shutil.rmtree(runtime, ignore_errors=True)


async def _total(sandbox: EmbeddedSandbox) -> int:
    transport = httpx.AsyncHTTPTransport(uds=str(sandbox.socket_path))
    async with raw_client(transport, BASE_URL) as http:
        http.headers["Authorization"] = "Bearer " + await get_token(
            http, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
        )
        return int((await http.get("/v2/charges", params={"limit": 1})).json()["total"])


def _wait_gone(sandbox: EmbeddedSandbox, timeout: float = 15) -> None:
    assert sandbox._process is not None
    sandbox._process.wait(timeout)  # exited on its own (pytest must not leave it behind)
    deadline = time.monotonic() + timeout
    while health(sandbox.socket_path) is not None and time.monotonic() < deadline:
        time.sleep(0.05)


async def test_a_warm_server_is_reused_then_exits_when_idle(warm_env: Path) -> None:
    first = EmbeddedSandbox.start()
    assert first.warm and not first.reused
    first.wait_ready(30)
    assert await _total(first) == 3015
    socket_path = first.socket_path
    assert socket_path == warm_paths(warm_env)["socket"]
    assert socket_path.parent.stat().st_mode & 0o777 == 0o700
    pid = health(socket_path)["pid"]  # type: ignore[index]
    first.stop()  # the UI quits: the server stays for the idle period

    second = EmbeddedSandbox.start()
    assert second.reused  # no child spawned: answered at once
    second.wait_ready(1)
    assert health(socket_path)["pid"] == pid  # type: ignore[index]
    time.sleep(2.5)  # longer than the idle period, but a UI holds a lease
    assert await _total(second) == 3015
    second.stop()

    _wait_gone(first)
    assert health(socket_path) is None
    assert not socket_path.exists()
    third = EmbeddedSandbox.start()  # a stale socket or lock does not get in the way
    try:
        assert not third.reused
        third.wait_ready(30)
        assert await _total(third) == 3015
    finally:
        third.stop()
    assert stop_warm(warm_env) is True
    _wait_gone(third)


def test_keep_warm_is_off_for_an_explicit_database_or_idle_zero(
    warm_env: Path, sandbox_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EmbeddedSandbox.start(sandbox_db) as private:
        assert not private.warm
    monkeypatch.setenv("PAYTUI_SANDBOX_IDLE", "0")
    with EmbeddedSandbox.start() as private:
        assert not private.warm
        private.wait_ready(30)
    assert not private.running
