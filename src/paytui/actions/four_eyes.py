"""Four eyes above a threshold: the step of the executor's pipeline that turns a large refund or
capture into a request for a second person, and the way an approved request is sent.

- **The gate** (`gate`, called once from `ActionExecutor._intend`, after every other check and
  before the intent is written): an operation marked `four_eyes` (refund, capture) whose amount
  is above the profile's `approve_above` (`PAYTUI_APPROVE_ABOVE`) is not sent. A request is
  written to the journal instead (`Journal.request_approval`), bound to the operation, the
  charge, the amount, the request as the journal would keep it and the view the requester
  decided on (`Basis.to_view`); `ApprovalRequired` names its id. Nothing is written to the
  actions and nothing leaves.
- **Approving** (`approve`): another person's compare-and-set from "waiting" (the database
  refuses the requester: `approver_is_not_requester`), then `send_approved`.
- **Sending** (`send_approved`): only the approver's paytui, only an "approved" request whose
  binding still holds, through the one verb (`ActionExecutor.run`) with the requester's view as
  the basis: anything that changed since the request (a refund by anyone, a chargeback, a tag)
  stops it like any stale view, and the request becomes void with what changed. The gate then
  checks that what is about to be sent is exactly what was approved (operation, charge, amount,
  request), and the intent's own transaction moves the request to "sent" (once: of two sends of
  one approval, the second writes nothing).
- **Rejecting** (`reject`): final, with who rejected it and why.
"""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from paytui.actions.basis import Basis
from paytui.actions.errors import PrecheckFailed, TargetChanged
from paytui.actions.journal_approvals import (
    Approval,
    ApprovalRefused,
    ApprovalRequired,
    describe_state,
)
from paytui.actions.operations import OPERATIONS
from paytui.api.money import format_amount

if TYPE_CHECKING:
    from paytui.actions.journal import Journal
    from paytui.actions.outcome import ActionOutcome
    from paytui.actions.plan import Plan

__all__ = ["Gatekeeper", "approve", "gate", "needs_approval", "reject", "send_approved"]


class Gatekeeper(Protocol):
    """What this step uses of the executor (`ActionExecutor` is one): who acts where, its
    journal, its threshold, its read of the charge and its one verb."""

    journal: Journal
    profile: str
    base_url: str
    agent: str
    machine: str
    approve_above: Decimal | None

    async def observe(self, operation: str, target: str) -> Basis: ...

    async def run(
        self,
        name: str,
        target: str,
        params: Any,
        *,
        confirmation: str | None = None,
        basis: Basis | None = None,
        again: bool = False,
        approval: Approval | None = None,
    ) -> ActionOutcome: ...


def needs_approval(executor: Gatekeeper, operation: str, amount: Decimal | None) -> bool:
    """Would `operation` of `amount` wait for a second person here (None: not known yet, which
    counts as above)? For the UI's words before anything is sent; `gate` decides."""
    threshold = executor.approve_above
    if threshold is None or not OPERATIONS[operation].four_eyes:
        return False
    return amount is None or amount > threshold


async def gate(
    executor: Gatekeeper, plan: Plan, basis: Basis | None, approval: Approval | None
) -> None:
    """The executor's step (see the module's docstring): returns when `plan` may be sent."""
    if approval is not None:
        _exactly_as_approved(executor, plan, basis, approval)
        return
    amount = _amount(plan, basis)
    if not needs_approval(executor, plan.operation, amount):
        return
    if basis is None:  # a caller that showed nothing: the view is read now, and bound
        basis = await executor.observe(plan.operation, plan.target)
        amount = _amount(plan, basis)
    if amount is None:
        raise PrecheckFailed(
            f"Nothing was sent: the {OPERATIONS[plan.operation].noun}'s amount is not known, and"
            " above the profile's approve_above it needs a second person's approval"
        )
    made = await asyncio.to_thread(
        executor.journal.request_approval,
        profile=executor.profile,
        base_url=executor.base_url,
        operation=plan.operation,
        charge_id=plan.target,
        amount=amount,
        agent=executor.agent,
        machine=executor.machine,
        view=basis.to_view(),
        request_summary=plan.summary,
    )
    raise ApprovalRequired(made, format_amount(executor.approve_above))


def _amount(plan: Plan, basis: Basis | None) -> Decimal | None:
    """What the action moves: its own amount, else (a refund of what is left) what was left."""
    if plan.amount is not None:
        return plan.amount
    return basis.left if basis is not None else None


def _exactly_as_approved(
    executor: Gatekeeper, plan: Plan, basis: Basis | None, approval: Approval
) -> None:
    """What is about to be sent is what was approved, or `ApprovalRefused` (nothing sent)."""
    asked = json.dumps(plan.summary, sort_keys=True, default=str)
    if (
        approval.base_url != executor.base_url
        or approval.operation != plan.operation
        or approval.charge_id != plan.target
        or _amount(plan, basis) != approval.amount
        or asked != approval.request_summary
    ):
        raise ApprovalRefused(
            f"Nothing was sent: it is not what request #{approval.id} approved"
            f" ({approval.operation} {approval.amount:.2f} of {approval.charge_id})",
            approval,
        )


async def approve(
    executor: Gatekeeper, approval_id: int, *, confirmation: str | None = None
) -> ActionOutcome:
    """Approve request `approval_id` as this executor's agent and send it (`send_approved`). A
    request this agent approved earlier and that was not sent yet (their paytui stopped, the
    charge could not be read) is sent now; anything else is `ApprovalRefused`."""
    journal = executor.journal
    current = await asyncio.to_thread(journal.approval, approval_id)
    if current is None or current.base_url != executor.base_url:
        raise ApprovalRefused(f"No approval request #{approval_id} for this service")
    if not (current.state == "approved" and current.decided_by == executor.agent):
        await asyncio.to_thread(
            journal.decide,
            approval_id,
            approve=True,
            agent=executor.agent,
            machine=executor.machine,
        )
    return await send_approved(executor, approval_id, confirmation=confirmation)


async def send_approved(
    executor: Gatekeeper, approval_id: int, *, confirmation: str | None = None
) -> ActionOutcome:
    """Send an approved request through the one verb, on the requester's view (see the module's
    docstring). The charge changed since → `TargetChanged`, and the request is void."""
    approval = await asyncio.to_thread(executor.journal.approval, approval_id)
    if approval is None or approval.base_url != executor.base_url:
        raise ApprovalRefused(f"No approval request #{approval_id} for this service")
    if approval.state != "approved":
        raise ApprovalRefused(describe_state(approval), approval)
    if approval.decided_by != executor.agent:
        raise ApprovalRefused(
            f"Request #{approval.id} was approved by {approval.decided_by}: their paytui sends it",
            approval,
        )
    if not approval.bound:
        raise ApprovalRefused(
            f"Request #{approval.id} no longer asks what was approved; nothing was sent", approval
        )
    spec = OPERATIONS[approval.operation]
    target, params = spec.params_of(approval.as_entry(), None)
    try:
        return await executor.run(
            approval.operation,
            target,
            params,
            confirmation=confirmation,
            basis=Basis.from_view(approval.view),
            # The recent-identical rule was asked when the request was made; whatever was done
            # since is in the way through the view and the journal's guard (its mark).
            again=True,
            approval=approval,
        )
    except TargetChanged as changed:
        said = changed.message.removesuffix(" Review it again.")
        await asyncio.to_thread(
            executor.journal.void_approval,
            approval.id,
            f"the charge changed since it was requested: {said}",
        )
        raise


async def reject(executor: Gatekeeper, approval_id: int, reason: str | None) -> Approval:
    """Reject request `approval_id` as this executor's agent: final, a link of the trail."""
    current = await asyncio.to_thread(executor.journal.approval, approval_id)
    if current is None or current.base_url != executor.base_url:
        raise ApprovalRefused(f"No approval request #{approval_id} for this service")
    return await asyncio.to_thread(
        executor.journal.decide,
        approval_id,
        approve=False,
        agent=executor.agent,
        machine=executor.machine,
        reason=reason,
    )
