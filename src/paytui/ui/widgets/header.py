"""The one-line header on every screen: product, environment, profile and the account in focus.

The environment badge is the k9s "context banner": production must be unmistakable, so it is drawn
in `$error` and the whole bar takes the error tint; the sandbox gets `$warning` so nobody
mistakes it for real money either. Colours come only from theme variables, so every theme
keeps the meaning.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static


def environment_class(environment: str) -> str:
    """The CSS class for an environment name (sandbox / production / anything else)."""
    name = environment.strip().lower()
    if name in ("prod", "production", "live"):
        return "-production"
    if name in ("sandbox", "test", "demo"):
        return "-sandbox"
    return "-other"


class PaytuiHeader(Widget):
    """Reads `environment`, `profile_name` and the reactive `account_in_focus` from the App."""

    DEFAULT_CSS = """
    PaytuiHeader {
        dock: top;
        height: 1;
        layout: horizontal;
        background: $panel;
        color: $text;
    }
    PaytuiHeader.-production {
        background: $error-muted;
    }
    PaytuiHeader > .header--product {
        width: auto;
        padding: 0 1;
        text-style: bold;
        background: $primary;
        color: auto 90%;
    }
    PaytuiHeader > .header--env {
        width: auto;
        padding: 0 1;
        text-style: bold;
        color: auto 90%;
        background: $primary-muted;
    }
    PaytuiHeader.-sandbox > .header--env {
        background: $warning;
    }
    PaytuiHeader.-production > .header--env {
        background: $error;
    }
    PaytuiHeader > .header--profile {
        width: auto;
        padding: 0 1;
        color: $text-muted;
    }
    PaytuiHeader > .header--account {
        width: 1fr;
        padding: 0 1;
        text-align: right;
        color: $text-muted;
    }
    """

    def compose(self) -> ComposeResult:
        environment = str(getattr(self.app, "environment", "sandbox"))
        profile = str(getattr(self.app, "profile_name", ""))
        self.add_class(environment_class(environment))
        yield Static(Text("paytui"), classes="header--product")
        yield Static(Text(environment.upper()), classes="header--env", id="header-env")
        yield Static(Text(profile), classes="header--profile", id="header-profile")
        yield Static(Text(""), classes="header--account", id="header-account")

    def on_mount(self) -> None:
        if hasattr(self.app, "account_in_focus"):
            self.watch(self.app, "account_in_focus", self._show_account)

    def _show_account(self, account_id: str | None) -> None:
        label = self.query_one("#header-account", Static)
        label.update(Text(f"account {account_id}") if account_id else Text(""))
