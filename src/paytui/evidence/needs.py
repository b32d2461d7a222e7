"""What each kind of dispute asks the merchant to show: the pack's sections, in order, and the
items of its checklist (docs/evidence.md gives the source of each).

A kind (`DISPUTES`, from a reason of `paytui.reason_codes` by `dispute_of`) is what the answer
is judged on. Its sections are
the pack's, top to bottom; each names the checklist items it holds. An item is *required* when
the network's rules make the answer invalid without it (then `paytui evidence --check` fails);
the others strengthen the answer and are listed as missing in plain words when absent.

Data only: `paytui.evidence.pack` evaluates each item against what the service showed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "DISPUTES",
    "ITEMS",
    "KINDS",
    "SECTIONS",
    "Item",
    "Section",
    "dispute_of",
    "sections_for",
]


@dataclass(frozen=True)
class Item:
    key: str
    label: str


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    #: The checklist items this section shows (key, required).
    items: tuple[tuple[str, bool], ...]


#: Every checklist item paytui can tell present, missing or not applicable.
ITEMS: dict[str, Item] = {
    item.key: item
    for item in (
        Item("authorization", "The charge and its authorization (approval code, result)"),
        Item("avs", "Address verification (AVS) result"),
        Item("cvv", "Card security code (CVV2/CVC2/CID) result"),
        Item("card", "The card, masked (brand and last four)"),
        Item("contact", "The customer's name and contact"),
        Item("ip", "The customer's IP address"),
        Item("device", "The customer's device id"),
        Item("account", "The customer's account or login id"),
        Item("email", "The customer's e-mail"),
        Item("shipping", "The shipping address"),
        Item("priors", "Two prior undisputed charges (Visa Compelling Evidence 3.0)"),
        Item("delivery", "Proof of delivery (carrier, tracking, delivered date)"),
        Item("description", "What was sold (order, line items, description)"),
        Item("policy", "The refund, return or cancellation policy the customer agreed to"),
        Item("recurring", "The recurring agreement (subscription or recurring charge)"),
        Item("communications", "Messages with the customer"),
        Item("refunds", "Refunds of the charge"),
        Item("credit", "The credit (refund) the customer says was not processed"),
        Item("other_charge", "The other charge (or its refund) for a duplicate"),
        Item("distributions", "Payouts the charge appeared in"),
        Item("history", "What was done about the charge in paytui (the journal)"),
    )
}

_CHARGE = Section(
    "charge",
    "The charge and its authorization",
    (("authorization", True), ("avs", False), ("cvv", False), ("card", False)),
)
_CUSTOMER = Section(
    "customer",
    "The customer",
    (
        ("contact", False),
        ("ip", False),
        ("device", False),
        ("account", False),
        ("email", False),
        ("shipping", False),
    ),
)
_PRIORS = Section("priors", "Prior undisputed charges", (("priors", False),))
_COMMS = Section("communications", "Conversations with the customer", (("communications", False),))
_COMMS_REQUIRED = Section(
    "communications", "Conversations with the customer", (("communications", True),)
)
_MONEY = Section("money", "Refunds and payouts", (("refunds", False), ("distributions", False)))
_HISTORY = Section("history", "History in paytui", (("history", False),))
_DELIVERY = Section("delivery", "Delivery", (("shipping", False), ("delivery", True)))
_DELIVERY_OPTIONAL = Section("delivery", "Delivery", (("shipping", False), ("delivery", False)))
_DESCRIPTION = Section("description", "What was sold", (("description", False),))
_DESCRIPTION_REQUIRED = Section("description", "What was sold", (("description", True),))
_POLICY = Section("policy", "Policy and agreement", (("policy", False),))


def _kind(*sections: Section) -> tuple[Section, ...]:
    return sections


#: Per kind of dispute, its sections in the order the pack shows them.
SECTIONS: dict[str, tuple[Section, ...]] = {
    # Card-absent fraud: the cardholder took part (AVS/CVV, IP, device, account) and the card
    # or customer paid before without dispute (CE 3.0).
    "fraud": _kind(_CHARGE, _CUSTOMER, _PRIORS, _COMMS, _MONEY, _HISTORY),
    # No valid authorization: the approval for this amount.
    "authorization": _kind(_CHARGE, _MONEY, _HISTORY),
    # Duplicate or paid by other means: the two charges are distinct, or the other was refunded.
    "duplicate": _kind(
        _CHARGE,
        Section("other_charge", "The other charge or its refund", (("other_charge", True),)),
        _DESCRIPTION,
        _MONEY,
        _HISTORY,
    ),
    "incorrect_amount": _kind(_CHARGE, _DESCRIPTION, _COMMS, _MONEY, _HISTORY),
    "late_presentment": _kind(_CHARGE, _MONEY, _HISTORY),
    # Not received: proof of delivery to the customer's address.
    "not_received": _kind(_CHARGE, _DELIVERY, _DESCRIPTION, _CUSTOMER, _COMMS, _MONEY, _HISTORY),
    "not_as_described": _kind(
        _CHARGE, _DESCRIPTION_REQUIRED, _DELIVERY_OPTIONAL, _POLICY, _COMMS, _MONEY, _HISTORY
    ),
    # Cancelled recurring: the agreement, its cancellation policy and what the customer said.
    "cancelled_recurring": _kind(
        _CHARGE,
        Section(
            "recurring",
            "Recurring agreement and cancellation",
            (("recurring", False), ("policy", True)),
        ),
        _COMMS_REQUIRED,
        _MONEY,
        _HISTORY,
    ),
    "cancelled": _kind(
        _CHARGE,
        Section("policy", "Policy and agreement", (("policy", True),)),
        _DESCRIPTION,
        _COMMS,
        _MONEY,
        _HISTORY,
    ),
    # Credit not processed: the refund made, or why none was due.
    "credit_not_processed": _kind(
        _CHARGE,
        Section("credit", "The credit", (("credit", True), ("policy", False))),
        _COMMS,
        _MONEY,
        _HISTORY,
    ),
    "cardholder_dispute": _kind(
        _CHARGE, _DESCRIPTION_REQUIRED, _DELIVERY_OPTIONAL, _POLICY, _COMMS, _MONEY, _HISTORY
    ),
}
#: The pack of a reason paytui does not know: everything it holds, nothing required but the
#: charge.
GENERAL: tuple[Section, ...] = (
    _CHARGE,
    _CUSTOMER,
    _DELIVERY_OPTIONAL,
    _DESCRIPTION,
    _POLICY,
    _COMMS,
    _MONEY,
    _HISTORY,
)
KINDS: tuple[str, ...] = tuple(SECTIONS)


def sections_for(kind: str | None) -> tuple[Section, ...]:
    """The sections of a kind of dispute (`GENERAL` for None or a kind not in the table)."""
    return SECTIONS.get(kind or "", GENERAL)


#: What the answer to each kind of dispute is judged on, with the words for a person.
DISPUTES: dict[str, str] = {
    "fraud": "fraud (the cardholder says they did not make it)",
    "authorization": "authorization (no valid approval for the amount)",
    "duplicate": "duplicate or paid by other means",
    "incorrect_amount": "incorrect amount, currency or card number",
    "late_presentment": "late presentment",
    "not_received": "goods or services not received",
    "not_as_described": "not as described or defective",
    "cancelled_recurring": "cancelled recurring transaction",
    "cancelled": "cancelled or returned goods or services",
    "credit_not_processed": "credit not processed",
    "cardholder_dispute": "cardholder dispute (goods, services or a credit)",
}

#: The codes of the reason-code table (`paytui.reason_codes`) whose answer is judged on
#: something narrower than their category, by network: code -> kind (docs/evidence.md).
_KINDS: dict[str, dict[str, str]] = {
    "visa": {
        "12.1": "late_presentment", "12.2": "incorrect_amount", "12.3": "incorrect_amount",
        "12.4": "incorrect_amount", "12.5": "incorrect_amount", "12.6": "duplicate",
        "12.6.1": "duplicate", "12.6.2": "duplicate", "12.7": "authorization",
        "13.1": "not_received", "13.2": "cancelled_recurring", "13.3": "not_as_described",
        "13.4": "not_as_described", "13.5": "not_as_described", "13.6": "credit_not_processed",
        "13.7": "cancelled", "13.9": "not_received",
    },
    "mastercard": {
        "4812": "incorrect_amount", "4831": "incorrect_amount", "4834": "duplicate",
        "4841": "cancelled_recurring", "4842": "late_presentment", "4855": "not_received",
        "4860": "credit_not_processed",
    },
    "amex": {
        "P01": "incorrect_amount", "P03": "incorrect_amount", "P04": "incorrect_amount",
        "P05": "incorrect_amount", "P07": "late_presentment", "P08": "duplicate",
        "P22": "incorrect_amount", "P23": "incorrect_amount", "C02": "credit_not_processed",
        "C04": "cancelled", "C05": "cancelled", "C08": "not_received", "C14": "duplicate",
        "C18": "cancelled", "C28": "cancelled_recurring", "C31": "not_as_described",
        "C32": "not_as_described",
    },
    "discover": {
        "AA": "fraud", "AP": "cancelled_recurring", "AW": "incorrect_amount",
        "CD": "incorrect_amount", "DP": "duplicate", "IN": "incorrect_amount",
        "LP": "late_presentment", "NF": "not_received", "PM": "duplicate", "RG": "not_received",
        "RM": "not_as_described", "RN2": "credit_not_processed",
    },
}  # fmt: skip
#: A code with no narrower kind is judged on its category's.
_BY_CATEGORY = {
    "fraud": "fraud",
    "authorization": "authorization",
    "consumer dispute": "cardholder_dispute",
}


def dispute_of(reason: Any) -> str | None:
    """What the answer to a chargeback of this reason (`paytui.reason_codes.ReasonCode`) is
    judged on (a `DISPUTES` key); None for no reason, or a processing error of no kind here."""
    if reason is None:
        return None
    kind = _KINDS.get(reason.network, {}).get(reason.code)
    return kind or _BY_CATEGORY.get(reason.category)
