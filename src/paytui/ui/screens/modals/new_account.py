"""New payment account (`POST /v2/accounts`) of a merchant, through the executor and journal.

Merchant, name, merchant category code, the processing limit is the service's default (shown on
the account once made), tags; tax authority and its state only for category 9311 (refused with
the reason otherwise, before anything is sent; the sandbox refuses it too). The new account
starts boarding (`submitted`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult

from paytui.actions.ops import account as account_op
from paytui.api.models import Account
from paytui.plugin_rules import TAX_MCC
from paytui.text import safe
from paytui.ui.plugin_forms import account_request, limit_text
from paytui.ui.screens.modals.confirm import outcome_text
from paytui.ui.screens.modals.plugin_session import _PluginFormModal, text_field

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor, ActionOutcome


class NewAccountModal(_PluginFormModal):
    """`A` on an account's detail (same merchant), or the palette's "New account"."""

    OPERATION = "account_create"
    NOUN = "new account"
    TITLE = "New account of"
    REVIEW_LEAD = "Will create an account:"
    FIELDS = ("merchant", "name", "mcc", "tax-authority", "tax-state", "tags")

    def __init__(self, merchant_id: str | None = None) -> None:
        super().__init__(merchant_id or "a merchant")
        self.merchant_id = merchant_id or ""

    def compose_form(self) -> ComposeResult:
        yield from text_field("Merchant", "merchant", self.merchant_id, "mt_…")
        yield from text_field("Account name", "name")
        yield from text_field("Merchant category code (4 digits)", "mcc", placeholder="5999")
        yield from text_field(f"Tax authority (category {TAX_MCC} only)", "tax-authority")
        yield from text_field("Tax authority state (two letters)", "tax-state", placeholder="MN")
        yield from text_field("Tags (comma separated)", "tags")

    def focus_first(self) -> None:
        """With the merchant filled in (`A` on an account), the first thing to type is the
        account's name: starting on the merchant made the typed name replace its id."""
        if self.merchant_id:
            self.set_focus(self.query_one("#name"))
            return
        super().focus_first()

    async def prepare(self, executor: ActionExecutor) -> Text:
        return Text(
            f"The account starts boarding (submitted). A tax authority applies to merchant"
            f" category {TAX_MCC} only.",
            style="dim",
        )

    def validate(self) -> dict[str, Any] | None:
        request, errors = account_request(self.values())
        self.show_errors(errors)
        if request is None:
            return None
        self.charge_id = request.merchant_id  # the executor's target (in flight, countdown)
        return {"request": request}

    def target(self, params: dict[str, Any]) -> str:
        return str(params["request"].merchant_id)

    def operation_params(self, params: dict[str, Any]) -> account_op.Params:
        return account_op.Params(params["request"])

    def _show_outcome(self, outcome: ActionOutcome) -> None:
        super()._show_outcome(outcome)
        account = outcome.result
        if isinstance(account, Account) and self.is_attached:
            self.app.copy_to_clipboard(account.account_id)
            text = outcome_text(outcome, self.NOUN)
            text.append("\nAccount id: ", style="bold")
            text.append(safe(account.account_id), style="bold reverse")
            text.append(f"  (copied)\nStatus: {safe(account.status or '—')}")
            if account.max_transaction_amount is not None:
                # The one form of a limit, as the account detail and the session form say it.
                text.append(f" · processing limit {limit_text(account)}")
            if account.tax_authority:
                text.append(
                    f"\nTax authority: {safe(account.tax_authority)}"
                    f" {safe(account.tax_authority_state or '')}"
                )
            self._message(text)


__all__ = ["NewAccountModal"]
