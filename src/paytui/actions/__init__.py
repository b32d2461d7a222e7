"""Money actions (capture, refund, charge, tag/attribute edits), each sent exactly once.

The non-UI core of issue 4: amounts typed by people (`amounts`), the one place that decides what
an action may do (`policy`), the durable action journal (`journal`), the executor that sends an
action once and settles unknown outcomes (`executor`) by reading the service back (`reconcile`).
See docs/money-safety.md. Never imports Textual.
"""

from paytui.actions.amounts import AmountError, check_amount, format_amount, parse_amount
from paytui.actions.errors import (
    ActionError,
    ActionInFlight,
    ActionRefused,
    ConfirmationRequired,
    EarlierAttemptApplied,
    NotRetryable,
    PrecheckFailed,
    UnresolvedAction,
)
from paytui.actions.executor import ActionExecutor, ActionOutcome
from paytui.actions.journal import Journal, JournalEntry, default_journal_path
from paytui.actions.policy import ActionPolicy, Decision
from paytui.actions.reconcile import reconcile, reconcile_all

__all__ = [
    "ActionError",
    "ActionExecutor",
    "ActionInFlight",
    "ActionOutcome",
    "ActionPolicy",
    "ActionRefused",
    "AmountError",
    "ConfirmationRequired",
    "Decision",
    "EarlierAttemptApplied",
    "Journal",
    "JournalEntry",
    "NotRetryable",
    "PrecheckFailed",
    "UnresolvedAction",
    "check_amount",
    "default_journal_path",
    "format_amount",
    "parse_amount",
    "reconcile",
    "reconcile_all",
]
