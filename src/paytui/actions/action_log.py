"""The action log (`@` in the dashboard, as lazygit's command log): the journal's tail a person
needs while deciding — what this paytui did since it started, and what anyone did on the charge in
front of them — as who, what, outcome, when. Read-only; the dashboard reads it again whenever the
journal changes (the team's writes arrive live, `paytui.actions.watch`).

"This session" is this agent on this machine since its executor started (`ActionExecutor.started`):
the journal's rows name the agent and machine, not the process.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paytui.actions.journal import Journal
    from paytui.actions.journal_trail import AuditRow

__all__ = ["LogLine", "action_log"]


@dataclass(frozen=True)
class LogLine:
    """One line of the log: the audit row, and which part of the log it belongs to."""

    row: AuditRow
    mine: bool
    """Made by this session (else: another's, on the charge in front of the person)."""


def action_log(
    journal: Journal,
    *,
    base_url: str,
    agent: str,
    machine: str | None,
    since: datetime,
    charge_id: str | None = None,
    limit: int = 200,
) -> list[LogLine]:
    """This session's rows and every row on `charge_id` (any agent), newest first, once each,
    at most `limit`. Blocking: from a worker thread."""
    mine = [
        row
        for row in journal.audit(base_url=base_url, agent=agent, since=since, limit=limit)
        if row.machine == machine
    ]
    theirs = (
        list(journal.audit(base_url=base_url, charge_id=charge_id, limit=limit))
        if charge_id is not None
        else []
    )
    ours = {(row.kind, row.id) for row in mine}
    lines = [LogLine(row, True) for row in mine]
    lines += [LogLine(row, False) for row in theirs if (row.kind, row.id) not in ours]
    lines.sort(key=lambda line: (line.row.time, line.row.kind, line.row.id), reverse=True)
    return lines[:limit]
