"""Who acts, in words another person reads: "the command line of ana@desk-3".

Every journal entry carries it, so when a refund is stopped because the charge changed since
the person looked, the message can say by whom ("refunded 5.00 by the command line of
ana@desk-3 12 s ago"). It names a kind of paytui, a login and a machine: nothing secret.
"""

from __future__ import annotations

import getpass
import socket

__all__ = ["actor_name"]


def actor_name(kind: str) -> str:
    """`kind` ("the command line", "the dashboard") of this login on this machine."""
    try:
        user = getpass.getuser()
    except Exception:  # no login name known (a container without one): still say the machine
        user = "someone"
    host = socket.gethostname() or "this machine"
    return f"{kind} of {user}@{host}"
