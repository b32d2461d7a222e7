"""The kit of paytui's forms: a labelled field with its error line, and per-field errors.

Shared by the new charge screen, the token form and "charge a token"; a 422's field errors land
next to the fields they name (`FormMixin.show_server_errors`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from paytui.text import safe
from paytui.ui.widgets.live import LiveStatic

if TYPE_CHECKING:
    from textual.dom import DOMNode

__all__ = ["FORMS_TCSS", "FieldLine", "FormMixin", "field_row"]

#: The stylesheet of every form (new charge, token, charge a token).
FORMS_TCSS = Path(__file__).with_name("forms.tcss")


class FieldLine(Horizontal):
    """A label and its field on one line; the label stands out while the field has focus (a
    compact field's own focus mark is faint: the label is reversed, seen without colour,
    docs/accessibility.md), and the field comes into view with its error. Every form's."""

    def on_descendant_focus(self) -> None:
        self.add_class("-focused")
        self.scroll_visible(animate=False)

    def on_descendant_blur(self) -> None:
        self.remove_class("-focused")


def field_row(label: str, widget: Widget, name: str) -> Vertical:
    """A label and its field on one line, with the field's error line under it (hidden when
    empty)."""
    return Vertical(
        FieldLine(Label(Text(label), classes="field-label"), widget, classes="field-line"),
        LiveStatic(Text(""), id=f"err-{name}", classes="field-error"),
        id=f"row-{name}",
        classes="field-row",
    )


if TYPE_CHECKING:
    _FormBase = DOMNode  # the forms mixing this in are screens
else:
    _FormBase = object


class FormMixin(_FormBase):
    """Per-field error lines: `set_error(name, message)`, `clear_errors()`."""

    def set_error(self, name: str, message: str | None) -> None:
        line = self.query_one(f"#err-{name}", Static)
        line.update(Text(safe(message or "")))
        line.set_class(bool(message), "-shown")
        self.query_one(f"#row-{name}").set_class(bool(message), "-invalid")

    def clear_errors(self) -> None:
        for line in self.query(".field-error").results(Static):
            line.update(Text(""))
            line.remove_class("-shown")
        for row in self.query(".field-row"):
            row.remove_class("-invalid")

    def show_server_errors(self, exc: BaseException, fields: dict[str, str]) -> bool:
        """Put a 422's field errors next to our fields (`fields`: wire name -> our name);
        True when at least one landed on a field."""
        placed = False
        for item in getattr(exc, "field_errors", None) or []:
            name = fields.get(getattr(item, "field", "") or "")
            if name is not None:
                self.set_error(name, str(getattr(item, "message", "")))
                placed = True
        return placed

    def value(self, name: str) -> str:
        return self.query_one(f"#{name}", Input).value.strip()
