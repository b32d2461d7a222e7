"""`paytui today` through the command line's entry point, on the in-process sandbox."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.commands import today as today_command
from paytui.commands.runtime import Exit
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.seed import DEFAULT_ANCHOR
from tests.cli_support import cli_runner

#: When the tests read Today: nine days after the demo's data was made (as on the day the
#: deadlines were written), whatever the wall clock says.
NOW = DEFAULT_ANCHOR + timedelta(days=9)


@pytest.fixture(autouse=True)
def frozen_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(today_command, "now_utc", lambda: NOW)


FIELDS = [
    "kind",
    "id",
    "customer",
    "amount",
    "due_at",
    "estimated",
    "basis",
    "lapsed",
    "past_window",
    "why",
    "advice",
]


def test_today_prints_the_queue_sorted_by_deadline(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> None:
    run = cli_runner(
        lambda: PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=sandbox_transport,
        ),
        tmp_path / "journal.sqlite3",
    )
    code, out, err = run("today", "--format", "jsonl")
    assert code == Exit.OK, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and all(list(row) == FIELDS for row in rows)
    due = [row["due_at"] for row in rows]
    assert all(d.endswith("Z") for d in due)
    # Sorted by due time, what is past its window after what can be won, the lapsed holds
    # last (JSON booleans say which).
    phases = [(row["lapsed"], row["past_window"]) for row in rows]
    assert phases == sorted(phases)
    for lapsed in (False, True):
        part = [row["due_at"] for row in rows if row["lapsed"] is lapsed and not row["past_window"]]
        assert part and part == sorted(part)
    assert {type(row["past_window"]) for row in rows} == {bool}
    assert {type(row["estimated"]) for row in rows} == {bool}
    assert {"chargeback", "authorization", "return"} <= {row["kind"] for row in rows}
    assert "left out" in err  # the long overdue holds, counted, not hidden silently

    code, out, _ = run("today", "--kind", "chargeback", "--format", "csv")
    assert code == Exit.OK
    found = list(csv.DictReader(io.StringIO(out)))
    assert found and {row["kind"] for row in found} == {"chargeback"}
    assert all(row["estimated"] == "true" and row["amount"] for row in found)
    assert {row["basis"] for row in found} == {"chargeback_date"}

    code, out, _ = run("today", "--due-before", "today", "--format", "json")
    end_of_day = NOW.replace(hour=0, minute=0, second=0, microsecond=0)
    assert code == Exit.OK
    assert all(row["due_at"] < f"{end_of_day.date().isoformat()}T99" for row in json.loads(out))

    code, out, err = run("today", "--due-before", "someday")
    assert code == Exit.USAGE and "someday" in err and not out
