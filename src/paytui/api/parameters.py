"""The names a service gives the filters of its lists, where the spec does not show them.

The spec shows `status` and tag/attribute searching for `GET /v2/charges`, and not even their
parameter names (docs/api-assumptions.md, "GET /v2/charges query parameters"). paytui sends each
filter under its own name (`ChargeQuery.to_params`, `RefundQuery.to_params`) unless the profile
says otherwise (`[profiles.NAME.parameters]`, docs/configuration.md): another name, or none at
all — then the filter is not sent and is applied here, on the rows read, like a filter the service
ignored (`PaymentClient._page`).

Only the standard library here: the config layer imports these names at start-up.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

__all__ = [
    "CHARGE_FILTERS",
    "PAGING_PARAMETERS",
    "REFUND_FILTERS",
    "ParameterNames",
    "check_parameter_name",
    "on_the_wire",
]

#: The filters of `GET /v2/charges`, by paytui's name, in the order they are sent.
CHARGE_FILTERS: tuple[str, ...] = (
    "status",
    "tag",
    "attribute",
    "account_id",
    "merchant_id",
    "created_from",
    "created_to",
    "min_amount",
    "max_amount",
    "method",
    "last4",
    "charge_type",
    "captured",
    "original_charge_id",
    "charge_id",
    "contact_name",
    "sort",
)
#: The filters of `GET /v2/refunds`, by paytui's name, in the order they are sent.
REFUND_FILTERS: tuple[str, ...] = (
    "charge_id",
    "account_id",
    "tag",
    "attribute",
    "created_from",
    "created_to",
)
#: Parameters of paging (`paytui.api.paging`): no filter may be sent under one of these names.
PAGING_PARAMETERS = frozenset({"limit", "offset", "page", "per_page", "cursor"})

#: paytui's filter name -> the service's parameter name, or None: not sent, applied here. A
#: filter left out keeps its own name.
ParameterNames = Mapping[str, str | None]

#: A query parameter name as services spell them: `status`, `created.gte`, `filter[status]`.
_NAME = re.compile(r"[A-Za-z0-9_.\-\[\]]{1,64}")


def check_parameter_name(name: str) -> str:
    """`name` when a service can take it as a query parameter name; else `ValueError`."""
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"{name!r} is not a query parameter name (1 to 64 letters, digits, '_', '.', '-',"
            " '[', ']')"
        )
    if name in PAGING_PARAMETERS:
        raise ValueError(f"{name!r} is a paging parameter, not a filter's")
    return name


def on_the_wire(
    params: Sequence[tuple[str, str]], names: ParameterNames, left_out: Collection[str] = ()
) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The filters of `params` (paytui's names) to send, as (paytui's name, the service's name,
    value), and the names of those not sent: `names` maps them to None, or they are in
    `left_out` (the service refused them this session)."""
    sent: list[tuple[str, str, str]] = []
    unsent: list[str] = []
    for name, value in params:
        wire = names.get(name, name)
        if wire is None or name in left_out:
            unsent.append(name)
        else:
            sent.append((name, wire, value))
    return sent, list(dict.fromkeys(unsent))
