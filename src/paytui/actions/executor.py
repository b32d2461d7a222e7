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

Why one module of more than 800 lines: it is the one pipeline above (`run` → `_intend` →
`_send` → `_answered` → `_outcome`), and its steps share one invariant each (the in-flight slot
taken before the first ``await`` and released after the outcome; an intent on disk before the
request; a read-back before any "not applied"), which only holds if every step that touches them
is read together. Its rooms hold the rest, each one concept: the settling of the past
(`settling.py`), the words that tell who did what and when (`who_did_what.py`), what the person
saw and what an operation reads (`target_reads.py`), "done a moment ago" (`recent.py`), the
comparison with what was seen (`stale.py`), four eyes (`four_eyes.py`), the answer's judge
(`answer_status.py`), the journal's rooms (`journal_*.py`) and each operation (`ops/`, looked up
in the table; it imports none).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.actions.actor import default_agent, machine_name
from paytui.actions.answer_status import DECLINED, PENDING, UNKNOWN, judge
from paytui.actions.basis import (
    Basis,
    RefundSeen,
)
from paytui.actions.entry import AWAITING
from paytui.actions.errors import (
    ActionError,
    ActionInFlight,
    ActionRefused,
    ConfirmationRequired,
    EarlierAttemptApplied,
    JournalLost,
    NotRetryable,
    PrecheckFailed,
    RecentlyDone,
    TargetChanged,
    UnresolvedAction,
)
from paytui.actions.in_flight import InFlight
from paytui.actions.journal import Journal, JournalConflict, JournalEntry, JournalUnavailable
from paytui.actions.operation import Asked
from paytui.actions.operations import OPERATIONS
from paytui.actions.outcome import ActionOutcome
from paytui.actions.plan import Plan
from paytui.actions.policy import ActionPolicy, Decision
from paytui.actions.recent import check_recent, same_target
from paytui.actions.registry import refusal
from paytui.actions.settling import (
    prove,
    read_back,
    read_back_earlier,
    reconcile_all,
    reconcile_entry,
    sent_elsewhere,
    settle_earlier,
    sleep_until,
)
from paytui.actions.target_reads import (
    left_now,
    observe,
    read_authorization,
    read_charge,
    remaining_refundable,
)
from paytui.actions.who_did_what import (
    STOPPED_SENDER,
    being_sent,
    by_and_when,
    describe_done,
    describe_entry,
    earlier_message,
    not_retryable_reason,
    outcome_of,
    state_line,
    told,
    who_changed,
)
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

#: Seconds waited before the one more send after a 429 that did not say how long (Retry-After).
RATE_LIMIT_WAIT = 1.0
#: The longest such wait, when the client does not say its own budget (`max_wait`).
MAX_RATE_LIMIT_WAIT = 30.0
#: Seconds added to the client's request deadline before "not found" proves "not applied".
DEFAULT_SETTLE_MARGIN = 2.0
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
        self.slots: dict[tuple[str, str], InFlight] = {}
        #: Entries "not applied so far" whose retry the person gave the go-ahead for (`retry`).
        self.go_ahead: set[int] = set()
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
        slot = self.slots.get((operation, target))
        return slot is not None and not slot.task.done()

    def any_in_flight(self) -> bool:
        """True while any action runs (a profile switch must wait)."""
        return any(not slot.task.done() for slot in list(self.slots.values()))

    def settling(self, operation: str, target: str) -> tuple[JournalEntry, datetime] | None:
        """While `operation` on `target` waits to read back an earlier (or its own) attempt:
        that entry and when the read-back proves the outcome (for the dialog's countdown)."""
        slot = self.slots.get((operation, target))
        if slot is None or slot.task.done():
            return None
        return slot.settling

    def history(self, *, limit: int = 200, offset: int = 0) -> list[JournalEntry]:
        """Every action of this profile and service, newest first (the History screen)."""
        return self.journal.list(
            limit=limit, offset=offset, profile=self.profile, base_url=self.base_url
        )

    # ------------------------------------ asked of its rooms (reads, words, the past settled)

    async def observe(self, operation: str, target: str) -> Basis:
        """What the person is about to decide on, read (`target_reads.observe`)."""
        return await observe(self, operation, target)

    async def remaining_refundable(self, charge_id: str) -> Decimal:
        """What is left to refund of a charge (`target_reads.remaining_refundable`)."""
        return await remaining_refundable(self.client, charge_id)

    async def read_charge(self, charge_id: str) -> Charge | None:
        """The charge an operation's rule is asked of (`target_reads.read_charge`)."""
        return await read_charge(self, charge_id)

    async def read_authorization(self, charge_id: str) -> Charge:
        """The authorization to capture, or why not (`target_reads.read_authorization`)."""
        return await read_authorization(self, charge_id)

    async def who_changed(self, operation: str, target: str, after_id: int) -> str:
        """ "by the dashboard of ana@ws-3 4 s ago", else "outside paytui" (`who_did_what`)."""
        return await who_changed(self, operation, target, after_id)

    def by_and_when(self, entry: JournalEntry) -> str:
        """ "by the dashboard of ana@ws-3 4 s ago" (`who_did_what.by_and_when`)."""
        return by_and_when(self, entry)

    def describe_entry(self, entry: JournalEntry) -> str:
        """Another paytui's entry in one line (`who_did_what.describe_entry`)."""
        return describe_entry(self, entry)

    async def settle_earlier(self, operation: str, target: str) -> list[ActionOutcome]:
        """The command line's read-back of earlier attempts (`settling.read_back_earlier`)."""
        return await read_back_earlier(self, operation, target)

    async def reconcile_entry(self, entry_id: int) -> ActionOutcome:
        """ "Check again" of one entry (`settling.reconcile_entry`)."""
        return await reconcile_entry(self, entry_id)

    async def reconcile_all(self, *, wait: bool = False) -> list[JournalEntry]:
        """Start-up's settling of every unproven entry (`settling.reconcile_all`)."""
        return await reconcile_all(self, wait=wait)

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
            raise NotRetryable(not_retryable_reason(entry))
        retries = await asyncio.to_thread(self.journal.retries_of, entry_id)
        if retries:
            raise NotRetryable(f"Already retried as #{retries[-1].id}")
        # Done again since (a repeat, another retry) — or possibly: retrying this one too could
        # do it twice. (And for an edit, a later identical one would make its read-back lie.)
        for later in await asyncio.to_thread(self.journal.later_of, entry):
            if same_target(later, entry) and (
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
            await sleep_until(self, entry.settle_at(self.settle_seconds))
            # Found now, it is a success the person did not see happen: later presses of the
            # same action are told of it too (unacknowledged), not only this Retry.
            rechecked = await read_back(self, entry, background=True)
            if rechecked.entry.state != "not_applied":
                raise NotRetryable(not_retryable_reason(rechecked.entry, late=True))
            if not rechecked.entry.proven(self.settle_seconds):  # the read-back failed
                raise NotRetryable(
                    f"Could not check again whether it happened ({rechecked.error});"
                    " nothing was sent — try again when the service answers"
                )
        target, params = OPERATIONS[entry.operation].params_of(entry, original)
        if acknowledge_earlier == entry_id:
            self.go_ahead.add(entry_id)
        try:
            return await self.run(
                entry.operation, target, params, confirmation=confirmation, retry_of=entry.id
            )
        finally:
            self.go_ahead.discard(entry_id)

    async def aclose(self, timeout: float = 30.0) -> None:
        """Wait (up to `timeout`) for actions still running, so their outcomes are journaled."""
        tasks = [slot.task for slot in self.slots.values() if not slot.task.done()]
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
        current = self.slots.get(key)
        if current is not None and not current.task.done():
            raise ActionInFlight(operation, target, current.entry_id, current.task)
        slot = InFlight()
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
        self.slots[key] = slot

        def _done(task: asyncio.Task[ActionOutcome]) -> None:
            if self.slots.get(key) is slot:
                del self.slots[key]
            if not task.cancelled():
                task.exception()  # retrieved: a caller that went away must not cause a warning

        slot.task.add_done_callback(_done)
        return await asyncio.shield(slot.task)

    async def _execute(
        self,
        operation: str,
        target: str,
        prepare: Callable[[], Awaitable[Plan]],
        slot: InFlight,
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
        slot: InFlight,
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
            settled = await prove(self, current or entry, slot, desired=plan.desired)
            return outcome_of(settled, cause=message, window=self.late_window)
        return await self._answered(entry, plan, result, slot, stamped)

    async def _answered(
        self, entry: JournalEntry, plan: Plan, result: Any, slot: InFlight, stamped: datetime
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
            settled = await prove(self, current or entry, slot, desired=plan.desired)
            return outcome_of(settled, window=self.late_window)
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
        slot: InFlight,
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
        await settle_earlier(self, operation, target, slot, go.acknowledge, go.identity)
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
        await check_recent(self, plan, basis, current, again=go.again, acknowledged=go.acknowledge)
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
                        (describe_done(self, other),),
                        earlier=other,
                        left=await left_now(self.client, operation, target),
                    ) from None
                raise EarlierAttemptApplied(earlier_message(other), other) from None
            if go.depth == 0 and not await sent_elsewhere(self, other):
                # Unsettled, and its sender is gone: not "being sent right now" — read it back,
                # then decide again on what that shows (done: not twice; not done: go on).
                await prove(self, other, slot, background=True)
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
            raise being_sent(operation, other) from None
        return entry, plan

    async def _check_unchanged(self, basis: Basis, slot: InFlight) -> tuple[RefundSeen, ...]:
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

    def confirm(
        self, operation: str, amount: Decimal | None, charge_id: str | None, typed: str | None
    ) -> None:
        """The production typed confirmation, checked by an operation's `prepare`."""
        if not self.policy.confirmation_ok(operation, amount, charge_id, typed):
            raise ConfirmationRequired(self.policy.confirmation_phrase(amount, charge_id))

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
        said = message or state_line(entry, window=self.late_window)
        return told(entry, said, charge=charge, refund=refund, result=result)


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
