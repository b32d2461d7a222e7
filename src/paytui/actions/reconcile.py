"""Settling an action whose outcome is unknown, by reading the service back.

When a capture or refund times out, the connection drops after sending, or the service answers
5xx, the request may or may not have been applied. Sending it again could capture or refund twice,
so instead we *look*, with the operation's own read-back (`Operation.read_back`, in its module
under `paytui.actions.ops`; `paytui.actions.read_backs` is their kit and says what trace each
operation leaves).

"Not found" proves "not applied" only when the read-back started after the request deadline
(plus a margin) since the request was sent: before that a commit may still be in flight, and the
verdict stays "unknown" (with `checked_at`, so the next look knows). A found trace proves
"succeeded" at any time.

A "not applied" verdict is only given after a *complete* search: if the service ignored a filter
and the search would have to scan more than a few pages, the verdict stays "unknown". A failed
read-back leaves the entry "unknown"; nothing is ever resent here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from paytui.actions.answer_status import DECLINED, PENDING, SUCCEEDED, judge_found
from paytui.actions.entry import AWAITING, LATE_NOTE
from paytui.actions.journal import UNRESOLVED_STATES, Journal, JournalEntry
from paytui.actions.operations import OPERATIONS
from paytui.actions.read_backs import (
    REF_ATTRIBUTE,
    ReadBack,
    Unprovable,
    distribution_items,
)
from paytui.api.errors import ApiError

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

__all__ = [
    "REF_ATTRIBUTE",
    "ReadBack",
    "distribution_items",
    "read_back",
    "reconcile",
    "reconcile_all",
    "reconcile_detail",
]

#: States a reconciliation may overwrite. "not_applied" is included so a later look can still
#: discover a late commit (and so `retry` can re-verify before it sends).
RECONCILABLE = frozenset(UNRESOLVED_STATES | {"not_applied"})


async def read_back(
    client: PaymentClient, entry: JournalEntry, *, desired: dict[str, Any] | None = None
) -> ReadBack:
    """Look for the trace of `entry` on the service (its operation's read-back). Raises
    `ApiError` (reads failed) or `Unprovable`. `desired` overrides the journal's summary for the
    edits and tokens (the executor still holds the unmasked values)."""
    spec = OPERATIONS.get(entry.operation)
    if spec is None:
        raise Unprovable(f"cannot read back a {entry.operation!r}")
    return await spec.read_back(client, entry, desired)


@dataclass(frozen=True)
class Reconciled:
    """The journal entry after reconciliation, with what the read-back found (if it worked)."""

    entry: JournalEntry
    found: ReadBack | None
    error: str | None
    #: False when the read-back found it in a status that does not settle it (pending, or a
    #: word paytui cannot place): waiting out the commit window would not prove more.
    placed: bool = True


def _utcnow() -> datetime:
    return datetime.now(UTC)


#: Settle time assumed for an entry that did not record its own (a schema-1 journal).
DEFAULT_SETTLE_SECONDS = 12.0


async def reconcile_detail(
    client: PaymentClient,
    journal: Journal,
    entry: JournalEntry,
    *,
    desired: dict[str, Any] | None = None,
    clock: Callable[[], datetime] = _utcnow,
    default_settle: float = DEFAULT_SETTLE_SECONDS,
    background: bool = False,
    orphaned_before: datetime | None = None,
) -> Reconciled:
    """Settle one entry and record the verdict (compare-and-set: a verdict recorded meanwhile by
    someone else wins). Entries already succeeded or failed are returned unchanged.

    Nothing found proves "not_applied" only when the read-back started at or after the entry's
    `settle_at` (`clock` is the executor's); earlier it leaves the entry "unknown". A not-applied
    verdict turned into "succeeded" says so in its message. `background`: nobody is shown this
    verdict now (start-up, the check before a repeat), so a success is marked unacknowledged.
    `orphaned_before`: when the reading process started. An entry still "sent" was left by a
    process that died mid-request; its request left at some moment before then, not
    necessarily at `sent_at`, so its window is measured from then (and kept in the journal).
    """
    if entry.state not in RECONCILABLE:
        return Reconciled(entry, None, None)
    window = _orphan_window(entry, orphaned_before, default_settle)
    if window is not None:
        entry = replace(entry, settle_seconds=window)
    # To the millisecond, as the journal stores it: the verdict is judged on the `checked_at`
    # that is written, so a later `proven()` of the same entry can never disagree with it.
    started = clock()
    started = started.replace(microsecond=started.microsecond // 1000 * 1000)
    try:
        found = await read_back(client, entry, desired=desired)
    except (ApiError, Unprovable) as err:
        message = f"Could not check whether it happened: {err}"
        if entry.state == AWAITING:  # the service's own word stands until it is read again
            message = f"Could not read it again at {started:%H:%M:%S} UTC: {err}"
        await asyncio.to_thread(
            journal.transition,
            entry.id,
            AWAITING if entry.state == AWAITING else "unknown",
            expected=UNRESOLVED_STATES,
            error=message,
            settle_seconds=window,
        )
        current = await asyncio.to_thread(journal.get, entry.id)
        return Reconciled(current or entry, None, message)
    state = found.state
    settle = entry.settle_at(default_settle)
    word = judge_found(entry.operation, found)
    if state == "succeeded" and word.verdict != SUCCEEDED:
        # Found — and what it shows is read by the same table as an answer: a refund found
        # "failed" is no success; one still pending, or in a word paytui cannot place, is not
        # proven either way (a later look reads it again).
        noun = OPERATIONS[entry.operation].noun
        state = {DECLINED: "failed", PENDING: AWAITING}.get(word.verdict, "unknown")
        note = f"Found at {started:%H:%M:%S} UTC: {word.line(noun)}"
    elif state == "succeeded":
        note = None
        if entry.state == "not_applied":
            looked = entry.checked_at
            before = f" at {looked:%H:%M:%S} UTC" if looked is not None else ""
            note = (
                f"{LATE_NOTE}: not found when checked{before}, found at {started:%H:%M:%S} UTC"
                " — the service committed it after that check"
            )
    elif entry.state == AWAITING:
        # The service said it had it: not finding it now proves nothing either way.
        state = AWAITING
        note = (
            f"Not found at {started:%H:%M:%S} UTC, though the service answered that it had"
            " accepted it; checked again later"
        )
    elif settle is None or started >= settle:
        note = f"Checked with the service at {started:%H:%M:%S} UTC: not found — not applied so far"
    else:
        state = "unknown"
        note = (
            f"Not found yet at {started:%H:%M:%S}; a commit still in flight could show until"
            f" {settle:%H:%M:%S} UTC — checking again then proves it"
        )
    await asyncio.to_thread(
        journal.transition,
        entry.id,
        state,
        expected=RECONCILABLE,
        result_id=found.result_id,
        amount=found.amount,
        error=note,
        checked_at=started,
        unacknowledged=background if state == "succeeded" else None,
        settle_seconds=window,
    )
    current = await asyncio.to_thread(journal.get, entry.id)
    shown = found if state not in {"unknown", AWAITING} else None
    return Reconciled(current or entry, shown, None, placed=word.verdict == SUCCEEDED)


def _orphan_window(
    entry: JournalEntry, orphaned_before: datetime | None, default_settle: float
) -> float | None:
    """The settle time of an orphaned "sent" entry measured from `orphaned_before` (when it is
    longer than the entry's own), else None."""
    if entry.state != "sent" or entry.sent_at is None or orphaned_before is None:
        return None
    own = entry.settle_seconds if entry.settle_seconds is not None else default_settle
    window = (orphaned_before - entry.sent_at).total_seconds() + own
    return window if window > own else None


async def reconcile(client: PaymentClient, journal: Journal, entry: JournalEntry) -> str:
    """Settle one entry by reading the service back; returns its state afterwards:
    "succeeded", "not_applied", or still "unknown" when the read-back itself failed."""
    return (await reconcile_detail(client, journal, entry)).entry.state


async def reconcile_all(
    client: PaymentClient,
    journal: Journal,
    *,
    profile: str,
    base_url: str,
    skip: frozenset[int] = frozenset(),
    clock: Callable[[], datetime] = _utcnow,
    default_settle: float = DEFAULT_SETTLE_SECONDS,
    orphaned_before: datetime | None = None,
) -> list[JournalEntry]:
    """Start-up: settle every entry of this profile and service whose outcome is not proven —
    unresolved ones and "not_applied" verdicts read back too early (others are left for when
    that profile is used: their service is not the one `client` talks to). `skip`: ids of
    entries still in flight in this process. Returns the entries after reconciliation."""
    pending = await asyncio.to_thread(
        journal.to_check, default_settle, profile=profile, base_url=base_url
    )
    results: list[JournalEntry] = []
    for entry in pending:
        if entry.id in skip:
            continue
        settled = await reconcile_detail(
            client,
            journal,
            entry,
            clock=clock,
            default_settle=default_settle,
            background=True,
            orphaned_before=orphaned_before,
        )
        results.append(settled.entry)
    return results
