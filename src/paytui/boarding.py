"""The boarding statuses of a payment account *in the sandbox*, in the order an account moves
through them. The spec shows no status values ("Account boarding status values and their
transitions: not shown"): these are the sandbox's choice, not a rule of the service.

The sandbox validates and advances accounts with this list; the screens offer it as filters and
give its values a colour and a meaning, and show any other status a service sends as it comes
(`paytui.ui.format.boarding_statuses`). No layer refuses an action for an account's status.
Neither layer may import the other, so it lives here, beside `tags` and `cards`.
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
