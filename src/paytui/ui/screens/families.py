"""Browse merchants, customers, partners, devices, channels, conversations and messages (palette
"Browse <family>"): read only, but for a customer's contact (`h`, `update_customer`; a
conversation's thread, `o`, is where its writes are).

The spec shows no shape for these families, so nothing here assumes one: the list shows an id,
a name, a status and a time when an object has fields that look like them, and the highlighted
object's JSON, whole, under the list (`J`-style raw view, always on). `enter` reads the object
alone (`GET /v2/<family>/{id}`) into that view; `]` / `[` page; `ctrl+r` reloads. The palette
offers a family only when the token may read it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from paytui.api.families import FAMILIES, STATUS_KEYS, TIME_KEYS, Family, GenericObject
from paytui.ui import format as fmt
from paytui.ui.screens.paged_list import PagedListScreen
from paytui.ui.widgets.distribution_tree import as_datetime
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.json_view import JsonView
from paytui.ui.widgets.list_state import ErrorLine, ListState

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Page

COLUMNS = (
    FitColumn("Id", "Id", priority=1, min_width=12),
    FitColumn("Name", "Name", priority=2, min_width=8, free_text=True),
    FitColumn("Status", "Status"),
    FitColumn("When (UTC)", "When (UTC)", priority=3),
)


def row_cells(item: GenericObject, family: Family) -> list[Text]:
    """The list's cells of one object (— for what it does not have)."""
    when = as_datetime(item.first_of(TIME_KEYS))
    status = item.first_of(STATUS_KEYS)
    return [
        fmt.literal(item.id_in(family) or "—"),
        fmt.literal(item.label() or "—"),
        fmt.status(str(status)) if status is not None else fmt.literal("—"),
        Text(fmt.timestamp(when)) if when is not None else fmt.literal("—"),
    ]


BROWSE_BINDINGS: list[Binding] = [
    Binding(
        "enter",
        "open_object",
        "Read",
        id="browse.open",
        tooltip="Read the highlighted object again, alone (GET by id), into the JSON view",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="browse.refresh", tooltip="Reload / retry"),
    Binding(
        "o",
        "open_thread",
        "Open thread",
        id="browse.open_thread",
        tooltip="Read the highlighted conversation as a thread (conversations only)",
    ),
    Binding(
        "h",
        "edit_contact",
        "Edit contact",
        id="browse.edit_contact",
        tooltip="Change the highlighted customer's email or phone, reviewed before it is sent"
        " (customers only; needs urn:v2:customers:all)",
    ),
]


class FamilyBrowserScreen(PagedListScreen[GenericObject]):
    """One family, a page at a time, with the highlighted object's JSON."""

    CSS_PATH = Path(__file__).with_name("families.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*BROWSE_BINDINGS]
    AUTO_FOCUS = "#browse-table"
    HELP_TITLE = "Browse"
    STATUS_ID = "browse-status"

    def __init__(self, family: str) -> None:
        super().__init__()
        self.family = FAMILIES[family]

    def noun(self) -> str:
        return self.family.name

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        # Read only, but for a customer's contact (`h`).
        said = "contact: h" if self.family.name == "customers" else "read only"
        yield Static(Text(f"{self.family.title} ({said})", style="bold"), id="browse-title")
        yield Static(Text(""), id="browse-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(COLUMNS, id="browse-table", cursor_type="row", zebra_stripes=True)
        view = JsonView(id="browse-json")
        view.border_title = "JSON"
        yield view
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.load()

    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[GenericObject]:
        return await client.list_objects_page(self.family.name, limit=limit, offset=offset)

    def row_cells(self, item: GenericObject) -> list[Text]:
        return row_cells(item, self.family)

    def page_shown(self) -> None:
        self._show(self.highlighted())

    def _show(self, item: GenericObject | None) -> None:
        data: Any = item.model_dump(mode="json", exclude_unset=True) if item is not None else None
        view = self.query_one(JsonView)
        view.set_data(data)
        view.border_title = "JSON"

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(self.highlighted())

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_object()

    def action_subject(self, action: str) -> object | None:
        if action == "edit_contact" and self.family.name == "customers":
            return self.highlighted()
        return None

    def action_target(self, action: str) -> str | None:
        item = self.action_subject(action)
        return item.id_in(self.family) if isinstance(item, GenericObject) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "edit_contact" and self.family.name != "customers":
            return False  # a customer's only: not shown on the other families
        return super().check_action(action, parameters)

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_thread":
            if self.family.name != "conversations":
                return False
            item = self.highlighted()
            return True if item is not None and item.id_in(self.family) else None
        if action == "open_object":
            item = self.highlighted()
            return True if item is not None and item.id_in(self.family) else None
        return super().check_own_action(action, parameters)

    def action_open_object(self) -> None:
        item = self.highlighted()
        object_id = item.id_in(self.family) if item is not None else None
        if object_id:
            self._read_one(object_id)

    def action_open_thread(self) -> None:
        from paytui.ui.screens.conversation import ConversationScreen

        item = self.highlighted()
        object_id = item.id_in(self.family) if item is not None else None
        if object_id and self.family.name == "conversations":
            self.app.push_screen(ConversationScreen(object_id))

    async def action_edit_contact(self) -> None:
        from paytui.ui.screens.modals.dialogs import dialog_for

        customer_id = self.action_target("edit_contact")
        if customer_id:
            await self.app.push_screen(
                dialog_for("update_customer", customer_id), self._after_write
            )

    def _after_write(self, result: str | None) -> None:
        if result is not None:
            self.load()

    @work(exclusive=True, group="browse-one")
    async def _read_one(self, object_id: str) -> None:
        """The object alone, as `GET /v2/<family>/{id}` gives it (the detail form)."""
        try:
            client = await self.app.get_client()
            found = await client.get_object(self.family.name, object_id)
        except Exception as exc:
            info = self.query_one(ListState).show_failed(exc, rows_on_screen=True)
            self.app.notify(info.message, title=info.title, severity="error", markup=False)
            return
        self._show(found)
        self.query_one(JsonView).border_title = fmt.literal(f"JSON of {object_id} (read alone)")


__all__ = ["FamilyBrowserScreen", "row_cells"]
