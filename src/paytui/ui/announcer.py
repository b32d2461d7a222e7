"""Screen-reader mode (docs/accessibility.md): the one announcer of what changes, as lines.

A terminal screen reader (Speakup, BRLTTY, NVDA, Orca, VoiceOver in a terminal) reads what is
newly written and the line the terminal cursor is on; a dashboard that repaints cells all over
the screen, hides the cursor and spins a loading indicator gives it noise, or nothing. In this
mode paytui says each change once, in order, as a line of text in one place (`SpokenLines`,
the bottom lines of every screen) and puts the terminal cursor, shown, at the start of the newest
line. What is said comes from what the screens already declare, never from a screen of its own:

- a screen's name: a dialog's title, else the top screen's title (`top_screens`), else the
  `KEYS_TITLE` / `HELP_TITLE` the help screen reads (`PaytuiScreenMixin.spoken_title`);
- what has focus: a field's label (`.field-label` beside it), a button's label, a table's name,
  with its state (disabled, the value typed, checked);
- the selected row of a list as a sentence: each column's label and the cell's words
  (`spoken_row` of `ChargeTable` and `FitTable`, from their declared columns; any other
  `DataTable` from its columns);
- live regions (`widgets.live.LiveStatic`): a list's state ("Loading charges…", "No charges
  match"), an error line, a money dialog's steps (the charge, the review, the outcome, a field's
  error);
- every notification (`PaytuiApp.notify`), with its severity in words.

Everything said passes the one display sanitiser (`paytui.text`). A line said twice in a row is
said once (a redraw is not news); the same focus or row is not said again until it changes.
`lines` keeps the whole session's transcript (tests read it).
"""

from __future__ import annotations

import io
import re
import weakref
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Console
from rich.text import Text
from textual.geometry import Offset
from textual.widgets import Button, DataTable, Input, Static, TextArea

from paytui.text import safe_lines

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.app import App
    from textual.screen import Screen
    from textual.widget import Widget

__all__ = ["Announcer", "SpokenLines", "row_sentence", "spoken_name", "spoken_title"]

#: How many of the latest lines the region at the bottom of each screen shows at most, and in
#: how many rows (the newest is shown whole, however long).
SHOWN_LINES = 3
SHOWN_ROWS = 4

#: Severity words of a notification (colour alone says nothing to a screen reader).
SEVERITY_WORDS = {"information": "Note", "warning": "Warning", "error": "Error"}

_SPACES = re.compile(r"\s{2,}")
#: A renderable is read at this width (a panel's rows on one line each).
_RENDER_WIDTH = 400


def _plain(content: object) -> str:
    """What a renderable says, as plain text: a `Text`, a str, anything with `plain`, or a Rich
    renderable (a panel's rows), rendered wide enough that no line wraps."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Text):
        return content.plain
    plain = getattr(content, "plain", None)
    if isinstance(plain, str):
        return plain
    if hasattr(content, "__rich_console__") or hasattr(content, "__rich__"):
        console = Console(
            width=_RENDER_WIDTH, file=io.StringIO(), color_system=None, record=True, no_color=True
        )
        console.print(content)
        return "\n".join(line.rstrip() for line in console.export_text().splitlines())
    return str(content)


def _words(text: object) -> str:
    """One line of speech: sanitised, runs of padding collapsed (alignment is not news)."""
    return _SPACES.sub(" ", safe_lines(_plain(text)).replace("\n", " ")).strip()


def row_sentence(labels: Sequence[str], cells: Sequence[object], position: str = "") -> str:
    """A row read as a sentence: "Row 2 of 40: Status Succeeded, Amount 40.00." (empty cells
    left out; `position` is "Row 2 of 40")."""
    parts = []
    for label, cell in zip(labels, cells, strict=False):
        words = _words(cell)
        if words:
            parts.append(f"{_words(label)} {words}".strip())
    body = ", ".join(parts) or "empty row"
    return f"{position}: {body}." if position else f"{body}."


def spoken_title(screen: Screen[Any]) -> str:
    """A screen's name as declared (see the module docstring)."""
    own = getattr(screen, "spoken_title", None)
    if callable(own):
        said = own()
        if said:
            return _words(said)
    for attribute in ("HELP_TITLE", "KEYS_TITLE"):
        value = getattr(screen, attribute, None)
        if isinstance(value, str) and value:
            return _words(value)
    return _words(re.sub(r"(?<!^)(?=[A-Z])", " ", type(screen).__name__).removesuffix(" Screen"))


def _field_label(widget: Widget) -> str | None:
    """The label beside a form's field (both form kits: `.field-label` in a `.field-line`)."""
    for ancestor in widget.ancestors:
        if getattr(ancestor, "has_class", None) and ancestor.has_class("field-line"):
            for label in ancestor.query(".field-label").results(Static):
                return _words(label.render())
            return None
    return None


def spoken_name(widget: Widget) -> str:
    """What a widget is called, from what it declares: its field label, a button's label, a
    border title, a placeholder, its help title, else its id in words."""
    label = _field_label(widget)
    if label:
        return label
    if isinstance(widget, Button):
        return _words(widget.label)
    if widget.border_title:
        return _words(widget.border_title)
    placeholder = getattr(widget, "placeholder", None)
    if isinstance(placeholder, str) and placeholder:
        return _words(placeholder)
    for attribute in ("HELP_TITLE", "KEYS_TITLE"):
        value = getattr(type(widget), attribute, None)
        if isinstance(value, str) and value:
            return _words(value)
    if widget.id:
        return _words(widget.id.replace("-", " ").replace("_", " "))
    return _words(type(widget).__name__)


def _role(widget: Widget) -> str:
    """The kind of thing focused, in words, with its state."""
    if isinstance(widget, Button):
        return "button, unavailable" if widget.disabled else "button"
    if isinstance(widget, Input):
        if widget.password or type(widget).__name__ == "CardInput":
            # What is typed there is not read back (a card number, a secret).
            count = len(widget.value)
            return f"text field, {count} characters typed" if count else "text field, empty"
        typed = _words(widget.value)
        return f"text field, contains {typed}" if typed else "text field, empty"
    if isinstance(widget, TextArea):
        lines = widget.text.count("\n") + 1 if widget.text else 0
        return f"text area, {lines} lines" if lines else "text area, empty"
    if hasattr(widget, "spoken_row") or isinstance(widget, DataTable):
        return "list"
    value: object = getattr(widget, "value", None)
    if isinstance(value, bool):
        return "check box, checked" if value else "check box, not checked"
    if value is not None and not callable(value):
        return f"choice, {_words(value)}"
    return ""


def _row(widget: Widget) -> str | None:
    """The selected row of a list as a sentence (None: not a list)."""
    spoken = getattr(widget, "spoken_row", None)
    if callable(spoken):
        said = spoken()
        return _words(said) if said else None
    if isinstance(widget, DataTable):
        if not 0 <= widget.cursor_row < widget.row_count:
            return "No rows."
        labels = [_plain(column.label) for column in widget.ordered_columns]
        cells = widget.get_row_at(widget.cursor_row)
        return row_sentence(labels, cells, f"Row {widget.cursor_row + 1} of {widget.row_count}")
    return None


class SpokenLines(Static):
    """The bottom lines of a screen in screen-reader mode: the latest announcements, the newest
    last and whole (a long row sentence wraps), the terminal cursor at its start (`Announcer`).
    Split off the bottom of the screen (`split`, not `dock`): the footer stays above it."""

    DEFAULT_CSS = """
    SpokenLines {
        split: bottom;
        height: auto;
        max-height: 12;
        padding: 0 1;
        background: $panel;
        color: $text;
        border-top: solid $primary;
    }
    """

    #: The row (of this widget's content) where the newest line starts.
    newest_row = 0

    def show(self, lines: list[str]) -> None:
        """The newest line whole, and those before it that fit in `SHOWN_ROWS` rows."""
        width = max(10, (self.content_size.width or self.app.size.width - 2))
        console = self.app.console
        rows = [len(Text(line).wrap(console, width)) for line in lines[-SHOWN_LINES:]]
        shown = 1
        while shown < len(rows) and sum(rows[-shown - 1 :]) <= SHOWN_ROWS:
            shown += 1
        self.newest_row = sum(rows[-shown:-1]) if shown > 1 else 0
        self.update(Text("\n".join(lines[-shown:])))


class Announcer:
    """The one place that says what changed (see the module docstring)."""

    #: Roles whose value changes as the person types: said on focus, not at each key (the
    #: terminal cursor is in the field, so the screen reader echoes the keys itself).
    TYPED: ClassVar[tuple[type, ...]] = (Input, TextArea)

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        #: Every line said this session, in order (what a screen reader was given).
        self.lines: list[str] = []
        self._screen: weakref.ref[Screen[Any]] | None = None
        self._focus: weakref.ref[Widget] | None = None
        self._focus_said: str | None = None
        self._row_said: str | None = None
        self._watched: weakref.WeakSet[object] = weakref.WeakSet()
        self._regions: weakref.WeakKeyDictionary[Widget, str] = weakref.WeakKeyDictionary()
        self._focus_pending = False

    # --- the output ---------------------------------------------------------------------------
    def say(self, text: object) -> None:
        """Say `text`, a line at a time (sanitised; empty lines and a repeat of the line just
        said are not said)."""
        said = False
        for raw in safe_lines(_plain(text)).splitlines():
            line = _words(raw)
            if not line or (self.lines and self.lines[-1] == line):
                continue
            self.lines.append(line)
            said = True
        if said:
            self._show()

    def _show(self) -> None:
        try:
            screen = self.app.screen
        except Exception:  # no screen yet, or the app is closing
            return
        regions = list(screen.query(SpokenLines).results())
        if not regions:
            return
        regions[0].show(self.lines[-SHOWN_LINES:])
        self.app.call_after_refresh(self._place_cursor)

    def _place_cursor(self) -> None:
        """The terminal cursor at the start of the newest line: what a screen reader reads."""
        try:
            regions = list(self.app.screen.query(SpokenLines).results())
        except Exception:
            return
        if regions:
            area = regions[0].content_region
            self.app.cursor_position = Offset(area.x, area.y + regions[0].newest_row)

    # --- what feeds it --------------------------------------------------------------------------
    def start(self) -> None:
        """Follow the app's screens (called once the app is mounted)."""
        self.app.screen_change_signal.subscribe(self.app, self.screen_changed)
        self.screen_changed(self.app.screen)

    def screen_changed(self, screen: Screen[Any]) -> None:
        if not screen.query(SpokenLines):
            screen.mount(SpokenLines())
        if screen not in self._watched:
            self._watched.add(screen)
            self.app.watch(screen, "focused", self._focused, init=False)
        self._enter(screen)
        self._show()
        self.focus_changed(screen.focused, force=True)

    def _enter(self, screen: Screen[Any]) -> None:
        """Say the screen's name when the person arrives in it (once per arrival)."""
        current = self._screen() if self._screen is not None else None
        if current is screen:
            return
        self._screen = weakref.ref(screen)
        self._focus = None
        self.say(f"{spoken_title(screen)}.")

    def _focused(self, _widget: Widget | None) -> None:
        """Focus moved: said once the move has settled (a dialog focuses its form, then the
        form its first field: only where focus ends is said)."""
        if not self._focus_pending:
            self._focus_pending = True
            self.app.call_later(self._focus_settled)

    def _focus_settled(self) -> None:
        self._focus_pending = False
        try:
            screen = self.app.screen
        except Exception:
            return
        self.focus_changed(screen.focused)

    def focus_changed(self, widget: Widget | None, *, force: bool = False) -> None:
        """Focus moved to `widget` (None: nothing focused)."""
        if widget is None:
            return
        try:
            if widget.screen is not self.app.screen:
                return  # a screen behind the one in front
        except Exception:
            return
        self._enter(widget.screen)
        if hasattr(widget, "cursor_blink"):
            widget.cursor_blink = False  # a blinking cursor is a redraw every half second
        self._follow_rows(widget)
        previous = self._focus() if self._focus is not None else None
        if previous is widget and not force:
            self.row_changed(widget)
            return
        self._focus = weakref.ref(widget)
        role = _role(widget)
        said = f"{spoken_name(widget)}, {role}" if role else spoken_name(widget)
        row = _row(widget)
        if force or said != self._focus_said or previous is not widget:
            self._focus_said = said
            self._row_said = row
            self.say(f"{said}. {row}" if row else f"{said}.")
        else:
            self.row_changed(widget)

    def _follow_rows(self, widget: Widget) -> None:
        """Watch the cursor of a list that has focus (once per list)."""
        if widget in self._watched:
            return
        for attribute in ("cursor_row", "cursor_coordinate"):
            if attribute in getattr(type(widget), "_reactives", {}):
                self._watched.add(widget)
                self.app.watch(widget, attribute, lambda *_: self.row_changed(widget), init=False)
                return

    def row_changed(self, widget: Widget) -> None:
        """The selected row of `widget` moved or its data arrived: say it if it has focus and
        reads differently from what was last said of it."""
        focused = self._focus() if self._focus is not None else None
        if focused is not widget:
            return
        row = _row(widget)
        if row and row != self._row_said:
            self._row_said = row
            self.say(row)

    def region_changed(self, widget: Widget, content: object) -> None:
        """A live region of the screen in front now reads `content`."""
        try:
            if widget.screen is not self.app.screen:
                return
        except Exception:
            return
        self._enter(widget.screen)
        text = safe_lines(_plain(content)).strip()
        before = self._regions.get(widget)
        self._regions[widget] = text
        if not text or before == text:
            return
        # What the region says anew: a line it already said (the charge's amount above a new
        # "Left") is not said again while the region shows it.
        said = {_words(line) for line in (before or "").splitlines()}
        fresh = [line for line in text.splitlines() if _words(line) not in said]
        if not fresh:
            return
        title = _words(widget.border_title) if widget.border_title else ""
        if title:
            fresh[0] = f"{title}: {fresh[0]}"
        self.say("\n".join(fresh))

    def toast(self, message: str, title: str, severity: str) -> None:
        """A notification, its severity in words."""
        word = SEVERITY_WORDS.get(severity, "Note")
        head = f"{word}: {_words(title)}: " if title else f"{word}: "
        lines = safe_lines(message).splitlines() or [""]
        self.say("\n".join([head + lines[0], *lines[1:]]))
