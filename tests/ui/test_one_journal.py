"""One journal per machine: the dashboard that visited History, and `paytui` commands beside it.

Issue 38: after `5` (History) the dashboard held no lock on its journal; a command line beside
it, finding itself alone, checkpointed and deleted the WAL the dashboard still had open. The
dashboard's History then missed what the command made, and entries were lost. Here the
dashboard runs against the sandbox served on loopback, and real `paytui` processes (the same
data directory, as on one machine) refund beside it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from paytui.actions.journal import Journal, default_journal_path
from paytui.actions.ops import refund as refund_op
from paytui.api.client import PaymentClient
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.history import HistoryScreen
from tests.actions.support import demo_env, unrefunded_sales
from tests.ui.conftest import settle

_CLI = "import sys; from paytui.cli import main; sys.exit(main(sys.argv[1:]))"


def paytui(base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`paytui ARGS` in another process, on this test's data directory (its journal)."""
    env = demo_env(base_url)
    return subprocess.run(
        [sys.executable, "-c", _CLI, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def served_app(base_url: str) -> PaytuiApp:
    async def factory() -> Any:
        return PaymentClient(base_url, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET)

    # The profile a command with only PAYTUI_BASE_URL and credentials acts as: History lists
    # this profile's entries, so the dashboard's and the command line's are one list.
    return PaytuiApp(factory, profile_name="(ad hoc)")


async def test_the_dashboard_keeps_its_journal_beside_a_command_line(sandbox_server: str) -> None:
    journal = default_journal_path()
    wal = journal.with_name(journal.name + "-wal")
    app = served_app(sandbox_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        sales = await unrefunded_sales(client, 3)
        executor = await app.actions.executor()
        assert Path(executor.journal.path) == journal
        mine = await executor.run("refund", sales[0].charge_id, refund_op.Params(Decimal("5.00")))
        assert mine.succeeded
        await pilot.press("5")  # History: the journal read again, and its batch log opened
        await settle(app, pilot)
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("1")
        await settle(app, pilot)

        # The command line beside it: two refunds, then a read that closes the journal.
        for sale in sales[1:]:
            done = await asyncio.to_thread(
                paytui,
                sandbox_server,
                *("refunds", "create", sale.charge_id, "--amount", "5.00", "--yes"),
            )
            assert done.returncode == 0, done.stderr
        listed = await asyncio.to_thread(paytui, sandbox_server, "history", "--limit", "1")
        assert listed.returncode == 0, listed.stderr
        # Not alone: the command left the WAL the dashboard has open where it is.
        assert wal.exists()

        # The dashboard's History shows all three refunds, its own and the command line's.
        await pilot.press("5")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        shown = {(e.charge_id, e.state) for e in history.entries}
        assert shown >= {(s.charge_id, "succeeded") for s in sales}, shown
        verified = await asyncio.to_thread(paytui, sandbox_server, "history", "verify")
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert executor.journal.verify().ok

    with Journal(journal) as after:  # the dashboard gone: every entry of both is there
        refunded = {e.charge_id for e in after.list() if e.state == "succeeded"}
        assert refunded >= {s.charge_id for s in sales}
        assert after.verify().ok
