"""A service's refusal is read in whatever envelope it comes (the spec shows none): the reason
reaches the person — the executor's outcome, the journal, the command line's one line — as the
service said it, whatever the shape; never "Conflict: Conflict (409)"."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions.executor import ActionExecutor
from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.actions.policy import ActionPolicy
from tests.second_service.app import SecondService
from tests.second_service.fixtures import client_for
from tests.second_service.options import ErrorShape

REASON = "refunds and captures are paused for this account"
SHAPES: tuple[ErrorShape, ...] = (
    "error_object",
    "fault",
    "errors",
    "message",
    "detail",
    "detail_list",
    "error_string",
    "text",
)


def open_sale(service: SecondService) -> str:
    """A sale with nothing refunded yet."""
    refunded = {r.charge_id for r in service.store.refunds}
    return next(
        c.charge_id
        for c in service.store.charges
        if c.charge_type == "sale" and c.status == "success" and c.charge_id not in refunded
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_the_command_line_says_the_services_reason_in_every_envelope(
    shape: ErrorShape,
    second_service: Callable[..., SecondService],
    second_cli: Callable[[SecondService], Any],
) -> None:
    service = second_service(error_shape=shape, refuse_writes=409)
    run = second_cli(service)
    sale = open_sale(service)
    code, out, err = run("refunds", "create", sale, "--amount", "1.00", "--yes", "--format", "json")
    assert code == 6, err
    assert f"Conflict: {REASON} (409)" in err
    assert json.loads(out)["state"] == "failed"


async def test_the_executor_records_the_faults_reason(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    service = second_service(error_shape="fault", refuse_writes=409)
    async with client_for(service) as client:
        journal = Journal(tmp_path / "journal.sqlite3")
        executor = ActionExecutor(
            client, journal, ActionPolicy(), profile="p", base_url=service.base_url
        )
        outcome = await executor.run(
            "refund", open_sale(service), refund_op.Params(Decimal("1.00"))
        )
        entry = journal.get(outcome.entry_id)
        journal.close()
    assert outcome.state == "failed" and not outcome.never_sent
    assert outcome.message == f"Conflict: {REASON} (409)"
    assert entry is not None and entry.error == outcome.message


@pytest.mark.parametrize("shape", ["errors", "text", "detail_list"])
def test_a_read_that_finds_nothing_says_the_services_words(
    shape: ErrorShape,
    second_service: Callable[..., SecondService],
    second_cli: Callable[[SecondService], Any],
) -> None:
    run = second_cli(second_service(error_shape=shape))
    code, _, err = run("charges", "show", "0" * 24)
    assert code == 5
    assert "no such charge" in err
