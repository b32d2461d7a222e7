"""Every operation that changes money or data on the service, in one table.

One `Operation` (`paytui.actions.operation`) per thing paytui can do to the service, built by
its own module in `paytui.actions.ops`: its name in the journal, the words for it, the scope it
needs, whether money moves, where its target is kept, whether it may be done in bulk, the
request it stands for (copy as curl), how to prove it happened (`read_back`), its typed
parameters (`params`), how it is prepared from them (`prepare`: checks, first reads, what the
journal keeps, how to send it) and how its journal entry gives them back for a retry
(`params_of`). Every caller runs it the one way, ``executor.run(name, target, params)``; the
executor looks it up here and imports no operation. The journal, the policy, the executor,
reconcile, batch, History, the clipboard and the command line read this table, so adding an
operation is one module in `ops/` and one line here, plus its client call, its dialog and its
binding (docs/adding-an-operation.md).

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
    customer,
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
        customer.SPEC,
    )
}

if {name: spec.short for name, spec in OPERATIONS.items()} != SHORT_NAMES or list(
    OPERATIONS
) != list(SHORT_NAMES):  # what reads the names without the table must see these
    raise RuntimeError("paytui.actions.operation_names.SHORT_NAMES differs from OPERATIONS")


def _check_rules() -> None:
    """Each operation names the registry action whose rule `run` asks, and that action
    performs this operation (a rule of another operation would refuse the wrong things)."""
    from paytui.actions.registry import ACTIONS

    for name, spec in OPERATIONS.items():
        action = ACTIONS.get(spec.rule)
        if action is None or action.operation != name:
            raise RuntimeError(f"operation {name!r}: registry action {spec.rule!r} is not its own")


_check_rules()

#: Operations that move money: the production typed confirmation, History's amounts.
MONEY = frozenset(name for name, spec in OPERATIONS.items() if spec.moves_money)
#: Operations that may be done on many marked charges at once.
BULK = frozenset(name for name, spec in OPERATIONS.items() if spec.bulk_params is not None)


def operation(name: str) -> Operation:
    """The spec of a journal operation name (KeyError for one paytui does not know)."""
    return OPERATIONS[name]
