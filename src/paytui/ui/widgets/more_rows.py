"""`MoreRows`: the list kit's one way to page a list that is read a page at a time.

Every list in paytui pages the same way, by scrolling: the charge lists are virtual tables
(`ChargeTable`) that read the pages they are about to show; tokens, refunds and distributions add
the next page under their rows when the cursor comes within `near` rows of the end. No list has
keys of its own for paging: `j`/`k`, page up/down, `g`/`G` move in every one, and "Showing N of M"
says how far the list has been read.

This is the bookkeeping those screens share, with no widget in it: where the next page starts
(rows read so far, unreadable ones included, since they hold their places on the server's pages),
whether there is one, and whether it is being read. A page that fails leaves the rows and the
offset where they were; the next move near the end asks again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paytui.ui.widgets.list_state import ListState

__all__ = ["MoreRows"]


@dataclass
class MoreRows:
    """Where a list read page by page stands (see the module docstring)."""

    page_size: int
    #: Rows from the end at which the next page is read.
    near: int = 5
    #: Rows read so far, unreadable ones included: the next page's offset.
    read: int = 0
    total: int | None = None
    has_more: bool = False
    loading: bool = False

    def reset(self) -> None:
        """A new search or a reload: nothing read yet."""
        self.read = 0
        self.total = None
        self.has_more = False
        self.loading = False

    def took(self, page: Any, rows: int) -> None:
        """`rows` rows of `page` were added under the list."""
        self.read += rows
        self.total = page.total
        self.has_more = bool(page.has_more)

    def wants_more(self, cursor_row: int) -> bool:
        """The cursor is near the end of what was read and more is there to read."""
        return self.has_more and not self.loading and cursor_row >= self.read - self.near

    @property
    def next_offset(self) -> int:
        return self.read

    async def read_next(
        self, read: Callable[[int], Awaitable[Any]], state: ListState, what: str
    ) -> Any | None:
        """Read the next page with `read(offset)`; None when it failed, which `state` shows as
        one line over the rows already there ("more refunds did not load")."""
        self.loading = True
        try:
            return await read(self.next_offset)
        except Exception as exc:
            state.show_failed(exc, rows_on_screen=True, note=f"more {what} did not load")
            return None
        finally:
            self.loading = False
