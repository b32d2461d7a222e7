"""The card networks' chargeback reason codes: the network's words for each, and its category.

One data table (`REASON_CODES`), documented with its sources in docs/reason-codes.md: the
common codes of Visa (Visa Claims Resolution, since 2018), Mastercard, American Express and
Discover, each with the words the network gives it and one of four categories (`CATEGORIES`):
fraud, authorization, processing error, consumer dispute (the networks' own names differ:
American Express's "Card Member Disputes", Discover's "Services"; they are one category here).

The service's spec shows no inner field of a chargeback (docs/api-assumptions.md): a reason
code is read where the service gives one, looked up here, and a code the table does not hold
says so (`ReasonCode` None): its meaning is never guessed from a neighbour.

No Textual, no API models: the sandbox, the command line and the screens share it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CATEGORIES", "NETWORKS", "REASON_CODES", "ReasonCode", "lookup"]

#: The categories, as the rows say them.
CATEGORIES: tuple[str, ...] = ("fraud", "authorization", "processing error", "consumer dispute")
#: The networks of the table, as `paytui.today.deadlines` folds card brands.
NETWORKS: tuple[str, ...] = ("visa", "mastercard", "amex", "discover")

_F, _A, _P, _C = CATEGORIES


@dataclass(frozen=True)
class ReasonCode:
    """One code of one network: its words as the network gives them, and its category."""

    network: str
    code: str
    words: str
    category: str


def _codes(network: str, rows: tuple[tuple[str, str, str], ...]) -> dict[str, ReasonCode]:
    return {code: ReasonCode(network, code, words, category) for code, category, words in rows}


#: network -> code -> `ReasonCode`. Sources: docs/reason-codes.md.
REASON_CODES: dict[str, dict[str, ReasonCode]] = {
    "visa": _codes("visa", (
        ("10.1", _F, "EMV Liability Shift Counterfeit Fraud"),
        ("10.2", _F, "EMV Liability Shift Non-Counterfeit Fraud"),
        ("10.3", _F, "Other Fraud: Card-Present Environment"),
        ("10.4", _F, "Other Fraud: Card-Absent Environment"),
        ("10.5", _F, "Visa Fraud Monitoring Program"),
        ("11.1", _A, "Card Recovery Bulletin"),
        ("11.2", _A, "Declined Authorization"),
        ("11.3", _A, "No Authorization"),
        ("12.1", _P, "Late Presentment"),
        ("12.2", _P, "Incorrect Transaction Code"),
        ("12.3", _P, "Incorrect Currency"),
        ("12.4", _P, "Incorrect Account Number"),
        ("12.5", _P, "Incorrect Amount"),
        ("12.6", _P, "Duplicate Processing or Paid by Other Means"),
        ("12.6.1", _P, "Duplicate Processing"),
        ("12.6.2", _P, "Paid by Other Means"),
        ("12.7", _P, "Invalid Data"),
        ("13.1", _C, "Merchandise/Services Not Received"),
        ("13.2", _C, "Cancelled Recurring Transaction"),
        ("13.3", _C, "Not as Described or Defective Merchandise/Services"),
        ("13.4", _C, "Counterfeit Merchandise"),
        ("13.5", _C, "Misrepresentation"),
        ("13.6", _C, "Credit Not Processed"),
        ("13.7", _C, "Cancelled Merchandise/Services"),
        ("13.8", _C, "Original Credit Transaction Not Accepted"),
        ("13.9", _C, "Non-Receipt of Cash or Load Transaction Value"),
    )),
    "mastercard": _codes("mastercard", (
        ("4807", _A, "Warning Bulletin File"),
        ("4808", _A, "Authorization-Related Chargeback"),
        ("4812", _A, "Account Number Not on File"),
        ("4831", _P, "Transaction Amount Differs"),
        ("4834", _P, "Point-of-Interaction Error"),
        ("4837", _F, "No Cardholder Authorization"),
        ("4840", _F, "Fraudulent Processing of Transactions"),
        ("4841", _C, "Cancelled Recurring or Digital Goods Transactions"),
        ("4842", _P, "Late Presentment"),
        ("4849", _F, "Questionable Merchant Activity"),
        ("4853", _C, "Cardholder Dispute"),
        ("4854", _C, "Cardholder Dispute, Not Elsewhere Classified (U.S. Region only)"),
        ("4855", _C, "Goods or Services Not Provided"),
        ("4859", _C, "Addendum, No-show, or ATM Dispute"),
        ("4860", _C, "Credit Not Processed"),
        ("4863", _F, "Cardholder Does Not Recognize: Potential Fraud"),
        ("4870", _F, "Chip Liability Shift"),
        ("4871", _F, "Chip/PIN Liability Shift"),
    )),
    "amex": _codes("amex", (
        ("F10", _F, "Missing Imprint"),
        ("F14", _F, "Missing Signature"),
        ("F24", _F, "No Card Member Authorization"),
        ("F29", _F, "Card Not Present"),
        ("F30", _F, "EMV Counterfeit"),
        ("F31", _F, "EMV Lost/Stolen/Non-Received"),
        ("A01", _A, "Charge Amount Exceeds Authorization Amount"),
        ("A02", _A, "No Valid Authorization"),
        ("A08", _A, "Authorization Approval Expired"),
        ("P01", _P, "Unassigned Card Number"),
        ("P03", _P, "Credit Processed as Charge"),
        ("P04", _P, "Charge Processed as Credit"),
        ("P05", _P, "Incorrect Charge Amount"),
        ("P07", _P, "Late Submission"),
        ("P08", _P, "Duplicate Charge"),
        ("P22", _P, "Non-Matching Card Number"),
        ("P23", _P, "Currency Discrepancy"),
        ("C02", _C, "Credit Not Processed"),
        ("C04", _C, "Goods/Services Returned or Refused"),
        ("C05", _C, "Goods/Services Cancelled"),
        ("C08", _C, "Goods/Services Not Received or Only Partially Received"),
        ("C14", _C, "Paid by Other Means"),
        ("C18", _C, '"No Show" or CARDeposit Cancelled'),
        ("C28", _C, "Cancelled Recurring Billing"),
        ("C31", _C, "Goods/Services Not as Described"),
        ("C32", _C, "Goods/Services Damaged or Defective"),
    )),
    "discover": _codes("discover", (
        ("UA01", _F, "Fraud: Card Present Transaction"),
        ("UA02", _F, "Fraud: Card Not Present Transaction"),
        ("UA05", _F, "Fraud: Chip Counterfeit Transaction"),
        ("UA06", _F, "Fraud: Chip and PIN Transaction"),
        ("AT", _A, "Authorization Noncompliance"),
        ("DA", _A, "Declined Authorization"),
        ("EX", _A, "Expired Card"),
        ("NA", _A, "No Authorization"),
        ("IN", _P, "Invalid Card Number"),
        ("LP", _P, "Late Presentation"),
        ("AA", _C, "Does Not Recognize"),
        ("AP", _C, "Recurring Payments"),
        ("AW", _C, "Altered Amount"),
        ("CD", _C, "Credit/Debit Posted Incorrectly"),
        ("DP", _C, "Duplicate Processing"),
        ("NF", _C, "Non-Receipt of Cash from ATM"),
        ("PM", _C, "Paid by Other Means"),
        ("RG", _C, "Non-Receipt of Goods, Services, or Cash"),
        ("RM", _C, "Cardholder Disputes Quality of Goods or Services"),
        ("RN2", _C, "Credit Not Processed"),
    )),
}  # fmt: skip


def _fold_code(code: object) -> str:
    return str(code).strip().upper()


def lookup(code: object, network: str | None) -> ReasonCode | None:
    """The table's entry for `code` of `network` (a folded brand: `NETWORKS`). Without a known
    network (a brand the table does not hold, a bank debit), the code is looked up in every
    network and taken only when exactly one holds it. None: not in the table (never guessed)."""
    if code is None or str(code).strip() == "":
        return None
    folded = _fold_code(code)
    if network in REASON_CODES:
        return REASON_CODES[network].get(folded)
    found = [codes[folded] for codes in REASON_CODES.values() if folded in codes]
    return found[0] if len(found) == 1 else None
