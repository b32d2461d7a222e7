"""Fault switches of the sandbox, so the client's error paths can be exercised on purpose.

A `Faults` instance is shared by reference with the running app (`app.state.faults`) and may be
changed while it runs (tests flip it directly; `PUT /sandbox/faults` flips it over HTTP).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

DROPPABLE_OPERATIONS = frozenset({"capture", "refund", "charge"})


class DropResponse(Exception):
    """Raised after a commit so the connection closes without a complete answer."""


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

    - `drop_after_commit`: operations ("capture", "refund", "charge") whose answer is dropped after
      the database commit, the "did my capture happen?" case a client must handle.
    - `delay_seconds`: added before every `/v2` answer.
    - `fail_status` with `fail_path_prefix` (None = every `/v2` path) and `fail_count`
      (-1 = always): answer that status instead of running the endpoint; `fail_body` replaces the
      JSON error body with this raw (non-JSON) text.
    """

    drop_after_commit: set[str] = field(default_factory=set)
    delay_seconds: float = 0.0
    fail_status: int | None = None
    fail_path_prefix: str | None = None
    fail_count: int = -1
    fail_body: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def take_failure(self, path: str) -> int | None:
        """The status to force for `path`, consuming one of `fail_count`; None when none applies."""
        with self._lock:
            if self.fail_status is None or self.fail_count == 0:
                return None
            if self.fail_path_prefix is not None and not path.startswith(self.fail_path_prefix):
                return None
            if self.fail_count > 0:
                self.fail_count -= 1
            return self.fail_status

    def should_drop(self, operation: str) -> bool:
        return operation in self.drop_after_commit

    def to_json(self) -> dict[str, Any]:
        return {
            "drop_after_commit": sorted(self.drop_after_commit),
            "delay_seconds": self.delay_seconds,
            "fail_status": self.fail_status,
            "fail_path_prefix": self.fail_path_prefix,
            "fail_count": self.fail_count,
            "fail_body": self.fail_body,
        }

    def update(self, changes: dict[str, Any]) -> None:
        """Apply a partial update (keys absent are left alone); validated by the caller's model."""
        with self._lock:
            for key, value in changes.items():
                if key == "drop_after_commit":
                    value = set(value)
                setattr(self, key, value)

    def reset(self) -> None:
        self.update(
            {
                "drop_after_commit": set(),
                "delay_seconds": 0.0,
                "fail_status": None,
                "fail_path_prefix": None,
                "fail_count": -1,
                "fail_body": None,
            }
        )
