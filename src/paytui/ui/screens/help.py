"""`?`: every key of the screen below, built from its live bindings (keymap applied).

Built from `bindings.live_bindings` of the screen that was showing, never from a hand-written list,
so a remapped key shows its new key and a screen added later documents itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from paytui.text import safe
from paytui.ui.bindings import BROWSER_KEYS, LiveBinding, display_key
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.columns import Shape, layout_columns

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

#: The room an action needs beside its key before the ids get a column: a description and the
#: reason it is not available, in two lines (at 80 columns the ids give way).
ACTION_MIN_WIDTH = 60
#: "(needs urn:v2:…:all)" at the end of a tooltip: the scope the action would need.
_NEEDS_SCOPE = re.compile(r"\s*\(needs [^()]*\)$")


def action_text(live: LiveBinding) -> Text:
    """What a key does, once ("Refund the highlighted charge", not "Refund: Refund the …"); a
    disabled one says why, in place of the scope it would need (a missing scope is named by the
    reason itself)."""
    description = live.binding.description
    tooltip = live.binding.tooltip
    if tooltip and not live.enabled:
        tooltip = _NEEDS_SCOPE.sub("", tooltip)
    if tooltip:
        says_it = tooltip.lower().startswith(f"{description.lower()} ")
        description = tooltip if says_it else f"{description}: {tooltip}"
    if live.enabled:
        # The registry's note beside an action that applies (a status paytui does not know).
        return Text(safe(f"{description} ({live.note})") if live.note else description)
    return Text(f"{description} (not available: {live.reason or 'not here'})", style="dim")


class KeyTable:
    """The keys grouped by where they act, laid out for the width the help gets.

    The key column is as wide as the widest single key (a list of keys goes on over lines at its
    " / "), the action takes the rest, and the ids have a column while the action keeps
    `ACTION_MIN_WIDTH` (the app's one column rule, `widgets.columns`); without it a line says
    where the ids are.
    """

    GAP = 2

    def __init__(self, live: list[LiveBinding]) -> None:
        self.live = live

    def widths(self, width: int) -> dict[str, int]:
        """The column widths for `width` cells: "key", "action" and, when it fits, "id"."""
        keys = [part for live in self.live for part in live.key_display.split()]
        key_width = max([len("Key"), *(cell_len(key) for key in keys)])
        ids = [live.binding.id or "" for live in self.live]
        shapes = [
            Shape("key", key_width, key_width, None, 0),
            Shape("action", None, ACTION_MIN_WIDTH, None, 0),
            Shape("id", max([len("Id"), *(len(i) for i in ids)]), 1, None, 1),
        ]
        fitted = {shape.key: cells for shape, cells in layout_columns(width, shapes, gap=self.GAP)}
        if "action" not in fitted:  # narrower than a key and a whole action: the action wraps
            return {"key": shapes[0].min_width, "action": max(1, width - shapes[0].min_width)}
        return fitted

    def _grid(self, widths: dict[str, int], *, header: bool = False) -> Table:
        table = Table(
            box=None,
            padding=(0, self.GAP // 2),
            pad_edge=False,
            show_header=header,
            header_style="bold",
        )
        table.add_column("Key", width=widths["key"])
        table.add_column("Action", width=widths["action"])
        if "id" in widths:
            table.add_column("Id", width=widths["id"], no_wrap=True, style="dim")
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = self.widths(options.max_width)
        parts: list[Table | Text] = []
        if "id" not in widths:
            parts.append(
                Text("Ids for [keymap] show in a wider window (and in docs/keys.md).", "dim")
            )
        parts.append(self._grid(widths, header=True))
        table: Table | None = None
        for index, live in enumerate(self.live):
            if table is None or live.scope != self.live[index - 1].scope:
                if table is not None:
                    parts.append(Text(""))
                parts.append(Text(live.scope, style="bold underline"))
                table = self._grid(widths)
                parts.append(table)
            cells = [Text(live.key_display, style="bold"), action_text(live)]
            if "id" in widths:
                cells.append(Text(live.binding.id or ""))
            table.add_row(*cells)
        yield Group(*parts)


def browser_note(live: list[LiveBinding]) -> str:
    """In a browser (`paytui serve`): the keys it keeps, and this screen's bindings that use one,
    by their other key."""
    others = []
    for each in live:
        rest = [key for key in each.keys if key not in BROWSER_KEYS]
        if len(rest) < len(each.keys):
            other = display_key(",".join(rest)) if rest else "none (give it one in [keymap])"
            others.append(f"{each.binding.description}: {other}")
    note = (
        "In a browser, the browser keeps ctrl+w, ctrl+t, ctrl+n, ctrl+tab, ctrl+PgUp and "
        "ctrl+PgDn (close tab, new tab, new window, next tab, previous and next tab)"
    )
    return f"{note}; here use {'; '.join(others)}." if others else f"{note}."


HELP_BINDINGS: list[Binding] = [
    Binding("escape,question_mark,q", "close", "Close", id="help.close"),
]


class HelpScreen(PaytuiModal[None]):
    """A modal listing key, action and binding id, grouped by where the binding acts."""

    CSS_PATH = Path(__file__).with_name("help.tcss")  # absolute: subclasses elsewhere work
    BINDINGS: ClassVar[list[BindingType]] = [*HELP_BINDINGS]
    HELP_TITLE = "Help"
    KEYS_TITLE = "Help screen"

    def __init__(self, live: list[LiveBinding], notes: Text | None = None) -> None:
        super().__init__()
        self.live = live
        #: What the screen below says besides its keys (the charge search: its language).
        self.notes = notes

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            title = Text("Keys", style="bold")
            # The way to a linear, spoken dashboard is said where every key is (issue: help).
            title.append("  · screen-reader mode: paytui --screen-reader (docs/accessibility.md)")
            yield Static(title, id="help-title")
            if self.app.is_web:
                yield Static(Text(browser_note(self.live)), id="help-browser")
            with VerticalScroll(id="help-body"):
                yield Static(self._table(), id="help-table")
                if self.notes is not None:
                    yield Static(self.notes, id="help-notes")
            yield Static(
                Text("Remap any key by its id in the [keymap] table of the config.  esc closes."),
                id="help-hint",
            )

    def _table(self) -> KeyTable:
        return KeyTable(self.live)

    def action_close(self) -> None:
        self.dismiss()
