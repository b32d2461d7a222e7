"""The first page of charges, read by a second process while this one builds the screen.

Why: on start the first page waits for a token and a request (and, through the API client, for
its imports: httpx, pydantic, the models, about a third of a second of one core), and Python runs
one thread at a time, so a thread cannot overlap them with Textual building the screen. A forked
process can: right after the connection is resolved (`paytui.ui.launch`), `start` forks a child
that reads the first page of the charge search exactly as the screen would ask for it (the `ALL`
view, `PAGE_SIZE` rows from offset 0), and sends back what the rows show, on the other core.
The screen shows those rows as soon as they come (`ChargeSearchScreen`), and its own search, with
its own client, replaces them once connected: the preview is never acted on (a preview row is not
a charge: `ChargeTable.charge_at` gives None for it, Enter waits for the real row).

From the embedded sandbox (its database while its server starts, else its socket) the child
reads with the standard library (`http.client`, `json`), and each row as a
`paytui.api.rows.ChargeLine`: checked by hand, held to the models' reading of every field by
`tests/api/test_rows.py`, so neither httpx nor pydantic is imported (`_light_page`). A page that
is not plainly a page of such rows (a row of any odd shape, an answer other than two plain 200s,
a next-page link) is read through the client and its models, as the screen reads it; so is a
profile's service (its TLS, its token styles and retries are the client's). Either way, what
crosses the pipe is a `RowView` per row: the values the row's columns read, copied into plain
types (str, Decimal, datetime with a stdlib time zone), so that this process shows them without
importing pydantic. `tests/ui/test_first_page.py` checks that every column renders a `RowView`
as it renders its `Charge`, that the columns read nothing a `RowView` lacks, and that the light
reading shows what the models show.

Nothing is risked on failure: any error, an odd page (filters the service ignored, short pages,
unreadable rows), a value of another type, or the child's deadline gives no preview, and the
screen searches as it always did. `PAYTUI_FIRST_PAGE=0` turns the child off.

This module imports only the standard library (it is imported before Textual).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import signal
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from decimal import Decimal
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from pathlib import Path

    from paytui.api.models import Charge, Page
    from paytui.config.connection import Connection
    from paytui.sandbox.embedded import EmbeddedSandbox

__all__ = ["PAGE_SIZE", "FirstPage", "Prefetch", "RowView", "row_view", "start"]

#: Rows of the charge list's first page: the table's page size (`ChargeTable.PAGE_SIZE`). A
#: screenful at 120x40 and then some; each key typed in the search reads one such page, and
#: reading (the service's JSON, then pydantic and the filter proofs) grows with the rows: 50 rows
#: cut about 10 ms off the key-to-painted-table time of 100 (`docs/performance.md`). A taller
#: terminal reads the second page at once, as scrolling would.
PAGE_SIZE = 50
#: Seconds the child may take in all (a cold sandbox's start included) before it gives up.
CHILD_DEADLINE = 20.0
#: The environment switch (tests, A/B timing): "0" starts no child.
SWITCH = "PAYTUI_FIRST_PAGE"


@dataclass(frozen=True, slots=True)
class RowView:
    """What one row of the charge list shows of a charge (the attributes its columns read).

    Not a charge: nothing acts on it (`ChargeTable.charge_at` gives None for it)."""

    charge_id: str
    charge_timestamp: datetime | None
    status: str | None
    charge_type: str | None
    result_code: str | None
    total_amount: Decimal | None
    method: str | None
    payment_method: SimpleNamespace | None
    last4: str | None
    contact_name: str | None
    account_id: str | None
    tags: tuple[str, ...]
    captured_charge_id: str | None
    chargebacks: SimpleNamespace | None
    return_info: bool | None
    is_authorization: bool
    #: `charge_state.may_have_refunds` and `dispute_state`, told in the child (the registry's
    #: rule and the chargeback items are not on the first paint's path).
    may_refund: bool
    dispute: str


@dataclass(frozen=True, slots=True)
class FirstPage:
    """The first page as the child read it: its rows, the service's count and whether more come."""

    page_size: int
    total: int | None
    has_more: bool
    rows: tuple[RowView, ...]


def _plain_time(value: Any) -> datetime | None:
    """A datetime with a stdlib time zone of the same offset (pydantic's own `TzInfo` would make
    this process import pydantic to read it back)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise TypeError(f"charge_timestamp is a {type(value).__name__}")
    offset = value.utcoffset()
    return value if offset is None else value.replace(tzinfo=timezone(offset))


def row_view(charge: Any) -> RowView:
    """The row's values of a validated `Charge` (in the child). TypeError for a value this
    process could not show without the models: then there is no preview."""
    from paytui.charge_state import dispute_state, may_have_refunds

    payment_method = charge.payment_method
    chargebacks = charge.chargebacks
    view = RowView(
        charge_id=charge.charge_id,
        charge_timestamp=_plain_time(charge.charge_timestamp),
        status=charge.status,
        charge_type=charge.charge_type,
        result_code=charge.result_code,
        total_amount=charge.total_amount,
        method=charge.method,
        payment_method=(
            None
            if payment_method is None
            else SimpleNamespace(type=getattr(payment_method, "type", None))
        ),
        last4=charge.last4,
        contact_name=charge.contact_name,
        account_id=charge.account_id,
        tags=tuple(charge.tags or ()),
        captured_charge_id=charge.captured_charge_id,
        chargebacks=(
            None
            if chargebacks is None
            else SimpleNamespace(
                items=bool(getattr(chargebacks, "items", None)),
                total_amount=getattr(chargebacks, "total_amount", None),
            )
        ),
        return_info=None if charge.return_info is None else True,
        is_authorization=bool(charge.is_authorization),
        may_refund=may_have_refunds(charge),
        dispute=dispute_state(charge),
    )
    _check_plain(view)
    return view


_PLAIN = (str, bool, int, Decimal, datetime, type(None))


def _check_plain(view: RowView) -> None:
    values: list[object] = []
    for field in fields(view):
        value = getattr(view, field.name)
        if isinstance(value, SimpleNamespace):
            values += vars(value).values()
        elif isinstance(value, tuple):
            values += value
        else:
            values.append(value)
    for value in values:
        # Exact types: a subclass (a constrained str, an enum) would be unpickled by its module.
        if type(value) not in _PLAIN:
            raise TypeError(f"a row value of type {type(value).__name__}")
        if isinstance(value, datetime) and not (
            value.tzinfo is None or type(value.tzinfo) is timezone
        ):
            raise TypeError("a time zone of another kind")


# --- the child ------------------------------------------------------------------------------------
async def _read(connection: Connection | None, sandbox: EmbeddedSandbox | None) -> FirstPage | None:
    """The first page of the `ALL` view: read light (`_light_page`) from the embedded sandbox's
    database or socket when every row has its plain shape, else through the same client the
    screen uses."""
    # A server already serving (a kept-warm sandbox, a remote service) answers as soon as the
    # child asks, and the first rows wait for nothing else: the child runs at the UI's own
    # priority. At nice 10 it was starved whenever another program kept a core busy, and the
    # rows came only after the UI gave up on it (`FIRST_PAGE_WAIT`) and connected itself
    # (docs/performance.md). Reading a starting sandbox's database, the page waits for nothing
    # but this child either; only waiting for a starting server does it step back (below).
    starting = _starting_database(sandbox)
    page: Page[Charge] | Lines | None = _from_store(starting) if starting is not None else None
    if page is None:
        if starting is not None:
            # A database the server builds or changes first: the page waits for the server's
            # own start (FastAPI's imports, on a cold start all three want the two cores).
            os.nice(10)
        if sandbox is not None:  # the app's embedded factory waits on a thread this child lacks
            await _serving(sandbox)
            page = await asyncio.to_thread(_served_lines, sandbox)
        if page is None:
            page = await _through_client(connection, sandbox)
    if (
        page.ignored_note  # filters applied here, rows not proven, a sort ignored
        or page.paging_note
        or page.unreadable  # a row that could not be read: the screen says why
        or (page.has_more and page.next_offset < PAGE_SIZE)
    ):
        return None
    return FirstPage(
        page_size=PAGE_SIZE,
        total=page.total,
        has_more=bool(page.has_more),
        rows=tuple(row_view(charge) for charge in page.items),
    )


async def _through_client(
    connection: Connection | None, sandbox: EmbeddedSandbox | None
) -> Page[Charge]:
    """The first page through the client and models the screen uses (`search_charges_page`)."""
    from paytui.api import queries
    from paytui.ui.clients import client_factory_for, import_client

    import_client()  # without httpx's command line, as in the app
    if sandbox is not None:
        from paytui.connect import embedded_client

        client = embedded_client(sandbox)
    else:
        assert connection is not None
        client = await client_factory_for(connection)()
    async with client:
        return await client.search_charges_page(queries.ALL, limit=PAGE_SIZE, offset=0)


@dataclass(frozen=True, slots=True)
class Lines:
    """The first page read light (`_light_page`): what `_read` asks of a `Page`."""

    items: tuple[Any, ...]
    total: int | None
    has_more: bool
    offset: int
    #: Never anything but empty here: a page with any of them is the models' to read.
    ignored_note: None = None
    paging_note: None = None
    unreadable: tuple[()] = ()

    @property
    def next_offset(self) -> int:
        return self.offset + len(self.items)


def _light_page(text: str | bytes, *, limit: int, offset: int) -> Lines | None:
    """The first page of `ALL` read as the client reads it (`paytui.api.client._parse_page`: the
    same JSON reading, envelope and paging hints), its rows as `paytui.api.rows.ChargeLine`s:
    checked by hand, the same values as the model's for every field a row shows (held to it
    by `tests/api/test_rows.py`). None when the page is not plainly a page of plain rows (not
    JSON, no list found, a row of any odd shape, a next-page link, whose following the client's
    pager decides): the models read it then, as before, so nothing shown ever depends on which
    reader read it. `ALL` asks no filter and no sort, so no row is judged (`_judged`)."""
    from paytui.api.money import loads_json
    from paytui.api.paging import hints_of, more, unwrap
    from paytui.api.rows import ChargeLine

    try:
        found = unwrap(loads_json(text), "charges")
    except (ValueError, RecursionError):
        return None
    if found is None:
        return None
    raw_items, meta = found
    hints = hints_of(meta)
    if hints.next_link is not None:
        return None
    items = []
    for raw in raw_items:
        line = ChargeLine.read(raw)
        if line is None:
            return None
        items.append(line)
    given = meta.get("offset")
    page_offset = given if isinstance(given, int) and not isinstance(given, bool) else offset
    return Lines(
        items=tuple(items),
        total=hints.total,
        has_more=more(hints, len(raw_items), limit, page_offset),
        offset=page_offset,
    )


def _served_lines(sandbox: EmbeddedSandbox) -> Lines | None:
    """The first page from the embedded sandbox's server over its socket, with the standard
    library (`paytui.api.plain.read_over`: the demo client's token by HTTP Basic, then the page
    as `paytui.api.paging.Pager` asks the first one, each a plain 200 read whole within
    `CHILD_DEADLINE`), read by `_light_page`. None for anything else than two plain answers
    (the client then asks, and tells what went wrong)."""
    from urllib.parse import urlsplit

    from paytui.api.paging import Pager
    from paytui.api.plain import read_over, unix_connection
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    base = urlsplit(sandbox.base_url)
    conn = unix_connection(sandbox.socket_path, base.netloc or "sandbox", CHILD_DEADLINE)
    path, query = Pager(sandbox.base_url).request("/v2/charges", [], PAGE_SIZE, 0)
    body = read_over(
        conn,
        base.path,
        path,
        query,
        credentials=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET),
        deadline=CHILD_DEADLINE,
        remember=False,  # the child logs nothing and ends
    )
    return None if body is None else _light_page(body, limit=PAGE_SIZE, offset=0)


def _starting_database(sandbox: EmbeddedSandbox | None) -> Path | None:
    """The database of a server this start spawned (a reused one answers at once), if known:
    the page may be read from it while the server starts."""
    if sandbox is None or sandbox.reused:
        return None
    return sandbox.db_path


def _from_store(db_path: Path) -> Page[Charge] | Lines | None:
    """The first page as the starting server will answer it, read from its database while it
    starts (a cold start: about a second of FastAPI's imports before it serves).

    The same answer, not a second model of it: the route's own function
    (`paytui.sandbox.search.search_charges`) gives the body's text, and the client's reader
    (`read_charges_page`) reads it. Only when the server will serve that very file as it is
    (`database_as_is`: not one it is about to build or bring up to today), on a read-only
    connection; anything else (a schema being changed, a locked or missing file) is None, and
    the page comes from the server. Only ever a preview: the screen's own search replaces it."""
    import sqlite3

    from paytui.sandbox import search
    from paytui.sandbox.embedded import database_as_is

    # The route's query is built from the parameters; the first page (`ALL`) has none.
    if not database_as_is(db_path):
        return None
    try:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=1)
        try:
            limit, offset = search.paging(PAGE_SIZE, 0)
            body = search.search_charges(conn, {}, limit, offset)
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    light = _light_page(body, limit=limit, offset=offset)
    if light is not None:
        return light
    from paytui.api.client import read_charges_page

    return read_charges_page(body, limit=limit, offset=offset)


async def _serving(sandbox: EmbeddedSandbox) -> None:
    """Until the sandbox's socket takes connections (its server listens once it can answer).
    The parent's readiness event is fed by a thread this process does not have (a fork keeps
    only the forking thread)."""
    import socket

    while True:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(str(sandbox.socket_path))
            except OSError:
                pass
            else:
                return
        await asyncio.sleep(0.02)


def _child(
    write_fd: int, connection: Connection | None, sandbox: EmbeddedSandbox | None
) -> NoReturn:
    """In the forked child: read, send, and leave without running the parent's clean-up."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # ctrl+c is the app's
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # the terminal is the app's
            os.dup2(devnull, fd)
        # Nor anything else the app holds open: the sandbox child's stdin (its EOF is how it
        # knows the app is gone), the kept-warm sandbox's lease, the log file.
        os.closerange(3, write_fd)
        os.closerange(write_fd + 1, os.sysconf("SC_OPEN_MAX"))
        import logging

        logging.disable(logging.CRITICAL)  # the log file is the app's
        first = asyncio.run(asyncio.wait_for(_read(connection, sandbox), CHILD_DEADLINE))
        data = pickle.dumps(first, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view) :]
        code = 0
    except BaseException:  # no preview: the screen searches itself
        code = 1
    finally:
        os._exit(code)


# --- the parent -----------------------------------------------------------------------------------
class Prefetch:
    """The parent's end: the child's pid and pipe; `result()` is the first page or None."""

    def __init__(self, pid: int, read_fd: int) -> None:
        self.pid = pid
        self._fd: int | None = read_fd
        self._result: asyncio.Future[FirstPage | None] | None = None
        #: Shown once: the charge search that took it (a screen built later, after a profile
        #: switch say, must not show what was read for the start).
        self.taken = False

    @property
    def done(self) -> bool:
        return self._result is not None and self._result.done()

    def result(self) -> asyncio.Future[FirstPage | None]:
        """The first page once the child has sent it (None: no preview). Read without blocking
        the event loop; the same future for every caller."""
        if self._result is None:
            loop = asyncio.get_running_loop()
            self._result = loop.create_future()
            if self._fd is None:
                self._result.set_result(None)
            else:
                chunks: list[bytes] = []
                fd = self._fd
                os.set_blocking(fd, False)

                def readable() -> None:
                    try:
                        chunk = os.read(fd, 1 << 16)
                    except BlockingIOError:
                        return
                    except OSError:
                        chunk = b""
                    if chunk:
                        chunks.append(chunk)
                        return
                    loop.remove_reader(fd)
                    self._finish(b"".join(chunks))

                loop.add_reader(fd, readable)
        return self._result

    def _finish(self, data: bytes) -> None:
        first: FirstPage | None = None
        with contextlib.suppress(Exception):
            loaded = pickle.loads(data) if data else None  # our own child, our own pipe
            first = loaded if isinstance(loaded, FirstPage) else None
        assert self._result is not None
        if not self._result.done():
            self._result.set_result(first)
        self.close()

    def close(self) -> None:
        """Stop waiting: close the pipe and reap the child (ended, or ended now)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(fd)
            os.close(fd)
        if self.pid:
            pid, self.pid = self.pid, 0
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG) == (0, 0):  # still reading: not any more
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
        if self._result is not None and not self._result.done():
            with contextlib.suppress(RuntimeError):  # its loop already closed (the app ended)
                self._result.set_result(None)


def start(connection: Connection | None, sandbox: EmbeddedSandbox | None) -> Prefetch | None:
    """Fork the child that reads the first page, if this start shows the charge list first.

    `sandbox`: the embedded sandbox when it is the connection (else the connection's profile).
    None when turned off, on a platform without fork, or when the first screen is another one.
    """
    if os.environ.get(SWITCH) == "0" or not hasattr(os, "fork"):
        return None
    ui = getattr(connection, "ui", None)
    if getattr(ui, "start_screen", "charges") != "charges":
        return None
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:
        os.close(read_fd)
        _child(write_fd, connection, sandbox)
    os.close(write_fd)
    return Prefetch(pid, read_fd)
