"""Approvals waiting (`ctrl+a` on Today): four eyes in the dashboard (docs/team.md, "Four eyes").

The requests for a second person's approval on this service, oldest first: who asked, what (a
refund or capture and its amount), on which charge, how long ago. `enter` on one approves it and
sends it at once through the one executor (`paytui.actions.four_eyes.approve`), exactly as it was
asked and on the view it was asked on; `delete` rejects it, for good. Each asks twice: the first
press says what the second will do (money leaves on the second). The requester's own requests
are listed too (marked "yours"): the journal refuses their approval, and the line says so. Read
again whenever the journal changes, on a team journal as the others write.
"""

from __future__ import annotations

import asyncio
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
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.errors import error_detail

if TYPE_CHECKING:
    from paytui.actions.journal_approvals import Approval

APPROVALS_BINDINGS: list[Binding] = [
    Binding(
        "enter",
        "approve",
        "Approve",
        id="approvals.approve",
        tooltip="Approve the highlighted request and send it (press twice; never your own)",
    ),
    Binding(
        "delete",
        "reject",
        "Reject",
        id="approvals.reject",
        tooltip="Reject the highlighted request, for good (press twice)",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="approvals.refresh", tooltip="Read them again"),
    Binding("escape,q", "close", "Close", id="approvals.close", tooltip="Close the list"),
]

COLUMNS = ("#", "Asked by", "What", "Charge", "Asked")


class ApprovalsScreen(PaytuiModal[None]):
    """The requests waiting for a second person (see the module docstring)."""

    CSS_PATH = Path(__file__).with_name("approvals.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*APPROVALS_BINDINGS]
    HELP_TITLE = "Approvals waiting (dialog)"

    def __init__(self) -> None:
        super().__init__()
        #: The requests shown, in the table's order.
        self.requests: list[Approval] = []
        #: The (verb, request) the next press of the same key carries out.
        self._armed: tuple[str, int] | None = None

    def compose(self) -> ComposeResult:
        dialog = Vertical(id="approvals-dialog")
        dialog.border_title = "Approvals waiting"
        dialog.border_subtitle = "enter approves and sends · delete rejects · esc closes"
        with dialog:
            yield Static(Text("Reading the journal…"), id="approvals-note")
            table: DataTable[Text] = DataTable(id="approvals-table", cursor_type="row")
            table.add_columns(*COLUMNS)
            yield table

    def on_mount(self) -> None:
        self.app.journal_changed.subscribe(self, lambda _entries: self.load())
        self.load()

    def _say(self, text: str, style: str = "") -> None:
        self.query_one("#approvals-note", Static).update(Text(safe(text), style=style))

    @work(exclusive=True, group="approvals-load", exit_on_error=False)
    async def load(self) -> None:
        try:
            executor = await self.app.actions.executor()
            found = await asyncio.to_thread(executor.journal.approvals, base_url=executor.base_url)
        except Exception as exc:  # one line; the list is only a view
            self._say(f"The journal could not be read: {error_detail(exc)}")
            return
        if not self.is_attached:
            return
        self.requests = list(found)
        table = self.query_one("#approvals-table", DataTable)
        row = table.cursor_row
        table.clear()
        now = self.app.now()
        for asked in self.requests:
            mine = asked.requested_by == executor.agent
            who = f"{asked.requested_by} (yours)" if mine else asked.requested_by
            table.add_row(
                Text(str(asked.id)),
                Text(safe(who), style=fmt.tone("dim") if mine else ""),
                Text(safe(f"{asked.operation} {fmt.money(asked.amount)}")),
                Text(safe(asked.charge_id)),
                Text(f"{fmt.age(asked.requested_at, now)} ago"),
            )
        if self.requests:
            table.move_cursor(row=min(row, len(self.requests) - 1))
            count = len(self.requests)
            self._say(f"{count} request{'s' if count != 1 else ''} waiting for a second person.")
        else:
            self._say("Nothing waits for approval on this service.")

    @property
    def current(self) -> Approval | None:
        table = self.query_one("#approvals-table", DataTable)
        if not self.requests or table.cursor_row >= len(self.requests):
            return None
        return self.requests[table.cursor_row]

    def _second_press(self, verb: str, asked: Approval) -> bool:
        """True when this press carries out what the last one said; else it says it now."""
        if self._armed == (verb, asked.id):
            self._armed = None
            return True
        self._armed = (verb, asked.id)
        then = "approve it and send it now" if verb == "approve" else "reject it, for good"
        key = "enter" if verb == "approve" else "delete"
        self._say(f"Request {asked.describe()}: press {key} again to {then}.", "bold")
        return False

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # The table takes enter first (its own "select"): the row chosen is the one approved.
        event.stop()
        self.action_approve()

    def action_approve(self) -> None:
        asked = self.current
        if asked is not None and self._second_press("approve", asked):
            self._approve(asked.id)

    def action_reject(self) -> None:
        asked = self.current
        if asked is not None and self._second_press("reject", asked):
            self._reject(asked.id)

    @work(group="approvals-action", exit_on_error=False)
    async def _approve(self, approval_id: int, confirmation: str | None = None) -> None:
        from paytui.actions.errors import ActionError, ConfirmationRequired
        from paytui.actions.four_eyes import approve

        try:
            executor = await self.app.actions.executor()
            outcome = await approve(executor, approval_id, confirmation=confirmation)
        except ConfirmationRequired as exc:
            # Production: the approver types the phrase, as for any money action of theirs.
            from paytui.ui.screens.modals.confirm import TypedConfirmModal

            def typed(text: str | None) -> None:
                if text:
                    self._approve(approval_id, text)

            wrong = "That did not match. " if confirmation else ""
            self.app.push_screen(
                TypedConfirmModal(exc.phrase, f"{wrong}Approve and send request #{approval_id}."),
                typed,
            )
            return
        except ActionError as exc:
            self.notify(exc.message, title="Approve", severity="warning", markup=False)
            self.load()
            return
        self.notify(
            outcome.message or outcome.state,
            title=f"Approved #{approval_id}",
            severity="information" if outcome.succeeded else "warning",
            markup=False,
        )
        if outcome.succeeded:
            self.app.charges_changed_by(outcome.charge_id, outcome.result_id)
        self.load()

    @work(group="approvals-action", exit_on_error=False)
    async def _reject(self, approval_id: int) -> None:
        from paytui.actions.errors import ActionError
        from paytui.actions.four_eyes import reject

        try:
            executor = await self.app.actions.executor()
            rejected = await reject(executor, approval_id, "rejected in the dashboard")
        except ActionError as exc:
            self.notify(exc.message, title="Reject", severity="warning", markup=False)
            self.load()
            return
        self.notify(
            f"Rejected request {rejected.describe()}, for good: nothing is sent.",
            title="Reject",
            markup=False,
        )
        self.load()

    def action_refresh(self) -> None:
        self._armed = None
        self.load()

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["APPROVALS_BINDINGS", "ApprovalsScreen"]
