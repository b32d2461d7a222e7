"""Refund a charge, in part or what is left. Every refund carries ``paytui_ref``, which is how a
read-back finds exactly this one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.actions.amounts import check_amount
from paytui.actions.errors import PrecheckFailed
from paytui.actions.operation import (
    REFUNDS_ALL,
    Asked,
    Asking,
    BadOption,
    CommandLine,
    Executor,
    Operation,
    Option,
    decimal_or_none,
)
from paytui.actions.plan import Plan, amount_identity, journal_summary
from paytui.actions.read_backs import REF_ATTRIBUTE, ReadBack, Unprovable, has_ref, scan
from paytui.api.models import Refund, RefundRequest
from paytui.api.queries import RefundQuery

if TYPE_CHECKING:
    from paytui.actions.basis import Basis
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient


@dataclass(frozen=True)
class Params:
    """A refund: `amount` None refunds whatever is left (what a bulk full refund sends)."""

    amount: Decimal | None = None
    reason: str | None = None
    tags: Sequence[str] | None = None
    attributes: Mapping[str, Sequence[str]] | None = None


async def prepare(executor: Executor, charge_id: str, params: Params, asked: Asked) -> Plan:
    checked = check_amount(params.amount) if params.amount is not None else None
    executor.confirm("refund", checked, charge_id, asked.confirmation)
    # What the registry's rule judges (a charge-back, an authorization…): the basis's re-read
    # when the person's decision was just checked against the service, else read now.
    charge = await executor.read_charge(charge_id)
    reason = params.reason
    user_tags = list(params.tags) if params.tags is not None else None
    user_attrs = (
        {str(k): [str(v) for v in vs] for k, vs in params.attributes.items()}
        if params.attributes is not None
        else None
    )

    async def send(ref: str) -> Refund:
        sent_attrs = {**(user_attrs or {}), REF_ATTRIBUTE: [ref]}
        request = RefundRequest(
            charge_id=charge_id,
            total_amount=checked,
            reason=reason,
            tags=user_tags,
            attributes=sent_attrs,
        )
        return await executor.client.create_refund(request)

    summary = journal_summary(
        total_amount=checked, reason=reason, tags=user_tags, attributes=user_attrs
    )
    plan = Plan("refund", charge_id, charge_id, checked, summary, send, asked.retry_of)
    plan.identity = amount_identity(checked)
    plan.subject = charge
    return plan


async def read_back(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    ref = entry.client_reference
    query = RefundQuery(charge_id=entry.charge_id, attributes=((REF_ATTRIBUTE, ref),))
    blind: list[str] = []
    async for found in scan(client.search_refunds(query, page_size=50)):
        # Our reference is ours alone: a refund carrying it is this one, whether or not the row
        # names its charge (one naming another charge is not).
        if found.charge_id in (None, entry.charge_id) and has_ref(found.attributes, ref):
            return ReadBack("succeeded", found.refund_id, found.total_amount, refund=found)
        if found.charge_id in (None, entry.charge_id) and "attributes" not in (
            found.model_fields_set
        ):
            # A refund of this charge (or of an unnamed one) sent without its attributes: it
            # may be ours, and nothing here can tell. Only what carries our reference is ours;
            # an earlier refund of the same charge must never pass for it.
            blind.append(found.refund_id)
    if blind:
        raise Unprovable(
            f"the service lists {len(blind)} refund(s) of this charge without their"
            f" attributes ({', '.join(blind[:3])}): cannot tell whether one is this one"
        )
    return ReadBack("not_applied")


def params_of(entry: JournalEntry, original: Any) -> tuple[str, Params]:
    summary = entry.request_summary
    return entry.charge_id or "", Params(
        amount=decimal_or_none(summary.get("total_amount")),
        reason=summary.get("reason"),
        tags=summary.get("tags"),
        attributes=summary.get("attributes"),
    )


def amount_of(params: Params) -> Decimal | None:
    return params.amount


def asking(charge_id: str, params: Params, basis: Basis | None) -> Asking:
    """The command line's refund is by default what is left to refund (read with the charge's
    refunds), and an amount given is checked against it before anything is asked."""
    from paytui.api.money import format_amount

    left = basis.left if basis is not None and basis.left is not None else Decimal(0)
    if left <= 0:
        raise PrecheckFailed("Nothing left to refund")
    if params.amount is not None and params.amount > left:
        raise BadOption(f"--amount: more than the {format_amount(left)} left to refund")
    amount = params.amount if params.amount is not None else left
    question = f"Refund {format_amount(amount)} of {charge_id}"
    return Asking(question, amount, params=replace(params, amount=amount))


SPEC = Operation(
    "refund",
    noun="refund",
    label="Refund",
    short="refund",
    scope=REFUNDS_ALL,
    success="Refunded{amount}: refund {result_id}",
    moves_money=True,
    four_eyes=True,
    done="refunded",
    result_noun="refund",
    # One marked charge of a bulk full refund: no amount (what is left).
    bulk_label="Full refund",
    bulk_noun="charge",
    bulk_params=Params(),
    seen_refunds=True,
    amount_is_identity=True,
    read_back=read_back,
    params=Params,
    prepare=prepare,
    params_of=params_of,
    amount_of=amount_of,
    command=CommandLine(
        "refunds create",
        "Refund a charge (journaled, sent once).",
        target="the charge to refund",
        options=(
            Option("amount", "default: everything left to refund", metavar="X", kind="amount"),
            Option("reason", "why, kept with the refund"),
        ),
        asking=asking,
        again="refund although a refund of the same amount of this charge was made recently"
        " (by anyone; the error without it names that refund)",
        again_hint="Pass --again to refund {amount} again.",
    ),
    request=lambda charge_id, summary: (
        "POST",
        "/v2/refunds",
        None,
        {"charge_id": charge_id, **summary},
    ),
)
