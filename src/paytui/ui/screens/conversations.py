"""The conversations the service links to a charge or a customer (`K` on a charge, on the
customer screen): newest first, `enter` opens the thread.

A conversation is listed only when it shows the link itself (`paytui.api.conversations`): the
charge's id, or the customer's id or name; a filter the service ignored is applied here and
said on the status line, as on every list.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from paytui.api.conversations import (
    LAST_ACTIVITY_KEYS,
    as_time,
    conversation_id_of,
    status_word,
)
from paytui.api.families import FAMILIES, GenericObject
from paytui.api.models import Page
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.screens.paged_list import PagedListScreen
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.customer import CustomerKey
    from paytui.ui.host import PaytuiHost

COLUMNS = (
    FitColumn("updated", "Last (UTC)"),
    FitColumn("status", "Status"),
    FitColumn("subject", "Subject", priority=1, min_width=10, free_text=True),
    FitColumn("id", "Id", priority=2, min_width=9),
)

CONVERSATIONS_BINDINGS: list[Binding] = [
    Binding("enter", "open_thread", "Open thread", id="conversations.open", tooltip="Read it"),
    Binding("ctrl+r", "refresh", "Refresh", id="conversations.refresh", tooltip="Read again"),
]

#: The binding that opens this screen, beside a charge and a customer (one key, one meaning).
CONVERSATIONS_KEY = "K"


def may_read(app: PaytuiHost) -> bool | None:
    """True when the token may read conversations (unknown scopes: let it try); None greys the
    key (the footer and help say the scope)."""
    granted = getattr(app.connected_client, "granted_scopes", None)
    return True if FAMILIES["conversations"].readable_with(granted) else None


class ConversationsScreen(PagedListScreen[GenericObject]):
    """A charge's or a customer's conversations."""

    CSS_PATH = Path(__file__).with_name("conversations.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*CONVERSATIONS_BINDINGS]
    HELP_TITLE = "Conversations"
    COMMAND_SCOPE = "conversations"
    AUTO_FOCUS = "#conversations-table"
    NOUN = "conversations"
    STATUS_ID = "conversations-status"
    #: Few: a charge's, or a customer's gathered and matched in one read.
    READ_ALL_UP_TO = 1000

    def __init__(
        self, *, charge_id: str | None = None, customer: CustomerKey | None = None
    ) -> None:
        super().__init__()
        self.charge_id = charge_id
        self.customer = customer
        self.notes: list[str] = []

    def _title(self) -> Text:
        text = Text("Conversations ", style="bold")
        if self.charge_id:
            text.append_text(fmt.literal(f"about charge {self.charge_id}"))
        elif self.customer is not None:
            text.append_text(fmt.literal(f"of the customer {self.customer.describe()}"))
        return text

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(self._title(), id="conversations-title")
        yield Static(Text(""), id="conversations-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(COLUMNS, id="conversations-table", cursor_type="row", zebra_stripes=True)
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.load()

    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[GenericObject]:
        if self.customer is None:
            return await client.list_conversations_page(
                charge_id=self.charge_id, limit=limit, offset=offset
            )
        if offset:
            return Page[Any].model_construct(items=[], limit=limit)
        from paytui.api.conversations import customer_conversations

        key = self.customer
        if key.kind == "last4":
            self.notes = ["conversations are linked to a customer or a name, not to a card"]
            return Page[Any].model_construct(items=[], limit=limit)
        name = key.text if key.kind == "name" else None
        email = key.text if key.kind == "email" else None
        items, self.notes = await customer_conversations(client, name=name, email=email)
        return Page[Any].model_construct(items=items, limit=limit, has_more=False)

    def row_key(self, item: GenericObject) -> str | None:
        return conversation_id_of(item)

    def row_cells(self, item: GenericObject) -> list[Text]:
        status = status_word(item)
        return [
            Text(fmt.timestamp(as_time(item.first_of(LAST_ACTIVITY_KEYS)))),
            fmt.status(status) if status else fmt.literal("—"),
            fmt.literal(item.label() or "—"),
            fmt.literal(conversation_id_of(item) or "—"),
        ]

    def status_note(self) -> str:
        """The notes carry the service's own error text: through the sanitiser."""
        return ("  " + safe("; ".join(self.notes))) if self.notes else ""

    def empty_text(self) -> str:
        notes = safe("; ".join(self.notes))
        return "No conversation is linked here." + (f"\n{notes}" if notes else "")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_thread()

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_thread":
            item = self.highlighted()
            return True if item is not None and conversation_id_of(item) else None
        return super().check_own_action(action, parameters)

    def action_open_thread(self) -> None:
        from paytui.ui.screens.conversation import ConversationScreen

        item = self.highlighted()
        conversation_id = conversation_id_of(item) if item is not None else None
        if conversation_id:
            self.app.push_screen(ConversationScreen(conversation_id))


__all__ = ["CONVERSATIONS_KEY", "ConversationsScreen", "may_read"]
