"""Capture an authorization: what was authorized, optional fees, a confirmation, the result."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Input

from paytui.actions import AmountError, parse_amount
from paytui.actions.ops import capture
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.screens.modals.confirm import MoneyActionModal, field_beside
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor

FEES = (("convenience_fee", "Convenience fee"), ("supplemental_fee", "Supplemental fee"))


class CaptureModal(MoneyActionModal):
    """`c` on an authorization. Pre-authorizations, sales and captured ones are explained."""

    CSS_PATH = [
        Path(__file__).with_name("confirm.tcss"),
        Path(__file__).with_name("capture.tcss"),
    ]
    OPERATION = "capture"
    NOUN = "capture"
    TITLE = "Capture"
    SEND_LABEL = "Capture"
    PRESENCE = "capturing"

    def __init__(self, charge_id: str) -> None:
        super().__init__(charge_id)
        self.authorized: Decimal | None = None

    def compose_form(self) -> ComposeResult:
        for field, label in FEES:
            yield field_beside(
                label, SafeInput(id=field, placeholder="optional, 0.00", compact=True), field
            )

    async def prepare(self, executor: ActionExecutor) -> Text:
        # The executor's own check (pre-authorization, sale, already captured, declined):
        # the same rules that will be enforced when sending, asked before the form is shown.
        # What the person decides on: the capture is tied to it (changed since → not sent).
        self.basis = await executor.observe("capture", self.charge_id)
        charge = self.basis.charge
        assert charge is not None  # `observe` always keeps the charge it read
        self.authorized = charge.total_amount
        now = self.app.now()
        when = charge.charge_timestamp
        rows = [
            ("Authorized", fmt.money(charge.total_amount)),
            ("Card", fmt.card_text(charge)),
            (
                "Age",
                f"{fmt.age(when, now)} (authorized {fmt.timestamp(when)} UTC)" if when else "—",
            ),
            ("Account", charge.account_id or "—"),
        ]
        text = Text()
        for index, (label, value) in enumerate(rows):
            if index:
                text.append("\n")
            text.append(f"{label:<11}", style="bold")
            text.append(Text(safe(value)))
        return text

    def validate(self) -> dict[str, Any] | None:
        params: dict[str, Any] = {}
        ok = True
        for field, _label in FEES:
            raw = self.query_one(f"#{field}", Input).value
            if not raw.strip():
                self.field_error(field, None)
                continue
            try:
                params[field] = parse_amount(raw, allow_zero=True)
            except AmountError as exc:
                self.field_error(field, exc.message)
                ok = False
            else:
                self.field_error(field, None)
        return params if ok else None

    def confirmation_amount(self, params: dict[str, Any]) -> Any:
        return (self.authorized or Decimal(0)) + sum(params.values(), Decimal(0))

    def review(self, params: dict[str, Any]) -> Text:
        total = (self.authorized or Decimal(0)) + sum(params.values(), Decimal(0))
        text = Text("Capture ", style="bold")
        text.append(fmt.money(total), style="bold")
        text.append(f" of authorization {self.charge_id}")
        for field, label in FEES:
            if field in params:
                text.append(f"\n  {label}: {fmt.money(params[field])}")
        text.append_text(self.next_key_line("capture"))
        return text

    def operation_params(self, params: dict[str, Any]) -> capture.Params:
        return capture.Params(**params)


__all__ = ["CaptureModal"]
