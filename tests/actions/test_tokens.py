"""Token create and update go through the one executor and journal (issue 21, part 4): an answer
lost after the service stored the card is "unknown", then proven by listing the account's tokens
— one token, never a second POST; a refusal is final; an applied update is a success."""

from __future__ import annotations

import json

import httpx
import pytest
from pydantic import SecretStr

from paytui.actions.errors import EarlierAttemptApplied, RecentlyDone
from paytui.actions.executor import ActionExecutor
from paytui.actions.ops import token as token_op
from paytui.actions.tokens import fingerprint
from paytui.api.client import PaymentClient
from paytui.api.models import (
    Contact,
    Token,
    TokenCreatePaymentMethodRequest,
    TokenRequest,
    TokenUpdate,
    TokenUpdatePaymentMethod,
)
from paytui.sandbox.faults import Faults
from tests.actions.support import WireTransport, made_for

CARD = "5555555555554444"


class DroppingWire(WireTransport):
    """The wire, and an answer lost after the service applied the request: the request is
    served in full (committed), then the connection fails before the answer is read."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        super().__init__(inner)
        self.drop: set[str] = set()  # "POST /v2/tokens", "PUT /v2/tokens/ct_…"
        self.states: list[str] = []  # the journal's token entries, at each read

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if f"{request.method} {request.url.path}" in self.drop:
            await response.aread()
            raise httpx.ReadError("test: the answer was lost", request=request)
        return response


@pytest.fixture
def wire(sandbox_transport: httpx.AsyncBaseTransport) -> DroppingWire:
    return DroppingWire(sandbox_transport)


def _request(account_id: str, *, last_name: str = "Hopper") -> TokenRequest:
    return TokenRequest(
        account_id=account_id,
        payment_method=TokenCreatePaymentMethodRequest(
            card_number=SecretStr(CARD),
            expiration_date="2031-09",
            contact=Contact(first_name="Grace", last_name=last_name, country="us"),
        ),
    )


async def _account(client: PaymentClient, status: str = "approved") -> str:
    page = await client.list_accounts_page(status=status, limit=1)
    return page.items[0].account_id


async def _cards(client: PaymentClient, account_id: str, last_name: str) -> list[Token]:
    page = await client.list_tokens_page(account_id=account_id, limit=500)
    return [
        t
        for t in page.items
        if t.last4 == CARD[-4:]
        and getattr(getattr(t.payment_method, "contact", None), "last_name", None) == last_name
    ]


async def test_token_create_answer_lost_after_storing_is_unknown_then_one_token(
    executor: ActionExecutor, client: PaymentClient, wire: DroppingWire
) -> None:
    account = await _account(client)
    journal = executor.journal

    def watch(request: httpx.Request) -> None:
        if request.method == "GET" and request.url.path == "/v2/tokens":
            wire.states += [e.state for e in journal.list() if e.operation == "token_create"]

    wire.on_send = watch
    wire.drop = {"POST /v2/tokens"}
    outcome = await executor.run("token_create", *made_for(_request(account)))
    wire.drop = set()

    assert outcome.state == "succeeded" and outcome.reconciled
    assert "answer was lost" in (outcome.message or "")
    assert isinstance(outcome.result, Token) and outcome.result.token_id == outcome.result_id
    # Read before sending (nothing journaled yet), then read back while the entry was unknown.
    assert wire.states == ["unknown"]
    entry = journal.get(outcome.entry_id)
    assert entry is not None and (entry.state, entry.result_id) == ("succeeded", outcome.result_id)
    summary = json.dumps(entry.request_summary)
    assert CARD not in summary and CARD[:6] not in summary
    assert entry.request_summary["last4"] == "4444"
    assert entry.request_summary["account_id"] == account
    assert entry.request_summary["tokens_before"] == []

    # The same card again is not sent without an explicit "again": still one token.
    with pytest.raises((RecentlyDone, EarlierAttemptApplied)) as refused:
        await executor.run("token_create", *made_for(_request(account)))
    assert str(outcome.result_id) in refused.value.message
    assert [t.token_id for t in await _cards(client, account, "Hopper")] == [outcome.result_id]
    assert len(wire.posts("/v2/tokens")) == 1

    # Stored again on purpose, its answer lost too: the read-back tells the new token from the
    # one the account already held (kept as a digest, never the id in full).
    wire.drop = {"POST /v2/tokens"}
    second = await executor.run("token_create", *made_for(_request(account)), again=True)
    wire.drop = set()
    assert second.state == "succeeded" and second.reconciled
    assert second.result_id not in (None, outcome.result_id)
    entry = journal.get(second.entry_id)
    assert entry is not None
    assert entry.request_summary["tokens_before"] == [fingerprint(str(outcome.result_id))]
    assert str(outcome.result_id) not in json.dumps(entry.request_summary)
    found = {t.token_id for t in await _cards(client, account, "Hopper")}
    assert found == {outcome.result_id, second.result_id}
    assert len(wire.posts("/v2/tokens")) == 2


async def test_token_create_refused_is_failed_and_final(
    executor: ActionExecutor, client: PaymentClient, wire: DroppingWire
) -> None:
    suspended = await _account(client, "suspended")
    outcome = await executor.run(
        "token_create", *made_for(_request(suspended, last_name="Refused"))
    )
    assert outcome.state == "failed" and not outcome.retryable
    assert "approved" in (outcome.message or "")
    assert len(wire.posts("/v2/tokens")) == 1
    assert await _cards(client, suspended, "Refused") == []


async def test_token_create_that_never_landed_is_not_applied_then_retried_once(
    executor: ActionExecutor, client: PaymentClient, wire: DroppingWire, sandbox_faults: Faults
) -> None:
    account = await _account(client)
    sandbox_faults.delay_seconds = 0.2
    wire.post_timeout = 0.05
    wire.abandon = False  # the request dies with the client's timeout, before the commit
    outcome = await executor.run("token_create", *made_for(_request(account, last_name="Never")))
    sandbox_faults.delay_seconds = 0
    wire.post_timeout = None
    assert outcome.state == "not_applied" and outcome.retryable
    assert await _cards(client, account, "Never") == []

    retried = await executor.retry(outcome.entry_id, acknowledge_earlier=outcome.entry_id)
    assert retried.state == "succeeded" and isinstance(retried.result, Token)
    assert [t.token_id for t in await _cards(client, account, "Never")] == [retried.result_id]
    assert len(wire.posts("/v2/tokens")) == 2


async def test_token_update_applied_then_answer_lost_is_a_success(
    executor: ActionExecutor, client: PaymentClient, wire: DroppingWire
) -> None:
    page = await client.list_tokens_page(limit=1)
    token_id = page.items[0].token_id
    update = TokenUpdate(
        payment_method=TokenUpdatePaymentMethod(
            expiration_date="2032-03", contact=Contact(last_name="Hamilton")
        )
    )
    wire.drop = {f"PUT /v2/tokens/{token_id}"}
    outcome = await executor.run("token_update", token_id, token_op.UpdateParams(update))
    wire.drop = set()

    assert outcome.state == "succeeded" and outcome.reconciled
    message = outcome.message or ""
    assert message.startswith(f"Token {token_id} updated (the answer was lost")
    assert message.endswith("but the service shows it happened)")
    entry = executor.journal.get(outcome.entry_id)
    assert entry is not None and (entry.operation, entry.charge_id) == ("token_update", token_id)
    read = await client.get_token(token_id)
    assert read.payment_method.expiration_date == "2032-03"  # type: ignore[union-attr]
    assert len(wire.posts("/v2/tokens/")) == 1
