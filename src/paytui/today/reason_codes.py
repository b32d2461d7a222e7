"""Chargeback reason codes: the network's words for each and what it is about (docs/evidence.md).

One table for every part of paytui that names a chargeback's reason: Today, the lists, the
charge header, the evidence pack. Each code has

- `category`: the network's own grouping, as Visa Claims Resolution names its four (fraud,
  authorization, processing error, consumer dispute); the other networks' codes are placed in
  the same four by what they are about;
- `dispute`: what the merchant's answer is judged on (`DISPUTES`): a fraud claim, goods not
  received, a cancelled recurring charge, a duplicate or a charge paid by other means, a credit
  not processed... The evidence pack (`paytui.evidence.needs`) arranges its sections by it.

Sources (cited with their editions in docs/evidence.md): Visa Core Rules and Visa Product and
Service Rules, "Dispute Resolution" (Visa Claims Resolution dispute conditions 10.x-13.x);
Mastercard Chargeback Guide, Merchant Edition (message reason codes 48xx); American Express
Merchant Regulations, "Chargebacks" (reason codes A/C/F/FR/M/P/R); Discover Dispute Rules
Manual (dispute reason codes). A code paytui does not know is said as such (`describe`), with
no category guessed.

No I/O, no Textual: a table and two look-ups.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "CATEGORIES",
    "DISPUTES",
    "REASON_CODES",
    "ReasonCode",
    "describe",
    "lookup",
]

#: The four categories (Visa Claims Resolution's; the others' codes placed by meaning).
CATEGORIES: tuple[str, ...] = ("fraud", "authorization", "processing_error", "consumer_dispute")

#: What an answer to the dispute is judged on, with the words for a person.
DISPUTES: dict[str, str] = {
    "fraud": "fraud (the cardholder says they did not make it)",
    "authorization": "authorization (no valid approval for the amount)",
    "duplicate": "duplicate or paid by other means",
    "incorrect_amount": "incorrect amount or currency",
    "late_presentment": "late presentment",
    "not_received": "goods or services not received",
    "not_as_described": "not as described or defective",
    "cancelled_recurring": "cancelled recurring transaction",
    "cancelled": "cancelled or returned goods or services",
    "credit_not_processed": "credit not processed",
    "cardholder_dispute": "cardholder dispute (goods, services or a credit)",
}


@dataclass(frozen=True)
class ReasonCode:
    network: str
    code: str
    words: str
    category: str
    dispute: str


def _rows(network: str, rows: tuple[tuple[str, str, str, str], ...]) -> list[ReasonCode]:
    return [ReasonCode(network, code, words, cat, dispute) for code, words, cat, dispute in rows]


_FR, _AU, _PE, _CD = CATEGORIES

#: (network, code) -> ReasonCode. The common codes of the four networks.
REASON_CODES: dict[tuple[str, str], ReasonCode] = {
    (row.network, row.code): row
    for row in (
        *_rows("visa", (
            ("10.1", "EMV liability shift counterfeit fraud", _FR, "fraud"),
            ("10.2", "EMV liability shift non-counterfeit fraud", _FR, "fraud"),
            ("10.3", "Other fraud: card-present environment", _FR, "fraud"),
            ("10.4", "Other fraud: card-absent environment", _FR, "fraud"),
            ("10.5", "Visa Fraud Monitoring Program", _FR, "fraud"),
            ("11.1", "Card recovery bulletin", _AU, "authorization"),
            ("11.2", "Declined authorization", _AU, "authorization"),
            ("11.3", "No authorization", _AU, "authorization"),
            ("12.1", "Late presentment", _PE, "late_presentment"),
            ("12.2", "Incorrect transaction code", _PE, "incorrect_amount"),
            ("12.3", "Incorrect currency", _PE, "incorrect_amount"),
            ("12.4", "Incorrect account number", _PE, "incorrect_amount"),
            ("12.5", "Incorrect amount", _PE, "incorrect_amount"),
            ("12.6", "Duplicate processing or paid by other means", _PE, "duplicate"),
            ("12.6.1", "Duplicate processing", _PE, "duplicate"),
            ("12.6.2", "Paid by other means", _PE, "duplicate"),
            ("12.7", "Invalid data", _PE, "authorization"),
            ("13.1", "Merchandise or services not received", _CD, "not_received"),
            ("13.2", "Cancelled recurring transaction", _CD, "cancelled_recurring"),
            ("13.3", "Not as described or defective merchandise", _CD, "not_as_described"),
            ("13.4", "Counterfeit merchandise", _CD, "not_as_described"),
            ("13.5", "Misrepresentation", _CD, "not_as_described"),
            ("13.6", "Credit not processed", _CD, "credit_not_processed"),
            ("13.7", "Cancelled merchandise or services", _CD, "cancelled"),
            ("13.9", "Non-receipt of cash or load transaction value", _CD, "not_received"),
        )),
        *_rows("mastercard", (
            ("4808", "Authorization-related chargeback", _AU, "authorization"),
            ("4812", "Account number not on file", _PE, "incorrect_amount"),
            ("4831", "Transaction amount differs", _PE, "incorrect_amount"),
            ("4834", "Point-of-interaction error (duplicate or paid by other means)", _PE,
             "duplicate"),
            ("4837", "No cardholder authorization", _FR, "fraud"),
            ("4840", "Fraudulent processing of transactions", _FR, "fraud"),
            ("4841", "Cancelled recurring or digital goods transaction", _CD,
             "cancelled_recurring"),
            ("4842", "Late presentment", _PE, "late_presentment"),
            ("4846", "Correct transaction currency code not provided", _PE, "incorrect_amount"),
            ("4849", "Questionable merchant activity", _FR, "fraud"),
            ("4853", "Cardholder dispute", _CD, "cardholder_dispute"),
            ("4855", "Goods or services not provided", _CD, "not_received"),
            ("4859", "Addendum, no-show or ATM dispute", _CD, "cardholder_dispute"),
            ("4860", "Credit not processed", _CD, "credit_not_processed"),
            ("4863", "Cardholder does not recognize: potential fraud", _FR, "fraud"),
            ("4870", "Chip liability shift", _FR, "fraud"),
            ("4871", "Chip/PIN liability shift", _FR, "fraud"),
        )),
        *_rows("amex", (
            ("A01", "Charge amount exceeds authorization amount", _AU, "authorization"),
            ("A02", "No valid authorization", _AU, "authorization"),
            ("A08", "Authorization approval expired", _AU, "authorization"),
            ("C02", "Credit not processed", _CD, "credit_not_processed"),
            ("C04", "Goods or services returned or refused", _CD, "cancelled"),
            ("C05", "Goods or services cancelled", _CD, "cancelled"),
            ("C08", "Goods or services not received or only partially received", _CD,
             "not_received"),
            ("C14", "Paid by other means", _PE, "duplicate"),
            ("C18", "\"No show\" or CARDeposit cancelled", _CD, "cancelled"),
            ("C28", "Cancelled recurring billing", _CD, "cancelled_recurring"),
            ("C31", "Goods or services not as described", _CD, "not_as_described"),
            ("C32", "Goods or services damaged or defective", _CD, "not_as_described"),
            ("F10", "Missing imprint", _FR, "fraud"),
            ("F14", "Missing signature", _FR, "fraud"),
            ("F24", "No card member authorization", _FR, "fraud"),
            ("F29", "Card not present", _FR, "fraud"),
            ("FR2", "Fraud full recourse program", _FR, "fraud"),
            ("FR4", "Immediate chargeback program", _FR, "fraud"),
            ("FR6", "Partial immediate chargeback program", _FR, "fraud"),
            ("P01", "Unassigned card number", _PE, "incorrect_amount"),
            ("P03", "Credit processed as charge", _PE, "incorrect_amount"),
            ("P04", "Charge processed as credit", _PE, "incorrect_amount"),
            ("P05", "Incorrect charge amount", _PE, "incorrect_amount"),
            ("P07", "Late submission", _PE, "late_presentment"),
            ("P08", "Duplicate charge", _PE, "duplicate"),
            ("P22", "Non-matching card number", _PE, "incorrect_amount"),
            ("P23", "Currency discrepancy", _PE, "incorrect_amount"),
        )),
        *_rows("discover", (
            ("AA", "Does not recognize", _FR, "fraud"),
            ("AP", "Cancelled recurring", _CD, "cancelled_recurring"),
            ("AW", "Altered amount", _PE, "incorrect_amount"),
            ("CD", "Credit posted as card sale", _PE, "incorrect_amount"),
            ("DP", "Duplicate processing", _PE, "duplicate"),
            ("LP", "Late presentation", _PE, "late_presentment"),
            ("NA", "No authorization", _AU, "authorization"),
            ("PM", "Paid by other means", _PE, "duplicate"),
            ("RG", "Non-receipt of goods or services", _CD, "not_received"),
            ("RM", "Quality discrepancy", _CD, "not_as_described"),
            ("RN2", "Credit not received", _CD, "credit_not_processed"),
            ("UA01", "Fraud: card present", _FR, "fraud"),
            ("UA02", "Fraud: card not present", _FR, "fraud"),
            ("UA05", "Fraud: chip counterfeit", _FR, "fraud"),
            ("UA06", "Fraud: chip and PIN", _FR, "fraud"),
        )),
    )
}  # fmt: skip

#: The brand names services use, folded onto the table's networks.
_NETWORKS = {
    "visa": "visa",
    "mastercard": "mastercard",
    "master card": "mastercard",
    "mc": "mastercard",
    "amex": "amex",
    "american express": "amex",
    "americanexpress": "amex",
    "discover": "discover",
}


def _network(brand: object) -> str | None:
    if not isinstance(brand, str):
        return None
    return _NETWORKS.get(" ".join(brand.casefold().replace("_", " ").split()))


def lookup(code: object, brand: object = None) -> ReasonCode | None:
    """The table's entry for `code` on the card's `brand` (as the service spells it). Without a
    brand it paytui knows, a code only one network uses (`10.4`, `4837`, `C08`) is still found;
    one several share is not guessed (None)."""
    if not isinstance(code, str) or not code.strip():
        return None
    wanted = code.strip().upper()
    network = _network(brand)
    if network is not None:
        return REASON_CODES.get((network, wanted))
    found = [row for (_, key), row in REASON_CODES.items() if key == wanted]
    return found[0] if len(found) == 1 else None


def describe(chargeback: Any, brand: object = None) -> str:
    """`10.4 Other fraud: card-absent environment (fraud)` for a chargeback item (its
    `reason_code`, else its `reason`), as one line; "reason not shown" when it shows none."""
    code = getattr(chargeback, "reason_code", None)
    found = lookup(code, brand)
    if found is not None:
        return f"{found.code} {found.words} ({found.category.replace('_', ' ')})"
    reason = getattr(chargeback, "reason", None)
    parts = [str(part) for part in (code, reason) if part]
    if not parts:
        return "reason not shown"
    return " ".join(parts) + (" (a code paytui does not know)" if code else "")
