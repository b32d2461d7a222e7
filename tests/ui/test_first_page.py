"""The first page read by a child process at start (`paytui.ui.first_page`).

What must hold: a row shows the same from the child's `RowView` as from the `Charge` it was
copied from (so the preview is the charge list, not a second reading of it); the child, forked,
reads the page the screen would ask for and is reaped; a child that fails gives no preview; and
in the app the preview is shown before the client connects, is never acted on, and gives way to
the real rows with the cursor on the same charge and an Enter typed ahead honoured (the keys
typed ahead at large: `tests/ui/test_held_keys.py`).
"""

from __future__ import annotations

import asyncio
import os
import pickle
import sqlite3
from collections.abc import Callable
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from textual.widgets import Input, Static

from paytui.api import queries
from paytui.api.client import PaymentClient
from paytui.charge_state import state_words
from paytui.config import resolve_connection
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.ui import app as app_module
from paytui.ui import first_page
from paytui.ui.app import PaytuiApp
from paytui.ui.first_page import FirstPage, Prefetch, RowView, row_view
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import COLUMNS, ChargeTable
from paytui.ui.widgets.list_state import ListState
from tests.ui.conftest import frozen_clock, settle
from tests.ui.conftest import settle as settle_app


def _client(transport: httpx.AsyncBaseTransport) -> PaymentClient:
    return PaymentClient(
        "http://sandbox",
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        transport=transport,
        max_retries=0,
    )


def _shown(charge: Any) -> list[tuple[object, ...]]:
    """Every column's cell as painted: its text, its style, its styled parts."""
    cells = [column.render(charge) for column in COLUMNS]
    return [(t.plain, t.style, [(s.start, s.end, s.style) for s in t.spans]) for t in cells]


async def _charges(client: PaymentClient, pages: int = 6) -> list[Any]:
    found: list[Any] = []
    for page in range(pages):
        result = await client.search_charges_page(queries.ALL, limit=100, offset=page * 100)
        found += result.items
    return found


async def test_a_row_view_shows_as_its_charge(demo_client: PaymentClient) -> None:
    charges = await _charges(demo_client)
    # The sandbox's disputed and returned charges say so in their status too: the same charges
    # with another status show whether the dispute and the return themselves are carried.
    marked = [c for c in charges if c.chargebacks is not None or c.return_info is not None]
    assert {c.status for c in marked} == {"chargeback", "return"}
    charges += [c.model_copy(update={"status": "success"}) for c in marked]
    kinds = {(c.method, c.status, c.charge_type, state_words(c)) for c in charges}
    assert len(kinds) >= 8, kinds  # cards, bank accounts, disputes, returns, captures...
    views = pickle.loads(pickle.dumps([row_view(c) for c in charges]))  # as the pipe carries
    for charge, view in zip(charges, views, strict=True):
        assert _shown(view) == _shown(charge), charge.charge_id


async def test_the_columns_read_nothing_a_row_view_lacks(demo_client: PaymentClient) -> None:
    read: set[str] = set()

    class Recording:
        def __init__(self, charge: Any) -> None:
            self._charge = charge

        def __getattr__(self, name: str) -> Any:
            read.add(name)
            return getattr(self._charge, name)

    for charge in await _charges(demo_client, pages=3):
        _shown(Recording(charge))
        state_words(Recording(charge))
    assert read <= {field.name for field in fields(RowView)}, read - {
        field.name for field in fields(RowView)
    }


def test_a_value_of_another_type_gives_no_row_view() -> None:
    class Named(str):  # a constrained string type: reading it back would import its module
        pass

    charge = SimpleNamespace(
        charge_id=Named("c1"),
        charge_timestamp=datetime(2026, 11, 20, tzinfo=UTC),
        status="success",
        charge_type="sale",
        result_code="Approved",
        total_amount=None,
        method="card",
        payment_method=None,
        last4="1111",
        contact_name="Jane",
        account_id="pa_1",
        tags=[],
        captured_charge_id=None,
        chargebacks=None,
        return_info=None,
        is_authorization=False,
    )
    with pytest.raises(TypeError):
        row_view(charge)
    charge.charge_id = "c1"
    assert row_view(charge).charge_id == "c1"


def test_the_forked_child_reads_the_first_page_and_is_reaped(
    sandbox_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(first_page.SWITCH)
    connection = resolve_connection(
        base_url=sandbox_server,
        environ={"PAYTUI_CLIENT_ID": DEMO_CLIENT_ID, "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET},
    )
    prefetch = first_page.start(connection, None)
    assert prefetch is not None
    pid = prefetch.pid

    async def read() -> tuple[FirstPage | None, list[str]]:
        first = await prefetch.result()
        async with PaymentClient(
            sandbox_server, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET
        ) as client:
            page = await client.search_charges_page(queries.ALL, limit=first_page.PAGE_SIZE)
        return first, [c.charge_id for c in page.items]

    first, ids = asyncio.run(read())
    assert first is not None
    assert [row.charge_id for row in first.rows] == ids
    assert first.total is not None and first.total >= len(ids) == first_page.PAGE_SIZE
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(pid, os.WNOHANG)


def test_a_child_that_cannot_read_gives_no_preview(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(first_page.SWITCH)
    monkeypatch.setattr(first_page, "CHILD_DEADLINE", 0.3)
    nowhere = SimpleNamespace(
        socket_path=tmp_path / "no.sock", base_url="http://sandbox", reused=True, db_path=None
    )
    prefetch = first_page.start(None, nowhere)  # type: ignore[arg-type]
    assert prefetch is not None

    async def read() -> FirstPage | None:
        return await prefetch.result()

    assert asyncio.run(read()) is None


def _read_by_child(sandbox: Any) -> FirstPage | None:
    prefetch = first_page.start(None, sandbox)
    assert prefetch is not None

    async def read() -> FirstPage | None:
        return await prefetch.result()

    return asyncio.run(read())


def test_a_starting_sandbox_s_first_page_is_read_from_its_database_as_it_will_answer(
    sandbox_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold start: the server is not up (no socket ever comes here), and the child reads the
    page from the database the server will serve: the same rows as the server's answer."""
    monkeypatch.delenv(first_page.SWITCH)
    monkeypatch.setattr(first_page, "CHILD_DEADLINE", 5.0)  # waiting for a socket: no preview
    starting = SimpleNamespace(
        socket_path=tmp_path / "no.sock",
        base_url="http://sandbox",
        reused=False,
        db_path=sandbox_db,
    )
    first = _read_by_child(starting)

    async def served() -> list[RowView]:
        from paytui.sandbox.embedded import asgi_transport

        async with _client(asgi_transport(sandbox_db)) as client:
            page = await client.search_charges_page(queries.ALL, limit=first_page.PAGE_SIZE)
        return [row_view(charge) for charge in page.items]

    assert first is not None and first.total == 3015 and first.has_more
    assert list(first.rows) == asyncio.run(served())

    from paytui.sandbox.embedded import database_version

    conn = sqlite3.connect(sandbox_db)
    conn.execute(f"PRAGMA user_version = {database_version(sandbox_db) + 1}")
    conn.close()
    monkeypatch.setattr(first_page, "CHILD_DEADLINE", 0.5)
    # A database the server would not serve as it is (another schema version) is not read.
    assert _read_by_child(starting) is None


def test_turned_off_or_another_first_screen_starts_no_child(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert first_page.start(None, None) is None  # PAYTUI_FIRST_PAGE=0 (tests/conftest.py)
    monkeypatch.delenv(first_page.SWITCH)
    today_first = SimpleNamespace(ui=SimpleNamespace(start_screen="today"))
    assert first_page.start(today_first, None) is None  # type: ignore[arg-type]


async def _previewing_app(
    transport: httpx.AsyncBaseTransport, client: PaymentClient
) -> tuple[PaytuiApp, FirstPage, asyncio.Event]:
    """An app whose first-page child's page (written to the pipe here) is waiting to be read,
    and whose own client connects when the event is set."""
    page = await client.search_charges_page(queries.ALL, limit=first_page.PAGE_SIZE)
    first = FirstPage(
        page_size=first_page.PAGE_SIZE,
        total=page.total,
        has_more=page.has_more,
        rows=tuple(row_view(c) for c in page.items),
    )
    read_fd, write_fd = os.pipe()  # the child's end, written here instead
    os.write(write_fd, pickle.dumps(first))
    os.close(write_fd)
    connect = asyncio.Event()

    async def factory() -> PaymentClient:
        await connect.wait()
        return _client(transport)

    return PaytuiApp(factory, clock=frozen_clock, first_page=Prefetch(0, read_fd)), first, connect


async def _paused_until(pilot: Any, done: Callable[[], bool], rounds: int = 200) -> None:
    """The app's turns until `done` (a timer's or a message's), never a sleep."""
    for _ in range(rounds):
        if done():
            return
        await pilot.pause()


async def _preview_shown(app: PaytuiApp, pilot: Any) -> ChargeTable:
    table = app.screen.query_one(ChargeTable)
    await _paused_until(pilot, lambda: table.previewing, rounds=50)
    assert table.previewing
    return table


async def test_the_preview_shows_first_and_gives_way_to_the_real_rows(
    sandbox_transport: httpx.AsyncBaseTransport, demo_client: PaymentClient
) -> None:
    app, first, connect = await _previewing_app(sandbox_transport, demo_client)
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _preview_shown(app, pilot)
        assert table.total == first.total
        assert table.charge_at(0) is None  # a preview row is not a charge: nothing acts on it
        assert table.loaded_ids() == [] and table.loaded_from(0) == []  # nor claims, ctrl+n
        assert app.first_page is not None and app.first_page.taken  # shown once, never again
        await pilot.press("j", "enter")  # typed ahead of the real rows
        assert not isinstance(app.screen, ChargeDetailScreen)  # nothing opened yet
        connect.set()
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert app.screen.charge_id == first.rows[1].charge_id  # the row Enter was pressed on
        assert not table.previewing
        charge = table.cursor_charge
        assert charge is not None and charge.charge_id == first.rows[1].charge_id


async def test_another_search_drops_the_preview(
    sandbox_transport: httpx.AsyncBaseTransport, demo_client: PaymentClient
) -> None:
    app, _first, connect = await _previewing_app(sandbox_transport, demo_client)
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _preview_shown(app, pilot)
        # A query that does not parse yet (so no search replaces it): taken at once.
        await pilot.press("slash", "greater_than_sign")
        assert not table.previewing
        # An invalid query keeps no rows under its error, the preview's included.
        assert app.screen.query_one(ListState).state == "empty" and table.total == 0
        connect.set()
        await settle(app, pilot)
        assert app.screen.query_one("#query", Input).value == ">"
        assert not table.previewing
        # The first search answering late does not bring rows back under the error.
        assert app.screen.query_one(ListState).state == "empty" and table.total == 0


async def test_the_first_rows_settle_before_the_deferred_work_holds_the_loop(
    sandbox_transport: httpx.AsyncBaseTransport,
    demo_client: PaymentClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The start's deferred work (the config, the collector, the actions: a moment of the event
    loop) waits for the frame after the first rows, whose count follows the table's resize once
    the loading line has gone: run at once, it held that count wrong for a quarter of a second
    in a real terminal (28 of 32 rows)."""
    monkeypatch.setattr(app_module, "AFTER_FIRST_ROWS", 3600.0)  # not within this test
    app, _first, _connect = await _previewing_app(sandbox_transport, demo_client)
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _preview_shown(app, pilot)
        summary = app.screen.query_one("#showing", Static)
        expected = f"Showing {table.size.height - 1} of "
        await _paused_until(pilot, lambda: str(summary.content).startswith(expected))
        assert str(summary.content).startswith(expected)
        assert not app._started  # the rows painted did not start the deferred work in turn


async def test_a_preview_the_service_does_not_follow_up_gives_way_to_waiting(
    sandbox_transport: httpx.AsyncBaseTransport,
    demo_client: PaymentClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sandbox that never starts: its read-ahead rows do not stand in for its answer."""
    monkeypatch.setattr(ChargeSearchScreen, "PREVIEW_STANDS", 0.05)
    app, _first, _connect = await _previewing_app(sandbox_transport, demo_client)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.screen.query_one(ChargeTable)
        # Shown, then dropped on the timer: on a loaded machine both can happen between two
        # looks, so what is awaited is the preview taken (shown once) and gone again.
        taken = lambda: app.first_page is not None and app.first_page.taken  # noqa: E731
        for _ in range(3000):  # a real timer (PREVIEW_STANDS): waited for in steps
            if taken() and not table.previewing:
                break
            await pilot.pause(0.01)
        assert taken()
        assert not table.previewing and table.total == 0
        assert app.screen.query_one(ListState).state == "loading"


async def test_a_connection_left_until_after_the_first_paint_is_in_place_before_connecting(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    order: list[str] = []

    def settle() -> Any:  # a fresh machine's start (`launch._run_fresh`), read-only by env
        order.append("settled")
        return resolve_connection(environ={"PAYTUI_READ_ONLY": "1"})

    async def factory() -> PaymentClient:
        order.append("connected")
        return _client(sandbox_transport)

    app = PaytuiApp(factory, clock=frozen_clock, settle_connection=settle)
    assert app.session.read_only is False  # the embedded defaults until then
    async with app.run_test(size=(120, 40)) as pilot:
        await settle_app(app, pilot)
        assert order == ["settled", "connected"]
        assert app.session.read_only is True
        assert app.session.connection is not None and app.session.connection.is_embedded


async def test_a_connection_that_cannot_be_resolved_after_the_first_paint_ends_the_app(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    from paytui.config import ConfigError

    def settle() -> Any:
        raise ConfigError("the config could not be read")

    async def factory() -> PaymentClient:
        raise AssertionError("must not connect without its connection")

    app = PaytuiApp(factory, clock=frozen_clock, settle_connection=settle)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            if app.return_code is not None:
                break
            await pilot.pause()
    assert app.return_code == 2


async def test_moves_and_enter_typed_before_any_row_land_on_the_rows_when_they_come(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    connect = asyncio.Event()

    async def factory() -> PaymentClient:
        await connect.wait()
        return _client(sandbox_transport)

    app = PaytuiApp(factory, clock=frozen_clock)  # no first-page child: nothing until connected
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(ChargeTable)
        assert table.total == 0
        await pilot.press("j", "j", "enter")  # typed ahead of the start
        connect.set()
        await settle(app, pilot)
        assert table.cursor_row == 2
        charge = table.cursor_charge
        assert charge is not None
        assert isinstance(app.screen, ChargeDetailScreen)
        assert app.screen.charge_id == charge.charge_id


def test_the_child_reads_a_serving_service_at_the_ui_s_own_priority(
    sandbox_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service already serving answers at once: the child does not step back (nice), which
    starved it behind any program keeping a core busy (docs/performance.md)."""
    niced: list[int] = []
    monkeypatch.setattr(first_page.os, "nice", niced.append)
    connection = resolve_connection(
        base_url=sandbox_server,
        environ={"PAYTUI_CLIENT_ID": DEMO_CLIENT_ID, "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET},
    )
    first = asyncio.run(first_page._read(connection, None))
    assert first is not None and len(first.rows) == first_page.PAGE_SIZE
    assert niced == []


# --- the first page read light (no client, no pydantic) -------------------------------------------
def _store_body(db: Path, limit: int = first_page.PAGE_SIZE, offset: int = 0) -> str:
    from paytui.sandbox import search

    conn = sqlite3.connect(db)
    try:
        return search.search_charges(conn, {}, limit, offset)
    finally:
        conn.close()


def test_the_first_page_read_light_shows_what_the_models_show(sandbox_db: Path) -> None:
    """`_light_page` against the client's own reader, on every page of the demo data: the same
    rows shown (`row_view`), the same count and the same "more"."""
    from paytui.api.client import read_charges_page

    offset, pages = 0, 0
    while True:
        body = _store_body(sandbox_db, 100, offset)
        light = first_page._light_page(body, limit=100, offset=offset)
        page = read_charges_page(body, limit=100, offset=offset)
        assert light is not None and not page.unreadable
        assert [row_view(line) for line in light.items] == [row_view(c) for c in page.items]
        assert (light.total, light.has_more, light.next_offset) == (
            page.total,
            page.has_more,
            page.next_offset,
        )
        pages += 1
        if not page.has_more:
            break
        offset = page.next_offset
    assert pages == 31  # 3,015 charges: every page was compared


@pytest.mark.parametrize(
    "odd",
    [
        {"total_amount": "twelve"},  # not an amount: the model sets it aside
        {"charge_timestamp": "yesterday"},  # a time the model sets aside
        {"payment_method": {"method": "crypto"}},  # a kind the model reads
        {"tags": 5},
        {"charge_id": None},  # the model refuses the row: it is shown as unreadable
    ],
)
def test_a_page_with_an_odd_row_is_left_to_the_models(
    sandbox_db: Path, odd: dict[str, Any]
) -> None:
    import json

    body = json.loads(_store_body(sandbox_db, 5))
    body["data"][2] = {**body["data"][2], **odd}
    assert first_page._light_page(json.dumps(body), limit=5, offset=0) is None


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        '{"nothing": "here"}',
        '{"data": [], "next": "https://elsewhere.example/v2/charges"}',  # the pager's to judge
    ],
)
def test_an_odd_answer_is_left_to_the_client(body: str) -> None:
    assert first_page._light_page(body, limit=5, offset=0) is None


def test_the_first_page_s_query_asks_nothing_a_light_read_would_have_to_judge() -> None:
    """`_light_page` does not judge rows (`_judged`) nor the sort: `ALL` sends no parameter,
    asks no sort, and no row is judged by it; the token is asked where the client asks it."""
    from paytui.api import plain
    from paytui.api.auth import TOKEN_PATH
    from paytui.api.rows import ChargeLine

    line = ChargeLine.read({"charge_id": "c1", "status": "success", "tags": ["vip"]})
    assert queries.ALL.to_params() == []
    assert not queries.ALL.sort
    assert line is not None and queries.ALL.verdicts(line) == {}
    assert plain.TOKEN_PATH == TOKEN_PATH  # the child's token, by `api.plain.basic_token`


def test_a_kept_warm_sandbox_s_first_page_is_read_without_the_client(sandbox_db: Path) -> None:
    """Over the sandbox's socket with the standard library: the rows the client reads, and
    neither httpx nor pydantic imported by the child's reading."""
    import subprocess
    import sys

    from paytui.sandbox.embedded import EmbeddedSandbox

    sandbox = EmbeddedSandbox.start(sandbox_db)
    try:
        sandbox.wait_ready(timeout=60)
        code = (
            "import asyncio, pickle, sys; from pathlib import Path;"
            " from types import SimpleNamespace; from paytui.ui import first_page;"
            f" sandbox = SimpleNamespace(socket_path=Path({str(sandbox.socket_path)!r}),"
            f" base_url={sandbox.base_url!r}, reused=True, db_path=None);"
            " page = asyncio.run(first_page._read(None, sandbox));"
            " heavy = sorted({'httpx', 'pydantic'} & sys.modules.keys());"
            " sys.stdout.buffer.write(pickle.dumps((page, heavy)))"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
        first, heavy = pickle.loads(done.stdout)  # our own child's answer

        async def served() -> list[RowView]:
            from paytui.sandbox.embedded import asgi_transport

            async with _client(asgi_transport(sandbox_db)) as client:
                page = await client.search_charges_page(queries.ALL, limit=first_page.PAGE_SIZE)
            return [row_view(charge) for charge in page.items]

        assert heavy == []
        assert isinstance(first, FirstPage) and first.total == 3015 and first.has_more
        assert list(first.rows) == asyncio.run(served())
    finally:
        sandbox.stop()
