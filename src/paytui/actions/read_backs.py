"""The kit every read-back uses: what it answers, how it searches, how it knows ours.

When a request's outcome is unknown (a timeout, a dropped connection, a 5xx), sending it again
could do it twice, so instead the service is read back: each operation leaves a trace that can
be found without ambiguity, and its own module (`paytui.actions.ops`) says which:

- capture: the capture is a new charge whose ``original_charge_id`` is the authorization (and
  the sandbox's authorization gains ``captured_charge_id``): `paytui.api.captures.find_capture`.
- refund, charge, plugin_session, account_create: what we create carries the attribute
  ``paytui_ref: [<client reference>]`` (`REF_ATTRIBUTE`), searched for and checked here.
- update_charge / update_refund, token_update (idempotent): the object shows what was sent.
- distribute: the charge appears in more distribution items than before the request.
- plugin_delete (idempotent): the session answers 404 once it is gone.
- token_create: exactly one new token of this card (`paytui.actions.tokens`).
- close_conversation: the conversation's status says closed; send_message: its `paytui_ref`, or
  exactly its text from our side since the intent (`paytui.actions.ops.conversation`).

A read-back raises `ApiError` (a read failed) or `Unprovable`. A search is complete or says so:
at most `MAX_PAGES` pages, and a list that stopped early (the service ignores paging) proves
nothing missing. Matches are checked here, so a service that ignores a filter cannot produce a
false "succeeded" either. When "not found" may be trusted as "not applied" is `reconcile`'s
business.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

from paytui.api.models import Account, Charge, Page, Refund

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

__all__ = [
    "MAX_PAGES",
    "REF_ATTRIBUTE",
    "ReadBack",
    "Unprovable",
    "distribution_items",
    "has_ref",
    "merchant_accounts",
    "scan",
]

#: The attribute key carrying the journal's client reference on refunds and charges we create.
REF_ATTRIBUTE = "paytui_ref"
#: How many pages a read-back may scan before it gives up on proving "not applied".
MAX_PAGES = 5

T = TypeVar("T")


class Unprovable(Exception):
    """The read-back could not prove either way (search too large, details masked)."""


@dataclass(frozen=True)
class ReadBack:
    """What the service shows: `state` is "succeeded" or "not_applied"."""

    state: str
    result_id: str | None = None
    amount: Decimal | None = None
    charge: Charge | None = None
    refund: Refund | None = None
    #: The plugin session or account found, for those operations.
    result: Any = None


async def scan(
    pages: AsyncIterator[Page[T]], *, unreadable_unprovable: bool = True
) -> AsyncIterator[T]:
    """Items of at most MAX_PAGES pages; `Unprovable` if there would be more.

    A row the client could not read (`Page.unreadable`) may be the one searched for: when the
    search reaches the end without its caller having found it, that is no proof that it is not
    there, and `Unprovable` says so instead of letting "not applied" invite a second send.
    (`unreadable_unprovable=False`: the caller weighs unreadable rows itself.)"""
    count = 0
    unreadable: list[str] = []
    async for page in pages:
        count += 1
        for item in page.items:
            yield item
        unreadable += [row.id or f"row {row.position + 1}" for row in page.unreadable]
        if page.paging_note:
            # The list stopped before its end (a repeated page: the service ignores paging):
            # not having seen it is no proof that it is not there.
            raise Unprovable(f"the list could not be read to its end: {page.paging_note}")
        if count >= MAX_PAGES and page.has_more:
            raise Unprovable("too many results to be sure")
    if unreadable and unreadable_unprovable:
        raise Unprovable(
            f"{len(unreadable)} row(s) of the list could not be read ({', '.join(unreadable[:3])}):"
            " one of them may be this action"
        )


def has_ref(attributes: dict[str, list[str]], reference: str) -> bool:
    return reference in attributes.get(REF_ATTRIBUTE, [])


async def merchant_accounts(
    client: PaymentClient, merchant_id: str | None
) -> AsyncIterator[Page[Account]]:
    """Every page of a merchant's accounts."""
    offset = 0
    while True:
        page = await client.list_accounts_page(merchant_id=merchant_id, limit=100, offset=offset)
        yield page
        if not page.has_more or not page.items:
            return
        offset = page.next_offset


def distribution_items(found: Charge) -> int:
    """How many distribution items name this charge (a distribute adds one)."""
    return sum(
        1
        for dist in found.distributions or []
        for item in dist.items or []
        if item.charge_id == found.charge_id
    )
