"""Every user action of paytui in one table: what it is called, what it needs, when it applies.

One place decides (house rule 2). For each action the table says its label, the policy operation
it performs (`None` for actions that only read), and whether it applies to the object it would act
on, in that object's current state, with the reason when it does not. The UI reads it for the
footer, `?` help, the command palette and every screen's `check_action`; the executor reads the same
rules before it sends (`why_not`), so a rule changed here changes the key, the help line and the
refusal together. A status paytui does not know the meaning of (`KNOWN_STATUSES`) never refuses
an action: the action applies, and its `note` says "paytui does not know the status `settled`;
the service will decide" beside it (help, dialog, command line). Keys are not here: they are the
UI's business (`paytui.ui.bindings`), which binds each key to one of these ids.

No Textual and no I/O; the objects are duck-typed (`Charge`, `Token`, `JournalEntry`) so importing
this module costs nothing at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = [
    "ACTIONS",
    "KNOWN_STATUSES",
    "ActionSpec",
    "note",
    "refusal",
    "rule_for",
    "spec_for",
    "status_note",
    "why_not",
    "writing_actions",
]

#: Charge types the service refunds and distributes (a settled sale or a capture).
SETTLED_TYPES = frozenset({"sale", "capture"})

#: The charge statuses paytui knows the meaning of (docs/api-assumptions.md, "Charges"), with,
#: for each that is not `success`, why it cannot be refunded (nor captured or distributed). Any
#: other status is the service's to judge: it never forbids an action or a search here
#: (`status_note` says so beside the action, and the service's answer decides).
KNOWN_STATUSES: dict[str, str | None] = {
    "success": None,
    "declined": "A declined charge moved no money; there is nothing to refund",
    "voided": "A voided charge moved no money; there is nothing to refund",
    "chargeback": "A charged-back charge cannot be refunded: the money already went back",
    "return": "A returned bank payment cannot be refunded: the money already went back",
}


def status_note(charge: Any) -> str | None:
    """ "paytui does not know the status `settled`; the service will decide" for a status
    paytui has no meaning for (None for a known one, or none). Said with the action (help,
    dialog, command line), never a refusal."""
    status = getattr(charge, "status", None)
    if status is None or status in KNOWN_STATUSES:
        return None
    return f"paytui does not know the status `{status}`; the service will decide"


def _refused_status(charge: Any) -> str | None:
    """The charge's status when paytui knows it forbids money actions (not `success`)."""
    status = getattr(charge, "status", None)
    return status if isinstance(status, str) and KNOWN_STATUSES.get(status) else None


def _capture(charge: Any) -> str | None:
    """An authorization that succeeded and was not captured yet (the executor's precheck)."""
    kind = getattr(charge, "charge_type", None)
    if kind == "pre_authorization":
        return "A pre-authorization only checks the card; it cannot be captured"
    if kind is not None and kind != "authorization":
        return f"Only an authorization can be captured; this is a {kind}"
    code = getattr(charge, "result_code", None)
    if kind is None and code is not None:
        from paytui.api.rows import is_authorization

        # Without charge_type the spec's result code tells (Authorized: an authorization).
        if not is_authorization(None, code, getattr(charge, "total_amount", None)):
            return f"Only an authorization can be captured; this charge is {code}"
    # The sandbox's captured_charge_id is a shortcut; the executor also looks for a capture
    # whose original_charge_id names this authorization (the spec's own link).
    captured = getattr(charge, "captured_charge_id", None)
    if captured:
        return f"Already captured as {captured}"
    status = _refused_status(charge)
    if status is not None:
        return f"A {status} authorization cannot be captured"
    return None


@cache
def _authorization_rule() -> Callable[[object, object, object], bool]:
    """`paytui.api.rows.is_authorization`, imported on first use (not at start-up) and once:
    the refund rule is asked on every row of an export (`charge_state.may_have_refunds`)."""
    from paytui.api.rows import is_authorization

    return is_authorization


def _refund(charge: Any) -> str | None:
    """A sale or a capture; never a chargeback, an ACH return, a decline or an authorization
    (open: capture it; captured: refund its capture). An authorization is told by its
    `charge_type`, or without one by the spec's `Authorized` result code. Whether anything is
    left is read when the dialog opens (it needs the refunds)."""
    is_authorization = _authorization_rule()
    status = _refused_status(charge)
    if status is not None:
        return KNOWN_STATUSES[status]
    kind = getattr(charge, "charge_type", None)
    if is_authorization(
        kind, getattr(charge, "result_code", None), getattr(charge, "total_amount", None)
    ):
        if getattr(charge, "captured_charge_id", None):
            return "Refund the capture, not the authorization"
        return "An open authorization moved no money: capture it, or let it expire"
    if kind == "pre_authorization":
        return "A pre-authorization moved no money; there is nothing to refund"
    if kind is not None and kind not in SETTLED_TYPES:
        return f"A {kind} cannot be refunded"
    return None


def _distribute(charge: Any) -> str | None:
    """The service distributes settled sales and captures, chargebacks and ACH returns, once."""
    status = getattr(charge, "status", None)
    if status not in {"chargeback", "return"}:
        refused = _refused_status(charge)
        if refused is not None:
            return f"A {refused} charge cannot be distributed"
        kind = getattr(charge, "charge_type", None)
        if kind is not None and kind not in SETTLED_TYPES:
            return "Only settled sales and captures can be distributed"
    if getattr(charge, "distributions", None):
        return "Already in a distribution"
    return None


def _retry(entry: Any) -> str | None:
    if not getattr(entry, "retryable", False):
        return "Only an action proven not to have happened can be sent again"
    return None


@dataclass(frozen=True)
class ActionSpec:
    """One action: `id` is the UI's action name (the `action_<id>` method a key runs)."""

    id: str
    label: str
    #: The `ActionPolicy` operation (scope, read-only, production confirmation), None: reads only.
    operation: str | None = None
    #: The reason it cannot act on this object, or None when it can.
    rule: Callable[[Any], str | None] | None = None
    #: What it acts on ("charge", "token", "entry"), for help and for tests.
    subject: str | None = None
    #: Its rule reads the charge's status: a status paytui does not know is said beside it
    #: (`note`), and never refuses it.
    notes_status: bool = False

    @property
    def writes(self) -> bool:
        return self.operation is not None

    def operation_for(self, subject: Any) -> str | None:
        """The policy operation for `subject`: a retry performs the operation of its entry."""
        if self.id == "retry":
            return getattr(subject, "operation", None) if subject is not None else None
        return self.operation

    def why_not(self, subject: Any) -> str | None:
        """Why it cannot act on `subject` (None: it can). No subject: it has nothing to act on."""
        if self.subject is not None and subject is None:
            return f"No {self.subject} selected"
        if self.rule is None or subject is None:
            return None
        return self.rule(subject)

    def note(self, subject: Any) -> str | None:
        """What to say beside the action when it applies to `subject` (None: nothing), such as
        "paytui does not know the status `settled`; the service will decide"."""
        if not self.notes_status or subject is None or self.why_not(subject) is not None:
            return None
        return status_note(subject)


def _duplicates(charge: Any) -> str | None:
    """ "Charged twice?" needs the fields duplicates are matched on (`paytui.duplicates`)."""
    from paytui.duplicates import why_not_searchable

    reason = why_not_searchable(charge)
    return None if reason is None else f"Cannot look for duplicates: {reason}"


def _customer(charge: Any) -> str | None:
    """One customer's screen needs the payer's name or the card's last four to find them by."""
    payment_method = getattr(charge, "payment_method", None)
    if getattr(charge, "contact_name", None) or getattr(payment_method, "last4", None):
        return None
    return "The service gave neither the payer's name nor the card's last four"


def _evidence(charge: Any) -> str | None:
    """An evidence pack answers a chargeback: the charge must show one (`paytui.evidence`)."""
    from paytui.charge_state import dispute_state

    if dispute_state(charge) == "none":
        return "The charge has no chargeback: there is no case to answer"
    return None


def _open_conversation(conversation: Any) -> str | None:
    """Closing and replying need an open conversation; a status paytui cannot read is no
    reason to refuse (the service decides and its refusal is shown)."""
    from paytui.api.conversations import closed_state

    fields = getattr(conversation, "fields", None)
    if callable(fields) and closed_state(fields()) is True:
        return "The conversation is closed"
    return None


ACTIONS: dict[str, ActionSpec] = {
    spec.id: spec
    for spec in (
        ActionSpec("capture", "Capture", "capture", _capture, "charge", notes_status=True),
        ActionSpec("refund", "Refund", "refund", _refund, "charge", notes_status=True),
        ActionSpec("edit", "Edit tags", "update_charge", None, "charge"),
        ActionSpec("edit_refund", "Edit refund tags", "update_refund", None, "refund"),
        ActionSpec(
            "distribute", "Distribute", "distribute", _distribute, "charge", notes_status=True
        ),
        ActionSpec("new_charge", "New charge", "charge"),
        ActionSpec("create_token", "New token", "token_create"),
        ActionSpec("update_token", "Update token", "token_update", None, "token"),
        # Whether the token has expired depends on the app's clock: the Tokens screen adds it.
        ActionSpec("charge_token", "Charge token", "charge", None, "token"),
        ActionSpec("retry", "Retry", "retry", _retry, "entry"),
        # No local rule on the account's boarding status: the spec shows no status values, so
        # which statuses may take payments is the service's to say (its refusal is shown).
        ActionSpec("new_payment_session", "New payment session", "plugin_session", None, "account"),
        ActionSpec("new_enrollment_session", "New enrollment session", "plugin_session"),
        ActionSpec("delete_session", "Delete session", "plugin_delete", None, "session"),
        ActionSpec("new_account", "New account", "account_create"),
        # Bulk actions act on the marked charges: each is asked with the rule above in the dry
        # run (`paytui.actions.batch.plan_batch`); here only the policy (read-only, scopes).
        ActionSpec("bulk_capture", "Bulk capture", "capture"),
        ActionSpec("bulk_refund", "Bulk full refund", "refund"),
        # Reads only: the current search (every page) or the audit trail, to a file.
        ActionSpec("export", "Export"),
        # On the journal, not the service: "I am working on this charge" for the other agents
        # (`paytui.actions.claims`); no scope, and a read-only profile may say it too.
        ActionSpec("claim", "Claim", None, None, "charge"),
        # Reads only: the same card, amount and account within a window (`paytui.duplicates`).
        ActionSpec("duplicates", "Charged twice?", None, _duplicates, "charge"),
        # Reads only: the payer's charges, refunds, chargebacks and tokens (`paytui.customer`).
        ActionSpec("customer", "Customer", None, _customer, "charge"),
        # Reads only: a chargeback's evidence pack (`paytui.evidence`), saved on request.
        ActionSpec("evidence", "Evidence pack", None, _evidence, "charge"),
        # A conversation's two writes (`paytui.actions.ops.conversation`).
        ActionSpec(
            "close_conversation",
            "Close conversation",
            "close_conversation",
            _open_conversation,
            "conversation",
        ),
        ActionSpec("reply", "Reply", "send_message", _open_conversation, "conversation"),
        # A customer's email and phone (`paytui.actions.ops.customer`): no local rule, the
        # spec shows no customer state that forbids it (the service's refusal is shown).
        ActionSpec("edit_contact", "Edit contact", "update_customer", None, "customer"),
    )
}


def spec_for(action: str) -> ActionSpec | None:
    """The spec of an action name as Textual gives it (``app.new_charge``, ``refund``)."""
    return ACTIONS.get(action.split("(", 1)[0].rsplit(".", 1)[-1].strip())


def why_not(action: str, subject: Any) -> str | None:
    """The one rule of `action` for `subject` (executor and UI alike); None when it applies."""
    spec = spec_for(action)
    return None if spec is None else spec.why_not(subject)


@cache
def rule_for(action: str) -> Callable[[Any], str | None]:
    """`why_not` of `action` as one callable, looked up once (a spec's rule never changes while
    paytui runs): what a caller asking it of many subjects keeps, such as an export's
    `refund_state` column on every row (`charge_state.may_have_refunds`). An action not in the
    table has no rule (always None)."""
    spec = spec_for(action)
    return _no_rule if spec is None else spec.why_not


def _no_rule(_subject: Any) -> str | None:
    return None


def refusal(action: str, subject: Any) -> str | None:
    """The executor's question before it sends, for every operation (`ActionExecutor.run`):
    the rule of `action` (`Operation.rule`) on what the operation's preparation read of its
    target (`Plan.subject`). None: it applies, or the action has no rule (the service decides)."""
    spec = ACTIONS.get(action)
    if spec is None or spec.rule is None:
        return None
    return spec.rule(subject)


def note(action: str, subject: Any) -> str | None:
    """What to say beside `action` on `subject` when it applies (`ActionSpec.note`)."""
    spec = spec_for(action)
    return None if spec is None else spec.note(subject)


def writing_actions() -> list[ActionSpec]:
    """Every action that changes data (what a read-only profile or a missing scope disables)."""
    return [spec for spec in ACTIONS.values() if spec.writes]
