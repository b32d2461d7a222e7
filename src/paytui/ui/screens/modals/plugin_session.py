"""Plugin session dialogs: a payment session for an account, an enrollment session, deleting one.

Each is a `MoneyActionModal` (form → review → send → proven result), so a session is created or
deleted through the one executor and journal like every other action. The form's rules are
`paytui.ui.plugin_forms` (pure, unit-tested); the result shows the session id and its settings,
already copied to the clipboard to hand to the merchant (ctrl+y copies them again).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Static

from paytui.actions.operation import NoParams
from paytui.actions.ops import plugins
from paytui.api.models import PluginSession
from paytui.text import safe, safe_lines
from paytui.ui.plugin_forms import (
    enrollment_request,
    limit_line,
    payment_request,
    prepopulate_allowed,
    session_cap_text,
    session_settings,
)
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.modals.confirm import MONEY_MODAL_BINDINGS, MoneyActionModal, outcome_text
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor, ActionOutcome
    from paytui.api.models import Account

_CSS = [
    Path(__file__).with_name("confirm.tcss"),
    Path(__file__).with_name("plugin_session.tcss"),
]


def field(label: str, widget: Widget, name: str) -> ComposeResult:
    """A label, its field and its error line (shown by `field_error`)."""
    yield Static(Text(label), classes="field-label")
    yield widget
    yield Static(Text(""), id=f"{name}-error", classes="field-error")


def text_field(label: str, name: str, value: str = "", placeholder: str = "") -> ComposeResult:
    yield from field(label, SafeInput(value, placeholder=placeholder, id=name, compact=True), name)


def body_text(body: dict[str, Any]) -> Text:
    """A request body as the review shows it: one ``name: value`` line per property."""
    text = Text()
    for key, value in body.items():
        shown = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        text.append(f"{key}: ", style="bold")
        text.append(safe(shown))
        text.append("\n")
    return text


#: The result of a plugin session dialog.
PLUGIN_RESULT_BINDINGS: list[Binding] = [
    Binding(
        "ctrl+y",
        "copy_result",
        "Copy settings",
        id="plugin.copy",
        tooltip="Copy the new session's id and settings",
    ),
]


class _PluginFormModal(MoneyActionModal):
    """What the plugin dialogs share: errors on their fields, the session as the result."""

    CSS_PATH: ClassVar[list[str | Path]] = _CSS  # type: ignore[assignment]
    BINDINGS: ClassVar[list[BindingType]] = [*MONEY_MODAL_BINDINGS, *PLUGIN_RESULT_BINDINGS]
    KEYS_TITLE = "Plugin session dialogs"
    OPERATION = "plugin_session"
    NOUN = "plugin session"
    SEND_LABEL = "Create"
    RESULT_IS_CHARGE = False
    FIELDS: ClassVar[tuple[str, ...]] = ()
    #: The review's first line ("Will create ...:"), then the request body, property by property.
    REVIEW_LEAD = "Will create a plugin session:"

    def values(self) -> dict[str, str]:
        return {name: self.query_one(f"#{name}", Input).value for name in self.FIELDS}

    def flag(self, name: str) -> bool:
        return self.query_one(f"#{name}", Checkbox).value

    def show_errors(self, errors: dict[str, str]) -> None:
        """Each error under its field (focus on the first); one no field owns as the message."""
        for name in self.FIELDS:
            self.field_error(name, errors.get(name))
        others = [message for name, message in errors.items() if name not in self.FIELDS]
        self._message(Text(safe(" ".join(others))) if others else "", error=bool(others))
        first = next((name for name in self.FIELDS if name in errors), None)
        if first is not None:
            self.set_focus(self.query_one(f"#{first}"))

    def review(self, params: dict[str, Any]) -> Text:
        text = Text(f"{self.REVIEW_LEAD}\n", style="bold")
        text.append_text(body_text(params["request"].to_body()))
        text.append_text(self.review_note(params["request"]))
        text.append_text(self.next_key_line("create", undoable=True))
        return text

    def review_note(self, request: Any) -> Text:
        """A line the review adds after the body (the payment session's cap)."""
        return Text("")

    def target(self, params: dict[str, Any]) -> str:
        return str(plugins.session_target(params["request"]))

    def operation_params(self, params: dict[str, Any]) -> Any:
        return plugins.SessionParams(params["request"])

    @property
    def session(self) -> PluginSession | None:
        outcome = self.outcome
        if outcome is not None and isinstance(outcome.result, PluginSession):
            return outcome.result
        return None

    def _show_outcome(self, outcome: ActionOutcome) -> None:
        super()._show_outcome(outcome)
        session = outcome.result if isinstance(outcome.result, PluginSession) else None
        if session is None or not self.is_attached:
            return
        settings = session_settings(session)
        self.app.copy_to_clipboard(settings)
        text = outcome_text(outcome, self.NOUN)
        text.append("\nSession id: ", style="bold")
        text.append(safe(session.session_id), style="bold reverse")
        if session.status:
            text.append("\n")
            text.append_text(status_text(session.status))
        text.append("\nSettings (copied to the clipboard; ctrl+y copies them again):\n", "dim")
        text.append(safe_lines(json.dumps(session.model_dump(mode="json", exclude_none=True))))
        self._message(text)

    def action_copy_result(self) -> None:
        session = self.session
        if session is not None:
            self.app.copy_to_clipboard(session_settings(session))
            self.app.notify(
                f"Copied the settings of session {session.session_id}",
                title="Clipboard",
                markup=False,
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "copy_result":
            return self.session is not None
        return super().check_action(action, parameters)


def status_text(status: str) -> Text:
    """The enrollment answer's `status`: the merchant cannot be edited, said plainly."""
    text = Text("The merchant's status is ", style="bold")
    text.append(safe(status), style="bold reverse")
    text.append(
        ": the enrollment form cannot edit this merchant; the session shows its status instead."
    )
    return text


class PaymentSessionModal(_PluginFormModal):
    """`L` on an account: every property of the spec's payment plugin session table."""

    TITLE = "New payment plugin session for"
    REVIEW_LEAD = "Will create a payment plugin session:"
    FIELDS = (
        "charge-type",
        "token-expiry",
        "max-attempts",
        "max-amount",
        "tags",
        "attributes",
        "payment-methods",
        "invoice",
        "po",
        "convenience-fee",
        "tax-amount",
        "submit-button",
        "loader-color",
        "loader-background",
        "field-color",
        "prefix",
        "data",
    )

    def __init__(self, account_id: str) -> None:
        super().__init__(account_id)
        self.account: Account | None = None

    def compose_form(self) -> ComposeResult:
        yield from text_field("Charge type (sale or authorization)", "charge-type", "sale")
        yield Checkbox("Tokenize: store the card as a token", id="tokenize", compact=True)
        yield from text_field(
            "Token expires (YYYY-MM-DD)", "token-expiry", placeholder="empty: 3 years"
        )
        yield from text_field("Max attempts", "max-attempts", "2")
        yield from text_field(
            "Max transaction amount, fees included", "max-amount", placeholder="empty: the limit"
        )
        yield from text_field("Tags (comma separated)", "tags")
        yield from text_field("Attributes (key=value; key=value)", "attributes")
        yield from text_field(
            "Payment methods (card, bank_account)", "payment-methods", placeholder="empty: all"
        )
        yield from text_field("Invoice number", "invoice")
        yield from text_field("PO number", "po")
        yield from text_field("Convenience fee (per payment)", "convenience-fee")
        yield from text_field("Tax amount", "tax-amount")
        yield Checkbox("Captcha", id="captcha", compact=True)
        yield from text_field("Submit button caption", "submit-button")
        yield Checkbox("Hide the submit button (embedded mode)", id="hide-submit", compact=True)
        yield Checkbox("Dark mode: follow the page", id="dark-mode", compact=True)
        yield from text_field("Loader colour (#rrggbb)", "loader-color")
        yield from text_field("Loader background (#rrggbb)", "loader-background")
        yield from text_field("Field text colour (#rrggbb)", "field-color")
        yield from text_field("Hosted page prefix", "prefix")
        yield from text_field("Hosted page data (name=value; name=value)", "data")

    async def prepare(self, executor: ActionExecutor) -> Text:
        # The boarding status is not checked here: which statuses take payments is the
        # service's to say (the spec shows none); its refusal is shown.
        account = await (await self.app.get_client()).get_account(self.charge_id)
        self.account = account
        text = Text.assemble(("Account ", "bold"), safe(account.name or account.account_id), "\n")
        text.append(limit_line(account))
        text.append(". Tab moves between fields; enter in a field reviews.", style="dim")
        return text

    def validate(self) -> dict[str, Any] | None:
        values = {"account": self.charge_id, **self.values()}
        flags = {
            name: self.flag(name) for name in ("tokenize", "captcha", "hide-submit", "dark-mode")
        }
        request, errors = payment_request(values, flags, self.account, paytui_app(self).now())
        self.show_errors(errors)
        if request is None:
            return None
        return {"request": request}

    def review_note(self, request: Any) -> Text:
        return Text(f"Payments up to {session_cap_text(request, self.account)}")


class EnrollmentSessionModal(_PluginFormModal):
    """Enrollment: tags/attributes for the merchants and accounts created, and the processing
    information the form starts with (only with the prepopulate scope)."""

    TITLE = "New enrollment plugin session for"
    REVIEW_LEAD = "Will create an enrollment plugin session:"
    FIELDS = (
        "tags",
        "attributes",
        "account-tags",
        "account-attributes",
        "product-description",
        "processing-max",
        "monthly-volume",
    )
    PREPOPULATE = ("product-description", "processing-max", "monthly-volume")

    def __init__(self, merchant_id: str | None = None) -> None:
        super().__init__(merchant_id or "a new merchant")
        self.merchant_id = merchant_id
        self.prepopulate = False

    def compose_form(self) -> ComposeResult:
        yield from text_field("Merchant tags (comma separated)", "tags")
        yield from text_field("Merchant attributes (key=value; key=value)", "attributes")
        yield from text_field("Account tags (comma separated)", "account-tags")
        yield from text_field("Account attributes (key=value; key=value)", "account-attributes")
        yield Static(Text(""), id="prepopulate-note", classes="field-label")
        yield from text_field("Product description", "product-description")
        yield from text_field("Processing: max transaction amount", "processing-max")
        yield from text_field("Processing: monthly volume", "monthly-volume")

    async def prepare(self, executor: ActionExecutor) -> Text:
        granted = getattr(await self.app.get_client(), "granted_scopes", None)
        allowed, note = prepopulate_allowed(granted)
        self.prepopulate = allowed
        self.query_one("#prepopulate-note", Static).update(
            Text(note, style="" if allowed else "bold")
        )
        for name in self.PREPOPULATE:
            self.query_one(f"#{name}", Input).disabled = not allowed
        who = self.merchant_id or "a new merchant"
        return Text.assemble(
            ("Enrollment for ", "bold"),
            safe(who),
            ("\nTab moves between fields; enter in a field reviews.", "dim"),
        )

    def validate(self) -> dict[str, Any] | None:
        values = {"merchant": self.merchant_id or "", **self.values()}
        request, errors = enrollment_request(values, self.prepopulate)
        self.show_errors(errors)
        return None if request is None else {"request": request}


class DeleteSessionModal(MoneyActionModal):
    """Delete a plugin session, after a review that names it (enter deletes, escape keeps it)."""

    CSS_PATH: ClassVar[list[str | Path]] = _CSS  # type: ignore[assignment]
    OPERATION = "plugin_delete"
    NOUN = "deletion of the plugin session"
    TITLE = "Delete plugin session"
    SEND_LABEL = "Delete"
    RESULT_IS_CHARGE = False

    def compose_form(self) -> ComposeResult:
        yield Static(Text("The session stops working for the merchant's page."), id="note")

    async def prepare(self, executor: ActionExecutor) -> Text:
        session = await (await self.app.get_client()).get_plugin_session(self.charge_id)
        text = Text.assemble(("Session ", "bold"), safe(session.session_id))
        for label, value in (("Type", session.type), ("Account", session.account_id)):
            if value:
                text.append(f"\n{label}: ")
                text.append(safe(value))
        return text

    def validate(self) -> dict[str, Any] | None:
        return {}

    def review(self, params: dict[str, Any]) -> Text:
        text = Text("Will delete plugin session ", style="bold")
        text.append(safe(self.charge_id), style="bold")
        text.append_text(self.next_key_line("delete"))
        return text

    def operation_params(self, params: dict[str, Any]) -> NoParams:
        return NoParams()

    def _review_when_ready(self) -> None:
        if self.step == "form":
            self.go()

    def watch_step(self, step: str) -> None:
        super().watch_step(step)
        if step == "form":  # nothing to fill in: the review (the confirmation) at once
            self.call_after_refresh(self._review_when_ready)


__all__ = [
    "DeleteSessionModal",
    "EnrollmentSessionModal",
    "PaymentSessionModal",
    "status_text",
]
