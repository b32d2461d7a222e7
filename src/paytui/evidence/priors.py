"""The prior-charge finder: the merchant's own history that wins a card-absent fraud case.

Visa's Compelling Evidence 3.0 (docs/evidence.md) lets a merchant answer a card-absent fraud
dispute (10.4) with **two prior undisputed charges** of the same card or customer, made 120 to
365 days before the disputed one, each matching it on at least two data elements, one of them
the IP address or the device id. This module finds every such candidate in the service's charges
and names what matches, or says exactly what is missing.

A candidate is a charge that the service's own rows *show* to be:

- dated 120 to 365 days before the disputed charge (both ends included);
- the same card (the same stored card token, or the fingerprint: last four, expiry and holder all
  shown and equal; a charge shows no expiry in the spec, so a token's is read) or the same
  customer (a shared customer id or e-mail attribute);
- a charge that moved money (a sale or capture in a status paytui would refund: never a decline,
  an authorization or a zero-amount check), not disputed (no chargeback: the spec shows the
  `chargebacks` object whenever one occurred) and not returned;
- not refunded: its refunds read whole and none listed.

Every search is proven on its rows like every filter (`Page.proven`): a row that cannot show it
matches is not a candidate, and is counted in `notes`. The elements (IP, device, shipping
address, account, e-mail) are read from the attributes under the keys `ElementKeys` names (the
merchant's own names are configurable: `[evidence] attribute_keys`). CE 3.0 counts IP, device,
shipping address and account; a matching e-mail is named but not counted.

No Textual, no I/O but the client's reads.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.api.errors import ApiError
from paytui.api.queries import ChargeQuery, name_words

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

__all__ = [
    "CE3_ELEMENTS",
    "DEFAULT_ELEMENT_KEYS",
    "ELEMENTS",
    "ELEMENT_WORDS",
    "Prior",
    "PriorsResult",
    "element_values",
    "find_priors",
]

#: The elements a prior can match on, in the order they are named.
ELEMENTS: tuple[str, ...] = ("ip", "device", "shipping", "account", "email")
#: Those Compelling Evidence 3.0 counts (its "core data elements").
CE3_ELEMENTS: frozenset[str] = frozenset({"ip", "device", "shipping", "account"})
#: One of these must be among a CE 3.0 prior's matches.
CE3_REQUIRED: frozenset[str] = frozenset({"ip", "device"})
ELEMENT_WORDS: dict[str, str] = {
    "ip": "IP address",
    "device": "device id",
    "shipping": "shipping address",
    "account": "customer account",
    "email": "e-mail",
}
#: The attribute keys each element is read from (a merchant's own: `[evidence] attribute_keys`).
DEFAULT_ELEMENT_KEYS: Mapping[str, tuple[str, ...]] = {
    "ip": ("ip_address", "ip", "customer_ip", "client_ip"),
    "device": ("device_id", "device", "device_fingerprint"),
    "shipping": ("shipping_address", "ship_to", "delivery_address"),
    "account": ("customer_id", "customer_account", "login_id", "user_id"),
    "email": ("email", "customer_email", "email_address"),
}
#: Elements whose shared value makes two charges the same customer's.
CUSTOMER_ELEMENTS: tuple[str, ...] = ("account", "email")

#: The window, in days before the disputed charge (both ends included).
WINDOW_NEAR = 120
WINDOW_FAR = 365
#: Rows read at most per search, and charges whose refunds are read at once.
MAX_ROWS = 2000
PAGE = 100
CONCURRENCY = 4


@dataclass(frozen=True)
class Prior:
    """One candidate: what makes it the same card or customer, and what else matches."""

    charge_id: str
    charge_timestamp: datetime
    amount: Decimal | None
    #: How it is the same: ``token`` (same stored card), ``card`` (last four, expiry and
    #: holder), ``customer`` (a shared customer id or e-mail attribute).
    same: tuple[str, ...]
    #: The elements whose values match the disputed charge's (`ELEMENTS` order).
    matches: tuple[str, ...]

    @property
    def ce3(self) -> bool:
        """Does it count for CE 3.0: two counted elements, one of them IP or device?"""
        counted = CE3_ELEMENTS.intersection(self.matches)
        return len(counted) >= 2 and bool(CE3_REQUIRED & counted)

    def rank(self) -> tuple[int, int, int, float, str]:
        counted = CE3_ELEMENTS.intersection(self.matches)
        return (
            -int(self.ce3),
            -len(counted),
            -len(self.matches),
            -self.charge_timestamp.timestamp(),
            self.charge_id,
        )


@dataclass
class PriorsResult:
    """The finder's answer for one disputed charge."""

    window_from: datetime | None = None
    window_to: datetime | None = None
    #: Every candidate, best first.
    priors: list[Prior] = field(default_factory=list)
    #: What could not be used or read, in plain words (rows not proven, reads cut short).
    notes: list[str] = field(default_factory=list)
    #: The elements the disputed charge shows (a prior can match on these only).
    elements: tuple[str, ...] = ()
    #: The ways the same card or customer could be told (``token``, ``card``, ``customer``).
    ways: tuple[str, ...] = ()
    #: Everything was read: False when a read failed or was cut (then "none" is not proven).
    complete: bool = True

    @property
    def best(self) -> list[Prior]:
        """The two best candidates (fewer when fewer were found)."""
        return self.priors[:2]

    @property
    def qualifying(self) -> list[Prior]:
        return [prior for prior in self.priors if prior.ce3]

    @property
    def ce3_met(self) -> bool:
        return len(self.qualifying) >= 2

    def summary(self) -> str:
        """One sentence: what was found, or exactly what is missing."""
        day = (
            f" ({self.window_to:%Y-%m-%d} back to {self.window_from:%Y-%m-%d})"
            if (self.window_from and self.window_to)
            else ""
        )
        if not self.ways:
            return (
                "no prior can be looked for: the disputed charge shows no stored card token, no"
                " card (last four, expiry, holder) and no customer id or e-mail attribute"
            )
        count = len(self.priors)
        if count == 0:
            words = "no prior found: no undisputed, unrefunded charge of the same card or customer"
            words += f" 120 to 365 days before the disputed charge{day}"
            return words + ("" if self.complete else " among the charges that could be read")
        found = "one prior found" if count == 1 else f"{count} priors found"
        if self.ce3_met:
            names = "; ".join(_named(prior) for prior in self.best)
            return f"{found}; two match as Compelling Evidence 3.0 asks: {names}"
        if not CE3_REQUIRED & set(self.elements):
            return (
                f"{found}; the disputed charge shows no IP address or device id, so none can"
                " match on IP or device"
            )
        if not any(CE3_REQUIRED & set(prior.matches) for prior in self.priors):
            return f"{found}; none matches on IP or device"
        qualifying = self.qualifying
        if len(qualifying) == 1:
            return (
                f"{found}; only one matches on two elements with IP or device"
                f" ({_named(qualifying[0])}); Compelling Evidence 3.0 asks for two"
            )
        return f"{found}; none matches on two elements, one of them IP or device"


def _named(prior: Prior) -> str:
    words = ", ".join(ELEMENT_WORDS[name] for name in prior.matches) or "nothing else"
    return f"{prior.charge_id} of {prior.charge_timestamp:%Y-%m-%d} ({words})"


# --------------------------------------------------------------------------------------------
# What a charge shows
# --------------------------------------------------------------------------------------------


def _norm(element: str, value: str) -> str:
    text = " ".join(value.split()).casefold()
    if element == "shipping":
        return re.sub(r"[^0-9a-z]+", " ", text).strip()
    return text


def element_values(
    charge: Any, keys: Mapping[str, Iterable[str]] = DEFAULT_ELEMENT_KEYS, *, raw: bool = False
) -> dict[str, set[str]]:
    """The values of each element the charge's attributes show, by element: normalised for
    matching (case, spaces; an address's punctuation), or as stored (`raw`)."""
    attributes = getattr(charge, "attributes", None) or {}
    found: dict[str, set[str]] = {}
    for element in ELEMENTS:
        values = {
            value.strip() if raw else _norm(element, value)
            for key in keys.get(element, ())
            for value in attributes.get(key, ())
            if isinstance(value, str) and value.strip()
        }
        if values:
            found[element] = values
    return found


def _holder(charge: Any) -> tuple[str, ...]:
    return name_words(str(getattr(charge, "contact_name", "") or ""))


def _expiry(charge: Any, tokens: Mapping[str, str | None]) -> str | None:
    method = getattr(charge, "payment_method", None)
    shown = getattr(method, "expiration_date", None)
    if isinstance(shown, str) and shown.strip():
        return shown.strip()
    token_id = getattr(charge, "token_id", None)
    return tokens.get(token_id) if token_id else None


def _moved_money(charge: Any) -> bool:
    """A sale or capture the registry would refund: money moved (a status paytui does not know
    counts, as everywhere); never a decline, an authorization or a zero-amount check."""
    from paytui.actions.registry import why_not

    if getattr(charge, "status", None) in (None, "chargeback", "return"):
        return False
    amount = getattr(charge, "total_amount", None)
    if not isinstance(amount, Decimal) or amount <= 0:
        return False
    return why_not("refund", charge) is None


def _undisputed(charge: Any) -> bool:
    from paytui.charge_state import dispute_state

    return dispute_state(charge) == "none" and getattr(charge, "return_info", None) is None


# --------------------------------------------------------------------------------------------
# The finder
# --------------------------------------------------------------------------------------------


@dataclass
class _Search:
    """The rows of the searches, proven, by id (a row found twice is one row)."""

    rows: dict[str, Any] = field(default_factory=dict)
    unproven: int = 0
    cut: bool = False


async def _search(client: PaymentClient, query: ChargeQuery, found: _Search) -> None:
    offset = 0
    read = 0
    while True:
        page = await client.search_charges_page(query, limit=PAGE, offset=offset)
        for row in page.items:
            if page.proven(row.charge_id):
                found.rows.setdefault(row.charge_id, row)
            else:
                found.unproven += 1
        read += len(page.items)
        if page.paging_note:
            found.cut = True
            return
        if not page.has_more or page.next_offset <= offset:
            return
        if read >= MAX_ROWS:
            found.cut = True
            return
        offset = page.next_offset


async def _token_expiries(client: PaymentClient, ids: Iterable[str]) -> dict[str, str | None]:
    """The expiry each stored card shows (None: not shown, or the token cannot be read)."""
    expiries: dict[str, str | None] = {}
    for token_id in sorted(set(ids)):
        try:
            token = await client.get_token(token_id)
        except ApiError:
            expiries[token_id] = None
            continue
        value = getattr(token.payment_method, "expiration_date", None)
        expiries[token_id] = value.strip() if isinstance(value, str) and value.strip() else None
    return expiries


def _same(
    disputed: Any,
    row: Any,
    tokens: Mapping[str, str | None],
    customer: Mapping[str, set[str]],
    keys: Mapping[str, Iterable[str]],
) -> tuple[str, ...]:
    """How `row` shows it is the disputed charge's card or customer (empty: it does not)."""
    ways: list[str] = []
    token = getattr(disputed, "token_id", None)
    if token and getattr(row, "token_id", None) == token:
        ways.append("token")
    last4, holder, expiry = disputed.last4, _holder(disputed), _expiry(disputed, tokens)
    if (
        last4
        and holder
        and expiry
        and row.last4 == last4
        and _holder(row) == holder
        and _expiry(row, tokens) == expiry
    ):
        ways.append("card")
    values = element_values(row, keys)
    if any(customer.get(element, set()) & values.get(element, set()) for element in customer):
        ways.append("customer")
    return tuple(ways)


async def find_priors(
    client: PaymentClient,
    disputed: Any,
    *,
    keys: Mapping[str, Iterable[str]] = DEFAULT_ELEMENT_KEYS,
) -> PriorsResult:
    """Every prior of `disputed` (see the module), best first, with what could not be used."""
    from paytui.actions.basis import read_refunds
    from paytui.charge_state import refunds_position

    result = PriorsResult()
    at = getattr(disputed, "charge_timestamp", None)
    if not isinstance(at, datetime):
        result.notes.append("the disputed charge shows no time: no window to look in")
        result.complete = False
        return result
    start, end = at - timedelta(days=WINDOW_FAR), at - timedelta(days=WINDOW_NEAR)
    result.window_from, result.window_to = start, end
    mine = element_values(disputed, keys)
    result.elements = tuple(element for element in ELEMENTS if element in mine)
    customer = {element: mine[element] for element in CUSTOMER_ELEMENTS if element in mine}
    tokens: dict[str, str | None] = {}
    if disputed.token_id:
        tokens.update(await _token_expiries(client, [disputed.token_id]))
    ways: list[str] = []
    if disputed.token_id:
        ways.append("token")
    if disputed.last4 and _holder(disputed) and _expiry(disputed, tokens):
        ways.append("card")
    elif disputed.last4 and not disputed.token_id:
        result.notes.append(
            "the service shows no expiry for the disputed charge's card (the spec's charge has"
            " none, and it was not paid with a stored card): the same card is not told by its"
            " last four and holder alone"
        )
    if customer:
        ways.append("customer")
    result.ways = tuple(ways)
    if not ways:
        return result
    # Both ends included: `created_to` is exclusive on the wire.
    window = ChargeQuery(created_from=start, created_to=end + timedelta(milliseconds=1))
    queries: list[ChargeQuery] = []
    if ("token" in ways or "card" in ways) and disputed.last4:
        queries.append(window.evolve(last4=disputed.last4))
    for element, values in customer.items():
        for key in keys.get(element, ()):
            for value in (disputed.attributes or {}).get(key, ()):
                if _norm(element, value) in values:
                    queries.append(window.evolve(attributes=((key, value),)))
    found = _Search()
    try:
        for query in dict.fromkeys(queries):
            await _search(client, query, found)
    except ApiError as exc:
        result.notes.append(f"the charges could not be searched ({exc.message})")
        result.complete = False
    if found.unproven:
        rows = "1 row" if found.unproven == 1 else f"{found.unproven} rows"
        result.notes.append(f"{rows} could not show they match the search and are no candidates")
    if found.cut:
        result.notes.append(f"the search stopped after {MAX_ROWS} rows (or its paging broke)")
        result.complete = False
    # Rows paid with another stored card: their expiry, for the fingerprint.
    if "card" in ways:
        others = {
            row.token_id
            for row in found.rows.values()
            if row.token_id
            and row.token_id not in tokens
            and row.last4 == disputed.last4
            and _holder(row) == _holder(disputed)
        }
        tokens.update(await _token_expiries(client, others))
    candidates: list[tuple[Any, tuple[str, ...]]] = []
    for row in found.rows.values():
        when = row.charge_timestamp
        if row.charge_id == disputed.charge_id or not isinstance(when, datetime):
            continue
        if not start <= when <= end or not _moved_money(row) or not _undisputed(row):
            continue
        same = _same(disputed, row, tokens, customer, keys)
        if same:
            candidates.append((row, same))
    gate = asyncio.Semaphore(CONCURRENCY)

    async def refunded(row: Any) -> bool | None:
        async with gate:
            try:
                refunds = await read_refunds(client, row.charge_id)
            except ApiError:
                return None
        position = refunds_position(row.charge_id, row.total_amount, refunds)
        return None if not position.complete else position.count > 0

    verdicts = await asyncio.gather(*(refunded(row) for row, _ in candidates))
    unread = 0
    for (row, same), verdict in zip(candidates, verdicts, strict=True):
        if verdict is None:
            unread += 1
            continue
        if verdict:
            continue
        theirs = element_values(row, keys)
        matches = tuple(e for e in ELEMENTS if mine.get(e, set()) & theirs.get(e, set()))
        result.priors.append(
            Prior(row.charge_id, row.charge_timestamp, row.total_amount, same, matches)
        )
    if unread:
        result.notes.append(
            f"{unread} charge(s) of the same card or customer left out: their refunds could not"
            " be read whole"
        )
        result.complete = False
    result.priors.sort(key=Prior.rank)
    return result
