"""Money actions (capture, refund, charge, tag/attribute edits), each sent exactly once.

The non-UI core of issue 4: amounts typed by people (`amounts`), the one place that decides what
an action may do (`policy`), the durable action journal (`journal`), the executor that sends an
action once and settles unknown outcomes (`executor`) by reading the service back (`reconcile`).
See docs/money-safety.md. Never imports Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paytui.lazy import lazy_exports

if TYPE_CHECKING:
    from paytui.actions.amounts import AmountError, check_amount, format_amount, parse_amount
    from paytui.actions.basis import Basis
    from paytui.actions.errors import (
        ActionError,
        ActionInFlight,
        ActionRefused,
        ConfirmationRequired,
        EarlierAttemptApplied,
        NotRetryable,
        PrecheckFailed,
        RecentlyDone,
        TargetChanged,
        UnresolvedAction,
    )
    from paytui.actions.executor import ActionExecutor, ActionOutcome
    from paytui.actions.journal import Journal, JournalEntry, default_journal_path
    from paytui.actions.policy import ActionPolicy, Decision
    from paytui.actions.reconcile import reconcile_all

#: Where each name lives. Imported on first use (PEP 562), so `paytui.actions.registry` can be
#: read at start-up (the footer's first paint) without importing the executor and the client.
_HOMES = {
    **dict.fromkeys(("AmountError", "check_amount", "format_amount", "parse_amount"), "amounts"),
    **dict.fromkeys(
        (
            "ActionError",
            "ActionInFlight",
            "ActionRefused",
            "ConfirmationRequired",
            "EarlierAttemptApplied",
            "NotRetryable",
            "PrecheckFailed",
            "RecentlyDone",
            "TargetChanged",
            "UnresolvedAction",
        ),
        "errors",
    ),
    "Basis": "basis",
    **dict.fromkeys(("ActionExecutor", "ActionOutcome"), "executor"),
    **dict.fromkeys(("Journal", "JournalEntry", "default_journal_path"), "journal"),
    **dict.fromkeys(("ActionPolicy", "Decision"), "policy"),
    # (`reconcile` the function is not re-exported: the submodule of that name shadows it.)
    "reconcile_all": "reconcile",
}


__getattr__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "ActionError",
    "ActionExecutor",
    "ActionInFlight",
    "ActionOutcome",
    "ActionPolicy",
    "ActionRefused",
    "AmountError",
    "Basis",
    "ConfirmationRequired",
    "Decision",
    "EarlierAttemptApplied",
    "Journal",
    "JournalEntry",
    "NotRetryable",
    "PrecheckFailed",
    "RecentlyDone",
    "TargetChanged",
    "UnresolvedAction",
    "check_amount",
    "default_journal_path",
    "format_amount",
    "parse_amount",
    "reconcile_all",
]
