"""Refunds (command palette "Refunds"): search refunds by charge id or account, paged.

Type a charge id, or `acct:<account id>`, and press enter; `n` / `p` page; `enter` on a row opens
the refunded charge; `E` edits the highlighted refund's tags and attributes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.widgets import DataTable, Input, Static

from paytui.api.queries import RefundQuery
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.bindings import REFUNDS_BINDINGS
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.fit_table import FitColumn, FitTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState, add_unreadable_rows, showing
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from paytui.api.models import Page, Refund

PAGE_SIZE = 50
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


class RefundsScreen(PaytuiScreen[None]):
    """Search refunds, a page at a time."""

    CSS_PATH = Path(__file__).with_name("refunds.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*REFUNDS_BINDINGS]
    HELP_TITLE = "Refunds"
    AUTO_FOCUS = "#refunds-table"

    def __init__(self, query: RefundQuery | None = None) -> None:
        super().__init__()
        self.refund_query = query or RefundQuery()
        self.page_offset = 0
        self.page: Page[Refund] | None = None

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield SafeInput(
            placeholder="/ charge id, or acct:<account id>; enter searches", id="refunds-query"
        )
        yield Static(Text(""), id="refunds-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitTable(COLUMNS, id="refunds-table", cursor_type="row", zebra_stripes=True)
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.load()

    @property
    def state(self) -> str:
        """loading | results | empty | error (the list kit's panel holds it)."""
        return self.query_one(ListState).state

    def load(self, offset: int | None = None) -> None:
        """Read the page at `offset` (this page by default); the offset moves once it is read."""
        if self.page is None or not self.page.items:
            self.query_one(ListState).show_loading("refunds")
        self._read(self.page_offset if offset is None else offset)

    @work(exclusive=True, group="refunds-load")
    async def _read(self, offset: int) -> None:
        status = self.query_one("#refunds-status", Static)
        try:
            client = await paytui_app(self).get_client()
            page = await client.search_refunds_page(
                self.refund_query, limit=PAGE_SIZE, offset=offset
            )
        except Exception as exc:
            has_rows = self.page is not None and bool(self.page.items)
            info = self.query_one(ListState).show_failed(exc, rows_on_screen=has_rows)
            self.app.notify(info.message, title=info.title, severity="error", markup=False)
            return
        self.page = page
        self.page_offset = offset
        table = self.query_one(FitTable)
        table.clear()
        for refund in page.items:
            table.add_row(
                fmt.literal(refund.refund_id),
                fmt.literal(refund.charge_id or "—"),
                Text(fmt.money(refund.total_amount), justify="right"),
                fmt.status(refund.status),
                Text(fmt.timestamp(refund.refund_timestamp)),
                fmt.literal(refund.reason or ""),
            )
        shown = len(page.items) + add_unreadable_rows(table, page.unreadable)
        text = showing(shown, page.total, first=self.page_offset)
        if page.has_more:
            text.append("   n: next page")
        if self.page_offset:
            text.append("   p: previous page")
        if page.ignored_note:
            text.append(f"   {page.ignored_note}", style="bold")
        status.update(text)
        if shown:
            self.query_one(ListState).show_results()
        else:
            self.query_one(ListState).show_empty(
                "No refunds match.\nChange the search and press Enter."
            )
        self.refresh_bindings()

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_page":
            return True if self.page is not None and self.page.has_more else None
        if action == "previous_page":
            return True if self.page_offset > 0 else None
        return True

    @on(Input.Submitted, "#refunds-query")
    def _search(self, event: Input.Submitted) -> None:
        event.stop()
        self.refund_query = parse_refund_search(event.value)
        self.query_one(DataTable).focus()
        self.load(0)

    def action_focus_search(self) -> None:
        self.query_one("#refunds-query", Input).focus()

    def action_next_page(self) -> None:
        if self.page is not None and self.page.has_more:
            self.load(self.page_offset + PAGE_SIZE)

    def action_previous_page(self) -> None:
        if self.page_offset:
            self.load(max(0, self.page_offset - PAGE_SIZE))

    def action_refresh(self) -> None:
        self.load()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_charge()

    def _highlighted(self) -> Refund | None:
        table = self.query_one(DataTable)
        if self.page is None or not (0 <= table.cursor_row < len(self.page.items)):
            return None
        return self.page.items[table.cursor_row]

    def action_open_charge(self) -> None:
        refund = self._highlighted()
        if refund is not None and refund.charge_id:
            self.post_message(messages.OpenCharge(refund.charge_id))

    # --- the registry's refund edit (the one executor, as a charge's tag edit) -------------------
    def action_subject(self, action: str) -> object | None:
        return self._highlighted() if action == "edit_refund" else None

    def action_target(self, action: str) -> str | None:
        refund = self._highlighted()
        return refund.refund_id if refund is not None and action == "edit_refund" else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()

    async def action_edit_refund(self) -> None:
        from paytui.ui.screens.modals.edit_tags import EditRefundTagsModal

        refund = self._highlighted()
        if refund is not None:
            await self.app.push_screen(
                EditRefundTagsModal(refund.refund_id), lambda _result: self.load()
            )


__all__ = ["RefundsScreen", "parse_refund_search"]
