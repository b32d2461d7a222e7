"""The payment service's async client and models. Never imports textual or the sandbox.

The common names are re-exported lazily, so ``import paytui.api.queries`` (the search language
needs only that) does not pay for httpx.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

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
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'paytui.api' has no attribute {name!r}")
    return getattr(import_module(module), name)
