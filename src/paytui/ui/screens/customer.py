"""One customer, one screen (`H` on a charge, `:customer NAME|EMAIL|LAST4`): their charges,
refunds, chargebacks and stored cards in one list, newest first, with totals above it.

What is read and how each row is proven is `paytui.customer`; this is its `PagedListScreen`
(read whole: one read gathers every list). `enter` opens the row's charge.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from paytui.api.models import Page
from paytui.customer import CustomerKey, CustomerRow, CustomerView, read_customer
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

COLUMNS = (
    FitColumn("kind", "Kind"),
    FitColumn("time", "Time (UTC)"),
    FitColumn("id", "Id", priority=1, min_width=9),
    FitColumn("amount", Text("Amount", justify="right")),
    FitColumn("status", "Status", priority=2),
    FitColumn("state", "State", priority=3, min_width=8),
    FitColumn("note", "Card / reason", priority=4, min_width=8, free_text=True),
)

CUSTOMER_BINDINGS: list[Binding] = [
    Binding("enter", "open_charge", "Open charge", id="customer.open", tooltip="Open its charge"),
    Binding("ctrl+r", "refresh", "Refresh", id="customer.refresh", tooltip="Read again"),
    Binding(
        "K",
        "conversations",
        "Conversations",
        id="customer.conversations",
        tooltip="This customer's conversations (needs urn:v2:conversations:all)",
    ),
]


def customer_of(charge: Any) -> CustomerScreen:
    """The screen of a charge's payer: by their name, else by the card's last four."""
    name = str(getattr(charge, "contact_name", "") or "")
    if name.strip():
        return CustomerScreen(CustomerKey("name", " ".join(name.split())))
    return CustomerScreen(CustomerKey("last4", str(getattr(charge, "last4", "") or "")))


class CustomerScreen(PagedListScreen[CustomerRow]):
    """A customer's charges, refunds, chargebacks and tokens, with totals."""

    CSS_PATH = Path(__file__).with_name("customer.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*CUSTOMER_BINDINGS]
    HELP_TITLE = "Customer"
    COMMAND_SCOPE = "customer"
    AUTO_FOCUS = "#customer-table"
    NOUN = "charges, refunds or tokens"
    STATUS_ID = "customer-status"
    READ_ALL_UP_TO = 100_000  # one read gathers it all (bounded in `paytui.customer`)

    def __init__(self, key: CustomerKey) -> None:
        super().__init__()
        self.key = key
        self.view: CustomerView | None = None

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(self._about(), id="customer-about")
        yield Static(Text(""), id="customer-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(COLUMNS, id="customer-table", cursor_type="row", zebra_stripes=True)
        yield PaytuiFooter()

    def _about(self) -> Text:
        text = Text.assemble(("Customer ", "bold"), Text(safe(self.key.describe())))
        view = self.view
        if view is not None:
            if view.name and self.key.kind == "email":
                text.append(Text(safe(f" ({view.name})")))
            text.append("\n")
            text.append(Text(safe(view.totals()), style="bold"))
        return text

    def on_mount(self) -> None:
        self.load()

    @property
    def state(self) -> str:
        return self.query_one(ListState).state

    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[CustomerRow]:
        if offset:
            return Page[Any].model_construct(items=[], limit=limit)
        view = await read_customer(client, self.key)
        self.view = view
        self.query_one("#customer-about", Static).update(self._about())
        return Page[Any].model_construct(items=list(view.rows), limit=limit, has_more=False)

    def row_cells(self, item: CustomerRow) -> list[Text]:
        return [
            Text(item.kind),
            Text(fmt.timestamp(item.at)),
            fmt.literal(item.item_id),
            Text(fmt.money(item.amount) if item.amount is not None else "", justify="right"),
            fmt.status(item.status) if item.status else Text(""),
            state_text(item.words),
            fmt.literal(item.note),
        ]

    def status_note(self) -> str:
        notes = self.view.notes if self.view is not None else []
        return ("  " + "; ".join(notes)) if notes else ""

    def empty_text(self) -> str:
        notes = "; ".join(self.view.notes) if self.view is not None else ""
        return f"Nothing found for the customer {self.key.describe()}." + (
            f"\n{notes}" if notes else ""
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_charge()

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "conversations":
            from paytui.ui.screens.conversations import may_read

            return may_read(self.app)
        return super().check_own_action(action, parameters)

    async def action_conversations(self) -> None:
        from paytui.ui.screens.conversations import ConversationsScreen

        await self.app.push_screen(ConversationsScreen(customer=self.key))

    def action_open_charge(self) -> None:
        row = self.highlighted()
        if row is not None and row.charge_id:
            self.post_message(messages.OpenCharge(row.charge_id))


__all__ = ["CustomerScreen", "customer_of"]
