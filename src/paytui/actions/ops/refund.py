"""Refund a charge, in part or what is left. Every refund carries ``paytui_ref``, which is how a
read-back finds exactly this one."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.actions.amounts import check_amount
from paytui.actions.operation import REFUNDS_ALL, Executor, Operation, decimal_or_none
from paytui.actions.plan import Plan, amount_identity, journal_summary
from paytui.actions.read_backs import REF_ATTRIBUTE, ReadBack, Unprovable, has_ref, scan
from paytui.api.models import Refund, RefundRequest
from paytui.api.queries import RefundQuery

if TYPE_CHECKING:
    from paytui.actions.basis import Basis
    from paytui.actions.entry import JournalEntry
    from paytui.actions.outcome import ActionOutcome
    from paytui.api.client import PaymentClient


async def prepare(
    executor: Executor,
    charge_id: str,
    amount: Decimal | None,
    *,
    reason: str | None,
    tags: Sequence[str] | None,
    attributes: Mapping[str, Sequence[str]] | None,
    confirmation: str | None,
    retry_of: int | None,
) -> Plan:
    checked = check_amount(amount) if amount is not None else None
    executor.confirm("refund", checked, charge_id, confirmation)
    user_tags = list(tags) if tags is not None else None
    user_attrs = (
        {str(k): [str(v) for v in vs] for k, vs in attributes.items()}
        if attributes is not None
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
    plan = Plan("refund", charge_id, charge_id, checked, summary, send, retry_of)
    plan.identity = amount_identity(checked)
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


def _perform(
    executor: Executor,
    charge_id: str,
    amount: Decimal | None,
    summary: Mapping[str, Any],
    *,
    confirmation: str | None,
    retry_of: int | None = None,
    basis: Basis | None = None,
) -> Awaitable[ActionOutcome]:
    """The refund's pipeline call (`Executor.perform`), as the single refund makes it."""
    return executor.perform(
        "refund",
        charge_id,
        lambda: prepare(
            executor,
            charge_id,
            amount,
            reason=summary.get("reason"),
            tags=summary.get("tags"),
            attributes=summary.get("attributes"),
            confirmation=confirmation,
            retry_of=retry_of,
        ),
        basis=basis,
        amount=amount,
    )


async def resend(
    executor: Executor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    summary = entry.request_summary
    amount = decimal_or_none(summary.get("total_amount"))
    return await _perform(
        executor,
        entry.charge_id or "",
        amount,
        summary,
        confirmation=confirmation,
        retry_of=entry.id,
    )


async def bulk(
    executor: Executor, charge_id: str, confirmation: str | None, basis: Basis | None
) -> ActionOutcome:
    """One marked charge of a bulk full refund: the single refund's pipeline call with no
    amount (what is left), tied to what the dry run read (`basis`)."""
    return await _perform(executor, charge_id, None, {}, confirmation=confirmation, basis=basis)


SPEC = Operation(
    "refund",
    noun="refund",
    label="Refund",
    short="refund",
    scope=REFUNDS_ALL,
    success="Refunded{amount}: refund {result_id}",
    moves_money=True,
    done="refunded",
    result_noun="refund",
    bulk_label="Full refund",
    bulk_noun="charge",
    bulk=bulk,
    seen_refunds=True,
    amount_is_identity=True,
    read_back=read_back,
    resend=resend,
    request=lambda charge_id, summary: (
        "POST",
        "/v2/refunds",
        None,
        {"charge_id": charge_id, **summary},
    ),
)
