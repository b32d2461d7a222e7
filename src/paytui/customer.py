"""One customer, one screen: a customer's charges, refunds, tokens and chargebacks, with totals.

A customer is found by what a caller gives (`customer_key`): a name (the payer's name on the
charges, the search language's `name:`), a card's last four digits, or an email (looked up in
the `customers` family, whose shape the spec does not show: an object whose ``email`` field is
that address gives the name). The service is asked to narrow each list, and every row is
checked here (the payer's name, the last four): a filter it ignored never lends a customer
another's charges or tokens. Reads are bounded; a cut read is said, never hidden.

No Textual: the screen (`ui/screens/customer.py`) shows what `read_customer` returns.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from paytui.api.errors import ApiError
from paytui.api.queries import ChargeQuery
from paytui.charge_state import (
    RefundPosition,
    chargeback_words,
    may_have_refunds,
    refunds_position,
    state_words,
)

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

__all__ = ["CustomerKey", "CustomerRow", "CustomerView", "customer_key", "read_customer"]

#: Charges, tokens and customer objects read at most; refunds read for at most this many charges.
MAX_CHARGES = 500
MAX_TOKENS = 1000
MAX_CUSTOMERS = 1000
MAX_REFUNDED = 100
PAGE = 100


@dataclass(frozen=True)
class CustomerKey:
    """Who: `kind` is ``name``, ``last4`` or ``email``; `text` as typed (trimmed)."""

    kind: str
    text: str

    def describe(self) -> str:
        return {"name": "named", "last4": "with a card ending", "email": "with the email"}[
            self.kind
        ] + f" {self.text}"


def customer_key(text: str) -> CustomerKey:
    """Four digits: a card's last four; an ``@``: an email; anything else: a name."""
    text = " ".join(text.split())
    if re.fullmatch(r"\d{4}", text):
        return CustomerKey("last4", text)
    if "@" in text:
        return CustomerKey("email", text.lower())
    return CustomerKey("name", text)


@dataclass(frozen=True)
class CustomerRow:
    """One line of the customer's screen: a charge, a refund, a chargeback or a token."""

    kind: str
    item_id: str
    at: datetime | None
    amount: Decimal | None
    status: str | None
    words: tuple[str, ...] = ()
    charge_id: str | None = None
    note: str = ""


@dataclass
class CustomerView:
    """What was read of one customer, with the totals and what could not be read whole."""

    key: CustomerKey
    name: str | None = None
    rows: list[CustomerRow] = field(default_factory=list)
    charges: int = 0
    charged: Decimal = Decimal(0)
    refunds: int = 0
    refunded: Decimal = Decimal(0)
    chargebacks: int = 0
    charged_back: Decimal = Decimal(0)
    tokens: int = 0
    notes: list[str] = field(default_factory=list)

    def totals(self) -> str:
        from paytui.api.money import format_amount

        def count(n: int, word: str) -> str:
            return f"{n} {word}" if n == 1 else f"{n} {word}s"

        return (
            f"{count(self.charges, 'charge')}, {format_amount(self.charged)} charged · "
            f"{count(self.refunds, 'refund')}, {format_amount(self.refunded)} refunded · "
            f"{count(self.chargebacks, 'chargeback')}, {format_amount(self.charged_back)} · "
            f"{count(self.tokens, 'token')}"
        )


def _contact_name(item: Any) -> str:
    contact = getattr(getattr(item, "payment_method", None), "contact", None)
    return str(getattr(contact, "name", "") or "")


def _matches(key: CustomerKey, name: str | None, item: Any) -> bool:
    """Does this row show it is the customer's (never "cannot tell")?"""
    if key.kind == "last4":
        return getattr(item, "last4", None) == key.text
    if not name:
        return False
    probe = SimpleNamespace(contact_name=_contact_name(item))
    return ChargeQuery(contact_name=name).verdicts(probe).get("contact_name") is True


async def _name_of_email(client: PaymentClient, email: str, view: CustomerView) -> str | None:
    """The name of the `customers` object whose ``email`` is `email` (read here, bounded)."""
    offset = 0
    read = 0
    while read < MAX_CUSTOMERS:
        page = await client.list_objects_page("customers", limit=PAGE, offset=offset)
        for obj in page.items:
            fields = obj.fields()
            if str(fields.get("email", "")).lower() == email:
                name = " ".join(
                    str(fields[k]) for k in ("first_name", "last_name") if fields.get(k)
                )
                return name or obj.label()
        read += len(page.items)
        if not page.has_more or page.next_offset <= offset:
            return None
        offset = page.next_offset
    view.notes.append(f"stopped after {read} customers read without finding {email}")
    return None


def _is_settled(charge: Any) -> bool:
    """Money that moved and may carry refunds: a charge the action registry would refund (a
    sale or capture, in any status but the ones paytui knows moved nothing or went back; a
    status it does not know, `settled`, counts)."""
    from paytui.actions.registry import why_not

    return why_not("refund", charge) is None


async def read_customer(client: PaymentClient, key: CustomerKey) -> CustomerView:
    """Everything of one customer the service shows, checked row by row (see the module)."""
    view = CustomerView(key=key)
    name: str | None = key.text if key.kind == "name" else None
    if key.kind == "email":
        name = await _name_of_email(client, key.text, view)
        if name is None:
            if not view.notes:
                view.notes.append(f"no customer with the email {key.text}")
            return view
    view.name = name
    query = ChargeQuery(contact_name=name) if key.kind != "last4" else ChargeQuery(last4=key.text)
    charges: list[Any] = []
    offset = 0
    while len(charges) < MAX_CHARGES:
        page = await client.search_charges_page(query, limit=PAGE, offset=offset)
        charges += [c for c in page.items if page.proven(c.charge_id) and _matches(key, name, c)]
        if not page.has_more or page.next_offset <= offset:
            break
        offset = page.next_offset
    else:
        view.notes.append(f"only the first {MAX_CHARGES} charges read")
    positions = await _read_refunds(client, [c for c in charges if may_have_refunds(c)], view)
    from paytui.config.model import TodayPrefs
    from paytui.today.cases import case_of

    now, prefs = datetime.now(UTC), TodayPrefs()  # the reason's words only: no due time here
    for charge in charges:
        view.charges += 1
        if _is_settled(charge) and charge.total_amount is not None:
            view.charged += charge.total_amount
        view.rows.append(
            CustomerRow(
                "charge",
                charge.charge_id,
                charge.charge_timestamp,
                charge.total_amount,
                charge.status,
                state_words(charge, refunds=positions.get(charge.charge_id)),
                charge.charge_id,
                f"{getattr(charge.payment_method, 'type', None) or charge.method or ''} "
                f"{charge.last4 or ''}".strip(),
            )
        )
        chargebacks = charge.chargebacks
        for item in (chargebacks.items or []) if chargebacks is not None else []:
            view.chargebacks += 1
            view.charged_back += item.amount or Decimal(0)
            # Its state by the lists' one rule (`charge_state`: Disputed (open), Won, Lost or
            # Disputed (?)), its reason in the network's words (`today.cases`).
            view.rows.append(
                CustomerRow(
                    "chargeback",
                    item.chargeback_id or "—",
                    item.chargeback_timestamp,
                    item.amount,
                    item.status,
                    chargeback_words(item),
                    charge.charge_id,
                    case_of(item, charge, now, prefs).reason_text(),
                )
            )
    try:
        await _read_tokens(client, key, name, view)
    except ApiError as exc:  # the rest stands: a service may list no tokens at all
        view.notes.append(f"tokens could not be read ({exc})")
    view.rows.sort(key=lambda row: (row.at is None, -(row.at.timestamp() if row.at else 0)))
    return view


async def _read_refunds(
    client: PaymentClient, settled: list[Any], view: CustomerView
) -> dict[str, RefundPosition]:
    """The refunds of the customer's charges that may have some (`basis.read_refunds`: rows
    naming another charge dropped), four charges at a time, at most `MAX_REFUNDED` charges;
    what each one's add up to, by charge id (a charge not read: its state stays ``?``)."""
    from paytui.actions.basis import read_refunds

    if len(settled) > MAX_REFUNDED:
        view.notes.append(f"refunds read for the newest {MAX_REFUNDED} charges only")
        settled = settled[:MAX_REFUNDED]
    gate = asyncio.Semaphore(4)

    async def one(charge: Any) -> tuple[Any, Any]:
        async with gate:
            return charge, await read_refunds(client, charge.charge_id)

    positions: dict[str, RefundPosition] = {}
    for charge, refunds in await asyncio.gather(*(one(c) for c in settled)):
        positions[charge.charge_id] = refunds_position(
            charge.charge_id, charge.total_amount, refunds
        )
        for refund in refunds:
            view.refunds += 1
            view.refunded += refund.amount or Decimal(0)
            view.rows.append(
                CustomerRow(
                    "refund",
                    refund.refund_id,
                    refund.at,
                    refund.amount,
                    refund.status,
                    charge_id=charge.charge_id,
                )
            )
    return positions


async def _read_tokens(
    client: PaymentClient, key: CustomerKey, name: str | None, view: CustomerView
) -> None:
    """Stored cards of the customer: the token list has no name filter, so it is read (bounded)
    and each token checked here by its card's holder name or last four."""
    offset = 0
    read = 0
    while read < MAX_TOKENS:
        page = await client.list_tokens_page(limit=PAGE, offset=offset)
        read += len(page.items)
        for token in page.items:
            if not _matches(key, name, token):
                continue
            view.tokens += 1
            view.rows.append(
                CustomerRow(
                    "token",
                    token.token_id,
                    token.created_timestamp,
                    None,
                    None,
                    note=f"{getattr(token.payment_method, 'type', None) or ''} "
                    f"{token.last4 or ''}".strip(),
                )
            )
        if not page.has_more or page.next_offset <= offset:
            return
        offset = page.next_offset
    view.notes.append(f"only the first {MAX_TOKENS} tokens looked at")
