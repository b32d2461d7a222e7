"""The list kit's state panel: loading, empty and error look and read the same on every list.

Every list screen (charges, refunds, tokens, accounts, an account's charges, distributions and
their items, History) composes one `ListState` next to its table and one `ErrorLine` above it:

- `ListState.show_loading(what)`: a spinner and "Loading <what>…", the table hidden;
- `ListState.show_empty(text)`: why there is nothing, and what to press to see more;
- `ListState.show_failed(exc, rows_on_screen=...)`: with no good rows yet, the panel says what went
  wrong and that ctrl+r retries; when rows are already on screen (a refresh or a later page
  failed) they stay, and the `ErrorLine` above them says what failed instead;
- `ListState.show_results()`: the table shows; the error line clears;
- `add_unreadable_rows(table, page.unreadable)`: an item of a page that could not be read (a
  field of an impossible shape) is one "unreadable row" with its id and why, and the rest of
  the page shows. The rows go after the page's readable ones, keyed ``unreadable:<n>``, so a
  screen's list of items keeps the positions of its table's rows; the charge list, which draws
  its own rows, keeps them in their places with the same label.
- `ListState.show_waiting(wait, cancel)`: while loading, the client waits before a retry (a
  ``Retry-After``): a countdown, "Service busy, retrying in 12 s… (escape to cancel)", ticking
  each second; `cancel_wait()` (escape) stops the request and says ctrl+r tries again.

The panel sets the state as a class on its screen (`-loading`, `-results`, `-empty`, `-error`),
so a screen's stylesheet (and the shared rules in `app.tcss`) hide the table while there is no
list to show. Restyling a whole screen costs tens of milliseconds, so a screen whose stylesheet
has no rule on these classes says so (`LIST_STATE_STYLED = False`, checked by a test against its
stylesheet): its state changes restyle the panel only; one whose rules on them style a few nodes
names those (`LIST_STATE_STYLED = "NavTable"`: the panel and those nodes are restyled). The
words of an error come from `describe_error`, the one classifier.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import LoadingIndicator

from paytui.ui import format as fmt
from paytui.ui.widgets.errors import ErrorInfo, describe_error
from paytui.ui.widgets.fit_table import FitTable
from paytui.ui.widgets.live import LiveStatic

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

    from paytui.api.client import RetryWait
    from paytui.api.models import UnreadableItem

#: Every state a list can be in (the screen gets `-<state>` as a class).
LIST_STATES = ("loading", "results", "empty", "error")
#: What the error line says of the rows under it, unless the screen says more.
LAST_GOOD = "the rows below are the last good ones"
#: The one retry hint.
RETRY_HINT = "Press ctrl+r to retry."
#: What a list says once the user stopped a retry wait.
WAIT_CANCELLED = "Stopped waiting for the service. " + RETRY_HINT


#: What an item that could not be read shows as, in every list.
UNREADABLE_LABEL = "unreadable row"
#: Row keys of unreadable rows start with this.
UNREADABLE_KEY = "unreadable:"


def unreadable_cells(item: UnreadableItem, columns: int) -> list[Text]:
    """The cells of an unreadable row: the label, its id, and why in the last column."""
    cells = [Text("") for _ in range(columns)]
    texts = [Text(UNREADABLE_LABEL, style=fmt.tone("bold error")), fmt.literal(item.id or "?")]
    for index, text in enumerate(texts[:columns]):
        cells[index] = text
    if columns > len(texts):
        cells[-1] = fmt.literal(item.reason, style="dim")
    return cells


def add_unreadable_rows(table: FitTable, unreadable: Iterable[UnreadableItem]) -> int:
    """Add one unreadable row per item after the table's rows; how many were added. A row
    takes a cell for every declared column, whichever are on screen now."""
    added = 0
    for item in sorted(unreadable, key=lambda u: u.position):
        table.add_row(
            *unreadable_cells(item, table.declared_columns),
            key=f"{UNREADABLE_KEY}{table.row_count}",
        )
        added += 1
    return added


def is_unreadable_key(key: object) -> bool:
    """True for the row key of an unreadable row (nothing to open or act on)."""
    return str(key).startswith(UNREADABLE_KEY)


def waiting_text(reason: str, seconds_left: float) -> str:
    """The countdown line: "Service busy, retrying in 12 s… (escape to cancel)"."""
    if seconds_left <= 0:
        return f"{reason}, retrying now… (escape to cancel)"
    return f"{reason}, retrying in {max(0, math.ceil(seconds_left))} s… (escape to cancel)"


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


class ErrorLine(LiveStatic):
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
        # Every list clears it with each result shown: when there is nothing to clear, an
        # update would still ask for a layout (a reflow and repaint of the whole screen).
        if not self.shown and not str(self.content):
            return
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
    #: The countdown's clock (a test replaces it, so nothing really waits).
    clock = staticmethod(time.monotonic)

    def __init__(self, *, error_line: ErrorLine | None = None, id: str = "list-state") -> None:
        super().__init__(id=id)
        self._error_line = error_line
        self._wait_ends: float | None = None
        self._wait_reason = ""
        self._cancel: Callable[[], object] | None = None
        self._ticker: Timer | None = None

    def compose(self) -> ComposeResult:
        yield LoadingIndicator(id="spinner")
        yield LiveStatic(Text(""), id="state-message")

    def _post_register(self, app: App[object]) -> None:
        # Composed by its screen (every list screen yields it at the top of `compose`), the panel
        # is attached before any widget of the screen is first styled: Textual styles a batch of
        # widgets after attaching them all. The screen then takes the first state's class with
        # no restyle of the whole screen. Mounted into a screen already on show, it restyles.
        super()._post_register(app)
        if self.is_attached:
            self._show_state(self.state, restyle=self.screen.is_mounted)

    def watch_state(self, state: str) -> None:
        # Also called once at mount with the first state (a reactive's watcher runs at init).
        self._show_state(state)

    def _show_state(self, state: str, *, restyle: bool = True) -> None:
        """`-<state>` on the panel and its screen. A node is restyled only when its classes
        change, and once for all of them: restyling a whole screen is the dear part."""
        nodes = [self, self.screen] if self.is_attached else [self]
        for node in nodes:
            if all(node.has_class(f"-{name}") == (name == state) for name in LIST_STATES):
                continue
            for name in LIST_STATES:
                node.set_class(state == name, f"-{name}", update=False)
            styled = True if node is self else getattr(node, "LIST_STATE_STYLED", True)
            if restyle and styled is True:
                node.update_node_styles()
            elif restyle and isinstance(styled, str):  # only the nodes its rules style
                for styled_node in node.query(styled):
                    styled_node.update_node_styles()

    # --- the four states ------------------------------------------------------------------------
    def message(self, text: Text | str, *, spoken: bool = True) -> None:
        """The panel's words (said in screen-reader mode unless `spoken` is False)."""
        self.query_one("#state-message", LiveStatic).update(
            text if isinstance(text, Text) else Text(text), spoken=spoken
        )

    def show_loading(self, what: str) -> None:
        self._stop_waiting()
        self.message(Text(f"Loading {what}…"))
        self.state = "loading"

    def show_empty(self, text: Text | str) -> None:
        self._stop_waiting()
        self.message(text)
        self.state = "empty"
        self._clear_line()

    def show_results(self) -> None:
        self._stop_waiting()
        self.state = "results"
        self._clear_line()

    # --- a retry wait (Retry-After) while loading ------------------------------------------------
    @property
    def waiting(self) -> bool:
        """True while a countdown is shown."""
        return self._wait_ends is not None

    def show_waiting(self, wait: RetryWait, cancel: Callable[[], object]) -> None:
        """The client waits `wait.seconds` before retrying: count down; `cancel` stops it."""
        self._wait_ends = self.clock() + wait.seconds
        self._wait_reason = wait.reason
        self._cancel = cancel
        self.state = "loading"
        self.message(Text(waiting_text(self._wait_reason, wait.seconds)))
        if self._ticker is None:
            self._ticker = self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        """Show the seconds left (called every second while waiting)."""
        if self._wait_ends is not None:
            # Each second's count is shown, not said again (the wait was said when it began).
            left = self._wait_ends - self.clock()
            self.message(Text(waiting_text(self._wait_reason, left)), spoken=False)

    def cancel_wait(self) -> bool:
        """Stop the waiting request (escape); False when nothing was waiting."""
        cancel = self._cancel
        if not self.waiting or cancel is None:
            return False
        self._stop_waiting()
        cancel()
        self.message(Text(WAIT_CANCELLED))
        self.state = "error"
        return True

    def _stop_waiting(self) -> None:
        self._wait_ends = None
        self._cancel = None
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

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
        self._stop_waiting()
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


__all__ = [
    "LIST_STATES",
    "RETRY_HINT",
    "UNREADABLE_KEY",
    "UNREADABLE_LABEL",
    "WAIT_CANCELLED",
    "ErrorLine",
    "ListState",
    "add_unreadable_rows",
    "error_text",
    "is_unreadable_key",
    "showing",
    "unreadable_cells",
    "waiting_text",
]
