"""A money answer that says "accepted, not finished" (issue 38, point 2): its own state.

The second service answers a refund ``202`` with ``status: pending`` (or ``processing``) and
settles it later (`SecondService.settle`). paytui records ``awaiting_service`` — never a success —,
says so (outcome, exit 13), sends nothing more for the same refund while it waits, and every
later look (History's check, `history check`, start-up) reads it back by the same status table
until the service settles it, done or declined.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions.errors import UnresolvedAction
from paytui.actions.ops import refund as refund_op
from tests.second_service.app import SecondService
from tests.second_service.test_answer_status import executor_on, sale_of

PENDING = {"status": "pending"}


def pending_service(make: Callable[..., SecondService], **answer: Any) -> SecondService:
    return make(
        answers={"refund": answer or PENDING},
        answer_codes={"refund": 202},
        echo_attributes=True,
    )


@asynccontextmanager
async def refunded(
    make: Callable[..., SecondService], tmp_path: Path, **answer: Any
) -> AsyncIterator[tuple[SecondService, Any, Any]]:
    """5.00 refunded of a sale of a service answering it 202 with `answer`: the service, the
    executor (still open) and the outcome."""
    service = pending_service(make, **answer)
    sale = sale_of(service)
    async with executor_on(service, tmp_path) as executor:
        outcome = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        yield service, executor, outcome


async def test_a_refund_answered_202_pending_awaits_the_service_and_is_followed(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    async with refunded(second_service, tmp_path) as (service, executor, outcome):
        sale_id = outcome.charge_id
        assert outcome.state == "awaiting_service" and not outcome.succeeded
        assert not outcome.retryable
        assert "Awaiting the service" in (outcome.message or "")
        assert "Refunded" not in (outcome.message or "")
        refund_id = outcome.result_id
        assert refund_id is not None
        # Still pending at the service: a check leaves it awaiting, never a success.
        checked = await executor.reconcile_entry(outcome.entry_id)
        assert checked.state == "awaiting_service"
        # The same refund pressed again while it waits: nothing is sent.
        posts = len(service.requests_to("/v2/refunds", "POST"))
        with pytest.raises(UnresolvedAction, match="accepted by the service"):
            await executor.run("refund", sale_id, refund_op.Params(Decimal("5.00")))
        assert len(service.requests_to("/v2/refunds", "POST")) == posts
        # The service settles it: the next look records the truth.
        service.settle(refund_id, status="success")
        settled = await executor.reconcile_entry(outcome.entry_id)
        assert settled.state == "succeeded" and settled.result_id == refund_id


async def test_a_pending_refund_the_service_then_fails_is_declined(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    async with refunded(second_service, tmp_path, status="processing") as (
        service,
        executor,
        outcome,
    ):
        assert outcome.state == "awaiting_service"
        assert outcome.result_id is not None
        service.settle(outcome.result_id, status="failed", message="Card account closed")
        # Start-up's reconciliation reads it back like History's check.
        entries = await executor.reconcile_all()
        assert [e.state for e in entries] == ["failed"]
        assert "Card account closed" in (entries[0].error or "")


async def test_a_202_whose_word_says_success_still_awaits(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    # 202 Accepted is "taken, not done", whatever the body says; the read-back settles it.
    async with refunded(second_service, tmp_path, status="success") as (_, executor, outcome):
        assert outcome.state == "awaiting_service"
        checked = await executor.reconcile_entry(outcome.entry_id)
    assert checked.state == "succeeded"


def test_the_command_line_says_awaiting_with_its_own_exit_code(
    second_service: Callable[..., SecondService], second_cli: Callable[[SecondService], Any]
) -> None:
    service = pending_service(second_service)
    sale = sale_of(service)
    run = second_cli(service)
    code, out, err = run(
        "refunds", "create", sale.charge_id, "--amount", "5.00", "--yes", "--format", "json"
    )
    assert code == 13, err
    assert json.loads(out)["state"] == "awaiting_service"
    assert "Awaiting the service" in err
    # History lists it as awaiting; `history check` reads it back and still waits (13).
    code, out, err = run("history", "--format", "json")
    assert code == 0 and '"awaiting_service"' in out
    code, out, err = run("history", "check", "--format", "json")
    assert code == 13, err
    assert "1 awaiting the service" in err
    # Settled by the service: `history check` proves it (0).
    service.settle(service.store.refunds[0].refund_id, status="success")
    code, out, err = run("history", "check", "--format", "json")
    assert code == 0, err
    assert json.loads(out)[0]["state"] == "succeeded"
