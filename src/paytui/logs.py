"""Logging setup and redaction: no secret, card or bank number may reach a log file or the screen.

`redact(text)` is the one scrubber, used by the logging filter for every record (message, args,
exception text, stack) and by the UI for notifications and error messages. It removes:

- `Bearer <token>` and `Basic <credentials>` values,
- values of secret-named keys in JSON, Python reprs, form bodies and `key: value` text
  (`access_token`, `refresh_token`, `client_secret`, `password`, `secret`, `token`, `api_key`,
  `authorization`, and names ending in those, such as `PAYTUI_CLIENT_SECRET`),
- card-like digit runs of 12-19 digits (plain or grouped by spaces/dashes), keeping the last four,
- bank account and routing numbers next to `account_number` / `routing` keys or words,
- every secret registered at run time with `register_secret` (the app registers the real token and
  client secret, so even a format no pattern knows is scrubbed).

Patterns run after the exact registered values, so a registered secret is removed even where it
would not match a pattern, and a pattern still fires for secrets nobody registered.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import re
import threading
import urllib.parse
from pathlib import Path
from typing import cast

MASK = "***"
LOG_FILENAME = "paytui.log"
LOG_MAX_BYTES = 1_000_000
LOG_BACKUPS = 3
MIN_SECRET_LENGTH = 4

_registered: set[str] = set()
_registered_lock = threading.Lock()
_registered_pattern: re.Pattern[str] | None = None

_AUTH_SCHEME = re.compile(r"\b(Bearer|Basic)(\s+)[A-Za-z0-9\-._~+/]+=*", re.IGNORECASE)

_SECRET_NAMES = (
    r"access_token|refresh_token|id_token|client_secret|secret|password|passwd|passphrase"
    r"|token|api_key|apikey|authorization"
)
# A key that is, or ends in, a secret name: `"client_secret"`, `client_secret=`,
# `PAYTUI_CLIENT_SECRET=`, `'password':`. The key must end there (`token_id` is not a secret).
_KEY = rf"[\"']?(?:[A-Za-z0-9]+[_.-])*(?:{_SECRET_NAMES})[\"']?"
_SECRET_KV = re.compile(
    rf"(?P<key>(?<![A-Za-z0-9]){_KEY}\s*(?:=|:)\s*)"
    r"(?P<value>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[^\s&,;\"'{}\[\]()<>]+)",
    re.IGNORECASE,
)

_BANK_KEY = r"(?:bank_)?account_number|account[ _-]number|routing(?:_number|[ _-]number)?|aba"
_BANK_KV = re.compile(
    rf"(?P<key>(?<![A-Za-z0-9])[\"']?(?:{_BANK_KEY})[\"']?\s*(?:=|:|\bis\b)?\s*[\"']?)"
    r"(?P<value>\d(?:[\d -]*\d)?)",
    re.IGNORECASE,
)

_CARD = re.compile(
    r"(?<![\w.-])(?:\d{12,19}"
    r"|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,3})?"
    r"|\d{4}[ -]\d{6}[ -]\d{4,5})(?![\w-])"
)

#: What every rule below needs at least one of (a digit, ``=`` or ``:``, an auth scheme's name,
#: matched as they match it): a text without any is left as it is, in one search, not four.
_MAY_MASK = re.compile(r"[\d=:]|bearer|basic", re.IGNORECASE).search


def register_secret(value: object) -> None:
    """Scrub `value` (a str or SecretStr) from everything `redact` sees from now on.

    Values shorter than four characters are ignored: scrubbing "ab" everywhere would shred every
    log line and a secret that short is no secret. The URL-encoded form is registered too, since
    form bodies carry the secret encoded.
    """
    get = getattr(value, "get_secret_value", None)
    text = get() if callable(get) else value
    if not isinstance(text, str) or len(text) < MIN_SECRET_LENGTH:
        return
    global _registered_pattern
    with _registered_lock:
        _registered.update({text, urllib.parse.quote(text, safe=""), urllib.parse.quote_plus(text)})
        ordered = sorted(_registered, key=len, reverse=True)
        _registered_pattern = re.compile("|".join(re.escape(s) for s in ordered))


def holds_secret(text: str) -> bool:
    """Does `text` hold a secret registered with `register_secret` (the session's token, client
    secret, journal password)? For what leaves the process whole (a user command's argv and
    environment), where masking would change what is run: it is refused instead."""
    pattern = _registered_pattern
    return pattern is not None and pattern.search(text) is not None


def clear_registered_secrets() -> None:
    """Forget registered secrets (tests, or after switching profile)."""
    global _registered_pattern
    with _registered_lock:
        _registered.clear()
        _registered_pattern = None


def _mask_digits(digits_text: str) -> str:
    digits = re.sub(r"\D", "", digits_text)
    return f"XXXX…{digits[-4:]}" if len(digits) > 4 else MASK


def _card_sub(match: re.Match[str]) -> str:
    count = sum(ch.isdigit() for ch in match.group(0))
    return _mask_digits(match.group(0)) if 12 <= count <= 19 else match.group(0)


def _kv_sub(match: re.Match[str]) -> str:
    value = match.group("value")
    if value.lower() in ("bearer", "basic"):  # `Authorization: Bearer ***`, already scrubbed
        return match.group(0)
    quote = value[0] if value[:1] in ("'", '"') else ""
    return f"{match.group('key')}{quote}{MASK}{quote}"


def _bank_sub(match: re.Match[str]) -> str:
    value = match.group("value")
    if sum(ch.isdigit() for ch in value) < 4:
        return match.group(0)
    return f"{match.group('key')}{MASK}"


def redact(text: object) -> str:
    """Return `text` (any object, via str) with every secret, card and bank number removed."""
    result = text if isinstance(text, str) else str(text)
    pattern = _registered_pattern
    if pattern is not None:
        result = pattern.sub(MASK, result)
    if _MAY_MASK(result) is None:  # no digit, no key=value, no scheme: nothing to mask
        return result
    return _masked(result)


def _masked(text: str) -> str:
    """`text` with auth schemes, secret key=values, bank and card numbers masked."""
    result = _AUTH_SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    result = _SECRET_KV.sub(_kv_sub, result)
    result = _BANK_KV.sub(_bank_sub, result)
    result = _CARD.sub(_card_sub, result)
    return result


class RedactingFilter(logging.Filter):
    """Scrub a record in place: message with its args, exception text and stack text.

    It formats the message itself (`getMessage`) and drops the args, so an argument's repr
    (a request object, a dict with a token) is scrubbed as text and cannot be re-rendered later.
    The exception is formatted to text once, scrubbed, and `exc_info` dropped, so no later
    formatter can render the raw traceback again.
    """

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not lose the record
            message = f"{record.msg!r} % {record.args!r}"
        record.msg = redact(message)
        record.args = None
        if record.exc_info:
            if not record.exc_text:
                record.exc_text = self._formatter.formatException(record.exc_info)
            record.exc_info = None
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating handler whose files are created mode 0600 (logs may still name customers)."""

    def _open(self) -> io.TextIOWrapper:
        def opener(path: str, flags: int) -> int:
            return os.open(path, flags, 0o600)

        stream = open(  # noqa: SIM115 - the handler owns and closes the stream
            self.baseFilename, self.mode, encoding=self.encoding, errors=self.errors, opener=opener
        )
        if os.name == "posix":
            os.chmod(self.baseFilename, 0o600)
        return cast(io.TextIOWrapper, stream)  # the handler's mode is text ("a"), never binary


def log_dir() -> Path:
    """The platformdirs log directory for paytui."""
    import platformdirs

    return Path(platformdirs.user_log_dir("paytui"))


def setup_logging(level: int = logging.INFO, *, directory: Path | None = None) -> Path:
    """Send logging to a private rotating file with redaction; returns the log file path.

    Idempotent: a second call replaces the handler it installed instead of adding another, so
    restarting the app in one process (tests) does not duplicate lines.
    """
    folder = directory or log_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / LOG_FILENAME
    handler = PrivateRotatingFileHandler(
        path, maxBytes=LOG_MAX_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())
    handler.set_name("paytui-file")
    root = logging.getLogger()
    for existing in list(root.handlers):
        if existing.get_name() == "paytui-file":
            root.removeHandler(existing)
            existing.close()
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    return path
