"""Capture an authorization: the full authorized amount plus the fees given."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.actions.amounts import check_amount
from paytui.actions.operation import (
    CHARGES_ALL,
    Asked,
    Asking,
    CommandLine,
    Executor,
    Operation,
    Option,
    decimal_or_none,
)
from paytui.actions.plan import Plan, journal_summary
from paytui.actions.read_backs import ReadBack, Unprovable
from paytui.api.captures import find_capture

if TYPE_CHECKING:
    from paytui.actions.basis import Basis
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge


@dataclass(frozen=True)
class Params:
    """The fees added to the authorized amount (None: not sent)."""

    convenience_fee: Decimal | None = None
    supplemental_fee: Decimal | None = None


async def prepare(executor: Executor, charge_id: str, params: Params, asked: Asked) -> Plan:
    fees = {
        name: check_amount(value, allow_zero=True)
        for name, value in (
            ("convenience_fee", params.convenience_fee),
            ("supplemental_fee", params.supplemental_fee),
        )
        if value is not None
    }
    auth = await executor.read_authorization(charge_id)
    amount = None
    if auth.total_amount is not None:
        amount = auth.total_amount + sum(fees.values(), Decimal(0))
    executor.confirm("capture", amount, charge_id, asked.confirmation)

    async def send(_ref: str) -> Charge:
        return await executor.client.capture(
            charge_id,
            convenience_fee=fees.get("convenience_fee"),
            supplemental_fee=fees.get("supplemental_fee"),
        )

    return Plan(
        "capture",
        charge_id,
        charge_id,
        amount,
        journal_summary(**fees),
        send,
        retry_of=asked.retry_of,
        subject=auth,
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


def params_of(entry: JournalEntry, original: Any) -> tuple[str, Params]:
    summary = entry.request_summary
    return entry.charge_id or "", Params(
        convenience_fee=decimal_or_none(summary.get("convenience_fee")),
        supplemental_fee=decimal_or_none(summary.get("supplemental_fee")),
    )


def asking(charge_id: str, params: Params, basis: Basis | None) -> Asking:
    """The command line's question names the amount captured: what the authorization holds
    (read with it) plus the fees given."""
    from paytui.api.money import format_amount

    charged = basis.charged if basis is not None else None
    fees = (params.convenience_fee or 0) + (params.supplemental_fee or 0)
    amount = (charged or Decimal(0)) + fees
    return Asking(f"Capture {format_amount(amount)} of {charge_id}", amount)


SPEC = Operation(
    "capture",
    noun="capture",
    label="Capture",
    short="capture",
    scope=CHARGES_ALL,
    success="Captured: new charge {result_id}",
    moves_money=True,
    four_eyes=True,
    done="captured",
    result_noun="new charge",
    # One marked authorization of a bulk capture: no fees.
    bulk_label="Capture",
    bulk_noun="authorization",
    bulk_params=Params(),
    seen_capture=True,
    read_back=read_back,
    params=Params,
    prepare=prepare,
    params_of=params_of,
    request=lambda charge_id, summary: (
        "POST",
        f"/v2/charges/{charge_id}/capture",
        None,
        summary,
    ),
    command=CommandLine(
        "charges capture",
        "Capture an authorization (journaled, sent once).",
        target="the authorization",
        options=(
            Option("convenience_fee", "a convenience fee added", metavar="X", kind="fee"),
            Option("supplemental_fee", "a supplemental fee added", metavar="X", kind="fee"),
        ),
        asking=asking,
    ),
)
