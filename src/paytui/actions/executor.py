"""`ActionExecutor`: sends a money action exactly once and always ends with a proven answer.

The sequence for every action (docs/money-safety.md has the user's view of it):

1. **Policy** (`ActionPolicy.check`): refused → `ActionRefused`, nothing written, nothing sent.
2. **In-flight guard**: a second call for the same (operation, target) while the first runs
   raises `ActionInFlight` and sends nothing. The guard is taken before the first ``await``, so
   even ``asyncio.gather(capture(x), capture(x))`` sends one request.
3. **Settle the past**: every earlier journal entry of the same action and target whose outcome
   is not proven (pending / sent / unknown, and a "not_applied" read back too early) is read
   back first, waiting until a commit still in flight would be visible (`sent_at` + the client's
   timeout + `settle_margin`, or `settle_margin` after the client actually gave up when that is
   later; `settling()` gives the UI the countdown). If one happened, nothing
   is sent (`EarlierAttemptApplied`, naming it) until the user confirms with
   ``acknowledge_earlier=<its id>``; if one stays unknown, `UnresolvedAction`. A proven
   "not_applied" still within its late window (`late_window`: a service may commit late) is read
   again too: landed → `EarlierAttemptApplied` ("succeeded (late)"); still absent → nothing is
   sent without the same go-ahead naming it (`NotAppliedSoFar`). One the service answered
   pending ("awaiting_service") refuses the action until the service settles it.
4. **Checks**: amounts (`check_amount`), the capture's authorization (read first: a
   pre-authorization or an already captured one is explained, not sent), and the production
   typed confirmation (`ConfirmationRequired`).
5. **Intent**: the journal row is committed (fsynced) — then marked "sent" — *before* the request.
6. **Send once**. The client never retries a POST; neither do we — except after a 429, which
   proves the service did not act: its Retry-After is waited (capped) and the request sent once
   more under the same entry and client reference (`_send`; the trail keeps both sends).
7. **Outcome**: an answer is read whole — its own status decides (`answer_status`): done →
   "succeeded" with the result id; declined → "failed" with the service's reason; pending →
   "awaiting_service"; a word that cannot be placed → "unknown", read back. A definite refusal
   (4xx, or a connection that never sent the request) → "failed"; a 429 again → "failed",
   marked never sent ("not sent: rate limited", retryable by the person); anything else
   (timeout, dropped connection after sending, 5xx, an unreadable answer) → "unknown", then a
   read-back (`paytui.actions.reconcile`): found → judged by the same table at once; not found
   → read again once the request deadline plus the margin has passed — counted from when the
   client gave up, which a slow journal write or token fetch can put well after `sent_at` —
   and only that proves "not_applied", *so far* (the late window, step 3). A failed read-back
   leaves it "unknown". Never a resend.

Only the user resends: `retry(entry_id)` on a proven "not_applied" (or a request that never
left), once, after re-verifying past the deadline that it still did not happen. A refusal (4xx)
is final.

The action runs in its own task, shielded from the caller: cancelling the UI worker that awaited
it (Textual cancels exclusive workers) does not abandon a request half way; the journal still
gets its outcome. Journal writes run in a thread so an fsync never blocks the event loop.

Why one module of more than 800 lines: it is the one pipeline above, and its steps share one
invariant each (the in-flight slot taken before the first ``await`` and released after the
outcome; an intent on disk before the request; a read-back before any "not applied"), which
only holds if every step that touches them is read together. What belongs to operations has
left it (each is described in `actions/ops/`, looked up in the table; it imports none), and
so have the journal's rooms (`journal_*.py`), the comparison with what was seen (`stale.py`)
and the answer's judge (`answer_status.py`). Still here and movable when it grows: the
sentences said about earlier entries (`_message`, `_earlier_message`, `_so_far_lead`, the
`describe_*` methods) and the settling of the past (`_settle_earlier`, `_late_check`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.actions.actor import default_agent, machine_name
from paytui.actions.amounts import format_amount
from paytui.actions.answer_status import DECLINED, PENDING, UNKNOWN, judge
from paytui.actions.basis import (
    Basis,
    RefundSeen,
    chargebacks_of,
    read_refunds,
    refunded_total,
    tags_of,
)
from paytui.actions.claims import process_alive
from paytui.actions.entry import AWAITING, UNRESOLVED_STATES
from paytui.actions.errors import (
    ActionError,
    ActionInFlight,
    ActionRefused,
    ConfirmationRequired,
    EarlierAttemptApplied,
    JournalLost,
    NotAppliedSoFar,
    NotRetryable,
    PrecheckFailed,
    RecentlyDone,
    TargetChanged,
    UnresolvedAction,
)
from paytui.actions.journal import Journal, JournalConflict, JournalEntry, JournalUnavailable
from paytui.actions.operation import Asked
from paytui.actions.operations import OPERATIONS
from paytui.actions.outcome import ActionOutcome
from paytui.actions.plan import Plan, amount_identity
from paytui.actions.policy import ActionPolicy, Decision
from paytui.actions.reconcile import (
    RECONCILABLE,
    Reconciled,
    reconcile_all,
    reconcile_detail,
)
from paytui.actions.registry import refusal
from paytui.api.errors import (
    ApiError,
    MalformedResponseError,
    RateLimitedError,
    ServerError,
    TransportError,
    redact,
)
from paytui.api.models import (
    Account,
    Charge,
    Distribution,
    PluginSession,
    Refund,
    Token,
)

if TYPE_CHECKING:
    from paytui.actions.claims import Claim
    from paytui.actions.journal_approvals import Approval
    from paytui.api.client import PaymentClient

__all__ = ["STOPPED_SENDER", "ActionExecutor", "ActionOutcome", "is_definite_failure"]

#: How an entry is described whose sender stopped (its process is gone, or its team-journal
#: session lock was released) before it recorded an outcome: never "being sent right now".
STOPPED_SENDER = "left by a paytui that stopped while sending it"

#: Seconds waited before the one more send after a 429 that did not say how long (Retry-After).
RATE_LIMIT_WAIT = 1.0
#: The longest such wait, when the client does not say its own budget (`max_wait`).
MAX_RATE_LIMIT_WAIT = 30.0
#: Seconds added to the client's request deadline before "not found" proves "not applied".
DEFAULT_SETTLE_MARGIN = 2.0
#: Seconds past its settle time that an entry still "sent" by a live process of another paytui is
#: left to that process (its request may leave late); after that it is read back as an orphan.
LIVE_SENDER_GRACE = 60.0
#: How long after sending a read-back that found nothing is only "not applied *so far*": a
#: service may commit a request it held later than the deadline the proof assumes, so a new
#: attempt of the same action within it reads the service again first, and is not sent without
#: the person's go-ahead (the profile's `late_window_minutes` changes it).
DEFAULT_LATE_WINDOW = timedelta(minutes=10)
#: How long a success counts as "recent": the same action with the same amount on the same target
#: within it needs an explicit "again" (the profile's `again_window_hours` changes it).
DEFAULT_AGAIN_WINDOW = timedelta(hours=24)


def _utcnow() -> datetime:
    return datetime.now(UTC)


def is_definite_failure(error: BaseException) -> bool:
    """True when `error` proves the service did not apply the request.

    A 4xx answer is a refusal; a connection that failed before sending proves nothing was sent.
    A 5xx, a timeout or a dropped connection after sending, and an answer we could not read all
    leave the outcome unknown (the service may have acted before failing).
    """
    if isinstance(error, TransportError):
        return not error.request_sent
    if isinstance(error, ServerError | MalformedResponseError):
        return False
    if isinstance(error, ApiError) and error.status is not None:
        return 400 <= error.status < 500
    return False


@dataclass
class _InFlight:
    entry_id: int | None = None
    #: Set right after the slot is made (the task needs the slot to record its entry id).
    task: asyncio.Task[ActionOutcome] = field(init=False)
    #: While an earlier attempt is being settled: that entry and when its read-back is proof.
    settling: tuple[JournalEntry, datetime] | None = None
    #: The request has been handed to the client (from then on it may have happened).
    request_left: bool = False
    #: The authorization as the final re-read before a capture found it (unchanged since the
    #: person looked, no capture found by the thorough search): the capture's own precheck
    #: (`_read_authorization`) takes it instead of reading it again, once.
    fresh: Charge | None = None


class ActionExecutor:
    """Runs money actions through policy, journal, one send and reconciliation.

    `policy` may be replaced at any time (the token's scopes become known after the first
    authentication): ``executor.policy = dataclasses.replace(executor.policy, granted_scopes=...)``.
    The request deadline is the client's `timeout`; "not found" proves "not applied" only from
    `settle_margin` seconds after it (since sending). `clock` / `sleep` are injectable so tests
    and the chaos harness need not wait in real time where nothing real is late.
    """

    def __init__(
        self,
        client: PaymentClient,
        journal: Journal,
        policy: ActionPolicy,
        *,
        profile: str,
        base_url: str,
        settle_margin: float = DEFAULT_SETTLE_MARGIN,
        clock: Callable[[], datetime] = _utcnow,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        client_id: str | None = None,
        actor: str | None = None,
        again_window: timedelta = DEFAULT_AGAIN_WINDOW,
        agent: str | None = None,
        late_window: timedelta = DEFAULT_LATE_WINDOW,
        approve_above: Decimal | None = None,
    ) -> None:
        from paytui.config.urls import service_key

        self.client = client
        #: The OAuth client id that acts (the audit trail names it); None for a static token.
        self.client_id = client_id
        #: Who acts, in words another person understands ("the command line of ana@desk-3"):
        #: written with every entry, so "changed since you looked" can say by whom.
        self.actor = actor
        #: The person's name on the journal (`PAYTUI_AGENT`, the profile's `agent`; login@host)
        #: and this machine: every entry and refusal records them (History filters by agent).
        self.agent = agent or default_agent()
        self.machine = machine_name()
        #: This process ("host:pid"), written with each entry it sends: another process tells
        #: from it whether an entry still "sent" has a live sender (`_sent_elsewhere`).
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self.again_window = again_window
        #: How long a proven "not applied" stays "so far" (`DEFAULT_LATE_WINDOW`).
        self.late_window = late_window
        #: Four eyes: a refund or capture above it becomes a request another person approves
        #: (`paytui.actions.four_eyes`); None: off.
        self.approve_above = approve_above
        self.journal = journal
        self.policy = policy
        self.profile = profile
        #: The service's one name (`service_key`): the journal's guard is per service, so two
        #: profiles or spellings of it (``127.0.0.1`` / ``localhost``) share in-flight actions.
        self.base_url = service_key(base_url)
        self.settle_margin = settle_margin
        self.clock = clock
        self.sleep = sleep
        #: An entry still "sent" that this executor did not send was left by a process that
        #: died mid-request — before this one started: its request left before this moment.
        self.started = clock()
        self._in_flight: dict[tuple[str, str], _InFlight] = {}
        #: Entries "not applied so far" whose retry the person gave the go-ahead for (`retry`).
        self._go_ahead: set[int] = set()
        #: Requests of this session by entry id, for retrying what the journal keeps only masked
        #: (a new charge's card number is never written down).
        self._originals: dict[int, Any] = {}

    # ------------------------------------------------------------------ questions for the UI

    def check(self, operation: str) -> Decision:
        """The policy's answer (for disabling a key and naming the missing scope)."""
        return self.policy.check(operation)

    @property
    def settle_seconds(self) -> float:
        """Seconds after sending until a commit still in flight would be visible: the client's
        request deadline (its timeout) plus `settle_margin`."""
        return float(getattr(self.client, "timeout", 10.0)) + self.settle_margin

    def open_until(self, entry: JournalEntry) -> datetime | None:
        """Until when `entry`, read back "not applied", may still land late (None: it is not
        such an entry, or its window has passed — then "not applied" is final)."""
        until = entry.open_until(self.settle_seconds, self.late_window)
        return until if until is not None and self.clock() < until else None

    def in_flight(self, operation: str, target: str) -> bool:
        """True while `operation` on `target` (a charge id; the account for new charges) runs."""
        slot = self._in_flight.get((operation, target))
        return slot is not None and not slot.task.done()

    def any_in_flight(self) -> bool:
        """True while any action runs (a profile switch must wait)."""
        return any(not slot.task.done() for slot in list(self._in_flight.values()))

    def settling(self, operation: str, target: str) -> tuple[JournalEntry, datetime] | None:
        """While `operation` on `target` waits to read back an earlier (or its own) attempt:
        that entry and when the read-back proves the outcome (for the dialog's countdown)."""
        slot = self._in_flight.get((operation, target))
        if slot is None or slot.task.done():
            return None
        return slot.settling

    def history(self, *, limit: int = 200, offset: int = 0) -> list[JournalEntry]:
        """Every action of this profile and service, newest first (the History screen)."""
        return self.journal.list(
            limit=limit, offset=offset, profile=self.profile, base_url=self.base_url
        )

    async def remaining_refundable(self, charge_id: str) -> Decimal:
        """What is left to refund of a charge: its amount minus its refunds (reads only).

        The UI uses it as the refund field's default and `parse_amount`'s maximum.
        """
        charge = await self.client.get_charge(charge_id)
        refunds = await read_refunds(self.client, charge_id)  # the one way refunds are read
        return max((charge.total_amount or Decimal(0)) - refunded_total(refunds), Decimal(0))

    async def observe(self, operation: str, target: str) -> Basis:
        """Read the charge as a person is about to decide on `operation` (refund, capture), and
        remember exactly what was read: the `Basis` the action is later tied to.

        The journal's mark is taken *before* the read, so anything done after it — by this
        process or another — is "since the person looked". The action registry's rule of the
        operation explains why it cannot be (`PrecheckFailed`): a capture's as
        `read_authorization` does, a refund's (an authorization, a charge-back) the same.
        Raises `ApiError` when the service cannot be read (the caller says so; nothing is
        decided on a guess)."""
        mark = await asyncio.to_thread(self.journal.last_id)
        flying = await asyncio.to_thread(self._in_flight_ids, operation, target, mark)
        claim = (await self.claimed([target])).get(target)
        spec = OPERATIONS[operation]
        refunds: tuple[RefundSeen, ...] = ()
        left = None
        if spec.seen_capture:
            charge = await self._read_authorization(target)
        else:
            charge = await self.client.get_charge(target)
            # The registry's rule, as the key's (a capture's is asked by the read above); a
            # status paytui does not know refuses nothing (`registry.note` says so instead).
            from paytui.actions.registry import why_not

            reason = why_not(operation, charge)
            if reason is not None:
                raise PrecheckFailed(reason)
        if spec.seen_refunds:
            refunds = await read_refunds(self.client, target)
            charged = charge.total_amount or Decimal(0)
            left = max(charged - refunded_total(refunds), Decimal(0))
        return Basis(
            operation,
            target,
            self.clock(),
            mark,
            flying,
            status=charge.status,
            charged=charge.total_amount,
            refunds=refunds,
            left=left,
            chargebacks=chargebacks_of(charge),
            tags=tags_of(charge),
            charge=charge,
            claim=claim if claim is not None and not claim.mine(self.owner) else None,
        )

    # ---------------------------------------------------------------------------- claims

    async def claimed(self, targets: list[str]) -> dict[str, Claim]:
        """The live claims on `targets` (ours included), by target."""
        return await asyncio.to_thread(
            self.journal.claims, self.base_url, targets, owner=self.owner
        )

    async def claim(self, target: str, *, take_over: str | None = None) -> Claim:
        """Claim `target` for this agent; `ClaimedElsewhere` names who holds it, unless
        `take_over` gives the reason to take it from them (a link of the trail)."""
        return await asyncio.to_thread(
            self.journal.claim,
            self.base_url,
            target,
            agent=self.agent,
            machine=self.machine,
            owner=self.owner,
            take_over=take_over,
        )

    async def claim_next(self, candidates: list[str]) -> Claim | None:
        """Claim the first of `candidates` nobody else holds (None: all taken)."""
        return await asyncio.to_thread(
            self.journal.claim_next,
            self.base_url,
            candidates,
            agent=self.agent,
            machine=self.machine,
            owner=self.owner,
        )

    async def release(self, target: str) -> bool:
        """Let go of this agent's claim on `target` (False: it was not ours)."""
        return await asyncio.to_thread(
            self.journal.release, self.base_url, target, owner=self.owner
        )

    async def settle_earlier(self, operation: str, target: str) -> list[ActionOutcome]:
        """Read back, once and now, every earlier entry of `operation` on `target` (this service,
        any profile) whose outcome is not proven, and record what the service shows. For the
        command line, which says what it found before it reads the charge ("the capture #12
        left unknown did happen: new charge …"). Nothing is sent and nothing raised; an entry
        still unproven is settled (or refused) by the action itself."""
        entries = await asyncio.to_thread(
            self.journal.to_check,
            self.settle_seconds,
            base_url=self.base_url,
            operation=operation,
            charge_id=target,
        )
        found: list[ActionOutcome] = []
        for entry in entries:
            if await self._sent_elsewhere(entry):
                continue  # its live sender settles it (the action itself says so)
            settled = await self._reconcile(entry, background=True)
            outcome = _outcome_of(settled, window=self.late_window)
            if entry.state in {"pending", "sent"}:
                told = f"{STOPPED_SENDER}; read back: {outcome.message}"
                outcome = replace(outcome, message=told)
            found.append(outcome)
        return found

    async def _sent_elsewhere(self, entry: JournalEntry) -> bool:
        """Is `entry` being sent right now by another executor whose process is alive?

        "pending" / "sent", not one of ours, stamped within the settle time plus
        `LIVE_SENDER_GRACE`, and its owner either another machine or a process of this one that
        is still running. Older, or its process gone: left to the read-back (an orphan)."""
        if entry.state not in {"pending", "sent"} or entry.owner is None:
            return False
        if any(slot.entry_id == entry.id for slot in self._in_flight.values()):
            return False
        stamp = entry.sent_at or entry.created_at
        age = (self.clock() - stamp).total_seconds()
        if age > self.settle_seconds + LIVE_SENDER_GRACE:
            return False
        # A team journal: the sender's session lock (gone the moment its connection is).
        held = await asyncio.to_thread(self.journal.sender_alive, entry)
        if held is not None:
            return held
        return process_alive(entry.owner)  # a file journal: its host and pid

    def _in_flight_ids(self, operation: str, target: str, mark: int) -> frozenset[int]:
        """Entries of `operation` on `target` unsettled at `mark` (a worker thread's read)."""
        entries = self.journal.unresolved(base_url=self.base_url, operation=operation)
        return frozenset(e.id for e in entries if e.charge_id == target and e.id <= mark)

    # ---------------------------------------------------------------------------- actions

    async def run(
        self,
        name: str,
        target: str,
        params: Any,
        *,
        confirmation: str | None = None,
        acknowledge_earlier: int | None = None,
        basis: Basis | None = None,
        again: bool = False,
        retry_of: int | None = None,
        approval: Approval | None = None,
    ) -> ActionOutcome:
        """Run the operation `name` (a key of `OPERATIONS`) on `target` with its typed `params`
        (the operation module's `Params`): the one way every caller — dialog, bulk, command
        line, retry, Today, the browser — does anything that changes money or data.

        The pipeline (this module's docstring): policy and in-flight guard, the past settled,
        the decision checked against what the person saw (`basis`: `observe`; None reads it
        now), the operation's preparation (`Operation.prepare`), then the registry's rule of the
        operation asked of what it read (`Operation.rule`; refused → `PrecheckFailed`, its
        reason kept in the audit trail, nothing written or sent), the intent journaled, one
        send, the answer read whole. `acknowledge_earlier`: the person's go-ahead naming an
        earlier entry; `again`: the same amount (card, text) again on purpose; `retry_of`: the
        entry this one sends again (`retry`); `approval`: the approved request (four eyes) it
        sends (`paytui.actions.four_eyes.send_approved`), else one above `approve_above` becomes
        a request (`ApprovalRequired`) and nothing is sent."""
        spec = OPERATIONS.get(name)
        if spec is None:
            raise ActionError(f"paytui has no operation {name!r}; nothing was sent")
        if not isinstance(params, spec.params):
            raise TypeError(
                f"{name} takes {spec.params.__qualname__}, not {type(params).__qualname__}"
            )
        asked = Asked(confirmation, retry_of)
        return await self._perform(
            name,
            target,
            lambda: spec.prepare(self, target, params, asked),
            acknowledge_earlier,
            basis=basis,
            again=again,
            amount=spec.amount_of(params) if spec.amount_of is not None else None,
            identity=spec.identity_of(params) if spec.identity_of is not None else None,
            approval=approval,
        )

    async def retry(
        self,
        entry_id: int,
        *,
        confirmation: str | None = None,
        acknowledge_earlier: int | None = None,
    ) -> ActionOutcome:
        """Send again, as a NEW journal entry, an action proven not to have happened.

        Only on the user's request, only for "failed" / "not_applied", only once per entry; a
        "not_applied" verdict is re-checked first (a slow service may have applied it late).
        Within its late window it is only "not applied so far" (`NotAppliedSoFar`): it is sent
        again only with ``acknowledge_earlier=entry_id``, the person's go-ahead naming it.
        """
        entry = await asyncio.to_thread(self.journal.get, entry_id)
        if entry is None or (entry.profile, entry.base_url) != (self.profile, self.base_url):
            raise NotRetryable(f"No action #{entry_id} for this profile")
        if not entry.retryable:
            raise NotRetryable(_not_retryable_reason(entry))
        retries = await asyncio.to_thread(self.journal.retries_of, entry_id)
        if retries:
            raise NotRetryable(f"Already retried as #{retries[-1].id}")
        # Done again since (a repeat, another retry) — or possibly: retrying this one too could
        # do it twice. (And for an edit, a later identical one would make its read-back lie.)
        for later in await asyncio.to_thread(self.journal.later_of, entry):
            if _same_target(later, entry) and (
                later.state == "succeeded" or not later.proven(self.settle_seconds)
            ):
                noun = OPERATIONS[entry.operation].noun
                what = "went through" if later.state == "succeeded" else "may have happened"
                raise NotRetryable(
                    f"A later {noun} (#{later.id}) of the same charge {what}; retrying #{entry.id}"
                    " could do it twice — start a new one if you mean another"
                )
        summary = entry.request_summary
        original = self._originals.get(entry_id)
        if summary.get("redacted") and original is None:
            raise NotRetryable("Its details are kept masked in the journal; start it again")
        if entry.state == "not_applied":
            # A slow service may have applied it late: look again once that would show.
            await self._sleep_until(entry.settle_at(self.settle_seconds))
            # Found now, it is a success the person did not see happen: later presses of the
            # same action are told of it too (unacknowledged), not only this Retry.
            rechecked = await self._reconcile(entry, background=True)
            if rechecked.entry.state != "not_applied":
                raise NotRetryable(_not_retryable_reason(rechecked.entry, late=True))
            if not rechecked.entry.proven(self.settle_seconds):  # the read-back failed
                raise NotRetryable(
                    f"Could not check again whether it happened ({rechecked.error});"
                    " nothing was sent — try again when the service answers"
                )
        target, params = OPERATIONS[entry.operation].params_of(entry, original)
        if acknowledge_earlier == entry_id:
            self._go_ahead.add(entry_id)
        try:
            return await self.run(
                entry.operation, target, params, confirmation=confirmation, retry_of=entry.id
            )
        finally:
            self._go_ahead.discard(entry_id)

    async def reconcile_entry(self, entry_id: int) -> ActionOutcome:
        """ "Check again": read the service back for one unresolved (or not_applied) entry."""
        entry = await asyncio.to_thread(self.journal.get, entry_id)
        if entry is None:
            raise ActionError(f"No action #{entry_id}")
        if any(slot.entry_id == entry_id for slot in self._in_flight.values()):
            raise ActionError(f"Action #{entry_id} is still in progress")
        if entry.state not in RECONCILABLE:
            return _outcome_of(Reconciled(entry, None, None), window=self.late_window)
        return _outcome_of(await self._reconcile(entry), window=self.late_window)

    async def reconcile_all(self, *, wait: bool = False) -> list[JournalEntry]:
        """Start-up: settle every entry of this profile and service whose outcome is not proven
        (unresolved ones and "not_applied" verdicts read back too early), and read again every
        "not_applied" still within its late window (`open_until`). `wait`: for entries
        sent so recently that a commit may still be in flight, wait until it would show."""
        busy = frozenset(
            slot.entry_id for slot in self._in_flight.values() if slot.entry_id is not None
        )
        settled = await reconcile_all(
            self.client,
            self.journal,
            profile=self.profile,
            base_url=self.base_url,
            skip=busy,
            clock=self.clock,
            default_settle=self.settle_seconds,
            orphaned_before=self.started,
        )
        # "Not applied" read back within its late window is "so far": checked again each time.
        seen = busy | {entry.id for entry in settled}
        for entry in await asyncio.to_thread(
            self.journal.in_states, {"not_applied"}, profile=self.profile, base_url=self.base_url
        ):
            if entry.id not in seen and self.open_until(entry) is not None:
                settled.append((await self._reconcile(entry, background=True)).entry)
        if not wait:
            return settled
        results = []
        for entry in settled:
            if entry.state == "unknown" and entry.checked_at is not None:
                await self._sleep_until(entry.settle_at(self.settle_seconds))
                entry = (await self._reconcile(entry, background=True)).entry
            results.append(entry)
        return results

    async def aclose(self, timeout: float = 30.0) -> None:
        """Wait (up to `timeout`) for actions still running, so their outcomes are journaled."""
        tasks = [slot.task for slot in self._in_flight.values() if not slot.task.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    # --------------------------------------------------------------------------- internals

    async def _perform(
        self,
        operation: str,
        target: str,
        prepare: Callable[[], Awaitable[Plan]],
        acknowledge_earlier: int | None = None,
        *,
        basis: Basis | None = None,
        again: bool = False,
        amount: Decimal | None = None,
        identity: str | None = None,
        approval: Approval | None = None,
    ) -> ActionOutcome:
        """Run one action through the pipeline (`run`): `prepare` (the operation's,
        `paytui.actions.ops`) builds its `Plan` once the past is settled. Policy and in-flight
        guard first (synchronously, before any await), then the action in its own task, awaited
        shielded from our caller's cancellation.

        `identity`: what makes two of them "the same" (a token's card), known before `prepare`:
        an earlier success of another identity on the same target found by a read-back does not
        stop this one (another card stored on the account is not this card stored twice)."""
        decision = self.policy.check(operation)
        if not decision.allowed:
            await self.record_refusal(operation, target, decision.reason or "Not allowed", amount)
            raise ActionRefused(decision)
        key = (operation, target)
        current = self._in_flight.get(key)
        if current is not None and not current.task.done():
            raise ActionInFlight(operation, target, current.entry_id, current.task)
        slot = _InFlight()
        slot.task = asyncio.get_running_loop().create_task(
            self._execute(
                operation,
                target,
                prepare,
                slot,
                _Go(
                    acknowledge_earlier,
                    basis,
                    again,
                    amount,
                    identity=identity,
                    approval=approval,
                ),
            )
        )
        self._in_flight[key] = slot

        def _done(task: asyncio.Task[ActionOutcome]) -> None:
            if self._in_flight.get(key) is slot:
                del self._in_flight[key]
            if not task.cancelled():
                task.exception()  # retrieved: a caller that went away must not cause a warning

        slot.task.add_done_callback(_done)
        return await asyncio.shield(slot.task)

    async def _execute(
        self,
        operation: str,
        target: str,
        prepare: Callable[[], Awaitable[Plan]],
        slot: _InFlight,
        go: _Go,
    ) -> ActionOutcome:
        """`_steps`, with a journal that stops answering said in one line: before the request
        left, nothing was sent (no action without a journaled intent); after, it was sent and
        its outcome is read back once the journal answers again."""
        try:
            return await self._steps(operation, target, prepare, slot, go)
        except JournalUnavailable as exc:
            noun = OPERATIONS[operation].noun
            if not slot.request_left:
                raise ActionRefused(
                    Decision(False, f"Nothing was sent: {exc}. No action without a journal.")
                ) from None
            entry = f" #{slot.entry_id}" if slot.entry_id is not None else ""
            raise JournalLost(
                f"The {noun}{entry} was sent, but {exc}, so its outcome is not recorded. Nothing"
                " more is sent; History reads it back from the service once the journal answers.",
                slot.entry_id,
            ) from None

    async def _steps(
        self,
        operation: str,
        target: str,
        prepare: Callable[[], Awaitable[Plan]],
        slot: _InFlight,
        go: _Go,
    ) -> ActionOutcome:
        try:
            entry, plan = await self._intend(operation, target, prepare, slot, go)
        except (
            PrecheckFailed,
            UnresolvedAction,
            EarlierAttemptApplied,
            ActionRefused,
            TargetChanged,
            RecentlyDone,
        ) as err:
            await self.record_refusal(operation, target, err.message, go.amount)
            raise
        slot.entry_id = entry.id
        ref = entry.client_reference
        if plan.original is not None:
            self._originals[entry.id] = plan.original
        stamped = self.clock()
        moved = await asyncio.to_thread(
            self.journal.transition, entry.id, "sent", expected={"pending"}, at=stamped
        )
        if not moved:
            # Someone settled it meanwhile (another paytui read it back as an orphan): the
            # journal no longer says it may be sent, so it is not.
            now = await asyncio.to_thread(self.journal.get, entry.id)
            state = now.state if now is not None else "gone"
            raise ActionRefused(
                Decision(
                    False,
                    f"Nothing was sent: the {OPERATIONS[operation].noun} #{entry.id} was settled"
                    f" ({state}) by another paytui before it left; see History",
                )
            )
        slot.request_left = True
        try:
            result = await self._send(plan, ref, entry.id)
        except asyncio.CancelledError:
            # Shutting down mid-request: we cannot know what the service did. Written without
            # awaiting (we are being cancelled); start-up reconciliation settles it (a journal
            # that does not answer now leaves it "sent", which is read back the same way).
            with contextlib.suppress(JournalUnavailable):
                self.journal.transition(
                    entry.id,
                    "unknown",
                    expected={"sent"},
                    error="Interrupted while sending",
                    settle_seconds=self._settle_since(stamped),
                )
            raise
        except Exception as err:  # ApiError, or a bug after the request left: never resend
            message = str(err) if isinstance(err, ApiError) else f"{type(err).__name__}: {err}"
            if is_definite_failure(err):
                never_sent, message = _not_sent(err, message)
                await asyncio.to_thread(
                    self.journal.transition,
                    entry.id,
                    "failed",
                    expected={"sent"},
                    error=message,
                    never_sent=never_sent,
                )
                return await self._outcome(entry.id, message=message)
            await asyncio.to_thread(
                self.journal.transition,
                entry.id,
                "unknown",
                expected={"sent"},
                error=message,
                settle_seconds=self._settle_since(stamped),
            )
            current = await asyncio.to_thread(self.journal.get, entry.id)
            settled = await self._prove(current or entry, slot, desired=plan.desired)
            return _outcome_of(settled, cause=message, window=self.late_window)
        return await self._answered(entry, plan, result, slot, stamped)

    async def _answered(
        self, entry: JournalEntry, plan: Plan, result: Any, slot: _InFlight, stamped: datetime
    ) -> ActionOutcome:
        """Record what the service answered, read whole: its own status decides
        (`paytui.actions.answer_status`). Done → "succeeded"; declined → "failed" with the
        service's reason (nothing moved, final); pending → "awaiting_service"; a word that
        cannot be placed → "unknown", read back."""
        if plan.result_id_of is not None:
            result_id = plan.result_id_of(result) or plan.target
        else:
            result_id = _result_id(result) if result is not None else plan.target
        word = judge(plan.operation, result, getattr(result, "http_status", None))
        spec = OPERATIONS[plan.operation]
        made = result.charge_id if isinstance(result, Charge) and spec.makes_a_charge else None
        # Declined: "failed", the service's reason and the id it answered (nothing moved, final).
        # Accepted, not finished: its own state, followed by every later look (History,
        # start-up, `history check`, the next attempt) until the service settles it. Not placed:
        # "unknown", read back now (the same table judges what is found).
        state = {DECLINED: "failed", PENDING: AWAITING, UNKNOWN: "unknown"}.get(
            word.verdict, "succeeded"
        )
        done = state == "succeeded"
        await asyncio.to_thread(
            self.journal.transition,
            entry.id,
            state,
            expected={"sent"},
            result_id=result_id,
            amount=getattr(result, "total_amount", None) if done else None,
            charge_id=made,
            error=None if done else word.line(spec.noun),
            checked_at=self.clock() if state == AWAITING else None,
            settle_seconds=self._settle_since(stamped) if state == "unknown" else None,
        )
        if state == "unknown":
            current = await asyncio.to_thread(self.journal.get, entry.id)
            settled = await self._prove(current or entry, slot, desired=plan.desired)
            return _outcome_of(settled, window=self.late_window)
        return await self._outcome(
            entry.id,
            charge=result if isinstance(result, Charge) else None,
            refund=result if isinstance(result, Refund) else None,
            result=result if isinstance(result, PluginSession | Account | Token) else None,
        )

    async def _send(self, plan: Plan, ref: str, entry_id: int) -> Any:
        """`plan.send`, and once more after a 429 (`RateLimitedError`).

        A service that answers "too many requests" refused the request before acting on it
        (docs/api-assumptions.md, "Rate limits"), so sending it once more under the same intent —
        the same journal entry, the same client reference — after waiting what its Retry-After
        asks is not a blind retry. The wait is capped (`_rate_wait`); the second send is written
        to the entry first (its `sent_at` moves to it, the 429 is in its trail). A second 429, or
        a wait past the cap, ends as "not sent: rate limited" (`_not_sent`)."""
        try:
            return await plan.send(ref)
        except RateLimitedError as first:
            wait = self._rate_wait(first)
            if wait is None:
                raise
            await self.sleep(wait)
            moved = await asyncio.to_thread(
                self.journal.transition,
                entry_id,
                "sent",
                expected={"sent"},
                at=self.clock(),
                error=f"{first}; waited {wait:g} s and sent it once more",
            )
            if not moved:  # settled by another paytui meanwhile: not sent again
                raise
            try:
                return await plan.send(ref)
            except RateLimitedError as again:
                raise RateLimitedError(
                    f"{again.message}; asked again after waiting {wait:g} s",
                    again.status,
                    again.code,
                    again.body,
                    retry_after=again.retry_after,
                ) from again

    def _rate_wait(self, err: RateLimitedError) -> float | None:
        """How long to wait before the one more send after a 429: its Retry-After (seconds or
        an HTTP date, read by the client), else `RATE_LIMIT_WAIT`; None when that is longer
        than the client's budget of waits for one call (`max_wait`): not worth holding on."""
        wait = err.retry_after if err.retry_after is not None else RATE_LIMIT_WAIT
        cap = float(getattr(self.client, "max_wait", MAX_RATE_LIMIT_WAIT))
        return wait if wait <= cap else None

    async def _intend(
        self,
        operation: str,
        target: str,
        prepare: Callable[[], Awaitable[Plan]],
        slot: _InFlight,
        go: _Go,
    ) -> tuple[JournalEntry, Plan]:
        """Settle the past, check the decision still holds, prepare, and write the intent.

        The decision is tied to what the person saw (`go.basis`; read now when none was given):
        the service is read again and compared (`_check_unchanged`), a recent identical success
        needs `again` (`_check_recent`), and the intent is written in one cross-process
        transaction with the journal's check that nothing of the same action on the same target
        was done since the person looked, nor is in flight (`JournalConflict`). Any of these:
        nothing is written or sent, and the error says what changed, by whom and when."""
        # The past first: an earlier attempt's verdict may change what the checks below say.
        await self._settle_earlier(operation, target, slot, go.acknowledge, go.identity)
        # A caller that shows nothing to a person (a test, a script of the API) gives no basis:
        # then "since" is now, and the journal's guard and the recent-identical rule still hold.
        basis = go.basis
        current: tuple[RefundSeen, ...] | None = None
        if basis is not None:  # read earlier, by the dialog or the command: compare now
            mark, flying = basis.journal_mark, basis.in_flight
            current = await self._check_unchanged(basis, slot)
        else:
            mark, flying = await asyncio.to_thread(self.journal.last_id), frozenset()
        plan = await prepare()
        # The registry's rule of the operation, asked of what its preparation read: the one
        # rule that greys the key, for every operation, before anything is written or sent.
        reason = refusal(OPERATIONS[operation].rule, plan.subject)
        if reason is not None:
            raise PrecheckFailed(reason)
        await self._check_recent(plan, basis, current, go)
        # Four eyes: above `approve_above` a request waits for a second person (nothing is
        # written to the actions or sent); an approved one is sent only as it was approved.
        from paytui.actions.four_eyes import gate

        await gate(self, plan, basis, go.approval)
        summary = plan.summary
        if plan.identity is not None:
            summary = {**summary, "identity": plan.identity}
        try:
            entry = await asyncio.to_thread(
                self.journal.record_intent,
                profile=self.profile,
                base_url=self.base_url,
                operation=plan.operation,
                charge_id=plan.charge_id,
                amount=plan.amount,
                request_summary=summary,
                retry_of=plan.retry_of,
                client_reference=uuid.uuid4().hex,
                settle_seconds=self.settle_seconds,
                client_id=self.client_id,
                guard_since=mark,
                guard_in_flight=flying,
                target=(key, target) if (key := OPERATIONS[operation].target_key) else None,
                actor=self.actor,
                owner=self.owner,
                agent=self.agent,
                machine=self.machine,
                approval=go.approval.id if go.approval is not None else None,
            )
        except JournalConflict as conflict:
            other = conflict.entry
            if other.state == "succeeded":
                if other.id == go.acknowledge and go.depth == 0:
                    # Seen and confirmed by the user: send another, guarded from here on.
                    await asyncio.to_thread(self.journal.acknowledge, other.id)
                    fresh = _Go(
                        go.acknowledge,
                        None,
                        go.again,
                        go.amount,
                        depth=1,
                        identity=go.identity,
                        approval=go.approval,
                    )
                    return await self._intend(operation, target, prepare, slot, fresh)
                if basis is not None:
                    raise TargetChanged(
                        (self._describe_entry(other),),
                        earlier=other,
                        left=await self._left_now(operation, target),
                    ) from None
                raise EarlierAttemptApplied(_earlier_message(other), other) from None
            if go.depth == 0 and not await self._sent_elsewhere(other):
                # Unsettled, and its sender is gone: not "being sent right now" — read it back,
                # then decide again on what that shows (done: not twice; not done: go on).
                await self._prove(other, slot, background=True)
                fresh = _Go(
                    go.acknowledge,
                    go.basis,
                    go.again,
                    go.amount,
                    depth=1,
                    identity=go.identity,
                    approval=go.approval,
                )
                return await self._intend(operation, target, prepare, slot, fresh)
            raise _being_sent(operation, other) from None
        return entry, plan

    async def _check_unchanged(self, basis: Basis, slot: _InFlight) -> tuple[RefundSeen, ...]:
        """The target read again and compared with what the person saw (`paytui.actions.stale`:
        status, refunds, capture, chargebacks, tags): anything new since → `TargetChanged`,
        naming who did it (the journal) and when. Returns the refunds listed now. A capture's
        search is the thorough one, so the capture's precheck reuses this read (`slot.fresh`,
        as a refund's rule does: `read_charge`) rather than spending the service's rate budget
        on the same reads again."""
        from paytui.actions.stale import check_unchanged

        fresh = await check_unchanged(self, basis)
        slot.fresh = fresh.charge  # the preparation's read of the target (`read_charge`), once
        return fresh.refunds

    async def _check_recent(
        self,
        plan: Plan,
        basis: Basis | None,
        current: tuple[RefundSeen, ...] | None,
        go: _Go,
    ) -> None:
        """A success of the same operation with the same identity (amount, card) on the same
        target within `again_window`, by anyone — the journal's, or a refund the service lists —
        that the person was not shown: `RecentlyDone`, unless `go.again` (or it is the entry the
        person acknowledged). A script has no eyes: two cron runs "see" each other's refund."""
        if plan.identity is None or go.again:
            return
        since = self.clock() - self.again_window
        shown = basis.refund_ids if basis is not None and basis.shown else frozenset()
        entries = await asyncio.to_thread(
            self.journal.successes_since,
            base_url=self.base_url,
            operation=plan.operation,
            charge_id=plan.charge_id,
            since=since,
        )
        noun = OPERATIONS[plan.operation].noun
        # The service's refunds that are these entries' results are judged by their entry (an
        # acknowledged one is not "made outside paytui" below).
        journaled = frozenset(entry.result_id for entry in entries if entry.result_id)
        for entry in entries:
            if not _same_target_as(entry, plan) or entry.id == go.acknowledge:
                continue
            if entry.result_id in shown or _identity_of(entry) != plan.identity:
                continue
            amount = f" of {format_amount(entry.amount)}" if entry.amount is not None else ""
            made = OPERATIONS[entry.operation].result_word(entry)
            raise RecentlyDone(
                f"The same {noun}{amount} was made {self.by_and_when(entry)} ({made})."
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
                f" {_ago(refund.at, self.clock())} (refund {refund.refund_id}, not through"
                " paytui). Nothing was sent; sending it again needs an explicit “again”.",
                refund.refund_id,
            )

    async def _left_now(self, operation: str, target: str) -> Decimal | None:
        """What is left to refund now (for the message), or None when it cannot be read or the
        operation does not decide on what is left (`Operation.seen_refunds`)."""
        spec = OPERATIONS.get(operation)
        if spec is None or not spec.seen_refunds:
            return None
        try:
            return await self.remaining_refundable(target)
        except ApiError:
            return None

    async def who_changed(self, operation: str, target: str, after_id: int) -> str:
        """Who changed `target` by `operation` after journal entry `after_id`: "by the dashboard
        of ana@ws-3 4 s ago" (the newest that went through), else "outside paytui"."""
        entries = await asyncio.to_thread(
            self.journal.entries_for,
            base_url=self.base_url,
            operation=operation,
            charge_id=target,
            after_id=after_id,
        )
        done = [e for e in entries if e.state not in {"failed", "not_applied"}]
        return self.by_and_when(done[-1]) if done else "outside paytui"

    def by_and_when(self, entry: JournalEntry) -> str:
        """ "by the dashboard of ana@ws-3 4 s ago": who made `entry`, and how long ago."""
        who = entry.actor or (
            "this profile" if entry.profile == self.profile else f"profile {entry.profile}"
        )
        when = entry.resolved_at or entry.sent_at or entry.created_at
        return f"by {who} {_ago(when, self.clock())}"

    def describe_entry(self, entry: JournalEntry) -> str:
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
        return self._describe_entry(entry)

    def _describe_entry(self, entry: JournalEntry) -> str:
        """ "refunded 5.00 by the command line of ana@desk 3 s ago (refund re_1)" """
        spec = OPERATIONS[entry.operation]
        amount = f" {format_amount(entry.amount)}" if entry.amount is not None else ""
        return f"{spec.done}{amount} {self.by_and_when(entry)} ({spec.result_word(entry)})"

    async def describe_refunds(self, refunds: Iterable[RefundSeen], target: str) -> list[str]:
        """Who made these refunds of `target` and when, one line each: the journal's entry when
        paytui made it ("refunded 5.00 by the dashboard of support-12 … 4 s ago"), else
        "outside paytui"."""
        return [
            self.describe_refund(refund, await self.made_by(refund.refund_id, "refund", target))
            for refund in refunds
        ]

    async def made_by(self, result_id: str, operation: str, target: str) -> JournalEntry | None:
        """The journal's entry that made `result_id` (a refund, a capture) by `operation` on
        `target`: the one that recorded it, else one still in flight there.

        Its sender records the result only when the service's answer comes back; another agent
        that reads the target in between already sees the result on the service. That entry
        made it, not someone "outside paytui" — the person is told who is sending it."""
        entry = await asyncio.to_thread(self.journal.by_result, self.base_url, result_id)
        if entry is not None:
            return entry
        entries = await asyncio.to_thread(
            self.journal.entries_for,
            base_url=self.base_url,
            operation=operation,
            charge_id=target,
        )
        flying = [e for e in entries if e.state in UNRESOLVED_STATES and not e.result_id]
        return flying[-1] if flying else None

    def describe_refund(self, refund: RefundSeen, entry: JournalEntry | None) -> str:
        """ "refunded 5.00 by … 4 s ago (refund re_1)" from its entry, "refunded 5.00 just now
        (refund re_1): a refund is being sent by …" from one in flight, else "… outside
        paytui"."""
        amount = format_amount(refund.amount) if refund.amount is not None else "an amount"
        when = f" {_ago(refund.at, self.clock())}" if refund.at is not None else ""
        if entry is not None and entry.state in UNRESOLVED_STATES:
            return f"refunded {amount}{when} (refund {refund.refund_id}): " + self.describe_entry(
                entry
            )
        if entry is not None:
            return self._describe_entry(entry)
        return f"refunded {amount}{when} outside paytui (refund {refund.refund_id})"

    def describe_capture(self, capture_id: str, entry: JournalEntry | None) -> str:
        """Who captured it (its entry, or one still in flight), else "captured outside paytui
        (new charge …)"."""
        if entry is not None and entry.state in UNRESOLVED_STATES:
            return f"captured (new charge {capture_id}): " + self.describe_entry(entry)
        if entry is not None:
            return self._describe_entry(entry)
        return f"captured outside paytui (new charge {capture_id})"

    async def record_refusal(
        self, operation: str, target: str, reason: str, amount: Decimal | None = None
    ) -> None:
        """Keep a refused attempt in the audit trail (with the amount asked, when there was
        one); a journal failure never hides the refusal."""
        try:
            await asyncio.to_thread(
                self.journal.record_refusal,
                profile=self.profile,
                base_url=self.base_url,
                client_id=self.client_id,
                operation=operation,
                charge_id=None if _makes_a_charge(operation) else target,
                amount=amount,
                reason=redact(reason),
                agent=self.agent,
                machine=self.machine,
            )
        except Exception:
            return

    def _settle_since(self, stamped: datetime) -> float:
        """The settle time of a request stamped "sent" at `stamped` whose client gave up just
        now: the usual window, and at least `settle_margin` past this moment.

        `sent_at` is stamped before the durable "sent" write and before the client fetches a
        token, so on a slow disk or a busy machine the request may leave — and its deadline
        start — well after it. A commit in flight shows within the margin of the moment the
        client gave up (the assumption, measured from the request's real deadline), so that
        moment, not the stamp, is what the proof must wait out."""
        waited = (self.clock() - stamped).total_seconds()
        return max(self.settle_seconds, waited + self.settle_margin)

    async def _reconcile(
        self,
        entry: JournalEntry,
        *,
        desired: dict[str, Any] | None = None,
        background: bool = False,
    ) -> Reconciled:
        return await reconcile_detail(
            self.client,
            self.journal,
            entry,
            desired=desired,
            clock=self.clock,
            default_settle=self.settle_seconds,
            background=background,
            orphaned_before=self.started,
        )

    async def _prove(
        self,
        entry: JournalEntry,
        slot: _InFlight,
        *,
        desired: dict[str, Any] | None = None,
        background: bool = False,
    ) -> Reconciled:
        """Read `entry` back: a trace found proves "succeeded" at once; nothing found is read
        again once a commit still in flight would show (`settle_at`), which proves "not_applied".
        A failed read-back is not waited on: the entry stays "unknown"."""
        settled = await self._reconcile(entry, desired=desired, background=background)
        current = settled.entry
        if current.state == "unknown" and settled.error is None and settled.placed:
            when = current.settle_at(self.settle_seconds)
            slot.settling = (current, when) if when is not None else None
            try:
                await self._sleep_until(when)
            finally:
                slot.settling = None
            settled = await self._reconcile(current, desired=desired, background=background)
        return settled

    async def read_charge(self, charge_id: str) -> Charge | None:
        """The charge an operation acts on, for the registry's rule (`Plan.subject`): the read
        the check against what the person saw made moments ago (`_check_unchanged`), else read
        now. Not readable here (no scope to read it, the service not answering reads): None,
        and the service decides (its refusal is shown), as it did before paytui read it."""
        slot = self._in_flight.get(self._current_key(charge_id))
        if slot is not None and slot.fresh is not None and slot.task is asyncio.current_task():
            fresh, slot.fresh = slot.fresh, None
            return fresh
        try:
            return await self.client.get_charge(charge_id)
        except ApiError:
            return None

    def _current_key(self, target: str) -> tuple[str, str]:
        """The in-flight key of the action this task runs on `target` (any operation)."""
        task = asyncio.current_task()
        for key, slot in self._in_flight.items():
            if key[1] == target and slot.task is task:
                return key
        return ("", target)

    async def read_authorization(self, charge_id: str) -> Charge:
        """Read the charge to capture; `PrecheckFailed` says why it cannot be (nothing is sent)."""
        return await self._read_authorization(charge_id)

    async def _read_authorization(self, charge_id: str) -> Charge:
        """Read the charge to capture and explain why it cannot be, before sending anything.

        The rule is the action registry's (`paytui.actions.registry`), the same one that greys
        out the capture key, so the key and the refusal never disagree."""
        from paytui.actions.registry import why_not
        from paytui.api.captures import find_capture

        slot = self._in_flight.get(("capture", charge_id))
        if slot is not None and slot.fresh is not None and slot.task is asyncio.current_task():
            # Read moments ago by this capture's final re-read, its capture searched as below.
            fresh, slot.fresh = slot.fresh, None
            if why_not("capture", fresh) is None:
                return fresh
        try:
            auth = await self.client.get_charge(charge_id)
        except ApiError as err:
            raise PrecheckFailed(f"Could not read the authorization: {err}") from err
        reason = why_not("capture", auth)
        if reason is not None:
            if auth.captured_charge_id:  # who captured it, when the journal knows
                reason = await self._captured_by(auth.captured_charge_id) or reason
            raise PrecheckFailed(reason, auth.captured_charge_id)
        # The spec's proof of a capture: a charge whose original_charge_id is this one (the
        # sandbox's captured_charge_id above is a shortcut only). Not found, or not provable on a
        # service that ignores the filter: the service itself refuses a second capture.
        try:
            lookup = await find_capture(self.client, auth, thorough=True)
        except ApiError as err:
            raise PrecheckFailed(f"Could not look for an earlier capture: {err}") from err
        if lookup.capture_id is not None:
            told = await self._captured_by(lookup.capture_id)
            raise PrecheckFailed(
                told or f"Already captured as {lookup.capture_id}", lookup.capture_id
            )
        return auth

    async def _captured_by(self, capture_id: str) -> str | None:
        """ "Already captured 10.00 by the dashboard of support-07 on ws-17 4 s ago (new charge
        …)" when the journal holds the capture; None otherwise (the service's word stands)."""
        entry = await asyncio.to_thread(self.journal.by_result, self.base_url, capture_id)
        if entry is None:
            return None
        return f"Already {self.describe_capture(capture_id, entry)}"

    def confirm(
        self, operation: str, amount: Decimal | None, charge_id: str | None, typed: str | None
    ) -> None:
        """The production typed confirmation, checked by an operation's `prepare`."""
        if not self.policy.confirmation_ok(operation, amount, charge_id, typed):
            raise ConfirmationRequired(self.policy.confirmation_phrase(amount, charge_id))

    async def _settle_earlier(
        self,
        operation: str,
        target: str,
        slot: _InFlight,
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

        def same_target(entries: list[JournalEntry]) -> list[JournalEntry]:
            if key is None:
                return entries
            return [e for e in entries if e.request_summary.get(key) == target]

        def same_identity(entry: JournalEntry) -> bool:
            # An entry written without one (an older journal) is taken as the same.
            return identity is None or _identity_of(entry) in (None, identity)

        entries = same_target(
            await asyncio.to_thread(
                self.journal.to_check,
                self.settle_seconds,
                base_url=self.base_url,
                operation=operation,
                charge_id=charge_id,
            )
        )
        for entry in entries:
            if await self._sent_elsewhere(entry):
                # Its sender is alive and waiting for the answer: only it knows when its request
                # really left (a slow "sent" write or token fetch delays it), so a read-back from
                # here could prove "not applied" too early. Nothing is sent; it settles it.
                raise _being_sent(operation, entry)
            settled = await self._prove(entry, slot, background=True)
            if (
                settled.entry.state == "succeeded"
                and entry.id != acknowledge
                and same_identity(settled.entry)
            ):
                # Unsettled when this began, it happened (told by its own sender meanwhile, or
                # by this read-back): doing it again now would do it twice.
                raise EarlierAttemptApplied(_earlier_message(settled.entry), settled.entry)
            # Still not proven (a failed read-back leaves "unknown", or an early "not_applied").
            if settled.entry.state == AWAITING:
                raise UnresolvedAction(_awaiting_message(settled.entry), entry.id)
            if not settled.entry.proven(self.settle_seconds):
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
                self.journal.in_states,
                {"not_applied"},
                base_url=self.base_url,
                operation=operation,
                charge_id=charge_id,
            )
        )
        for entry in so_far:
            if entry.id in self._go_ahead:
                continue  # `retry` read it again a moment ago, and was told to send another
            if same_identity(entry) and self.open_until(entry):
                # A go-ahead naming it was given on "not found so far": read again all the
                # same, for one that landed since is no longer what the person saw.
                await self._late_check(entry, go_ahead=entry.id == acknowledge)
        applied = same_target(
            await asyncio.to_thread(
                self.journal.unacknowledged_successes,
                base_url=self.base_url,
                operation=operation,
                charge_id=charge_id,
            )
        )
        for entry in applied:
            if not same_identity(entry):
                continue  # told when that one is done again
            if entry.id != acknowledge:
                raise EarlierAttemptApplied(_earlier_message(entry), entry)
            await asyncio.to_thread(self.journal.acknowledge, entry.id)

    async def _late_check(self, entry: JournalEntry, *, go_ahead: bool = False) -> None:
        """Read again a proven "not applied" still within its late window, before the same
        action is sent: landed late → `EarlierAttemptApplied` (recorded "succeeded (late)"),
        even with a `go_ahead` (given on "not found so far", not on "done"); still not there →
        `NotAppliedSoFar` (it may still land: nothing is sent without the person's go-ahead
        naming it, `go_ahead`); the read failed → `UnresolvedAction`."""
        noun = OPERATIONS[entry.operation].noun
        settled = await self._reconcile(entry, background=True)
        now = settled.entry
        if now.state == "succeeded":
            raise EarlierAttemptApplied(_earlier_message(now), now)
        if now.state == AWAITING:
            raise UnresolvedAction(_awaiting_message(now), now.id)
        if settled.error is not None:
            raise UnresolvedAction(
                f"An earlier {noun} (#{entry.id}) was not found when checked, but may still land"
                f" late, and it could not be read again now ({settled.error}); nothing was sent",
                entry.id,
            )
        until = self.open_until(now)
        if now.state == "not_applied" and until is not None and not go_ahead:
            raise NotAppliedSoFar(_so_far_lead(entry, self.clock(), until), now)

    async def _sleep_until(self, when: datetime | None) -> None:
        """Wait (with the injectable `sleep`) until `when` by the executor's clock.

        A read-back's time is kept to the millisecond, cut down (as the journal stores it), so
        the wait runs to the first whole millisecond at or after `when`: a read-back made in the
        same millisecond as `when` would be judged too early and prove nothing. The clock is
        asked again after waking (a sleep may end a hair early by the wall clock)."""
        if when is None:
            return
        target = when + timedelta(microseconds=-when.microsecond % 1000)
        for _ in range(3):
            remaining = (target - self.clock()).total_seconds()
            if remaining <= 0:
                return
            await self.sleep(remaining)

    async def _outcome(
        self,
        entry_id: int,
        *,
        message: str | None = None,
        charge: Charge | None = None,
        refund: Refund | None = None,
        result: Any = None,
    ) -> ActionOutcome:
        entry = await asyncio.to_thread(self.journal.get, entry_id)
        assert entry is not None
        return ActionOutcome(
            entry_id=entry.id,
            operation=entry.operation,
            charge_id=entry.charge_id,
            state=entry.state,
            result_id=entry.result_id,
            message=message or _message(entry, window=self.late_window),
            charge=charge,
            refund=refund,
            client_reference=entry.client_reference,
            never_sent=entry.never_sent,
            result=result,
        )


@dataclass(frozen=True)
class _Go:
    """What the person said with the action: the earlier entry they acknowledged, the state
    they decided on, an explicit "again"; `depth` guards the one re-intend after an
    acknowledgement."""

    acknowledge: int | None = None
    basis: Basis | None = None
    again: bool = False
    #: The amount asked (a refund's), kept with a refusal in the audit trail.
    amount: Decimal | None = None
    depth: int = 0
    #: What makes it "the same" action, when known before its plan (a token's card).
    identity: str | None = None
    #: The approved request (four eyes) this action sends.
    approval: Approval | None = None


def _not_sent(err: Exception, message: str) -> tuple[bool, str]:
    """Whether a definite failure proves the request was not acted on (a connection that never
    sent it, or a 429: retryable by the person, not a refusal), and the message to keep."""
    if isinstance(err, RateLimitedError):
        later = f"in {err.retry_after:g} s" if err.retry_after is not None else "in a moment"
        return True, (
            f"Not sent: the service is limiting requests ({err.message}; 429). Nothing was"
            f" done; try again {later}."
        )
    return isinstance(err, TransportError) and not err.request_sent, message


def _makes_a_charge(operation: str) -> bool:
    """Its target is an account, not a charge (an unknown operation, refused: neither)."""
    spec = OPERATIONS.get(operation)
    return spec is not None and spec.makes_a_charge


def _identity_of(entry: JournalEntry) -> str | None:
    """The identity an entry was written with; a refund of an older journal: its amount."""
    kept = entry.request_summary.get("identity")
    if isinstance(kept, str):
        return kept
    if OPERATIONS[entry.operation].amount_is_identity:
        return amount_identity(entry.amount)
    return None


def _same_target_as(entry: JournalEntry, plan: Plan) -> bool:
    key = OPERATIONS[plan.operation].target_key
    if key is not None:
        return entry.request_summary.get(key) == plan.summary.get(key)
    return entry.charge_id == plan.charge_id


def _ago(then: datetime, now: datetime) -> str:
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


def _same_target(one: JournalEntry, other: JournalEntry) -> bool:
    """Same operation on the same charge (a new charge: on the same account)."""
    if one.operation != other.operation:
        return False
    key = OPERATIONS[one.operation].target_key
    if key is not None:
        return one.request_summary.get(key) == other.request_summary.get(key)
    return one.charge_id == other.charge_id


def _result_id(result: Charge | Refund | Distribution | PluginSession | Account | Token) -> str:
    if isinstance(result, Refund):
        return result.refund_id
    if isinstance(result, Token):
        return result.token_id
    if isinstance(result, Distribution):
        return result.distribution_id
    if isinstance(result, PluginSession):
        return result.session_id
    if isinstance(result, Account):
        return result.account_id
    return result.charge_id


def _being_sent(operation: str, entry: JournalEntry) -> UnresolvedAction:
    """The refusal when the same action is being sent by another paytui right now."""
    noun = OPERATIONS[operation].noun
    who = f" by {entry.actor}" if entry.actor else " by another paytui"
    return UnresolvedAction(
        f"The same {noun} (#{entry.id}) is being sent{who} right now; nothing was sent — see"
        " History for its outcome",
        entry.id,
    )


def _awaiting_message(entry: JournalEntry) -> str:
    """ "An earlier refund (#12) of 5.00 was accepted by the service and is not finished …" """
    noun = OPERATIONS[entry.operation].noun
    amount = f" of {format_amount(entry.amount)}" if entry.amount is not None else ""
    checked = f", checked at {entry.checked_at:%H:%M:%S} UTC" if entry.checked_at else ""
    return (
        f"An earlier {noun} (#{entry.id}){amount} was accepted by the service and is not"
        f" finished yet{checked}; nothing was sent — History follows it until the service"
        " settles it"
    )


def _so_far_lead(entry: JournalEntry, now: datetime, until: datetime) -> str:
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


def _earlier_message(
    entry: JournalEntry, then: str = "confirm to send another", *, numbered: bool = False
) -> str:
    """ "The refund of 5.00 sent at 14:02 UTC did go through: refund 3f2a…" (what happened),
    and `then`: how to send another (the dialog's confirmation; the command line's option)."""
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


def earlier_message(entry: JournalEntry, then: str) -> str:
    """What `EarlierAttemptApplied` says of `entry`, with another way to send one more (`then`:
    the command line names its option), naming the entry."""
    return _earlier_message(entry, then, numbered=True)


def _message(
    entry: JournalEntry, cause: str | None = None, *, window: timedelta = DEFAULT_LATE_WINDOW
) -> str:
    """One line for the user about an entry's state."""
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


def _outcome_of(
    settled: Reconciled, cause: str | None = None, *, window: timedelta = DEFAULT_LATE_WINDOW
) -> ActionOutcome:
    entry = settled.entry
    found = settled.found
    return ActionOutcome(
        entry_id=entry.id,
        operation=entry.operation,
        charge_id=entry.charge_id,
        state=entry.state,
        result_id=entry.result_id,
        message=_message(entry, cause, window=window),
        charge=found.charge if found else None,
        refund=found.refund if found else None,
        client_reference=entry.client_reference,
        reconciled=True,
        never_sent=entry.never_sent,
        result=found.result if found else None,
    )


def _not_retryable_reason(entry: JournalEntry, *, late: bool = False) -> str:
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
