"""The payment service's async client and models. Never imports textual or the sandbox.

The common names are re-exported lazily, so ``import paytui.api.queries`` (the search language
needs only that) does not pay for httpx.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.errors import (
        ApiError,
        AuthenticationError,
        ConflictError,
        FieldError,
        ForbiddenError,
        MalformedResponseError,
        NotFoundError,
        RateLimitedError,
        RequestTimeoutError,
        ServerError,
        TransportError,
        ValidationError,
    )

_EXPORTS = {
    "PaymentClient": "paytui.api.client",
    "ApiError": "paytui.api.errors",
    "AuthenticationError": "paytui.api.errors",
    "ConflictError": "paytui.api.errors",
    "FieldError": "paytui.api.errors",
    "ForbiddenError": "paytui.api.errors",
    "MalformedResponseError": "paytui.api.errors",
    "NotFoundError": "paytui.api.errors",
    "RateLimitedError": "paytui.api.errors",
    "RequestTimeoutError": "paytui.api.errors",
    "ServerError": "paytui.api.errors",
    "TransportError": "paytui.api.errors",
    "ValidationError": "paytui.api.errors",
}

__all__ = [
    "ApiError",
    "AuthenticationError",
    "ConflictError",
    "FieldError",
    "ForbiddenError",
    "MalformedResponseError",
    "NotFoundError",
    "PaymentClient",
    "RateLimitedError",
    "RequestTimeoutError",
    "ServerError",
    "TransportError",
    "ValidationError",
    "without_httpx_cli",
]


def without_httpx_cli() -> None:
    """Let httpx be imported without its command line (call before httpx is first imported).

    httpx's package initialiser imports its CLI entry point (`httpx._main`: click, pygments,
    rich; a tenth of a second of CPU on a loaded machine, more than a script command's own
    modules) only to export `httpx.main`, which paytui never calls. A stub stands in for it, in
    the dashboard (`paytui.ui.clients.import_client`) and in every script command
    (`paytui.cli`). No effect once httpx is loaded."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    import types

    def no_cli(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError("httpx's command line is not loaded in paytui; run `httpx` itself")

    stub = types.ModuleType("httpx._main", "Stand-in for httpx's CLI (paytui.api).")
    stub.__dict__["main"] = no_cli
    sys.modules["httpx._main"] = stub


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'paytui.api' has no attribute {name!r}")
    return getattr(import_module(module), name)
