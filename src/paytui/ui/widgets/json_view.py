"""A scrollable, syntax-highlighted view of a JSON document.

Support staff paste raw API objects into tickets and compare them with what the service's own
logs show, so the detail screens offer the wire form next to the friendly panels. The document
is rendered through Rich's `Syntax`, which treats the text as data: a customer name containing
markup shows literally, and control characters show as ``\u001b`` escapes. Secrets cannot
appear because the API already masks them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from paytui.api.money import exact_number
from paytui.text import escaped


def _default(value: object) -> object:
    """Serialise the few non-JSON types a `mode="python"` dump may still hold."""
    if isinstance(value, Decimal):
        # The wire form is a JSON number, shown with every digit the service sent.
        return exact_number(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def to_json_text(data: object, *, indent: int | None = 2) -> str:
    """JSON text, keys in the order the API sent them so it reads like the wire body.

    `indent=None` gives the compact one-line form used to show unknown values inline. Control,
    bidi and surrogate characters are written as ``\\u`` escapes (`paytui.text.escaped`): still
    the same JSON, but nothing in it can act on the terminal.
    """
    text = json.dumps(data, indent=indent, ensure_ascii=False, default=_default)
    return escaped(text, keep_lines=True)


class JsonView(VerticalScroll, can_focus=True):
    """Raw JSON of one API object, highlighted, scrollable with the keyboard."""

    DEFAULT_CSS = """
    JsonView {
        height: 1fr;
        background: $surface;
        border: round $primary 50%;
        border-title-color: $text-primary;
        padding: 0 1;
    }
    JsonView:focus {
        border: round $primary;
    }
    JsonView > .json-view--body {
        width: auto;
        height: auto;
    }
    """

    def __init__(
        self,
        data: Mapping[str, Any] | Sequence[Any] | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._data = data
        self.border_title = "JSON"

    def compose(self) -> ComposeResult:
        yield Static(self._renderable(), classes="json-view--body")

    @property
    def text(self) -> str:
        """The JSON text shown, for tests and for copying."""
        return to_json_text(self._data)

    def set_data(self, data: Mapping[str, Any] | Sequence[Any] | None) -> None:
        """Replace the document (e.g. after a reload with distributions expanded)."""
        self._data = data
        if self.is_mounted:
            self.query_one(".json-view--body", Static).update(self._renderable())

    def _renderable(self) -> Syntax:
        # Pick a Pygments theme that reads on the current Textual theme.
        theme = "monokai" if self.app.current_theme.dark else "default"
        return Syntax(
            self.text,
            "json",
            theme=theme,
            line_numbers=False,
            word_wrap=False,
            background_color="default",
        )
