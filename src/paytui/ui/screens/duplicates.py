""" "Charged twice?" (`z` on a charge row or a charge): its likely duplicates, in one list.

Same card, amount and account within the window (`[ui] duplicate_window_minutes`), checked here
on every row (`paytui.duplicates`); `enter` opens one. A `PagedListScreen` read whole (a handful
of rows), from a search the service is asked to narrow and paytui checks row by row.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from paytui.api.models import Page
from paytui.charge_state import state_words
from paytui.duplicates import DEFAULT_WINDOW, duplicate_query, is_likely_duplicate
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.screens.paged_list import PagedListScreen
from paytui.ui.widgets.charge_table import state_text
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge

#: Rows of the service's answer read at most: more means it ignored the filters.
SCAN_LIMIT = 1000

COLUMNS = (
    FitColumn("time", "Time (UTC)"),
    FitColumn("apart", "Apart"),
    FitColumn("id", "Charge", priority=1, min_width=9),
    FitColumn("status", "Status"),
    FitColumn("type", "Type", priority=2),
    FitColumn("state", "State", priority=3, min_width=8),
    FitColumn("amount", Text("Amount", justify="right")),
    FitColumn("name", "Contact", priority=4, min_width=10, free_text=True),
)


def apart(delta: timedelta) -> str:
    """How long after (+) or before (-) the charge asked about, in minutes and seconds."""
    seconds = int(delta.total_seconds())
    sign = "-" if seconds < 0 else "+"
    minutes, rest = divmod(abs(seconds), 60)
    return f"{sign}{minutes} min {rest:02d} s" if minutes else f"{sign}{rest} s"


DUPLICATES_BINDINGS: list[Binding] = [
    Binding("enter", "open_charge", "Open", id="duplicates.open", tooltip="Open the charge"),
    Binding("ctrl+r", "refresh", "Refresh", id="duplicates.refresh", tooltip="Look again"),
]


class DuplicatesScreen(PagedListScreen["Charge"]):
    """The likely duplicates of one charge."""

    CSS_PATH = Path(__file__).with_name("duplicates.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*DUPLICATES_BINDINGS]
    HELP_TITLE = "Charged twice?"
    COMMAND_SCOPE = "duplicates"
    AUTO_FOCUS = "#duplicates-table"
    NOUN = "likely duplicates"
    STATUS_ID = "duplicates-status"
    READ_ALL_UP_TO = 200
    PAGE_SIZE = 100

    def __init__(self, charge: Charge, window: timedelta = DEFAULT_WINDOW) -> None:
        super().__init__()
        self.charge = charge
        self.window = window
        #: Rows of the service's answer read, and whether the read stopped at `SCAN_LIMIT`.
        self.scanned = 0
        self.cut = False

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(self._about(), id="duplicates-about")
        yield Static(Text(""), id="duplicates-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(COLUMNS, id="duplicates-table", cursor_type="row", zebra_stripes=True)
        yield PaytuiFooter()

    def _about(self) -> Text:
        charge = self.charge
        minutes = f"{self.window.total_seconds() / 60:g}"
        brand = getattr(charge.payment_method, "type", None) or charge.method or ""
        card = f"{brand} {charge.last4 or ''}"
        return Text.assemble(
            ("Charged twice? ", "bold"),
            Text(safe(charge.charge_id)),
            f"  {fmt.money(charge.total_amount)}  {fmt.timestamp(charge.charge_timestamp)}\n",
            Text(
                safe(
                    f"Same card ({card.strip()}), amount and account ({charge.account_id or '?'})"
                    f" within {minutes} min either way ([ui] duplicate_window_minutes)"
                ),
                style="dim",
            ),
        )

    def on_mount(self) -> None:
        self.load()

    @property
    def state(self) -> str:
        return self.query_one(ListState).state

    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[Charge]:
        """The likely duplicates from `offset` of the service's answer: pages read until `limit`
        of them, the end, or `SCAN_LIMIT` rows; each row checked against the charge here."""
        query = duplicate_query(self.charge, self.window)
        if query is None:
            return Page[Any].model_construct(items=[], limit=limit)
        kept: list[Charge] = []
        scanned = 0
        at = offset
        has_more = False
        ignored: list[str] = []
        while len(kept) < limit and scanned < SCAN_LIMIT:
            page = await client.search_charges_page(query, limit=limit, offset=at)
            ignored += [name for name in page.ignored_filters if name not in ignored]
            kept += [
                c
                for c in page.items
                if page.proven(c.charge_id) and is_likely_duplicate(self.charge, c, self.window)
            ]
            scanned += page.next_offset - at
            has_more = page.has_more and page.next_offset > at
            if not has_more:
                break
            at = page.next_offset
        self.scanned += scanned
        self.cut = has_more and scanned >= SCAN_LIMIT
        result = Page[Any].model_construct(
            items=kept,
            limit=limit,
            offset=offset,
            has_more=has_more and not self.cut,
            filtered_out=scanned - len(kept),
            ignored_filters=tuple(ignored),
        )
        return result

    def row_key(self, item: Charge) -> str | None:
        return item.charge_id

    def row_cells(self, item: Charge) -> list[Text]:
        base = self.charge.charge_timestamp
        at = item.charge_timestamp
        return [
            Text(fmt.timestamp(at)),
            Text(apart(at - base) if at is not None and base is not None else "—"),
            fmt.literal(item.charge_id),
            fmt.status(item.status),
            Text(fmt.charge_type_name(item.charge_type) or "—"),
            state_text(state_words(item)),
            Text(fmt.money(item.total_amount), justify="right"),
            fmt.literal(item.contact_name),
        ]

    def status_note(self) -> str:
        if self.cut:
            return f"  (stopped after {self.scanned} charges read: the service may ignore filters)"
        return ""

    def empty_text(self) -> str:
        minutes = f"{self.window.total_seconds() / 60:g}"
        return (
            f"No likely duplicate: no other charge of this card, amount and account within "
            f"{minutes} min."
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_charge()

    def action_open_charge(self) -> None:
        charge = self.highlighted()
        if charge is not None:
            self.post_message(messages.OpenCharge(charge.charge_id))


__all__ = ["DuplicatesScreen", "apart"]
