"""The target read for an operation: what a person decides on (`observe`: the `Basis` the action
is tied to), the charge its rule is asked of, the authorization a capture needs (with who
captured it, when it was), what is left to refund.

Its own module because these reads are what an operation's preparation asks of the executor
(`operation.Executor`), apart from the pipeline that runs it; the pipeline's last read of the
target (`InFlight.fresh`, the check against what the person saw) is taken here once instead of
spending the service's rate budget on the same read again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol, TypeVar

from paytui.actions.basis import (
    Basis,
    RefundSeen,
    chargebacks_of,
    read_refunds,
    refunded_total,
    tags_of,
)
from paytui.actions.errors import PrecheckFailed
from paytui.actions.operations import OPERATIONS
from paytui.actions.who_did_what import Witness, captured_by
from paytui.api.errors import ApiError

T = TypeVar("T")

if TYPE_CHECKING:
    from paytui.actions.in_flight import InFlight
    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge

__all__ = [
    "Reader",
    "could_not_read",
    "left_now",
    "observe",
    "read_authorization",
    "read_charge",
    "remaining_refundable",
]


class Reader(Witness, Protocol):
    """What these reads use of the executor (`ActionExecutor` is one): its client, its actions
    in flight (their fresh reads), and the journal's words for who captured it."""

    client: PaymentClient
    owner: str
    slots: dict[tuple[str, str], InFlight]


def _take_fresh(executor: Reader, key: tuple[str, str]) -> Charge | None:
    """The fresh read the running action's own task left in its slot, taken once."""
    slot = executor.slots.get(key)
    if slot is None or slot.fresh is None or slot.task is not asyncio.current_task():
        return None
    fresh, slot.fresh = slot.fresh, None
    return fresh


def _current_key(executor: Reader, target: str) -> tuple[str, str]:
    """The in-flight key of the action this task runs on `target` (any operation)."""
    task = asyncio.current_task()
    for key, slot in executor.slots.items():
        if key[1] == target and slot.task is task:
            return key
    return ("", target)


async def read_charge(executor: Reader, charge_id: str) -> Charge | None:
    """The charge an operation acts on, for the registry's rule (`Plan.subject`): the read
    the check against what the person saw made moments ago (`_check_unchanged`), else read
    now. Not readable here (no scope to read it, the service not answering reads): None,
    and the service decides (its refusal is shown), as it did before paytui read it."""
    fresh = _take_fresh(executor, _current_key(executor, charge_id))
    if fresh is not None:
        return fresh
    try:
        return await executor.client.get_charge(charge_id)
    except ApiError:
        return None


async def read_authorization(executor: Reader, charge_id: str) -> Charge:
    """Read the charge to capture and explain why it cannot be, before sending anything
    (`PrecheckFailed`; nothing is sent).

    The rule is the action registry's (`paytui.actions.registry`), the same one that greys
    out the capture key, so the key and the refusal never disagree."""
    from paytui.actions.registry import why_not
    from paytui.api.captures import find_capture

    fresh = _take_fresh(executor, ("capture", charge_id))
    # Read moments ago by this capture's final re-read, its capture searched as below.
    if fresh is not None and why_not("capture", fresh) is None:
        return fresh
    try:
        auth = await executor.client.get_charge(charge_id)
    except ApiError as err:
        raise PrecheckFailed(f"Could not read the authorization ({err})") from err
    reason = why_not("capture", auth)
    if reason is not None:
        if auth.captured_charge_id:  # who captured it, when the journal knows
            reason = await captured_by(executor, auth.captured_charge_id) or reason
        raise PrecheckFailed(reason, auth.captured_charge_id)
    # The spec's proof of a capture: a charge whose original_charge_id is this one (the
    # sandbox's captured_charge_id above is a shortcut only). Not found, or not provable on a
    # service that ignores the filter: the service itself refuses a second capture.
    try:
        lookup = await find_capture(executor.client, auth, thorough=True)
    except ApiError as err:
        raise PrecheckFailed(f"Could not look for an earlier capture: {err}") from err
    if lookup.capture_id is not None:
        told = await captured_by(executor, lookup.capture_id)
        raise PrecheckFailed(told or f"Already captured as {lookup.capture_id}", lookup.capture_id)
    return auth


async def observe(executor: Reader, operation: str, target: str) -> Basis:
    """Read the charge as a person is about to decide on `operation` (refund, capture), and
    remember exactly what was read: the `Basis` the action is later tied to.

    The journal's mark is taken *before* the read, so anything done after it — by this
    process or another — is "since the person looked". The action registry's rule of the
    operation explains why it cannot be (`PrecheckFailed`): a capture's as
    `read_authorization` does, a refund's (an authorization, a charge-back) the same.
    Raises `ApiError` when the service cannot be read (the caller says so; nothing is
    decided on a guess)."""
    journal = executor.journal
    mark = await asyncio.to_thread(journal.last_id)
    flying = await asyncio.to_thread(_unsettled_at, executor, operation, target, mark)
    claims = await asyncio.to_thread(
        journal.claims, executor.base_url, [target], owner=executor.owner
    )
    claim = claims.get(target)
    spec = OPERATIONS[operation]
    refunds: tuple[RefundSeen, ...] = ()
    left = None
    if spec.seen_capture:
        charge = await read_authorization(executor, target)
    else:
        charge = await _reading("the charge", executor.client.get_charge(target))
        # The registry's rule, as the key's (a capture's is asked by the read above); a
        # status paytui does not know refuses nothing (`registry.note` says so instead).
        from paytui.actions.registry import why_not

        reason = why_not(operation, charge)
        if reason is not None:
            raise PrecheckFailed(reason)
    if spec.seen_refunds:
        refunds = await _reading("the charge's refunds", read_refunds(executor.client, target))
        charged = charge.total_amount or Decimal(0)
        left = max(charged - refunded_total(refunds), Decimal(0))
    return Basis(
        operation,
        target,
        executor.clock(),
        mark,
        flying,
        status=charge.status,
        charged=charge.total_amount,
        refunds=refunds,
        left=left,
        chargebacks=chargebacks_of(charge),
        tags=tags_of(charge),
        charge=charge,
        claim=claim if claim is not None and not claim.mine(executor.owner) else None,
    )


async def _reading(what: str, read: Awaitable[T]) -> T:
    """`read`, whose failure says what it was reading (`ApiError.reading`, `could_not_read`)."""
    try:
        return await read
    except ApiError as err:
        err.reading = what
        raise


def could_not_read(err: ApiError, detail: str | None = None) -> str:
    """The one line for a read of `observe` the service failed, naming what failed: "Could
    not read the charge's refunds: Service unavailable (503)", not "the charge" when the
    charge was read and its refunds were not. `detail`: the error as the caller shows it
    (the UI's `error_detail`); else the error's own words."""
    return f"Could not read {err.reading or 'the charge'}: {detail if detail is not None else err}"


def _unsettled_at(executor: Reader, operation: str, target: str, mark: int) -> frozenset[int]:
    """Entries of `operation` on `target` unsettled at journal entry `mark` (a worker thread's
    read): what the person's decision is taken alongside (`Basis.in_flight`)."""
    entries = executor.journal.unresolved(base_url=executor.base_url, operation=operation)
    return frozenset(e.id for e in entries if e.charge_id == target and e.id <= mark)


async def remaining_refundable(client: PaymentClient, charge_id: str) -> Decimal:
    """What is left to refund of a charge: its amount minus its refunds (reads only).

    The UI uses it as the refund field's default and `parse_amount`'s maximum."""
    charge = await client.get_charge(charge_id)
    refunds = await read_refunds(client, charge_id)  # the one way refunds are read
    return max((charge.total_amount or Decimal(0)) - refunded_total(refunds), Decimal(0))


async def left_now(client: PaymentClient, operation: str, target: str) -> Decimal | None:
    """What is left to refund now (for the message), or None when it cannot be read or the
    operation does not decide on what is left (`Operation.seen_refunds`)."""
    spec = OPERATIONS.get(operation)
    if spec is None or not spec.seen_refunds:
        return None
    try:
        return await remaining_refundable(client, target)
    except ApiError:
        return None
