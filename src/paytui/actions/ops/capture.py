"""Capture an authorization: the full authorized amount plus the fees given."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.actions.amounts import check_amount
from paytui.actions.operation import CHARGES_ALL, Executor, Operation, decimal_or_none
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import ReadBack, Unprovable
from paytui.api.captures import find_capture

if TYPE_CHECKING:
    from paytui.actions.basis import Basis
    from paytui.actions.entry import JournalEntry
    from paytui.actions.outcome import ActionOutcome
    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge


async def prepare(
    executor: Executor,
    charge_id: str,
    *,
    convenience_fee: Decimal | None,
    supplemental_fee: Decimal | None,
    confirmation: str | None,
    retry_of: int | None,
) -> Plan:
    fees = {
        name: check_amount(value, allow_zero=True)
        for name, value in (
            ("convenience_fee", convenience_fee),
            ("supplemental_fee", supplemental_fee),
        )
        if value is not None
    }
    auth = await executor.read_authorization(charge_id)
    amount = None
    if auth.total_amount is not None:
        amount = auth.total_amount + sum(fees.values(), Decimal(0))
    executor.confirm("capture", amount, charge_id, confirmation)

    async def send(_ref: str) -> Charge:
        return await executor.client.capture(
            charge_id,
            convenience_fee=fees.get("convenience_fee"),
            supplemental_fee=fees.get("supplemental_fee"),
        )

    return Plan(
        "capture", charge_id, charge_id, amount, journal_summary(**fees), send, retry_of=retry_of
    )


async def read_back(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    """The one proof of a capture (`find_capture`): the sandbox's link on the authorization, a
    search by original_charge_id, or, where the service refuses that parameter, every charge
    read newest first back to the authorization's time."""
    auth = await client.get_charge(entry.charge_id or "")
    lookup = await find_capture(client, auth, thorough=True)
    if lookup.capture_id is not None:
        # The capture itself, whose status is judged as an answer would be
        # (`paytui.actions.answer_status`): a link alone does not say it went through.
        found = lookup.capture or await client.get_charge(lookup.capture_id)
        return ReadBack("succeeded", lookup.capture_id, found.total_amount, charge=found)
    if not lookup.proven:
        raise Unprovable(f"cannot tell whether it was captured: {lookup.describe()}")
    return ReadBack("not_applied")


def _perform(
    executor: Executor,
    charge_id: str,
    summary: Mapping[str, Any],
    *,
    confirmation: str | None,
    retry_of: int | None = None,
    basis: Basis | None = None,
) -> Awaitable[ActionOutcome]:
    """The capture's pipeline call (`Executor.perform`), as the single capture makes it."""
    return executor.perform(
        "capture",
        charge_id,
        lambda: prepare(
            executor,
            charge_id,
            convenience_fee=decimal_or_none(summary.get("convenience_fee")),
            supplemental_fee=decimal_or_none(summary.get("supplemental_fee")),
            confirmation=confirmation,
            retry_of=retry_of,
        ),
        basis=basis,
    )


async def resend(
    executor: Executor, entry: JournalEntry, original: Any, confirmation: str | None
) -> ActionOutcome:
    return await _perform(
        executor,
        entry.charge_id or "",
        entry.request_summary,
        confirmation=confirmation,
        retry_of=entry.id,
    )


async def bulk(
    executor: Executor, charge_id: str, confirmation: str | None, basis: Basis | None
) -> ActionOutcome:
    """One marked authorization of a bulk capture: the single capture's pipeline call (no
    fees), tied to what the dry run read (`basis`)."""
    return await _perform(executor, charge_id, {}, confirmation=confirmation, basis=basis)


SPEC = Operation(
    "capture",
    noun="capture",
    label="Capture",
    short="capture",
    scope=CHARGES_ALL,
    success="Captured: new charge {result_id}",
    moves_money=True,
    done="captured",
    result_noun="new charge",
    bulk_label="Capture",
    bulk_noun="authorization",
    bulk=bulk,
    seen_capture=True,
    read_back=read_back,
    resend=resend,
    request=lambda charge_id, summary: (
        "POST",
        f"/v2/charges/{charge_id}/capture",
        None,
        summary,
    ),
)
