"""HTTP plumbing shared by the route modules: JSON answers, state access, error bodies.

Answers are written with the same compact encoder the store uses for its docs, and lists are
already JSON text (see `search.envelope`), so nothing is encoded twice.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response

from paytui.sandbox.faults import DropResponse, Faults, ResetConnection
from paytui.sandbox.store import Store, dumps

ERROR_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    422: "validation_error",
    429: "rate_limited",
}


def error_code(status: int) -> str:
    return ERROR_CODES.get(status, "server_error" if status >= 500 else "error")


def json_response(
    body: dict[str, Any] | str, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    content = body if isinstance(body, str) else dumps(body)
    return Response(
        content=content, status_code=status, media_type="application/json", headers=headers
    )


def error_response(
    status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    return json_response(
        {"error": error_code(status), "message": message, **extra}, status, headers
    )


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def faults_of(request: Request) -> Faults:
    faults: Faults = request.app.state.faults
    return faults


def token_scopes(request: Request) -> frozenset[str]:
    """Scopes of the bearer token of this request (set by the auth middleware)."""
    return frozenset(request.scope.get("state", {}).get("scopes", frozenset()))


def drop_if(request: Request, operation: str) -> None:
    """After the commit: reset the connection, or drop the answer, when that fault switch for
    `operation` is on."""
    faults = faults_of(request)
    if faults.should_reset(operation):
        raise ResetConnection(operation)
    if faults.should_drop(operation):
        raise DropResponse(operation)
