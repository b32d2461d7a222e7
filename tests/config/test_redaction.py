"""Redaction: every secret kind through every path (message, args, traceback, notification)."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from paytui import logs
from paytui.logs import RedactingFilter, redact, register_secret, setup_logging

UNUSUAL_SECRET = "zq!~unusual#secret~!qz"

# (kind, text carrying the secret, the secret parts that must never come out)
SECRET_KINDS: list[tuple[str, str, list[str]]] = [
    (
        "bearer header",
        "Authorization: Bearer eyJhbGciOi.J9payload-sig_x",
        ["eyJhbGciOi", "J9payload"],
    ),
    ("basic header", "Basic cGF5dHVpLWRlbW86cGF5dHVpLWRlbW8tc2VjcmV0", ["cGF5dHVp"]),
    ("token json", '{"access_token": "tok_5f3a9c2e", "token_type": "Bearer"}', ["tok_5f3a9c2e"]),
    ("refresh json", '{"refresh_token":"rf-77aa99"}', ["rf-77aa99"]),
    (
        "secret form",
        "grant_type=client_credentials&client_id=acme&client_secret=s3cr%2Bet&scope=all",
        ["s3cr%2Bet", "s3cr"],
    ),
    ("secret repr", "{'client_secret': 'hunter two words'}", ["hunter two"]),
    ("password kv", "password: correct-horse", ["correct-horse"]),
    ("env assignment", "PAYTUI_CLIENT_SECRET=abcd1234xyz", ["abcd1234xyz"]),
    ("generic secret", 'secret = "plain-secret-value"', ["plain-secret-value"]),
    ("card plain", "card_number=4111111111111111 declined", ["4111111111111111", "411111111111"]),
    ("card spaced", "pan 5555 5555 5555 4444 ok", ["5555 5555 5555", "555555555555"]),
    ("card dashed amex", "amex 3782-822463-10005", ["3782-822463", "378282246310005"]),
    ("card 19 digits", "card 6011000990139424123", ["6011000990139424"]),
    (
        "bank json",
        '{"account_number": "000123456789", "routing_number": "021000021"}',
        ["000123456789", "021000021", "12345678"],
    ),
    ("bank prose", "account number 987654321 routing 021000021", ["987654321", "021000021"]),
    ("registered secret", f"the server echoed {UNUSUAL_SECRET} back", [UNUSUAL_SECRET]),
    (
        "registered secret url-encoded",
        "form data=zq%21~unusual%23secret~%21qz&x=1",  # encoded, under no secret-like key
        ["zq%21~unusual%23secret~%21qz", "unusual"],
    ),
]


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    register_secret(SecretStr(UNUSUAL_SECRET))
    yield
    logs.clear_registered_secrets()


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    path = setup_logging(directory=tmp_path / "logs")
    yield path
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() == "paytui-file":
            root.removeHandler(handler)
            handler.close()


def _assert_clean(output: str, secrets: list[str]) -> None:
    for secret in secrets:
        assert secret not in output, f"{secret!r} leaked into {output!r}"


@pytest.mark.parametrize(
    ("kind", "text", "secrets"), SECRET_KINDS, ids=[k for k, _, _ in SECRET_KINDS]
)
def test_every_kind_through_every_path(
    kind: str, text: str, secrets: list[str], log_file: Path
) -> None:
    log = logging.getLogger("paytui.test")
    # 1. in the message itself
    log.warning("message: " + text)  # no args: logging does not %-format it
    # 2. as a %-argument (and inside a container's repr)
    log.warning("arg: %s / %r", text, {"body": text})
    # 3. inside an exception and its traceback
    try:
        raise RuntimeError(f"request failed: {text}")
    except RuntimeError:
        log.exception("while talking to the service")
    # 4. in a notification the UI would show
    notification = redact(f"Refund failed: {text}")

    for handler in logging.getLogger().handlers:
        handler.flush()
    written = log_file.read_text(encoding="utf-8")
    assert "while talking to the service" in written
    assert "Traceback" in written
    assert written.count("message:") == 1 and written.count("arg:") == 1
    _assert_clean(written, secrets)
    _assert_clean(notification, secrets)
    assert notification.startswith("Refund failed:")


def test_card_keeps_last_four_and_leaves_other_numbers_alone() -> None:
    assert redact("card 4111111111111111") == "card XXXX…1111"
    assert redact("4111 1111 1111 1111") == "XXXX…1111"
    untouched = (
        "charge 6206bcbf973c0193850fb6c7 at 2026-11-20T18:00:00.115Z for 1234.56, "
        "masked XXXXXXXXXXXX1111, last4 1111, id 550e8400-e29b-41d4-a716-446655440000, "
        "token_id ct_abcdefghij0123456789, expires_in 3600"
    )
    assert redact(untouched) == untouched


def test_bearer_keeps_its_scheme_word() -> None:
    assert redact("Authorization: Bearer abc.def") == "Authorization: Bearer ***"
    assert redact('{"client_secret": "x y"}') == '{"client_secret": "***"}'


def test_short_registered_values_are_ignored() -> None:
    register_secret("ab")
    assert redact("about a tab") == "about a tab"


def test_filter_scrubs_record_for_every_handler() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "token %s", ("Bearer abc123",), None)
    assert RedactingFilter().filter(record)
    assert record.getMessage() == "token Bearer ***"
    assert record.args is None


def test_broken_format_string_is_still_scrubbed() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "%d", ("password=hunter22",), None)
    RedactingFilter().filter(record)
    assert "hunter22" not in record.getMessage()


def test_log_file_is_private_and_rotates(tmp_path: Path) -> None:
    path = setup_logging(directory=tmp_path / "logs")
    try:
        logging.getLogger("paytui.test").warning("hello")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        handlers = [h for h in logging.getLogger().handlers if h.get_name() == "paytui-file"]
        assert len(handlers) == 1
        setup_logging(directory=tmp_path / "logs")  # idempotent
        handlers = [h for h in logging.getLogger().handlers if h.get_name() == "paytui-file"]
        assert len(handlers) == 1
        handler = handlers[0]
        assert isinstance(handler, logs.PrivateRotatingFileHandler)
        handler.maxBytes = 200
        for _ in range(20):
            logging.getLogger("paytui.test").warning("x" * 50)
        rotated = path.with_name(path.name + ".1")
        assert rotated.exists()
        assert stat.S_IMODE(rotated.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        root = logging.getLogger()
        for handler in list(root.handlers):
            if handler.get_name() == "paytui-file":
                root.removeHandler(handler)
                handler.close()


def test_default_log_dir_is_platformdirs(isolated_user_dirs: Path) -> None:
    assert str(logs.log_dir()).startswith(str(isolated_user_dirs))
