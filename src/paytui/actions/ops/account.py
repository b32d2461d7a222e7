"""A new payment account of a merchant. It carries ``paytui_ref`` in its attributes, which a
read-back finds among the merchant's accounts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paytui.actions.errors import ActionError
from paytui.actions.operation import ACCOUNTS_ALL, Asked, Executor, Operation
from paytui.actions.ops.plugins import journaled_request
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import REF_ATTRIBUTE, ReadBack, has_ref, merchant_accounts, scan
from paytui.api.plugins import AccountRequest

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient
    from paytui.api.models import Account


@dataclass(frozen=True)
class Params:
    """The account to create; its target is its merchant (`request.merchant_id`)."""

    request: AccountRequest


async def prepare(executor: Executor, merchant_id: str, params: Params, asked: Asked) -> Plan:
    request = params.request
    if merchant_id != request.merchant_id:
        raise ActionError("A new account is made for the merchant its request names")

    async def send(ref: str) -> Account:
        attrs = {**(request.attributes or {}), REF_ATTRIBUTE: [ref]}
        return await executor.client.create_account(
            request.model_copy(update={"attributes": attrs})
        )

    summary = journal_summary(merchant_id=request.merchant_id, request=request.to_body())
    return Plan(
        "account_create",
        request.merchant_id,
        None,
        None,
        summary,
        send,
        asked.retry_of,
        original=request,
    )


async def read_back(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    merchant = entry.request_summary.get("merchant_id")
    async for account in scan(merchant_accounts(client, merchant)):
        if account.merchant_id == merchant and has_ref(account.attributes, entry.client_reference):
            return ReadBack("succeeded", account.account_id, result=account)
    return ReadBack("not_applied")


def params_of(entry: JournalEntry, original: Any) -> tuple[str, Params]:
    request = journaled_request(entry, original)
    return request.merchant_id, Params(request)


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
    params=Params,
    prepare=prepare,
    params_of=params_of,
    action="new_account",
    no_bulk="its target is a merchant and each account a long form: nothing to mark",
    no_command="boarding an account is a long form of the business's details and its owners:"
    " the app's New account form",
)
