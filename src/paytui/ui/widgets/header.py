"""The one-line header on every screen: product, environment, profile and the account in focus.

The environment badge is the k9s "context banner": production must be unmistakable, so it is drawn
in `$error` and the whole bar takes the error tint; the sandbox gets `$warning` so nobody
mistakes it for real money either. Colours come only from theme variables, so every theme
keeps the meaning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Static

from paytui.text import safe
from paytui.ui.host import host_of

if TYPE_CHECKING:
    from paytui.ui.session import Session


def environment_class(environment: str) -> str:
    """The CSS class for an environment name (sandbox / production / anything else)."""
    name = environment.strip().lower()
    if name in ("prod", "production", "live"):
        return "-production"
    if name in ("sandbox", "test", "demo"):
        return "-sandbox"
    return "-other"


def base_host(url: str | None) -> str:
    """The host (and port) of a base URL; "embedded" for the built-in sandbox (None)."""
    if not url:
        return "embedded"
    return urlsplit(str(url)).netloc or str(url)


def tls_warning(session: Session) -> str | None:
    """The TLS badge text: verification off, or a private CA bundle in use; None when normal."""
    if session.insecure:
        return "TLS VERIFY OFF"
    if session.ca_bundle:
        return "CUSTOM CA"
    return None


class PaytuiHeader(Widget):
    """Reads `environment`, `profile_name`, `base_url`, `read_only`, `insecure`, `ca_bundle` from
    the session and the reactive `account_in_focus` from the App (`paytui.ui.host`)."""

    DEFAULT_CSS = """
    PaytuiHeader {
        dock: top;
        height: auto;
        layout: vertical;
        background: $panel;
        color: $text;
    }
    PaytuiHeader > .header--bar {
        height: 1;
        layout: horizontal;
    }
    PaytuiHeader > .header--workspaces {
        height: 1;
        padding: 0 1;
        display: none;
        background: $boost;
    }
    PaytuiHeader.-workspaces > .header--workspaces {
        display: block;
    }
    PaytuiHeader.-production {
        background: $error;
        color: $text;
    }
    PaytuiHeader > .header--bar > .header--product {
        width: auto;
        padding: 0 1;
        text-style: bold;
        background: $primary;
        color: auto 90%;
    }
    PaytuiHeader > .header--bar > .header--env {
        width: auto;
        padding: 0 1;
        text-style: bold;
        color: auto 90%;
        background: $primary-muted;
    }
    PaytuiHeader.-sandbox > .header--bar > .header--env {
        background: $warning;
    }
    PaytuiHeader.-production > .header--bar > .header--env {
        background: $error;
    }
    PaytuiHeader.-production > .header--bar > .header--profile {
        display: none;
    }
    PaytuiHeader.-production > .header--bar > .header--account {
        color: auto 90%;
    }
    PaytuiHeader > .header--bar > .header--badge {
        width: auto;
        padding: 0 1;
        text-style: bold;
        display: none;
    }
    PaytuiHeader.-read-only > .header--bar > .header--readonly {
        display: block;
        background: $accent;
        color: auto 90%;
    }
    PaytuiHeader.-tls > .header--bar > .header--tls {
        display: block;
        background: $warning;
        color: auto 90%;
    }
    PaytuiHeader > .header--bar > .header--profile {
        width: auto;
        padding: 0 1;
        color: $text-muted;
    }
    PaytuiHeader > .header--bar > .header--account {
        width: 1fr;
        padding: 0 1;
        text-align: right;
        color: $text-muted;
    }
    """

    def compose(self) -> ComposeResult:
        host = host_of(self.app)
        session = host.session if host is not None else None  # None: a widget tested alone
        environment = session.environment if session is not None else "sandbox"
        profile = session.profile_name if session is not None else ""
        env_class = environment_class(environment)
        self.add_class(env_class)
        self.set_class(session is not None and session.read_only, "-read-only")
        tls = tls_warning(session) if session is not None else None
        self.set_class(tls is not None, "-tls")
        if env_class == "-production":
            # The context banner: "PRODUCTION · <profile> · <host>", the bar red end to end.
            url = session.base_url if session is not None else None
            label = Text(safe(" · ".join(["PRODUCTION", profile, base_host(url)])))
        else:
            label = Text(safe(environment.upper()))
        with Horizontal(classes="header--bar"):
            yield Static(Text("paytui"), classes="header--product")
            yield Static(label, classes="header--env", id="header-env")
            yield Static(Text(safe(profile)), classes="header--profile", id="header-profile")
            yield Static(
                Text("READ-ONLY"), classes="header--badge header--readonly", id="header-ro"
            )
            yield Static(
                Text(safe(tls or "")), classes="header--badge header--tls", id="header-tls"
            )
            yield Static(Text(""), classes="header--account", id="header-account")
        yield Static(Text(""), classes="header--workspaces", id="header-workspaces")

    def on_mount(self) -> None:
        host = host_of(self.app)
        if host is not None:
            self.watch(host, "account_in_focus", self._show_account)
            self.watch(host, "workspace_strip", self._show_workspaces)

    def _show_workspaces(self, items: tuple[str, ...]) -> None:
        """The strip under the bar: every workspace, the shown one between ▶ and ◀ and in bold
        (more than colour); none with one workspace (`paytui.ui.workspaces`)."""
        self.set_class(len(items) > 1, "-workspaces")
        text = Text("Workspaces: ", no_wrap=True)
        for index, item in enumerate(items):
            if index:
                text.append(" │ ")
            text.append(safe(item), style="bold reverse" if item.startswith("▶") else "")
        text.overflow = "ellipsis"
        self.query_one("#header-workspaces", Static).update(text)

    def _show_account(self, account_id: str | None) -> None:
        label = self.query_one("#header-account", Static)
        text = Text(safe(f"account {account_id}" if account_id else ""), no_wrap=True)
        text.overflow = "ellipsis"
        label.update(text)
