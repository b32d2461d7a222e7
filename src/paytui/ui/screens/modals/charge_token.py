"""Charge a stored token (modal): a sale or an authorization for an amount.

Sent through the exactly-once executor (`paytui.actions.ActionExecutor.create_charge`), so the
journal records the intent before the request and never resends. On an answer the dialog closes
with the new charge, and the tokens screen opens its detail. A refusal (policy, an expired token,
a 422) stays in the dialog next to the fields, with everything typed kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Input, Select, Static

from paytui.ui.bindings import FORM_BINDINGS
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.screens.new_charge import ChargeFormSender
from paytui.ui.widgets.form import FORMS_TCSS, FormMixin, field_row
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from paytui.api.models import (
        Charge,  # noqa: F401  (named in the string type argument below)
        Token,
    )

CHARGE_TYPES = [("Sale", "sale"), ("Authorization (capture later)", "authorization")]


class ChargeTokenScreen(ChargeFormSender, FormMixin, PaytuiModal["Charge | str | None"]):
    """Answers the created charge (approved or declined; its id when only the id is known), or
    None when closed without one."""

    TEXT_ENTRY = True

    CSS_PATH = FORMS_TCSS
    BINDINGS: ClassVar[list[BindingType]] = [*FORM_BINDINGS]
    HELP_TITLE = "Charge a token"
    KEYS_TITLE = "Forms (token, charge a token)"

    def __init__(self, token: Token) -> None:
        super().__init__()
        self.token = token
        self._sending = False

    def compose(self) -> ComposeResult:
        title = Text("Charge token ", style="bold")
        title.append(self.token.token_id)
        card = self.token.payment_method
        detail = Text()
        detail.append(f"{getattr(card, 'type', None) or 'card'} ")
        detail.append(f"…{self.token.last4 or '????'}")
        contact = getattr(card, "contact", None)
        if contact is not None and contact.name:
            detail.append(f" · {contact.name}")
        detail.append(f" · account {self.token.account_id or '—'}")
        with Vertical(id="dialog", classes="form-dialog"):
            yield Static(title, id="title", classes="form-title")
            yield Static(detail, id="token-line")
            with Vertical(id="fields", classes="form-fields"):
                yield field_row(
                    "Amount", SafeInput(placeholder="12.50", id="amount", compact=True), "amount"
                )
                yield field_row(
                    "Type",
                    Select(CHARGE_TYPES, value="sale", allow_blank=False, id="type", compact=True),
                    "type",
                )
                yield field_row("Confirm", SafeInput(id="confirm", compact=True), "confirm")
            yield Static(Text(""), id="form-status", classes="form-status")
            yield Static(
                Text("ctrl+s charge · tab next field · esc close", style="dim"),
                id="form-hint",
                classes="form-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#row-confirm").display = False
        self.set_focus(self.query_one("#amount", Input))  # now: keys typed at once land here

    def _status(self, text: Text) -> None:
        self.query_one("#form-status", Static).update(text)

    def action_submit(self) -> None:
        if self._sending:
            return
        from paytui.actions import AmountError, parse_amount

        self.clear_errors()
        try:
            amount = parse_amount(self.value("amount"))
        except AmountError as exc:
            self.set_error("amount", exc.message)
            self._status(Text("Nothing sent.", style="bold"))
            self.app.bell()
            return
        from paytui.api.models import ChargeRequest, TokenPaymentMethodRequest, charge_type

        request = ChargeRequest(
            account_id=self.token.account_id or "",
            total_amount=amount,
            payment_method=TokenPaymentMethodRequest(token_id=self.token.token_id),
            charge_type=charge_type(self.query_one("#type", Select).value),
        )
        confirm_row = self.query_one("#row-confirm")
        confirmation = self.value("confirm") if confirm_row.display else None
        self._sending = True
        self._status(Text("Sending…"))
        self._send(request, confirmation)

    @work(exclusive=True, group="charge-token")
    async def _send(self, request: Any, confirmation: str | None) -> None:
        outcome = await self.send_charge_request(request, confirmation, title="Charge")
        if outcome is None:
            return
        if outcome.charge is not None or outcome.result_id:
            self.dismiss(outcome.charge if outcome.charge is not None else outcome.result_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
