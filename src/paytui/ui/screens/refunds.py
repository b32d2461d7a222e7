"""Refunds (command palette "Refunds"): search refunds by charge id or account, paged.

Type a charge id, or `acct:<account id>`, and press enter; the next page is read as the cursor
nears the end (the list kit's one paging); `enter` on a row opens
the refunded charge; `E` edits the highlighted refund's tags and attributes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Input, Static

from paytui.api.queries import RefundQuery
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.screens.paged_list import PagedListScreen
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Page, Refund

#: Amounts, statuses and times whole; ids cut with `…` before the reason (free text) goes.
COLUMNS = (
    FitColumn("Refund", "Refund", priority=1, min_width=12),
    FitColumn("Charge", "Charge", priority=1, min_width=12),
    FitColumn("Amount", Text("Amount", justify="right")),
    FitColumn("Status", "Status"),
    FitColumn("Refunded (UTC)", "Refunded (UTC)"),
    FitColumn("Reason", "Reason", priority=2, min_width=10, free_text=True),
)


def parse_refund_search(text: str) -> RefundQuery:
    """Empty: every refund; `acct:<id>` / `account:<id>`: an account's; else a charge id."""
    text = text.strip()
    for prefix in ("acct:", "account:"):
        if text.lower().startswith(prefix):
            return RefundQuery(account_id=text[len(prefix) :].strip() or None)
    return RefundQuery(charge_id=text or None)


REFUNDS_BINDINGS: list[Binding] = [
    Binding(
        "slash",
        "focus_search",
        "Search",
        id="refunds.search",
        tooltip="Search by charge id or account (acct:pa_...)",
    ),
    Binding(
        "enter", "open_charge", "Open charge", id="refunds.open", tooltip="Open the refunded charge"
    ),
    Binding(
        "ctrl+e",
        "edit_refund",
        "Edit refund tags",
        id="refunds.edit",
        tooltip="Edit the highlighted refund's tags and attributes (needs urn:v2:refunds:all)",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="refunds.refresh", tooltip="Reload / retry"),
]


class RefundsScreen(PagedListScreen["Refund"]):
    """Search refunds; scrolling reads the next page."""

    CSS_PATH = Path(__file__).with_name("refunds.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*REFUNDS_BINDINGS]
    HELP_TITLE = "Refunds"
    COMMAND_SCOPE = "refunds"
    AUTO_FOCUS = "#refunds-table"
    NOUN = "refunds"
    STATUS_ID = "refunds-status"

    def __init__(self, query: RefundQuery | None = None) -> None:
        super().__init__()
        self.refund_query = query or RefundQuery()

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield SafeInput(
            placeholder="/ charge id, or acct:<account id>; enter searches", id="refunds-query"
        )
        yield Static(Text(""), id="refunds-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(COLUMNS, id="refunds-table", cursor_type="row", zebra_stripes=True)
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.load()

    @property
    def state(self) -> str:
        """loading | results | empty | error (the list kit's panel holds it)."""
        return self.query_one(ListState).state

    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[Refund]:
        return await client.search_refunds_page(self.refund_query, limit=limit, offset=offset)

    def row_cells(self, item: Refund) -> list[Text]:
        return [
            fmt.literal(item.refund_id),
            fmt.literal(item.charge_id or "—"),
            Text(fmt.money(item.total_amount), justify="right"),
            fmt.status(item.status),
            Text(fmt.timestamp(item.refund_timestamp)),
            fmt.literal(item.reason or ""),
        ]

    def empty_text(self) -> str:
        return "No refunds match.\nChange the search and press Enter."

    @on(Input.Submitted, "#refunds-query")
    def _search(self, event: Input.Submitted) -> None:
        event.stop()
        self.refund_query = parse_refund_search(event.value)
        self.query_one(DataTable).focus()
        self.load()  # the last rows stay (and keep the focus) until the new ones are read

    def action_focus_search(self) -> None:
        self.query_one("#refunds-query", Input).focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_charge()

    def action_open_charge(self) -> None:
        refund = self.highlighted()
        if refund is not None and refund.charge_id:
            self.post_message(messages.OpenCharge(refund.charge_id))

    # --- the registry's refund edit (the one executor, as a charge's tag edit) -------------------
    def action_subject(self, action: str) -> object | None:
        return self.highlighted() if action == "edit_refund" else None

    def action_target(self, action: str) -> str | None:
        refund = self.highlighted()
        return refund.refund_id if refund is not None and action == "edit_refund" else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()

    async def action_edit_refund(self) -> None:
        from paytui.ui.screens.modals.dialogs import dialog_for

        refund = self.highlighted()
        if refund is not None:
            await self.app.push_screen(
                dialog_for("update_refund", refund.refund_id), lambda _result: self.load()
            )


__all__ = ["RefundsScreen", "parse_refund_search"]
