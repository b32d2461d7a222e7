"""Fault switches of the sandbox, so the client's error paths can be exercised on purpose.

A `Faults` instance is shared by reference with the running app (`app.state.faults`) and may be
changed while it runs (tests flip it directly; `PUT /sandbox/faults` flips it over HTTP).

The commit faults name operations (`COMMIT_OPERATIONS`): "capture", "refund", "charge" (a new
charge), "update" (PATCH of tags / attributes), "distribute", "message" (a new message),
"close" (closing a conversation) and "contact" (PATCH of a customer's email or phone).
`operation_of` maps a request to its operation, so the middleware and the routes agree on what a
switch covers.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any

COMMIT_OPERATIONS = frozenset(
    {"capture", "refund", "charge", "update", "distribute", "message", "close", "contact"}
)
#: The operations `drop_after_commit` accepts (all that commit something).
DROPPABLE_OPERATIONS = COMMIT_OPERATIONS

_CHARGE_ACTION = re.compile(r"^/v2/charges/[^/]+/(capture|distribute)$")
_ONE_CHARGE = re.compile(r"^/v2/charges/[^/]+$")
_CLOSE = re.compile(r"^/v2/conversations/[^/]+/close$")
_ONE_CUSTOMER = re.compile(r"^/v2/customers/[^/]+$")


def operation_of(method: str, path: str) -> str | None:
    """The commit operation of a request (None for reads and everything else)."""
    if method == "POST" and path == "/v2/charges":
        return "charge"
    if method == "POST" and path == "/v2/refunds":
        return "refund"
    if method == "POST" and (match := _CHARGE_ACTION.match(path)):
        return match.group(1)
    if method == "PATCH" and _ONE_CHARGE.match(path):
        return "update"
    if method == "POST" and path == "/v2/messages":
        return "message"
    if method == "POST" and _CLOSE.match(path):
        return "close"
    if method == "PATCH" and _ONE_CUSTOMER.match(path):
        return "contact"
    return None


class DropResponse(Exception):
    """Raised after a commit so the connection closes without a complete answer."""


class ResetConnection(DropResponse):
    """Raised after a commit so the connection is reset before any answer (in process: an
    `httpx.ReadError`; over uvicorn the closest it allows, an answer cut short)."""


class QuietDrops(logging.Filter):
    """Turns uvicorn's traceback for a deliberately dropped answer into one warning line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], DropResponse):
            record.msg, record.args = (
                "sandbox fault: dropped the answer after committing the %s",
                (record.exc_info[1],),
            )
            record.exc_info, record.exc_text, record.levelno = None, None, logging.WARNING
            record.levelname = "WARNING"
        return True


def quiet_dropped_answers() -> None:
    """Install `QuietDrops` on uvicorn's error logger once."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietDrops) for f in logger.filters):
        logger.addFilter(QuietDrops())


@dataclass
class Faults:
    """What to break. Defaults break nothing.

    - `drop_after_commit`: operations whose answer is dropped after the database commit (the
      answer is started, then cut), the "did my capture happen?" case a client must handle.
    - `reset_after_commit`: operations whose connection is reset right after the commit, before
      any byte of the answer.
    - `late_commit` with `late_commit_seconds`: operations whose request is read, then held this
      long (longer than the client's timeout, so it gives up), and *then* committed: the slow
      service whose commit lands after the client stopped waiting.
    - `delay_seconds`: added before every `/v2` answer (before the request is even read, so a
      client that gives up first is never committed — unlike `late_commit`).
    - `fail_status` with `fail_path_prefix` (None = every `/v2` path) and `fail_count`
      (-1 = always): answer that status instead of running the endpoint; `fail_body` replaces the
      JSON error body with this raw (non-JSON) text; `fail_method` (None = any) limits it to
      requests of that method ("POST": the action fails, the reads around it do not).
    """

    drop_after_commit: set[str] = field(default_factory=set)
    reset_after_commit: set[str] = field(default_factory=set)
    late_commit: set[str] = field(default_factory=set)
    late_commit_seconds: float = 12.0
    delay_seconds: float = 0.0
    fail_status: int | None = None
    fail_path_prefix: str | None = None
    fail_count: int = -1
    fail_body: str | None = None
    fail_method: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def take_failure(self, path: str, method: str | None = None) -> int | None:
        """The status to force for `path`, consuming one of `fail_count`; None when none applies."""
        with self._lock:
            if self.fail_status is None or self.fail_count == 0:
                return None
            if self.fail_method is not None and method is not None and method != self.fail_method:
                return None
            if self.fail_path_prefix is not None and not path.startswith(self.fail_path_prefix):
                return None
            if self.fail_count > 0:
                self.fail_count -= 1
            return self.fail_status

    def should_drop(self, operation: str) -> bool:
        return operation in self.drop_after_commit

    def should_reset(self, operation: str) -> bool:
        return operation in self.reset_after_commit

    def late_commit_hold(self, operation: str | None) -> float | None:
        """Seconds to hold `operation` before committing it, or None when not held."""
        if operation is None or operation not in self.late_commit:
            return None
        return self.late_commit_seconds

    def to_json(self) -> dict[str, Any]:
        return {
            "drop_after_commit": sorted(self.drop_after_commit),
            "reset_after_commit": sorted(self.reset_after_commit),
            "late_commit": sorted(self.late_commit),
            "late_commit_seconds": self.late_commit_seconds,
            "delay_seconds": self.delay_seconds,
            "fail_status": self.fail_status,
            "fail_path_prefix": self.fail_path_prefix,
            "fail_count": self.fail_count,
            "fail_body": self.fail_body,
            "fail_method": self.fail_method,
        }

    def update(self, changes: dict[str, Any]) -> None:
        """Apply a partial update (keys absent are left alone); validated by the caller's model."""
        with self._lock:
            for key, value in changes.items():
                if key in _SET_SWITCHES:
                    value = set(value)
                setattr(self, key, value)

    def reset(self) -> None:
        self.update(
            {
                "drop_after_commit": set(),
                "reset_after_commit": set(),
                "late_commit": set(),
                "late_commit_seconds": 12.0,
                "delay_seconds": 0.0,
                "fail_status": None,
                "fail_path_prefix": None,
                "fail_count": -1,
                "fail_body": None,
                "fail_method": None,
            }
        )


#: Switches that hold a set of operations.
_SET_SWITCHES = frozenset({"drop_after_commit", "reset_after_commit", "late_commit"})
