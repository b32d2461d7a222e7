"""One journal entry as read (`JournalEntry`) and the states an action moves through.

Kept apart from the journal (the SQLite store) so the operations' modules can name an entry
without importing the store, which itself reads the table of operations.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Literal

__all__ = [
    "AWAITING",
    "FINAL_STATES",
    "LATE_NOTE",
    "STATES",
    "UNRESOLVED_STATES",
    "JournalEntry",
    "State",
    "parse_time",
    "required_time",
]

State = Literal[
    "pending", "sent", "succeeded", "failed", "unknown", "not_applied", "awaiting_service"
]

STATES: tuple[str, ...] = (
    "pending",
    "sent",
    "succeeded",
    "failed",
    "unknown",
    "not_applied",
    "awaiting_service",
)
#: The service answered that it accepted the action and has not finished it (``pending``, a
#: 202: `paytui.actions.answer_status`). Not to be confused with "pending", which is paytui's
#: own: the intent is written and the request not sent yet.
AWAITING = "awaiting_service"
#: The note of a "not_applied" that a later look found applied after all ("succeeded (late)").
LATE_NOTE = "Applied late"
#: Entries whose outcome is not proven: reconciled on start and before a repeat of the action.
UNRESOLVED_STATES = frozenset({"pending", "sent", "unknown", AWAITING})
FINAL_STATES = frozenset({"succeeded", "failed", "not_applied"})


def parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    return required_time(value)


def required_time(value: str) -> datetime:
    """A timestamp column that is never NULL (created_at, updated_at)."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass(frozen=True)
class JournalEntry:
    """One action as recorded. `amount` None means "not known yet" (a full refund before its
    answer, a capture whose authorization amount was not read)."""

    id: int
    client_reference: str
    profile: str
    base_url: str
    operation: str
    charge_id: str | None
    amount: Decimal | None
    request_summary: dict[str, Any]
    state: str
    result_id: str | None
    error: str | None
    retry_of: int | None
    created_at: datetime
    sent_at: datetime | None
    updated_at: datetime
    resolved_at: datetime | None
    settle_seconds: float | None = None
    checked_at: datetime | None = None
    never_sent: bool = False
    unacknowledged: bool = False
    client_id: str | None = None
    #: Who acted, in words for another person: "the command line of ana@desk-3" (None: unknown,
    #: a journal of an older paytui).
    actor: str | None = None
    #: The process that sends it, "host:pid" (None: a journal of an older paytui). Another
    #: process leaves an entry it finds "sent" by a live sender to that sender.
    owner: str | None = None
    #: The person on the journal ("support-07", or login@host) and the machine they acted from
    #: (None: a journal of an older paytui).
    agent: str | None = None
    machine: str | None = None

    @property
    def unresolved(self) -> bool:
        return self.state in UNRESOLVED_STATES

    @property
    def late(self) -> bool:
        """Proven "not applied" at first, and found applied by a later look: "succeeded (late)"."""
        return self.state == "succeeded" and (self.error or "").startswith(LATE_NOTE)

    def open_until(self, settle_seconds: float, window: timedelta) -> datetime | None:
        """Until when a proven "not_applied" is only "not applied *so far*": `window` after it
        was sent, a commit the service held may still land (None: not such an entry)."""
        if self.state != "not_applied" or self.sent_at is None:
            return None
        if not self.proven(settle_seconds):
            return None
        return self.sent_at + window

    @property
    def retryable(self) -> bool:
        """Only "did not happen" may be tried again: a "not_applied" (re-proven before the
        retry) or a failure where the request never left. A refusal (4xx) is final."""
        return self.state == "not_applied" or (self.state == "failed" and self.never_sent)

    def settle_at(self, default_seconds: float) -> datetime | None:
        """When a commit still in flight would be visible: `sent_at` + the settle time (this
        entry's, else `default_seconds`). None when the request never left (nothing to wait)."""
        if self.sent_at is None:
            return None
        seconds = self.settle_seconds if self.settle_seconds is not None else default_seconds
        return self.sent_at + timedelta(seconds=seconds)

    def proven(self, default_seconds: float) -> bool:
        """Is the verdict proven? succeeded / failed are answers; "not_applied" only when its
        read-back was made after `settle_at` (or the request never left)."""
        if self.state in {"succeeded", "failed"}:
            return True
        if self.state != "not_applied":
            return False
        settle = self.settle_at(default_seconds)
        if settle is None:
            return True
        return self.checked_at is not None and self.checked_at >= settle

    @classmethod
    def _from_row(cls, row: Mapping[str, Any]) -> JournalEntry:
        return cls(
            id=row["id"],
            client_reference=row["client_reference"],
            profile=row["profile"],
            base_url=row["base_url"],
            operation=row["operation"],
            charge_id=row["charge_id"],
            amount=Decimal(row["amount"]) if row["amount"] is not None else None,
            request_summary=json.loads(row["request_summary"]),
            state=row["state"],
            result_id=row["result_id"],
            error=row["error"],
            retry_of=row["retry_of"],
            created_at=required_time(row["created_at"]),
            sent_at=parse_time(row["sent_at"]),
            updated_at=required_time(row["updated_at"]),
            resolved_at=parse_time(row["resolved_at"]),
            settle_seconds=row["settle_seconds"],
            checked_at=parse_time(row["checked_at"]),
            never_sent=bool(row["never_sent"]),
            unacknowledged=bool(row["unacknowledged"]),
            client_id=row["client_id"],
            actor=row["actor"],
            owner=row["owner"],
            agent=row["agent"],
            machine=row["machine"],
        )
