"""`i`: who am I. Profile, environment, base URL, auth, scopes, token expiry; never a secret.

The facts come from `Connection.describe()` (which holds no secret by construction) plus, once
connected, the client's granted scopes and the token's expiry (`PaymentClient.authenticate()`
returns the `TokenInfo` in hand; its `access_token` is never read here).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.errors import error_detail

_EMBEDDED_FACTS = {
    "profile": "sandbox (embedded)",
    "source": "implicit",
    "environment": "sandbox",
    "base_url": "embedded sandbox (private socket)",
    "auth": "embedded demo client",
    "read_only": "no",
    "verify": "on",
}

_LABELS = (
    ("profile", "Profile"),
    ("source", "Chosen by"),
    ("environment", "Environment"),
    ("base_url", "Base URL"),
    ("auth", "Auth"),
    ("client_id", "Client id"),
    ("requested_scopes", "Requested scopes"),
    ("granted_scopes", "Granted scopes"),
    ("token_expiry", "Token expires"),
    ("read_only", "Read-only"),
    ("confirm_threshold", "Typed confirmation above"),
    ("account_id", "Default account"),
    ("verify", "TLS verification"),
    ("config_path", "Config file"),
)


def _when(value: datetime | None, now: datetime) -> str:
    if value is None:
        return "no expiry given"
    seconds = int((value - now).total_seconds())
    stamp = f"{fmt.timestamp(value)} UTC"
    if seconds <= 0:
        return f"{stamp} (expired; renewed on the next request)"
    return f"{stamp} (in {fmt.span(seconds)})"


def scope_lines(scopes: list[str], width: int) -> str:
    """Scopes packed into lines of `width`, never broken inside a word.

    A scope longer than a line (`urn:v2:plugins:enrollment:create:prepopulate-processing-info`
    at 80 columns) is broken after a `:` of its own, the rest indented, so it still reads as one
    name; only a single part longer than the line is folded.
    """
    lines: list[str] = []
    line = ""
    for scope in scopes:
        if line and len(line) + 1 + len(scope) <= width:
            line += " " + scope
            continue
        if line:
            lines.append(line)
        line = scope
        while len(line) > width and ":" in line[1:width]:
            cut = line.rindex(":", 0, width) + 1
            lines.append(line[:cut])
            line = "  " + line[cut:]
    if line:
        lines.append(line)
    return "\n".join(lines)


WHOAMI_BINDINGS: list[Binding] = [
    Binding("escape,i,q", "close", "Close", id="whoami.close"),
]


class WhoAmIScreen(PaytuiModal[None]):
    """A small panel of safe facts about the connection in use."""

    CSS_PATH = Path(__file__).with_name("whoami.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*WHOAMI_BINDINGS]
    HELP_TITLE = "Who am I"

    def __init__(self) -> None:
        super().__init__()
        self.facts: dict[str, str] = {}
        self.problems: list[str] = []

    def compose(self) -> ComposeResult:
        self.facts = self._static_facts()
        dialog = VerticalScroll(id="whoami-dialog")
        dialog.border_title = "Who am I"
        dialog.border_subtitle = "esc closes · P switches profile"
        with dialog:
            yield Static(self._table(), id="whoami-table")
            yield Static(self._problems_text(), id="whoami-problems")

    def on_mount(self) -> None:
        self._load_token_facts()

    def _static_facts(self) -> dict[str, str]:
        session = self.app.session
        connection = session.connection
        facts = dict(connection.describe()) if connection is not None else dict(_EMBEDDED_FACTS)
        facts["profile"] = session.profile_name
        facts["environment"] = session.environment
        facts["read_only"] = "yes" if session.read_only else "no"
        if session.confirm_threshold is not None:
            facts["confirm_threshold"] = f"{session.confirm_threshold} (production money actions)"
        path = session.config_file
        facts["config_path"] = str(path) if path is not None else "(none: built-in defaults)"
        facts["granted_scopes"] = "connecting…"
        facts["token_expiry"] = "connecting…"
        if connection is not None:
            self.problems = [str(problem) for problem in connection.problems]
        return facts

    def _table(self) -> Table:
        table = Table(box=None, show_header=False, expand=True, padding=(0, 1))
        table.add_column("Fact", no_wrap=True, style="bold")
        table.add_column("Value", ratio=1, overflow="fold")
        labels = [(key, label) for key, label in _LABELS if key in self.facts]
        # The value column's text width: the table's, less the widest label and 4 cells of padding.
        shown = self.query_one("#whoami-table").size.width if self.is_mounted else 0
        width = max(20, (shown or 86) - max(len(label) for _, label in labels) - 4)
        for key, label in labels:
            value = safe(self.facts[key])
            if key.endswith("_scopes"):
                value = scope_lines(value.split(), width) if " " in value or ":" in value else value
            table.add_row(Text(label), Text(value))
        return table

    def on_resize(self) -> None:
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        self.query_one("#whoami-table", Static).update(self._table())

    def _problems_text(self) -> Text:
        from paytui.logs import redact

        if not self.problems:
            return Text("Config problems: none")
        text = Text("Config problems:\n")
        for problem in self.problems:
            text.append(f"• {safe(redact(problem))}\n")
        return text

    @work(exclusive=True, group="whoami", exit_on_error=False)
    async def _load_token_facts(self) -> None:
        app = self.app
        try:
            client = await self.app.get_client()
            info = await client.authenticate()
        except Exception as exc:  # shown, not raised: the panel is informational
            reason = error_detail(exc)
            self.facts["granted_scopes"] = f"unknown (not connected: {reason})"
            self.facts["token_expiry"] = "unknown"
        else:
            scopes = client.granted_scopes
            if scopes is None:
                self.facts["granted_scopes"] = "unknown (static token)"
            else:
                self.facts["granted_scopes"] = " ".join(sorted(scopes)) or "(none)"
            self.facts["token_expiry"] = _when(getattr(info, "expires_at", None), app.now())
        self.query_one("#whoami-table", Static).update(self._table())

    def action_close(self) -> None:
        self.dismiss(None)
