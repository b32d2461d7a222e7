"""Who acts, in words another person reads: "the command line of ana@desk-3", or on a team
journal "the dashboard of support-07 on ws-17".

Every journal entry carries it, so when a refund is stopped because the charge changed since
the person looked, the message can say by whom ("refunded 5.00 by the command line of
ana@desk-3 12 s ago"). It names a kind of paytui, a person and a machine: nothing secret.
"""

from __future__ import annotations

import getpass
import socket

__all__ = ["actor_name", "default_agent", "machine_name"]


def machine_name() -> str:
    return socket.gethostname() or "this machine"


def default_agent() -> str:
    """login@host: the agent's name when neither the profile nor `PAYTUI_AGENT` gives one."""
    try:
        user = getpass.getuser()
    except Exception:  # no login name known (a container without one): still say the machine
        user = "someone"
    return f"{user}@{machine_name()}"


def actor_name(kind: str, agent: str | None = None) -> str:
    """`kind` ("the command line", "the dashboard") of `agent` (login@host by default) on this
    machine (named unless the agent's name already holds it)."""
    who = agent or default_agent()
    if "@" not in who:
        who = f"{who} on {machine_name()}"
    return f"{kind} of {who}"
