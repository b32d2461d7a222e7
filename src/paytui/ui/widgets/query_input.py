"""The query line: an `Input` that underlines the spans the parser rejected, with completion.

The screen owns parsing (debounced) and tells this widget which spans are wrong; the widget only
draws them, so the same input could serve another search language later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from rich.highlighter import Highlighter
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.suggester import Suggester

from paytui.ui.widgets.safe_input import SafeInput


class _ErrorSpans(Highlighter):
    """Styles the rejected character ranges of the current value."""

    def __init__(self, owner: QueryInput) -> None:
        self.owner = owner

    def highlight(self, text: Text) -> None:
        style = self.owner.get_component_rich_style("query-input--error", partial=True)
        length = len(text.plain)
        for start, end in self.owner.error_spans:
            start = max(0, min(start, length))
            end = max(start + 1, min(end, length)) if length else 0
            if end > start:
                text.stylize(style, start, end)


class CompletionSuggester(Suggester):
    """Inline suggestion from the search language's `complete` / `apply_completion`.

    `complete(text, cursor)` gives replacements of the word at the cursor; Textual shows a
    suggestion only when it extends the whole value, so the first one that does is offered.
    """

    def __init__(
        self,
        complete: Callable[[str, int], Sequence[str]],
        apply: Callable[[str, int, str], tuple[str, int]],
    ) -> None:
        super().__init__(use_cache=True, case_sensitive=True)
        self._complete = complete
        self._apply = apply

    async def get_suggestion(self, value: str) -> str | None:
        if not value or value.endswith(" "):
            return None
        try:
            suggestions = self._complete(value, len(value))
            for suggestion in suggestions:
                new, _ = self._apply(value, len(value), suggestion)
                if new != value and new.startswith(value):
                    return new
        except Exception:  # a suggestion is a nicety; never let it break typing
            return None
        return None


#: The keys that leave the query line for the results (its "leave" bindings).
LEAVE_KEYS = frozenset({"escape", "down"})

QUERY_BINDINGS: list[Binding] = [
    Binding("escape", "leave", "To results", id="query.leave", show=False),
    Binding("down", "leave", "To results", id="query.to_results", show=False),
]


class QueryInput(SafeInput):
    """Input for the charge search language."""

    BINDINGS: ClassVar[list[BindingType]] = [*QUERY_BINDINGS]
    HELP_TITLE = "Query line"
    COMPONENT_CLASSES: ClassVar[set[str]] = {"query-input--error"}
    DEFAULT_CSS = """
    QueryInput > .query-input--error {
        color: $error;
        text-style: bold underline;
    }
    """

    class Leave(Message):
        """The user wants the results (escape or down in the query line)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.error_spans: list[tuple[int, int]] = []
        self.highlighter = _ErrorSpans(self)

    def set_error_spans(self, spans: Sequence[tuple[int, int]]) -> None:
        """Underline these spans; repainted only when they change (while typing a query that
        parses, a repaint per key was a frame of its own in the middle of the search)."""
        spans = list(spans)
        if spans != self.error_spans:
            self.error_spans = spans
            self.refresh()

    def action_leave(self) -> None:
        self.post_message(self.Leave())
