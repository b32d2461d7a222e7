"""Which dialog an operation opens: one table, asked by every screen (`dialog_for`).

A screen that offers an operation on what it shows (a charge, a refund, a session, a
conversation, a customer) opens the operation's dialog with the id of that object; no screen
chooses the dialog itself. The dialogs are imported when one opens, so the table costs nothing
at start-up.

Operations opened otherwise: a new charge and a charge of a token are full screens with their
own forms (`NewChargeScreen`, `ChargeTokenModal`), a token's two forms one modal
(`TokenFormModal`), an enrollment session starts from a merchant (`EnrollmentSessionModal`),
and distributing asks nothing first (charge detail's `d`, through the same `ActionExecutor.run`).
`tests/ui/test_dialogs.py` holds every operation of the table to one of these.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.screen import Screen

__all__ = ["DIALOGS", "OPENED_OTHERWISE", "dialog_for", "opens_dialog"]

_M = "paytui.ui.screens.modals."

#: Operation (the journal's name) -> "module:Class" of its dialog, made with the target's id.
DIALOGS: dict[str, str] = {
    "capture": _M + "capture:CaptureModal",
    "refund": _M + "refund:RefundModal",
    "update_charge": _M + "edit_tags:EditTagsModal",
    "update_refund": _M + "edit_tags:EditRefundTagsModal",
    "plugin_session": _M + "plugin_session:PaymentSessionModal",
    "plugin_delete": _M + "plugin_session:DeleteSessionModal",
    "account_create": _M + "new_account:NewAccountModal",
    "close_conversation": _M + "conversation:CloseConversationModal",
    "send_message": _M + "conversation:ReplyModal",
    "update_customer": _M + "customer_contact:EditContactModal",
}

#: Operations whose form is not made from a target's id alone (the module docstring says how
#: each is opened).
OPENED_OTHERWISE = frozenset({"charge", "token_create", "token_update", "distribute"})


def dialog_for(operation: str, target: str | None) -> Screen[str | None]:
    """The dialog of `operation` on `target` (a charge, refund, session, conversation id; the
    account of a payment session; the merchant of a new account, None: a new merchant).
    `KeyError` for an operation that has no such dialog (`OPENED_OTHERWISE`)."""
    module, name = DIALOGS[operation].split(":")
    dialog: Screen[str | None] = getattr(import_module(module), name)(target)
    return dialog


def opens_dialog(action: str) -> bool:
    """Whether a screen's `action` opens its operation's dialog: an action of the registry on
    one object whose operation has one here (`r` on a charge: the refund dialog). A screen
    says so to the App (`opens_a_screen`), which holds the keys typed after the action's key
    for that dialog (`paytui.ui.held_keys`)."""
    from paytui.actions.registry import spec_for

    spec = spec_for(action)
    return spec is not None and spec.subject is not None and spec.operation in DIALOGS
