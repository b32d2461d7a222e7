"""Reading the service back to settle an action whose outcome is unknown.

When a capture or refund times out, the connection drops after sending, or the service answers
5xx, the request may or may not have been applied. Sending it again could capture or refund twice,
so instead we *look*: each operation leaves a trace we can find without ambiguity.

- capture: the capture is a new charge whose ``original_charge_id`` is the authorization (and
  the authorization gains ``captured_charge_id``).
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
- token_create: a token carries no attributes; the account's tokens are listed for exactly one of
  this card (last four, expiry, holder) that is not among those it held before the request (kept
  in the journal as digests; `paytui.actions.tokens`).
- token_update (PUT, idempotent): the token shows the fields sent.

"Not found" proves "not applied" only when the read-back started after the request deadline
(plus a margin) since the request was sent: before that a commit may still be in flight, and the
verdict stays "unknown" (with `checked_at`, so the next look knows). A found trace proves
"succeeded" at any time.

A "not applied" verdict is only given after a *complete* search: if the service ignored a filter
and the search would have to scan more than a few pages, the verdict stays "unknown". Matches are
also checked client-side, so a service that ignores an unknown filter cannot produce a false
"succeeded" either. A failed read-back leaves the entry "unknown"; nothing is ever resent here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

from paytui.actions import tokens
from paytui.actions.journal import UNRESOLVED_STATES, Journal, JournalEntry
from paytui.api.captures import find_capture
from paytui.api.errors import ApiError, NotFoundError
from paytui.api.models import Account, Charge, Page, Refund
from paytui.api.queries import ChargeQuery, RefundQuery

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

__all__ = [
    "REF_ATTRIBUTE",
    "ReadBack",
    "distribution_items",
    "read_back",
    "reconcile",
    "reconcile_all",
    "reconcile_detail",
]

#: The attribute key carrying the journal's client reference on refunds and charges we create.
REF_ATTRIBUTE = "paytui_ref"
#: How many pages a read-back may scan before it gives up on proving "not applied".
MAX_PAGES = 5
#: States a reconciliation may overwrite. "not_applied" is included so a later look can still
#: discover a late commit (and so `retry` can re-verify before it sends).
RECONCILABLE = frozenset(UNRESOLVED_STATES | {"not_applied"})

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


async def read_back(
    client: PaymentClient, entry: JournalEntry, *, desired: dict[str, Any] | None = None
) -> ReadBack:
    """Look for the trace of `entry` on the service. Raises `ApiError` (reads failed) or
    `Unprovable`. `desired` overrides the journal's summary for update_charge (the executor
    still holds the unmasked values), and for token_create / token_update."""
    operation = entry.operation
    ref = entry.client_reference
    if operation == "capture":
        # The one proof of a capture (`paytui.api.captures.find_capture`): the sandbox's link on
        # the authorization, a search by original_charge_id, or, where the service refuses that
        # parameter, every charge read newest first back to the authorization's time.
        auth = await client.get_charge(entry.charge_id or "")
        lookup = await find_capture(client, auth, thorough=True)
        if lookup.capture_id is not None:
            capture = lookup.capture
            amount = capture.total_amount if capture is not None else None
            return ReadBack("succeeded", lookup.capture_id, amount, charge=capture)
        if not lookup.proven:
            raise Unprovable(f"cannot tell whether it was captured: {lookup.describe()}")
        return ReadBack("not_applied")
    if operation == "refund":
        refund_query = RefundQuery(charge_id=entry.charge_id, attributes=((REF_ATTRIBUTE, ref),))
        blind: list[str] = []
        async for refund in _scan(client.search_refunds(refund_query, page_size=50)):
            # Our reference is ours alone: a refund carrying it is this one, whether or not
            # the row names its charge (one naming another charge is not).
            if refund.charge_id in (None, entry.charge_id) and _has_ref(refund.attributes, ref):
                return ReadBack("succeeded", refund.refund_id, refund.total_amount, refund=refund)
            if refund.charge_id in (None, entry.charge_id) and "attributes" not in (
                refund.model_fields_set
            ):
                # A refund of this charge (or of an unnamed one) sent without its attributes:
                # it may be ours, and nothing here can tell. Only what carries our reference
                # is ours; an earlier refund of the same charge must never pass for it.
                blind.append(refund.refund_id)
        if blind:
            raise Unprovable(
                f"the service lists {len(blind)} refund(s) of this charge without their"
                f" attributes ({', '.join(blind[:3])}): cannot tell whether one is this one"
            )
        return ReadBack("not_applied")
    if operation == "charge":
        account = entry.request_summary.get("account_id")
        charge_query = ChargeQuery(attributes=((REF_ATTRIBUTE, ref),), account_id=account)
        async for charge in _scan(client.search_charges(charge_query, page_size=50)):
            if _has_ref(charge.attributes, ref):
                return ReadBack("succeeded", charge.charge_id, charge.total_amount, charge=charge)
        return ReadBack("not_applied")
    if operation in ("update_charge", "update_refund"):
        wanted = desired if desired is not None else entry.request_summary
        if desired is None and wanted.get("redacted"):
            raise Unprovable("the journal holds only a masked copy of the change")
        target = entry.charge_id or ""
        try:
            found: Charge | Refund = (
                await client.get_refund(target)
                if operation == "update_refund"
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
    if operation == "distribute":
        charge_id = entry.charge_id or ""
        before = int(entry.request_summary.get("items_before", 0))
        charge = await client.get_charge(charge_id, expand="distributions")
        if distribution_items(charge) > before:
            holding = [
                dist.distribution_id
                for dist in charge.distributions or []
                if any(item.charge_id == charge_id for item in dist.items or [])
            ]
            return ReadBack("succeeded", holding[-1], charge=charge)
        return ReadBack("not_applied")
    if operation == "plugin_session":
        async for session in _scan(client.list_plugin_sessions(page_size=100)):
            if _has_ref(session.attributes, ref):
                return ReadBack("succeeded", session.session_id, result=session)
        return ReadBack("not_applied")
    if operation == "plugin_delete":
        session_id = str(entry.request_summary.get("session_id", ""))
        try:
            await client.get_plugin_session(session_id)
        except NotFoundError:
            return ReadBack("succeeded", session_id)
        return ReadBack("not_applied")
    if operation == "account_create":
        merchant = entry.request_summary.get("merchant_id")
        async for account in _scan(_accounts(client, merchant)):
            if account.merchant_id == merchant and _has_ref(account.attributes, ref):
                return ReadBack("succeeded", account.account_id, result=account)
        return ReadBack("not_applied")
    if operation in ("token_create", "token_update"):
        try:
            if operation == "token_create":
                return await tokens.read_back_create(client, entry, desired)
            return await tokens.read_back_update(client, entry, desired)
        except tokens.TokensUnprovable as err:
            raise Unprovable(str(err)) from err
    raise Unprovable(f"cannot read back a {operation!r}")


async def _accounts(client: PaymentClient, merchant_id: str | None) -> AsyncIterator[Page[Account]]:
    """Every page of a merchant's accounts."""
    offset = 0
    while True:
        page = await client.list_accounts_page(merchant_id=merchant_id, limit=100, offset=offset)
        yield page
        if not page.has_more or not page.items:
            return
        offset = page.next_offset


def distribution_items(charge: Charge) -> int:
    """How many distribution items name this charge (a distribute adds one)."""
    return sum(
        1
        for dist in charge.distributions or []
        for item in dist.items or []
        if item.charge_id == charge.charge_id
    )


@dataclass(frozen=True)
class Reconciled:
    """The journal entry after reconciliation, with what the read-back found (if it worked)."""

    entry: JournalEntry
    found: ReadBack | None
    error: str | None


def _utcnow() -> datetime:
    return datetime.now(UTC)


#: Settle time assumed for an entry that did not record its own (a schema-1 journal).
DEFAULT_SETTLE_SECONDS = 12.0


async def reconcile_detail(
    client: PaymentClient,
    journal: Journal,
    entry: JournalEntry,
    *,
    desired: dict[str, Any] | None = None,
    clock: Callable[[], datetime] = _utcnow,
    default_settle: float = DEFAULT_SETTLE_SECONDS,
    background: bool = False,
    orphaned_before: datetime | None = None,
) -> Reconciled:
    """Settle one entry and record the verdict (compare-and-set: a verdict recorded meanwhile by
    someone else wins). Entries already succeeded or failed are returned unchanged.

    Nothing found proves "not_applied" only when the read-back started at or after the entry's
    `settle_at` (`clock` is the executor's); earlier it leaves the entry "unknown". A not-applied
    verdict turned into "succeeded" says so in its message. `background`: nobody is shown this
    verdict now (start-up, the check before a repeat), so a success is marked unacknowledged.
    `orphaned_before`: when the reading process started. An entry still "sent" was left by a
    process that died mid-request; its request left at some moment before then, not
    necessarily at `sent_at`, so its window is measured from then (and kept in the journal).
    """
    if entry.state not in RECONCILABLE:
        return Reconciled(entry, None, None)
    window = _orphan_window(entry, orphaned_before, default_settle)
    if window is not None:
        entry = replace(entry, settle_seconds=window)
    # To the millisecond, as the journal stores it: the verdict is judged on the `checked_at`
    # that is written, so a later `proven()` of the same entry can never disagree with it.
    started = clock()
    started = started.replace(microsecond=started.microsecond // 1000 * 1000)
    try:
        found = await read_back(client, entry, desired=desired)
    except (ApiError, Unprovable) as err:
        message = f"Could not check whether it happened: {err}"
        await asyncio.to_thread(
            journal.transition,
            entry.id,
            "unknown",
            expected=UNRESOLVED_STATES,
            error=message,
            settle_seconds=window,
        )
        current = await asyncio.to_thread(journal.get, entry.id)
        return Reconciled(current or entry, None, message)
    state = found.state
    settle = entry.settle_at(default_settle)
    if state == "succeeded":
        note = None
        if entry.state == "not_applied":
            note = "Corrected: an earlier check found nothing, but the service did apply it"
    elif settle is None or started >= settle:
        note = "Checked with the service: it did not happen"
    else:
        state = "unknown"
        note = (
            f"Not found yet at {started:%H:%M:%S}; a commit still in flight could show until"
            f" {settle:%H:%M:%S} UTC — checking again then proves it"
        )
    await asyncio.to_thread(
        journal.transition,
        entry.id,
        state,
        expected=RECONCILABLE,
        result_id=found.result_id,
        amount=found.amount,
        error=note,
        checked_at=started,
        unacknowledged=background if state == "succeeded" else None,
        settle_seconds=window,
    )
    current = await asyncio.to_thread(journal.get, entry.id)
    return Reconciled(current or entry, found if state != "unknown" else None, None)


def _orphan_window(
    entry: JournalEntry, orphaned_before: datetime | None, default_settle: float
) -> float | None:
    """The settle time of an orphaned "sent" entry measured from `orphaned_before` (when it is
    longer than the entry's own), else None."""
    if entry.state != "sent" or entry.sent_at is None or orphaned_before is None:
        return None
    own = entry.settle_seconds if entry.settle_seconds is not None else default_settle
    window = (orphaned_before - entry.sent_at).total_seconds() + own
    return window if window > own else None


async def reconcile(client: PaymentClient, journal: Journal, entry: JournalEntry) -> str:
    """Settle one entry by reading the service back; returns its state afterwards:
    "succeeded", "not_applied", or still "unknown" when the read-back itself failed."""
    return (await reconcile_detail(client, journal, entry)).entry.state


async def reconcile_all(
    client: PaymentClient,
    journal: Journal,
    *,
    profile: str,
    base_url: str,
    skip: frozenset[int] = frozenset(),
    clock: Callable[[], datetime] = _utcnow,
    default_settle: float = DEFAULT_SETTLE_SECONDS,
    orphaned_before: datetime | None = None,
) -> list[JournalEntry]:
    """Start-up: settle every entry of this profile and service whose outcome is not proven —
    unresolved ones and "not_applied" verdicts read back too early (others are left for when
    that profile is used: their service is not the one `client` talks to). `skip`: ids of
    entries still in flight in this process. Returns the entries after reconciliation."""
    pending = await asyncio.to_thread(
        journal.to_check, default_settle, profile=profile, base_url=base_url
    )
    results: list[JournalEntry] = []
    for entry in pending:
        if entry.id in skip:
            continue
        settled = await reconcile_detail(
            client,
            journal,
            entry,
            clock=clock,
            default_settle=default_settle,
            background=True,
            orphaned_before=orphaned_before,
        )
        results.append(settled.entry)
    return results
