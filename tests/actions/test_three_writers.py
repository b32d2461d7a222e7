"""Three processes of one machine write one journal at once: the app (an executor in this
process, its History's second journal object and its batch log opened beside it), the command
line (`paytui refunds create`, over and over) and a bulk run (`BatchRunner`, batch after
batch). Issue 38: the journal split, entries were lost and the trail broke. Afterwards every
entry each writer made is there, every refund the service holds for their charges has its
entry, and the trail holds.

How long they write: ``PAYTUI_TEST_WRITERS_SECONDS`` (3 s by default; the issue's figure was a
minute: ``PAYTUI_TEST_WRITERS_SECONDS=60``). The assertions are on what was written, never on
how much fitted in the time.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from paytui.actions.batch_log import BatchLog
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal, default_journal_path
from paytui.actions.ops import refund as refund_op
from paytui.actions.policy import ActionPolicy
from paytui.api.client import PaymentClient
from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.actions.support import demo_env, refunds_of

SECONDS = float(os.environ.get("PAYTUI_TEST_WRITERS_SECONDS", "3"))

_COMMAND_LINE = """
import json, sys, time
from paytui.cli import main
deadline = time.monotonic() + float(sys.argv[1])
for charge_id in sys.argv[2:]:
    if time.monotonic() >= deadline:
        break
    code = main(["refunds", "create", charge_id, "--amount", "1.00", "--yes", "--format", "json"])
    print("RESULT " + json.dumps({"charge": charge_id, "code": code}), flush=True)
"""

_BULK = """
import asyncio, json, sys, time
from paytui.actions.batch import BatchRunner, plan_batch
from paytui.actions.batch_log import BatchLog
from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.policy import ActionPolicy
from paytui.api.client import PaymentClient

async def run(base_url, client_id, secret, seconds, ids):
    deadline = time.monotonic() + seconds
    async with PaymentClient(base_url, client_id=client_id, client_secret=secret) as client:
        with Journal() as journal:
            executor = ActionExecutor(
                client, journal, ActionPolicy(), profile="bulk", base_url=base_url
            )
            for start in range(0, len(ids), 3):
                if time.monotonic() >= deadline:
                    break
                log = BatchLog(journal.path)  # opened per batch, as a resumed bulk does
                try:
                    charges = [await client.get_charge(i) for i in ids[start : start + 3]]
                    record = await BatchRunner(executor, log).start(plan_batch("refund", charges))
                finally:
                    log.close()
                for item in record.items:
                    done = {"charge": item.charge_id, "state": item.state, "entry": item.entry_id}
                    print("RESULT " + json.dumps(done), flush=True)

base_url, client_id, secret, seconds, *ids = sys.argv[1:]
asyncio.run(run(base_url, client_id, secret, float(seconds), ids))
"""


def _start(script: str, base_url: str, *args: str) -> subprocess.Popen[str]:
    """`script` in a process of its own, on this test's data directory (its journal)."""
    env = demo_env(base_url)
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _results(process: subprocess.Popen[str]) -> list[dict[str, object]]:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    return [json.loads(line[7:]) for line in out.splitlines() if line.startswith("RESULT ")]


async def _sales(client: PaymentClient, count: int) -> list[Charge]:
    """Up to `count` card sales of the demo data (300 at least), none reversed (some may have
    refunds already: a refund the service then refuses is journaled like any other)."""
    found: list[Charge] = []
    offset = 0
    while len(found) < count:
        page = await client.search_charges_page(
            ChargeQuery(charge_type="sale", status="success", method="card"),
            limit=100,
            offset=offset,
        )
        if not page.items:
            break
        found += [c for c in page.items if not c.reversal_flag and (c.total_amount or 0) >= 10]
        offset += 100
    assert len(found) >= min(count, 300), "not enough sales in the demo data"
    return found[:count]


async def test_the_app_the_command_line_and_a_bulk_run_keep_one_whole_journal(
    sandbox_server: str,
) -> None:
    path = default_journal_path()
    async with PaymentClient(
        sandbox_server, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET
    ) as client:
        # Enough charges for each writer not to run out in the time (each refunds one once).
        pool = await _sales(client, 3 * max(100, int(SECONDS * 10)))
        began = datetime.now(UTC) - timedelta(seconds=5)  # the service may round to seconds
        mine, theirs, bulk = pool[0::3], pool[1::3], pool[2::3]
        with Journal(path) as journal, Journal(path) as history:
            app = ActionExecutor(
                client, journal, ActionPolicy(), profile="app", base_url=sandbox_server
            )
            seconds = str(SECONDS)
            command_line = _start(
                _COMMAND_LINE, sandbox_server, seconds, *(c.charge_id for c in theirs)
            )
            bulk_run = _start(
                _BULK,
                sandbox_server,
                sandbox_server,
                DEMO_CLIENT_ID,
                DEMO_CLIENT_SECRET,
                seconds,
                *(c.charge_id for c in bulk),
            )
            made: dict[str, int] = {}
            deadline = time.monotonic() + SECONDS
            for sale in mine:
                if time.monotonic() >= deadline:
                    break
                outcome = await app.run("refund", sale.charge_id, refund_op.Params(Decimal("1.00")))
                if outcome.succeeded and outcome.entry_id is not None:
                    made[sale.charge_id] = outcome.entry_id
                # What the dashboard's History does between actions: read the journal through
                # its own journal object and open its batch log.
                history.list(limit=5)
                BatchLog(path).close()
            by_command = await asyncio.to_thread(_results, command_line)
            by_bulk = await asyncio.to_thread(_results, bulk_run)
            # The app still holds its journal: the others left its WAL where it is.
            assert path.with_name(path.name + "-wal").exists()

        assert made and by_command and by_bulk  # each writer did write
        with Journal(path) as after:
            entries = after.list(limit=100_000)
            report = after.verify()
        assert report.ok, report.broken
        assert report.entries >= len(entries)
        by_id = {e.id: e for e in entries}
        for charge_id, entry_id in made.items():
            assert by_id[entry_id].charge_id == charge_id and by_id[entry_id].state == "succeeded"
        for row in by_bulk:
            if row["state"] == "succeeded":
                entry = by_id[int(str(row["entry"]))]
                assert (entry.charge_id, entry.state) == (row["charge"], "succeeded")
        succeeded = {(e.charge_id, e.state) for e in entries}
        for row in by_command:
            if row["code"] == 0:
                assert (row["charge"], "succeeded") in succeeded, row
        # Every refund the service made for these charges since the writers began has its
        # entry here (an entry whose answer was lost on a loaded machine has no result id yet:
        # counted). Refunds the demo data had before are not theirs.
        for charge_id in {e.charge_id for e in entries if e.operation == "refund"}:
            service = {
                r.refund_id
                for r in await refunds_of(client, str(charge_id))
                if (r.refund_timestamp or began) >= began
            }
            own = [e for e in entries if e.charge_id == charge_id and e.operation == "refund"]
            assert len(service) <= len(own), (charge_id, service, own)
            assert {e.result_id for e in own if e.result_id} <= service, (charge_id, service, own)
