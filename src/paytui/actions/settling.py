"""Settling the past: every earlier attempt whose outcome is not proven is read back before the
same action is sent again, and a proven "not applied" is read again while it may still land late.

The pipeline's step 3 (`executor.py`'s docstring), and what History, start-up and the command
line ask of the same rule (`reconcile_entry`, `reconcile_all`, `read_back_earlier`). Its own
module because it is one concept with one invariant — nothing is sent while an earlier attempt
may have happened — and the pipeline only calls it (`settle_earlier`, `prove`). The read-back
itself is `reconcile.py`'s; this module decides when it is proof and what it forbids.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from paytui.actions.claims import process_alive
from paytui.actions.entry import AWAITING
from paytui.actions.errors import (
    ActionError,
    EarlierAttemptApplied,
    NotAppliedSoFar,
    UnresolvedAction,
)
from paytui.actions.operations import OPERATIONS
from paytui.actions.recent import identity_of
from paytui.actions.reconcile import RECONCILABLE, Reconciled, reconcile_detail
from paytui.actions.reconcile import reconcile_all as read_back_all
from paytui.actions.who_did_what import (
    STOPPED_SENDER,
    awaiting_message,
    being_sent,
    earlier_message,
    outcome_of,
    so_far_lead,
)

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.actions.in_flight import InFlight
    from paytui.actions.journal import Journal
    from paytui.actions.outcome import ActionOutcome
    from paytui.api.client import PaymentClient

__all__ = [
    "LIVE_SENDER_GRACE",
    "Settler",
    "late_check",
    "prove",
    "read_back",
    "read_back_earlier",
    "reconcile_all",
    "reconcile_entry",
    "sent_elsewhere",
    "settle_earlier",
    "sleep_until",
]

#: Seconds past its settle time that an entry still "sent" by a live process of another paytui is
#: left to that process (its request may leave late); after that it is read back as an orphan.
LIVE_SENDER_GRACE = 60.0


class Settler(Protocol):
    """What settling uses of the executor (`ActionExecutor` is one): the client and journal of
    one profile and service, its clock and sleep, its windows, and its actions in flight."""

    client: PaymentClient
    journal: Journal
    profile: str
    base_url: str
    clock: Callable[[], datetime]
    sleep: Callable[[float], Awaitable[None]]
    late_window: timedelta
    started: datetime
    slots: dict[tuple[str, str], InFlight]
    go_ahead: set[int]

    @property
    def settle_seconds(self) -> float: ...

    def open_until(self, entry: JournalEntry) -> datetime | None: ...


def busy(executor: Settler) -> frozenset[int]:
    """The entries this executor is sending now (never read back from here meanwhile)."""
    return frozenset(s.entry_id for s in executor.slots.values() if s.entry_id is not None)


async def read_back(
    executor: Settler,
    entry: JournalEntry,
    *,
    desired: dict[str, Any] | None = None,
    background: bool = False,
) -> Reconciled:
    """`entry` read back once (`reconcile.reconcile_detail`) with the executor's settings."""
    return await reconcile_detail(
        executor.client,
        executor.journal,
        entry,
        desired=desired,
        clock=executor.clock,
        default_settle=executor.settle_seconds,
        background=background,
        orphaned_before=executor.started,
    )


async def sleep_until(executor: Settler, when: datetime | None) -> None:
    """Wait (with the injectable `sleep`) until `when` by the executor's clock.

    A read-back's time is kept to the millisecond, cut down (as the journal stores it), so
    the wait runs to the first whole millisecond at or after `when`: a read-back made in the
    same millisecond as `when` would be judged too early and prove nothing. The clock is
    asked again after waking (a sleep may end a hair early by the wall clock)."""
    if when is None:
        return
    target = when + timedelta(microseconds=-when.microsecond % 1000)
    for _ in range(3):
        remaining = (target - executor.clock()).total_seconds()
        if remaining <= 0:
            return
        await executor.sleep(remaining)


async def prove(
    executor: Settler,
    entry: JournalEntry,
    slot: InFlight,
    *,
    desired: dict[str, Any] | None = None,
    background: bool = False,
) -> Reconciled:
    """Read `entry` back: a trace found proves "succeeded" at once; nothing found is read
    again once a commit still in flight would show (`settle_at`), which proves "not_applied".
    A failed read-back is not waited on: the entry stays "unknown"."""
    settled = await read_back(executor, entry, desired=desired, background=background)
    current = settled.entry
    if current.state == "unknown" and settled.error is None and settled.placed:
        when = current.settle_at(executor.settle_seconds)
        slot.settling = (current, when) if when is not None else None
        try:
            await sleep_until(executor, when)
        finally:
            slot.settling = None
        settled = await read_back(executor, current, desired=desired, background=background)
    return settled


async def sent_elsewhere(executor: Settler, entry: JournalEntry) -> bool:
    """Is `entry` being sent right now by another executor whose process is alive?

    "pending" / "sent", not one of ours, stamped within the settle time plus
    `LIVE_SENDER_GRACE`, and its owner either another machine or a process of this one that
    is still running. Older, or its process gone: left to the read-back (an orphan)."""
    if entry.state not in {"pending", "sent"} or entry.owner is None:
        return False
    if entry.id in busy(executor):
        return False
    stamp = entry.sent_at or entry.created_at
    age = (executor.clock() - stamp).total_seconds()
    if age > executor.settle_seconds + LIVE_SENDER_GRACE:
        return False
    # A team journal: the sender's session lock (gone the moment its connection is).
    held = await asyncio.to_thread(executor.journal.sender_alive, entry)
    if held is not None:
        return held
    return process_alive(entry.owner)  # a file journal: its host and pid


async def settle_earlier(
    executor: Settler,
    operation: str,
    target: str,
    slot: InFlight,
    acknowledge: int | None,
    identity: str | None = None,
) -> None:
    """Settle the past before sending: read back every earlier entry of the same action and
    target whose outcome is not proven (waiting until a commit in flight would show). If one
    did happen — now, or found earlier by a look the user was not shown — nothing is sent
    (`EarlierAttemptApplied`) unless the user acknowledged exactly that entry. One that
    stays unknown refuses the action (`UnresolvedAction`): doing it again could do it twice.
    `identity` given (a token's card): a success of another identity is not in the way."""
    key = OPERATIONS[operation].target_key
    charge_id = None if key is not None else target
    journal = executor.journal

    def same_target(entries: list[JournalEntry]) -> list[JournalEntry]:
        if key is None:
            return entries
        return [e for e in entries if e.request_summary.get(key) == target]

    def same_identity(entry: JournalEntry) -> bool:
        # An entry written without one (an older journal) is taken as the same.
        return identity is None or identity_of(entry) in (None, identity)

    entries = same_target(
        await asyncio.to_thread(
            journal.to_check,
            executor.settle_seconds,
            base_url=executor.base_url,
            operation=operation,
            charge_id=charge_id,
        )
    )
    for entry in entries:
        if await sent_elsewhere(executor, entry):
            # Its sender is alive and waiting for the answer: only it knows when its request
            # really left (a slow "sent" write or token fetch delays it), so a read-back from
            # here could prove "not applied" too early. Nothing is sent; it settles it.
            raise being_sent(operation, entry)
        settled = await prove(executor, entry, slot, background=True)
        if (
            settled.entry.state == "succeeded"
            and entry.id != acknowledge
            and same_identity(settled.entry)
        ):
            # Unsettled when this began, it happened (told by its own sender meanwhile, or
            # by this read-back): doing it again now would do it twice.
            raise EarlierAttemptApplied(earlier_message(settled.entry), settled.entry)
        # Still not proven (a failed read-back leaves "unknown", or an early "not_applied").
        if settled.entry.state == AWAITING:
            raise UnresolvedAction(awaiting_message(settled.entry), entry.id)
        if not settled.entry.proven(executor.settle_seconds):
            noun = OPERATIONS[operation].noun
            left = f", {STOPPED_SENDER}," if entry.state in {"pending", "sent"} else ""
            raise UnresolvedAction(
                f"An earlier {noun} (#{entry.id}){left} has an unknown outcome; check it in"
                " History before doing it again",
                entry.id,
            )
    # A "not applied" proven by a read-back is only "so far" within its late window: read it
    # again before this one is sent; a commit that landed late is found now.
    so_far = same_target(
        await asyncio.to_thread(
            journal.in_states,
            {"not_applied"},
            base_url=executor.base_url,
            operation=operation,
            charge_id=charge_id,
        )
    )
    for entry in so_far:
        if entry.id in executor.go_ahead:
            continue  # `retry` read it again a moment ago, and was told to send another
        if same_identity(entry) and executor.open_until(entry):
            # A go-ahead naming it was given on "not found so far": read again all the
            # same, for one that landed since is no longer what the person saw.
            await late_check(executor, entry, go_ahead=entry.id == acknowledge)
    applied = same_target(
        await asyncio.to_thread(
            journal.unacknowledged_successes,
            base_url=executor.base_url,
            operation=operation,
            charge_id=charge_id,
        )
    )
    for entry in applied:
        if not same_identity(entry):
            continue  # told when that one is done again
        if entry.id != acknowledge:
            raise EarlierAttemptApplied(earlier_message(entry), entry)
        await asyncio.to_thread(journal.acknowledge, entry.id)


async def late_check(executor: Settler, entry: JournalEntry, *, go_ahead: bool = False) -> None:
    """Read again a proven "not applied" still within its late window, before the same
    action is sent: landed late → `EarlierAttemptApplied` (recorded "succeeded (late)"),
    even with a `go_ahead` (given on "not found so far", not on "done"); still not there →
    `NotAppliedSoFar` (it may still land: nothing is sent without the person's go-ahead
    naming it, `go_ahead`); the read failed → `UnresolvedAction`."""
    noun = OPERATIONS[entry.operation].noun
    settled = await read_back(executor, entry, background=True)
    now = settled.entry
    if now.state == "succeeded":
        raise EarlierAttemptApplied(earlier_message(now), now)
    if now.state == AWAITING:
        raise UnresolvedAction(awaiting_message(now), now.id)
    if settled.error is not None:
        raise UnresolvedAction(
            f"An earlier {noun} (#{entry.id}) was not found when checked, but may still land"
            f" late, and it could not be read again now ({settled.error}); nothing was sent",
            entry.id,
        )
    until = executor.open_until(now)
    if now.state == "not_applied" and until is not None and not go_ahead:
        raise NotAppliedSoFar(so_far_lead(entry, executor.clock(), until), now)


async def read_back_earlier(executor: Settler, operation: str, target: str) -> list[ActionOutcome]:
    """Read back, once and now, every earlier entry of `operation` on `target` (this service,
    any profile) whose outcome is not proven, and record what the service shows. For the
    command line, which says what it found before it reads the charge ("the capture #12
    left unknown did happen: new charge …"). Nothing is sent and nothing raised; an entry
    still unproven is settled (or refused) by the action itself."""
    entries = await asyncio.to_thread(
        executor.journal.to_check,
        executor.settle_seconds,
        base_url=executor.base_url,
        operation=operation,
        charge_id=target,
    )
    found: list[ActionOutcome] = []
    for entry in entries:
        if await sent_elsewhere(executor, entry):
            continue  # its live sender settles it (the action itself says so)
        settled = await read_back(executor, entry, background=True)
        outcome = outcome_of(settled, window=executor.late_window)
        if entry.state in {"pending", "sent"}:
            told = f"{STOPPED_SENDER}; read back: {outcome.message}"
            outcome = replace(outcome, message=told)
        found.append(outcome)
    return found


async def reconcile_entry(executor: Settler, entry_id: int) -> ActionOutcome:
    """ "Check again": read the service back for one unresolved (or not_applied) entry."""
    entry = await asyncio.to_thread(executor.journal.get, entry_id)
    if entry is None:
        raise ActionError(f"No action #{entry_id}")
    if entry_id in busy(executor):
        raise ActionError(f"Action #{entry_id} is still in progress")
    if entry.state not in RECONCILABLE:
        return outcome_of(Reconciled(entry, None, None), window=executor.late_window)
    return outcome_of(await read_back(executor, entry), window=executor.late_window)


async def reconcile_all(executor: Settler, *, wait: bool = False) -> list[JournalEntry]:
    """Start-up: settle every entry of this profile and service whose outcome is not proven
    (unresolved ones and "not_applied" verdicts read back too early), and read again every
    "not_applied" still within its late window (`open_until`). `wait`: for entries
    sent so recently that a commit may still be in flight, wait until it would show."""
    sending = busy(executor)
    settled = await read_back_all(
        executor.client,
        executor.journal,
        profile=executor.profile,
        base_url=executor.base_url,
        skip=sending,
        clock=executor.clock,
        default_settle=executor.settle_seconds,
        orphaned_before=executor.started,
    )
    # "Not applied" read back within its late window is "so far": checked again each time.
    seen = sending | {entry.id for entry in settled}
    for entry in await asyncio.to_thread(
        executor.journal.in_states,
        {"not_applied"},
        profile=executor.profile,
        base_url=executor.base_url,
    ):
        if entry.id not in seen and executor.open_until(entry) is not None:
            settled.append((await read_back(executor, entry, background=True)).entry)
    if not wait:
        return settled
    results = []
    for entry in settled:
        if entry.state == "unknown" and entry.checked_at is not None:
            await sleep_until(executor, entry.settle_at(executor.settle_seconds))
            entry = (await read_back(executor, entry, background=True)).entry
        results.append(entry)
    return results
