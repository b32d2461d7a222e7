"""New charge (`n`): the virtual terminal. Take a payment by card, bank account or stored token.

Fields: account (the account in focus by default), amount, type (sale / authorization /
pre_authorization: a pre-authorization is a zero-amount card check, so it forces amount 0 and
card), the payment (card via `CardInput`, which only ever shows the last four; a checking account
whose routing number is checked; or a token id), optional invoice and PO numbers, convenience and
supplemental fees, tags (comma list) and attributes (``key=value`` lines).

Everything is checked before sending, each message next to its field, nothing typed is lost on a
refusal. Money moves, so every charge — a pre-authorization for 0 included — goes through the
app's one exactly-once executor (`app.actions`, `ActionExecutor.create_charge`): the journal
records the intent (method and last four only, never the number) before the one request. A
declined card is a result, shown as declined, not an error. The new charge opens in its detail
screen; escape comes back to this form and its result.

`ChargeFormSender` is the send of both charge forms (this one and charge-a-token): each form
sends its own request and keeps its own state.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Select, Static, TextArea

from paytui.limits import check_attributes, check_tags, check_text
from paytui.text import safe
from paytui.ui import messages
from paytui.ui.format import money
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.card_input import CardInput
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.form import FORMS_TCSS, FormMixin, field_row
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.safe_input import SafeInput
from paytui.ui.widgets.safe_text_area import SafeTextArea
from paytui.validation import (
    check_country,
    check_expiration,
    check_routing_number,
    parse_attributes,
    parse_tags,
)

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from paytui.actions import ActionOutcome
    from paytui.api.models import Charge, ChargeRequest
    from paytui.ui.host import PaytuiHost

CHARGE_TYPES = [
    ("Sale", "sale"),
    ("Authorization (capture later)", "authorization"),
    ("Pre-authorization (card check, 0)", "pre_authorization"),
]
METHODS = [("Card", "card"), ("Bank account (checking)", "bank_account"), ("Token", "token")]


async def send_charge(
    app: PaytuiHost,
    request: ChargeRequest,
    *,
    confirmation: str | None = None,
    acknowledge_earlier: int | None = None,
) -> ActionOutcome:
    """Create the charge exactly once through the app's executor (every type, a
    pre-authorization for 0 included, is journaled). Raises `ActionError` when nothing was sent."""
    from paytui.actions.ops import charge as charge_op

    executor = await app.actions.executor()
    return await executor.run(
        "charge",
        request.account_id,
        charge_op.Params(request),
        confirmation=confirmation,
        acknowledge_earlier=acknowledge_earlier,
    )


class ChargeFormSender:
    """The send of both charge forms (new charge, charge a token): one place that turns the
    executor's refusals into the form's status line, its confirm field and a notification.

    The form provides `_status(text)`, `set_error`, `query_one` and `app`; the state written
    here (`_sending`, `_acknowledge`) is the form's own."""

    _sending: bool
    _acknowledge: int | None = None

    async def send_charge_request(
        self, request: ChargeRequest, confirmation: str | None, *, title: str
    ) -> ActionOutcome | None:
        """Returns the outcome, or None when nothing was sent (the form already says why)."""
        from paytui.actions import ActionError, ConfirmationRequired, EarlierAttemptApplied

        form: Any = self
        host = paytui_app(form)
        acknowledge, self._acknowledge = self._acknowledge, None
        try:
            outcome = await send_charge(
                host,
                request,
                confirmation=confirmation,
                acknowledge_earlier=acknowledge,
            )
        except ConfirmationRequired as exc:
            self._sending = False
            form.query_one("#row-confirm").display = True
            form.set_error("confirm", exc.message)
            form.query_one("#confirm", Input).focus()
            form._status(Text("Nothing sent: production needs a typed confirmation."))
            return None
        except EarlierAttemptApplied as exc:
            # An earlier charge on this account whose outcome was unknown did go through: the
            # next ctrl+s (and only that) sends another, naming the one the user was told of.
            self._sending = False
            self._acknowledge = exc.entry.id
            line = Text(safe(exc.message), style="bold")
            line.append(" Press ctrl+s again to send another charge anyway.")
            form._status(line)
            host.notify(exc.message, title=title, severity="warning", markup=False)
            return None
        except ActionError as exc:
            self._sending = False
            form._status(Text(safe(f"Nothing sent: {exc.message}"), style="bold"))
            host.notify(exc.message, title=title, severity="error", markup=False)
            return None
        self._sending = False
        if outcome.succeeded or outcome.charge is not None:  # every list showing charges reads
            host.charges_changed_by(outcome.result_id)
        line, severity = describe_outcome(outcome)
        form._status(line)
        host.notify(line.plain, title=title, severity=severity, markup=False)
        return outcome


def describe_outcome(outcome: ActionOutcome) -> tuple[Text, SeverityLevel]:
    """One line about the outcome and a notification severity; declined is a result, not an
    error."""
    charge = outcome.charge
    if outcome.state == "failed" and charge is not None:
        # The service made the charge and declined it (its own status says so: nothing moved).
        line = Text("Declined", style="bold")
        said = charge.result_text or charge.result_code or charge.status or "declined"
        line.append(safe(f": {said}"))
        line.append(safe(f" (charge {charge.charge_id})"))
        return line, "warning"
    if outcome.succeeded and charge is not None:
        line = Text(safe(charge.result_code or "Done"), style="bold")
        line.append(safe(f": {money(charge.total_amount)} {charge.charge_type or 'sale'}"))
        line.append(safe(f", charge {charge.charge_id}"))
        return line, "information"
    if outcome.succeeded:
        return Text(safe(outcome.message or f"Charge {outcome.result_id} created")), "information"
    severity: SeverityLevel = "warning" if outcome.state == "unknown" else "error"
    return Text(safe(outcome.message or f"The charge {outcome.state}")), severity


def charge_result(charge: Charge) -> Text:
    """The result panel: id, status, result code and text, amount, type, method."""
    text = Text()

    def line(label: str, value: object, style: str = "") -> None:
        text.append(f"{label:<16}", style="bold")
        text.append("—" if value in (None, "") else safe(value), style=style)
        text.append("\n")

    line("Charge id", charge.charge_id)
    line("Status", charge.status, "bold")
    line("Result", f"{charge.result_code or '—'} {charge.result_text or ''}".strip())
    line("Amount", money(charge.total_amount))
    line("Type", charge.charge_type)
    method = charge.method or "—"
    if charge.last4:
        method += f" …{charge.last4}"
    line("Payment", method)
    line("Account", charge.account_id)
    text.rstrip()
    return text


#: The service's field names -> this form's fields.
_CHARGE_FIELDS = {
    "account_id": "account",
    "total_amount": "amount",
    "payment_method.card_number": "card",
    "payment_method.expiration_date": "expiry",
    "payment_method.routing_number": "routing",
    "payment_method.account_number": "bank-number",
    "payment_method.token_id": "token",
    "convenience_fee": "convenience",
    "supplemental_fee": "supplemental",
}


NEW_CHARGE_BINDINGS: list[Binding] = [
    Binding("ctrl+s", "submit", "Charge", id="new_charge.submit", tooltip="Check and send"),
    Binding(
        "ctrl+o", "open_result", "Open charge", id="new_charge.open", tooltip="Open the result"
    ),
    Binding("escape", "app.back", "Back", id="new_charge.back", show=False),
]


class NewChargeScreen(ChargeFormSender, FormMixin, PaytuiScreen[None]):
    """The virtual terminal form."""

    TEXT_ENTRY = True
    #: The action whose held keys this screen takes (`held_keys.OPENS_A_SCREEN`).
    OPENED_BY = "new_charge"

    CSS_PATH: ClassVar = [FORMS_TCSS, Path(__file__).with_name("new_charge.tcss")]
    BINDINGS: ClassVar[list[BindingType]] = [*NEW_CHARGE_BINDINGS]
    HELP_TITLE = "New charge"

    def __init__(self, account_id: str | None = None) -> None:
        super().__init__()
        self.account_id = account_id or ""
        self._sending = False
        self.result: Charge | None = None

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        with VerticalScroll(id="dialog", classes="form-dialog"):
            yield Static(
                Text("New charge (virtual terminal)", style="bold"),
                id="title",
                classes="form-title",
            )
            with Vertical(id="fields", classes="form-fields"):
                yield field_row(
                    "Account",
                    SafeInput(self.account_id, placeholder="pa_…", id="account", compact=True),
                    "account",
                )
                yield field_row(
                    "Amount", SafeInput(placeholder="12.50", id="amount", compact=True), "amount"
                )
                yield field_row(
                    "Type",
                    Select(CHARGE_TYPES, value="sale", allow_blank=False, id="type", compact=True),
                    "type",
                )
                yield field_row(
                    "Pay by",
                    Select(METHODS, value="card", allow_blank=False, id="method", compact=True),
                    "method",
                )
                yield field_row("Card number", CardInput(id="card"), "card")
                yield field_row(
                    "Card expiry",
                    SafeInput(placeholder="YYYY-MM", id="expiry", compact=True),
                    "expiry",
                )
                yield field_row(
                    "Routing number",
                    SafeInput(placeholder="9 digits", id="routing", compact=True, max_length=9),
                    "routing",
                )
                yield field_row(
                    "Account number",
                    CardInput(kind="bank", placeholder="account number", id="bank-number"),
                    "bank-number",
                )
                yield field_row(
                    "Token id", SafeInput(placeholder="ct_…", id="token", compact=True), "token"
                )
                yield field_row("First name", SafeInput(id="first", compact=True), "first")
                yield field_row("Last name", SafeInput(id="last", compact=True), "last")
                yield field_row(
                    "Country",
                    SafeInput("US", placeholder="US", id="country", compact=True),
                    "country",
                )
                yield field_row("Invoice no.", SafeInput(id="invoice", compact=True), "invoice")
                yield field_row("PO number", SafeInput(id="po", compact=True), "po")
                yield field_row(
                    "Convenience fee",
                    SafeInput(placeholder="optional", id="convenience", compact=True),
                    "convenience",
                )
                yield field_row(
                    "Supplement. fee",
                    SafeInput(placeholder="optional", id="supplemental", compact=True),
                    "supplemental",
                )
                yield field_row(
                    "Tags",
                    SafeInput(placeholder="comma,separated", id="tags", compact=True),
                    "tags",
                )
                yield field_row(
                    "Attributes",
                    SafeTextArea(id="attributes", compact=True, placeholder="key=value per line"),
                    "attributes",
                )
                yield field_row("Confirm", SafeInput(id="confirm", compact=True), "confirm")
            yield Static(Text(""), id="form-status", classes="form-status")
            yield Static(Text(""), id="result", classes="form-result")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.query_one("#row-confirm").display = False
        self._apply_method()
        # Now, not on the next refresh: keys typed right after `n` land in this field.
        self.set_focus(self.query_one("#amount" if self.account_id else "#account"))

    # --- field visibility -------------------------------------------------------------------
    def _method(self) -> str:
        return str(self.query_one("#method", Select).value)

    def _type(self) -> str:
        return str(self.query_one("#type", Select).value)

    def _apply_method(self) -> None:
        method = self._method()
        for name in ("card", "expiry"):
            self.query_one(f"#row-{name}").display = method == "card"
        for name in ("routing", "bank-number"):
            self.query_one(f"#row-{name}").display = method == "bank_account"
        self.query_one("#row-token").display = method == "token"
        for name in ("first", "last", "country"):
            self.query_one(f"#row-{name}").display = method != "token"

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "type":
            pre_auth = event.value == "pre_authorization"
            amount = self.query_one("#amount", Input)
            method = self.query_one("#method", Select)
            if pre_auth:
                amount.value = "0.00"
                method.value = "card"
            amount.disabled = pre_auth
            method.disabled = pre_auth
            self._apply_method()
        elif event.select.id == "method":
            self._apply_method()

    def _status(self, text: Text) -> None:
        self.query_one("#form-status", Static).update(text)

    # --- checking and building the request --------------------------------------------------
    def _build(self) -> ChargeRequest | None:
        """Check every field (errors next to them) and build the request, or None."""
        from paytui.actions import AmountError, parse_amount
        from paytui.api.models import (
            BankAccountPaymentMethodRequest,
            CardPaymentMethodRequest,
            ChargeRequest,
            Contact,
            TokenPaymentMethodRequest,
        )
        from paytui.api.models import charge_type as as_charge_type

        self.clear_errors()
        errors: dict[str, str] = {}
        charge_type = self._type()
        method = "card" if charge_type == "pre_authorization" else self._method()
        account = self.value("account")
        if not account:
            errors["account"] = "Enter the account (pa_…)"
        amount = Decimal(0)
        if charge_type != "pre_authorization":
            try:
                amount = parse_amount(self.value("amount"))
            except AmountError as exc:
                errors["amount"] = exc.message
        fees: dict[str, Decimal | None] = {}
        for name in ("convenience", "supplemental"):
            text = self.value(name)
            fees[name] = None
            if text:
                try:
                    fees[name] = parse_amount(text, allow_zero=True)
                except AmountError as exc:
                    errors[name] = exc.message
        contact = None
        if method != "token":
            if message := check_country(self.value("country")):
                errors["country"] = message
            values = {
                "first_name": self.value("first") or None,
                "last_name": self.value("last") or None,
                "country": self.value("country").upper() or None,
            }
            for field, name in (("first", "first_name"), ("last", "last_name")):
                if message := check_text(name, values[name]):
                    errors[field] = message
            fits = "first" not in errors and "last" not in errors
            contact = Contact(**values) if fits and any(values.values()) else None
        payment: Any = None
        if method == "card":
            card = self.query_one("#card", CardInput)
            if message := card.check():
                errors["card"] = message
            if message := check_expiration(self.value("expiry"), paytui_app(self).now()):
                errors["expiry"] = message
            if "card" not in errors and "expiry" not in errors:
                payment = CardPaymentMethodRequest(
                    card_number=card.secret,
                    expiration_date=self.value("expiry"),
                    contact=contact,
                )
        elif method == "bank_account":
            number = self.query_one("#bank-number", CardInput)
            if message := check_routing_number(self.value("routing")):
                errors["routing"] = message
            if message := number.check():
                errors["bank-number"] = message
            if "routing" not in errors and "bank-number" not in errors:
                payment = BankAccountPaymentMethodRequest(
                    routing_number=self.value("routing"),
                    account_number=number.secret,
                    contact=contact,
                )
        else:
            token_id = self.value("token")
            if not token_id:
                errors["token"] = "Enter the token id (ct_…)"
            else:
                payment = TokenPaymentMethodRequest(token_id=token_id)
        attributes, message = parse_attributes(self.query_one("#attributes", TextArea).text)
        if message := message or check_attributes(attributes):
            errors["attributes"] = message
        for field, name in (("invoice", "invoice_number"), ("po", "po_number")):
            if message := check_text(name, self.value(field) or None):
                errors[field] = message
        if message := check_tags(parse_tags(self.value("tags"))):
            errors["tags"] = message
        for name, text in errors.items():
            self.set_error(name, text)
        if errors or payment is None:
            self._status(Text(f"Nothing sent: {len(errors)} field(s) to fix.", style="bold"))
            return None
        tags = parse_tags(self.value("tags"))
        return ChargeRequest(
            account_id=account,
            total_amount=amount,
            payment_method=payment,
            charge_type=as_charge_type(charge_type),
            invoice_number=self.value("invoice") or None,
            po_number=self.value("po") or None,
            convenience_fee=fees["convenience"],
            supplemental_fee=fees["supplemental"],
            tags=tags or None,
            attributes=attributes or None,
        )

    def action_submit(self) -> None:
        if self._sending:
            return
        request = self._build()
        if request is None:
            self.app.bell()
            return
        confirmation = self.value("confirm") if self.query_one("#row-confirm").display else None
        self._sending = True
        self._status(Text("Sending…"))
        self._send(request, confirmation)

    @work(exclusive=True, group="new-charge")
    async def _send(self, request: ChargeRequest, confirmation: str | None) -> None:
        outcome = await self.send_charge_request(request, confirmation, title="New charge")
        if outcome is None:
            return
        charge = outcome.charge
        declined = outcome.state == "failed" and charge is not None  # made, and said no
        if outcome.state == "failed" and not declined:
            self._place_field_errors(outcome.message or "")
        if outcome.succeeded or declined:
            # Done: the numbers leave memory, a second ctrl+s cannot charge twice by accident,
            # and the next customer starts from an empty form (the account stays).
            self.clear_customer()
            self.result = charge
            if charge is not None:
                self.query_one("#result", Static).update(charge_result(charge))
            charge_id = charge.charge_id if charge is not None else outcome.result_id
            if charge_id:
                self.post_message(messages.OpenCharge(charge_id))

    #: Fields that belong to one customer's payment: cleared after a charge is sent.
    CUSTOMER_FIELDS = (
        "amount",
        "expiry",
        "routing",
        "token",
        "first",
        "last",
        "invoice",
        "po",
        "convenience",
        "supplemental",
        "tags",
        "confirm",
    )

    def clear_customer(self) -> None:
        """Empty every field of the last customer (card and bank numbers included); the account
        and the country stay, and the amount field takes focus for the next one."""
        for name in ("card", "bank-number"):
            self.query_one(f"#{name}", CardInput).clear()
        for name in self.CUSTOMER_FIELDS:
            self.query_one(f"#{name}", Input).value = ""
        self.query_one("#attributes", TextArea).text = ""
        self.query_one("#row-confirm").display = False
        amount = self.query_one("#amount", Input)
        if self._type() == "pre_authorization":
            amount.value = "0.00"
        self.set_focus(amount if not amount.disabled else self.query_one("#account"))

    def _place_field_errors(self, message: str) -> None:
        """A refusal that names a field of ours (``payment_method.token_id: ...``) is also
        shown under that field."""
        for part in message.replace(" — ", "; ").split("; "):
            wire, sep, text = part.partition(": ")
            name = _CHARGE_FIELDS.get(wire.strip())
            if sep and name is not None:
                self.set_error(name, text.strip())

    def action_open_result(self) -> None:
        if self.result is not None:
            self.post_message(messages.OpenCharge(self.result.charge_id))
