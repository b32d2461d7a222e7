"""A list screen read a page at a time (Refunds, Browse): one reader, one status line, one set of
paging keys, so every such screen loads, fails, pages and says "the service ignored a filter"
the same way. A screen says what to fetch (`fetch`), how an item shows (`row_cells`) and what an
empty list means (`empty_text`); the list kit (`ListState`, `ErrorLine`, unreadable rows) does
the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import work
from textual.widgets import DataTable, Static

from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.fit_table import FitTable
from paytui.ui.widgets.list_state import ListState, add_unreadable_rows, showing

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Page

T = TypeVar("T")
PAGE_SIZE = 50


class PagedListScreen(PaytuiScreen[None], Generic[T]):
    """A `FitTable` of one page, a status line (`STATUS_ID`) and `]` / `[` / ctrl+r."""

    #: What the list holds, for "Loading <noun>…".
    NOUN: ClassVar[str] = "items"
    #: The id of the status line under the query (count, paging hints, an ignored filter).
    STATUS_ID: ClassVar[str] = "list-status"

    def __init__(self) -> None:
        super().__init__()
        self.page_offset = 0
        self.page: Page[T] | None = None

    # --- what a screen says ---------------------------------------------------------------------
    async def fetch(self, client: PaymentClient, offset: int) -> Page[T]:  # pragma: no cover
        raise NotImplementedError

    def row_cells(self, item: T) -> list[Text]:  # pragma: no cover
        raise NotImplementedError

    def noun(self) -> str:
        return self.NOUN

    def empty_text(self) -> str:
        return f"No {self.noun()}."

    def page_shown(self) -> None:
        """Called once a page is on screen (a screen's hook: show the highlighted item...)."""

    # --- the reader -----------------------------------------------------------------------------
    def load(self, offset: int | None = None) -> None:
        """Read the page at `offset` (this page by default); the offset moves once it is read."""
        if self.page is None or not self.page.items:
            self.query_one(ListState).show_loading(self.noun())
        self._read(self.page_offset if offset is None else offset)

    @work(exclusive=True, group="paged-list-load")
    async def _read(self, offset: int) -> None:
        try:
            client = await paytui_app(self).get_client()
            page = await self.fetch(client, offset)
        except Exception as exc:
            has_rows = self.page is not None and bool(self.page.items)
            info = self.query_one(ListState).show_failed(exc, rows_on_screen=has_rows)
            self.app.notify(info.message, title=info.title, severity="error", markup=False)
            return
        self.page = page
        self.page_offset = offset
        table = self.query_one(FitTable)
        table.clear()
        for item in page.items:
            table.add_row(*self.row_cells(item))
        shown = len(page.items) + add_unreadable_rows(table, page.unreadable)
        text = showing(shown, page.total, first=offset)
        if page.has_more:
            text.append("   ]: next page")
        if offset:
            text.append("   [: previous page")
        if page.ignored_note:
            text.append(f"   {page.ignored_note}", style="bold")
        self.query_one(f"#{self.STATUS_ID}", Static).update(text)
        if shown:
            self.query_one(ListState).show_results()
        else:
            self.query_one(ListState).show_empty(self.empty_text())
        self.page_shown()
        self.refresh_bindings()

    def highlighted(self) -> T | None:
        """The item under the table's cursor (None on an unreadable row or an empty list)."""
        table = self.query_one(DataTable)
        if self.page is None or not (0 <= table.cursor_row < len(self.page.items)):
            return None
        return self.page.items[table.cursor_row]

    # --- paging ---------------------------------------------------------------------------------
    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_page":
            return True if self.page is not None and self.page.has_more else None
        if action == "previous_page":
            return True if self.page_offset > 0 else None
        return True

    def action_next_page(self) -> None:
        if self.page is not None and self.page.has_more:
            self.load(self.page_offset + PAGE_SIZE)

    def action_previous_page(self) -> None:
        if self.page_offset:
            self.load(max(0, self.page_offset - PAGE_SIZE))

    def action_refresh(self) -> None:
        self.load()


__all__ = ["PAGE_SIZE", "PagedListScreen"]
