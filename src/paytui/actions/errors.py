"""Why an action did not start: the exceptions of `paytui.actions`.

The contract with the UI is simple: an action method either raises an `ActionError` — nothing was
sent, and ``str(err)`` is a one-line message for the user — or returns an `ActionOutcome`
(something was attempted and is in the journal). `paytui.api.errors.ApiError` never escapes an
action method: a failure of the request itself is an outcome, not an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

    from paytui.actions.entry import JournalEntry
    from paytui.actions.outcome import ActionOutcome


@dataclass(frozen=True)
class Decision:
    """The answer to "may I?": `reason` is a sentence for the user when not allowed."""

    allowed: bool
    reason: str | None = None
    missing_scope: str | None = None


class ActionError(Exception):
    """Base: the action was not sent. `message` is user-facing."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class ActionRefused(ActionError):
    """The policy refused (read-only profile, missing scope, unknown action)."""

    def __init__(self, decision: Decision) -> None:
        super().__init__(decision.reason or "Not allowed")
        self.decision = decision


class ConfirmationRequired(ActionError):
    """A production money action above the threshold needs the typed confirmation `phrase`."""

    def __init__(self, phrase: str) -> None:
        super().__init__(f"Type {phrase} to confirm")
        self.phrase = phrase


class ActionInFlight(ActionError):
    """The same action on the same charge is still running; this call sent nothing.

    `wait()` joins the running action (its outcome), for a caller that wants the answer anyway.
    """

    def __init__(
        self, operation: str, target: str, entry_id: int | None, task: asyncio.Future[ActionOutcome]
    ) -> None:
        super().__init__(f"A {operation.replace('_', ' ')} of {target} is already in progress")
        self.operation = operation
        self.target = target
        self.entry_id = entry_id
        self._task = task

    async def wait(self) -> ActionOutcome:
        import asyncio  # here: the journal's readers (`paytui history`) run without a loop

        return await asyncio.shield(self._task)


class PrecheckFailed(ActionError):
    """The target's current state forbids the action (a pre-authorization, already captured...).

    `result_id` carries the existing result when there is one (the capture that already exists).
    """

    def __init__(self, message: str, result_id: str | None = None) -> None:
        super().__init__(message)
        self.result_id = result_id


class UnresolvedAction(ActionError):
    """An earlier attempt of the same action still has an unknown outcome: settle it first."""

    def __init__(self, message: str, entry_id: int) -> None:
        super().__init__(message)
        self.entry_id = entry_id


class EarlierAttemptApplied(ActionError):
    """An earlier attempt of the same action on the same charge, whose outcome was not known,
    turned out to have happened: nothing new was sent. `entry` is that journal entry; sending
    another needs the user's explicit go-ahead (``acknowledge_earlier=entry.id``)."""

    def __init__(self, message: str, entry: JournalEntry) -> None:
        super().__init__(message)
        self.entry = entry


class NotAppliedSoFar(EarlierAttemptApplied):
    """An earlier attempt of the same action on the same target was read back as "not applied"
    but is still within its late-commit window: read again now, it is still not there — and may
    yet land. Nothing new was sent; another one needs the user's explicit go-ahead naming it
    (``acknowledge_earlier=entry.id``), as for an earlier attempt found done. `lead` is the
    sentence without its last clause (how to send another), which `with_then` adds."""

    def __init__(self, lead: str, entry: JournalEntry, then: str = "confirm to send another"):
        self.lead = lead
        super().__init__(self.with_then(then), entry)

    def with_then(self, then: str) -> str:
        return f"{self.lead} Nothing new was sent; {then}."


class TargetChanged(ActionError):
    """The charge changed since the person (or the command) looked at it: another refund, a
    capture, a new status — by anyone, in any process. Nothing was sent. `changes` says what
    changed, by whom and when, one sentence each; `earlier` is the journal entry behind it when
    it was done through paytui; `left` what is left to refund now (refunds). To act anyway, the
    person reviews the new state (a new `Basis`) and confirms again."""

    def __init__(
        self,
        changes: tuple[str, ...],
        *,
        earlier: JournalEntry | None = None,
        left: object = None,
    ) -> None:
        lead = "Nothing was sent: the charge changed since it was read"
        super().__init__(f"{lead} — {'; '.join(changes)}. Review it again.")
        self.changes = changes
        self.earlier = earlier
        self.left = left


class RecentlyDone(ActionError):
    """The same action with the same amount on the same target succeeded recently (by anyone,
    from any process): nothing was sent. `earlier` names it (a refund id, a token id, or a
    journal entry "#12"); `entry` is its journal entry when there is one. Another one needs an
    explicit, distinct confirmation: ``again=True`` (the dialog's "… again" step, the command
    line's ``--again``)."""

    def __init__(self, message: str, earlier: str, entry: JournalEntry | None = None) -> None:
        super().__init__(message)
        self.earlier = earlier
        self.entry = entry


class JournalLost(ActionError):
    """The request left, but the journal could not record what came of it (the database went
    away mid-action). Nothing more is sent; the entry stays "sent" and is read back from the
    service once the journal answers again, as after a crash. `entry_id`: that entry."""

    def __init__(self, message: str, entry_id: int | None = None) -> None:
        super().__init__(message)
        self.entry_id = entry_id


class NotRetryable(ActionError):
    """`retry` refused: the entry is not proven "did not happen", or was already retried."""


__all__ = [
    "ActionError",
    "ActionInFlight",
    "ActionRefused",
    "ConfirmationRequired",
    "EarlierAttemptApplied",
    "JournalLost",
    "NotAppliedSoFar",
    "NotRetryable",
    "PrecheckFailed",
    "RecentlyDone",
    "TargetChanged",
    "UnresolvedAction",
]
