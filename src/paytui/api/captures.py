"""Finding the capture of an authorization, trusting only what the service says.

The spec shows one link between the two: the capture carries `original_charge_id` equal to the
authorization's `charge_id`. The search parameter `original_charge_id` is this client's guess
(`docs/api-assumptions.md`); a service that ignores unknown parameters answers with unrelated
charges. So a charge is named as the capture only when its own `original_charge_id` says so, and
"not captured" is claimed only when the service visibly honoured the filter. The sandbox's
`captured_charge_id` on the authorization (not in the spec) is a shortcut to "captured" at most.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paytui.api.errors import ValidationError
from paytui.api.queries import ChargeQuery

if TYPE_CHECKING:
    from datetime import datetime

    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge

__all__ = ["CaptureLookup", "find_capture"]

#: Pages of a search that ignores the filter read before giving up (each `PAGE_SIZE` charges).
MAX_PAGES = 2
PAGE_SIZE = 20
#: Pages of every charge read, newest first, when the service refuses the filter itself.
SCAN_PAGES = 10
SCAN_PAGE_SIZE = 100


@dataclass(frozen=True)
class CaptureLookup:
    """What is known of an authorization's capture."""

    #: The capture's id: a charge whose `original_charge_id` is the authorization (or the
    #: sandbox's `captured_charge_id`). None: none found.
    capture_id: str | None
    #: True when the answer is proven: a capture found, or a search the service visibly honoured
    #: came back without one. False: the service ignored the filter and nothing was found.
    proven: bool
    #: The capture as the search returned it, when it did.
    capture: Charge | None = None

    @property
    def captured(self) -> bool:
        return self.capture_id is not None

    def describe(self) -> str:
        """One line for a screen: the capture, "not captured yet" or why it is unknown."""
        if self.capture_id is not None:
            return self.capture_id
        if self.proven:
            return "not captured yet"
        return "unknown (the service ignored the original_charge_id filter)"


async def find_capture(
    client: PaymentClient, authorization: Any, *, thorough: bool = False
) -> CaptureLookup:
    """The capture of `authorization` (a `Charge` or its id). Raises `ApiError` when reads fail.

    A service that refuses the `original_charge_id` parameter is read without it
    (`_scan_for_capture`); so is one that ignores it, when `thorough` (the executor's check
    before a capture and its read-back: up to `SCAN_PAGES` pages rather than `MAX_PAGES`)."""
    auth_id = authorization if isinstance(authorization, str) else authorization.charge_id
    shortcut = None if isinstance(authorization, str) else authorization.captured_charge_id
    if shortcut:
        return CaptureLookup(str(shortcut), proven=True)
    query = ChargeQuery(original_charge_id=auth_id)
    honoured = True
    offset = 0
    for _ in range(MAX_PAGES):
        try:
            page = await client.search_charges_page(query, limit=PAGE_SIZE, offset=offset)
        except ValidationError:
            # The service refuses the parameter (a 400 / 422 on a guess of ours): the same
            # proof, found another way.
            return await _scan_for_capture(client, auth_id, _since(authorization))
        for charge in page.items:
            if charge.original_charge_id == auth_id:
                return CaptureLookup(charge.charge_id, proven=True, capture=charge)
        # Checked on the rows themselves (`Page.ignored_filters`): a row that is no capture of
        # this authorization shows the service ignored the filter (and was left out).
        ignored = {*page.ignored_filters, *query.ignored_by(page.items)}
        if page.paging_note and not page.items:
            return CaptureLookup(None, proven=False)  # a list that did not read to its end
        if "original_charge_id" not in ignored:
            # The service honoured the filter (nothing contradicts it): no item, no capture.
            # Unreadable items may hide it, though: then nothing is proven.
            return CaptureLookup(None, proven=honoured and not page.unreadable)
        if thorough:
            return await _scan_for_capture(client, auth_id, _since(authorization))
        honoured = False
        if not page.has_more or page.next_offset <= offset:
            break
        offset = page.next_offset
    return CaptureLookup(None, proven=False)


def _since(authorization: Any) -> datetime | None:
    """The authorization's own time, when it is a charge that shows one."""
    return None if isinstance(authorization, str) else authorization.charge_timestamp


async def _scan_for_capture(
    client: PaymentClient, auth_id: str, since: datetime | None
) -> CaptureLookup:
    """The capture of `auth_id` among every charge, read without a filter, newest first: found
    (its `original_charge_id` names the authorization), or proven absent when the whole list
    was read, or when the rows, checked to be newest first, went past the authorization's own
    time (a capture comes after it). At most `SCAN_PAGES` pages; beyond that, nothing proven."""
    offset = 0
    previous: datetime | None = None
    in_order = True
    unreadable = False
    for _ in range(SCAN_PAGES):
        page = await client.search_charges_page(None, limit=SCAN_PAGE_SIZE, offset=offset)
        unreadable = unreadable or bool(page.unreadable)
        for charge in page.items:
            if charge.original_charge_id == auth_id:
                return CaptureLookup(charge.charge_id, proven=True, capture=charge)
            stamp = charge.charge_timestamp
            if stamp is not None:
                in_order = in_order and (previous is None or stamp <= previous)
                previous = stamp
        if page.paging_note:  # stopped before its end (a repeated page): nothing proven
            return CaptureLookup(None, proven=False)
        if not page.has_more or page.next_offset <= offset:
            return CaptureLookup(None, proven=not unreadable)
        if in_order and since is not None and previous is not None and previous < since:
            return CaptureLookup(None, proven=not unreadable)
        offset = page.next_offset
    return CaptureLookup(None, proven=False)
