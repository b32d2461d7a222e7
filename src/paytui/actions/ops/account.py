"""A new payment account of a merchant. It carries ``paytui_ref`` in its attributes, which a
read-back finds among the merchant's accounts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paytui.actions.operation import ACCOUNTS_ALL, Executor, Operation
from paytui.actions.ops.plugins import journaled_request
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import REF_ATTRIBUTE, ReadBack, has_ref, merchant_accounts, scan

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.actions.outcome import ActionOutcome
    from paytui.api.client import PaymentClient
    from paytui.api.models import Account
    from paytui.api.plugins import AccountRequest


async def prepare(executor: Executor, request: AccountRequest, retry_of: int | None) -> Plan:
    async def send(ref: str) -> Account:
        attrs = {**(request.attributes or {}), REF_ATTRIBUTE: [ref]}
        return await executor.client.create_account(
            request.model_copy(update={"attributes": attrs})
        )

    summary = journal_summary(merchant_id=request.merchant_id, request=request.to_body())
    return Plan(
        "account_create", request.merchant_id, None, None, summary, send, retry_of, original=request
    )


async def read_back(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    merchant = entry.request_summary.get("merchant_id")
    async for account in scan(merchant_accounts(client, merchant)):
        if account.merchant_id == merchant and has_ref(account.attributes, entry.client_reference):
            return ReadBack("succeeded", account.account_id, result=account)
    return ReadBack("not_applied")


async def resend(
    executor: Executor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    request = journaled_request(entry, original)
    return await executor.perform(
        "account_create", request.merchant_id, lambda: prepare(executor, request, entry.id)
    )


SPEC = Operation(
    "account_create",
    noun="new account",
    label="Creating an account",
    short="new account",
    scope=ACCOUNTS_ALL,
    success="Account {result_id} created",
    result_noun="account",
    target_key="merchant_id",
    read_back=read_back,
    resend=resend,
)
