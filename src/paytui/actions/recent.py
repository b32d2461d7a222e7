"""Done a moment ago: the pipeline's step that stops the same action (the same amount, card or
text) on the same target within `again_window` — by anyone, through paytui or not — unless the
person says "again"; and what makes two actions "the same".

Its own module because "the same action" is one rule read in three places: this step, the
settling of the past (`settling.py`: a success of another identity is not in the way) and a
retry (a later one of the same target may have done it already).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from paytui.actions.amounts import format_amount
from paytui.actions.errors import RecentlyDone
from paytui.actions.operations import OPERATIONS
from paytui.actions.plan import amount_identity
from paytui.actions.who_did_what import ago, by_and_when

if TYPE_CHECKING:
    from paytui.actions.basis import Basis, RefundSeen
    from paytui.actions.entry import JournalEntry
    from paytui.actions.journal import Journal
    from paytui.actions.plan import Plan

__all__ = ["Recent", "check_recent", "identity_of", "same_target", "same_target_as"]


class Recent(Protocol):
    """What this step uses of the executor (`ActionExecutor` is one)."""

    journal: Journal
    base_url: str
    profile: str
    clock: Callable[[], datetime]
    again_window: timedelta


def identity_of(entry: JournalEntry) -> str | None:
    """The identity an entry was written with; a refund of an older journal: its amount."""
    kept = entry.request_summary.get("identity")
    if isinstance(kept, str):
        return kept
    if OPERATIONS[entry.operation].amount_is_identity:
        return amount_identity(entry.amount)
    return None


def same_target_as(entry: JournalEntry, plan: Plan) -> bool:
    """`entry` acted on the target `plan` will (a new charge: the same account)."""
    key = OPERATIONS[plan.operation].target_key
    if key is not None:
        return entry.request_summary.get(key) == plan.summary.get(key)
    return entry.charge_id == plan.charge_id


def same_target(one: JournalEntry, other: JournalEntry) -> bool:
    """Same operation on the same charge (a new charge: on the same account)."""
    if one.operation != other.operation:
        return False
    key = OPERATIONS[one.operation].target_key
    if key is not None:
        return one.request_summary.get(key) == other.request_summary.get(key)
    return one.charge_id == other.charge_id


async def check_recent(
    executor: Recent,
    plan: Plan,
    basis: Basis | None,
    current: tuple[RefundSeen, ...] | None,
    *,
    again: bool,
    acknowledged: int | None,
) -> None:
    """A success of the same operation with the same identity (amount, card) on the same
    target within `again_window`, by anyone — the journal's, or a refund the service lists —
    that the person was not shown: `RecentlyDone`, unless `again` (or it is the entry the
    person `acknowledged`). A script has no eyes: two cron runs "see" each other's refund."""
    if plan.identity is None or again:
        return
    since = executor.clock() - executor.again_window
    shown = basis.refund_ids if basis is not None and basis.shown else frozenset()
    entries = await asyncio.to_thread(
        executor.journal.successes_since,
        base_url=executor.base_url,
        operation=plan.operation,
        charge_id=plan.charge_id,
        since=since,
    )
    noun = OPERATIONS[plan.operation].noun
    # The service's refunds that are these entries' results are judged by their entry (an
    # acknowledged one is not "made outside paytui" below).
    journaled = frozenset(entry.result_id for entry in entries if entry.result_id)
    for entry in entries:
        if not same_target_as(entry, plan) or entry.id == acknowledged:
            continue
        if entry.result_id in shown or identity_of(entry) != plan.identity:
            continue
        amount = f" of {format_amount(entry.amount)}" if entry.amount is not None else ""
        made = OPERATIONS[entry.operation].result_word(entry)
        raise RecentlyDone(
            f"The same {noun}{amount} was made {by_and_when(executor, entry)} ({made})."
            " Nothing was sent; sending it again needs an explicit “again”.",
            entry.result_id or f"#{entry.id}",
            entry,
        )
    for refund in current or ():
        if refund.refund_id in shown or refund.refund_id in journaled:
            continue
        if amount_identity(refund.amount) != plan.identity:
            continue
        if refund.at is None or refund.at < since:
            continue
        raise RecentlyDone(
            f"A refund of {format_amount(refund.amount)} of this charge was made"
            f" {ago(refund.at, executor.clock())} (refund {refund.refund_id}, not through"
            " paytui). Nothing was sent; sending it again needs an explicit “again”.",
            refund.refund_id,
        )
