"""Change a customer's email and phone (`update_customer`): the form shows the contact as the
service has it, the review exactly what changes, and the one executor sends it once; a contact
changed by anyone since the dialog opened sends nothing and says what changed
(`paytui.actions.ops.customer`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Input

from paytui.actions.ops import customer as ops
from paytui.ui import format as fmt
from paytui.ui.screens.modals.confirm import MoneyActionModal, field_beside
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor


class EditContactModal(MoneyActionModal):
    """`h` on a customer (Browse customers): its email and phone number."""

    KEYS_TITLE = "Edit contact dialog"
    OPERATION = "update_customer"
    NOUN = "change of the customer's contact"
    TITLE = "Edit contact of"
    SEND_LABEL = "Save"
    RESULT_IS_CHARGE = False

    def __init__(self, customer_id: str) -> None:
        super().__init__(customer_id)
        self.seen: dict[str, str | None] = {}

    def compose_form(self) -> ComposeResult:
        for name, label in (("email", "Email"), ("phone", "Phone")):
            yield field_beside(label, SafeInput(id=name, compact=True), name)

    async def prepare(self, executor: ActionExecutor) -> Text:
        found = await (await self.app.get_client()).get_object("customers", self.charge_id)
        self.seen = ops.contact_of(found)
        for name, value in self.seen.items():
            self.query_one(f"#{name}", Input).value = value or ""
        text = Text.assemble(("Customer ", "bold"), fmt.literal(self.charge_id))
        if found.label():
            text.append("  ")
            text.append_text(fmt.literal(found.label(), "bold"))
        return text

    def validate(self) -> dict[str, Any] | None:
        params: dict[str, Any] = {}
        for name in ops.CONTACT_KEYS:
            value = self.query_one(f"#{name}", Input).value.strip()
            if value != (self.seen.get(name) or ""):
                params[name] = value
        problems = {name: ops.contact_problem(**{name: value}) for name, value in params.items()}
        for name in ops.CONTACT_KEYS:
            self.field_error(name, problems.get(name))
        if not params:
            self.field_error("email", "Nothing changed")
        return params if params and not any(problems.values()) else None

    def review(self, params: dict[str, Any]) -> Text:
        text = Text("Will change:\n", style="bold")
        for name, value in params.items():
            text.append("~ ", style=fmt.tone(fmt.CHANGE_STYLES["~"]))
            text.append_text(fmt.literal(f"{name}: {self.seen.get(name) or '(none)'} → {value}"))
            text.append("\n")
        text.append_text(self.next_key_line("save", undoable=True))
        return text

    def operation_params(self, params: dict[str, Any]) -> ops.Params:
        return ops.Params(params.get("email"), params.get("phone"), seen=dict(self.seen))


__all__ = ["EditContactModal"]
