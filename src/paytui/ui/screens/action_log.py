"""`@`: the action log, one key away (as lazygit's command log).

This session's actions and every action on the charge in front of the person (the detail or the
dialog it was opened from), newest first: when, who, what, on which charge, the outcome. Read-only
(nothing here acts); read again whenever the journal changes — this paytui's own actions and, on
a team journal, the others' as they are written. The rows come from `paytui.actions.action_log`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from paytui.actions.operation_names import SHORT_NAMES
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.errors import error_detail

ACTION_LOG_BINDINGS: list[Binding] = [
    Binding("escape,q", "close", "Close", id="action_log.close", tooltip="Close the log"),
    # The app's `@` again (a modal does not pass keys on to the app's bindings): it closes.
    Binding("at", "app.action_log", "Action log", id="action_log.toggle", show=False),
]

COLUMNS = ("When", "Who", "What", "Charge", "Outcome")


class ActionLogScreen(PaytuiModal[None]):
    """The journal's tail for this session and this charge (see the module docstring)."""

    CSS_PATH = Path(__file__).with_name("action_log.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*ACTION_LOG_BINDINGS]
    HELP_TITLE = "Action log"

    def __init__(self, charge_id: str | None = None) -> None:
        super().__init__()
        self.charge_id = charge_id
        #: The rows shown (for tests and the title's count).
        self.lines: list[object] = []

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="action-log-dialog")
        on = f" and charge {self.charge_id}" if self.charge_id else ""
        dialog.border_title = safe(f"Action log — this session{on}")
        dialog.border_subtitle = "read-only · live · esc closes"
        with dialog:
            yield Static(Text("Reading the journal…"), id="action-log-note")
            table: DataTable[Text] = DataTable(id="action-log-table", cursor_type="row")
            table.add_columns(*COLUMNS)
            yield table

    def on_mount(self) -> None:
        self.app.journal_changed.subscribe(self, lambda _entries: self.load())
        self.app.charges_changed.subscribe(self, lambda _ids: self.load())
        self.load()

    @work(exclusive=True, group="action-log", exit_on_error=False)
    async def load(self) -> None:
        from paytui.actions.action_log import action_log

        note = self.query_one("#action-log-note", Static)
        try:
            actions = self.app.session.actions
            executor = await actions.executor()
            lines = await asyncio.to_thread(
                action_log,
                executor.journal,
                base_url=executor.base_url,
                agent=executor.agent,
                machine=executor.machine,
                since=actions.session_started or executor.started,
                charge_id=self.charge_id,
            )
        except Exception as exc:  # said in one line; the log is only a view
            note.update(Text(safe(f"The journal could not be read: {error_detail(exc)}")))
            return
        if not self.is_attached:
            return
        self.lines = list(lines)
        table = self.query_one("#action-log-table", DataTable)
        table.clear()
        now = self.app.now()
        for line in lines:
            row = line.row
            who = "you" if line.mine else (row.agent or "—")
            where = f" ({row.machine})" if row.machine and not line.mine else ""
            amount = f" {fmt.money(row.amount)}" if row.amount is not None else ""
            what = f"{SHORT_NAMES.get(row.operation, row.operation)}{amount}"
            outcome = fmt.action_state(row.outcome) if row.kind == "action" else None
            if outcome is None:
                outcome = Text("refused", style=fmt.tone("bold warning"))
            if row.reason and row.outcome != "succeeded":
                outcome.append(Text(safe(f": {row.reason}"), style=fmt.tone("dim")))
            table.add_row(
                Text(f"{fmt.age(row.time, now)} ago ({fmt.clock(row.time)})"),
                Text(safe(f"{who}{where}")),
                Text(safe(what)),
                Text(safe(row.charge_id or "—")),
                outcome,
            )
        mine = sum(1 for line in lines if line.mine)
        told = f"{mine} by you this session"
        if self.charge_id:
            told += f", {len(lines) - mine} by others on this charge"
        note.update(Text(told if lines else "Nothing yet: this session has not acted."))

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["ActionLogScreen"]
