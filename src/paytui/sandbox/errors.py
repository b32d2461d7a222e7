"""Business errors of the sandbox, mapped one-to-one onto the documented error body.

Raised by the store (which knows nothing of HTTP frameworks) and turned into
`{"error", "message", "fields"?, "required_scopes"?}` by the app.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An answer other than success: HTTP status, error code, human message, optional details."""

    status = 500
    code = "server_error"

    def __init__(
        self,
        message: str,
        *,
        fields: list[dict[str, str]] | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields
        self.extra = extra or {}
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.fields is not None:
            body["fields"] = self.fields
        body.update(self.extra)
        return body


class Forbidden(ApiError):
    status, code = 403, "forbidden"


class NotFound(ApiError):
    status, code = 404, "not_found"


class Conflict(ApiError):
    status, code = 409, "conflict"


class FieldInvalid(ApiError):
    """422 naming one field (`payment_method.card_number`, `total_amount`, a query parameter)."""

    status, code = 422, "validation_error"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", fields=[{"field": field, "message": message}])
