"""A charge's state in words (Refunded, Partly refunded, Disputed, Returned, Captured), and how
much of it was refunded and is left: the one rule of the lists and the detail header.

A word comes only from what the service shows (docs/screens.md, "State words"):

- Disputed (open), Won, Lost: the row's status is ``chargeback``, or its ``chargebacks`` object
  lists an item or a non-zero total (the spec's ``status:chargeback`` filter finds these); which
  of the three by the items' ``status`` (`dispute_state`; the inner fields are not in the spec,
  the sandbox's are docs/api-assumptions.md's guess). A dispute whose status is not shown is
  ``Disputed (?)``;
- Returned: the status is ``return``, or the row carries a ``return`` object;
- Captured: ``captured_charge_id`` names a capture (the sandbox's shortcut, said in
  docs/api-assumptions.md), or a capture whose ``original_charge_id`` names this authorization
  was found (`paytui.api.captures.find_capture`, passed in as `capture_id`);
- Refunded / Partly refunded: only from the charge's refunds as listed by the service
  (`refunds_position`), rows naming another charge dropped and every page read. A charge row
  carries no refund total: ``reversal_flag`` has no documented meaning (api-facts), so nothing
  is drawn from it. A row that may have refunds whose refunds are not read (yet, or not whole)
  shows ``?``: never a blank that means "not known" (`refund_state`).

The command line's rows carry the same as `refund_state` (none, partial, full, unknown) and
`dispute_state` (none, open, won, lost, unknown).

No Textual: the command line and the screens share it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any

__all__ = [
    "DISPUTE_STATES",
    "REFUND_STATES",
    "RefundPosition",
    "chargeback_state",
    "chargeback_words",
    "dispute_state",
    "may_have_refunds",
    "refund_state",
    "refunds_position",
    "state_words",
]

REFUNDED = "Refunded"
PARTLY_REFUNDED = "Partly refunded"
DISPUTED = "Disputed"
DISPUTED_OPEN = "Disputed (open)"
DISPUTED_UNKNOWN = "Disputed (?)"
WON = "Won"
LOST = "Lost"
UNKNOWN = "?"
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


#: `refund_state` values: no refund, part of the charge refunded, all of it, not known (yet).
REFUND_STATES = ("none", "partial", "full", "unknown")
#: `dispute_state` values: no chargeback, one open, won, lost, a chargeback of unknown outcome.
DISPUTE_STATES = ("none", "open", "won", "lost", "unknown")

#: A chargeback item's ``status`` as services spell it (folded), to the state it means. Anything
#: else (or none) is ``unknown``: a dispute whose outcome is not shown is never called won.
_DISPUTE_WORDS = {
    **dict.fromkeys(
        ("open", "opened", "pending", "new", "received", "needs_response", "under_review",
         "in_review", "responded", "pre_arbitration", "arbitration", "warning_needs_response"),
        "open",
    ),
    **dict.fromkeys(("won", "reversed", "merchant_won", "closed_won"), "won"),
    **dict.fromkeys(("lost", "accepted", "merchant_lost", "closed_lost", "charged_back"), "lost"),
}  # fmt: skip


#: Statuses of charges that moved no money (the registry's known refusals of a refund).
NO_MONEY_STATUSES = ("declined", "voided")


@cache
def _refund_rule() -> Callable[[Any], str | None]:
    """The action registry's refund rule (`registry.rule_for`), imported on first use (the
    first paint's rows must not import it) and then kept: `may_have_refunds` asks it per row."""
    from paytui.actions.registry import rule_for

    return rule_for("refund")


def may_have_refunds(charge: Any) -> bool:
    """Can this charge have refunds of its own: one the action registry would refund (a sale or
    capture that moved money, in a status paytui knows or one it does not), or one charged back
    or returned since? A declined or voided charge and an authorization (its capture is the
    charge refunded) have none: their refund state is ``none``."""
    if getattr(charge, "is_authorization", False):
        return False
    status = getattr(charge, "status", None)
    if status in ("chargeback", "return"):
        return True
    if status in NO_MONEY_STATUSES:
        return False
    return _refund_rule()(charge) is None


def refund_state(
    charge: Any, refunds: RefundPosition | None, *, may_refund: bool | None = None
) -> str:
    """``none``, ``partial``, ``full`` or ``unknown`` (see `REFUND_STATES`): from the charge's
    refunds as read (`refunds_position`); ``unknown`` when they were not read whole.
    `may_refund`: `may_have_refunds` already told (the first paint's rows, which must not
    import the registry's models: True there unless the status says no money moved)."""
    if not (may_have_refunds(charge) if may_refund is None else may_refund):
        return "none"
    if refunds is None or not refunds.complete:
        return "unknown"
    if refunds.refunded <= 0:
        return "none"
    return "full" if refunds.left is not None and refunds.left <= 0 else "partial"


def chargeback_state(item: Any) -> str:
    """One chargeback's state from its ``status`` as the service spells it: ``open``, ``won``,
    ``lost``, or ``unknown`` (a word paytui does not know, or none): the one rule of the lists,
    Today, the customer's screen and the charge's header."""
    word = str(getattr(item, "status", None) or "").strip().casefold()
    return _DISPUTE_WORDS.get(word, "unknown")


def dispute_state(charge: Any) -> str:
    """``none``, ``open``, ``won``, ``lost`` or ``unknown`` (see `DISPUTE_STATES`). Several
    chargebacks: any open one makes the charge ``open``, else any lost one ``lost``; ``won``
    only when every one shows it was won."""
    if not _disputed(charge):
        return "none"
    chargebacks = getattr(charge, "chargebacks", None)
    items = getattr(chargebacks, "items", None) or []
    states = {chargeback_state(item) for item in items}
    if not states:
        return "unknown"
    for state in ("open", "unknown", "lost"):
        if state in states:
            return state
    return "won"


_DISPUTE_STATE_WORDS = {
    "open": DISPUTED_OPEN,
    "won": WON,
    "lost": LOST,
    "unknown": DISPUTED_UNKNOWN,
}
_REFUND_STATE_WORDS = {"partial": PARTLY_REFUNDED, "full": REFUNDED, "unknown": UNKNOWN}


def chargeback_words(item: Any) -> tuple[str, ...]:
    """The state word of one chargeback (a row of the customer's screen): ``Disputed (open)``,
    ``Won``, ``Lost`` or ``Disputed (?)``, as a charge with that one chargeback shows."""
    return (_DISPUTE_STATE_WORDS[chargeback_state(item)],)


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
    charge: Any,
    *,
    refunds: RefundPosition | None = None,
    capture_id: str | None = None,
    may_refund: bool | None = None,
    dispute: str | None = None,
) -> tuple[str, ...]:
    """The state words a charge shows, most pressing first (see the module's rule); `refunds`
    None: not read (``?`` on a charge that may have refunds). `may_refund`, `dispute`: already
    told (`may_have_refunds`, `dispute_state`: the first paint's rows carry them)."""
    words: list[str] = []
    disputed = _DISPUTE_STATE_WORDS.get(dispute if dispute is not None else dispute_state(charge))
    if disputed is not None:
        words.append(disputed)
    if _returned(charge):
        words.append(RETURNED)
    refund = _REFUND_STATE_WORDS.get(refund_state(charge, refunds, may_refund=may_refund))
    if refund is not None:
        words.append(refund)
    if getattr(charge, "captured_charge_id", None) or capture_id:
        words.append(CAPTURED)
    return tuple(words)


async def read_positions(
    client: Any, charges: Iterable[Any], *, at_once: int = 4, page_size: int = 100
) -> dict[str, RefundPosition]:
    """The refunds of each charge that may have some (`may_have_refunds`), `at_once` reads at a
    time: what each one's refunds add up to, by charge id. A charge's refunds count only from a
    list that honoured the ``charge_id`` filter and was read to its end (`page_size` rows); a
    read that failed or was cut leaves the charge out (its state stays ``unknown``)."""
    import asyncio

    from paytui.api.queries import RefundQuery

    gate = asyncio.Semaphore(max(1, at_once))

    async def one(charge: Any) -> tuple[str, RefundPosition | None]:
        charge_id = str(charge.charge_id)
        query = RefundQuery(charge_id=charge_id)
        async with gate:
            try:
                page = await client.search_refunds_page(query, limit=page_size)
            except Exception:  # a hint only: the row says "?" as before the read
                return charge_id, None
        refunds = [refund for refund in page.items if not query.contradicted_by(refund)]
        whole = page.ignored_note is None and not page.has_more
        total = getattr(charge, "total_amount", None)
        return charge_id, refunds_position(charge_id, total, refunds, complete=whole)

    wanted = {str(c.charge_id): c for c in charges if may_have_refunds(c)}
    found = await asyncio.gather(*(one(c) for c in wanted.values()))
    return {charge_id: position for charge_id, position in found if position is not None}
