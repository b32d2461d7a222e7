"""A search's time window on the wire and on the rows, without pydantic: `ChargeQuery` and
`RefundQuery` (`paytui.api.queries`) prove their `created_from` / `created_to` with
`time_verdicts`, and so does an export read with the standard library
(`paytui.commands.plainly`), which pins its search to its start as
`paytui.exporter.charge_pages` does: one proof, not two.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

__all__ = ["format_wire_timestamp", "time_verdicts"]


def format_wire_timestamp(value: datetime) -> str:
    """ISO 8601 UTC with `Z`, in the API's own millisecond form (`2026-01-01T00:00:00.000Z`).

    Sub-millisecond precision is kept (six digits) rather than rounded: rounding an exclusive
    `created_to` down, or an inclusive `created_from` up, would silently drop charges.
    """
    utc = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    # By hand: strftime("%Y") does not zero-pad years below 1000 on every platform.
    base = (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
        f"T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
    )
    if utc.microsecond % 1000:
        return f"{base}.{utc.microsecond:06d}Z"
    return f"{base}.{utc.microsecond // 1000:03d}Z"


def time_verdicts(
    moment: Any, start: datetime | None, end: datetime | None
) -> dict[str, bool | None]:
    """What a row's time (`moment`) shows of a window: ``created_from`` (inclusive `start`) and
    ``created_to`` (exclusive `end`), each asked only when set: True, inside; False, outside
    (the service ignored the filter); None, the row has no time to tell."""
    found: dict[str, bool | None] = {}
    known = isinstance(moment, datetime)
    if start is not None:
        found["created_from"] = (moment >= start) if known else None
    if end is not None:
        found["created_to"] = (moment < end) if known else None
    return found
