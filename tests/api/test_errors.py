"""The exception hierarchy: one-line messages, and nothing secret in them."""

from __future__ import annotations

import pytest

from paytui.api import errors
from paytui.api.errors import (
    ApiError,
    FieldError,
    ForbiddenError,
    NotFoundError,
    RateLimitedError,
    RequestTimeoutError,
    ServerError,
    TransportError,
    ValidationError,
    redact,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("card 4111111111111111 refused", "card XXXX…1111 refused"),
        ("card 4111 1111 1111 1111 refused", "card XXXX…1111 refused"),
        ("acct 111111111111", "acct XXXX…1111"),
        ("Authorization: Bearer abc.DEF-123_x", "Authorization: Bearer ***"),
        ('{"access_token": "tok123", "x": 1}', '{"access_token": "***", "x": 1}'),
        ("client_secret=s3cr3t&grant_type=x", "client_secret=***&grant_type=x"),
        (
            "charge 6206bcbf973c0193850fb6c7 amount 1234",
            "charge 6206bcbf973c0193850fb6c7 amount 1234",
        ),
        ("short 12345678901 stays", "short 12345678901 stays"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_the_client_errors_use_the_one_redactor() -> None:
    """One rule for the screen and the log file: the errors' redact is the logs' redact."""
    import paytui.logs

    assert redact is paytui.logs.redact


def test_str_is_one_readable_line_with_status() -> None:
    err = NotFoundError("no charge 6206bcbf973c0193850fb6c7", status=404, code="not_found")
    assert str(err) == "Not found: no charge 6206bcbf973c0193850fb6c7 (404)"
    assert "\n" not in str(err)
    assert isinstance(err, ApiError)


def test_server_messages_are_redacted_when_quoted() -> None:
    err = ApiError("bad card 4111111111111111 with Bearer abcdef", status=400)
    assert "4111111111111111" not in str(err)
    assert "abcdef" not in str(err)
    assert "4111111111111111" not in repr(err)


def test_subclass_details() -> None:
    forbidden = ForbiddenError("scope missing", required_scopes=["urn:v2:charges:all"])
    assert forbidden.status == 403
    assert "urn:v2:charges:all" in str(forbidden)
    invalid = ValidationError(
        "invalid", field_errors=[FieldError("payment_method.card_number", "fails Luhn")]
    )
    assert invalid.status == 422
    assert "payment_method.card_number: fails Luhn" in str(invalid)
    limited = RateLimitedError("slow down", retry_after=2)
    assert "retry after 2s" in str(limited)
    assert ServerError("boom").status == 500
    assert "outcome unknown" in str(ServerError("boom", outcome_unknown=True))


def test_transport_errors_say_whether_the_request_was_sent() -> None:
    unsent = TransportError("cannot connect", request_sent=False)
    assert "outcome unknown" not in str(unsent)
    sent = RequestTimeoutError("no answer")
    assert sent.request_sent is True
    assert isinstance(sent, TransportError)
    assert "outcome unknown" in str(sent)


def test_quote_cuts_long_text_to_one_line() -> None:
    text = errors.quote("<html>\n" + "x" * 500)
    assert "\n" not in text
    assert len(text) <= errors.MAX_QUOTE
