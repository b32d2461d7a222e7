"""Fight or accept: per open chargeback, the facts a person weighs, in one short line, and a
lean that is only a suggestion (docs/today.md, "Fight or accept"). paytui never decides.

The facts: the amount at stake against the configured dispute fee (`[today] dispute_fee`),
this merchant's own record for the case's reason category (its chargebacks the service shows
`won` or `lost`, by the reason code's category in `paytui.reason_codes`), the time left
(`paytui.today.deadlines`, as the row's due time) and the evidence pack's checklist score as
far as the charge shows it (`paytui.evidence.pack.charge_score`). The lean:

- the amount is no more than the fee: **leans accept** (fighting costs what it could recover);
- at least `MIN_RECORD` decided cases of the category: a record won at least half the time
  **leans fight**; one whose wins times the amount do not cover the fee **leans accept**;
- otherwise **no lean**: too little to go on.

"Accept" is letting the chargeback stand: the money is already back with the cardholder, so a
refund on top of it would pay twice. No Textual, no I/O: the caller passes what was read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.charge_state import chargeback_state
from paytui.reason_codes import lookup
from paytui.today.deadlines import brand_of

if TYPE_CHECKING:
    from paytui.today.cases import Case

__all__ = ["MIN_RECORD", "Advice", "Record", "advice_for", "record_of"]

#: Decided cases of a category below which the record gives no lean.
MIN_RECORD = 3
#: The category of a chargeback whose code is not in the table (its record is kept apart).
UNKNOWN = "unknown reason"


def merchant_of(charge: Any) -> str:
    """Whose record a charge's chargebacks count in: its merchant, else its account."""
    return str(getattr(charge, "merchant_id", None) or getattr(charge, "account_id", None) or "")


def category_of(chargeback: Any, charge: Any) -> str:
    """The reason category of one chargeback (`paytui.reason_codes`), or `UNKNOWN`."""
    code = getattr(chargeback, "reason_code", None)
    found = lookup(code, brand_of(charge)) if code else None
    return found.category if found is not None else UNKNOWN


@dataclass
class Record:
    """Won and lost chargebacks per (merchant, category), from the service's statuses."""

    counts: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    def add(self, charge: Any) -> None:
        items = getattr(getattr(charge, "chargebacks", None), "items", None) or []
        for item in items:
            state = chargeback_state(item)
            if state in ("won", "lost"):
                key = (merchant_of(charge), category_of(item, charge))
                tally = self.counts.setdefault(key, [0, 0])
                tally[0 if state == "won" else 1] += 1

    def of(self, merchant: str, category: str) -> tuple[int, int]:
        won, lost = self.counts.get((merchant, category), (0, 0))
        return won, lost


def record_of(charges: Iterable[Any]) -> Record:
    """The record of every charge given (the charged-back charges a reader saw)."""
    record = Record()
    for charge in charges:
        record.add(charge)
    return record


@dataclass(frozen=True)
class Advice:
    """What one open chargeback weighs, and the lean (`fight`, `accept` or `none`)."""

    amount: Decimal | None
    fee: Decimal
    category: str
    won: int
    lost: int
    left: str | None
    lean: str
    why: str
    #: The evidence pack's checklist score from the charge (`paytui.evidence.pack.Score.line`):
    #: "checklist 6/9 from the charge, 4 more in the pack; missing (required): ...".
    checklist: str | None = None

    def line(self) -> str:
        """ "Fight or accept? 296.49 at stake, fee 25.00 · fraud here: won 1, lost 3 · ≈ due in
        2 d · checklist 6/9 from the charge, 4 more in the pack · leans accept: …; yours to
        decide" """
        stake = f"{self.amount:,.2f} at stake" if self.amount is not None else "amount not shown"
        record = (
            f"{self.category} here: won {self.won}, lost {self.lost}"
            if self.won or self.lost
            else f"{self.category} here: no case decided yet"
        )
        parts = [f"Fight or accept? {stake}, fee {self.fee:,.2f}", record]
        if self.left:
            parts.append(self.left)
        if self.checklist:
            parts.append(self.checklist)
        lean = {"fight": "leans fight", "accept": "leans accept"}.get(self.lean, "no lean")
        parts.append(f"{lean} ({self.why}); yours to decide")
        return " · ".join(parts)


def _lean(amount: Decimal | None, fee: Decimal, won: int, lost: int) -> tuple[str, str]:
    if amount is not None and amount <= fee:
        return "accept", "the fee is as much as the amount"
    decided = won + lost
    if decided < MIN_RECORD:
        return "none", f"fewer than {MIN_RECORD} cases of it decided"
    if amount is not None and Decimal(won) / decided * amount <= fee:
        return "accept", f"won {won} of {decided}: the odds do not cover the fee"
    if won * 2 >= decided:
        return "fight", f"won {won} of {decided}"
    return "none", f"won {won} of {decided}"


def advice_for(
    case: Case,
    charge: Any,
    amount: Decimal | None,
    fee: Decimal,
    record: Record,
    now: datetime,
    checklist: str | None = None,
) -> Advice:
    """The advice on one open chargeback (`case`, from `paytui.today.cases.case_of`);
    `checklist`: the pack's checklist score in words, when known."""
    category = case.reason.category if case.reason is not None else UNKNOWN
    won, lost = record.of(merchant_of(charge), category)
    lean, why = _lean(amount, fee, won, lost)
    return Advice(amount, fee, category, won, lost, case.left_text(now), lean, why, checklist)
