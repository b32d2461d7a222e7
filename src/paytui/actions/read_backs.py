"""How each operation is proven to have happened, or not: the service read back.

When a request's outcome is unknown (a timeout, a dropped connection, a 5xx), sending it again
could do it twice, so instead we *look*: each operation leaves a trace we can find without
ambiguity. One function per operation, named in its spec (`paytui.actions.operations`):

- capture: the capture is a new charge whose ``original_charge_id`` is the authorization (and
  the sandbox's authorization gains ``captured_charge_id``): `paytui.api.captures.find_capture`.
- refund: every refund we send carries the attribute ``paytui_ref: [<client reference>]``;
  ``GET /v2/refunds?charge_id=<id>&attribute=paytui_ref=<ref>`` finds exactly it.
- charge: likewise ``GET /v2/charges?attribute=paytui_ref=<ref>``.
- update_charge / update_refund (PATCH, idempotent): the charge's (refund's) tags/attributes
  equal what we sent.
- distribute: the charge appears in more distribution items than before the request
  (``GET /v2/charges/<id>?expand=distributions``; the count before is in the journal).
- plugin_session: the session carries ``paytui_ref`` in its attributes; ``GET /v2/plugins`` is
  scanned for it (the list takes no filter paytui knows of).
- plugin_delete (DELETE, idempotent): ``GET /v2/plugins/<id>`` answers 404 once it is gone.
- account_create: the account carries ``paytui_ref``; the merchant's accounts are scanned.
- token_create / token_update: `paytui.actions.tokens` (a token carries no attributes).

Each raises `ApiError` (a read failed) or `Unprovable`. A search is complete or says so: at most
`MAX_PAGES` pages, and a list that stopped early (the service ignores paging) proves nothing
missing. Matches are checked here, so a service that ignores a filter cannot produce a false
"succeeded" either. When "not found" may be trusted as "not applied" is `reconcile`'s business.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

from paytui.api.captures import find_capture
from paytui.api.errors import NotFoundError
from paytui.api.models import Account, Charge, Page, Refund
from paytui.api.queries import ChargeQuery, RefundQuery

if TYPE_CHECKING:
    from paytui.actions.journal import JournalEntry
    from paytui.api.client import PaymentClient

__all__ = ["MAX_PAGES", "REF_ATTRIBUTE", "ReadBack", "Unprovable", "distribution_items"]

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


async def _scan(pages: AsyncIterator[Page[T]]) -> AsyncIterator[T]:
    """Items of at most MAX_PAGES pages; `Unprovable` if there would be more."""
    count = 0
    async for page in pages:
        count += 1
        for item in page.items:
            yield item
        if page.paging_note:
            # The list stopped before its end (a repeated page: the service ignores paging):
            # not having seen it is no proof that it is not there.
            raise Unprovable(f"the list could not be read to its end: {page.paging_note}")
        if count >= MAX_PAGES and page.has_more:
            raise Unprovable("too many results to be sure")


def _has_ref(attributes: dict[str, list[str]], reference: str) -> bool:
    return reference in attributes.get(REF_ATTRIBUTE, [])


async def capture(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    """The one proof of a capture (`find_capture`): the sandbox's link on the authorization, a
    search by original_charge_id, or, where the service refuses that parameter, every charge
    read newest first back to the authorization's time."""
    auth = await client.get_charge(entry.charge_id or "")
    lookup = await find_capture(client, auth, thorough=True)
    if lookup.capture_id is not None:
        found = lookup.capture
        amount = found.total_amount if found is not None else None
        return ReadBack("succeeded", lookup.capture_id, amount, charge=found)
    if not lookup.proven:
        raise Unprovable(f"cannot tell whether it was captured: {lookup.describe()}")
    return ReadBack("not_applied")


async def refund(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    ref = entry.client_reference
    query = RefundQuery(charge_id=entry.charge_id, attributes=((REF_ATTRIBUTE, ref),))
    blind: list[str] = []
    async for found in _scan(client.search_refunds(query, page_size=50)):
        # Our reference is ours alone: a refund carrying it is this one, whether or not the row
        # names its charge (one naming another charge is not).
        if found.charge_id in (None, entry.charge_id) and _has_ref(found.attributes, ref):
            return ReadBack("succeeded", found.refund_id, found.total_amount, refund=found)
        if found.charge_id in (None, entry.charge_id) and "attributes" not in (
            found.model_fields_set
        ):
            # A refund of this charge (or of an unnamed one) sent without its attributes: it
            # may be ours, and nothing here can tell. Only what carries our reference is ours;
            # an earlier refund of the same charge must never pass for it.
            blind.append(found.refund_id)
    if blind:
        raise Unprovable(
            f"the service lists {len(blind)} refund(s) of this charge without their"
            f" attributes ({', '.join(blind[:3])}): cannot tell whether one is this one"
        )
    return ReadBack("not_applied")


async def charge(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    ref = entry.client_reference
    account = entry.request_summary.get("account_id")
    query = ChargeQuery(attributes=((REF_ATTRIBUTE, ref),), account_id=account)
    async for found in _scan(client.search_charges(query, page_size=50)):
        if _has_ref(found.attributes, ref):
            return ReadBack("succeeded", found.charge_id, found.total_amount, charge=found)
    return ReadBack("not_applied")


async def labels(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    """update_charge / update_refund: the object shows the tags and attributes sent.

    `desired` (the executor still holds the unmasked values) overrides the journal's summary."""
    wanted = desired if desired is not None else entry.request_summary
    if desired is None and wanted.get("redacted"):
        raise Unprovable("the journal holds only a masked copy of the change")
    target = entry.charge_id or ""
    try:
        found: Charge | Refund = (
            await client.get_refund(target)
            if entry.operation == "update_refund"
            else await client.get_charge(target)
        )
    except NotFoundError:
        return ReadBack("not_applied")
    same_tags = "tags" not in wanted or list(found.tags) == list(wanted["tags"])
    same_attrs = "attributes" not in wanted or found.attributes == wanted["attributes"]
    if not (same_tags and same_attrs):
        return ReadBack("not_applied")
    if isinstance(found, Refund):
        return ReadBack("succeeded", found.refund_id, refund=found)
    return ReadBack("succeeded", found.charge_id, charge=found)


async def distribute(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    charge_id = entry.charge_id or ""
    before = int(entry.request_summary.get("items_before", 0))
    found = await client.get_charge(charge_id, expand="distributions")
    if distribution_items(found) > before:
        holding = [
            dist.distribution_id
            for dist in found.distributions or []
            if any(item.charge_id == charge_id for item in dist.items or [])
        ]
        return ReadBack("succeeded", holding[-1], charge=found)
    return ReadBack("not_applied")


async def plugin_session(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    async for session in _scan(client.list_plugin_sessions(page_size=100)):
        if _has_ref(session.attributes, entry.client_reference):
            return ReadBack("succeeded", session.session_id, result=session)
    return ReadBack("not_applied")


async def plugin_delete(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    session_id = str(entry.request_summary.get("session_id", ""))
    try:
        await client.get_plugin_session(session_id)
    except NotFoundError:
        return ReadBack("succeeded", session_id)
    return ReadBack("not_applied")


async def account_create(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    merchant = entry.request_summary.get("merchant_id")
    async for account in _scan(_accounts(client, merchant)):
        if account.merchant_id == merchant and _has_ref(account.attributes, entry.client_reference):
            return ReadBack("succeeded", account.account_id, result=account)
    return ReadBack("not_applied")


async def token_create(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    from paytui.actions import tokens

    try:
        return await tokens.read_back_create(client, entry, desired)
    except tokens.TokensUnprovable as err:
        raise Unprovable(str(err)) from err


async def token_update(
    client: PaymentClient, entry: JournalEntry, desired: dict[str, Any] | None
) -> ReadBack:
    from paytui.actions import tokens

    try:
        return await tokens.read_back_update(client, entry, desired)
    except tokens.TokensUnprovable as err:
        raise Unprovable(str(err)) from err


async def _accounts(client: PaymentClient, merchant_id: str | None) -> AsyncIterator[Page[Account]]:
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
