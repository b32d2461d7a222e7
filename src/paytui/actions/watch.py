"""Following the journal live: what other paytuis (another agent's machine, the command line
beside the dashboard) wrote, as it happens.

Every write to the journal appends a link to its trail, so "what changed since I last looked"
is one query on the trail (`Journal.changes_after`), the same on both engines. What differs is
only how the wait ends: on PostgreSQL a ``NOTIFY`` sent at each commit wakes every listener at
once; a file is polled every 2 s. A dashboard runs `JournalWatch.next` in a thread of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paytui.actions.entry import JournalEntry
    from paytui.actions.journal import Journal

__all__ = ["JournalWatch"]


class JournalWatch:
    """Entries written or moved by other processes since the watch began, batch by batch."""

    def __init__(self, journal: Journal, *, own: str | None) -> None:
        """`own`: this process's owner stamp ("host:pid"): its own entries are not news (the
        screen that acted already shows them)."""
        self._journal = journal
        self._listener = journal.listener()
        self._seq = journal.head()
        self._own = own

    @property
    def closed(self) -> bool:
        return self._listener.closed

    def next(self, timeout: float = 30.0) -> list[JournalEntry]:
        """Wait for a change (at most `timeout`), then return the other processes' entries
        that changed since the last call (often none). Blocking: call it from a thread."""
        self._listener.wait(timeout)
        if self.closed:
            return []
        self._seq, entries = self._journal.changes_after(self._seq)
        return [e for e in entries if self._own is None or e.owner != self._own]

    def presence_heard(self) -> bool:
        """Did another paytui's presence change since the last call (`paytui.actions.presence`
        notifies with the payload ``presence``)? Only a team journal's listener hears it."""
        from paytui.actions.presence import PAYLOAD

        return PAYLOAD in self._listener.heard()

    def pause(self, seconds: float) -> None:
        """Wait `seconds` (or until `close`): after a failed read, before trying again."""
        self._listener.pause(seconds)

    def close(self) -> None:
        """Stop: a waiting `next` returns at once (within a second on PostgreSQL)."""
        self._listener.close()
