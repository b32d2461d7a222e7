"""The words that tell a person who did what and when: an entry's state in one line, who made a
refund or a capture ("refunded 5.00 by the dashboard of ana@ws-3 4 s ago"), an earlier attempt
that went through, one "not applied so far", one being sent by another paytui.

Its own module because every step of the pipeline, the check against what the person saw
(`stale.py`), bulk and the screens say these sentences, and they must say them alike; the
pipeline (`executor.py`) only chooses which one. Nothing here sends or writes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from paytui.actions.amounts import format_amount
from paytui.actions.entry import AWAITING, UNRESOLVED_STATES
from paytui.actions.errors import UnresolvedAction
from paytui.actions.operations import OPERATIONS
from paytui.actions.outcome import ActionOutcome

if TYPE_CHECKING:
    from paytui.actions.basis import RefundSeen
    from paytui.actions.entry import JournalEntry
    from paytui.actions.journal import Journal
    from paytui.actions.reconcile import Reconciled
    from paytui.api.models import Charge, Refund

__all__ = [
    "STOPPED_SENDER",
    "Witness",
    "ago",
    "awaiting_message",
    "being_sent",
    "by_and_when",
    "captured_by",
    "describe_capture",
    "describe_done",
    "describe_entry",
    "describe_refund",
    "describe_refunds",
    "earlier_message",
    "made_by",
    "not_retryable_reason",
    "outcome_of",
    "so_far_lead",
    "state_line",
    "told",
    "who_changed",
]

#: How an entry is described whose sender stopped (its process is gone, or its team-journal
#: session lock was released) before it recorded an outcome: never "being sent right now".
STOPPED_SENDER = "left by a paytui that stopped while sending it"


class Witness(Protocol):
    """What these words use of the executor (`ActionExecutor` is one): its journal and service,
    its profile (an entry of this profile is "this profile"'s) and its clock ("4 s ago")."""

    journal: Journal
    base_url: str
    profile: str
    clock: Callable[[], datetime]


# --- who did it, and when ---------------------------------------------------------------------


def ago(then: datetime, now: datetime) -> str:
    """ "just now", "3 s ago", "4 min ago", "2 h ago" — or the time, for a moment not in the
    past (another machine's clock ahead of this one's)."""
    seconds = (now - then).total_seconds()
    if seconds < 0:
        return f"at {then:%H:%M:%S} UTC"
    if seconds < 2:
        return "just now"
    if seconds < 90:
        return f"{int(seconds)} s ago"
    if seconds < 90 * 60:
        return f"{int(seconds // 60)} min ago"
    return f"{int(seconds // 3600)} h ago"


def by_and_when(executor: Witness, entry: JournalEntry) -> str:
    """ "by the dashboard of ana@ws-3 4 s ago": who made `entry`, and how long ago."""
    who = entry.actor or (
        "this profile" if entry.profile == executor.profile else f"profile {entry.profile}"
    )
    when = entry.resolved_at or entry.sent_at or entry.created_at
    return f"by {who} {ago(when, executor.clock())}"


def describe_entry(executor: Witness, entry: JournalEntry) -> str:
    """What another paytui's entry did or is doing, in one line for a person: "refunded
    5.00 by the dashboard of support-12 on ws-3 4 s ago (refund re_1)", or "a refund is
    being sent by …" while it is in flight."""
    if entry.state == AWAITING:
        who = entry.actor or "another paytui"
        noun = OPERATIONS[entry.operation].noun
        return f"a {noun} by {who} was accepted by the service and is not finished"
    if entry.state in {"pending", "sent", "unknown"}:
        who = entry.actor or "another paytui"
        return f"a {OPERATIONS[entry.operation].noun} is being sent by {who}"
    return describe_done(executor, entry)


def describe_done(executor: Witness, entry: JournalEntry) -> str:
    """ "refunded 5.00 by the command line of ana@desk 3 s ago (refund re_1)" """
    spec = OPERATIONS[entry.operation]
    amount = f" {format_amount(entry.amount)}" if entry.amount is not None else ""
    return f"{spec.done}{amount} {by_and_when(executor, entry)} ({spec.result_word(entry)})"


async def who_changed(executor: Witness, operation: str, target: str, after_id: int) -> str:
    """Who changed `target` by `operation` after journal entry `after_id`: "by the dashboard
    of ana@ws-3 4 s ago" (the newest that went through), else "outside paytui"."""
    entries = await asyncio.to_thread(
        executor.journal.entries_for,
        base_url=executor.base_url,
        operation=operation,
        charge_id=target,
        after_id=after_id,
    )
    done = [e for e in entries if e.state not in {"failed", "not_applied"}]
    return by_and_when(executor, done[-1]) if done else "outside paytui"


async def made_by(
    executor: Witness, result_id: str, operation: str, target: str
) -> JournalEntry | None:
    """The journal's entry that made `result_id` (a refund, a capture) by `operation` on
    `target`: the one that recorded it, else one still in flight there.

    Its sender records the result only when the service's answer comes back; another agent
    that reads the target in between already sees the result on the service. That entry
    made it, not someone "outside paytui" — the person is told who is sending it."""
    entry = await asyncio.to_thread(executor.journal.by_result, executor.base_url, result_id)
    if entry is not None:
        return entry
    entries = await asyncio.to_thread(
        executor.journal.entries_for,
        base_url=executor.base_url,
        operation=operation,
        charge_id=target,
    )
    flying = [e for e in entries if e.state in UNRESOLVED_STATES and not e.result_id]
    return flying[-1] if flying else None


async def describe_refunds(
    executor: Witness, refunds: Iterable[RefundSeen], target: str
) -> list[str]:
    """Who made these refunds of `target` and when, one line each: the journal's entry when
    paytui made it ("refunded 5.00 by the dashboard of support-12 … 4 s ago"), else
    "outside paytui"."""
    return [
        describe_refund(
            executor, refund, await made_by(executor, refund.refund_id, "refund", target)
        )
        for refund in refunds
    ]


def describe_refund(executor: Witness, refund: RefundSeen, entry: JournalEntry | None) -> str:
    """ "refunded 5.00 by … 4 s ago (refund re_1)" from its entry, "refunded 5.00 just now
    (refund re_1): a refund is being sent by …" from one in flight, else "… outside
    paytui"."""
    amount = format_amount(refund.amount) if refund.amount is not None else "an amount"
    when = f" {ago(refund.at, executor.clock())}" if refund.at is not None else ""
    if entry is not None and entry.state in UNRESOLVED_STATES:
        told = describe_entry(executor, entry)
        return f"refunded {amount}{when} (refund {refund.refund_id}): {told}"
    if entry is not None:
        return describe_done(executor, entry)
    return f"refunded {amount}{when} outside paytui (refund {refund.refund_id})"


def describe_capture(executor: Witness, capture_id: str, entry: JournalEntry | None) -> str:
    """Who captured it (its entry, or one still in flight), else "captured outside paytui
    (new charge …)"."""
    if entry is not None and entry.state in UNRESOLVED_STATES:
        return f"captured (new charge {capture_id}): " + describe_entry(executor, entry)
    if entry is not None:
        return describe_done(executor, entry)
    return f"captured outside paytui (new charge {capture_id})"


async def captured_by(executor: Witness, capture_id: str) -> str | None:
    """ "Already captured 10.00 by the dashboard of support-07 on ws-17 4 s ago (new charge
    …)" when the journal holds the capture; None otherwise (the service's word stands)."""
    entry = await asyncio.to_thread(executor.journal.by_result, executor.base_url, capture_id)
    if entry is None:
        return None
    return f"Already {describe_capture(executor, capture_id, entry)}"


# --- what became of an entry, in one line -------------------------------------------------------


def being_sent(operation: str, entry: JournalEntry) -> UnresolvedAction:
    """The refusal when the same action is being sent by another paytui right now."""
    noun = OPERATIONS[operation].noun
    who = f" by {entry.actor}" if entry.actor else " by another paytui"
    return UnresolvedAction(
        f"The same {noun} (#{entry.id}) is being sent{who} right now; nothing was sent — see"
        " History for its outcome",
        entry.id,
    )


def awaiting_message(entry: JournalEntry) -> str:
    """ "An earlier refund (#12) of 5.00 was accepted by the service and is not finished …" """
    noun = OPERATIONS[entry.operation].noun
    amount = f" of {format_amount(entry.amount)}" if entry.amount is not None else ""
    checked = f", checked at {entry.checked_at:%H:%M:%S} UTC" if entry.checked_at else ""
    return (
        f"An earlier {noun} (#{entry.id}){amount} was accepted by the service and is not"
        f" finished yet{checked}; nothing was sent — History follows it until the service"
        " settles it"
    )


def so_far_lead(entry: JournalEntry, now: datetime, until: datetime) -> str:
    """ "The refund #12 of 5.00 sent at 14:02:00 UTC was not found when checked at 14:02:12
    UTC, nor now at 14:02:30 UTC; a service that commits late could still apply it until
    14:12 UTC." """
    spec = OPERATIONS[entry.operation]
    amount = f" of {format_amount(entry.amount)}" if entry.amount is not None else ""
    sent = entry.sent_at or entry.created_at
    who = f" by {entry.actor}" if entry.actor else ""
    looked = entry.checked_at
    before = f" when checked at {looked:%H:%M:%S} UTC" if looked is not None else ""
    return (
        f"The {spec.noun} #{entry.id}{amount} sent at {sent:%H:%M:%S} UTC{who} was not found"
        f"{before}, nor now at {now:%H:%M:%S} UTC; a service that commits late could still"
        f" apply it until {until:%H:%M} UTC."
    )


def earlier_message(
    entry: JournalEntry, then: str = "confirm to send another", *, numbered: bool = False
) -> str:
    """ "The refund of 5.00 sent at 14:02 UTC did go through: refund 3f2a…" (what happened),
    and `then`: how to send another (the dialog's confirmation; the command line names its
    option, and `numbered` the entry)."""
    spec = OPERATIONS[entry.operation]
    amount = f" of {format_amount(entry.amount)}" if entry.amount is not None else ""
    when = entry.sent_at or entry.created_at
    result = spec.result_noun
    found = f": {result} {entry.result_id}" if result and entry.result_id else ""
    who = f" by {entry.actor}" if entry.actor else ""
    number = f" #{entry.id}" if numbered else ""
    late = f" ({entry.error})" if entry.late else ""  # found by a later look: when, said
    return (
        f"The {spec.noun}{number}{amount} sent at {when:%H:%M} UTC{who} did go through"
        f"{found}{late}. Nothing new was sent; {then}."
    )


def state_line(entry: JournalEntry, cause: str | None = None, *, window: timedelta) -> str:
    """One line for the user about an entry's state (`window`: the late window)."""
    noun = OPERATIONS[entry.operation].noun
    if entry.state == "succeeded":
        amount = f" {format_amount(entry.amount)}" if entry.amount is not None else ""
        done = OPERATIONS[entry.operation].success.format(result_id=entry.result_id, amount=amount)
        if cause:
            return f"{done} (the answer was lost — {cause} — but the service shows it happened)"
        if entry.error:  # a "not applied" corrected by a later look
            return f"{done}. {entry.error}"
        return done
    if entry.state == "not_applied":
        return _not_applied_line(entry, cause, window)
    if entry.state == "unknown":
        return (
            f"Outcome unknown: {entry.error or cause}. Nothing will be sent again;"
            " check it again from History."
        )
    if entry.state == AWAITING:
        return (
            f"Awaiting the service: {entry.error or 'accepted, not finished'}. Nothing will be"
            " sent again; History checks it until the service settles it."
        )
    if entry.state == "failed":
        return entry.error or f"The {noun} failed"
    return f"The {noun} is {entry.state}"


def _not_applied_line(entry: JournalEntry, cause: str | None, window: timedelta) -> str:
    """What a read-back that found nothing proves, and no more: what was checked and when, and
    until when a late commit could still land — never an invitation to send it again."""
    noun = OPERATIONS[entry.operation].noun
    lead = f"{cause}. " if cause else ""
    looked = entry.checked_at
    when = f" at {looked:%H:%M:%S} UTC" if looked is not None else ""
    after = ""
    if looked is not None and entry.sent_at is not None:
        after = f", {int((looked - entry.sent_at).total_seconds())} s after it was sent"
    if entry.sent_at is None:  # it never left: nothing can land
        return f"{lead}The {noun} was never sent: it did not happen."
    until = entry.sent_at + window
    return (
        f"{lead}Checked with the service{when}{after}: no {noun} found — not applied so far. A"
        f" service that commits late could still apply it until {until:%H:%M} UTC: paytui reads"
        f" it again before any new {noun} of the same target, and History checks it."
    )


def told(
    entry: JournalEntry,
    said: str,
    *,
    charge: Charge | None = None,
    refund: Refund | None = None,
    result: Any = None,
    reconciled: bool = False,
) -> ActionOutcome:
    """`entry` as the person who asked is told of it: its state and ids, and `said`."""
    return ActionOutcome(
        entry_id=entry.id,
        operation=entry.operation,
        charge_id=entry.charge_id,
        state=entry.state,
        result_id=entry.result_id,
        message=said,
        charge=charge,
        refund=refund,
        client_reference=entry.client_reference,
        reconciled=reconciled,
        never_sent=entry.never_sent,
        result=result,
    )


def outcome_of(
    settled: Reconciled, cause: str | None = None, *, window: timedelta
) -> ActionOutcome:
    """What a read-back settled, for the person who asked (`state_line` says it)."""
    entry, found = settled.entry, settled.found
    return told(
        entry,
        state_line(entry, cause, window=window),
        charge=found.charge if found else None,
        refund=found.refund if found else None,
        result=found.result if found else None,
        reconciled=True,
    )


def not_retryable_reason(entry: JournalEntry, *, late: bool = False) -> str:
    """Why `entry` cannot be sent again (`ActionExecutor.retry`), in one line."""
    if entry.state == "succeeded":
        lead = "It did happen after all" if late or entry.late else "It already happened"
        done = f"{lead}: {entry.result_id}" if entry.result_id else lead
        if entry.late:  # "Applied late: not found when checked at …, found at …"
            return f"{done} ({entry.error}). Nothing new was sent"
        return done
    if entry.unresolved:
        return "Its outcome is not known yet; check it again first — retrying could do it twice"
    if entry.state == "failed":
        return f"The service refused it; a refusal is final ({entry.error or 'no reason given'})"
    return f"A {entry.state} action cannot be retried"
