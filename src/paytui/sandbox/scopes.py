"""The spec's scope table, the demo clients, and the per-request check.

A scope allows a set of methods on a path family (the first segment after `/v2`). Two rows are
narrower than a family: distributing a charge and deleting a plugin session. Internal scopes sit
in a client's list (as they do on the real service) but a generated token never carries them.
"""

from __future__ import annotations

from dataclasses import dataclass

from paytui.sandbox import (
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    LIMITED_CLIENT_ID,
    LIMITED_CLIENT_SECRET,
)

SCOPE_TABLE: dict[str, tuple[frozenset[str], str]] = {
    "urn:v2:customers:all": (frozenset({"POST", "PATCH", "PUT", "GET"}), "customers"),
    "urn:v2:distributions:all": (frozenset({"GET"}), "distributions"),
    "urn:v2:merchants:all": (frozenset({"POST", "PATCH", "PUT", "GET", "DELETE"}), "merchants"),
    "urn:v2:merchants:read": (frozenset({"GET"}), "merchants"),
    "urn:v2:accounts:all": (frozenset({"POST", "PUT", "GET", "DELETE"}), "accounts"),
    "urn:v2:accounts:read": (frozenset({"GET"}), "accounts"),
    "urn:v2:channels:all": (frozenset({"POST", "GET"}), "channels"),
    "urn:v2:conversations:all": (frozenset({"POST", "GET", "PATCH"}), "conversations"),
    "urn:v2:messages:all": (frozenset({"POST", "GET"}), "messages"),
    "urn:v2:partners:read": (frozenset({"GET"}), "partners"),
    "urn:v2:charges:all": (frozenset({"POST", "PATCH", "GET"}), "charges"),
    # PATCH: the spec accepts tags and attributes on refund update, with no scope row of its
    # own; the family's scope allows it (docs/api-assumptions.md).
    "urn:v2:refunds:all": (frozenset({"POST", "PATCH", "GET"}), "refunds"),
    "urn:v2:tokens:all": (frozenset({"POST", "PUT", "GET"}), "tokens"),
    "urn:v2:devices:all": (frozenset({"GET"}), "devices"),
    "urn:v2:plugins:all": (frozenset({"POST", "GET"}), "plugins"),
}
DISTRIBUTE_SCOPE = "urn:v2:charges:distribute:create"
PLUGINS_ALL = "urn:v2:plugins:all"
PREPOPULATE_SCOPE = "urn:v2:plugins:enrollment:create:prepopulate-processing-info"
INTERNAL_SCOPES = frozenset(
    {
        "urn:v2:accounts:plugins",
        "urn:v2:merchants:plugins",
        "urn:v2:plugins:client",
        "urn:v2:plugins:plugins",
    }
)
GRANTABLE_SCOPES = frozenset({*SCOPE_TABLE, DISTRIBUTE_SCOPE, PREPOPULATE_SCOPE})


@dataclass(frozen=True)
class Client:
    """An API user of the sandbox: its secret and the scope list it holds."""

    client_id: str
    secret: str
    scopes: frozenset[str]


CLIENTS: dict[str, Client] = {
    DEMO_CLIENT_ID: Client(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, GRANTABLE_SCOPES | INTERNAL_SCOPES),
    LIMITED_CLIENT_ID: Client(
        LIMITED_CLIENT_ID,
        LIMITED_CLIENT_SECRET,
        frozenset({"urn:v2:accounts:read", "urn:v2:merchants:read"}),
    ),
}


class ScopeRequestError(ValueError):
    """A `scope` form value names a scope the client does not hold."""


def grant(client: Client, requested: str | None) -> frozenset[str]:
    """The scopes a new token carries: the requested subset (or all), internal ones dropped."""
    held = client.scopes - INTERNAL_SCOPES
    if requested is None or not requested.strip() or requested.strip() == "all":
        return held
    names = set(requested.split())
    names.discard("all")
    unknown = sorted(names - client.scopes)
    if unknown:
        raise ScopeRequestError(f"client does not hold: {' '.join(unknown)}")
    return frozenset(names) - INTERNAL_SCOPES


FAMILIES = frozenset(family for _, family in SCOPE_TABLE.values())


def needs_token(path: str) -> bool:
    """Every `/v2` path but the token endpoint needs a bearer token."""
    return path.startswith("/v2/") and not path.startswith("/v2/services/")


def required_scopes(method: str, path: str) -> list[str] | None:
    """Scopes any one of which allows `method path` (a `/v2/...` path).

    None when the scope table has no row for it (an unknown family, or a method no scope lists):
    such requests go on to routing, which answers 404 or 405 rather than a 403 naming nothing.
    """
    parts = [p for p in path.split("/") if p]
    if len(parts) < 2 or parts[0] != "v2" or parts[1] not in FAMILIES:
        return None
    family = parts[1]
    method = "GET" if method == "HEAD" else method
    if family == "charges" and len(parts) == 4 and parts[3] == "distribute":
        return [DISTRIBUTE_SCOPE] if method == "POST" else None
    if family == "plugins" and method == "DELETE":
        return [PLUGINS_ALL]
    names = sorted(
        name
        for name, (methods, scope_family) in SCOPE_TABLE.items()
        if scope_family == family and method in methods
    )
    return names or None


def allowed(granted: frozenset[str], needed: list[str] | None) -> bool:
    return needed is None or any(name in granted for name in needed)
