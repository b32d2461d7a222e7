"""A user command's confirmation (`confirm = true`: the exact command line, y / n) and its
output (exit status, then what it printed, sanitised and redacted). Docs: docs/commands.md."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from paytui.text import safe, safe_lines
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.textual_fixes import DialogButton
from paytui.user_commands import command_line

if TYPE_CHECKING:
    from paytui.config.model import UserCommand
    from paytui.user_commands import Ran

__all__ = ["CommandOutputModal", "ConfirmCommandModal", "YesNoModal"]

CSS_FILE = Path(__file__).with_name("user_command.tcss")


class YesNoModal(PaytuiModal[bool]):
    """A question, what it does, and No / Yes (No has the focus; y / n / escape answer)."""

    CSS_PATH = CSS_FILE
    #: Its y / n answer only this question: not in the key map.
    KEYS_TITLE: ClassVar[str | None] = None
    YES_LABEL = "Yes"
    HINT = "y: yes, n or escape: no."

    def __init__(self, question: str = "Go ahead?", body: str = "") -> None:
        super().__init__()
        self._question = question
        self._body = body

    def question(self) -> Text:
        return Text(safe(self._question))

    def body(self) -> Text:
        return Text(safe(self._body))

    def compose(self) -> ComposeResult:
        with Vertical(id="command-dialog"):
            yield Static(self.question(), id="command-title")
            yield Static(self.body(), id="command-body")
            yield Static(Text(self.HINT, style="dim"), id="command-hint")
            with Horizontal(id="command-buttons"):
                yield DialogButton("No", id="command-no", variant="primary")
                yield DialogButton(self.YES_LABEL, id="command-yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#command-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "command-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ConfirmCommandModal(YesNoModal):
    """ "Run NAME?" with the command line exactly as it runs (values shell-quoted); No first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "answer(False)", "No", id="command.confirm_no", show=False),
        Binding("y", "answer(True)", "Yes", id="command.confirm_yes", show=False),
    ]
    HELP_TITLE = "Run a command"
    YES_LABEL = "Yes, run it"
    HINT = "y runs it, n or escape does not."

    def __init__(self, command: UserCommand, argv: tuple[str, ...]) -> None:
        super().__init__()
        self.command = command
        self.argv = argv

    def question(self) -> Text:
        return Text(f"Run {safe(self.command.name)}?")

    def body(self) -> Text:
        body = Text()
        if self.command.description:
            body.append(safe(self.command.description) + "\n")
        body.append("Runs (no shell; each value one argument):\n")
        body.append(safe(command_line(self.argv)), style="bold")
        if self.command.writes:
            body.append("\nIt changes something, as its config says.")
        return body


class CommandOutputModal(PaytuiModal[None]):
    """What a command printed, under one line of how it ended."""

    CSS_PATH = CSS_FILE
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="command.output_close"),
    ]
    HELP_TITLE = "Command output"
    KEYS_TITLE: ClassVar[str | None] = None

    def __init__(self, name: str, ran: Ran, output: str) -> None:
        super().__init__()
        self.command_name = name
        self.ran = ran
        #: Already redacted (`paytui.logs.redact`); sanitised here for the terminal.
        self.output = output

    def compose(self) -> ComposeResult:
        headline = Text(safe(self.ran.headline(self.command_name)))
        if not self.ran.ok:
            headline.stylize("bold")
        with Vertical(id="command-output-dialog"):
            yield Static(headline, id="command-output-title")
            with VerticalScroll(id="command-output-body"):
                yield Static(Text(safe_lines(self.output.rstrip("\n"))), id="command-output")
                if self.ran.cut:
                    yield Static(
                        Text("(output cut: only its first 64 KiB are kept)", style="dim"),
                        id="command-output-cut",
                    )
            yield Static(Text("escape closes.", style="dim"), id="command-output-hint")

    def action_close(self) -> None:
        self.dismiss()
