"""The reason of an error answer, read from every envelope the spec allows (it shows none) and
from text bodies: one line, bounded, redacted, control characters shown (`error_bodies`)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.api.error_bodies import field_errors, reason_and_code, text_reason
from paytui.api.errors import MAX_QUOTE, ConflictError, RateLimitedError

CARD = "4111111111111111"


@pytest.mark.parametrize(
    ("body", "reason", "code"),
    [
        (
            {"fault": {"faultstring": "Charge is locked", "detail": {"errorcode": "locked"}}},
            "Charge is locked",
            "locked",
        ),
        (
            {"fault": {"faultstring": "Quota exceeded", "faultcode": "policies.ratelimit"}},
            "Quota exceeded",
            "policies.ratelimit",
        ),
        ({"error": {"code": "E42", "description": "already refunded"}}, "already refunded", "E42"),
        (
            {"error": {"type": "conflict", "detail": "already refunded"}},
            "already refunded",
            "conflict",
        ),
        ({"error": {"errors": [{"message": "already refunded"}]}}, "already refunded", None),
        (
            {"error": "invalid_client", "error_description": "bad secret"},
            "bad secret",
            "invalid_client",
        ),
        ({"error": "The charge is already refunded"}, "The charge is already refunded", None),
        ({"error": "charge_locked"}, "charge_locked", "charge_locked"),
        ({"message": "already refunded", "code": 1042}, "already refunded", "1042"),
        ({"detail": "already refunded"}, "already refunded", None),
        (
            {"detail": [{"loc": ["body", "total_amount"], "msg": "must be positive"}]},
            "total_amount: must be positive",
            None,
        ),
        ({"errors": ["first", "second"]}, "first; second", None),
        (
            {"errors": [{"field": "amount", "message": "too high"}, {"description": "again"}]},
            "amount: too high; again",
            None,
        ),
        ({"errors": [{"message": f"m{n}"} for n in range(5)]}, "m0; m1; m2; and 2 more", None),
        (
            {"errors": {"amount": ["too high"], "reason": "too long"}},
            "amount: too high; reason: too long",
            None,
        ),
        (
            {"title": "Conflict with the charge", "type": "https://errors.example/conflict"},
            "Conflict with the charge",
            "https://errors.example/conflict",
        ),
        ([{"message": "a bare list"}], "a bare list", None),
        ("a JSON string", "a JSON string", None),
        ({"status": 409}, None, None),
    ],
)
def test_every_envelope_gives_its_reason_and_code(
    body: Any, reason: str | None, code: str | None
) -> None:
    assert reason_and_code(body) == (reason, code)


def test_a_reason_is_one_line_bounded_redacted_and_shows_control_characters() -> None:
    hostile = f"refused\n\tcard {CARD}\x1b]2;owned\x07 \u202eevil " + "x" * 400
    reason, code = reason_and_code({"fault": {"faultstring": hostile, "faultcode": "a\x1bb"}})
    assert reason is not None and code is not None
    assert "\n" not in reason and "\t" not in reason and "\x1b" not in reason
    assert "\u241b]2;owned\u2407" in reason  # ESC and BEL shown, not obeyed
    assert "\u202e" not in reason and "\ufffd" in reason  # a bidi override shown as �
    assert CARD not in reason and "1111" in reason
    assert len(reason) == MAX_QUOTE and reason.endswith("…")
    assert code == "a\u241bb"


@pytest.mark.parametrize(
    ("content", "content_type", "reason"),
    [
        (b"charge is locked\r\n", "text/plain", "charge is locked"),
        (
            b"<html><head><title>409 Conflict</title></head><body>x</body></html>",
            "text/html",
            "409 Conflict",
        ),
        (
            b"<html><body><h1>Locked</h1><script>var a=1;</script><p>by a dispute</p></body>",
            "text/html",
            "Locked by a dispute",
        ),
        (b"<p>AT&amp;T said no</p>", "", "AT&T said no"),
        (b"   \n", "text/plain", None),
        (
            b"\xff\xfe broken \x00 bytes",
            "application/octet-stream",
            "\ufffd\ufffd broken \u2400 bytes",
        ),
    ],
)
def test_a_text_body_gives_its_text(content: bytes, content_type: str, reason: str | None) -> None:
    assert text_reason(content, content_type) == reason


def test_field_errors_name_their_fields_cleanly() -> None:
    found = field_errors({"errors": [{"field": "a\x1b", "message": f"{CARD} bad\nreally"}]})
    assert [(f.field, f.message) for f in found] == [("a\u241b", "XXXX…1111 bad really")]


def _client(response: httpx.Response) -> PaymentClient:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/token"):
            return httpx.Response(200, json={"access_token": "t", "expires_in": 3600})
        return response

    return PaymentClient(
        "https://api.example", token="t", transport=httpx.MockTransport(answer), max_retries=0
    )


async def test_a_409_in_a_fault_envelope_says_its_reason_not_conflict_twice() -> None:
    body = {"fault": {"faultstring": "Refunds are paused for this charge"}}
    async with _client(httpx.Response(409, json=body)) as client:
        with pytest.raises(ConflictError) as info:
            await client.get_charge("c1")
    assert str(info.value) == "Conflict: Refunds are paused for this charge (409)"


async def test_an_error_without_any_reason_says_so() -> None:
    async with _client(httpx.Response(409)) as client:
        with pytest.raises(ConflictError) as info:
            await client.get_charge("c1")
    assert str(info.value) == "Conflict: no reason given (409)"


async def test_a_text_429_keeps_its_text_and_retry_after() -> None:
    answer = httpx.Response(
        429, text="Slow down\n", headers={"Retry-After": "7", "Content-Type": "text/plain"}
    )
    async with _client(answer) as client:
        with pytest.raises(RateLimitedError) as info:
            await client.get_charge("c1")
    assert str(info.value) == "Rate limited: Slow down (429); retry after 7s"
