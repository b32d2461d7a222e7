"""Clients for a resolved connection, without the UI: what `paytui` and `paytui charges ...` share.

`paytui.ui.launch` (the dashboard) and `paytui.commands` (the command line for scripts) build the
same client the same way: over the embedded sandbox's private socket with the demo credentials,
or with the profile's `client_kwargs`. Nothing here imports Textual.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

    from paytui.api.client import PaymentClient
    from paytui.sandbox.embedded import EmbeddedSandbox

__all__ = ["acting_client_id", "embedded_client", "sandbox_transport"]


def sandbox_transport(socket_path: object) -> httpx.AsyncHTTPTransport:
    """The httpx transport to the embedded sandbox's Unix socket: plain HTTP, so no TLS context.

    httpx's default `verify=True` would load certifi's CA bundle into a new SSL context (about
    45 ms) for a connection that never does TLS.
    """
    import httpx

    return httpx.AsyncHTTPTransport(uds=str(socket_path), verify=False)


def embedded_client(sandbox: EmbeddedSandbox) -> PaymentClient:
    """The one client of the embedded sandbox: its base URL and socket, the demo credentials."""
    from paytui.api.client import PaymentClient
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    return PaymentClient(
        sandbox.base_url,
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        transport=sandbox_transport(sandbox.socket_path),
    )


def again_window(connection: Any) -> timedelta:
    """How long an identical success needs an explicit "again": the profile's (or `[ui]`'s)
    `again_window_hours`, 24 hours when there is no connection."""
    ui = getattr(connection, "ui", None)
    return timedelta(hours=float(getattr(ui, "again_window_hours", 24.0)))


def late_window(connection: Any) -> timedelta:
    """How long a "not applied" stays "so far": the profile's (or `[ui]`'s)
    `late_window_minutes`, 10 minutes when there is no connection."""
    ui = getattr(connection, "ui", None)
    return timedelta(minutes=float(getattr(ui, "late_window_minutes", 10.0)))


def approve_above(connection: Any) -> Decimal | None:
    """Four eyes above this amount (the connection's `approve_above`); None: off."""
    value = getattr(connection, "approve_above", None)
    return value if isinstance(value, Decimal) else None


def claim_lease(connection: Any) -> timedelta:
    """How long a claim lives without its holder's heartbeat: the profile's (or `[ui]`'s)
    `claim_lease_seconds`, 2 minutes when there is no connection."""
    ui = getattr(connection, "ui", None)
    return timedelta(seconds=float(getattr(ui, "claim_lease_seconds", 120.0)))


def acting_client_id(connection: Any) -> str | None:
    """The OAuth client id the audit trail names: the profile's, or the embedded sandbox's demo
    client; None for a static token (its client is not known)."""
    if connection is None or getattr(connection, "is_embedded", True):
        from paytui.sandbox import DEMO_CLIENT_ID

        return DEMO_CLIENT_ID
    client_id = getattr(connection, "client_id", None)
    return str(client_id) if client_id else None
