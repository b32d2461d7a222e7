"""The `:` jump line (k9s): one line at the bottom, with completion; enter jumps, escape closes.

What a line means is `paytui.ui.jump` (pure); a query after ``:charges`` is checked here with the
one query parser, and a saved search's name against the config, so a mistake is one line under
the field and what was typed stays. The app performs the jump (`PaytuiApp.jump_to`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Static

from paytui.ui import format as fmt
from paytui.ui.jump import COMMANDS, Jump, JumpError, complete_jump, parse_jump
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from collections.abc import Callable


class JumpSuggester(Suggester):
    """Inline completion: command names, saved-search names, the query language's keys."""

    def __init__(self, saved: Callable[[], list[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._saved = saved

    async def get_suggestion(self, value: str) -> str | None:
        try:
            query_completion = None
            if value.startswith(":charges ") and not value.endswith(" "):
                from paytui.search.query import apply_completion, complete

                query = value.removeprefix(":charges ")
                query_completion = [
                    apply_completion(query, len(query), s)[0] for s in complete(query, len(query))
                ]
                query_completion = [q for q in query_completion if q.startswith(query)]
            return complete_jump(value, saved=self._saved(), query_completion=query_completion)
        except Exception:  # a suggestion is a nicety; never let it break typing
            return None


def _help() -> Text:
    parts = [f":{name}{' ' + arg if arg else ''}" for name, (arg, _) in COMMANDS.items()]
    return Text("  ".join(parts) + "   → completes · enter jumps · esc closes")


JUMP_BINDINGS: list[Binding] = [
    Binding("escape", "close", "Close", id="jump.close", tooltip="Close (nothing happens)"),
]


class JumpModal(PaytuiModal[Jump | None]):
    """Dismisses with the `Jump` to make (already checked), or None."""

    CSS_PATH = Path(__file__).with_name("jump.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*JUMP_BINDINGS]
    HELP_TITLE = "Jump"
    KEYS_TITLE = "Jump line"
    TEXT_ENTRY = True

    def __init__(self, saved: Callable[[], dict[str, str]]) -> None:
        super().__init__()
        self._saved = saved

    def compose(self) -> ComposeResult:
        with Vertical(id="jump-box"):
            yield SafeInput(
                value=":",
                id="jump-line",
                suggester=JumpSuggester(lambda: list(self._saved())),
            )
            yield Static("", id="jump-error")
            yield Static(_help(), id="jump-help")

    def on_mount(self) -> None:
        line = self.query_one("#jump-line", SafeInput)
        self.set_focus(line)
        line.cursor_position = len(line.value)

    def check(self, text: str) -> Jump:
        """The jump, checked as far as can be without the service; `JumpError` otherwise."""
        jump = parse_jump(text)
        if jump.command == "charges":
            from paytui.search.query import parse

            result = parse(jump.argument, now=self.app.now())
            if result.errors:
                first = result.errors[0]
                raise JumpError(f"{jump.argument[first.start : first.end]}: {first.message}")
        if jump.command == "saved" and jump.argument not in self._saved():
            names = ", ".join(sorted(self._saved())) or "none yet (W on the charge list saves)"
            raise JumpError(f"No saved search {jump.argument!r}; saved: {names}")
        return jump

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            jump = self.check(event.value)
        except JumpError as err:
            self.query_one("#jump-error", Static).update(fmt.literal(error_detail(err)))
            self.app.bell()
            return
        self.dismiss(jump)

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["JumpModal", "JumpSuggester"]
