"""The service's word, read whole (issue 38, point 2): a money answer's own status decides.

Against the second service answering a refund, a capture or a new charge with a 2xx whose
status says it failed, was declined, or is a word paytui cannot place. Every status of the one
table (`paytui.actions.answer_status.STATUS_OUTCOMES`) is driven end to end through the executor
and checked against the outcome written *here* (`EXPECTED`, not read from the table), and a
mutation test moves each word to a wrong outcome and checks the end-to-end test then fails.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.actions import answer_status
from paytui.actions.journal import Journal
from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import refund as refund_op
from paytui.api.models import CardPaymentMethodRequest, ChargeRequest, Contact
from tests.actions.support import FakeClock, clocked_executor, made_for
from tests.second_service.app import SecondService
from tests.second_service.data import StoredCharge
from tests.second_service.fixtures import client_for

#: What each status word of a refund's answer must end as in the journal, written down here
#: independently of the table: "succeeded" (done), "failed" (declined: nothing moved, final),
#: "awaiting_service" (accepted, not finished), "unknown" (read back, never assumed). A word
#: added to the table needs its line here.
EXPECTED: dict[str, str] = {
    "success": "succeeded",
    "succeeded": "succeeded",
    "successful": "succeeded",
    "approved": "succeeded",
    "completed": "succeeded",
    "complete": "succeeded",
    "settled": "succeeded",
    "declined": "failed",
    "failed": "failed",
    "failure": "failed",
    "error": "failed",
    "rejected": "failed",
    "refused": "failed",
    "denied": "failed",
    "voided": "failed",
    "void": "failed",
    "canceled": "failed",
    "cancelled": "failed",
    "pending": "awaiting_service",
    "processing": "awaiting_service",
    "in_progress": "awaiting_service",
    "queued": "awaiting_service",
    "submitted": "awaiting_service",
    "accepted": "awaiting_service",
    "received": "awaiting_service",
}
#: The journal state each outcome of the table is written as.
STATE_OF = {
    "succeeded": "succeeded",
    "declined": "failed",
    "pending": "awaiting_service",
    "unknown": "unknown",
}


def sale_of(service: SecondService) -> StoredCharge:
    """A card sale of the second service with everything left to refund."""
    store = service.store
    return next(
        c
        for c in store.charges
        if c.charge_type == "sale"
        and c.status == "success"
        and c.method == "card"
        and store.refundable(c) == c.amount
    )


def open_authorization(service: SecondService) -> StoredCharge:
    return next(
        c
        for c in service.store.charges
        if c.charge_type == "authorization" and c.captured_charge_id is None
    )


class AnswerLost(httpx.AsyncBaseTransport):
    """The service's transport, but the answer to every write is lost after the service acted
    (the connection dropped on the way back)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and request.url.path.startswith("/v2/refunds"):
            await response.aread()
            raise httpx.ReadError("test: the answer was lost", request=request)
        return response


@asynccontextmanager
async def executor_on(
    service: SecondService, tmp_path: Path, transport: httpx.AsyncBaseTransport | None = None
) -> AsyncIterator[Any]:
    """An executor on the fake clock against `service`, with its own journal."""
    clock = FakeClock()
    async with client_for(service, transport=transport or service.transport) as client:
        with Journal(tmp_path / "journal.sqlite3") as journal:
            executor = clocked_executor(client, journal, clock, base_url=service.base_url)
            executor.test_clock = clock
            try:
                yield executor
            finally:
                await executor.aclose()


async def refund_answered(
    make: Callable[..., SecondService], tmp_path: Path, **answer: Any
) -> tuple[Any, Any, SecondService]:
    """Refund 5.00 of a sale of a service that answers the refund with `answer`: the outcome,
    the journal entry after it, the service."""
    service = make(answers={"refund": answer}, echo_attributes=True)
    sale = sale_of(service)
    async with executor_on(service, tmp_path) as executor:
        outcome = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        entry = executor.journal.get(outcome.entry_id)
    return outcome, entry, service


async def test_a_refund_answered_201_failed_is_declined_not_done(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    outcome, entry, service = await refund_answered(
        second_service, tmp_path, status="failed", message="Insufficient merchant balance"
    )
    assert outcome.state == "failed" and not outcome.succeeded and not outcome.retryable
    assert entry.state == "failed"
    # The service's own reason, and the id it answered (the refund it keeps as failed).
    assert "declined" in (outcome.message or "")
    assert "Insufficient merchant balance" in (outcome.message or "")
    assert outcome.result_id == service.store.refunds[0].refund_id
    assert "Refunded" not in (outcome.message or "")


async def test_a_capture_answered_declined_is_declined(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    service = second_service(
        answers={"capture": {"status": "declined", "result_code": "Declined"}},
        echo_attributes=True,
    )
    auth = open_authorization(service)
    async with executor_on(service, tmp_path) as executor:
        outcome = await executor.run("capture", auth.charge_id, capture_op.Params())
        history = executor.history()
    assert outcome.state == "failed" and "declined" in (outcome.message or "")
    assert [e.state for e in history] == ["failed"]
    assert outcome.message and "Captured" not in outcome.message


async def test_a_new_charge_declined_is_declined_and_keeps_the_charge(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    service = second_service(
        answers={
            "charge": {
                "status": "declined",
                "result_code": "Declined",
                "result_text": "Do not honor",
            }
        },
        echo_attributes=True,
    )
    request = ChargeRequest(
        account_id="pa_second_alpha",
        total_amount=Decimal("12.00"),
        payment_method=CardPaymentMethodRequest(
            card_number="4111111111111111",
            expiration_date="2030-12",
            contact=Contact(first_name="Ada", last_name="Lovelace"),
        ),
    )
    async with executor_on(service, tmp_path) as executor:
        outcome = await executor.run("charge", *made_for(request))
    assert outcome.state == "failed"
    assert "Do not honor" in (outcome.message or "")
    # The declined charge the service keeps is named (the screen shows it as declined).
    assert outcome.charge is not None and outcome.charge.status == "declined"
    assert outcome.result_id == outcome.charge.charge_id


async def test_success_with_a_declined_result_code_is_not_assumed(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    # "success" beside result_code Declined: the service contradicts itself. Read back — the
    # charge it keeps says the same — and left unknown, never a success.
    service = second_service(
        answers={"capture": {"status": "success", "result_code": "Declined"}},
        echo_attributes=True,
        echo_captured_charge_id=True,
    )
    auth = open_authorization(service)
    async with executor_on(service, tmp_path) as executor:
        outcome = await executor.run("capture", auth.charge_id, capture_op.Params())
    assert outcome.state == "unknown"
    assert "cannot be placed" in (outcome.message or "")


async def test_an_unplaceable_word_is_read_back_and_never_assumed(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    outcome, entry, service = await refund_answered(second_service, tmp_path, status="hmm")
    assert outcome.state == "unknown" and entry.state == "unknown"
    # It was read back (its refund found, in the same word) rather than trusted.
    reads = [s for s in service.seen if s.method == "GET" and s.path == "/v2/refunds"]
    assert reads
    assert "'hmm'" in (entry.error or "")


async def test_a_refund_read_back_found_failed_is_not_a_success(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    # The answer is lost, and the read-back finds the refund, failed.
    service = second_service(answers={"refund": {"status": "failed"}}, echo_attributes=True)
    sale = sale_of(service)
    async with executor_on(service, tmp_path, AnswerLost(service.transport)) as executor:
        outcome = await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    assert outcome.state == "failed", outcome.message
    assert outcome.reconciled and "declined" in (outcome.message or "")


async def test_a_refund_answered_without_a_status_is_done(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    # The spec shows no refund: one answered with its id and no status word was made.
    outcome, entry, _service = await refund_answered(second_service, tmp_path, status=None)
    assert outcome.state == "succeeded" and entry.state == "succeeded"


async def test_a_capture_answered_without_status_or_code_is_read_back(
    second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    # The spec: "a charge that is processed returns status and result_code". Neither: unknown.
    service = second_service(
        answers={"capture": {"status": None, "result_code": None}},
        echo_captured_charge_id=True,
    )
    auth = open_authorization(service)
    async with executor_on(service, tmp_path) as executor:
        outcome = await executor.run("capture", auth.charge_id, capture_op.Params())
    assert outcome.state == "unknown"


def test_every_word_of_the_table_has_an_expectation() -> None:
    assert set(EXPECTED) == set(answer_status.STATUS_OUTCOMES)


async def _state_of_refund_answered(
    make: Callable[..., SecondService], tmp_path: Path, word: str
) -> str:
    _outcome, entry, _service = await refund_answered(make, tmp_path, status=word)
    return str(entry.state)


@pytest.mark.parametrize("word", sorted(EXPECTED))
async def test_each_status_word_ends_as_written(
    word: str, second_service: Callable[..., SecondService], tmp_path: Path
) -> None:
    assert await _state_of_refund_answered(second_service, tmp_path, word) == EXPECTED[word]


@pytest.mark.parametrize("word", sorted(EXPECTED))
async def test_a_word_moved_to_a_wrong_outcome_is_caught(
    word: str,
    second_service: Callable[..., SecondService],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The mutation: each word moved to every other outcome; the end-to-end check above fails.
    right = answer_status.STATUS_OUTCOMES[word]
    for n, wrong in enumerate(v for v in STATE_OF if STATE_OF[v] != STATE_OF[right]):
        monkeypatch.setitem(answer_status.STATUS_OUTCOMES, word, wrong)
        state = await _state_of_refund_answered(second_service, tmp_path / str(n), word)
        assert state != EXPECTED[word], f"{word} moved to {wrong} went unnoticed"


def test_the_command_line_says_declined_and_exits_refused(
    second_service: Callable[..., SecondService], second_cli: Callable[[SecondService], Any]
) -> None:
    service = second_service(
        answers={"refund": {"status": "declined", "message": "Refunds paused"}},
        echo_attributes=True,
    )
    sale = sale_of(service)
    run = second_cli(service)
    code, out, err = run(
        "refunds", "create", sale.charge_id, "--amount", "5.00", "--yes", "--format", "json"
    )
    assert code == 6, err
    assert json.loads(out)["state"] == "failed"
    assert "The service declined the refund: Refunds paused" in err
    # Final: nothing moved, and History says so.
    code, out, _ = run("history", "--format", "json")
    assert code == 0 and '"failed"' in out and '"succeeded"' not in out
