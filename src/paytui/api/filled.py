"""Pages by position over a search whose rows are filtered here.

The charge list asks for page *n* as `offset = n * size`. When the service ignored a filter,
the client leaves the rows that contradict it out of each page (`PaymentClient._page`), so a
page read at offset 50 may hold 3 matches, and the 50 matches after the first 50 are somewhere
further on the wire. `FilledPages` reads the service's pages one after the other, keeps the
matching rows, and answers "rows 50 to 99" from them, reading on until it has them, the
service has no more, or `max_reads` pages were read for one answer (then the page is short and
says there is more: the next ask reads on). Nothing here knows Textual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from paytui.api.models import Page, Trust, row_id

__all__ = ["FilledPages"]

T = TypeVar("T")

#: Service pages read at most to answer one page (a search that matches 1 row in 10,000 must
#: not read the whole service to fill the screen: it says there is more, and reads on later).
MAX_READS = 20


class FilledPages(Generic[T]):
    """`page(offset, limit)` over the rows of `fetch(offset, limit)` that are proven or not
    contradicted, in the service's order; `first` is the service's first page."""

    def __init__(
        self,
        fetch: Callable[[int, int], Awaitable[Page[T]]],
        first: Page[T],
        *,
        max_reads: int = MAX_READS,
    ) -> None:
        self._fetch = fetch
        self._size = first.limit
        self._rows: list[T] = []
        self._trust = Trust()
        self._wire = first.offset
        self._done = False
        self._max_reads = max_reads
        self._lock = asyncio.Lock()
        self._take(first)

    def _take(self, page: Page[T]) -> None:
        self._rows.extend(page.items)
        self._trust.add(page)
        # Ended: the service says so, or it did not move on (a page that repeats the offset).
        self._done = (
            not page.has_more or page.next_offset <= self._wire or page.paging_note is not None
        )
        self._wire = page.next_offset

    async def page(self, offset: int, limit: int) -> Page[T]:
        """Rows `offset` to `offset + limit` of the matches; `total` once the service ended."""
        async with self._lock:
            reads = 0
            while len(self._rows) < offset + limit and not self._done and reads < self._max_reads:
                self._take(await self._fetch(self._wire, self._size))
                reads += 1
            return self._slice(offset, limit)

    def _slice(self, offset: int, limit: int) -> Page[T]:
        items = self._rows[offset : offset + limit]
        ids = {row_id(item) for item in items}
        page: Page[Any] = Page[Any].model_construct(
            items=items,
            total=len(self._rows) if self._done else None,
            limit=limit,
            offset=offset,
            has_more=not self._done or len(self._rows) > offset + limit,
            unreadable=[],
            ignored_filters=tuple(self._trust.filtered_here),
            filtered_out=0,
            unproven={key: names for key, names in self._trust.unproven.items() if key in ids},
            sort_ignored=self._trust.sort_ignored,
            paging_note=self._trust.paging_note,
        )
        return page
