"""What `y`, `Y` and "copy as curl" put on the clipboard, and the line that says so.

Everything leaves through `PaytuiApp.copy_to_clipboard`, which passes it through the one display
sanitiser: JSON is copied on one line (its strings are JSON-escaped, so nothing in a value can act
on a terminal it is pasted into), and a curl command never holds the secret — the bearer token is
`$PAYTUI_TOKEN` (`paytui.api.curl`). Textual's clipboard is OSC 52 only, which some terminals
ignore, so a notification always says what was copied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paytui.ui.host import PaytuiHost

__all__ = ["copy_json", "copy_text"]


def copy_text(app: PaytuiHost, text: str, what: str) -> None:
    app.copy_to_clipboard(text)
    app.notify(f"Copied {what}", title="Clipboard", markup=False)


def copy_json(app: PaytuiHost, obj: Any, noun: str) -> None:
    """`obj` (a pydantic model from the API) as JSON on one line, or a warning when none."""
    if obj is None:
        app.notify(f"No {noun} under the cursor to copy.", severity="warning", markup=False)
        return
    text = obj.model_dump_json(by_alias=True, exclude_none=True)
    copy_text(app, text, f"{noun} as JSON ({len(text):,} characters)")


def entry_request(entry: Any) -> tuple[str, str, list[tuple[str, str]] | None, Any] | None:
    """The request a journal entry stands for (method, path, query, JSON body), as far as the
    journal keeps it (`Operation.request_of`); None for a new charge, whose card details are
    never kept, and for operations whose request is not kept."""
    from paytui.actions.operations import OPERATIONS

    spec = OPERATIONS.get(getattr(entry, "operation", ""))
    return spec.request_of(entry) if spec is not None else None
