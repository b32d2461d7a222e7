"""Bulk actions (capture, full refund): a dry run, one confirmation, then each item exactly once.

A batch is not a new way to move money: every item goes through the one `ActionExecutor` (policy,
in-flight guard, settle the past, journal intent, one send, read-back) exactly as if the user had
pressed `c` or `r` on that charge — `ActionExecutor.run` with the operation's `bulk_params`, the
one verb its single action uses. An operation the table does not say how to do in bulk is refused
(`bulk_spec`), before anything is written or sent; no operation is ever sent as another. What
this module adds:

- `plan_batch` — the dry run: how many, the total, and which charges are skipped and why, in the
  words of the action registry (`paytui.actions.registry.why_not`, the rule behind the keys);
- the batch's own record (`paytui.actions.batch_log`), written before the first item is sent;
- `BatchRunner` — at most `concurrency` items at a time, cancellable between items (an item
  already sent is always seen to its end by the executor), a callback per finished item for the
  progress bar, and `resume` for what a crash or a cancel left: an item is acted on only when the
  journal shows no success or refusal for it since the batch began, and the executor itself reads
  back any attempt whose outcome is unknown before it would send (so never twice).

On a production profile the user types the batch's total once (`confirmation`): the runner checks
it with the policy's own rule and then confirms each item for the executor by its charge id.

No Textual: the UI (`paytui.ui.screens.modals.bulk`) only shows what this reports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from paytui.actions.amounts import format_amount
from paytui.actions.basis import Basis
from paytui.actions.batch_log import BatchItem, BatchLog, BatchRecord
from paytui.actions.errors import (
    ActionError,
    ActionInFlight,
    ActionRefused,
    ConfirmationRequired,
    EarlierAttemptApplied,
    NotAppliedSoFar,
    PrecheckFailed,
    TargetChanged,
    UnresolvedAction,
)
from paytui.actions.executor import ActionExecutor, ActionOutcome
from paytui.actions.journal import Journal
from paytui.actions.journal_store import first_line
from paytui.actions.operation import Operation
from paytui.actions.operations import OPERATIONS
from paytui.actions.policy import ActionPolicy
from paytui.actions.registry import note, why_not
from paytui.actions.who_did_what import describe_refunds


def still_open(record: BatchRecord, journal: Journal, base_url: str) -> list[BatchItem]:
    """The items of `record` not done yet by the journal's word: an item the batch log still
    calls open (a kill between the send and the log's write) whose charge has a success of the
    batch's operation since the batch began was done, and is not "left". Runs in a thread."""
    left: list[BatchItem] = []
    for item in record.open_items:
        entries = journal.entries_for(
            base_url=base_url,
            operation=record.operation,
            charge_id=item.charge_id,
            after_id=record.journal_mark,
        )
        if not any(entry.state == "succeeded" for entry in entries):
            left.append(item)
    return left


__all__ = [
    "BULK_OPERATIONS",
    "CONCURRENCY",
    "BatchPlan",
    "BatchRunner",
    "BatchSummary",
    "Noted",
    "Skipped",
    "bulk_spec",
    "observe_plan",
    "plan_batch",
    "still_open",
    "summarise",
]

#: The actions that may be done in bulk, and their labels (`Operation.bulk_label`).
BULK_OPERATIONS: dict[str, str] = {
    name: spec.bulk_label
    for name, spec in OPERATIONS.items()
    if spec.bulk_label and spec.bulk_params is not None
}


def bulk_spec(operation: str) -> Operation:
    """The description of `operation` when it may be done in bulk (`Operation.bulk_params`: with
    what one marked charge is done); `ActionError` for any other, before anything is written or
    sent."""
    spec = OPERATIONS.get(operation)
    if spec is None or spec.bulk_params is None or spec.bulk_label is None:
        raise ActionError(f"{operation!r} cannot be done in bulk; nothing was sent")
    return spec


#: Items sent at the same time: enough to finish 200 in seconds, few enough to stay polite.
CONCURRENCY = 4


@dataclass(frozen=True)
class Skipped:
    """A marked charge the batch will not act on, and the registry's reason."""

    charge_id: str
    reason: str


@dataclass(frozen=True)
class Noted:
    """A charge the batch acts on, with what the registry says beside the action (a status
    paytui does not know: "the service will decide")."""

    charge_id: str
    note: str


@dataclass(frozen=True)
class BatchPlan:
    """The dry run: the charges to act on (id, amount) and the ones skipped.

    From the rows alone (`plan_batch`) a full refund's amount is the charge's amount, an upper
    bound. Once read (`observe_plan`) it is what is left to refund, and `bases` holds what was
    read of each item: the decision the person confirms, each item sent only if unchanged since.
    """

    operation: str
    items: tuple[tuple[str, Decimal | None], ...]
    skipped: tuple[Skipped, ...] = ()
    bases: Mapping[str, Basis] = field(default_factory=dict, compare=False)
    #: Items acted on with the registry's note (`registry.note`), said in the dry run.
    notes: tuple[Noted, ...] = ()

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def total(self) -> Decimal:
        return sum((amount for _, amount in self.items if amount is not None), Decimal(0))

    @property
    def label(self) -> str:
        return bulk_spec(self.operation).bulk_label or self.operation

    def needs_confirmation(self, policy: ActionPolicy) -> bool:
        """Must the user type the total? (Production, above the threshold; an amount not
        known counts as above it: when unsure, ask.)"""
        return _needs_confirmation(policy, self.operation, [a for _, a in self.items])


def _needs_confirmation(
    policy: ActionPolicy, operation: str, amounts: list[Decimal | None]
) -> bool:
    total = sum((a for a in amounts if a is not None), Decimal(0))
    unsure = any(a is None for a in amounts)
    return policy.needs_typed_confirmation(operation, None if unsure else total)


def plan_batch(operation: str, charges: Iterable[Any]) -> BatchPlan:
    """The dry run of `operation` on `charges` (each asked once, in order, by the registry)."""
    try:
        bulk_spec(operation)
    except ActionError as err:
        raise ValueError(err.message) from None
    charges = list(charges)  # asked twice: the rule, then the note
    items: list[tuple[str, Decimal | None]] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for charge in charges:
        charge_id = str(getattr(charge, "charge_id", "") or "")
        if not charge_id or charge_id in seen:
            continue
        seen.add(charge_id)
        reason = why_not(operation, charge)
        if reason is not None:
            skipped.append(Skipped(charge_id, reason))
        else:
            items.append((charge_id, getattr(charge, "total_amount", None)))
    return BatchPlan(operation, tuple(items), tuple(skipped), notes=_notes(operation, charges))


def _notes(operation: str, charges: Iterable[Any]) -> tuple[Noted, ...]:
    """What the registry says beside `operation` on each charge it applies to (once each)."""
    found: dict[str, Noted] = {}
    for charge in charges:
        said = note(operation, charge)
        charge_id = str(getattr(charge, "charge_id", "") or "")
        if said is not None and charge_id and charge_id not in found:
            found[charge_id] = Noted(charge_id, said)
    return tuple(found.values())


async def observe_plan(
    executor: ActionExecutor,
    plan: BatchPlan,
    *,
    on_read: Callable[[], None] | None = None,
) -> BatchPlan:
    """Read every item of the dry run now, as a single action's dialog reads its charge when it
    opens (`ActionExecutor.observe`), at most `CONCURRENCY` at a time; `on_read` after each.

    The dry run the person confirms then shows what is true now, and each item is later sent
    only if nothing changed since (else `TargetChanged`: nothing sent, and who changed it). A
    full refund's amount becomes what is left; an item with nothing left to refund (and who
    refunded it), an authorization captured meanwhile, or a charge that cannot be read is
    skipped, with why: nothing is decided on a guess."""
    gate = asyncio.Semaphore(CONCURRENCY)

    async def read(charge_id: str) -> Basis | str:
        async with gate:
            try:
                return await executor.observe(plan.operation, charge_id)
            except PrecheckFailed as err:
                return err.message
            except Exception as err:  # the service or the journal could not say: skip it
                return f"could not be read ({first_line(err)}); nothing decided on a guess"
            finally:
                if on_read is not None:
                    on_read()

    read_now = await asyncio.gather(*(read(charge_id) for charge_id, _ in plan.items))
    items: list[tuple[str, Decimal | None]] = []
    skipped = list(plan.skipped)
    bases: dict[str, Basis] = {}
    for (charge_id, listed), basis in zip(plan.items, read_now, strict=True):
        if isinstance(basis, str):
            skipped.append(Skipped(charge_id, basis))
            continue
        if basis.left is not None and basis.left <= 0:
            who = await describe_refunds(executor, basis.refunds, charge_id)
            skipped.append(Skipped(charge_id, "; ".join(["nothing left to refund", *who])))
            continue
        items.append((charge_id, basis.left if basis.left is not None else listed))
        bases[charge_id] = basis
    now = [basis.charge for basis in bases.values() if basis.charge is not None]
    return BatchPlan(
        plan.operation, tuple(items), tuple(skipped), bases, notes=_notes(plan.operation, now)
    )


@dataclass(frozen=True)
class BatchSummary:
    """What a batch did, for the closing line: counts by outcome and the money moved."""

    succeeded: int
    failed: int
    skipped: int
    unknown: int
    not_started: int
    amount_done: Decimal

    def line(self, label: str) -> str:
        parts = [f"{label}: {self.succeeded} done ({format_amount(self.amount_done)})"]
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        if self.unknown:
            parts.append(f"{self.unknown} unknown (see History)")
        if self.not_started:
            parts.append(f"{self.not_started} not started")
        return ", ".join(parts)


def summarise(record: BatchRecord) -> BatchSummary:
    done = [item for item in record.items if item.state == "succeeded"]
    return BatchSummary(
        succeeded=len(done),
        failed=record.count("failed") + record.count("not_applied"),
        skipped=record.count("skipped"),
        unknown=record.count("unknown"),
        not_started=len(record.open_items),
        amount_done=sum((item.amount or Decimal(0) for item in done), Decimal(0)),
    )


class BatchRunner:
    """Runs a batch (or the rest of one) through `executor`, recording it in `log`.

    `on_item` is called with each item as it finishes (from the event loop), for the progress bar.
    """

    def __init__(
        self,
        executor: ActionExecutor,
        log: BatchLog,
        *,
        concurrency: int = CONCURRENCY,
        on_item: Callable[[BatchItem], None] | None = None,
    ) -> None:
        self.executor = executor
        self.log = log
        self.concurrency = max(1, concurrency)
        self.on_item = on_item
        self._cancelled = False
        #: What the dry run read of each item (`BatchPlan.bases`): sent only if unchanged since.
        self._bases: Mapping[str, Basis] = {}
        #: Items the dry run skipped (`observe_plan`), with why: a resume sends none of them.
        self._skipped: dict[str, str] = {}

    def cancel(self) -> None:
        """Start no further item; the ones already sent finish and are recorded."""
        self._cancelled = True

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    # --- starting and resuming -------------------------------------------------------------
    def _check(self, operation: str, amounts: Iterable[Decimal | None], typed: str | None) -> None:
        """The policy (scopes, read-only) and, on production, the typed total — before anything
        is written or sent. Raises `ActionError` (not an operation done in bulk),
        `ActionRefused` / `ConfirmationRequired`."""
        bulk_spec(operation)
        decision = self.executor.check(operation)
        if not decision.allowed:
            raise ActionRefused(decision)
        listed = list(amounts)
        total = sum((a for a in listed if a is not None), Decimal(0))
        policy = self.executor.policy
        if _needs_confirmation(policy, operation, listed) and not policy.confirmation_matches(
            typed, total, None
        ):
            raise ConfirmationRequired(format_amount(total))

    async def start(self, plan: BatchPlan, *, confirmation: str | None = None) -> BatchRecord:
        """Record the batch (every item, durably) and run it."""
        if not plan.items:
            raise ActionError("Nothing to do: every marked charge is skipped")
        self._check(plan.operation, (a for _, a in plan.items), confirmation)
        self._bases = plan.bases
        journal = self.executor.journal
        mark = await asyncio.to_thread(journal.last_id)
        record = await asyncio.to_thread(
            lambda: self.log.create(
                profile=self.executor.profile,
                base_url=self.executor.base_url,
                operation=plan.operation,
                journal_mark=mark,
                items=list(plan.items),
                now=self.executor.clock(),
            )
        )
        return await self._run(record)

    async def resume(
        self,
        batch_id: int,
        *,
        confirmation: str | None = None,
        observed: BatchPlan | None = None,
    ) -> BatchRecord:
        """Run what a crash, a kill or a cancel left of batch `batch_id` (never twice).

        `observed`: the resume's own dry run as read (`observe_plan`): each item is sent only if
        unchanged since, and an item it skipped (nothing left, captured meanwhile, unreadable)
        is recorded as skipped, with why, and not sent."""
        if observed is not None:
            self._bases = observed.bases
            self._skipped = {skip.charge_id: skip.reason for skip in observed.skipped}
        record = await asyncio.to_thread(self.log.get, batch_id)
        if record is None or (record.profile, record.base_url) != (
            self.executor.profile,
            self.executor.base_url,
        ):
            raise ActionError(f"No batch #{batch_id} for this profile")
        self._check(record.operation, (item.amount for item in record.open_items), confirmation)
        await asyncio.to_thread(self.log.set_state, record.id, "running", self.executor.clock())
        return await self._run(record)

    # --- the run ---------------------------------------------------------------------------
    async def _run(self, record: BatchRecord) -> BatchRecord:
        queue: asyncio.Queue[BatchItem] = asyncio.Queue()
        for item in record.open_items:
            queue.put_nowait(item)

        async def worker() -> None:
            while not self._cancelled:
                try:
                    item = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                finished = await self._one(record, item)
                if self.on_item is not None:
                    self.on_item(finished)

        workers = min(self.concurrency, max(1, queue.qsize()))
        await asyncio.gather(*(worker() for _ in range(workers)))
        state = "cancelled" if self._cancelled and not queue.empty() else "finished"
        await asyncio.to_thread(self.log.set_state, record.id, state, self.executor.clock())
        final = await asyncio.to_thread(self.log.get, record.id)
        assert final is not None
        return final

    async def _write(self, record: BatchRecord, item: BatchItem) -> BatchItem:
        await asyncio.to_thread(self.log.set_item, record.id, item)
        return item

    async def _one(self, record: BatchRecord, item: BatchItem) -> BatchItem:
        """Act on one item, unless the journal shows it was done (or refused) since the batch
        began; the executor reads back any attempt of unknown outcome before it would send."""
        executor = self.executor
        entries = await asyncio.to_thread(
            executor.journal.entries_for,
            profile=executor.profile,
            base_url=executor.base_url,
            operation=record.operation,
            charge_id=item.charge_id,
            after_id=record.journal_mark,
        )
        for entry in reversed(entries):
            if entry.state == "succeeded":
                if entry.unacknowledged:
                    await asyncio.to_thread(executor.journal.acknowledge, entry.id)
                return await self._write(
                    record,
                    replace(
                        item,
                        state="succeeded",
                        entry_id=entry.id,
                        result_id=entry.result_id,
                        message="Done before (found in the journal); nothing new was sent",
                    ),
                )
            if entry.state == "failed" and not entry.never_sent:
                return await self._write(
                    record,
                    replace(item, state="failed", entry_id=entry.id, message=entry.error),
                )
        if item.charge_id in self._skipped:
            reason = self._skipped[item.charge_id]
            return await self._write(record, replace(item, state="skipped", message=reason))
        await self._write(record, replace(item, state="running", message=None))
        # The total was typed and checked (`_check`); each item is confirmed by its charge id.
        confirmation = item.charge_id[-4:]
        try:
            basis = self._bases.get(item.charge_id)
            # The one verb, as the single action runs it, with one marked charge's parameters.
            spec = bulk_spec(record.operation)
            outcome = await executor.run(
                spec.name, item.charge_id, spec.bulk_params, confirmation=confirmation, basis=basis
            )
        except NotAppliedSoFar as err:
            # Not found so far, and it may still land: nothing was sent, nothing is proven done
            # (never "succeeded", never acknowledged); History and `history check` follow it.
            return await self._write(
                record,
                replace(item, state="unknown", entry_id=err.entry.id, message=err.message),
            )
        except EarlierAttemptApplied as err:
            await asyncio.to_thread(executor.journal.acknowledge, err.entry.id)
            done = replace(
                item,
                state="succeeded",
                entry_id=err.entry.id,
                result_id=err.entry.result_id,
                message="An earlier attempt went through; nothing new was sent",
            )
            return await self._write(record, done)
        except UnresolvedAction as err:
            return await self._write(
                record, replace(item, state="unknown", entry_id=err.entry_id, message=err.message)
            )
        except (PrecheckFailed, ActionInFlight, TargetChanged) as err:
            return await self._write(record, replace(item, state="skipped", message=err.message))
        except ActionError as err:  # refused by the policy, a bad amount: nothing was sent
            return await self._write(record, replace(item, state="failed", message=err.message))
        except Exception as err:  # a bug after the request may have left: never guess "no"
            message = f"{type(err).__name__}: {err}; check History before acting again"
            return await self._write(record, replace(item, state="unknown", message=message))
        return await self._write(record, _from_outcome(item, outcome))


def _from_outcome(item: BatchItem, outcome: ActionOutcome) -> BatchItem:
    amount = item.amount
    if outcome.refund is not None and outcome.refund.total_amount is not None:
        amount = outcome.refund.total_amount
    return replace(
        item,
        state=outcome.state,
        amount=amount,
        entry_id=outcome.entry_id,
        result_id=outcome.result_id,
        message=outcome.message,
    )
