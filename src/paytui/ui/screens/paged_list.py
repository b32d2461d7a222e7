"""The one base of every list screen (Refunds, Browse, Distributions, Tokens, Plugin sessions,
Accounts): one reader, one status line, and the list kit's one paging (`MoreRows`: the next page
is added as the cursor nears the end), so every list loads, fails, pages and says "the service
ignored a filter" the same way.

A screen says what to fetch (`fetch`), how an item shows (`row_cells`) and what an empty list
means (`empty_text`); the list kit (`ListState`, `ErrorLine`, unreadable rows) does the rest.
What a screen may add:

- `row_key(item)`: the row's key (an id). Keyed rows are found by key (an unreadable row is
  never taken for an item), an item already shown is not added twice (something created
  meanwhile moved the pages), and `load(select=key)` puts the cursor back on a row after a read;
- `status_note()`: words after "Showing N of M" (Tokens' " · 3 expired");
- `read_failed(exc)`: how a failed read shows (default: over the rows kept, and notified);
- `READ_ALL_UP_TO`: read the whole list (pages of `PAGE_SIZE`, up to that many items) instead of
  a page at a time, for lists that are few and shown as a whole (Accounts, grouped by merchant:
  it shows them itself by overriding `show_first`); `read_also` reads what else the rows need.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import events, on, work
from textual.widgets import DataTable, Static

from paytui.api.models import Page
from paytui.ui.running_app import still_shown
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.fit_table import FitTable
from paytui.ui.widgets.list_state import ListState, add_unreadable_rows, showing
from paytui.ui.widgets.more_rows import MoreRows

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import UnreadableItem

T = TypeVar("T")
PAGE_SIZE = 50


async def read_whole(
    fetch: Callable[[int, int], Awaitable[Page[T]]], *, up_to: int, limit: int
) -> Page[T]:
    """Every item of a list endpoint as one page, following the pages (`fetch(offset, limit)`)
    until the end or until `up_to` items were read; the unreadable items of every page too."""
    items: list[T] = []
    unreadable: list[UnreadableItem] = []
    offset = 0
    while len(items) < up_to:
        page = await fetch(offset, limit)
        items.extend(page.items)
        unreadable.extend(page.unreadable)
        if not page.has_more or not page.items:
            break
        offset = page.next_offset
    return Page[T].model_construct(items=items, limit=limit, unreadable=unreadable)


class PagedListScreen(PaytuiScreen[None], Generic[T]):
    """A `FitTable` read page by page as the cursor nears its end (or whole, `READ_ALL_UP_TO`),
    a status line (`STATUS_ID`) and ctrl+r."""

    #: What the list holds, for "Loading <noun>…".
    NOUN: ClassVar[str] = "items"
    #: The id of the status line under the query (count, an ignored filter).
    STATUS_ID: ClassVar[str] = "list-status"
    #: Items a page.
    PAGE_SIZE: ClassVar[int] = PAGE_SIZE
    #: None: a page at a time. A number: the whole list up to that many items, in one read.
    READ_ALL_UP_TO: ClassVar[int | None] = None

    def __init__(self) -> None:
        super().__init__()
        self.items: list[T] = []
        self.more = MoreRows(self.PAGE_SIZE)
        self.ignored_note: str | None = None
        #: True from the start of a read of the first page (or the whole list) to its end.
        self.reading = False
        #: Which read is the latest: a read replaced by a newer one must not say, as it ends,
        #: that the list is no longer being read (the newer one still is).
        self._read_number = 0
        #: The items shown, by row key (screens whose rows are keyed: `row_key`).
        self._by_key: dict[str, T] = {}
        #: Built ahead, in idle time, and not shown yet (`paytui.ui.warm_up`): a failed read
        #: is told when the screen is first shown, not while the person is elsewhere.
        self.built_ahead = False
        #: What a failed read would have notified meanwhile (title, message).
        self._untold: tuple[str, str] | None = None

    # --- what a screen says ---------------------------------------------------------------------
    async def fetch(
        self, client: PaymentClient, offset: int, limit: int
    ) -> Page[T]:  # pragma: no cover
        raise NotImplementedError

    def row_cells(self, item: T) -> list[Text]:  # pragma: no cover
        raise NotImplementedError

    def row_key(self, item: T) -> str | None:
        """The key of an item's row (its id); None: rows are not keyed (found by position)."""
        return None

    def noun(self) -> str:
        return self.NOUN

    def more_noun(self) -> str:
        """What a later page holds, for "more <noun> did not load"."""
        return self.noun()

    def empty_text(self) -> str:
        return f"No {self.noun()}."

    def status_note(self) -> str:
        """Words after "Showing N of M" (none by default)."""
        return ""

    def page_shown(self) -> None:
        """Called once a page is on screen (a screen's hook: show the highlighted item...)."""

    async def read_also(self, client: PaymentClient, page: Page[T]) -> None:
        """What else a read needs before its rows show (Accounts: the merchants' names)."""

    def read_failed(self, exc: BaseException) -> None:
        """A failed read: the last good rows stay on screen under the error line; notified."""
        info = self.query_one(ListState).show_failed(exc, rows_on_screen=bool(self.items))
        self.tell_failed(info.title, info.message)

    def tell_failed(self, title: str, message: str) -> None:
        """Notify a failed read; on a screen built ahead and not shown yet, when first shown."""
        if self.built_ahead:
            self._untold = (title, message)
            return
        self.app.notify(message, title=title, severity="error", markup=False)

    @on(events.ScreenResume)
    def _first_shown(self) -> None:
        """Shown: no longer ahead; a failed read of its time ahead is told now."""
        self.built_ahead = False
        untold, self._untold = self._untold, None
        if untold is not None:
            self.tell_failed(*untold)

    # --- the reader -----------------------------------------------------------------------------
    def load(self, *, select: str | None = None) -> None:
        """Read the list again from its first page; the rows on screen stay until it is read.
        `select`: the key of the row to put the cursor on once read (when it is there)."""
        if not self.items:
            self.query_one(ListState).show_loading(self.noun())
        self.read(select=select)

    def read(self, *, select: str | None = None) -> None:
        """Start reading the first page (or the whole list), replacing a read in flight."""
        self.reading = True
        self._read_number += 1
        self._read_first(select, self._read_number)

    @work(exclusive=True, group="paged-list-load")
    async def _read_first(self, select: str | None = None, number: int = 0) -> None:
        try:
            try:
                client = await self.app.get_client()
                page = await self._read_page_or_whole(client)
                await self.read_also(client, page)
            except Exception as exc:
                if self._still_shown():
                    self.read_failed(exc)
                return
            if not self._still_shown():
                return
            self.workers.cancel_group(self, "paged-list-more")
            self.show_first(page, select)
        finally:
            if number == self._read_number:  # not replaced by a newer read
                self.reading = False

    async def _read_page_or_whole(self, client: PaymentClient) -> Page[T]:
        if self.READ_ALL_UP_TO is None:
            return await self.fetch(client, 0, self.PAGE_SIZE)

        async def page_at(offset: int, limit: int) -> Page[T]:
            return await self.fetch(client, offset, limit)

        return await read_whole(page_at, up_to=self.READ_ALL_UP_TO, limit=self.PAGE_SIZE)

    def show_first(self, page: Page[T], select: str | None) -> None:
        """The first page (or the whole list) read: it replaces the rows on screen."""
        self.more.reset()
        self.items = []
        self._by_key = {}
        self.ignored_note = None
        table = self._table()
        table.clear()
        self._append(page)
        self._first_shown_at(select)

    def show_in_place(
        self, page: Page[T], select: str | None, *, same_as_shown: bool = False
    ) -> bool:
        """As `show_first`, but the rows already shown stay where they are (`replace_rows`):
        only the rows that left go, only new ones are added, the order is the page's. For a
        list shown again as its sources arrive (Today): a clear and re-add of the first page
        held the event loop 46-90 ms each time at 100,000 charges. False (nothing done) when
        the rows are not all keyed or a page holds unreadable rows: `show_first` then.
        `same_as_shown`: nothing a row's cells show changed but its item, so an item already
        shown (the same object) keeps its row as it is, not even its cells built again."""
        rows: dict[str, T] = {}
        for item in page.items:
            key = self.row_key(item)
            if key is None:
                return False
            rows.setdefault(key, item)  # an item whose row is already there is shown once
        if page.unreadable or len(self._by_key) != len(self.items):
            return False
        self.more.reset()
        self.ignored_note = None
        self._table().replace_rows(
            [
                (
                    key,
                    None
                    if same_as_shown and self._by_key.get(key) is item
                    else self.row_cells(item),
                )
                for key, item in rows.items()
            ]
        )
        self.items = list(rows.values())
        self._by_key = rows
        self._took(page, len(page.items))
        self._first_shown_at(select)
        return True

    def _first_shown_at(self, select: str | None) -> None:
        """The first page is in the table: the list's state, the cursor on `select` (when the
        row is there), the screen's hook."""
        if self.more.read:
            self.query_one(ListState).show_results()
        else:
            self.query_one(ListState).show_empty(self.empty_text())
        if select is not None and select in self._by_key:
            table = self._table()
            table.move_cursor(row=table.get_row_index(select))
        self.page_shown()
        self.refresh_bindings()

    @work(exclusive=True, group="paged-list-more")
    async def _read_more(self) -> None:
        async def page_at(offset: int) -> Page[T]:
            return await self.fetch(await self.app.get_client(), offset, self.PAGE_SIZE)

        page = await self.more.read_next(page_at, self.query_one(ListState), self.more_noun())
        if page is not None and self._still_shown():
            self._append(page)

    def _still_shown(self) -> bool:
        """A read that ended while the screen is taken down (the app quitting) has no widgets
        left to show its rows in (`still_shown`)."""
        return still_shown(self, DataTable, ListState, f"#{self.STATUS_ID}")

    def _append(self, page: Page[T]) -> None:
        """Add a page's items (and its unreadable ones) under the rows already shown; an item
        whose row is already there is shown once."""
        table = self._table()
        for item in page.items:
            key = self.row_key(item)
            if key is not None:
                if key in self._by_key:
                    continue
                self._by_key[key] = item
            table.add_row(*self.row_cells(item), key=key)
            self.items.append(item)
        self._took(page, len(page.items) + add_unreadable_rows(table, page.unreadable))

    def _took(self, page: Page[T], rows: int) -> None:
        """`rows` rows of `page` are shown: what was read, and the status line says so."""
        self.more.took(page, rows)
        self.ignored_note = page.ignored_note or self.ignored_note
        text = showing(self.more.read, self.more.total)
        note = self.status_note()
        if note:
            text.append(note)
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

    def command_subject(self) -> object | None:
        """A user command reads the row the screen's actions act on, else the highlighted one."""
        subject = self.action_subject("user_command")
        if subject is None and self.is_mounted:
            subject = self.highlighted()
        return subject

    def highlighted(self) -> T | None:
        """The item under the table's cursor (None on an unreadable row or an empty list)."""
        if self._by_key:
            key = self._table().cursor_key()
            return self._by_key.get(key) if key is not None else None
        table = self.query_one(DataTable)
        if not 0 <= table.cursor_row < len(self.items):
            return None
        return self.items[table.cursor_row]

    def action_refresh(self) -> None:
        self.load()


__all__ = ["PAGE_SIZE", "PagedListScreen", "read_whole"]
