"""`paytui charges search`: each row carries `refund_state` and `dispute_state` (issue #41,
item 4), read from the charge's refunds and its chargebacks as the service shows them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.commands.runtime import Exit
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.cli_support import Run, cli_runner


@pytest.fixture
def run(sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path) -> Run:
    return cli_runner(
        lambda: PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=sandbox_transport,
        ),
        tmp_path / "journal.sqlite3",
    )


def _rows(run: Run, *argv: str) -> list[dict[str, Any]]:
    code, out, err = run("charges", "search", *argv, "--format", "jsonl")
    assert code == Exit.OK, err
    return [json.loads(line) for line in out.splitlines()]


def _state(run: Run, charge_id: str, *more: str) -> tuple[str, str]:
    (row,) = _rows(run, f"id:{charge_id}", *more)
    return row["refund_state"], row["dispute_state"]


def test_full_partial_and_no_refund_each_say_so(run: Run) -> None:
    sales = [
        row
        for row in _rows(run, "status:success", "type:sale", "amount>=20", "--limit", "40")
        if row["refund_state"] == "none"
    ]
    full, part, untouched = (row["charge_id"] for row in sales[:3])
    assert run("refunds", "create", full, "--yes")[0] == Exit.OK
    assert run("refunds", "create", part, "--amount", "1.00", "--yes")[0] == Exit.OK
    assert _state(run, full) == ("full", "none")
    assert _state(run, part) == ("partial", "none")
    assert _state(run, untouched) == ("none", "none")
    # Streamed page by page (`--all`): the same states.
    assert _state(run, part, "--all") == ("partial", "none")


def test_a_chargeback_row_says_its_outcome(run: Run) -> None:
    rows = _rows(run, "status:chargeback", "--limit", "60", "--columns", "charge_id,dispute_state")
    states = {row["dispute_state"] for row in rows}
    assert states <= {"open", "won", "lost"} and "lost" in states, states
    assert all(set(row) == {"charge_id", "dispute_state"} for row in rows)


def test_a_declined_charge_has_no_refunds_to_read(run: Run) -> None:
    (row,) = _rows(run, "status:declined", "--limit", "1")
    assert (row["refund_state"], row["dispute_state"]) == ("none", "none")
