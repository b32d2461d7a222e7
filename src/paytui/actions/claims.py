"""Claims: an agent says "I am working on this charge", so others on the same journal see it
on the row and are warned before acting. A claim is a warning, not a lock on money: the
exactly-once guard holds whoever claims what. It lives as long as its agent's paytui does (a
session advisory lock on PostgreSQL, the process on a file journal); `Journal.claim`,
`claim_next` and `release` keep them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = ["Claim", "ClaimedElsewhere", "process_alive"]


@dataclass(frozen=True)
class Claim:
    """An agent working on a target (a charge): others see it and are warned before acting."""

    target: str
    agent: str
    machine: str | None
    owner: str | None
    claimed_at: datetime

    def mine(self, owner: str | None) -> bool:
        return owner is not None and self.owner == owner


class ClaimedElsewhere(Exception):
    """`claim` found the target claimed by another live paytui."""

    def __init__(self, claim: Claim) -> None:
        super().__init__(f"{claim.target} is claimed by {claim.agent}")
        self.claim = claim


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
    return True
