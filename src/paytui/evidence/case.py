"""One chargeback's case as the service shows it (`read_case`): the charge with its chargeback
and reason, refunds, conversations, payouts, likely duplicates, the prior charges of a fraud
case, and the journal's rows for it. `paytui.evidence.pack` arranges it.

`clean` is the one way a value gets into a pack: secrets, card and bank numbers and stored-card
token ids scrubbed, unsafe characters shown as placeholders.

No Textual, no I/O but the client's reads and the journal given.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import TYPE_CHECKING

from paytui.api.errors import ApiError
from paytui.evidence.needs import dispute_of
from paytui.evidence.priors import DEFAULT_ELEMENT_KEYS, PriorsResult, find_priors
from paytui.reason_codes import ReasonCode, lookup
from paytui.today.deadlines import brand_of as network_of

if TYPE_CHECKING:
    from paytui.actions.basis import RefundSeen
    from paytui.actions.journal import AuditRow
    from paytui.api.client import PaymentClient
    from paytui.api.conversations import ThreadEntry
    from paytui.api.models import Charge, ChargebackItem

__all__ = [
    "DEFAULT_ITEM_KEYS",
    "Case",
    "Conversation",
    "NoChargeback",
    "attribute_keys",
    "brand_of",
    "clean",
    "read_case",
    "the_chargeback",
]

DEFAULT_ITEM_KEYS: Mapping[str, tuple[str, ...]] = {
    "delivery": (
        "tracking_number",
        "tracking",
        "carrier",
        "delivered_at",
        "delivery_date",
        "proof_of_delivery",
        "delivery_confirmation",
    ),
    "description": ("order_id", "description", "product", "sku", "item", "order_description"),
    "policy": (
        "refund_policy",
        "return_policy",
        "cancellation_policy",
        "terms",
        "terms_accepted",
    ),
    "recurring": ("subscription_id", "recurring", "billing_cycle", "plan"),
}
#: Journal rows read at most, and conversations of the charge.
MAX_HISTORY = 200
MAX_CONVERSATIONS = 20

_TOKEN_ID = re.compile(r"\bct_[A-Za-z0-9]+")


def clean(value: object) -> str:
    """The one way a value gets into a pack: redacted (secrets, card and bank numbers, token
    ids), then sanitised for display; None is ""."""
    from paytui.logs import redact
    from paytui.text import safe

    if value is None:
        return ""
    return safe(_TOKEN_ID.sub("ct_***", redact(str(value))))


def money(value: object) -> str:
    from paytui.api.money import format_amount

    return format_amount(value) if isinstance(value, Decimal) else "—"


def when(value: object) -> str:
    if not isinstance(value, datetime):
        return "—"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


# --------------------------------------------------------------------------------------------
# What is read
# --------------------------------------------------------------------------------------------


@dataclass
class Conversation:
    conversation_id: str
    status: str | None
    entries: list[ThreadEntry]
    notes: list[str] = field(default_factory=list)


@dataclass
class Case:
    """Everything read for one chargeback (None: not read, with why in `notes`)."""

    charge: Charge
    chargeback: ChargebackItem | None
    reason: ReasonCode | None
    refunds: tuple[RefundSeen, ...] | None = None
    conversations: list[Conversation] | None = None
    history: list[AuditRow] | None = None
    duplicates: list[Charge] | None = None
    priors: PriorsResult | None = None
    notes: dict[str, str] = field(default_factory=dict)
    element_keys: Mapping[str, Sequence[str]] = field(
        default_factory=lambda: dict(DEFAULT_ELEMENT_KEYS)
    )
    item_keys: Mapping[str, Sequence[str]] = field(default_factory=lambda: dict(DEFAULT_ITEM_KEYS))

    @property
    def kind(self) -> str | None:
        """What the answer is judged on (`needs.DISPUTES`), None: a reason not in the table."""
        return dispute_of(self.reason)


def the_chargeback(charge: Charge) -> ChargebackItem | None:
    """The case a pack answers: the newest open chargeback, else the newest of any status."""
    from paytui.charge_state import dispute_state

    items = list((charge.chargebacks.items or []) if charge.chargebacks is not None else [])
    if not items:
        return None

    def newest(item: ChargebackItem) -> float:
        at = item.chargeback_timestamp
        return at.timestamp() if at is not None else float("-inf")

    items.sort(key=newest, reverse=True)
    for item in items:
        alone = SimpleNamespace(
            status="chargeback", chargebacks=SimpleNamespace(items=[item], total_amount=None)
        )
        if dispute_state(alone) == "open":
            return item
    return items[0]


def brand_of(charge: Charge) -> str | None:
    brand = getattr(charge.payment_method, "type", None)
    return brand if isinstance(brand, str) else None


async def read_case(
    client: PaymentClient,
    charge_id: str,
    *,
    history: Callable[[str], Iterable[AuditRow]] | None = None,
    element_keys: Mapping[str, Sequence[str]] | None = None,
    item_keys: Mapping[str, Sequence[str]] | None = None,
) -> Case:
    """Read the case of `charge_id` (a `NotFoundError` for no such charge; `NoChargeback`
    when it has none). `history(charge_id)`: the journal's rows for the charge."""
    from paytui.actions.basis import read_refunds
    from paytui.actions.registry import why_not
    from paytui.api.conversations import (
        closed_state,
        conversation_id_of,
        links_charge,
        read_thread,
        status_word,
    )
    from paytui.duplicates import duplicate_query, is_likely_duplicate

    charge = await client.get_charge(charge_id, expand="all")
    refused = why_not("evidence", charge)  # the one rule: the app's `E` and the command's
    if refused is not None:
        raise NoChargeback(charge_id, refused)
    chargeback = the_chargeback(charge)
    reason = lookup(getattr(chargeback, "reason_code", None), network_of(charge))
    case = Case(charge=charge, chargeback=chargeback, reason=reason)
    if element_keys is not None:
        case.element_keys = element_keys
    if item_keys is not None:
        case.item_keys = item_keys

    async def refunds() -> None:
        try:
            case.refunds = await read_refunds(client, charge_id)
        except ApiError as exc:
            case.notes["refunds"] = f"the refunds could not be read ({exc.message})"

    async def conversations() -> None:
        found: list[Conversation] = []
        try:
            page = await client.list_conversations_page(
                charge_id=charge_id, limit=MAX_CONVERSATIONS
            )
            for obj in page.items:
                # The charge's only when the conversation shows the link itself.
                conversation_id = conversation_id_of(obj)
                if conversation_id is None or not links_charge(obj, charge_id):
                    continue
                thread = await read_thread(client, conversation_id)
                closed = closed_state(obj)
                word = status_word(obj) or (
                    None if closed is None else "closed" if closed else "open"
                )
                found.append(
                    Conversation(conversation_id, word, thread.entries, list(thread.notes))
                )
        except ApiError as exc:
            case.notes["communications"] = f"the conversations could not be read ({exc.message})"
            return
        found.sort(key=lambda c: (_first_time(c.entries), c.conversation_id))
        case.conversations = found

    async def duplicates() -> None:
        query = duplicate_query(charge)
        if query is None:
            case.notes["other_charge"] = "the charge lacks a field duplicates are matched on"
            return
        try:
            page = await client.search_charges_page(query, limit=50)
        except ApiError as exc:
            case.notes["other_charge"] = f"the charges could not be searched ({exc.message})"
            return
        case.duplicates = sorted(
            (
                row
                for row in page.items
                if page.proven(row.charge_id) and is_likely_duplicate(charge, row)
            ),
            key=lambda row: (row.charge_timestamp, row.charge_id),
        )

    async def priors() -> None:
        case.priors = await find_priors(
            client, charge, keys=case.element_keys or DEFAULT_ELEMENT_KEYS
        )

    reads = [refunds(), conversations()]
    if case.kind in (None, "duplicate"):
        reads.append(duplicates())
    if case.kind == "fraud":
        reads.append(priors())
    await asyncio.gather(*reads)
    if history is not None:
        try:
            rows = list(history(charge_id))
        except Exception as exc:  # the journal is paytui's own: a pack without it still helps
            case.notes["history"] = f"the journal could not be read ({clean(exc)})"
        else:
            case.history = sorted(rows, key=lambda row: (row.time, row.kind, row.id))
    else:
        case.notes["history"] = "no journal was given to read"
    return case


class NoChargeback(Exception):
    """The charge has no chargeback: there is no case to answer."""

    def __init__(self, charge_id: str, reason: str) -> None:
        super().__init__(f"{charge_id}: {reason}")
        self.charge_id = charge_id


def _first_time(entries: Sequence[ThreadEntry]) -> datetime:
    times = [entry.at for entry in entries if entry.at is not None]
    return min(times) if times else datetime.min.replace(tzinfo=UTC)


def attribute_keys(
    configured: Mapping[str, Sequence[str]], kind: str
) -> dict[str, tuple[str, ...]]:
    """paytui's attribute keys of each customer element (`kind` ``element``) or item (``item``)
    with the merchant's own first (`[evidence] attribute_keys`)."""
    base = DEFAULT_ELEMENT_KEYS if kind == "element" else DEFAULT_ITEM_KEYS
    return {
        name: tuple(dict.fromkeys((*configured.get(name, ()), *defaults)))
        for name, defaults in base.items()
    }
