"""`?`: every key of the screen below, built from its live bindings (keymap applied).

Built from `bindings.live_bindings` of the screen that was showing, never from a hand-written list,
so a remapped key shows its new key and a screen added later documents itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from paytui.ui.bindings import HELP_BINDINGS, LiveBinding
from paytui.ui.screens.base import PaytuiModal


class HelpScreen(PaytuiModal[None]):
    """A modal listing key, action and binding id, grouped by where the binding acts."""

    CSS_PATH = Path(__file__).with_name("help.tcss")  # absolute: subclasses elsewhere work
    BINDINGS: ClassVar[list[BindingType]] = [*HELP_BINDINGS]
    HELP_TITLE = "Help"

    def __init__(self, live: list[LiveBinding]) -> None:
        super().__init__()
        self.live = live

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(Text("Keys"), id="help-title")
            with VerticalScroll(id="help-body"):
                yield Static(self._table(), id="help-table")
            yield Static(
                Text("Remap any key by its id in the [keymap] table of the config.  esc closes."),
                id="help-hint",
            )

    def _table(self) -> Table:
        table = Table(box=None, expand=True, show_header=True, padding=(0, 1), header_style="bold")
        table.add_column("Key", no_wrap=True, min_width=14)
        table.add_column("Action", ratio=1)
        table.add_column("Id", no_wrap=True, style="dim")
        scope = None
        for live in self.live:
            if live.scope != scope:
                scope = live.scope
                if table.row_count:
                    table.add_row("", "", "")
                table.add_row(Text(scope, style="bold underline"), "", "")
            description = live.binding.description
            if live.binding.tooltip:
                description = f"{description}: {live.binding.tooltip}"
            style = "" if live.enabled else "dim"
            why = "" if live.enabled else f" (not available: {live.reason or 'not here'})"
            action = Text(description + why, style=style)
            table.add_row(Text(live.key_display, style="bold"), action, Text(live.binding.id or ""))
        return table

    def action_close(self) -> None:
        self.dismiss()
