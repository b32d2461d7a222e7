"""Claims: an agent says "I am working on this charge", so others on the same journal see it
on the row and are warned before acting. A claim is a warning, not a lock on money: the
exactly-once guard holds whoever claims what. It lives while its agent's paytui does (a
session advisory lock on PostgreSQL, the process on a file journal) and renews it within the
claim lease (`paytui.actions.journal_claims`); `Journal.claim`, `claim_next` and `release` keep
them, and taking over a live one needs a reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = ["Claim", "ClaimedElsewhere", "process_alive"]


@dataclass(frozen=True)
class Claim:
    """An agent working on a target (a charge): others see it and are warned before acting."""

    target: str
    agent: str
    machine: str | None
    owner: str | None
    claimed_at: datetime
    beat_at: datetime | None = None
    """When its holder's paytui last renewed it (None: never since it was taken)."""

    @property
    def beat(self) -> datetime:
        """When it was last known alive: its last renewal, or when it was taken."""
        return self.beat_at if self.beat_at is not None else self.claimed_at

    def age(self, now: datetime) -> str:
        """How long it has been held, in words: "40 s", "12 min", "3 h 5 min"."""
        return _span((now - self.claimed_at).total_seconds())

    def mine(self, owner: str | None) -> bool:
        return owner is not None and self.owner == owner

    def holder(self, now: datetime | None = None) -> str:
        """Who holds it, where, since when and for how long: "support-07 on ws-17 since 14:02
        UTC (12 min)" (the day too when it is not `now`'s; no age without `now`). Raw: the
        agent and machine are other people's words, so whoever shows it passes it through
        `paytui.text.safe`."""
        when = self.claimed_at.astimezone(UTC)
        same_day = now is not None and now.astimezone(UTC).date() == when.date()
        since = f"{when:%H:%M} UTC" if same_day else f"{when:%Y-%m-%d %H:%M} UTC"
        where = f" on {self.machine}" if self.machine else ""
        held = f" ({self.age(now)})" if now is not None else ""
        return f"{self.agent}{where} since {since}{held}"

    def describe(self, *, owner: str | None = None, now: datetime | None = None) -> str:
        """ "Claimed by support-07 on ws-17 since 14:02 UTC", or "Claimed by you" when `owner`
        (this process) holds it."""
        return "Claimed by you" if self.mine(owner) else f"Claimed by {self.holder(now)}"


class ClaimedElsewhere(Exception):
    """`claim` found the target claimed by another live paytui."""

    def __init__(self, claim: Claim) -> None:
        super().__init__(f"{claim.target} is claimed by {claim.agent}")
        self.claim = claim


def _span(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def process_alive(owner: str | None) -> bool:
    """Is the paytui "host:pid" still running? Another machine's: assumed so (a file journal
    is one machine's; a team journal asks its locks instead)."""
    import os
    import socket

    if not owner:
        return False
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return not _zombie(int(pid))


def _zombie(pid: int) -> bool:
    """A process that has ended but was not reaped yet (killed under a parent still running):
    it sends nothing more. Where /proc cannot tell, it is taken as running."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return False
    return bool(fields) and fields[0] in {"Z", "X"}
