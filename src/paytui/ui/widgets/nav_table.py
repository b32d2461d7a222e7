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

    def action_select(self) -> None:
        self.action_select_cursor()

    def action_cursor_top(self) -> None:
        self.action_scroll_top()

    def action_cursor_bottom(self) -> None:
        self.action_scroll_bottom()


__all__ = ["NavTable"]
