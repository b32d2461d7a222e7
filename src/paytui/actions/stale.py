"""No money on a stale view: the step of the executor's pipeline that reads the target again just
before sending and compares it with what the person saw (`Basis`).

What matters to a money decision on a charge, and is compared: its status; its refunds (ids, so a
refund by anyone — a colleague, the command line, the service's own pages — is seen); its
capture (an authorization's); its chargebacks (ids, statuses, amounts: a dispute that arrived or
moved); its tags (a "do not refund" tag someone added). Anything new since → nothing is sent
(`TargetChanged`), and each change is said in one sentence with who made it: the journal's entry
when paytui made it ("refunded 5.00 by the dashboard of ana@ws-3 4 s ago"), "outside paytui"
otherwise (a chargeback always is: it comes from the card network). The person then reviews the
charge as it is now and confirms again; a command exits 8 with the same sentence.

The executor calls `check_unchanged` once, from `ActionExecutor._intend`; this module holds the
rule so that the pipeline's one call stays one call whatever is compared.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

from paytui.actions.basis import (
    ChargebackSeen,
    chargebacks_of,
    read_refunds,
    refunded_total,
    tags_of,
)
from paytui.actions.errors import PrecheckFailed, TargetChanged
from paytui.actions.operations import OPERATIONS
from paytui.actions.who_did_what import (
    Witness,
    by_and_when,
    describe_capture,
    describe_refund,
    made_by,
)
from paytui.api.errors import ApiError
from paytui.api.money import format_amount

if TYPE_CHECKING:
    from paytui.actions.basis import Basis, RefundSeen
    from paytui.actions.entry import JournalEntry
    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge

__all__ = ["Fresh", "Teller", "check_unchanged"]

#: Operations whose journal entries change a charge's tags (who changed them, when they did).
_TAG_EDITS = ("update_charge",)


class Teller(Witness, Protocol):
    """What this step uses of the executor: the client, and the journal with its words for who
    did what (`who_did_what`; `ActionExecutor` is one)."""

    client: PaymentClient


@dataclass(frozen=True)
class Fresh:
    """The target as read just now, when nothing that matters changed: the refunds listed now
    (the basis's), and the charge (a capture's precheck uses it instead of reading it again)."""

    charge: Charge
    refunds: tuple[RefundSeen, ...]


async def check_unchanged(executor: Teller, basis: Basis) -> Fresh:
    """Read `basis.target` again and compare it with `basis` (see the module's docstring):
    `TargetChanged` naming each change and who made it, or `PrecheckFailed` when it cannot be
    read (nothing is decided on a guess)."""
    target = basis.target
    spec = OPERATIONS[basis.operation]
    client = executor.client
    try:
        charge = await client.get_charge(target)
        now = await read_refunds(client, target) if spec.seen_refunds else ()
        capture_id = None
        if spec.seen_capture:
            from paytui.api.captures import find_capture

            capture_id = (await find_capture(client, charge, thorough=True)).capture_id
    except ApiError as err:
        raise PrecheckFailed(
            f"Could not read the charge again before sending ({err}); nothing was sent"
        ) from err
    changes: list[str] = []
    earlier: JournalEntry | None = None

    async def made(result_id: str, operation: str) -> JournalEntry | None:
        nonlocal earlier
        entry = await made_by(executor, result_id, operation, target)
        earlier = earlier or entry
        return entry

    known = basis.refund_ids
    for refund in now:
        if refund.refund_id not in known:
            entry = await made(refund.refund_id, "refund")
            changes.append(describe_refund(executor, refund, entry))
    if capture_id is not None and capture_id != basis.capture_id:
        changes.append(describe_capture(executor, capture_id, await made(capture_id, "capture")))
    if charge.status != basis.status and not (spec.seen_capture and capture_id):
        changes.append(f"its status is now {charge.status or 'unknown'} (was {basis.status})")
    changes += _chargeback_changes(basis.chargebacks, chargebacks_of(charge))
    tags = tags_of(charge)
    if tags != basis.tags:
        by = await _tags_by(executor, basis)
        earlier = earlier or by
        changes.append(_tags_change(executor, basis.tags, tags, by))
    if changes:
        left = None
        if spec.seen_refunds:
            left = max((charge.total_amount or Decimal(0)) - refunded_total(now), Decimal(0))
            changes.append(f"{format_amount(left)} left")
        raise TargetChanged(tuple(changes), earlier=earlier, left=left)
    return Fresh(charge, now)


def _chargeback_changes(
    before: tuple[ChargebackSeen, ...], now: tuple[ChargebackSeen, ...]
) -> list[str]:
    """A chargeback that arrived, or one whose status or amount moved (the card network's, so
    always outside paytui)."""
    seen = {c.key: c for c in before}
    changes: list[str] = []
    for case in now:
        old = seen.get(case.key)
        amount = f" of {format_amount(case.amount)}" if case.amount is not None else ""
        status = f" ({case.status})" if case.status else ""
        if old is None:
            changes.append(f"a chargeback{amount} arrived{status}, outside paytui")
        elif (old.status, old.amount) != (case.status, case.amount):
            was = old.status or "no status"
            changes.append(
                f"its chargeback{amount} is now {case.status or 'without a status'} (was {was}),"
                " outside paytui"
            )
    return changes


async def _tags_by(executor: Teller, basis: Basis) -> JournalEntry | None:
    """The newest tag edit of the charge journaled since the person looked, if any."""
    found: list[JournalEntry] = []
    for operation in _TAG_EDITS:
        found += await asyncio.to_thread(
            executor.journal.entries_for,
            base_url=executor.base_url,
            operation=operation,
            charge_id=basis.target,
            after_id=basis.journal_mark,
        )
    done = [e for e in found if e.state not in {"failed", "not_applied"}]
    return max(done, key=lambda e: e.id) if done else None


def _tags_change(
    executor: Teller,
    before: tuple[str, ...],
    now: tuple[str, ...],
    entry: JournalEntry | None,
) -> str:
    added = [t for t in now if t not in before]
    removed = [t for t in before if t not in now]
    parts = []
    if added:
        parts.append("tagged " + ", ".join(added))
    if removed:
        parts.append("untagged " + ", ".join(removed))
    what = " and ".join(parts) or "its tags changed"
    who = by_and_when(executor, entry) if entry is not None else "outside paytui"
    return f"{what} {who}"
