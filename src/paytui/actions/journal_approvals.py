"""Four eyes: a refund or capture above the profile's threshold (`approve_above`) is not sent on
one person's keypress; it becomes a request another agent approves or rejects.

A request is bound to what it asks: `binding`, a SHA-256 of the service, operation, charge and
amount. Approving checks the binding again (a request whose amount was changed is void), and
the database itself refuses an approver who is the requester (a CHECK on both engines:
``decided_by <> requested_by``), whatever a client does. Each step — requested, approved or
rejected, sent — is a link of the trail. Approving is a compare-and-set from "waiting": of ten
agents approving at once, one wins, and only the winner's paytui sends it (once, through the
executor); the others are told who approved it.

States::

    waiting ──> approved ──> sent
       ├──────> rejected
       └──────> void        (its binding no longer matches what it asks)
"""

from __future__ import annotations

import builtins
import hashlib
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from paytui.actions.entry import parse_time, required_time
from paytui.actions.journal_trail import Room, iso

__all__ = [
    "APPROVAL_STATES",
    "Approval",
    "ApprovalRefused",
    "ApprovalsRoom",
    "binding",
]

APPROVAL_STATES = ("waiting", "approved", "rejected", "void", "sent")


def binding(base_url: str, operation: str, charge_id: str, amount: Decimal) -> str:
    """What an approval is bound to: the service, the operation, the charge and the amount."""
    text = "\x1f".join((base_url, operation, charge_id, f"{amount:.2f}"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Approval:
    """A request for a second person's approval, and what became of it."""

    id: int
    base_url: str
    profile: str
    operation: str
    charge_id: str
    amount: Decimal
    binding: str
    state: str
    requested_by: str
    requested_machine: str | None
    requested_at: datetime
    decided_by: str | None
    decided_at: datetime | None
    reason: str | None
    action_id: int | None

    @property
    def bound(self) -> bool:
        """Does it still ask exactly what was bound (nobody changed its amount since)?"""
        return self.binding == binding(self.base_url, self.operation, self.charge_id, self.amount)

    @classmethod
    def _from_row(cls, row: Any) -> Approval:
        return cls(
            id=int(row["id"]),
            base_url=row["base_url"],
            profile=row["profile"],
            operation=row["operation"],
            charge_id=row["charge_id"],
            amount=Decimal(row["amount"]),
            binding=row["binding"],
            state=row["state"],
            requested_by=row["requested_by"],
            requested_machine=row["requested_machine"],
            requested_at=required_time(row["requested_at"]),
            decided_by=row["decided_by"],
            decided_at=parse_time(row["decided_at"]),
            reason=row["reason"],
            action_id=row["action_id"],
        )


class ApprovalRefused(Exception):
    """An approval, rejection or send that cannot be: one line for the person."""

    def __init__(self, message: str, approval: Approval | None = None) -> None:
        super().__init__(message)
        self.approval = approval


class ApprovalsRoom(Room):
    """Requests for a second person's approval: made, listed, decided, sent."""

    def request_approval(
        self,
        *,
        profile: str,
        base_url: str,
        operation: str,
        charge_id: str,
        amount: Decimal,
        agent: str,
        machine: str | None,
    ) -> Approval:
        """Write a request (a link of the trail); nothing is sent."""
        with self._store.transaction(self._trail_key):
            (row,) = self._store.rows(
                "INSERT INTO approvals (base_url, profile, operation, charge_id, amount,"
                " binding, state, requested_by, requested_machine, requested_at)"
                " VALUES (?, ?, ?, ?, ?, ?, 'waiting', ?, ?, ?) RETURNING *",
                (
                    base_url,
                    profile,
                    operation,
                    charge_id,
                    f"{amount:.2f}",
                    binding(base_url, operation, charge_id, amount),
                    agent,
                    machine,
                    iso(self._clock()),
                ),
            )
            self._append("approval", row)
        return Approval._from_row(row)

    def approval(self, approval_id: int) -> Approval | None:
        row = self._store.one("SELECT * FROM approvals WHERE id = ?", (approval_id,))
        return Approval._from_row(row) if row else None

    def approvals(
        self, *, base_url: str | None = None, states: tuple[str, ...] = ("waiting",)
    ) -> builtins.list[Approval]:
        """Requests in `states` (of one service, if given), oldest first."""
        marks = ", ".join("?" for _ in states)
        sql = f"SELECT * FROM approvals WHERE state IN ({marks})"
        params: builtins.list[Any] = list(states)
        if base_url is not None:
            sql += " AND base_url = ?"
            params.append(base_url)
        return [Approval._from_row(r) for r in self._store.rows(sql + " ORDER BY id", params)]

    def decide(
        self,
        approval_id: int,
        *,
        approve: bool,
        agent: str,
        machine: str | None,
        reason: str | None = None,
    ) -> Approval:
        """Approve (or reject) a waiting request, as `agent`: a compare-and-set from "waiting",
        so of many deciding at once one wins; `ApprovalRefused` for the others (naming who
        decided), for a request that changed since it was made (made void), and for the
        requester themselves (the database refuses it)."""
        voided: Approval | None = None
        with self._store.transaction(self._trail_key):
            current = self.approval(approval_id)
            if current is None:
                raise ApprovalRefused(f"no approval request #{approval_id}")
            if current.state != "waiting":
                raise ApprovalRefused(_decided(current), current)
            if not current.bound:
                # Made void in this transaction, said after it commits (a raise would undo it).
                rows = self._store.rows(
                    "UPDATE approvals SET state = 'void', decided_at = ? WHERE id = ?"
                    " AND state = 'waiting' RETURNING *",
                    (iso(self._clock()), approval_id),
                )
                if rows:
                    self._append("approval", rows[0])
                voided = Approval._from_row(rows[0]) if rows else current
            else:
                rows = self._store.rows(
                    "UPDATE approvals SET state = ?, decided_by = ?, decided_machine = ?,"
                    " decided_at = ?, reason = ? WHERE id = ? AND state = 'waiting'"
                    " RETURNING *",
                    (
                        "approved" if approve else "rejected",
                        agent,
                        machine,
                        iso(self._clock()),
                        reason,
                        approval_id,
                    ),
                )
                if not rows:  # decided since it was read (the trail key makes this moot)
                    raise ApprovalRefused(_decided(self.approval(approval_id) or current))
                self._append("approval", rows[0])
        if voided is not None:
            raise ApprovalRefused(
                f"approval request #{approval_id} no longer asks what was requested (its"
                " amount or charge changed): it is void; nothing was sent",
                voided,
            )
        return Approval._from_row(rows[0])

    def mark_sent(self, approval_id: int, action_id: int) -> bool:
        """The approved request was handed to the executor as entry `action_id` (once: a
        compare-and-set from "approved"); a link of the trail ties the two."""
        with self._store.transaction(self._trail_key):
            rows = self._store.rows(
                "UPDATE approvals SET state = 'sent', action_id = ? WHERE id = ?"
                " AND state = 'approved' RETURNING *",
                (action_id, approval_id),
            )
            if rows:
                self._append("approval", rows[0])
        return bool(rows)


def _decided(approval: Approval) -> str:
    who = f" by {approval.decided_by}" if approval.decided_by else ""
    return f"approval request #{approval.id} is {approval.state}{who} already"
