"""Refund a charge: amount (defaults to what is left), reason, tags, attributes; the refund id."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Input, TextArea

from paytui.actions import AmountError, format_amount, parse_amount
from paytui.actions.basis import Basis, RefundSeen
from paytui.actions.ops import refund
from paytui.limits import check_attributes, check_tags, check_text
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.screens.modals.confirm import MoneyActionModal, field_beside
from paytui.ui.widgets.safe_input import SafeInput
from paytui.ui.widgets.safe_text_area import SafeTextArea
from paytui.validation import parse_attributes, parse_tags

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor, ActionOutcome


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
    PRESENCE = "refunding"

    def __init__(self, charge_id: str) -> None:
        super().__init__(charge_id)
        self.remaining: Decimal | None = None
        #: What is left after this dialog's own refund, from the service's answer.
        self._after_own: Basis | None = None
        #: Who made each earlier refund shown ("by ana", "outside paytui"), by refund id.
        self._makers: dict[str, str] = {}

    def compose_form(self) -> ComposeResult:
        yield field_beside("Amount", SafeInput(id="amount", compact=True), "amount")
        reason = SafeInput(id="reason", placeholder="optional, e.g. customer request", compact=True)
        yield field_beside("Reason", reason, "reason")
        tags = SafeInput(
            id="tags", placeholder="optional, comma separated: vip, goodwill", compact=True
        )
        yield field_beside("Tags", tags, "tags")
        attributes = SafeTextArea(
            id="attributes",
            soft_wrap=False,
            compact=True,
            placeholder="optional, one key=value a line",
        )
        yield field_beside("Attributes", attributes, "attributes")

    async def prepare(self, executor: ActionExecutor) -> Text:
        # What the person decides on — its refunds are listed in the dialog, so a refund of the
        # same amount already there is one they saw (`shown`); the refund is tied to this state:
        # anything new since (another refund, by anyone) and nothing is sent.
        basis = (await executor.observe("refund", self.charge_id)).with_shown()
        self.basis = basis
        self.remaining = basis.left
        await self._read_makers(basis)
        if self.remaining is None or self.remaining <= 0:
            from paytui.actions import PrecheckFailed

            raise PrecheckFailed("Nothing left to refund: this charge is refunded in full")
        amount = self.query_one("#amount", Input)
        if not amount.value.strip():  # reviewed again: what was typed stays
            amount.value = format_amount(self.remaining, grouping=False)
        return self._info(basis.charge)

    async def _read_makers(self, basis: Basis) -> None:
        """Who made each earlier refund ("by ana", "outside paytui"): the person deciding
        sees who acted, not only an id."""
        ids = [r.refund_id for r in basis.refunds if r.refund_id not in self._makers]
        if not ids:
            return
        try:
            self._makers.update(await self.app.session.actions.who_made(ids))
        except Exception:
            return  # named by id only; the journal's trouble is said where it matters

    def _info(self, charge: Any) -> Text:
        text = Text()
        text.append("Charged    ", style="bold")
        text.append(fmt.money(charge.total_amount))
        text.append("\nLeft       ", style="bold")
        text.append(fmt.money(self.remaining))
        text.append("\nMethod     ", style="bold")
        text.append(Text(safe(fmt.card_text(charge))))
        text.append("\nStatus     ", style="bold")
        text.append_text(fmt.status(charge.status))
        basis = self.basis
        if basis is not None and basis.refunds:
            now = self.app.now()
            for refund in basis.refunds[:5]:
                text.append("\nRefunded   ", style="bold")
                text.append(fmt.money(refund.amount))
                age = f", {fmt.age(refund.at, now)} ago" if refund.at is not None else ""
                maker = self._makers.get(refund.refund_id)
                by = f", {maker}" if maker else ""
                text.append(Text(safe(f"  ({refund.refund_id}{age}{by})")))
            if len(basis.refunds) > 5:
                text.append(f"\n           and {len(basis.refunds) - 5} more refunds")
        return text

    def on_mount(self) -> None:
        # Runs besides the base's `on_mount` (Textual dispatches along the MRO).
        self.app.charges_changed.subscribe(self, self._charges_changed)

    def _show_outcome(self, outcome: ActionOutcome) -> None:
        """This refund went through: what is left now follows from the service's answer, so
        the dialog needs no read of its own (the detail beneath reads the charge again)."""
        refund = outcome.refund
        if (
            outcome.succeeded
            and refund is not None
            and refund.total_amount is not None
            and self.basis is not None
            and self.remaining is not None
        ):
            seen = RefundSeen(
                refund.refund_id, refund.total_amount, refund.refund_timestamp, refund.status
            )
            self._makers[refund.refund_id] = "by you"
            self._after_own = replace(
                self.basis,
                refunds=(seen, *self.basis.refunds),
                left=max(self.remaining - refund.total_amount, Decimal(0)),
            )
        super()._show_outcome(outcome)

    def _charges_changed(self, charge_ids: tuple[str, ...]) -> None:
        """After this refund (or another on the same charge), "Left" is what is left now."""
        if self.charge_id not in charge_ids or self.step != "result":
            return
        own, self._after_own = self._after_own, None
        if own is not None:  # our own refund, as the service answered it
            self.basis, self.remaining = own, own.left
            self._show_info(self._info(own.charge))
            return
        self._refresh_left()  # another refund of this charge: read what is left

    @work(exclusive=True, group="refund-left")
    async def _refresh_left(self) -> None:
        try:
            executor = await self.app.actions.executor()
            basis = (await executor.observe("refund", self.charge_id)).with_shown()
        except Exception:  # the result stays on screen; the detail beneath shows the truth
            return
        self.basis, self.remaining = basis, basis.left
        await self._read_makers(basis)
        self._show_info(self._info(basis.charge))

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
        too_long = {"reason": check_text("reason", reason), "tags": check_tags(tags)}
        for field, problem in too_long.items():
            self.field_error(field, problem)
            ok = ok and problem is None
        attributes, message = parse_attributes(self.query_one("#attributes", TextArea).text)
        message = message or check_attributes(attributes or {})
        self.field_error("attributes", message)
        if message:
            ok = False
        elif attributes:
            params["attributes"] = attributes
        return params if ok else None

    def review(self, params: dict[str, Any]) -> Text:
        amount = params["amount"]
        text = Text("Refund ", style="bold")
        text.append(fmt.money(amount), style="bold")
        whole = self.remaining is not None and amount == self.remaining
        text.append(" (all that is left)" if whole else f" of the {fmt.money(self.remaining)} left")
        text.append(safe(f" of charge {self.charge_id}"))
        if "reason" in params:
            text.append("\n  Reason: ")
            text.append(Text(safe(params["reason"])))
        if "tags" in params:
            text.append("\n  Tags: ")
            text.append(Text(safe(", ".join(params["tags"]))))
        for key, values in params.get("attributes", {}).items():
            text.append("\n  ")
            text.append(Text(safe(f"{key} = {', '.join(values)}")))
        text.append_text(self.next_key_line("refund"))
        return text

    def operation_params(self, params: dict[str, Any]) -> refund.Params:
        return refund.Params(
            params["amount"],
            reason=params.get("reason"),
            tags=params.get("tags"),
            attributes=params.get("attributes"),
        )


__all__ = ["RefundModal"]
