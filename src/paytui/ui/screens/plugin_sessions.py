"""Plugin sessions (palette "Plugin sessions"): `GET /v2/plugins`, a page at a time.

A `PagedListScreen` (the one list base: the next page is read as the cursor nears the end).
`enter` shows every setting of the highlighted session (read again with `GET /v2/plugins/{id}`),
`delete` deletes it after a review that names it, through the executor (`DeleteSessionModal`),
`y` copies its id.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.plugin_forms import session_settings
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.screens.paged_list import PagedListScreen
from paytui.ui.widgets.errors import describe_error
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.json_view import JsonView
from paytui.ui.widgets.list_state import ErrorLine, ListState

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Page, PluginSession

COLUMNS = (
    FitColumn("session", "Session", priority=1, min_width=12),
    FitColumn("type", "Type"),
    FitColumn("created", "Created (UTC)"),
    FitColumn("account", "Account / merchant", priority=2, min_width=12),
    FitColumn("cap", Text("Max amount", justify="right"), priority=3),
    FitColumn("tags", "Tags", priority=4, min_width=8, free_text=True),
)


#: The plugin sessions list (palette "Plugin sessions").
PLUGIN_SESSIONS_BINDINGS: list[Binding] = [
    Binding("enter", "view", "View", id="sessions.view", tooltip="Every setting of the session"),
    Binding(
        "delete",
        "delete_session",
        "Delete",
        id="sessions.delete",
        tooltip="Delete the highlighted session (asks first)",
    ),
    Binding("y", "copy_id", "Copy id", id="sessions.copy_id", tooltip="Copy the session id"),
    Binding("ctrl+r", "refresh", "Refresh", id="sessions.refresh", tooltip="Reload / retry"),
]


class PluginSessionsScreen(PagedListScreen["PluginSession"]):
    """Every plugin session of the caller, newest first; scrolling reads the next page
    (`PagedListScreen`, keyed by session id)."""

    CSS_PATH = Path(__file__).with_name("plugin_sessions.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*PLUGIN_SESSIONS_BINDINGS]
    HELP_TITLE = "Plugin sessions"
    AUTO_FOCUS = "#sessions"
    NOUN = "plugin sessions"
    STATUS_ID = "sessions-status"

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(Text("Plugin sessions", style="bold"), id="sessions-title")
        yield Static(Text(""), id="sessions-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(COLUMNS, id="sessions", cursor_type="row", zebra_stripes=True)
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.load()

    # --- what the list says ---------------------------------------------------------------------
    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[PluginSession]:
        return await client.list_plugin_sessions_page(limit=limit, offset=offset)

    def row_cells(self, item: PluginSession) -> list[Text]:
        return [
            fmt.literal(item.session_id),
            fmt.literal(item.type or "—"),
            Text(fmt.timestamp(item.created_timestamp)),
            fmt.literal(item.account_id or item.merchant_id or "—"),
            Text(fmt.money(item.max_transaction_amount), justify="right"),
            fmt.literal(", ".join(item.tags)),
        ]

    def row_key(self, item: PluginSession) -> str:
        return item.session_id  # a session created meanwhile moved the pages: shown once

    def more_noun(self) -> str:
        return "sessions"

    def empty_text(self) -> str:
        return "No plugin sessions yet.\nCreate one with L on an account's detail."

    def read_failed(self, exc: BaseException) -> None:
        """Said in the list (over the rows kept), not notified."""
        self.query_one(ListState).show_failed(exc, rows_on_screen=bool(self.items))

    # --- the registry's subject: the highlighted session --------------------------------------
    @property
    def selected(self) -> PluginSession | None:
        return self.highlighted()

    def action_subject(self, action: str) -> object | None:
        return self.selected

    def action_target(self, action: str) -> str | None:
        session = self.selected
        return session.session_id if session is not None else None

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("view", "copy_id"):
            return True if self.selected is not None else None
        return True

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_view()

    # --- actions ----------------------------------------------------------------------------
    def action_view(self) -> None:
        session = self.selected
        if session is not None:
            self.app.push_screen(SessionViewScreen(session))

    def action_copy_id(self) -> None:
        session = self.selected
        if session is not None:
            self.app.copy_to_clipboard(session.session_id)
            self.app.notify(
                f"Copied session id {session.session_id}", title="Clipboard", markup=False
            )

    def action_delete_session(self) -> None:
        from paytui.ui.screens.modals.dialogs import dialog_for

        session = self.selected
        if session is None:
            return

        def deleted(result: str | None) -> None:
            if result:
                self.load()

        self.app.push_screen(dialog_for("plugin_delete", session.session_id), deleted)


SESSION_VIEW_BINDINGS: list[Binding] = [
    Binding("escape,q", "close", "Close", id="session_view.close"),
    Binding("y", "copy_id", "Copy id", id="session_view.copy", tooltip="Copy the session id"),
    Binding(
        "Y",
        "copy_json",
        "Copy settings",
        id="session_view.copy_json",
        tooltip="Copy the session's settings as JSON (to hand to the merchant)",
    ),
]


class SessionViewScreen(PaytuiModal[None]):
    """Every setting of one session, read again from the service (`GET /v2/plugins/{id}`)."""

    CSS_PATH = Path(__file__).with_name("plugin_sessions.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*SESSION_VIEW_BINDINGS]
    HELP_TITLE = "Plugin session"
    KEYS_TITLE = "Plugin session view"

    def __init__(self, session: PluginSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        with Vertical(id="session-dialog"):
            title = Text("Plugin session ", style="bold")
            title.append(safe(self.session.session_id))
            yield Static(title, id="session-title")
            yield JsonView(
                self.session.model_dump(mode="json", exclude_none=True), id="session-json"
            )
            yield Static(Text("y copy settings · esc close", style="dim"), id="session-hint")

    def on_mount(self) -> None:
        self.query_one(JsonView).focus()
        self._reread()

    @work(exclusive=True, group="session-read")
    async def _reread(self) -> None:
        try:
            client = await self.app.get_client()
            session = await client.get_plugin_session(self.session.session_id)
        except Exception as exc:
            info = describe_error(exc)
            self.notify(info.message, title=info.title, severity="warning", markup=False)
            return
        self.session = session
        self.query_one(JsonView).set_data(session.model_dump(mode="json", exclude_none=True))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.session.session_id)
        self.app.notify(
            f"Copied session id {self.session.session_id}", title="Clipboard", markup=False
        )

    def action_copy_json(self) -> None:
        """`Y`, as everywhere: the object itself (its settings, to hand to the merchant)."""
        self.app.copy_to_clipboard(session_settings(self.session))
        self.app.notify(
            f"Copied the settings of session {self.session.session_id}",
            title="Clipboard",
            markup=False,
        )


__all__ = ["PluginSessionsScreen", "SessionViewScreen"]
