"""History (`5`): every action taken from this machine for this profile, newest first.

Reads `executor.history()` (the action journal). `enter` opens the charge, `c` checks an unknown
outcome again with the service (`reconcile_entry`), `R` retries — only an action proven not to
have happened, and only when the user asks (`executor.retry`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.notifications import SeverityLevel
from textual.widgets import DataTable, Static

from paytui.actions import ActionError, ConfirmationRequired
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.bindings import HISTORY_BINDINGS
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState

if TYPE_CHECKING:
    from paytui.actions import JournalEntry

OPERATIONS = {
    "capture": "capture",
    "refund": "refund",
    "charge": "new charge",
    "update_charge": "edit tags",
    "distribute": "distribute",
    "plugin_session": "plugin session",
    "plugin_delete": "delete session",
    "account_create": "new account",
}
#: Operations whose amount means money moved (an edit's journal amount is the charge's total).
MONEY = frozenset({"capture", "refund", "charge"})
#: The message is free text (it gets what is left); ids are cut with `…` before it is dropped.
COLUMNS = (
    FitColumn("Time (UTC)", "Time (UTC)"),
    FitColumn("Operation", "Operation"),
    FitColumn("Charge", "Charge", priority=1, min_width=12),
    FitColumn("Amount", Text("Amount", justify="right")),
    FitColumn("State", "State"),
    FitColumn("Result", "Result", priority=2, min_width=10),
    FitColumn("Message", "Message", priority=3, min_width=12, free_text=True),
)


state_text = fmt.action_state


class HistoryScreen(PaytuiScreen[None]):
    """The action journal of this profile."""

    CSS_PATH = Path(__file__).with_name("history.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*HISTORY_BINDINGS]
    HELP_TITLE = "History"
    AUTO_FOCUS = "#history-table"

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[JournalEntry] = []

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(Text("Actions taken from this machine, newest first"), id="history-title")
        yield Static(Text(""), id="history-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(COLUMNS, id="history-table", cursor_type="row", zebra_stripes=True)
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.query_one(ListState).show_loading("the journal")
        self.reload()

    def on_screen_resume(self) -> None:
        if self.entries or self.is_mounted:
            self.reload()

    @property
    def current(self) -> JournalEntry | None:
        table = self.query_one(DataTable)
        if not self.entries or table.cursor_row < 0 or table.cursor_row >= len(self.entries):
            return None
        return self.entries[table.cursor_row]

    @work(exclusive=True, group="history-load")
    async def reload(self) -> None:
        status = self.query_one("#history-status", Static)
        try:
            executor = await paytui_app(self).actions.executor()
            entries = executor.history()
        except Exception as exc:
            status.update(Text("Could not read the journal."))
            self.query_one(ListState).show_failed(exc, rows_on_screen=bool(self.entries))
            return
        self._show(entries)
        with contextlib.suppress(Exception):  # the offer is a nicety; the journal shows anyway
            await self._offer_batches()
        # A "not applied" whose read-back may have been too early (before a commit still in
        # flight could show) is no verdict yet: read it back again now. It becomes "succeeded"
        # (corrected, and said so), a proven "not applied", or "unknown" until it can be proven.
        settle = executor.settle_seconds
        early = [e.id for e in entries if e.state == "not_applied" and not e.proven(settle)]
        if not early:
            return
        for entry_id in early:
            with contextlib.suppress(ActionError):  # still running: its own outcome will say
                await executor.reconcile_entry(entry_id)
        self._show(executor.history())

    def _show(self, entries: list[JournalEntry]) -> None:
        self.entries = entries
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for entry in entries:
            message = entry.error or ""
            if entry.retry_of:
                message = f"retry of #{entry.retry_of}" + (f"; {message}" if message else "")
            table.add_row(
                Text(fmt.timestamp(entry.created_at)),
                fmt.literal(OPERATIONS.get(entry.operation, entry.operation)),
                fmt.literal(entry.charge_id or "—"),
                Text(
                    fmt.money(entry.amount) if entry.operation in MONEY else "",
                    justify="right",
                ),
                state_text(entry.state),
                fmt.literal(entry.result_id or "—"),
                fmt.literal(message),
                key=str(entry.id),
            )
        if entries:
            table.move_cursor(row=min(max(row, 0), len(entries) - 1))
        unresolved = sum(1 for e in entries if e.unresolved)
        text = Text(f"{len(entries)} action{'s' if len(entries) != 1 else ''}")
        if unresolved:
            text.append(f", {unresolved} still unknown (c checks again)", style="bold")
        self.query_one("#history-status", Static).update(text)
        if entries:
            self.query_one(ListState).show_results()
        else:
            self.query_one(ListState).show_empty(
                "No actions yet. Capture (c), refund (r) and edits (e) appear here."
            )
        self.refresh_bindings()

    async def _offer_batches(self) -> None:
        """A bulk action a crash or a cancel left unfinished: say so, `T` resumes it."""
        log = await paytui_app(self).actions.batch_log()
        executor = await paytui_app(self).actions.executor()
        found = log.resumable(profile=executor.profile, base_url=executor.base_url)
        self.batches = found
        if found:
            batch = found[0]
            self.query_one("#history-status", Static).update(
                Text(
                    f"Bulk {batch.operation} #{batch.id} stopped with {len(batch.open_items)} of"
                    f" {len(batch.items)} left: T resumes it (never twice on a charge)",
                    style="bold",
                )
            )
        self.refresh_bindings()

    def action_resume_batch(self) -> None:
        from paytui.ui.screens.modals.bulk import BulkActionModal

        batches = getattr(self, "batches", [])
        if batches:
            self.app.push_screen(BulkActionModal.resuming(batches[0]))

    # --- actions ------------------------------------------------------------------------------
    def action_subject(self, action: str) -> object | None:
        """Retry acts on the highlighted journal entry."""
        return self.current if self.is_mounted else None

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        entry = self.current if self.is_mounted else None
        if action == "check_again":
            return (
                None
                if entry is None or not (entry.unresolved or entry.state == "not_applied")
                else True
            )
        if action == "open_charge":
            return None if entry is None or not entry.charge_id else True
        if action == "resume_batch":
            return True if getattr(self, "batches", None) else None
        return True

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_charge()

    def action_open_charge(self) -> None:
        entry = self.current
        if entry is not None and entry.charge_id:
            # A capture's own page is the new charge; everything else the charge it acted on.
            self.post_message(messages.OpenCharge(entry.charge_id))

    def action_refresh(self) -> None:
        self.reload()

    def action_check_again(self) -> None:
        entry = self.current
        if entry is not None:
            self._check_again(entry.id)

    @work(group="history-action")
    async def _check_again(self, entry_id: int) -> None:
        try:
            executor = await paytui_app(self).actions.executor()
            outcome = await executor.reconcile_entry(entry_id)
        except ActionError as exc:
            self.notify(exc.message, title="Check again", severity="warning", markup=False)
            return
        except Exception as exc:
            self.notify(
                f"Could not check: {exc}", title="Check again", severity="error", markup=False
            )
            return
        self.notify(outcome.message or outcome.state, title="Check again", markup=False)
        self.reload()

    def action_retry(self) -> None:
        entry = self.current
        if entry is not None and entry.retryable:
            self._retry(entry.id)

    @work(group="history-action")
    async def _retry(self, entry_id: int, confirmation: str | None = None) -> None:
        try:
            executor = await paytui_app(self).actions.executor()
            outcome = await executor.retry(entry_id, confirmation=confirmation)
        except ConfirmationRequired as exc:
            # Production: ask for the phrase, then retry with it (the executor checks it).
            from paytui.ui.screens.modals.confirm import TypedConfirmModal

            def typed(text: str | None) -> None:
                if text:
                    self._retry(entry_id, text)

            wrong = "That did not match. " if confirmation else ""
            self.app.push_screen(
                TypedConfirmModal(exc.phrase, f"{wrong}Retry action #{entry_id}."), typed
            )
            return
        except ActionError as exc:
            self.notify(exc.message, title="Retry", severity="warning", markup=False)
            self.reload()
            return
        severity: SeverityLevel = "information" if outcome.succeeded else "warning"
        if outcome.succeeded:
            entry = next((e for e in self.entries if e.id == entry_id), None)
            self.app.charges_changed_by(entry.charge_id if entry else None, outcome.result_id)
        self.notify(
            outcome.message or outcome.state, title="Retry", severity=severity, markup=False
        )
        self.reload()


__all__ = ["HistoryScreen", "state_text"]
