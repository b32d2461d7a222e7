"""`P`: the profile switcher, and the confirmation before connecting to production.

The list is `Config.profile_names()` (the file's profiles plus the implicit embedded sandbox),
read fresh each time it opens; the current profile is marked. Choosing one dismisses with its name;
`PaytuiApp.switch_profile` resolves it, asks `ConfirmProductionScreen` first for a production
profile, and applies it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlsplit

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from paytui.text import safe, safe_lines
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.textual_fixes import DialogButton
from paytui.ui.widgets.header import environment_class

if TYPE_CHECKING:
    from paytui.config.connection import Connection

CSS_FILE = Path(__file__).with_name("profile_switcher.tcss")


def _profile_names() -> tuple[list[tuple[str, str]], list[str]]:
    """([(name, environment)], problems) from the config file; a broken file still offers the
    sandbox."""
    from paytui.config.store import load_config

    loaded = load_config()
    profiles = loaded.config.profiles
    names: list[tuple[str, str]] = [
        (name, profiles[name].effective_environment if name in profiles else "sandbox")
        for name in loaded.config.profile_names()
    ]
    return names, [str(problem) for problem in loaded.problems]


SWITCHER_BINDINGS: list[Binding] = [
    Binding("escape", "close", "Cancel", id="profiles.close", tooltip="Keep this profile"),
]


class ProfileSwitcher(PaytuiModal[str | None]):
    """Pick a profile; dismisses with its name, or None."""

    CSS_PATH = CSS_FILE
    BINDINGS: ClassVar[list[BindingType]] = [*SWITCHER_BINDINGS]
    HELP_TITLE = "Profile switcher"

    def _current(self) -> str:
        connection = self.app.session.connection
        return connection.profile_name if connection is not None else "sandbox"

    def compose(self) -> ComposeResult:
        current = self._current()
        names, problems = _profile_names()
        options = []
        for name, environment in names:
            label = Text()
            label.append("● " if name == current else "  ", style="bold")
            label.append(safe(name), style="bold" if name == current else "")
            if name == current:
                label.append("  (current)", style="dim")
            if environment_class(environment) == "-production":
                label.append("  PRODUCTION", style="bold reverse")
            options.append(Option(label, id=name))
        with Vertical(id="profiles-dialog"):
            yield Static(Text("Switch profile"), id="profiles-title")
            yield OptionList(*options, id="profiles-list")
            hint = "enter connects · esc keeps this profile"
            if problems:
                from paytui.logs import redact

                hint += "\nConfig problems: " + "; ".join(redact(p) for p in problems)
            yield Static(Text(safe_lines(hint)), id="profiles-hint")

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        current = self._current()
        try:
            option_list.highlighted = option_list.get_option_index(current)
        except Exception:
            option_list.highlighted = 0
        option_list.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmProductionScreen(PaytuiModal[bool]):
    """ "Connect to PRODUCTION?" with the profile and host; No is the default button."""

    CSS_PATH = CSS_FILE
    BINDINGS = [
        Binding("escape,n", "answer(False)", "No", id="profiles.confirm_no", show=False),
        Binding("y", "answer(True)", "Yes", id="profiles.confirm_yes", show=False),
    ]
    HELP_TITLE = "Connect to production"
    #: Its y / n answer only this question: not in the key map (y copies, n is a new charge).
    KEYS_TITLE: ClassVar[str | None] = None

    def __init__(self, connection: Connection) -> None:
        super().__init__()
        self.connection = connection

    def compose(self) -> ComposeResult:
        host = urlsplit(self.connection.base_url or "").netloc or "embedded"
        body = Text()
        body.append("Profile ")
        body.append(safe(self.connection.profile_name), style="bold")
        body.append(" talks to the real service at ")
        body.append(safe(host), style="bold")
        body.append(".\nMoney actions there move real money.")
        if self.connection.read_only:
            body.append("\nThis profile is read-only.")
        with Vertical(id="confirm-dialog"):
            yield Static(Text("Connect to PRODUCTION?"), id="confirm-title")
            yield Static(body, id="confirm-body")
            with Horizontal(id="confirm-buttons"):
                yield DialogButton("No", id="confirm-no", variant="primary")
                yield DialogButton("Yes, connect", id="confirm-yes", variant="error")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
