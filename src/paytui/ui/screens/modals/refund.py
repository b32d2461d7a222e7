"""Refund a charge: amount (defaults to what is left), reason, tags, attributes; the refund id."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Input, Static, TextArea

from paytui.actions import AmountError, format_amount, parse_amount
from paytui.ui import format as fmt
from paytui.ui.screens.modals.capture import card_text
from paytui.ui.screens.modals.confirm import MoneyActionModal

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor, ActionOutcome


def parse_tags(text: str) -> list[str]:
    """A comma list, blanks dropped, order kept, duplicates once."""
    return list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))


def parse_attributes(text: str) -> dict[str, list[str]]:
    """`key=value` lines (a key may repeat; `key=a,b` gives two values). Raises ValueError."""
    result: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"Line {number}: write key=value")
        values = [v.strip() for v in value.split(",") if v.strip()]
        bucket = result.setdefault(key.strip(), [])
        bucket.extend(v for v in values if v not in bucket)
    return result


def format_attributes(attributes: dict[str, list[str]]) -> str:
    return "\n".join(f"{key}={','.join(values)}" for key, values in attributes.items())


class RefundModal(MoneyActionModal):
    """`r` on a charge. More than what is left is refused next to the field, before sending."""

    CSS_PATH = [
        Path(__file__).with_name("confirm.tcss"),
        Path(__file__).with_name("refund.tcss"),
    ]
    OPERATION = "refund"
    NOUN = "refund"
    TITLE = "Refund"
    SEND_LABEL = "Refund"
    RESULT_IS_CHARGE = False

    def __init__(self, charge_id: str) -> None:
        super().__init__(charge_id)
        self.remaining: Decimal | None = None

    def compose_form(self) -> ComposeResult:
        yield Static(Text("Amount"), classes="field-label")
        yield Input(id="amount")
        yield Static(Text(""), id="amount-error", classes="field-error")
        yield Static(Text("Reason (optional)"), classes="field-label")
        yield Input(id="reason", placeholder="e.g. customer request")
        yield Static(Text(""), id="reason-error", classes="field-error")
        yield Static(Text("Tags (optional, comma separated)"), classes="field-label")
        yield Input(id="tags", placeholder="vip, goodwill")
        yield Static(Text(""), id="tags-error", classes="field-error")
        yield Static(Text("Attributes (optional, one key=value a line)"), classes="field-label")
        yield TextArea(id="attributes", soft_wrap=False)
        yield Static(Text(""), id="attributes-error", classes="field-error")

    async def prepare(self, executor: ActionExecutor) -> Text:
        charge = await executor.client.get_charge(self.charge_id)
        self.remaining = await executor.remaining_refundable(self.charge_id)
        if self.remaining <= 0:
            from paytui.actions import PrecheckFailed

            raise PrecheckFailed("Nothing left to refund: this charge is refunded in full")
        self.query_one("#amount", Input).value = format_amount(self.remaining).replace(",", "")
        return self._info(charge)

    def _info(self, charge: Any) -> Text:
        text = Text()
        text.append("Charged    ", style="bold")
        text.append(fmt.money(charge.total_amount))
        text.append("\nLeft       ", style="bold")
        text.append(fmt.money(self.remaining))
        text.append("\nMethod     ", style="bold")
        text.append(Text(card_text(charge)))
        text.append("\nStatus     ", style="bold")
        text.append_text(fmt.status(charge.status))
        return text

    def on_mount(self) -> None:
        # Runs besides the base's `on_mount` (Textual dispatches along the MRO).
        self.app.charges_changed.subscribe(self, self._charges_changed)

    def _charges_changed(self, charge_ids: tuple[str, ...]) -> None:
        """After this refund (or another on the same charge), "Left" is what is left now."""
        if self.charge_id in charge_ids and self.step == "result":
            self._refresh_left()

    @work(exclusive=True, group="refund-left")
    async def _refresh_left(self) -> None:
        try:
            executor = await self.app.actions.executor()
            charge = await executor.client.get_charge(self.charge_id)
            self.remaining = await executor.remaining_refundable(self.charge_id)
        except Exception:  # the result stays on screen; the detail beneath shows the truth
            return
        self.query_one("#dialog-info", Static).update(self._info(charge))

    def validate(self) -> dict[str, Any] | None:
        params: dict[str, Any] = {}
        ok = True
        try:
            params["amount"] = parse_amount(
                self.query_one("#amount", Input).value, maximum=self.remaining
            )
            self.field_error("amount", None)
        except AmountError as exc:
            self.field_error("amount", exc.message)
            ok = False
        reason = self.query_one("#reason", Input).value.strip()
        if reason:
            params["reason"] = reason
        tags = parse_tags(self.query_one("#tags", Input).value)
        if tags:
            params["tags"] = tags
        try:
            attributes = parse_attributes(self.query_one("#attributes", TextArea).text)
            self.field_error("attributes", None)
        except ValueError as exc:
            self.field_error("attributes", str(exc))
            ok = False
        else:
            if attributes:
                params["attributes"] = attributes
        return params if ok else None

    def review(self, params: dict[str, Any]) -> Text:
        amount = params["amount"]
        text = Text("Refund ", style="bold")
        text.append(fmt.money(amount), style="bold")
        whole = self.remaining is not None and amount == self.remaining
        text.append(" (all that is left)" if whole else f" of the {fmt.money(self.remaining)} left")
        text.append(f" of charge {self.charge_id}")
        if "reason" in params:
            text.append("\n  Reason: ")
            text.append(Text(params["reason"]))
        if "tags" in params:
            text.append("\n  Tags: ")
            text.append(Text(", ".join(params["tags"])))
        for key, values in params.get("attributes", {}).items():
            text.append("\n  ")
            text.append(Text(f"{key} = {', '.join(values)}"))
        text.append("\nPress enter to refund, escape to cancel. This cannot be undone.")
        return text

    async def send(
        self, executor: ActionExecutor, params: dict[str, Any], confirmation: str | None
    ) -> ActionOutcome:
        return await executor.refund(
            self.charge_id,
            params["amount"],
            reason=params.get("reason"),
            tags=params.get("tags"),
            attributes=params.get("attributes"),
            confirmation=confirmation,
        )


__all__ = ["RefundModal", "format_attributes", "parse_attributes", "parse_tags"]
