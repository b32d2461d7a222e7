"""Refunds (command palette "Refunds"): search refunds by charge id or account, paged.

Type a charge id, or `acct:<account id>`, and press enter; the next page is read as the cursor
nears the end (the list kit's `MoreRows`); `enter` on a row opens the refunded charge.
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
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState, add_unreadable_rows, showing
from paytui.ui.widgets.more_rows import MoreRows
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
    """Search refunds; scrolling reads the next page."""

    CSS_PATH = Path(__file__).with_name("refunds.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*REFUNDS_BINDINGS]
    HELP_TITLE = "Refunds"
    AUTO_FOCUS = "#refunds-table"

    def __init__(self, query: RefundQuery | None = None) -> None:
        super().__init__()
        self.refund_query = query or RefundQuery()
        self.refunds: list[Refund] = []
        self.more = MoreRows(PAGE_SIZE)

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

    def load(self) -> None:
        """Read the first page of the search; more is read as the cursor nears the end."""
        if not self.refunds:
            self.query_one(ListState).show_loading("refunds")
        self._read_first()

    @work(exclusive=True, group="refunds-load")
    async def _read_first(self) -> None:
        try:
            client = await paytui_app(self).get_client()
            page = await client.search_refunds_page(self.refund_query, limit=PAGE_SIZE, offset=0)
        except Exception as exc:
            # A reload that fails leaves the last good rows on screen under the error line.
            info = self.query_one(ListState).show_failed(exc, rows_on_screen=bool(self.refunds))
            self.app.notify(info.message, title=info.title, severity="error", markup=False)
            return
        self.workers.cancel_group(self, "refunds-more")
        self.more.reset()
        self.refunds = []
        self.query_one(FitNavTable).clear()
        self._append(page)
        if self.more.read:
            self.query_one(ListState).show_results()
        else:
            self.query_one(ListState).show_empty(
                "No refunds match.\nChange the search and press Enter."
            )
        self.refresh_bindings()

    @work(exclusive=True, group="refunds-more")
    async def _read_more(self) -> None:
        async def page_at(offset: int) -> Page[Refund]:
            client = await paytui_app(self).get_client()
            return await client.search_refunds_page(
                self.refund_query, limit=PAGE_SIZE, offset=offset
            )

        page = await self.more.read_next(page_at, self.query_one(ListState), "refunds")
        if page is not None:
            self._append(page)

    def _append(self, page: Page[Refund]) -> None:
        """Add a page's refunds (and its unreadable items) under the rows already shown."""
        table = self.query_one(FitNavTable)
        for refund in page.items:
            table.add_row(
                fmt.literal(refund.refund_id),
                fmt.literal(refund.charge_id or "—"),
                Text(fmt.money(refund.total_amount), justify="right"),
                fmt.status(refund.status),
                Text(fmt.timestamp(refund.refund_timestamp)),
                fmt.literal(refund.reason or ""),
            )
            self.refunds.append(refund)
        self.more.took(page, len(page.items) + add_unreadable_rows(table, page.unreadable))
        self.query_one("#refunds-status", Static).update(showing(self.more.read, self.more.total))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.more.wants_more(event.cursor_row):
            self._read_more()

    @on(Input.Submitted, "#refunds-query")
    def _search(self, event: Input.Submitted) -> None:
        event.stop()
        self.refund_query = parse_refund_search(event.value)
        self.query_one(DataTable).focus()
        self.refunds = []
        self.load()

    def action_focus_search(self) -> None:
        self.query_one("#refunds-query", Input).focus()

    def action_refresh(self) -> None:
        self.load()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_charge()

    def action_open_charge(self) -> None:
        table = self.query_one(DataTable)
        if not 0 <= table.cursor_row < len(self.refunds):
            return
        charge_id = self.refunds[table.cursor_row].charge_id
        if charge_id:
            self.post_message(messages.OpenCharge(charge_id))


__all__ = ["RefundsScreen", "parse_refund_search"]
