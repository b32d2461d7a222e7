"""Every operation that changes money or data on the service, in one table.

One `Operation` (`paytui.actions.operation`) per thing paytui can do to the service, built by
its own module in `paytui.actions.ops`: its name in the journal, the words for it, the scope it
needs, whether money moves, where its target is kept, whether it may be done in bulk, the
request it stands for (copy as curl), how to prove it happened (`read_back`) and how to send it
again from its journal entry (`resend`); the module also holds how it is prepared (`prepare`:
checks, first reads, what the journal keeps, how to send it), which the executor's pipeline
runs. The journal, the policy, the executor, reconcile, batch, History, the clipboard and the
command line read this table, so adding an operation is one module in `ops/` and one line
here, plus its client call, its dialog and its binding (docs/adding-an-operation.md).

The sandbox keeps its own list of what it can fail on purpose (`paytui.sandbox.faults`): it may
not import the client's side.
"""

from __future__ import annotations

from paytui.actions.operation import Operation, OperationName
from paytui.actions.operation_names import SHORT_NAMES
from paytui.actions.ops import (
    account,
    capture,
    charge,
    conversation,
    distribute,
    labels,
    plugins,
    refund,
    token,
)

__all__ = ["BULK", "MONEY", "OPERATIONS", "Operation", "OperationName", "operation"]

OPERATIONS: dict[str, Operation] = {
    spec.name: spec
    for spec in (
        capture.SPEC,
        refund.SPEC,
        charge.SPEC,
        labels.CHARGE_SPEC,
        labels.REFUND_SPEC,
        distribute.SPEC,
        plugins.SESSION_SPEC,
        plugins.DELETE_SPEC,
        account.SPEC,
        token.CREATE_SPEC,
        token.UPDATE_SPEC,
        conversation.CLOSE_SPEC,
        conversation.SEND_SPEC,
    )
}

if {name: spec.short for name, spec in OPERATIONS.items()} != SHORT_NAMES or list(
    OPERATIONS
) != list(SHORT_NAMES):  # what reads the names without the table must see these
    raise RuntimeError("paytui.actions.operation_names.SHORT_NAMES differs from OPERATIONS")

#: Operations that move money: the production typed confirmation, History's amounts.
MONEY = frozenset(name for name, spec in OPERATIONS.items() if spec.moves_money)
#: Operations that may be done on many marked charges at once.
BULK = frozenset(name for name, spec in OPERATIONS.items() if spec.bulk is not None)


def operation(name: str) -> Operation:
    """The spec of a journal operation name (KeyError for one paytui does not know)."""
    return OPERATIONS[name]
