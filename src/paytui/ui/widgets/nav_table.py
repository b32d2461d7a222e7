"""`NavTable`: the list kit's table for lists that are read whole (accounts, distributions, ...).

A `DataTable` with the app's table keys (vim keys included, remappable by id). It lives with the
widgets, not in a screen module, so screens that show lists do not import each other.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import BindingType
from textual.widgets import DataTable

from paytui.ui.bindings import TABLE_BINDINGS


class NavTable(DataTable[Any]):
    """A `DataTable` with the app's table keys."""

    BINDINGS: ClassVar[list[BindingType]] = [*TABLE_BINDINGS]
    #: The help screen's heading for these keys (a class name is no word for a person).
    HELP_TITLE = "Table"
    KEYS_TITLE = "Tables"

    #: The cursor moved while the table had no size yet (its screen built ahead, not shown):
    #: it is scrolled into view once the table has one.
    _scroll_owed = False

    def _scroll_cursor_into_view(self, animate: bool = False) -> None:
        # Scrolling a table that has no height yet scrolls every row but the first out of
        # view: a list built ahead would open scrolled past its first rows.
        if not self.size.height:
            self._scroll_owed = True
            return
        super()._scroll_cursor_into_view(animate)

    def on_resize(self) -> None:
        if self._scroll_owed and self.size.height:
            self._scroll_owed = False
            super()._scroll_cursor_into_view()

    def action_select(self) -> None:
        self.action_select_cursor()

    def action_cursor_top(self) -> None:
        self.action_scroll_top()

    def action_cursor_bottom(self) -> None:
        self.action_scroll_bottom()


__all__ = ["NavTable"]
