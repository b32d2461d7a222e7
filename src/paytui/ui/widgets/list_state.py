"""The list kit's state panel: loading, empty and error look and read the same on every list.

Every list screen (charges, refunds, tokens, accounts, an account's charges, distributions and
their items, History) composes one `ListState` next to its table and one `ErrorLine` above it:

- `ListState.show_loading(what)`: a spinner and "Loading <what>…", the table hidden;
- `ListState.show_empty(text)`: why there is nothing, and what to press to see more;
- `ListState.show_failed(exc, rows_on_screen=...)`: with no good rows yet, the panel says what went
  wrong and that ctrl+r retries; when rows are already on screen (a refresh or a later page
  failed) they stay, and the `ErrorLine` above them says what failed instead;
- `ListState.show_results()`: the table shows; the error line clears.

The panel sets the state as a class on its screen (`-loading`, `-results`, `-empty`, `-error`),
so a screen's stylesheet (and the shared rules in `app.tcss`) hide the table while there is no
list to show. The words of an error come from `describe_error`, the one classifier.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import LoadingIndicator, Static

from paytui.ui.widgets.errors import ErrorInfo, describe_error

#: Every state a list can be in (the screen gets `-<state>` as a class).
LIST_STATES = ("loading", "results", "empty", "error")
#: What the error line says of the rows under it, unless the screen says more.
LAST_GOOD = "the rows below are the last good ones"
#: The one retry hint.
RETRY_HINT = "Press ctrl+r to retry."


def error_text(info: ErrorInfo, *, otherwise: str | None = None) -> Text:
    """The error as "<Title>. <message>", then on its own line the retry hint when retrying
    can help, or `otherwise` (what to change instead) when it cannot."""
    text = Text()
    text.append(f"{info.title}. ", style="bold")
    text.append(info.message)
    hint = RETRY_HINT if info.retryable else otherwise
    if hint:
        text.append(f"\n{hint}")
    return text


class ErrorLine(Static):
    """One line above the last good rows: what failed, and that ctrl+r retries."""

    DEFAULT_CSS = """
    ErrorLine {
        height: auto;
        display: none;
        padding: 0 1;
        color: $error;
        background: $error-muted;
        &.-shown {
            display: block;
        }
    }
    """

    def show_error(
        self, info: ErrorInfo, note: str = "the rows below are the last good ones"
    ) -> None:
        line = Text()
        line.append(f"{info.title}: ", style="bold")
        line.append(info.message)
        line.append(f"  ({note}; ctrl+r retries)")
        self.update(line)
        self.add_class("-shown")

    def clear(self) -> None:
        self.update(Text(""))
        self.remove_class("-shown")

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")


class ListState(Vertical):
    """Loading / empty / error panel of a list; see the module docstring."""

    DEFAULT_CSS = """
    ListState {
        height: auto;
        padding: 1 2;
        display: none;
        & > LoadingIndicator {
            height: 1;
            display: none;
            color: $primary;
        }
        & > #state-message {
            height: auto;
        }
        &.-loading, &.-empty, &.-error {
            display: block;
        }
        &.-loading > LoadingIndicator {
            display: block;
        }
        &.-loading > #state-message {
            color: $text-muted;
        }
        &.-empty {
            border-left: thick $warning;
            background: $warning-muted;
        }
        &.-error {
            border-left: thick $error;
            background: $error-muted;
        }
    }
    """

    state: reactive[str] = reactive("loading")

    def __init__(self, *, error_line: ErrorLine | None = None, id: str = "list-state") -> None:
        super().__init__(id=id)
        self._error_line = error_line

    def compose(self) -> ComposeResult:
        yield LoadingIndicator(id="spinner")
        yield Static(Text(""), id="state-message")

    def on_mount(self) -> None:
        self.watch_state(self.state)

    def watch_state(self, state: str) -> None:
        for name in LIST_STATES:
            self.set_class(state == name, f"-{name}")
            if self.is_attached:
                self.screen.set_class(state == name, f"-{name}")

    # --- the four states ------------------------------------------------------------------------
    def message(self, text: Text | str) -> None:
        self.query_one("#state-message", Static).update(
            text if isinstance(text, Text) else Text(text)
        )

    def show_loading(self, what: str) -> None:
        self.message(Text(f"Loading {what}…"))
        self.state = "loading"

    def show_empty(self, text: Text | str) -> None:
        self.message(text)
        self.state = "empty"
        self._clear_line()

    def show_results(self) -> None:
        self.state = "results"
        self._clear_line()

    def show_failed(
        self,
        exc: BaseException,
        *,
        rows_on_screen: bool = False,
        note: str | None = None,
        otherwise: str | None = None,
    ) -> ErrorInfo:
        """Show `exc`: above the rows kept on screen, or in the panel when there are none
        (`otherwise`: what to do when retrying cannot help). Returns the words, to notify."""
        info = describe_error(exc)
        if rows_on_screen and self._error_line is not None:
            if note:
                self._error_line.show_error(info, note)
            else:
                self._error_line.show_error(info)
            self.state = "results"
            return info
        self.message(error_text(info, otherwise=otherwise))
        self.state = "error"
        self._clear_line()
        return info

    def _clear_line(self) -> None:
        if self._error_line is not None:
            self._error_line.clear()


def showing(shown: int, total: int | None, *, first: int | None = None) -> Text:
    """The one "Showing N of M"; a list read a page at a time (`first` given) adds its rows."""
    start = first or 0
    known = total if total is not None else start + shown
    text = f"Showing {shown:,} of {known:,}"
    if first is not None and shown:
        text += f"  (rows {start + 1:,}–{start + shown:,})"
    return Text(text)


__all__ = ["LIST_STATES", "RETRY_HINT", "ErrorLine", "ListState", "error_text", "showing"]
