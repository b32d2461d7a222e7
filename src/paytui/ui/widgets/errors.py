"""Turn any exception from a worker into words a support agent can act on.

One place for every screen, so a 403 reads the same on the charge list and the detail. Error text
from the service passes through `paytui.logs.redact` before it is shown, and is
always returned as plain strings for `rich.text.Text`, never as markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from paytui.logs import redact
from paytui.text import safe


@dataclass(frozen=True)
class ErrorInfo:
    """`title` for the notification, `message` for the inline line; may retry help?"""

    title: str
    message: str
    retryable: bool = True


def error_detail(exc: BaseException) -> str:
    """What an error says, as text that may be shown: secrets scrubbed, control characters
    visible (`paytui.text.safe`). Every error line of the UI says its cause through this or
    `describe_error`, never `str(exc)` raw."""
    return safe(redact(str(exc) or type(exc).__name__))


def describe_error(exc: BaseException) -> ErrorInfo:
    """Classify by the `paytui.api.errors` hierarchy (by class name: keeps imports light)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    # Error text may quote a server or a file: shown, never obeyed (`paytui.text.safe`).
    detail = safe(redact(str(getattr(exc, "message", None) or exc or type(exc).__name__)))
    detail = detail.rstrip(".")
    status = getattr(exc, "status", None)
    if "AuthenticationError" in names or status == 401:
        return ErrorInfo(
            "Not signed in (401)",
            f"The service rejected the credentials: {detail}. "
            "Check the profile's token or client secret.",
        )
    if "ForbiddenError" in names or status == 403:
        scopes = getattr(exc, "required_scopes", None) or []
        need = f" Needs scope {', '.join(map(str, scopes))}." if scopes else ""
        return ErrorInfo("Not allowed (403)", f"This client may not do that: {detail}.{need}")
    if "NotFoundError" in names or status == 404:
        return ErrorInfo("Not found (404)", f"The service found nothing there: {detail}.")
    if "RateLimitedError" in names or status == 429:
        after = getattr(exc, "retry_after", None)
        wait = f" Try again in {after} s." if after else ""
        return ErrorInfo("Slow down (429)", f"Too many requests: {detail}.{wait}")
    if "ServerError" in names or (isinstance(status, int) and status >= 500):
        return ErrorInfo(f"Service error ({status or '5xx'})", f"The service failed: {detail}.")
    if "RequestTimeoutError" in names or isinstance(exc, TimeoutError):
        return ErrorInfo("Timed out", f"No answer in time: {detail}.")
    if "TransportError" in names:
        return ErrorInfo("Cannot reach the service", f"No answer: {detail}.")
    if "ValidationError" in names or status in (400, 422):
        return ErrorInfo("Rejected by the service", detail, retryable=False)
    if "ApiError" in names:
        return ErrorInfo(f"API error ({status})" if status else "API error", detail)
    return ErrorInfo("Unexpected error", f"{type(exc).__name__}: {detail}")
