"""History (`5`): the audit trail — every action taken on this profile (on a team journal by every
agent, on a person's file from this machine), and every attempt refused before it was sent —
newest first; its title says whose.

Reads `Journal.audit` (the action journal and its refusals), filtered by the line at the top
(`/`: ``outcome:refused action:refund charge:ID client:ID since:DAY until:DAY profile:NAME``,
`paytui.actions.audit`). `enter` opens the charge, `v` checks an unknown outcome again with the
service (`reconcile_entry`), `t` retries — only an action proven not to have happened, and only
when the user asks (`executor.retry`) — and `x` exports what the filter shows, every row, to CSV
or JSON Lines.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.widgets import DataTable, Input, Static

from paytui.actions import ActionError, ConfirmationRequired
from paytui.actions.audit import AuditFilter, parse_filter
from paytui.actions.errors import NotAppliedSoFar
from paytui.actions.operations import MONEY
from paytui.actions.operations import OPERATIONS as OPERATION_SPECS
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState
from paytui.ui.widgets.safe_input import SafeInput

if TYPE_CHECKING:
    from paytui.actions import ActionExecutor, JournalEntry
    from paytui.actions.journal import AuditRow

#: Rows the screen shows at most (the export writes every row the filter finds).
SHOWN = 500

#: History's Action column: each operation's short name (`Operation.short`).
OPERATIONS = {name: spec.short for name, spec in OPERATION_SPECS.items()}
#: Operations whose journal `charge_id` holds another object's id (the refund, token edited; a
#: refused new token's account).
NOT_A_CHARGE = frozenset(name for name, spec in OPERATION_SPECS.items() if not spec.names_a_charge)
#: The message is free text (it gets what is left); ids are cut with `…` before it is dropped.
COLUMNS = (
    FitColumn("Time (UTC)", "Time (UTC)"),
    FitColumn("Operation", "Operation"),
    FitColumn("Charge", "Charge", priority=1, min_width=12),
    FitColumn("Amount", Text("Amount", justify="right")),
    FitColumn("State", "State"),
    # Narrow (80 columns), a refusal's reason stays and the result id goes: a refused or failed
    # entry has no result, and its reason is why one reads History. No row with a message: no
    # Message column (`FitTable`), so the ids keep its room.
    FitColumn("Result", "Result", priority=3, min_width=10),
    FitColumn("Message", "Message", priority=2, min_width=12, free_text=True),
    FitColumn("Client", "Client", priority=4, min_width=8),
    # Who, on a team journal (more than one agent among the rows); one person's: not shown.
    FitColumn("Agent", "Agent", priority=5, min_width=8, only_when_filled=True),
)


state_text = fmt.action_state


HISTORY_BINDINGS: list[Binding] = [
    Binding(
        "enter",
        "open_charge",
        "Open charge",
        id="history.open",
        tooltip="Open the charge of the highlighted action",
    ),
    Binding(
        "v",
        "check_again",
        "Check again",
        id="history.check",
        tooltip="Ask the service again whether an unknown action happened",
    ),
    Binding(
        "t",
        "retry",
        "Retry",
        id="history.retry",
        tooltip="Send again an action proven not to have happened",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="history.refresh", tooltip="Reload the journal"),
    Binding(
        "T",
        "resume_batch",
        "Resume batch",
        id="history.resume_batch",
        tooltip="Run the rest of a bulk action a crash or a cancel left (never twice)",
        show=False,
    ),
    Binding(
        "slash",
        "focus_filter",
        "Filter",
        id="history.filter",
        tooltip="Filter: outcome:refused action:refund charge:ID client:ID since:DAY until:DAY",
    ),
    Binding(
        "x",
        "export",
        "Export",
        id="history.export",
        tooltip="Export the audit trail (as filtered) to CSV or JSON Lines",
    ),
]


def history_title(kind: str, profile: str, wanted: AuditFilter) -> str:
    """Whose actions History lists: on a team journal every agent's (or the one the filter
    names), on a person's file this machine's; of this profile (in the header) unless the
    filter names another."""
    if wanted.agent is not None:
        who = f"{wanted.agent}'s"
    elif kind == "postgresql":
        who = "Every agent's"
    else:
        who = "This machine's"
    where = " on the team journal" if kind == "postgresql" else ""
    other = f", profile {wanted.profile}" if wanted.profile not in {None, profile} else ""
    return f"{who} actions and refused attempts{where}{other}, newest first"


class HistoryScreen(PaytuiScreen[None]):
    """The action journal of this profile."""

    CSS_PATH = Path(__file__).with_name("history.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*HISTORY_BINDINGS]
    HELP_TITLE = "History"
    COMMAND_SCOPE = "history"
    AUTO_FOCUS = "#history-table"

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[AuditRow] = []
        #: Each row's message (its reason, "retry of #N"), shown whole under the table.
        self.messages: list[str] = []
        self.by_id: dict[int, JournalEntry] = {}
        self.filter = AuditFilter()
        #: Built ahead, in idle time, and not shown yet (`paytui.ui.warm_up`): the journal is
        #: read and shown, but the read-backs of outcomes not proven yet (requests to the
        #: service) wait for the first visit.
        self.built_ahead = False

    @property
    def entries(self) -> list[JournalEntry]:
        """The journaled actions shown (refusals left out), newest first."""
        return [self.by_id[r.id] for r in self.rows if r.kind == "action" and r.id in self.by_id]

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(Text("Actions and refused attempts, newest first"), id="history-title")
        yield SafeInput(
            id="history-filter",
            placeholder="/ filter: outcome:refused action:refund charge:ID client:ID since:DAY",
        )
        yield Static(Text(""), id="history-status")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(COLUMNS, id="history-table", cursor_type="row", zebra_stripes=True)
        # The row under the cursor's reason, whole: the Message column gets what width is left
        # (11 characters at 120 columns, none at 80), and the reason is why one reads History.
        yield Static(Text(""), id="history-reason")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.query_one(ListState).show_loading("the journal")
        self.reload()

    def on_screen_resume(self) -> None:
        self.built_ahead = False
        if self.entries or self.is_mounted:
            self.reload()

    @property
    def current_row(self) -> AuditRow | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    @property
    def current(self) -> JournalEntry | None:
        """The highlighted journal entry (None on a refused attempt: nothing to check/retry)."""
        row = self.current_row
        return self.by_id.get(row.id) if row is not None and row.kind == "action" else None

    def _read(self, executor: ActionExecutor) -> tuple[list[AuditRow], dict[int, JournalEntry]]:
        """The rows the filter asks for (this profile's unless it names one) and their entries."""
        wanted = self.filter.kwargs()
        if wanted["profile"] is None:
            wanted.update(profile=executor.profile, base_url=executor.base_url)
        rows = list(executor.journal.audit(**wanted, limit=SHOWN))
        entries = {
            e.id: e
            for e in (executor.journal.get(r.id) for r in rows if r.kind == "action")
            if e is not None
        }
        return rows, entries

    def audit_rows(self, executor: ActionExecutor) -> Any:
        """Every row the filter finds (the export's source), read in batches."""
        wanted = self.filter.kwargs()
        if wanted["profile"] is None:
            wanted.update(profile=executor.profile, base_url=executor.base_url)
        return executor.journal.audit(**wanted, limit=None)

    @work(exclusive=True, group="history-load")
    async def reload(self) -> None:
        status = self.query_one("#history-status", Static)
        try:
            executor = await paytui_app(self).actions.executor()
            rows, entries = self._read(executor)
        except Exception as exc:
            status.update(Text("Could not read the journal."))
            self.query_one(ListState).show_failed(exc, rows_on_screen=bool(self.rows))
            return
        self.query_one("#history-title", Static).update(
            Text(history_title(executor.journal.kind, executor.profile, self.filter))
        )
        self._show(rows, entries)
        with contextlib.suppress(Exception):  # the offer is a nicety; the journal shows anyway
            await self._offer_batches()
        if self.built_ahead:
            return  # not shown yet: the read-backs wait for the first visit (its reload)
        # A "not applied" whose read-back may have been too early (before a commit still in
        # flight could show) is no verdict yet: read it back again now. It becomes "succeeded"
        # (corrected, and said so), a proven "not applied", or "unknown" until it can be proven.
        # So is one still within its late window ("not applied so far": a late commit may land).
        settle = executor.settle_seconds
        early = [
            e.id
            for e in entries.values()
            if e.state == "not_applied"
            and (not e.proven(settle) or executor.open_until(e) is not None)
        ]
        if not early:
            return
        for entry_id in early:
            with contextlib.suppress(ActionError):  # still running: its own outcome will say
                await executor.reconcile_entry(entry_id)
        self._show(*self._read(executor))

    def _show(self, rows: list[AuditRow], entries: dict[int, JournalEntry]) -> None:
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        # The row under the cursor stays under it when rows are added above (a refusal just
        # recorded, say), so that the next key acts on what the person was looking at.
        was = self.rows[cursor] if 0 <= cursor < len(self.rows) else None
        key = (was.kind, was.id) if was is not None else None
        self.rows = rows
        self.by_id = entries
        table.clear()
        team = len({row.agent for row in rows if row.agent}) > 1
        self.messages = []
        for row in rows:
            entry = entries.get(row.id) if row.kind == "action" else None
            message = row.reason or ""
            if entry is not None and entry.retry_of:
                message = f"retry of #{entry.retry_of}" + (f"; {message}" if message else "")
            undoes = (entry.request_summary or {}).get("undoes") if entry is not None else None
            if isinstance(undoes, int):  # an undo (ctrl+z, `paytui.actions.undo`)
                message = f"undo of #{undoes}" + (f"; {message}" if message else "")
            self.messages.append(message)
            table.add_row(
                Text(fmt.timestamp(row.time)),
                fmt.literal(OPERATIONS.get(row.operation, row.operation)),
                fmt.literal(row.charge_id or "—"),
                Text(
                    fmt.money(row.amount) if row.operation in MONEY and row.amount else "",
                    justify="right",
                ),
                state_text("succeeded_late" if entry is not None and entry.late else row.outcome),
                fmt.literal(row.result_id or "—"),
                fmt.literal(message),
                fmt.literal(row.client_id or "—"),
                fmt.literal(row.agent or "—") if team else Text(""),
                key=f"{row.kind}-{row.id}",
            )
        if rows:
            same = [i for i, row in enumerate(rows) if key == (row.kind, row.id)]
            table.move_cursor(row=same[0] if same else min(max(cursor, 0), len(rows) - 1))
        self._show_reason()
        actions = sum(1 for r in rows if r.kind == "action")
        refused = len(rows) - actions
        text = Text(f"{actions} action{'s' if actions != 1 else ''}")
        if refused:
            text.append(f", {refused} refused")
        unresolved = sum(1 for e in entries.values() if e.unresolved)
        if unresolved:
            text.append(f", {unresolved} still unknown (v checks again)", style="bold")
        if len(rows) >= SHOWN:
            text.append(f" (the newest {SHOWN}; x exports them all)")
        self.query_one("#history-status", Static).update(text)
        if rows:
            self.query_one(ListState).show_results()
        elif self.filter != AuditFilter():
            self.query_one(ListState).show_empty("Nothing matches the filter.")
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
            from paytui.actions.batch import still_open

            batch = found[0]
            # Counted by the journal's word: items a kill left "running" in the batch log
            # whose action did go through are done, not left.
            left = await asyncio.to_thread(still_open, batch, executor.journal, executor.base_url)
            self.query_one("#history-status", Static).update(
                Text(
                    f"Bulk {batch.operation} #{batch.id} stopped with {len(left)} of"
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

    # --- filter and export ------------------------------------------------------------------
    def action_focus_filter(self) -> None:
        self.query_one("#history-filter", Input).focus()

    @on(Input.Submitted, "#history-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            self.filter = parse_filter(event.value).checked()
        except ValueError as exc:
            self._filter_refused(error_detail(exc))
            return
        self.query_one(DataTable).focus()
        self.reload()

    def _filter_refused(self, why: str) -> None:
        """A filter that cannot be read lists nothing: the rows of the one before must not pass
        for its result under the new text. Said once, in the list (the text stays to correct)."""
        self.rows = []
        self.messages = []
        self.by_id = {}
        self.query_one(DataTable).clear()
        self._show_reason()
        self.query_one("#history-status", Static).update(fmt.literal(f"Filter not applied: {why}"))
        self.query_one(ListState).show_empty(
            fmt.literal(f"{why}. Nothing is listed until the filter can be read.")
        )
        self.refresh_bindings()

    def action_export(self) -> None:
        self._open_export()

    @work(exclusive=True, group="history-export")
    async def _open_export(self) -> None:
        from paytui.ui.screens.modals.export import ExportModal

        try:
            executor = await paytui_app(self).actions.executor()
        except Exception as exc:  # no journal or not connected (the list says why too)
            self.notify(
                f"Cannot export: {error_detail(exc)}",
                title="Export",
                severity="error",
                markup=False,
            )
            return
        what = "Export the audit trail" + (
            f" ({self.query_one('#history-filter', Input).value.strip()})"
            if self.filter != AuditFilter()
            else ""
        )
        await self.app.push_screen(ExportModal.for_audit(lambda: self.audit_rows(executor), what))

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
            row = self.current_row if self.is_mounted else None
            if row is None or not row.charge_id or row.operation in NOT_A_CHARGE:
                return None
            return True
        if action == "resume_batch":
            return True if getattr(self, "batches", None) else None
        return True

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()
        self._show_reason()

    def _show_reason(self) -> None:
        """The cursor row's reason in full under the table (wrapped), or nothing."""
        row = self.query_one(DataTable).cursor_row
        message = self.messages[row] if 0 <= row < len(self.messages) else ""
        line = self.query_one("#history-reason", Static)
        line.display = bool(message)
        if message:
            line.update(Text.assemble(("Reason: ", "bold"), fmt.literal(message)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_charge()

    def action_open_charge(self) -> None:
        entry = self.current_row
        if entry is not None and entry.charge_id and entry.operation not in NOT_A_CHARGE:
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
                f"Could not check: {error_detail(exc)}",
                title="Check again",
                severity="error",
                markup=False,
            )
            return
        self.notify(outcome.message or outcome.state, title="Check again", markup=False)
        self.reload()

    #: The entry whose Retry was refused as "not applied so far": the next Retry of it (and only
    #: it) is the person's go-ahead to send it anyway.
    _go_ahead: int | None = None

    def action_retry(self) -> None:
        entry = self.current
        if entry is not None and entry.retryable:
            go, self._go_ahead = self._go_ahead, None
            self._retry(entry.id, acknowledge=entry.id if go == entry.id else None)

    @work(group="history-action")
    async def _retry(
        self, entry_id: int, confirmation: str | None = None, acknowledge: int | None = None
    ) -> None:
        try:
            executor = await paytui_app(self).actions.executor()
            outcome = await executor.retry(
                entry_id, confirmation=confirmation, acknowledge_earlier=acknowledge
            )
        except ConfirmationRequired as exc:
            # Production: ask for the phrase, then retry with it (the executor checks it).
            from paytui.ui.screens.modals.confirm import TypedConfirmModal

            def typed(text: str | None) -> None:
                if text:
                    self._retry(entry_id, text, acknowledge)

            wrong = "That did not match. " if confirmation else ""
            self.app.push_screen(
                TypedConfirmModal(exc.phrase, f"{wrong}Retry action #{entry_id}."), typed
            )
            return
        except NotAppliedSoFar as exc:
            # Nothing was sent: a late commit may still land. Only a second t on it sends.
            self._go_ahead = entry_id
            then = f"press t again on #{entry_id} to send it anyway"
            self.notify(exc.with_then(then), title="Retry", severity="warning", markup=False)
            self.reload()
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


__all__ = ["HistoryScreen", "history_title", "state_text"]
