"""Create or update a stored card token (modal).

Create: account, card number (`CardInput`: only the last four ever show), card expiry (YYYY-MM),
holder's first / last name and country, an optional token expiry; reason ``on_file``. Luhn, brand
and expiry are checked before anything is sent, each message next to its field, and nothing typed
is lost on an error. The result (token id, fraud score, processor messages, token expiry) shows in
the dialog; escape closes it and answers the token.

Update (PUT): card expiry, holder's names and country, token expiry; only what changed is sent.

Both go through the app's one executor and journal (`create_token` / `update_token`), like a
refund: sent once; an answer lost after the service acted is read back, so an applied change reads
as done, and an outcome still unknown says so ("check in History"), never as an error.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from paytui.text import safe
from paytui.ui.bindings import FORM_BINDINGS
from paytui.ui.format import date, timestamp
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.card_input import CardInput
from paytui.ui.widgets.errors import describe_error
from paytui.ui.widgets.form import FORMS_TCSS, FormMixin, field_row
from paytui.ui.widgets.safe_input import SafeInput
from paytui.validation import check_country, check_expiration

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor, ActionOutcome
    from paytui.api.models import Token


def token_expiry_instant(text: str) -> tuple[datetime | None, str | None]:
    """An optional token expiry typed as YYYY-MM-DD: (instant at 00:00 UTC, None) or
    (None, error)."""
    value = text.strip()
    if not value:
        return None, None
    try:
        day = datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        return None, "Use YYYY-MM-DD (or leave empty for the default of three years)"
    return day.replace(tzinfo=UTC), None


#: Wire field -> form field, for the service's 422 messages.
_TOKEN_FIELDS = {
    "account_id": "account",
    "payment_method.card_number": "card",
    "payment_method.expiration_date": "expiry",
    "payment_method.contact.first_name": "first",
    "payment_method.contact.last_name": "last",
    "payment_method.contact.country": "country",
    "token_expiration_date": "token-expiry",
}


class TokenFormScreen(FormMixin, PaytuiModal["Token | None"]):
    """`TokenFormScreen(account_id=...)` creates; `TokenFormScreen(token=...)` updates."""

    TEXT_ENTRY = True

    CSS_PATH = FORMS_TCSS
    BINDINGS: ClassVar[list[BindingType]] = [*FORM_BINDINGS]
    HELP_TITLE = "Token form"
    KEYS_TITLE = "Forms (token, charge a token)"

    def __init__(self, *, account_id: str | None = None, token: Token | None = None) -> None:
        super().__init__()
        self.token = token
        self.account_id = account_id or (token.account_id if token is not None else None) or ""
        self.result: Token | None = None
        self._sending = False
        #: The explicit "store another" after an earlier attempt did go through (its entry),
        #: or after the same card was stored recently ("again").
        self._acknowledge: int | None = None
        self._again = False

    @property
    def creating(self) -> bool:
        return self.token is None

    def compose(self) -> ComposeResult:
        card = None
        contact = None
        if self.token is not None and self.token.payment_method is not None:
            card = self.token.payment_method
            contact = card.contact
        with Vertical(id="dialog", classes="form-dialog"):
            if self.creating:
                yield Static(
                    Text("New token: store a card on file", style="bold"),
                    id="title",
                    classes="form-title",
                )
            else:
                title = Text("Update token ", style="bold")
                title.append(self.token.token_id if self.token else "")
                yield Static(title, id="title", classes="form-title")
            with VerticalScroll(id="fields", classes="form-fields"):
                if self.creating:
                    yield field_row(
                        "Account",
                        SafeInput(self.account_id, placeholder="pa_…", id="account", compact=True),
                        "account",
                    )
                    yield field_row("Card number", CardInput(id="card"), "card")
                expiry = getattr(card, "expiration_date", None) or ""
                yield field_row(
                    "Card expiry",
                    SafeInput(expiry, placeholder="YYYY-MM", id="expiry", compact=True),
                    "expiry",
                )
                yield field_row(
                    "First name",
                    SafeInput(getattr(contact, "first_name", None) or "", id="first", compact=True),
                    "first",
                )
                yield field_row(
                    "Last name",
                    SafeInput(getattr(contact, "last_name", None) or "", id="last", compact=True),
                    "last",
                )
                yield field_row(
                    "Country",
                    SafeInput(
                        getattr(contact, "country", None) or ("US" if self.creating else ""),
                        placeholder="US",
                        id="country",
                        compact=True,
                    ),
                    "country",
                )
                current = ""
                if self.token is not None and self.token.token_expiration_date is not None:
                    current = date(self.token.token_expiration_date)
                yield field_row(
                    "Token expires",
                    SafeInput(
                        current,
                        placeholder="YYYY-MM-DD (empty: 3 years)",
                        id="token-expiry",
                        compact=True,
                    ),
                    "token-expiry",
                )
            yield Static(Text(""), id="form-status", classes="form-status")
            yield Static(Text(""), id="result", classes="form-result")
            yield Static(
                Text("ctrl+s send · tab next field · esc close", style="dim"),
                id="form-hint",
                classes="form-hint",
            )

    def on_mount(self) -> None:
        first = "#account" if self.creating and not self.account_id else None
        if self.creating and self.account_id:
            first = "#card"
        self.set_focus(self.query_one(first or "#expiry"))  # now: keys typed at once land here

    def _status(self, text: Text) -> None:
        self.query_one("#form-status", Static).update(text)

    # --- checking ---------------------------------------------------------------------------
    def _check(self) -> dict[str, Any] | None:
        """Check every field; show each error next to its field; None when any is wrong."""
        self.clear_errors()
        today = paytui_app(self).now()
        errors: dict[str, str] = {}
        if self.creating:
            if not self.value("account"):
                errors["account"] = "Enter the account (pa_…)"
            card_error = self.query_one("#card", CardInput).check()
            if card_error:
                errors["card"] = card_error
        expiry = self.value("expiry")
        if (self.creating or expiry) and (message := check_expiration(expiry, today)):
            errors["expiry"] = message
        if message := check_country(self.value("country")):
            errors["country"] = message
        instant, message = token_expiry_instant(self.value("token-expiry"))
        if message:
            errors["token-expiry"] = message
        elif instant is not None and instant <= today:
            errors["token-expiry"] = "Must be in the future"
        for name, text in errors.items():
            self.set_error(name, text)
        if errors:
            self._status(Text(f"Nothing sent: {len(errors)} field(s) to fix.", style="bold"))
            return None
        return {"expiry": expiry, "token_expiry": instant}

    def _contact(self) -> Any:
        from paytui.api.models import Contact

        values = {
            "first_name": self.value("first") or None,
            "last_name": self.value("last") or None,
            "country": self.value("country").upper() or None,
        }
        if not any(values.values()):
            return None
        return Contact(**values)

    def action_submit(self) -> None:
        if self._sending:
            return
        if self.result is not None:
            self.dismiss(self.result)
            return
        checked = self._check()
        if checked is None:
            self.app.bell()
            return
        if self.creating:
            from paytui.api.models import TokenCreatePaymentMethodRequest, TokenRequest

            card = self.query_one("#card", CardInput)
            request: Any = TokenRequest(
                account_id=self.value("account"),
                payment_method=TokenCreatePaymentMethodRequest(
                    card_number=card.secret,
                    expiration_date=checked["expiry"],
                    contact=self._contact(),
                ),
                token_expiration_date=checked["token_expiry"],
            )
        else:
            request = self._update_request(checked)
            if request is None:
                self._status(Text("Nothing changed: nothing to send."))
                return
        self._sending = True
        self._status(Text("Sending…"))
        self._send(request)

    def _update_request(self, checked: dict[str, Any]) -> Any:
        from paytui.api.models import TokenUpdate, TokenUpdatePaymentMethod

        assert self.token is not None
        old = self.token.payment_method
        old_contact = getattr(old, "contact", None)
        expiry = checked["expiry"] or None
        if expiry == getattr(old, "expiration_date", None):
            expiry = None
        contact = self._contact()
        if contact is not None and old_contact is not None:
            same = all(
                getattr(contact, f) == getattr(old_contact, f)
                for f in ("first_name", "last_name", "country")
            )
            if same:
                contact = None
        token_expiry = checked["token_expiry"]
        current = self.token.token_expiration_date
        if (
            token_expiry is not None
            and current is not None
            and token_expiry.date() == current.date()
        ):
            token_expiry = None
        method = None
        if expiry is not None or contact is not None:
            method = TokenUpdatePaymentMethod(expiration_date=expiry, contact=contact)
        if method is None and token_expiry is None:
            return None
        return TokenUpdate(payment_method=method, token_expiration_date=token_expiry)

    @work(exclusive=True, group="token-form")
    async def _send(self, request: Any) -> None:
        """Through the app's one executor and journal, like a refund: sent once, a lost answer
        read back (the token is found among the account's, or proven not stored)."""
        from paytui.actions import ActionError
        from paytui.actions.ops import token

        try:
            executor = await paytui_app(self).actions.executor()
            if self.creating:
                outcome = await executor.run(
                    "token_create",
                    request.account_id,
                    token.CreateParams(request),
                    acknowledge_earlier=self._acknowledge,
                    again=self._again,
                )
            else:
                assert self.token is not None
                outcome = await executor.run(
                    "token_update",
                    self.token.token_id,
                    token.UpdateParams(request),
                    acknowledge_earlier=self._acknowledge,
                )
        except ActionError as exc:  # nothing was sent
            self._sending = False
            self._refused(exc)
            return
        except Exception as exc:
            self._sending = False
            info = describe_error(exc)
            placed = self.show_server_errors(exc, _TOKEN_FIELDS)
            line = Text(f"{info.title}. ", style="bold")
            line.append(info.message if not placed else "See the fields above.")
            self._status(line)
            self.app.notify(info.message, title=info.title, severity="error", markup=False)
            return
        self._sending = False
        self._acknowledge, self._again = None, False
        await self._show_outcome(outcome, executor)

    def _refused(self, exc: Exception) -> None:
        """Nothing was sent: say why; after an earlier attempt that did go through (or the same
        card stored recently), the next ctrl+s is the explicit "store another"."""
        from paytui.actions import EarlierAttemptApplied, RecentlyDone

        message = str(getattr(exc, "message", exc))
        line = Text("Nothing sent. ", style="bold")
        line.append(safe(message))
        if isinstance(exc, EarlierAttemptApplied):
            self._acknowledge = exc.entry.id
            line.append(" Press ctrl+s to store another.", style="bold")
        elif isinstance(exc, RecentlyDone):
            self._again = True
            line.append(" Press ctrl+s to store it again.", style="bold")
        self._status(line)
        self.app.notify(message, title="Tokens", severity="warning", markup=False)

    async def _show_outcome(self, outcome: ActionOutcome, executor: ActionExecutor) -> None:
        from paytui.api.models import Token

        message = outcome.message or outcome.state
        if outcome.state == "unknown":
            line = Text("Outcome unknown — check in History (5). ", style="bold")
            line.append(safe(message))
            self._status(line)
            self.app.notify(
                "Outcome unknown — check in History (5)",
                title="Tokens",
                severity="warning",
                markup=False,
            )
            return
        if not outcome.succeeded:  # refused by the service (final), or proven not applied
            placed = False
            for wire, name in _TOKEN_FIELDS.items():  # a 422 names the field it refused
                if wire in message:
                    self.set_error(name, message)
                    placed = True
            title = "Not stored" if self.creating else "Not changed"
            line = Text(f"{title}. ", style="bold")
            line.append(safe(message) if not placed else "See the fields above.")
            self._status(line)
            self.app.notify(message, title=title, severity="error", markup=False)
            return
        token = outcome.result
        if not isinstance(token, Token) and outcome.result_id:
            try:
                token = await (await self.app.get_client()).get_token(outcome.result_id)
            except Exception:
                token = None
        if not isinstance(token, Token):  # done, but the token could not be read to show it
            self._status(Text(safe(message), style="bold"))
            return
        self.result = token
        self._status(Text(safe(message), style="bold"))
        self.query_one("#result", Static).update(token_summary(token))
        self.query_one("#fields").display = False
        self.query_one("#form-hint", Static).update(Text("esc / ctrl+s close", style="dim"))
        verb = "Created" if self.creating else "Updated"
        self.app.notify(f"{verb} token {token.token_id}", title="Tokens", markup=False)

    def action_cancel(self) -> None:
        self.dismiss(self.result)


def token_summary(token: Token) -> Text:
    """Token id, card, fraud score, processor messages and token expiry, as lines of Text."""
    text = Text()

    def line(label: str, value: object) -> None:
        text.append(f"{label:<16}", style="bold")
        text.append("—" if value in (None, "") else safe(value))
        text.append("\n")

    pm = token.payment_method
    line("Token id", token.token_id)
    line("Account", token.account_id)
    line("Card", getattr(pm, "card_number", None))
    line("Brand", getattr(pm, "type", None))
    line("Card expiry", getattr(pm, "expiration_date", None))
    contact = getattr(pm, "contact", None)
    line("Holder", contact.name if contact is not None else None)
    line("Country", getattr(contact, "country", None))
    line("Reason", token.reason)
    line("Fraud score", token.fraud_score)
    messages = token.processor_messages
    line("AVS", getattr(messages, "avs_response", None))
    line("CVV", getattr(messages, "cv_response", None))
    if messages is not None and messages.message:
        line("Processor", messages.message)
    line("Created", timestamp(token.created_timestamp))
    line("Token expires", timestamp(token.token_expiration_date))
    extra = token.model_extra or {}
    for key, value in extra.items():
        line(key, value)
    text.rstrip()
    return text
