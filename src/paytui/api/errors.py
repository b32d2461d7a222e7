"""The exceptions of the API client: the only ones that leave `PaymentClient`.

Screens catch `ApiError` and show ``str(err)``, so every message is one readable line that says
what happened and, where it helps, the HTTP status. Text quoted from a server (error messages,
malformed bodies) passes through `redact` first: a server that echoes a card number or a bearer
token back must not get it onto the screen or into a log file. `redact` is `paytui.logs.redact`,
the one scrubber (its rules are documented there), so a message reads the same in a log and on
screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paytui.logs import redact
from paytui.text import safe

MAX_QUOTE = 200


def redact_data(value: Any) -> Any:
    """`redact` applied to every string inside parsed JSON (kept on errors as `body`)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_data(item) for item in value]
    return value


def quote(text: str, limit: int = MAX_QUOTE) -> str:
    """Server text made safe for one line: redacted, whitespace collapsed, every other control
    character shown as itself (`paytui.text.safe`: ESC as ``␛``, a bidi override as ``�``), cut
    to `limit`."""
    flat = safe(" ".join(redact(text).split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class FieldError:
    """One rejected field of a request, as the server named it (dotted path)."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class ApiError(Exception):
    """Any failure of an API call; `status`/`code` come from the HTTP answer when there was one.

    `body` is the parsed error body (or the quoted text of a non-JSON one) for debugging views;
    it is kept off ``str(err)`` so a screen never shows raw server data by accident.
    """

    #: Human prefix of the message; subclasses override.
    title = "API error"
    #: What was being read when the call failed ("the charge's refunds"), set by a reader
    #: that knows (`paytui.actions.target_reads.observe`); None: not said.
    reading: str | None = None

    def __init__(
        self,
        message: str,
        status: int | None = None,
        code: str | None = None,
        body: Any = None,
    ) -> None:
        self.message = redact(message)
        self.status = status
        self.code = code
        self.body = body
        super().__init__(self.message)

    def __str__(self) -> str:
        text = f"{self.title}: {self.message}" if self.message else self.title
        return f"{text} ({self.status})" if self.status is not None else text

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, status={self.status!r}, code={self.code!r})"
        )


class AuthenticationError(ApiError):
    """401, or the token endpoint refused the credentials: the user must fix the profile."""

    title = "Not authenticated"


class ForbiddenError(ApiError):
    """403: the token lacks a scope; `required_scopes` says which, when the server told us."""

    title = "Forbidden"

    def __init__(
        self,
        message: str,
        status: int | None = 403,
        code: str | None = None,
        body: Any = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        super().__init__(message, status, code, body)
        self.required_scopes: list[str] = list(required_scopes or [])

    def __str__(self) -> str:
        text = super().__str__()
        if self.required_scopes:
            text += f"; needs {', '.join(self.required_scopes)}"
        return text


class NotFoundError(ApiError):
    """404: the id does not exist (or is not visible to this token)."""

    title = "Not found"


class ValidationError(ApiError):
    """400/422: the request was refused as invalid; nothing happened on the server."""

    title = "Invalid request"

    def __init__(
        self,
        message: str,
        status: int | None = 422,
        code: str | None = None,
        body: Any = None,
        field_errors: list[FieldError] | None = None,
    ) -> None:
        super().__init__(message, status, code, body)
        self.field_errors: list[FieldError] = list(field_errors or [])

    def __str__(self) -> str:
        text = f"{self.title}: {self.message}" if self.message else self.title
        if self.field_errors:
            text += " — " + "; ".join(str(err) for err in self.field_errors)
        return f"{text} ({self.status})" if self.status is not None else text


class ConflictError(ApiError):
    """409: the resource's state forbids the action (capture twice, refund an authorization...)."""

    title = "Conflict"


class RateLimitedError(ApiError):
    """429: too many requests; `retry_after` (seconds) when the server said how long to wait."""

    title = "Rate limited"

    def __init__(
        self,
        message: str,
        status: int | None = 429,
        code: str | None = None,
        body: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, status, code, body)
        self.retry_after = retry_after

    def __str__(self) -> str:
        text = super().__str__()
        if self.retry_after is not None:
            text += f"; retry after {self.retry_after:g}s"
        return text


class ServerError(ApiError):
    """5xx. For a POST/PATCH/PUT the outcome is unknown: the server may have acted before failing.

    `outcome_unknown` is set by the client for those methods (never retried), so a screen can tell
    the user to check before repeating a charge.
    """

    title = "Server error"

    def __init__(
        self,
        message: str,
        status: int | None = 500,
        code: str | None = None,
        body: Any = None,
        outcome_unknown: bool = False,
    ) -> None:
        super().__init__(message, status, code, body)
        self.outcome_unknown = outcome_unknown

    def __str__(self) -> str:
        text = super().__str__()
        if self.outcome_unknown:
            text += " — the server may have acted; outcome unknown"
        return text


class TransportError(ApiError):
    """No HTTP answer arrived.

    `request_sent` is the question that matters for a payment: False means the request certainly
    did not reach the server (safe to try again); True means it may have, so the outcome is
    unknown and the user must check (search) before repeating a charge or refund.
    """

    title = "Connection failed"

    def __init__(
        self,
        message: str,
        status: int | None = None,
        code: str | None = None,
        body: Any = None,
        request_sent: bool = True,
    ) -> None:
        super().__init__(message, status, code, body)
        self.request_sent = request_sent

    def __str__(self) -> str:
        text = super().__str__()
        if self.request_sent:
            text += " — the request may have reached the server; outcome unknown"
        return text


class RequestTimeoutError(TransportError):
    """The request (connect, write or read) took longer than the client's timeout."""

    title = "Timed out"


class RedirectError(ApiError):
    """3xx: the service pointed elsewhere. Not followed: a bearer token must not travel to a host
    nobody configured, and a redirect usually means a wrong base URL (http vs https, a proxy)."""

    title = "Redirected"


class MalformedResponseError(ApiError):
    """The server answered, but not with JSON of the expected shape (proxy page, new format...)."""

    title = "Unexpected response"


__all__ = [
    "ApiError",
    "AuthenticationError",
    "ConflictError",
    "FieldError",
    "ForbiddenError",
    "MalformedResponseError",
    "NotFoundError",
    "RateLimitedError",
    "RedirectError",
    "RequestTimeoutError",
    "ServerError",
    "TransportError",
    "ValidationError",
    "quote",
    "redact",
    "redact_data",
]
