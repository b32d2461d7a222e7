"""Four eyes: a refund or capture above the profile's threshold (`approve_above`) is not sent on
one person's keypress; it becomes a request another agent approves or rejects.

A request is bound to what it asks: `binding`, a SHA-256 of the service, operation, charge,
amount and the view the requester decided on (`view`: the charge's status, refunds, capture,
chargebacks and tags as read, `Basis.to_view`). Approving checks the binding again (a request
whose amount was changed is void); sending checks the view against the service (anything changed
since the request → nothing is sent, the request is void and says what changed), and
the database itself refuses an approver who is the requester (a CHECK on both engines:
``decided_by <> requested_by``), whatever a client does. Each step — requested, approved or
rejected, sent — is a link of the trail. Approving is a compare-and-set from "waiting": of ten
agents approving at once, one wins, and only the winner's paytui sends it (once, through the
executor); the others are told who approved it. "sent" is set in the same transaction as the
action's intent (`EntriesRoom.record_intent`'s `approval`), from "approved" only: one intent per
approval, whatever crashes or races.

States::

    waiting ──> approved ──> sent
       │           └──────> void   (the charge changed since the request: nothing sent)
       ├──────> rejected           (final, names who rejected)
       └──────> void               (its binding no longer matches what it asks)
"""

from __future__ import annotations

import builtins
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from paytui.actions.entry import JournalEntry, parse_time, required_time
from paytui.actions.errors import ActionError
from paytui.actions.journal_store import SelfApproval
from paytui.actions.journal_trail import Room, iso

__all__ = [
    "APPROVAL_STATES",
    "Approval",
    "ApprovalRefused",
    "ApprovalRequired",
    "ApprovalsRoom",
    "binding",
    "claim_for_send",
    "describe_state",
]

APPROVAL_STATES = ("waiting", "approved", "rejected", "void", "sent")


def binding(
    base_url: str, operation: str, charge_id: str, amount: Decimal, view: str, summary: str
) -> str:
    """What an approval is bound to: the service, the operation, the charge, the amount, the
    request as the journal keeps it, and the view the requester decided on."""
    text = "\x1f".join((base_url, operation, charge_id, f"{amount:.2f}", summary, view))
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
    view: str
    request_summary: str
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
        return self.binding == binding(
            self.base_url,
            self.operation,
            self.charge_id,
            self.amount,
            self.view,
            self.request_summary,
        )

    def as_entry(self) -> JournalEntry:
        """The request as a journal entry of its operation would hold it, for the operation's
        `params_of` (the one way an entry gives its parameters back)."""
        return JournalEntry(
            id=0,
            client_reference="",
            profile=self.profile,
            base_url=self.base_url,
            operation=self.operation,
            charge_id=self.charge_id,
            amount=self.amount,
            request_summary=json.loads(self.request_summary),
            state="pending",
            result_id=None,
            error=None,
            retry_of=None,
            created_at=self.requested_at,
            sent_at=None,
            updated_at=self.requested_at,
            resolved_at=None,
        )

    def describe(self) -> str:
        """ "#3 refund 900.00 of ch_… asked by ana" (sanitised where shown)."""
        return (
            f"#{self.id} {self.operation} {self.amount:.2f} of {self.charge_id}"
            f" asked by {self.requested_by}"
        )

    @classmethod
    def _from_row(cls, row: Any) -> Approval:
        return cls(
            id=int(row["id"]),
            base_url=row["base_url"],
            profile=row["profile"],
            operation=row["operation"],
            charge_id=row["charge_id"],
            amount=Decimal(row["amount"]),
            view=row["view"],
            request_summary=row["request_summary"],
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


class ApprovalRefused(ActionError):
    """An approval, rejection or send that cannot be: one line for the person; nothing sent."""

    def __init__(self, message: str, approval: Approval | None = None) -> None:
        super().__init__(message)
        self.approval = approval


class ApprovalRequired(ActionError):
    """Four eyes: the action is above the profile's `approve_above`, so nothing was sent; it
    waits as `approval` (its id, operation, charge, amount) for another person to approve."""

    def __init__(self, approval: Approval, threshold: object) -> None:
        super().__init__(
            f"Nothing was sent: a {approval.operation} above {threshold} needs a second person."
            f" Request #{approval.id} ({approval.operation} {approval.amount:.2f} of"
            f" {approval.charge_id}) waits for another agent's approval:"
            f" `paytui approvals approve {approval.id}`"
        )
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
        view: str = "{}",
        request_summary: Mapping[str, Any] | None = None,
    ) -> Approval:
        """Write a request (a link of the trail); nothing is sent. `view`: what the requester
        decided on (`Basis.to_view`), checked against the service before it is sent. The same
        request while one waits (same service, operation, charge, amount and request) is that
        one: asking twice does not make two."""
        summary = json.dumps(request_summary or {}, sort_keys=True, default=str)
        with self._store.transaction(self._trail_key):
            # The same request again (a command run twice): the one already waiting is it.
            same = self._store.one(
                "SELECT * FROM approvals WHERE base_url = ? AND operation = ? AND charge_id = ?"
                " AND amount = ? AND request_summary = ? AND state = 'waiting'"
                " ORDER BY id LIMIT 1",
                (base_url, operation, charge_id, f"{amount:.2f}", summary),
            )
            if same is not None:
                return Approval._from_row(same)
            (row,) = self._store.rows(
                "INSERT INTO approvals (base_url, profile, operation, charge_id, amount, view,"
                " request_summary, binding, state, requested_by, requested_machine,"
                " requested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?, ?) RETURNING *",
                (
                    base_url,
                    profile,
                    operation,
                    charge_id,
                    f"{amount:.2f}",
                    view,
                    summary,
                    binding(base_url, operation, charge_id, amount, view, summary),
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
        try:
            return self._decide(approval_id, approve, agent, machine, reason)
        except SelfApproval as refused:
            raise ApprovalRefused(
                f"approval request #{approval_id} was asked by {agent}: another person approves"
                f" or rejects it (the journal refused it: {refused})"
            ) from None

    def _decide(
        self,
        approval_id: int,
        approve: bool,
        agent: str,
        machine: str | None,
        reason: str | None,
    ) -> Approval:
        voided: Approval | None = None
        with self._store.transaction(self._trail_key):
            current = self.approval(approval_id)
            if current is None:
                raise ApprovalRefused(f"no approval request #{approval_id}")
            if current.state != "waiting":
                raise ApprovalRefused(describe_state(current), current)
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
                    raise ApprovalRefused(describe_state(self.approval(approval_id) or current))
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
        compare-and-set from "approved"); a link of the trail ties the two. The executor does
        this inside the intent's own transaction (`claim_for_send`)."""
        with self._store.transaction(self._trail_key):
            rows = claim_for_send(self, approval_id, action_id)
        return bool(rows)

    def void_approval(self, approval_id: int, reason: str) -> Approval | None:
        """An approved request whose charge changed before it could be sent: void, with what
        changed (a link of the trail); nothing was sent. None when it was not "approved"."""
        with self._store.transaction(self._trail_key):
            rows = _from_approved(self, approval_id, "void", "reason", reason)
        return Approval._from_row(rows[0]) if rows else None


def claim_for_send(room: Room, approval_id: int, action_id: int) -> builtins.list[Any]:
    """In a transaction holding the trail key: "approved" → "sent" with the action's entry, a
    link of the trail; the row, or nothing when it was not "approved" (sent or voided since)."""
    return _from_approved(room, approval_id, "sent", "action_id", action_id)


def _from_approved(
    room: Room, approval_id: int, state: str, column: str, value: object
) -> builtins.list[Any]:
    """ "approved" → `state`, setting `column` (a compare-and-set, a link of the trail)."""
    rows = room._store.rows(
        f"UPDATE approvals SET state = ?, {column} = ? WHERE id = ?"
        " AND state = 'approved' RETURNING *",
        (state, value, approval_id),
    )
    if rows:
        room._append("approval", rows[0])
    return rows


def describe_state(approval: Approval) -> str:
    """Why a request cannot be decided (again): its state, by whom, and why."""
    decided = approval.decided_by and approval.state != "void"
    who = f" by {approval.decided_by}" if decided else ""
    line = f"approval request #{approval.id} is {approval.state}{who} already"
    if approval.state == "rejected":
        line += " (a rejection is final; nothing was sent)"
    elif approval.state == "sent" and approval.action_id is not None:
        line += f" (journal entry #{approval.action_id})"
    if approval.reason and approval.state in ("rejected", "void"):
        line += f": {approval.reason}"
    return line
