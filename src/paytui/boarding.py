"""The boarding statuses of a payment account, from the specification, in the order an account
moves through them.

One list for every layer: the sandbox validates and advances accounts with it, the screens show
and filter by it. Neither layer may import the other, so it lives here, beside `tags` and `cards`.
"""

from __future__ import annotations

BOARDING_STATUSES: tuple[str, ...] = (
    "draft",
    "submitted",
    "in_review",
    "info_required",
    "approved",
    "declined",
    "suspended",
    "closed",
)
