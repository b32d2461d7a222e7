"""A multi-line text field that refuses control characters (see `paytui.ui.widgets.safe_input`).

Its own module: Textual's `TextArea` is a dear import, and only forms (refund, tags, new charge)
need it, not the first screen.
"""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea

from paytui.text import first_unsafe
from paytui.ui.widgets.safe_input import refusal

__all__ = ["SafeTextArea"]


class SafeTextArea(TextArea):
    """A `TextArea` whose paste refuses control characters (newlines and tabs are fine)."""

    refused: str | None = None

    async def _on_paste(self, event: events.Paste) -> None:
        # Textual calls the base class's `_on_paste` after this one unless the default is
        # prevented, so this only vetoes; it never inserts itself.
        char = first_unsafe(event.text.replace("\r\n", "").replace("\n", "").replace("\t", ""))
        if char is not None:
            event.prevent_default()
            event.stop()
            self.refused = refusal(char)
            self.app.notify(self.refused, title="Text field", severity="warning", markup=False)
            self.app.bell()
