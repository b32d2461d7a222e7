"""What a person saw when they decided: the state a money action is tied to.

A refund decided on "40.00 left, no refunds yet" must not be sent once another refund of the same
charge went through meanwhile — by the command line, a colleague's dashboard, the service's own
web pages. So the dialog (or the command) takes a `Basis` when it *reads* the charge, before the
person decides: the journal's newest entry at that moment (and which entries of the same action
were still in flight), and what the service showed — the charge's status, its refunds, what was
left, its capture. Just before sending, the executor reads the service again and the journal
checks, in the same cross-process transaction as the intent, that nothing was done since
(`ActionExecutor._intend`). Anything that matters changed → nothing is sent (`TargetChanged`).

The comparison is by what the service says (status, refund ids, the capture, chargebacks, tags:
`paytui.actions.stale`), so an action taken outside paytui (no journal entry) is seen too; the
journal adds who did it and when.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from paytui.api.queries import RefundQuery

if TYPE_CHECKING:
    from paytui.actions.claims import Claim
    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge, Refund

__all__ = [
    "Basis",
    "ChargebackSeen",
    "RefundSeen",
    "chargebacks_of",
    "read_refunds",
    "refunded_total",
    "tags_of",
]

#: Pages of a charge's refunds read at most (100 each): a charge with more is not a normal one.
_MAX_PAGES = 20


@dataclass(frozen=True)
class RefundSeen:
    """One refund of the charge as the service showed it."""

    refund_id: str
    amount: Decimal | None
    at: datetime | None
    status: str | None


@dataclass(frozen=True)
class ChargebackSeen:
    """One chargeback of the charge as the service showed it (its id, else its place)."""

    key: str
    status: str | None
    amount: Decimal | None


def chargebacks_of(charge: Charge) -> tuple[ChargebackSeen, ...]:
    """The charge's chargebacks as shown (`Chargebacks.items`; an item without an id is known by
    its place and date). A service that lists no items but a total shows it as one, keyed
    ``total``: a total that moved is a change too."""
    block = charge.chargebacks
    if block is None:
        return ()
    items = block.items or []
    seen = tuple(
        ChargebackSeen(
            item.chargeback_id or f"#{n}:{item.chargeback_timestamp}", item.status, item.amount
        )
        for n, item in enumerate(items)
    )
    if not seen and block.total_amount:
        return (ChargebackSeen("total", None, block.total_amount),)
    return seen


def tags_of(charge: Charge) -> tuple[str, ...]:
    """The charge's tags, in order of appearance, once each (what a person read on it)."""
    return tuple(dict.fromkeys(charge.tags or ()))


@dataclass(frozen=True)
class Basis:
    """The state an action's decision was made on (see the module's docstring).

    `journal_mark` is the newest journal entry id when the read began; `in_flight` the entries of
    the same action and target that were unsettled then (a success of theirs was not seen).
    `shown` says a person was shown the charge's earlier refunds before confirming (the dialog's
    review lists them); a command with ``--yes`` has no eyes, so an identical recent refund is
    not "seen" there.
    """

    operation: str
    target: str
    seen_at: datetime
    journal_mark: int
    in_flight: frozenset[int] = frozenset()
    status: str | None = None
    charged: Decimal | None = None
    refunds: tuple[RefundSeen, ...] = ()
    left: Decimal | None = None
    capture_id: str | None = None
    #: The charge's chargebacks and tags as read (a dispute that arrives, a "do not refund" tag
    #: added, by anyone, stop the action: `paytui.actions.stale`).
    chargebacks: tuple[ChargebackSeen, ...] = ()
    tags: tuple[str, ...] = ()
    shown: bool = False
    #: The charge as read (for the dialog to show); not part of the comparison.
    charge: Charge | None = field(default=None, compare=False, repr=False)
    #: Another agent's live claim on the target when it was read (a warning, not a lock).
    claim: Claim | None = field(default=None, compare=False)

    @property
    def refund_ids(self) -> frozenset[str]:
        return frozenset(r.refund_id for r in self.refunds)

    def to_view(self) -> str:
        """What was seen, as canonical JSON (an approval request is bound to it, and sent on
        it: `from_view`). The charge and the claim are for people, not part of it."""
        import json

        def money(value: Decimal | None) -> str | None:
            return None if value is None else str(value)

        return json.dumps(
            {
                "operation": self.operation,
                "target": self.target,
                "seen_at": self.seen_at.isoformat(),
                "journal_mark": self.journal_mark,
                "in_flight": sorted(self.in_flight),
                "status": self.status,
                "charged": money(self.charged),
                "refunds": [
                    [r.refund_id, money(r.amount), r.at.isoformat() if r.at else None, r.status]
                    for r in self.refunds
                ],
                "left": money(self.left),
                "capture_id": self.capture_id,
                "chargebacks": [[c.key, c.status, money(c.amount)] for c in self.chargebacks],
                "tags": list(self.tags),
                "shown": self.shown,
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def from_view(cls, text: str) -> Basis:
        """The basis `to_view` wrote (`ValueError` for text that is not one)."""
        import json

        def money(value: str | None) -> Decimal | None:
            return None if value is None else Decimal(value)

        try:
            seen = json.loads(text)
            return cls(
                operation=seen["operation"],
                target=seen["target"],
                seen_at=datetime.fromisoformat(seen["seen_at"]),
                journal_mark=int(seen["journal_mark"]),
                in_flight=frozenset(int(n) for n in seen["in_flight"]),
                status=seen["status"],
                charged=money(seen["charged"]),
                refunds=tuple(
                    RefundSeen(rid, money(amount), datetime.fromisoformat(at) if at else None, st)
                    for rid, amount, at, st in seen["refunds"]
                ),
                left=money(seen["left"]),
                capture_id=seen["capture_id"],
                chargebacks=tuple(
                    ChargebackSeen(key, st, money(amount))
                    for key, st, amount in seen["chargebacks"]
                ),
                tags=tuple(seen["tags"]),
                shown=bool(seen["shown"]),
            )
        except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
            raise ValueError(f"not a view paytui wrote: {exc}") from None

    def with_shown(self) -> Basis:
        """The same state, marked as shown to a person (the review listed its refunds)."""
        from dataclasses import replace

        return replace(self, shown=True)


async def read_refunds(client: PaymentClient, charge_id: str) -> tuple[RefundSeen, ...]:
    """Every refund of `charge_id` the service lists, checked here: a row naming another charge
    is dropped (a service that ignored the filter cannot pass its rows off as this charge's)."""
    seen: list[RefundSeen] = []
    pages = 0
    async for page in client.search_refunds(RefundQuery(charge_id=charge_id), page_size=100):
        seen.extend(_seen(r) for r in page.items if r.charge_id in (None, charge_id))
        pages += 1
        if pages >= _MAX_PAGES:
            break
    return tuple(seen)


def refunded_total(refunds: tuple[RefundSeen, ...]) -> Decimal:
    return sum((r.amount or Decimal(0) for r in refunds), Decimal(0))


def _seen(refund: Refund) -> RefundSeen:
    return RefundSeen(
        refund_id=refund.refund_id,
        amount=refund.total_amount,
        at=refund.refund_timestamp or refund.last_updated_timestamp,
        status=refund.status,
    )
