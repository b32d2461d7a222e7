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
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Static

from paytui.ui import format as fmt
from paytui.ui.screens.paged_list import PAGE_SIZE, PagedListScreen
from paytui.ui.widgets.distribution_tree import (
    TOTAL_CATEGORIES,
    status_text,
    total_of,
    total_text,
)
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Distribution, Page

DISTRIBUTIONS_BINDINGS: list[Binding] = [
    Binding(
        "y", "copy_id", "Copy id", id="distributions.copy_id", tooltip="Copy the distribution id"
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="distributions.refresh", tooltip="Reload / retry"),
]


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


class DistributionsScreen(PagedListScreen["Distribution"]):
    """Distributions with their totals; scrolling reads the next page (`PagedListScreen`)."""

    CSS_PATH = Path(__file__).with_name("distributions.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*DISTRIBUTIONS_BINDINGS]
    HELP_TITLE = "Distributions"
    COMMAND_SCOPE = "distributions"
    AUTO_FOCUS = "#distributions"
    NOUN = "distributions"
    STATUS_ID = "showing"

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
        self.load()

    @property
    def distributions(self) -> list[Distribution]:
        """The distributions read so far, in the table's order."""
        return self.items

    @property
    def state(self) -> str:
        """loading | results | empty | error (the list kit's panel holds it)."""
        return self.query_one(ListState).state

    # --- what the list says ---------------------------------------------------------------------
    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[Distribution]:
        return await client.list_distributions_page(limit=limit, offset=offset)

    def row_cells(self, item: Distribution) -> list[Text]:
        return [
            fmt.literal(item.distribution_id or "—"),
            Text(fmt.date(item.distribution_timestamp)),
            status_text(item.status),
            *(total_text(c, total_of(item, c)) for c in TOTAL_CATEGORIES),
            fmt.literal(item.account_id or "—"),
        ]

    def empty_text(self) -> str:
        return "No distributions for this client yet."

    def page_shown(self) -> None:
        if self.items:
            self.query_one(FitNavTable).focus()

    # --- actions --------------------------------------------------------------------------------
    def action_copy_id(self) -> None:
        dist = self.highlighted()
        if dist is None:
            return
        self.app.copy_to_clipboard(dist.distribution_id)
        self.app.notify(
            f"Copied distribution id {dist.distribution_id}", title="Clipboard", markup=False
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        dist = self.highlighted()
        if dist is None:
            return
        from paytui.ui.screens.distribution_detail import DistributionDetailScreen

        self.app.push_screen(DistributionDetailScreen(dist.distribution_id, summary=dist))


__all__ = ["DISTRIBUTIONS_BINDINGS", "DISTRIBUTION_COLUMNS", "PAGE_SIZE", "DistributionsScreen"]
