"""A list screen read a page at a time (Refunds, Browse): one reader, one status line, and the list
kit's one paging (`MoreRows`: the next page is added as the cursor nears the end), so every such
screen loads, fails, pages and says "the service ignored a filter" the same way. A screen says
what to fetch (`fetch`), how an item shows (`row_cells`) and what an empty list means
(`empty_text`); the list kit (`ListState`, `ErrorLine`, unreadable rows) does the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import on, work
from textual.widgets import DataTable, Static

from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.fit_table import FitTable
from paytui.ui.widgets.list_state import ListState, add_unreadable_rows, showing
from paytui.ui.widgets.more_rows import MoreRows

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Page

T = TypeVar("T")
PAGE_SIZE = 50


class PagedListScreen(PaytuiScreen[None], Generic[T]):
    """A `FitTable` read page by page as the cursor nears its end, a status line (`STATUS_ID`)
    and ctrl+r."""

    #: What the list holds, for "Loading <noun>…".
    NOUN: ClassVar[str] = "items"
    #: The id of the status line under the query (count, an ignored filter).
    STATUS_ID: ClassVar[str] = "list-status"

    def __init__(self) -> None:
        super().__init__()
        self.items: list[T] = []
        self.more = MoreRows(PAGE_SIZE)
        self.ignored_note: str | None = None

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
    def load(self) -> None:
        """Read the list again from its first page; the rows on screen stay until it is read."""
        if not self.items:
            self.query_one(ListState).show_loading(self.noun())
        self._read_first()

    @work(exclusive=True, group="paged-list-load")
    async def _read_first(self) -> None:
        try:
            client = await paytui_app(self).get_client()
            page = await self.fetch(client, 0)
        except Exception as exc:
            info = self.query_one(ListState).show_failed(exc, rows_on_screen=bool(self.items))
            self.app.notify(info.message, title=info.title, severity="error", markup=False)
            return
        self.workers.cancel_group(self, "paged-list-more")
        self.more.reset()
        self.items = []
        self.ignored_note = None
        self._table().clear()
        self._append(page)
        if self.more.read:
            self.query_one(ListState).show_results()
        else:
            self.query_one(ListState).show_empty(self.empty_text())
        self.page_shown()
        self.refresh_bindings()

    @work(exclusive=True, group="paged-list-more")
    async def _read_more(self) -> None:
        async def page_at(offset: int) -> Page[T]:
            return await self.fetch(await paytui_app(self).get_client(), offset)

        page = await self.more.read_next(page_at, self.query_one(ListState), self.noun())
        if page is not None:
            self._append(page)

    def _append(self, page: Page[T]) -> None:
        """Add a page's items (and its unreadable ones) under the rows already shown."""
        table = self._table()
        for item in page.items:
            table.add_row(*self.row_cells(item))
            self.items.append(item)
        self.more.took(page, len(page.items) + add_unreadable_rows(table, page.unreadable))
        self.ignored_note = page.ignored_note or self.ignored_note
        text = showing(self.more.read, self.more.total)
        if self.ignored_note:
            text.append(f"   {self.ignored_note}", style="bold")
        self.query_one(f"#{self.STATUS_ID}", Static).update(text)

    def _table(self) -> FitTable:
        """The screen's one table (a `FitNavTable`: CSS type names follow first bases, so it is
        found as a `DataTable`, not as a `FitTable`)."""
        table = self.query_one(DataTable)
        assert isinstance(table, FitTable)
        return table

    @on(DataTable.RowHighlighted)
    def _near_the_end(self, event: DataTable.RowHighlighted) -> None:
        if self.more.wants_more(event.cursor_row):
            self._read_more()

    def highlighted(self) -> T | None:
        """The item under the table's cursor (None on an unreadable row or an empty list)."""
        table = self.query_one(DataTable)
        if not 0 <= table.cursor_row < len(self.items):
            return None
        return self.items[table.cursor_row]

    def action_refresh(self) -> None:
        self.load()


__all__ = ["PAGE_SIZE", "PagedListScreen"]
