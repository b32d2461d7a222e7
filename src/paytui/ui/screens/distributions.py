"""Distributions (`4`): payouts to merchant accounts, newest first, with totals by category.

`chargebacks` is always a column (at zero too): "did a chargeback come out of this payout?" is
the question people open this screen to answer. Pages of `PAGE_SIZE` from the server; the next
page is read as the cursor nears the end (the list kit's `MoreRows`), "Showing N of M" says how
far. `enter` opens a distribution's items.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Static

from paytui.ui import format as fmt
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.distribution_tree import (
    TOTAL_CATEGORIES,
    status_text,
    total_of,
    total_text,
)
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState, add_unreadable_rows, showing
from paytui.ui.widgets.more_rows import MoreRows
from paytui.ui.widgets.nav_table import NavTable

if TYPE_CHECKING:
    from paytui.api.models import Distribution, Page

DISTRIBUTIONS_BINDINGS: list[Binding] = [
    Binding(
        "y", "copy_id", "Copy id", id="distributions.copy_id", tooltip="Copy the distribution id"
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="distributions.refresh", tooltip="Reload / retry"),
]

PAGE_SIZE = 50


#: Totals before the account, and at 80 columns the id, chargebacks and Net still on screen:
#: fees and returns go first, then the account (whole amounts are never cut).
DISTRIBUTION_COLUMNS = (
    FitColumn("id", "Distribution", priority=1, min_width=11),
    FitColumn("date", "Date"),
    FitColumn("status", "Status"),
    *(
        FitColumn(
            category,
            Text(category.capitalize(), justify="right"),
            priority=2 if category in ("fees", "returns") else 0,
        )
        for category in TOTAL_CATEGORIES
    ),
    FitColumn("account", "Account", priority=3, min_width=12),
)


class DistributionsScreen(PaytuiScreen[None]):
    """Distributions with their totals; scrolling reads the next page."""

    CSS_PATH = Path(__file__).with_name("distributions.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*DISTRIBUTIONS_BINDINGS]
    HELP_TITLE = "Distributions"
    AUTO_FOCUS = "#distributions"

    def __init__(self) -> None:
        super().__init__()
        self.distributions: list[Distribution] = []
        self.more = MoreRows(PAGE_SIZE)

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        with Horizontal(id="summary"):
            yield Static(Text("Distributions"), id="view-name")
            yield Static(Text("newest first"), id="watch-status")
            yield Static(Text(""), id="showing")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(DISTRIBUTION_COLUMNS, id="distributions", cursor_type="row")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self._load()

    @property
    def state(self) -> str:
        """loading | results | empty | error (the list kit's panel holds it)."""
        return self.query_one(ListState).state

    def _load(self) -> None:
        """Read the first page again (a refresh); the rows on screen stay until it is read."""
        if not self.distributions:
            self.query_one(ListState).show_loading("distributions")
        self.read_first()

    @work(exclusive=True, group="distributions-read")
    async def read_first(self) -> None:
        try:
            client = await paytui_app(self).get_client()
            page = await client.list_distributions_page(limit=PAGE_SIZE, offset=0)
        except Exception as exc:
            # A reload that fails leaves the last good rows on screen under the error line.
            info = self.query_one(ListState).show_failed(
                exc, rows_on_screen=bool(self.distributions)
            )
            self.app.notify(info.message, title=info.title, severity="error", markup=False)
            return
        self.workers.cancel_group(self, "distributions-more")
        self.more.reset()
        self.distributions = []
        self.query_one(FitNavTable).clear()
        self._append(page)
        if not self.more.read:
            self.query_one(ListState).show_empty("No distributions for this client yet.")
            return
        self.query_one(ListState).show_results()
        self.query_one(FitNavTable).focus()

    @work(exclusive=True, group="distributions-more")
    async def read_more(self) -> None:
        async def page_at(offset: int) -> Page[Distribution]:
            client = await paytui_app(self).get_client()
            return await client.list_distributions_page(limit=PAGE_SIZE, offset=offset)

        page = await self.more.read_next(page_at, self.query_one(ListState), "distributions")
        if page is not None:
            self._append(page)

    def _append(self, page: Page[Distribution]) -> None:
        """Add a page's distributions (and its unreadable items) under the rows shown."""
        table = self.query_one(FitNavTable)
        for dist in page.items:
            table.add_row(
                fmt.literal(dist.distribution_id or "—"),
                Text(fmt.date(dist.distribution_timestamp)),
                status_text(dist.status),
                *(total_text(c, total_of(dist, c)) for c in TOTAL_CATEGORIES),
                fmt.literal(dist.account_id or "—"),
                key=dist.distribution_id,
            )
            self.distributions.append(dist)
        self.more.took(page, len(page.items) + add_unreadable_rows(table, page.unreadable))
        self.query_one("#showing", Static).update(showing(self.more.read, self.more.total))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.more.wants_more(event.cursor_row):
            self.read_more()

    # --- actions --------------------------------------------------------------------------------
    def action_refresh(self) -> None:
        self._load()

    def _current(self) -> Distribution | None:
        table = self.query_one(NavTable)
        if not table.row_count:
            return None
        row = table.cursor_row
        return self.distributions[row] if 0 <= row < len(self.distributions) else None

    def action_copy_id(self) -> None:
        dist = self._current()
        if dist is None:
            return
        self.app.copy_to_clipboard(dist.distribution_id)
        self.app.notify(
            f"Copied distribution id {dist.distribution_id}", title="Clipboard", markup=False
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        dist = next(
            (d for d in self.distributions if d.distribution_id == event.row_key.value), None
        )
        if dist is None:
            return
        from paytui.ui.screens.distribution_detail import DistributionDetailScreen

        self.app.push_screen(DistributionDetailScreen(dist.distribution_id, summary=dist))
