"""Two actors meaning the same action: two processes, two spellings of one service, a person
who looked before a script acted. Exactly one is sent; the other is told what changed.

The first test runs real `paytui refunds create` processes against the sandbox served on
loopback (the journal shared through the data directory, as on one machine); the others use two
`Journal` objects on one file with the in-process sandbox: two executors, each with its own
journal object, as two processes have (in one process the two share the file's one connection,
`paytui.actions.journal_store.open_sqlite`; the journal's guard is the same SQL either way).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

from paytui.actions.errors import (
    EarlierAttemptApplied,
    RecentlyDone,
    TargetChanged,
    UnresolvedAction,
)
from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.faults import Faults
from tests.actions.support import (
    FakeClock,
    WireTransport,
    clocked_executor,
    refunds_of,
    unrefunded_sales,
)

_CLI = "import sys; from paytui.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture
def journal_path(journal_location: Path | str) -> Path | str:
    """These tests run on both engines: a file, and a team's PostgreSQL."""
    return journal_location


def _refund_process(
    base_url: str, charge_id: str, home: Path, extra_env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """`paytui refunds create CHARGE --amount 5.00 --yes` in a home of its own (`extra_env`:
    a team journal, an agent's name)."""
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "PAYTUI_BASE_URL": base_url,
        "PAYTUI_CLIENT_ID": DEMO_CLIENT_ID,
        "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        **(extra_env or {}),
    }
    env.pop("PAYTUI_PROFILE", None)
    env.pop("PAYTUI_TOKEN", None)
    argv = [sys.executable, "-c", _CLI, "refunds", "create", charge_id, "--amount", "5.00"]
    return subprocess.Popen(
        [*argv, "--yes", "--format", "json"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_two_processes_meaning_the_same_refund_send_one(
    sandbox_server: str, tmp_path: Path
) -> None:
    """Two `paytui refunds create CH --amount 5.00 --yes` on one journal, started 0, 0.3 and 1 s
    apart, one through ``127.0.0.1`` and the other through ``localhost`` (one service): one
    refund each time; the other exits 8 naming what was done, and nothing more is sent. (CI once
    saw the sender's own answer late on a loaded machine: it then exits 7, outcome unknown —
    what a late answer is — and the refund is still there once.)"""
    port = sandbox_server.rsplit(":", 1)[1]
    spellings = (f"http://127.0.0.1:{port}/", f"http://localhost:{port}")
    async with PaymentClient(
        sandbox_server, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET
    ) as client:
        sales = await unrefunded_sales(client, 3)
        for gap, sale in zip((0.0, 0.3, 1.0), sales, strict=True):
            first = _refund_process(spellings[0], sale.charge_id, tmp_path)
            if gap:
                await asyncio.sleep(gap)  # the gap between two people pressing is the test
            second = _refund_process(spellings[1], sale.charge_id, tmp_path)
            results = [await asyncio.to_thread(p.communicate, timeout=60) for p in (first, second)]
            codes = sorted(p.returncode for p in (first, second))
            refunds = await refunds_of(client, sale.charge_id)
            assert len(refunds) <= 1, (gap, results)  # never two
            if not refunds:
                # Held past its deadline on a loaded machine, a refund sent is dropped by the
                # service (in time or never: docs/money-safety.md): its sender proves it did not
                # happen (10); the other sent nothing (8), could not check (10), or sent its own
                # once that was proven, dropped too (10).
                assert codes in ([8, 10], [10, 10]), (gap, codes, results)
                continue
            # The one that sent it says so (0), or, when its answer was late on a loaded machine,
            # says its outcome is unknown (7: the refund is there, found later by a read-back);
            # never both sending. The other exits 8 naming what was done, or, when the service
            # did not answer its reads in time on a loaded machine, 10 (it could not check, so
            # it sent nothing). Either way it says that nothing was sent.
            assert codes in ([0, 8], [7, 8], [0, 10], [7, 10]), (gap, codes, results)
            told = next(
                err
                for p, (_, err) in zip((first, second), results, strict=True)
                if p.returncode in (8, 10)
            )
            assert "nothing" in told.lower() and "was sent" in told, told


async def test_a_refund_in_flight_when_the_person_looked_stops_the_second(
    client: PaymentClient, journal: Journal, journal_path: Path, clock: FakeClock, sale: Charge
) -> None:
    """The dialog read the charge while the command line's refund was in flight (its entry
    unsettled, its refund not yet listed). The command line's refund then succeeds: the
    dialog's refund of what it saw is not sent, and the person is told by whom."""
    with Journal(journal_path) as other:
        script = clocked_executor(client, other, clock, actor="the command line of ana@desk-3")
        person = clocked_executor(client, journal, clock, actor="the dashboard of bo@desk-7")
        held = asyncio.Event()
        release = asyncio.Event()
        send = client.create_refund

        async def slow_create(request: object) -> object:
            held.set()
            await release.wait()
            return await send(request)  # type: ignore[arg-type]

        client.create_refund = slow_create  # type: ignore[method-assign]
        running = asyncio.ensure_future(
            script.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        )
        await held.wait()
        basis = await person.observe("refund", sale.charge_id)
        assert basis.refunds == () and basis.in_flight  # what the person saw: nothing refunded
        release.set()
        assert (await running).succeeded
        client.create_refund = send  # type: ignore[method-assign]
        with pytest.raises(TargetChanged) as told:
            await person.run(
                "refund",
                sale.charge_id,
                refund_op.Params(Decimal("5.00")),
                basis=basis.with_shown(),
            )
    assert "refunded 5.00 by the command line of ana@desk-3" in told.value.message
    assert told.value.left == (sale.total_amount or 0) - Decimal("5.00")
    assert len(await refunds_of(client, sale.charge_id)) == 1
    # Reviewing again (a new basis that shows the refund) is a decision of its own: sent.
    again = await person.run(
        "refund",
        sale.charge_id,
        refund_op.Params(Decimal("5.00")),
        basis=(await person.observe("refund", sale.charge_id)).with_shown(),
    )
    assert again.succeeded and len(await refunds_of(client, sale.charge_id)) == 2


async def test_two_spellings_of_one_service_share_the_guard(
    client: PaymentClient, journal: Journal, journal_path: Path, clock: FakeClock, sale: Charge
) -> None:
    """Profiles for ``http://127.0.0.1:8000/`` and ``http://LOCALHOST:8000`` are one service:
    the refund one made while the other's person was deciding is found in the journal under
    the one key — named, with who made it — and the second refund is not sent."""
    with Journal(journal_path) as other:
        one = clocked_executor(
            client, journal, clock, base_url="http://127.0.0.1:8000/", actor="the dashboard of bo"
        )
        two = clocked_executor(client, other, clock, base_url="http://LOCALHOST:8000")
        two.profile = "another profile"
        assert one.base_url == two.base_url == "http://localhost:8000"
        basis = await two.observe("refund", sale.charge_id)
        done = await one.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        with pytest.raises(TargetChanged) as told:
            await two.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")), basis=basis)
    earlier = told.value.earlier
    assert earlier is not None and earlier.id == done.entry_id
    assert "refunded 5.00 by the dashboard of bo" in told.value.message
    assert len(await refunds_of(client, sale.charge_id)) == 1


async def test_a_recent_identical_refund_needs_again(
    client: PaymentClient, journal: Journal, clock: FakeClock, sale: Charge, wire: WireTransport
) -> None:
    """A script has no eyes: a second refund of the same amount of the same charge, read after
    the first went through, is not sent without `again`; another amount is not identical."""
    runner = clocked_executor(client, journal, clock, actor="the command line of ana@desk-3")
    first = await runner.run(
        "refund",
        sale.charge_id,
        refund_op.Params(Decimal("5.00")),
        basis=await runner.observe("refund", sale.charge_id),
    )
    assert first.succeeded
    with pytest.raises(RecentlyDone) as told:
        await runner.run(
            "refund",
            sale.charge_id,
            refund_op.Params(Decimal("5.00")),
            basis=await runner.observe("refund", sale.charge_id),
        )
    assert told.value.earlier == first.result_id
    assert "by the command line of ana@desk-3" in told.value.message
    assert len(wire.posts("/v2/refunds")) == 1
    other = await runner.run(
        "refund",
        sale.charge_id,
        refund_op.Params(Decimal("2.00")),
        basis=await runner.observe("refund", sale.charge_id),
    )
    assert other.succeeded
    again = await runner.run(
        "refund",
        sale.charge_id,
        refund_op.Params(Decimal("5.00")),
        basis=await runner.observe("refund", sale.charge_id),
        again=True,
    )
    assert again.succeeded and len(wire.posts("/v2/refunds")) == 3


async def test_an_earlier_attempt_settled_by_another_writer_during_the_read_back_is_refused(
    client: PaymentClient,
    journal: Journal,
    journal_path: Path,
    clock: FakeClock,
    sale: Charge,
    sandbox_faults: Faults,
    wire: WireTransport,
) -> None:
    """An unknown earlier refund; while this executor reads it back, another writer on the same
    file records that it succeeded. The new refund is refused (`EarlierAttemptApplied`): one
    POST in all."""
    runner = clocked_executor(client, journal, clock)
    sandbox_faults.drop_after_commit = {"refund"}
    wire.fail_gets = True
    first = await runner.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    assert first.state == "unknown"
    sandbox_faults.drop_after_commit = set()
    (refund,) = await _refunds_while_reads_down(client, wire, sale.charge_id)
    with Journal(journal_path) as other:

        def settled_elsewhere(request: object) -> None:
            # The other writer (the process that sent it) learns the answer at this moment.
            if getattr(request, "method", "") == "GET":
                wire.on_send = None
                other.transition(
                    first.entry_id,
                    "succeeded",
                    expected={"unknown"},
                    result_id=refund.refund_id,
                )
                wire.fail_gets = True  # this read-back itself finds nothing

        wire.on_send = settled_elsewhere
        with pytest.raises(EarlierAttemptApplied) as told:
            await runner.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    assert told.value.entry.id == first.entry_id
    assert len(wire.posts("/v2/refunds")) == 1


async def _refunds_while_reads_down(
    client: PaymentClient, wire: WireTransport, charge_id: str
) -> list[object]:
    wire.fail_gets = False
    try:
        return list(await refunds_of(client, charge_id))
    finally:
        wire.fail_gets = False


#: A journal as paytui wrote it at schema 3 (before who acted and the service key).
SCHEMA_3 = """
CREATE TABLE actions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, client_reference TEXT NOT NULL UNIQUE,
    profile TEXT NOT NULL, base_url TEXT NOT NULL, operation TEXT NOT NULL, charge_id TEXT,
    amount TEXT, request_summary TEXT NOT NULL, state TEXT NOT NULL, result_id TEXT, error TEXT,
    retry_of INTEGER REFERENCES actions(id), created_at TEXT NOT NULL, sent_at TEXT,
    updated_at TEXT NOT NULL, resolved_at TEXT, settle_seconds REAL, checked_at TEXT,
    never_sent INTEGER NOT NULL DEFAULT 0, unacknowledged INTEGER NOT NULL DEFAULT 0,
    client_id TEXT
);
CREATE TABLE refusals (
    id INTEGER PRIMARY KEY AUTOINCREMENT, profile TEXT NOT NULL, base_url TEXT NOT NULL,
    client_id TEXT, operation TEXT NOT NULL, charge_id TEXT, amount TEXT, reason TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""


def test_the_journal_migrates_to_one_key_per_service(tmp_path: Path) -> None:
    """A journal written before the service key: its rows are found under the canonical URL."""
    import sqlite3

    journal_path = tmp_path / "data" / "journal.sqlite3"
    journal_path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(journal_path)
    db.executescript(SCHEMA_3 + "PRAGMA user_version = 3;")
    db.execute(
        "INSERT INTO actions (client_reference, profile, base_url, operation, charge_id, amount,"
        " request_summary, state, created_at, updated_at)"
        " VALUES ('r1', 'p', 'http://127.0.0.1:8000/', 'refund', 'c1', '1.00', '{}', 'pending',"
        " '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')"
    )
    db.commit()
    db.close()
    started = time.monotonic()
    with Journal(journal_path) as journal:
        assert [e.base_url for e in journal.list()] == ["http://localhost:8000"]
    assert time.monotonic() - started < 30


async def test_a_live_senders_late_request_is_left_to_it_not_proven_absent(
    client: PaymentClient, journal: Journal, journal_path: Path, clock: FakeClock, sale: Charge
) -> None:
    """Process one's refund is "sent" but its request leaves late (a slow "sent" write or
    token fetch); process two, meaning the same refund, must not read one's entry back, prove
    "not applied" after one's deadline by its own clock, and send a second refund: it is told
    the refund is being sent by one, and one's refund is the only one."""
    with Journal(journal_path) as other:
        one = clocked_executor(client, journal, clock, actor="the command line of ana@desk-3")
        two = clocked_executor(client, other, clock, actor="the command line of bo@desk-7")
        held, release = asyncio.Event(), asyncio.Event()
        send = client.create_refund

        async def late(request: object) -> object:
            held.set()
            await release.wait()  # the request has not left yet
            return await send(request)  # type: ignore[arg-type]

        client.create_refund = late  # type: ignore[method-assign]
        first = asyncio.ensure_future(
            one.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        )
        await held.wait()
        await clock.sleep(one.settle_seconds + 1)  # past one's deadline by the clock
        client.create_refund = send  # type: ignore[method-assign]
        basis = await two.observe("refund", sale.charge_id)
        with pytest.raises(UnresolvedAction) as told:
            await two.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")), basis=basis)
        release.set()
        assert (await first).succeeded
    assert "being sent by the command line of ana@desk-3" in told.value.message
    assert len(await refunds_of(client, sale.charge_id)) == 1
