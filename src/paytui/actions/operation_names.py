"""The name of every operation and the word History shows for it, without the table.

`paytui.actions.operations.OPERATIONS` is the one description of each operation; building it
imports every operation's module, the client's models among them. What only needs the names (the
journal's check of a new entry, the audit trail's filter, `paytui history --action`'s choices)
reads them here, and stays light. The table checks, when it is built, that it names exactly these,
each with this word (`Operation.short`), so the two cannot drift apart.
"""

from __future__ import annotations

__all__ = ["OPERATION_NAMES", "SHORT_NAMES"]

#: Operation name (the journal's) -> the word for it (`Operation.short`), in the table's order.
SHORT_NAMES: dict[str, str] = {
    "capture": "capture",
    "refund": "refund",
    "charge": "new charge",
    "update_charge": "edit tags",
    "update_refund": "edit refund tags",
    "distribute": "distribute",
    "plugin_session": "plugin session",
    "plugin_delete": "delete session",
    "account_create": "new account",
    "token_create": "new token",
    "token_update": "edit token",
    "close_conversation": "close conversation",
    "send_message": "message",
    "update_customer": "edit contact",
}
#: Every operation's name, in the table's order.
OPERATION_NAMES: tuple[str, ...] = tuple(SHORT_NAMES)
