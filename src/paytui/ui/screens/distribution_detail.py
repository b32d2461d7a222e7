"""One distribution: its totals by category and its items; `enter` on an item opens its charge."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Static

from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.distribution_tree import TOTAL_CATEGORIES, status_text, total_of, total_text
from paytui.ui.widgets.errors import describe_error
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import error_text
from paytui.ui.widgets.nav_table import NavTable

if TYPE_CHECKING:
    from paytui.api.models import Distribution, DistributionItem

DISTRIBUTION_DETAIL_BINDINGS: list[Binding] = [
    Binding(
        "y",
        "copy_id",
        "Copy charge id",
        id="distribution.copy_id",
        tooltip="Copy the highlighted item's charge id",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="distribution.refresh", tooltip="Reload / retry"),
]


#: Category and amount whole; the charge id before the item id.
ITEM_COLUMNS = (
    FitColumn("category", "Category"),
    FitColumn("amount", Text("Amount", justify="right")),
    FitColumn("charge", "Charge", priority=1, min_width=12),
    FitColumn("item", "Item", priority=2, min_width=10, free_text=True),
)


class DistributionDetailScreen(PaytuiScreen[None]):
    """Totals and items of one distribution."""

    CSS_PATH = Path(__file__).with_name("distribution_detail.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*DISTRIBUTION_DETAIL_BINDINGS]
    HELP_TITLE = "Distribution"
    COMMAND_SCOPE = "distribution"
    AUTO_FOCUS = "#items"

    def __init__(self, distribution_id: str, *, summary: Distribution | None = None) -> None:
        super().__init__()
        self.distribution_id = distribution_id
        self.summary = summary
        self.distribution: Distribution | None = None
        self.items: list[DistributionItem] = []

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(fmt.literal(f"Distribution {self.distribution_id}"), id="title")
        with Horizontal(id="top"):
            yield Static(Text(""), id="facts")
            yield Static(Text(""), id="totals")
        yield Static(Text("Loading items…"), id="items-message")
        yield FitNavTable(ITEM_COLUMNS, id="items", cursor_type="row")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        if self.summary is not None:
            self._show_summary(self.summary)
        self.set_class(True, "-loading")
        self.read_distribution()

    def _show_summary(self, dist: Distribution) -> None:
        facts = Table.grid(padding=(0, 2))
        facts.add_column(style="bold", no_wrap=True)
        facts.add_column()
        count = dist.item_count if dist.item_count is not None else dist.items and len(dist.items)
        rows = [
            ("Distribution", fmt.literal(dist.distribution_id)),
            ("Account", fmt.literal(dist.account_id or "—")),
            ("Merchant", fmt.literal(dist.merchant_id or "—")),
            ("Status", status_text(dist.status)),
            ("Date (UTC)", Text(fmt.timestamp(dist.distribution_timestamp))),
            ("Items", Text(f"{count:,}" if isinstance(count, int) else "—")),
        ]
        for label, value in rows:
            facts.add_row(label, value)
        self.query_one("#facts", Static).update(facts)
        totals = Table.grid(padding=(0, 2))
        totals.add_column(style="bold", no_wrap=True)
        totals.add_column(justify="right")
        for category in TOTAL_CATEGORIES:
            totals.add_row(category, total_text(category, total_of(dist, category)))
        self.query_one("#totals", Static).update(totals)

    @work(exclusive=True, group="distribution-read")
    async def read_distribution(self) -> None:
        try:
            client = await self.app.get_client()
            dist = await client.get_distribution(self.distribution_id)
        except Exception as exc:
            info = describe_error(exc)
            line = error_text(info)
            self.query_one("#items-message", Static).update(line)
            self.set_class(False, "-loading")
            self.set_class(True, "-error")
            return
        self.set_class(False, "-loading")
        self.set_class(False, "-error")
        self.distribution = dist
        self._show_summary(dist)
        self.items = list(dist.items or [])
        table = self.query_one(NavTable)
        table.clear()
        for index, item in enumerate(self.items):
            category = item.category or "?"
            style = fmt.OUTGOING_STYLE if category in ("chargebacks", "returns") else ""
            table.add_row(
                fmt.literal(category, style=style),
                total_text(category, item.amount),
                fmt.literal(item.charge_id or "—"),
                fmt.literal(item.item_id or "—", style="dim"),
                key=str(index),
            )
        message = Text(f"{len(self.items):,} items. ")
        if self.items:
            message.append("enter", style="bold")
            message.append(" opens the item's charge.")
        else:
            message = Text("This distribution has no items yet.")
        self.query_one("#items-message", Static).update(message)
        self.set_class(not self.items, "-empty")

    def _current(self) -> DistributionItem | None:
        table = self.query_one(NavTable)
        row = table.cursor_row
        return self.items[row] if table.row_count and 0 <= row < len(self.items) else None

    def action_copy_id(self) -> None:
        item = self._current()
        if item is None or not item.charge_id:
            return
        self.app.copy_to_clipboard(item.charge_id)
        self.app.notify(f"Copied charge id {item.charge_id}", title="Clipboard", markup=False)

    def action_refresh(self) -> None:
        self.set_class(True, "-loading")
        self.query_one("#items-message", Static).update(Text("Loading items…"))
        self.read_distribution()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        try:
            item = self.items[int(str(event.row_key.value))]
        except (ValueError, IndexError):
            return
        if item.charge_id:
            self.post_message(messages.OpenCharge(item.charge_id))
