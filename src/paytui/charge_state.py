"""A charge's state in words (Refunded, Partly refunded, Disputed, Returned, Captured), and how
much of it was refunded and is left: the one rule of the lists and the detail header.

A word comes only from what the service shows (docs/screens.md, "State words"):

- Disputed: the row's status is ``chargeback``, or its ``chargebacks`` object lists an item or
  a non-zero total (the spec's ``status:chargeback`` filter finds these);
- Returned: the status is ``return``, or the row carries a ``return`` object;
- Captured: ``captured_charge_id`` names a capture (the sandbox's shortcut, said in
  docs/api-assumptions.md), or a capture whose ``original_charge_id`` names this authorization
  was found (`paytui.api.captures.find_capture`, passed in as `capture_id`);
- Refunded / Partly refunded: only from the charge's refunds as listed by the service
  (`refunds_position`), rows naming another charge dropped and every page read. A charge row
  carries no refund total: ``reversal_flag`` has no documented meaning (api-facts), so nothing
  is drawn from it, and a row whose refunds were not read shows no refund word.

No Textual: the command line and the screens share it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = ["RefundPosition", "refunds_position", "state_words"]

REFUNDED = "Refunded"
PARTLY_REFUNDED = "Partly refunded"
DISPUTED = "Disputed"
RETURNED = "Returned"
CAPTURED = "Captured"


@dataclass(frozen=True)
class RefundPosition:
    """What the service's refunds of one charge add up to.

    `complete` is False when not every refund could be read (a page cut short): then `refunded`
    is a floor, `left` is None (not known) and no refund word is given.
    """

    refunded: Decimal
    left: Decimal | None
    count: int
    complete: bool

    @property
    def word(self) -> str | None:
        """Refunded (nothing left), Partly refunded, or None (none, or not all read)."""
        if not self.complete or self.refunded <= 0:
            return None
        return REFUNDED if self.left is not None and self.left <= 0 else PARTLY_REFUNDED


def _amount(value: object) -> Decimal | None:
    return value if isinstance(value, Decimal) else None


def refunds_position(
    charge_id: str, total: object, refunds: Iterable[Any], *, complete: bool = True
) -> RefundPosition:
    """Refunded so far and left to refund of a charge of `total`, from its `refunds` as listed
    (`Refund` models or `basis.RefundSeen`). A refund naming another charge is not counted (a
    service ignoring the `charge_id` filter cannot lend this charge another's refunds); one
    without an amount makes the sum unknown (`complete` False)."""
    refunded = Decimal(0)
    count = 0
    for refund in refunds:
        named = getattr(refund, "charge_id", charge_id)
        if named not in (None, charge_id):
            continue
        amount = _amount(getattr(refund, "total_amount", getattr(refund, "amount", None)))
        if amount is None:
            complete = False
            continue
        refunded += amount
        count += 1
    charged = _amount(total)
    left = max(Decimal(0), charged - refunded) if charged is not None and complete else None
    return RefundPosition(refunded=refunded, left=left, count=count, complete=complete)


def _disputed(charge: Any) -> bool:
    if getattr(charge, "status", None) == "chargeback":
        return True
    chargebacks = getattr(charge, "chargebacks", None)
    if chargebacks is None:
        return False
    if getattr(chargebacks, "items", None):
        return True
    total = _amount(getattr(chargebacks, "total_amount", None))
    return total is not None and total > 0


def _returned(charge: Any) -> bool:
    return getattr(charge, "status", None) == "return" or (
        getattr(charge, "return_info", None) is not None
    )


def state_words(
    charge: Any, *, refunds: RefundPosition | None = None, capture_id: str | None = None
) -> tuple[str, ...]:
    """The state words a charge shows, most pressing first (see the module's rule)."""
    words: list[str] = []
    if _disputed(charge):
        words.append(DISPUTED)
    if _returned(charge):
        words.append(RETURNED)
    word = refunds.word if refunds is not None else None
    if word is not None:
        words.append(word)
    if getattr(charge, "captured_charge_id", None) or capture_id:
        words.append(CAPTURED)
    return tuple(words)
