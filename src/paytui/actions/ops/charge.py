"""A new charge (sale, authorization, pre-authorization). It carries ``paytui_ref`` merged into
its attributes; the journal keeps the method and last four only, never the number or token."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.actions.amounts import check_amount
from paytui.actions.errors import ActionError, NotRetryable
from paytui.actions.operation import CHARGES_ALL, Asked, Executor, Operation
from paytui.actions.plan import Plan, journal_summary, mask_token
from paytui.actions.read_backs import REF_ATTRIBUTE, ReadBack, Unprovable, has_ref, scan
from paytui.api.models import (
    BankAccountPaymentMethodRequest,
    CardPaymentMethodRequest,
    Charge,
    ChargeRequest,
)
from paytui.api.queries import ChargeQuery

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient


def charge_summary(request: ChargeRequest) -> dict[str, Any]:
    """The charge request without its card/bank number or token: method and last four only."""
    method = request.payment_method
    payment: dict[str, Any]
    if isinstance(method, CardPaymentMethodRequest):
        number = method.card_number.get_secret_value()
        payment = {"method": "card", "last4": number[-4:]}
    elif isinstance(method, BankAccountPaymentMethodRequest):
        number = method.account_number.get_secret_value()
        payment = {"method": "bank_account", "last4": number[-4:]}
    else:  # the request model admits only the three kinds: this is a token
        payment = {"method": "token", "token": mask_token(method.token_id)}
    return journal_summary(
        account_id=request.account_id,
        total_amount=request.total_amount,
        charge_type=request.charge_type,
        payment_method=payment,
        invoice_number=request.invoice_number,
        po_number=request.po_number,
        convenience_fee=request.convenience_fee,
        supplemental_fee=request.supplemental_fee,
        tags=request.tags,
        attributes=request.attributes,
    )


@dataclass(frozen=True)
class Params:
    """The charge to create; its target is the account it is made on (`request.account_id`)."""

    request: ChargeRequest


async def prepare(executor: Executor, account_id: str, params: Params, asked: Asked) -> Plan:
    """A pre-authorization (a card check for 0) is journaled like the rest."""
    request = params.request
    if account_id != request.account_id:
        raise ActionError("A new charge is made on the account its request names")
    pre_auth = request.charge_type == "pre_authorization"
    amount = check_amount(request.total_amount, allow_zero=pre_auth)
    # What the card pays: the fees are added at create as at capture (one rule).
    amount += sum(
        (fee for fee in (request.convenience_fee, request.supplemental_fee) if fee),
        Decimal(0),
    )
    executor.confirm("charge", amount, None, asked.confirmation)

    async def send(ref: str) -> Charge:
        attrs = {**(request.attributes or {}), REF_ATTRIBUTE: [ref]}
        return await executor.client.create_charge(request.model_copy(update={"attributes": attrs}))

    return Plan(
        "charge",
        request.account_id,
        None,
        amount,
        charge_summary(request),
        send,
        asked.retry_of,
        original=request,
    )


async def read_back(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    ref = entry.client_reference
    account = entry.request_summary.get("account_id")
    query = ChargeQuery(attributes=((REF_ATTRIBUTE, ref),), account_id=account)
    blind: list[str] = []
    async for found in scan(client.search_charges(query, page_size=50)):
        # Our reference is ours alone: only a charge carrying it is this one.
        if has_ref(found.attributes, ref):
            return ReadBack("succeeded", found.charge_id, found.total_amount, charge=found)
        if found.account_id in (None, account) and "attributes" not in found.model_fields_set:
            # A charge of the account listed without its attributes (a service that ignores
            # the filter and does not show them): it may be ours, and nothing here can tell.
            blind.append(found.charge_id)
    if blind:
        raise Unprovable(
            f"the service lists {len(blind)} charge(s) of the account without their attributes"
            f" ({', '.join(blind[:3])}): cannot tell whether one is this one"
        )
    return ReadBack("not_applied")


def params_of(entry: JournalEntry, original: Any) -> tuple[str, Params]:
    if not isinstance(original, ChargeRequest):
        raise NotRetryable("The card details of a new charge are never stored; enter it again")
    return original.account_id, Params(original)


SPEC = Operation(
    "charge",
    noun="charge",
    label="New charge",
    short="new charge",
    scope=CHARGES_ALL,
    success="Charge {result_id} created",
    moves_money=True,
    result_noun="charge",
    target_key="account_id",
    makes_a_charge=True,
    read_back=read_back,
    params=Params,
    prepare=prepare,
    params_of=params_of,
    action="new_charge",
    no_bulk="its target is an account and each charge a whole payment form: nothing to mark",
    no_command="a new charge is a payment the customer makes (a whole form: card or bank"
    " details, contact, fees), not support on an existing one, and it has no 'the same one"
    " recently' guard, so a script run twice would charge twice: the app's New charge form",
)
