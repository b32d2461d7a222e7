"""The second service's seeded, in-memory data: 126 charges over 3 accounts.

Deterministic (a fixed seed). Charges are kept newest first. Among them: card and bank sales,
authorizations (some captured, the capture a new charge with `original_charge_id`), chargebacks
(status `chargeback`, a `chargebacks` object), ACH returns (status `return`), and refunds of
some sales.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

CHARGE_COUNT = 126
ACCOUNTS = (
    {"account_id": "pa_second_alpha", "merchant_id": "mt_second_one", "status": "active"},
    {"account_id": "pa_second_beta", "merchant_id": "mt_second_one", "status": "active"},
    {"account_id": "pa_second_gamma", "merchant_id": "mt_second_two", "status": "in_review"},
)
NAMES = (
    ("Ada", "Lovelace"),
    ("Edsger", "Dijkstra"),
    ("Grace", "Hopper"),
    ("Alan", "Turing"),
    ("Barbara", "Liskov"),
    ("Donald", "Knuth"),
    ("Frances", "Allen"),
)
START = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


def stamp(moment: datetime) -> str:
    """`2022-02-11T19:45:03.115Z`: ISO 8601 UTC with milliseconds (api-facts.md)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class StoredCharge:
    charge_id: str
    moment: datetime
    account_id: str
    merchant_id: str
    amount: Decimal
    method: str  # card | bank_account
    last4: str
    first_name: str
    last_name: str
    status: str | None = "success"
    result_code: str = "Approved"
    charge_type: str = "sale"  # sale | authorization | capture
    original_charge_id: str | None = None
    captured_charge_id: str | None = None
    tags: list[str] = field(default_factory=list)
    chargeback: bool = False
    #: Fields laid over its JSON (`ServiceOptions.answers`): None leaves a field out.
    fields: dict[str, Any] = field(default_factory=dict)
    attributes: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class StoredRefund:
    refund_id: str
    charge_id: str
    account_id: str
    amount: Decimal
    moment: datetime
    tags: list[str] = field(default_factory=list)
    status: str | None = "success"
    #: Fields laid over its JSON (`ServiceOptions.answers`): None leaves a field out.
    fields: dict[str, Any] = field(default_factory=dict)
    attributes: dict[str, list[str]] = field(default_factory=dict)


#: Statuses of a refund that moved (or holds) money: the others (failed, declined...) moved none.
HOLDING = frozenset({"success", "succeeded", "pending", "processing", None})


#: With lifecycle statuses, the newest charges not settled yet (the rest show `settled`).
SETTLE_AFTER = 20
#: Charge statuses that say a processed sale or capture is still standing (money moved).
STANDING = ("success", "settled", "partially_refunded")
#: Charge statuses it refuses a refund for: the money went back, or never moved.
GONE = ("chargeback", "return", "refunded", "declined", "failed", "voided")


class Store:
    """Charges (newest first), refunds and accounts; ids from a seeded generator."""

    def __init__(self, seed: int = 23, count: int = CHARGE_COUNT) -> None:
        #: Lifecycle statuses on (`ServiceOptions.lifecycle_statuses`, `use_lifecycle`).
        self.lifecycle = False
        self._random = random.Random(seed)
        self.charges: list[StoredCharge] = []
        self.refunds: list[StoredRefund] = []
        self.accounts = [dict(account) for account in ACCOUNTS]
        self.clock = START
        self._seed(count)

    # --- ids and time --------------------------------------------------------------------------
    def new_id(self) -> str:
        """24 lowercase hex characters, like the real service's charge ids."""
        return f"{self._random.getrandbits(96):024x}"

    def tick(self) -> datetime:
        self.clock += timedelta(minutes=37, milliseconds=self._random.randrange(1000))
        return self.clock

    # --- seeding -------------------------------------------------------------------------------
    def _seed(self, count: int) -> None:
        made: list[StoredCharge] = []
        index = 0
        while len(made) < count:
            account = ACCOUNTS[index % len(ACCOUNTS)]
            first, last = NAMES[index % len(NAMES)]
            card = index % 4 != 3
            kind = "authorization" if index % 6 == 1 else "sale"
            charge = StoredCharge(
                charge_id=self.new_id(),
                moment=self.tick(),
                account_id=account["account_id"],
                merchant_id=account["merchant_id"],
                amount=Decimal(10 + (index * 7) % 190) + Decimal(index % 100) / 100,
                method="card" if card else "bank_account",
                last4="1111" if card else f"{1000 + index:04d}"[-4:],
                first_name=first,
                last_name=last,
                result_code=result_code_for(kind, card=card),
                charge_type=kind,
                tags=["vip"] if index % 7 == 0 else (["web"] if index % 5 == 0 else []),
            )
            if kind == "sale" and card and index % 11 == 4:
                charge.status, charge.chargeback = "chargeback", True
            if kind == "sale" and not card and index % 8 == 7:
                charge.status = "return"
            made.append(charge)
            if kind == "authorization" and index % 4 == 1 and len(made) < count:
                made.append(self._capture_of(charge))
            index += 1
        self.charges = sorted(made, key=lambda c: c.moment, reverse=True)
        for position, charge in enumerate(reversed(self.charges)):
            if charge.charge_type == "sale" and charge.status == "success":
                if position % 9 == 2:
                    self.add_refund(charge, Decimal(5))
                elif position % 13 == 5:
                    self.add_refund(charge, self.refundable(charge))

    def _capture_of(self, authorization: StoredCharge) -> StoredCharge:
        capture = StoredCharge(
            charge_id=self.new_id(),
            moment=self.tick(),
            account_id=authorization.account_id,
            merchant_id=authorization.merchant_id,
            amount=authorization.amount,
            method=authorization.method,
            last4=authorization.last4,
            first_name=authorization.first_name,
            last_name=authorization.last_name,
            charge_type="capture",
            original_charge_id=authorization.charge_id,
        )
        authorization.captured_charge_id = capture.charge_id
        return capture

    def use_lifecycle(self) -> None:
        """Show the statuses of a charge's life (`ServiceOptions.lifecycle_statuses`): each
        sale and capture as it stands now, and from here on as refunds are made."""
        self.lifecycle = True
        for position, charge in enumerate(self.charges):
            if charge.charge_type == "authorization" or charge.status != "success":
                continue
            self._restate(charge, settled=position >= SETTLE_AFTER)

    def _restate(self, charge: StoredCharge, *, settled: bool) -> None:
        left = self.refundable(charge)
        if left <= 0:
            charge.status = "refunded"
        elif left < charge.amount:
            charge.status = "partially_refunded"
        elif settled:
            charge.status = "settled"

    # --- reads and writes ----------------------------------------------------------------------
    def charge(self, charge_id: str) -> StoredCharge | None:
        return next((c for c in self.charges if c.charge_id == charge_id), None)

    def refund(self, refund_id: str) -> StoredRefund | None:
        return next((r for r in self.refunds if r.refund_id == refund_id), None)

    def account(self, account_id: str) -> dict[str, Any] | None:
        return next((a for a in self.accounts if a["account_id"] == account_id), None)

    def refundable(self, charge: StoredCharge) -> Decimal:
        refunded = sum(
            (
                r.amount
                for r in self.refunds
                if r.charge_id == charge.charge_id and r.status in HOLDING
            ),
            Decimal(0),
        )
        return charge.amount - refunded

    def add_charge(self, charge: StoredCharge) -> StoredCharge:
        self.charges.insert(0, charge)
        return charge

    def capture(self, authorization: StoredCharge) -> StoredCharge:
        return self.add_charge(self._capture_of(authorization))

    def add_refund(self, charge: StoredCharge, amount: Decimal) -> StoredRefund:
        refund = StoredRefund(
            refund_id=self.new_id(),
            charge_id=charge.charge_id,
            account_id=charge.account_id,
            amount=amount,
            moment=self.tick(),
        )
        self.refunds.insert(0, refund)
        if self.lifecycle and charge.status in STANDING:
            self._restate(charge, settled=charge.status == "settled")
        return refund


def result_code_for(kind: str, *, card: bool) -> str:
    """The result code of an approved charge of `kind`, as the spec's examples show them."""
    if kind == "authorization":
        return "Authorized"
    return "Approved" if card else "ProcessorPendingACHSale"
