"""Text fields that refuse control characters: every form of the app uses these.

A control character typed or pasted into a form would be echoed raw to the terminal and sent to
the service (and from there to every other screen that shows it). So a field refuses text
holding a C0/C1 control, ESC, DEL, a bidi control or a lone surrogate (the set `paytui.text`
neutralises for display) with one clear line, and keeps what was typed before. A value the app
puts into a field itself (an existing tag being edited) is *shown* through the one display
sanitiser, so even old hostile data cannot act on the terminal from inside a field.

The multi-line field is `paytui.ui.widgets.safe_text_area` (Textual's `TextArea` is a dear import
that the first screen does not need).
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input

from paytui.text import first_unsafe, safe

__all__ = ["SafeInput", "refusal"]


def refusal(char: str) -> str:
    """The one line shown when a field refuses text (`char` as ``U+001B``)."""
    return f"Not inserted: the text holds a control character ({char}); type it without one."


class SafeInput(Input):
    """An `Input` that refuses control characters (typed, pasted or inserted) with a message."""

    refused: str | None = None
    """The last refusal message (for tests and for forms that show it inline)."""

    #: Textual's `Input` sets its virtual size (the text's width, for scrolling it) on every
    #: change of its value, and `Widget.virtual_size` asks for a layout: a reflow and a repaint
    #: of the whole screen per key typed (about 20 ms at 120x40 on the charge list). A line's
    #: size never depends on its text, and scrolling within it reads the value directly, so a
    #: repaint of the line is all a change needs.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def replace(self, text: str, start: int, end: int) -> None:
        # Typing, pasting and `insert_text_at_cursor` all come through here.
        char = first_unsafe(text)
        if char is not None:
            self.refused = refusal(char)
            self.app.notify(self.refused, title="Text field", severity="warning", markup=False)
            self.app.bell()
            return
        super().replace(text, start, end)

    @property
    def _value(self) -> Text:
        # Textual renders `self.value` as it is; show it through the sanitiser instead. `safe`
        # keeps the length (one placeholder per character), so cursor positions stay right.
        if self.password or not first_unsafe(self.value):
            return super()._value
        text = Text(safe(self.value), no_wrap=True, overflow="ignore", end="")
        if self.highlighter is not None:
            text = self.highlighter(text)
        return text
