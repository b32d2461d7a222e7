"""Deterministic demo data: `build_database(path, charges=3000, seed=7, anchor=...)`.

Everything comes from one `random.Random(seed)` and the anchor time, so the same arguments always
produce the same database (ids included); tests and snapshots rely on that (they pass
`DEFAULT_ANCHOR`). The history runs back about 180 days from `anchor`; the demo database a user
gets is anchored at the current hour (`demo_anchor`), so `from:yesterday` and `on:today` find
charges, and `paytui.sandbox.demo_state` tells when it has fallen behind today. Rows are
bulk-inserted in one transaction and the indexes are built afterwards, which keeps 100,000 charges
well under a minute.

Card and bank numbers are never stored: a charge keeps the last four digits, the length (for the
mask) and the brand only.

Why one module of more than 800 lines: the demo is one random stream read in one order; split
across modules, a change in one part would move every value the others draw (ids, amounts,
dates), and the tests and snapshots built on them.
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from paytui.reason_codes import REASON_CODES
from paytui.replacing import refuse_unless_regular
from paytui.sandbox import conversations, schema
from paytui.sandbox.ledger import (
    INSERT_CHARGE,
    INSERT_DOC,
    PASSED,
    SUCCESS_TEXT,
    attr_rows,
    charge_doc,
    charge_row,
    chargeback_item,
    refund_doc,
    tag_rows,
    totals,
)
from paytui.sandbox.names import all_name_rows
from paytui.sandbox.store import STATUS_MESSAGES, dumps
from paytui.sandbox.wire import add_years, iso_ms, money_out

DEFAULT_ANCHOR = datetime(2026, 11, 20, 18, tzinfo=UTC)
HISTORY_DAYS = 180


def demo_anchor(now: datetime | None = None) -> datetime:
    """Where a user's demo data ends: the current hour (UTC), so it reaches today.

    An hour, not the second: two builds in the same hour with the same seed are identical.
    """
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.replace(minute=0, second=0, microsecond=0)


# (brand, last4, length, weight): the common sandbox test cards, visa 4111... most of all.
CARDS = (
    ("visa", "1111", 16, 60),
    ("visa", "1881", 16, 6),
    ("mastercard", "4444", 16, 12),
    ("mastercard", "5100", 16, 4),
    ("mastercard", "3222", 16, 3),
    ("amex", "0005", 15, 8),
    ("discover", "1117", 16, 7),
)
BANK_LAST4 = ("1111", "4321", "7788", "0420", "9051")

CUSTOMERS = (
    ("Ada", "Lovelace"), ("Grace", "Hopper"), ("Alan", "Turing"), ("Edsger", "Dijkstra"),
    ("Barbara", "Liskov"), ("Donald", "Knuth"), ("Margaret", "Hamilton"), ("Ken", "Thompson"),
    ("Frances", "Allen"), ("John", "Backus"), ("Radia", "Perlman"), ("Tim", "Berners-Lee"),
    ("Katherine", "Johnson"), ("Linus", "Torvalds"), ("Hedy", "Lamarr"), ("Dennis", "Ritchie"),
    ("Sophie", "Wilson"), ("Guido", "van Rossum"), ("Annie", "Easley"), ("Niklaus", "Wirth"),
    ("Joan", "Clarke"), ("Claude", "Shannon"), ("Mary", "Keller"), ("Bjarne", "Stroustrup"),
    ("Evelyn", "Boyd"), ("Leslie", "Lamport"), ("Karen", "Spärck Jones"), ("José", "Núñez"),
    ("Zoë", "O'Brien"), ("Mei", "Chen"), ("Olu", "Adeyemi"), ("Priya", "Raman"),
    ("[bold red]Mallory[/]", "Hacker"), ("Chidi", "Okafor"), ("Ingrid", "Solberg"),
    ("Tomás", "García"), ("Yuki", "Tanaka"), ("Fatima", "Haddad"), ("Lars", "Eriksen"),
    ("Amara", "Nwosu"),
)  # fmt: skip
TAG_POOL = (
    "vip",
    "subscription",
    "phone-order",
    "wholesale",
    "web",
    "retail",
    "recurring",
    "gift",
    "promo",
)
REFUND_REASONS = ("customer request", "damaged item", "duplicate charge", "order cancelled")
#: The history's chargebacks: four kinds of dispute (card-absent fraud, not received, not as
#: described, duplicate), each in its own network's code (`paytui.reason_codes`, whose words
#: the chargeback carries): a Mastercard is never charged back with a Visa code.
CHARGEBACK_KINDS = ("fraud", "not_received", "not_as_described", "duplicate")
CHARGEBACK_CODES: dict[str, tuple[str, str, str, str]] = {
    "visa": ("10.4", "13.1", "13.3", "12.6"),
    "mastercard": ("4837", "4855", "4853", "4834"),
    "amex": ("F29", "C08", "C31", "P08"),
    "discover": ("UA02", "RG", "RM", "DP"),
}
RETURN_REASONS = (
    ("R01", "Insufficient funds"),
    ("R02", "Account closed"),
    ("R03", "No account / unable to locate account"),
    ("R10", "Customer advises not authorized"),
)

#: Cases to practise on, dated back from the anchor (docs/today.md, "The demo"): open
#: chargebacks of the last two weeks, across networks, reason categories (fraud, authorization,
#: processing error, consumer dispute) and stages: (days before the anchor, brand, last4,
#: length, reason code, stage, customer).
PRACTICE_CHARGEBACKS: tuple[tuple[float, str, str, int, str, str, tuple[str, str]], ...] = (
    (1.2, "visa", "1111", 16, "12.6", "chargeback", ("Nina", "Petrova")),
    (2.5, "visa", "1881", 16, "10.4", "chargeback", ("Omar", "Haddad")),
    (4.1, "amex", "0005", 15, "C08", "chargeback", ("Lucía", "Ferrer")),
    (6.3, "visa", "1111", 16, "13.1", "chargeback", ("Ravi", "Menon")),
    (8.0, "visa", "1111", 16, "11.3", "chargeback", ("Ines", "Duarte")),
    (9.4, "mastercard", "4444", 16, "4837", "chargeback", ("Kwame", "Mensah")),
    (11.8, "mastercard", "5100", 16, "4853", "pre_arbitration", ("Helga", "Lindqvist")),
    (13.2, "discover", "1117", 16, "UA02", "arbitration", ("Tariq", "Aziz")),
)
#: What the merchant stored on some practice cases (the evidence pack reads these attributes:
#: docs/evidence.md): the card-absent fraud case of Omar Haddad (10.4) has a customer id, an IP
#: address, a device and an address, and so do his earlier charges (`PRIOR_DAYS`); Kwame
#: Mensah's (4837) has them too, and no earlier charge; Lucía Ferrer's "not received" (C08)
#: has a tracking number, Ravi Menon's (13.1) nothing of a delivery.
PRACTICE_ATTRIBUTES: dict[str, dict[str, list[str]]] = {
    "10.4": {
        "customer_id": ["C-2002"],
        "email": ["omar.haddad@example.com"],
        "ip_address": ["198.51.100.23"],
        "device_id": ["dv-5c1e9a4f"],
        "shipping_address": ["14 Cedar Row, Springfield, IL 62704"],
    },
    "4837": {
        "customer_id": ["C-2006"],
        "email": ["kwame.mensah@example.com"],
        "ip_address": ["203.0.113.77"],
        "device_id": ["dv-0b7d2e11"],
    },
    "C08": {
        "shipping_address": ["Calle Mayor 3, 28013 Madrid"],
        "carrier": ["Correos"],
        "tracking_number": ["PQ4F7K2L9ES"],
    },
}
#: Omar Haddad's earlier charges on the same card, days before his disputed one: two that
#: Compelling Evidence 3.0 counts (120-365 days before, matching on IP and device), and one too
#: recent to count.
PRIOR_DAYS: tuple[float, ...] = (150.0, 210.0, 60.0)
#: The charges the practice cases add beyond the `charges` asked for (`build_database`): the
#: chargebacks, a duplicate pair, a hold that ends today, a return of yesterday and the earlier
#: charges of a fraud case.
PRACTICE_COUNT = len(PRACTICE_CHARGEBACKS) + 4 + len(PRIOR_DAYS)

# merchant name, merchant status, [(account name, status, mcc, channel tag, weight, extras)]
MERCHANTS: tuple[tuple[str, str, tuple[tuple[str, str, str, str, int], ...]], ...] = (
    ("Blue Fern Coffee Roasters", "active", (
        ("Blue Fern Café POS", "approved", "5814", "retail", 30),
        ("Blue Fern Online Store", "approved", "5499", "web", 22),
    )),
    ("Northwind Hardware Supply", "active", (
        ("Northwind Wholesale", "approved", "5072", "wholesale", 14),
        ("Northwind Counter", "approved", "5251", "retail", 12),
        ("Northwind Phone Orders", "suspended", "5251", "phone-order", 2),
    )),
    ("Harbor Light Dental", "active", (
        ("Harbor Light Front Desk", "approved", "8021", "retail", 10),
        ("Harbor Light Payment Plans", "info_required", "8021", "subscription", 0),
    )),
    ("Copperline Cycles", "active", (
        ("Copperline Shop", "approved", "5940", "retail", 8),
        ("Copperline Rentals", "in_review", "7999", "web", 0),
    )),
    ("Meadow & Pine Florist", "boarding", (
        ("Meadow & Pine Storefront", "submitted", "5992", "retail", 0),
        ("Meadow & Pine Weddings", "draft", "5992", "web", 0),
    )),
    ("Quartz Street Books", "closed", (
        ("Quartz Street Register", "closed", "5942", "retail", 2),
        ("Quartz Street Events", "declined", "7922", "web", 0),
    )),
    ("Lakeside Township Tax Office", "active", (
        ("Lakeside Property Tax", "approved", "9311", "web", 3),
    )),
)  # fmt: skip

#: Processing limits (fees included) other than the default 10,000 (`plugin_rules`).
ACCOUNT_LIMITS: dict[str, int] = {
    "Northwind Wholesale": 25000,
    "Lakeside Property Tax": 50000,
    "Blue Fern Café POS": 5000,
}


@dataclass
class Account:
    account_id: str
    merchant_id: str
    name: str
    status: str
    channel: str
    weight: int


@dataclass
class Token:
    token_id: str
    brand: str
    last4: str
    length: int
    contact: dict[str, str]
    expired: bool


@dataclass
class Batch:
    """Rows collected for the bulk insert, and distribution events per (account, day)."""

    charges: list[tuple[Any, ...]] = field(default_factory=list)
    tags: list[tuple[str, int]] = field(default_factory=list)
    attrs: list[tuple[str, str, int]] = field(default_factory=list)
    refunds: list[tuple[Any, ...]] = field(default_factory=list)
    refund_tags: list[tuple[str, int]] = field(default_factory=list)
    refund_attrs: list[tuple[str, str, int]] = field(default_factory=list)
    events: dict[tuple[str, str], list[tuple[str, str, str, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )


class Seeder:
    """Generates the demo world from one random stream."""

    def __init__(self, seed: int, anchor: datetime) -> None:
        self.rng = random.Random(seed)
        self.anchor = anchor
        self.start = anchor - timedelta(days=HISTORY_DAYS)
        self.batch = Batch()
        self.accounts: list[Account] = []
        self.tokens: dict[str, list[Token]] = defaultdict(list)
        self.order_seq = 1000
        self.card_weights = [c[3] for c in CARDS]
        #: The charges of the history (the practice cases come after them).
        self.history = 0

    # -- ids and small values ----------------------------------------------------------------

    def hex_id(self) -> str:
        return f"{self.rng.getrandbits(96):024x}"

    def prefixed(self, prefix: str) -> str:
        return prefix + "".join(self.rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=20))

    def auth_code(self) -> str:
        return "".join(self.rng.choices("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", k=6))

    def moment(self) -> datetime:
        span_ms = HISTORY_DAYS * 86_400_000
        return self.start + timedelta(milliseconds=self.rng.randrange(span_ms))

    def later(self, moment: datetime, low_h: float, high_h: float) -> datetime | None:
        """A moment some hours after `moment`, or None when it would be after the anchor."""
        result = moment + timedelta(seconds=self.rng.uniform(low_h * 3600, high_h * 3600))
        return (
            result.replace(microsecond=result.microsecond // 1000 * 1000)
            if result <= self.anchor
            else None
        )

    def amount(self, account: Account) -> int:
        roll = self.rng.random()
        if account.channel == "wholesale":
            return self.rng.randrange(15_000, 900_000)
        if roll < 0.1:
            return self.rng.randrange(1, 50) * 100
        if roll < 0.75:
            return self.rng.randrange(450, 12_000)
        if roll < 0.97:
            return self.rng.randrange(12_000, 90_000)
        return self.rng.randrange(90_000, 500_000)

    def customer(self) -> tuple[int, dict[str, str]]:
        index = self.rng.randrange(len(CUSTOMERS))
        first, last = CUSTOMERS[index]
        return index, {"first_name": first, "last_name": last}

    def labels(self, account: Account, index: int) -> tuple[list[str], dict[str, list[str]]]:
        tags: list[str] = []
        if self.rng.random() < 0.8:
            tags.append(account.channel)
        for tag in TAG_POOL:
            if tag != account.channel and self.rng.random() < 0.07:
                tags.append(tag)
        if index % 9 == 0 and "vip" not in tags:
            tags.append("vip")
        attributes: dict[str, list[str]] = {}
        if self.rng.random() < 0.85:
            self.order_seq += 1
            attributes["order_id"] = [f"A-{self.order_seq}"]
        attributes["customer_id"] = [f"C-{1001 + index}"]
        channel = {"web": "web", "phone-order": "phone"}.get(account.channel, "pos")
        attributes["channel"] = [channel]
        return tags, attributes

    # -- world -------------------------------------------------------------------------------

    def merchants_and_accounts(self, conn: sqlite3.Connection) -> None:
        for m_index, (m_name, m_status, accounts) in enumerate(MERCHANTS):
            merchant_id = self.prefixed("mt_")
            created = self.start - timedelta(days=400 - 30 * m_index)
            merchant = {
                "merchant_id": merchant_id,
                "name": m_name,
                "status": m_status,
                "created_timestamp": iso_ms(created),
                "attributes": {"region": [self.rng.choice(("north", "south", "east", "west"))]},
                "tags": ["demo"],
            }
            conn.execute(
                "INSERT INTO merchants VALUES (?, ?, ?)",
                (merchant_id, iso_ms(created), dumps(merchant)),
            )
            for a_index, (a_name, status, mcc, channel, weight) in enumerate(accounts):
                account_id = self.prefixed("pa_")
                opened = created + timedelta(days=3 + 11 * a_index)
                if status != "approved" and weight == 0:
                    opened = self.anchor - timedelta(days=self.rng.randrange(2, 40))
                attributes: dict[str, list[str]] = {"channel": [channel]}
                auto = a_name == "Meadow & Pine Storefront"
                if auto:
                    attributes["sandbox_boarding"] = ["auto"]
                tax = mcc == "9311"
                doc = {
                    "account_id": account_id,
                    "merchant_id": merchant_id,
                    "name": a_name,
                    "status": status,
                    "status_message": STATUS_MESSAGES[status],
                    "merchant_category_code": mcc,
                    "tax_authority": "Lakeside Township" if tax else None,
                    "tax_authority_state": "MN" if tax else None,
                    "max_transaction_amount": ACCOUNT_LIMITS.get(a_name, 10000),
                    "created_timestamp": iso_ms(opened),
                    "last_updated_timestamp": iso_ms(opened + timedelta(days=2)),
                    "attributes": attributes,
                    "tags": [channel],
                }
                conn.execute(
                    "INSERT INTO accounts VALUES (?, ?, ?, ?, ?, NULL, ?)",
                    (account_id, merchant_id, status, iso_ms(opened), int(auto), dumps(doc)),
                )
                self.accounts.append(
                    Account(account_id, merchant_id, a_name, status, channel, weight)
                )

    def card_tokens(self, conn: sqlite3.Connection) -> None:
        approved = [a for a in self.accounts if a.status == "approved"]
        for n in range(20):
            account = approved[n % len(approved)]
            brand, last4, length, _ = CARDS[n % len(CARDS)]
            _, contact = self.customer()
            if n == 3:
                contact = {"first_name": "[bold red]Mallory[/]", "last_name": "Hacker"}
            expired = n % 5 == 4
            created = self.start - timedelta(days=self.rng.randrange(30, 900))
            expires = (
                self.anchor - timedelta(days=self.rng.randrange(20, 300))
                if expired
                else add_years(created, 3)
            )
            if not expired and expires <= self.anchor:
                expires = self.anchor + timedelta(days=400)
            exp_month = expires if not expired else expires - timedelta(days=60)
            token = Token(self.prefixed("ct_"), brand, last4, length, contact, expired)
            doc = {
                "token_id": token.token_id,
                "account_id": account.account_id,
                "payment_method": {
                    "method": "card",
                    "type": brand,
                    "card_number": "X" * (length - 4) + last4,
                    "expiration_date": exp_month.strftime("%Y-%m"),
                    "contact": {**contact, "country": "US"},
                },
                "fraud_score": self.rng.randrange(0, 40),
                "reason": "on_file",
                "created_timestamp": iso_ms(created),
                "token_expiration_date": iso_ms(expires),
                "processor_messages": dict(PASSED),
            }
            conn.execute(
                "INSERT INTO tokens VALUES (?, ?, ?, ?)",
                (token.token_id, account.account_id, iso_ms(created), dumps(doc)),
            )
            self.tokens[account.account_id].append(token)

    # -- charges -----------------------------------------------------------------------------

    def add_charge(self, doc: dict[str, Any], cents: int, last4: str, refunded: int = 0) -> int:
        rowid = len(self.batch.charges) + 1
        contact = doc["payment_method"].get("contact", {})
        name = " ".join(p for p in (contact.get("first_name"), contact.get("last_name")) if p)
        self.batch.charges.append(
            charge_row(
                rowid,
                doc,
                amount_cents=cents,
                last4=last4,
                contact_name=name.casefold(),
                refunded_cents=refunded,
            )
        )
        self.batch.tags.extend(tag_rows(rowid, doc["tags"]))
        self.batch.attrs.extend(attr_rows(rowid, doc["attributes"]))
        return rowid

    def event(
        self, account: Account, moment: str, charge_id: str, category: str, cents: int
    ) -> None:
        if account.status == "approved":
            self.batch.events[(account.account_id, moment[:10])].append(
                (moment, charge_id, category, cents)
            )

    def card_method(
        self, contact: dict[str, str], account: Account
    ) -> tuple[dict[str, Any], str, bool]:
        """(payment_method, last4, is_token); a stored token for some charges."""
        live = [t for t in self.tokens.get(account.account_id, []) if not t.expired]
        if live and self.rng.random() < 0.08:
            token = self.rng.choice(live)
            method = {
                "method": "card",
                "type": token.brand,
                "card_number": "X" * (token.length - 4) + token.last4,
                "contact": token.contact,
                "token_id": token.token_id,
            }
            return method, token.last4, True
        brand, last4, length, _ = self.rng.choices(CARDS, weights=self.card_weights)[0]
        method = {
            "method": "card",
            "type": brand,
            "card_number": "X" * (length - 4) + last4,
            "contact": contact,
        }
        return method, last4, False

    def one(self, account: Account) -> int:
        """Generate one business event (one or two charges); answers how many charges it added."""
        moment = self.moment()
        ts = iso_ms(moment)
        cust_index, contact = self.customer()
        tags, attributes = self.labels(account, cust_index)
        cents = self.amount(account)
        roll = self.rng.random()
        common: dict[str, Any] = {
            "account_id": account.account_id,
            "merchant_id": account.merchant_id,
            "tags": tags,
            "attributes": attributes,
        }
        if self.rng.random() < 0.3:
            common["invoice_number"] = f"INV-{moment.year}-{self.rng.randrange(10_000, 99_999)}"
        if account.channel == "wholesale" and self.rng.random() < 0.6:
            common["po_number"] = f"PO-{self.rng.randrange(10_000, 99_999)}"
        if roll < 0.14:
            return self.bank_sale(account, ts, moment, cents, contact, common)
        method, last4, _ = self.card_method(contact, account)
        if roll < 0.18:
            return self.declined(ts, cents, last4, method, common)
        if roll < 0.21:
            doc = charge_doc(
                charge_id=self.hex_id(), ts=ts, charge_type="pre_authorization", status="success",
                result_code="Authorized", result_text=SUCCESS_TEXT,
                authorization_code=self.auth_code(), amount_cents=0, payment_method=method,
                processor_messages=dict(PASSED), **common,
            )  # fmt: skip
            self.add_charge(doc, 0, last4)
            return 1
        if roll < 0.31:
            return self.authorization(account, ts, moment, cents, last4, method, common)
        return self.card_sale(account, ts, moment, cents, last4, method, common)

    def fees(self, common: dict[str, Any]) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.rng.random() < 0.08:
            extra["convenience_fee_cents"] = self.rng.choice((195, 250, 299, 350))
        if self.rng.random() < 0.04:
            extra["supplemental_fee_cents"] = self.rng.choice((100, 150, 500))
        return {**common, **extra}

    def card_sale(
        self,
        account: Account,
        ts: str,
        moment: datetime,
        cents: int,
        last4: str,
        method: dict[str, Any],
        common: dict[str, Any],
        doc: dict[str, Any] | None = None,
    ) -> int:
        if doc is None:
            doc = charge_doc(
                charge_id=self.hex_id(), ts=ts, charge_type="sale", status="success",
                result_code="Approved", result_text=SUCCESS_TEXT,
                authorization_code=self.auth_code(), amount_cents=cents, payment_method=method,
                processor_messages=dict(PASSED),
                **self.fees(common),
            )  # fmt: skip
        self.settle(account, doc, cents, fee=(cents * 29 + 500) // 1000 + 30)
        refunded = 0
        if self.rng.random() < 0.025 and (when := self.later(moment, 72, 960)):
            self.chargeback(account, doc, cents, when)
        elif self.rng.random() < 0.09:
            refunded = self.refund(account, doc, cents, moment)
        self.add_charge(doc, cents, last4, refunded)
        return 1

    def settle(self, account: Account, doc: dict[str, Any], cents: int, fee: int) -> None:
        self.event(account, doc["charge_timestamp"], doc["charge_id"], "sales", cents)
        self.event(account, doc["charge_timestamp"], doc["charge_id"], "fees", fee)

    def chargeback(self, account: Account, doc: dict[str, Any], cents: int, when: datetime) -> None:
        # One draw whatever the brand: the history's random stream stays as it was.
        kind = self.rng.randrange(len(CHARGEBACK_KINDS))
        network = str(doc["payment_method"].get("type", "visa")).lower()
        code = CHARGEBACK_CODES.get(network, CHARGEBACK_CODES["visa"])[kind]
        reason = REASON_CODES[network if network in REASON_CODES else "visa"][code].words
        at = iso_ms(when)
        doc["status"] = "chargeback"
        doc["chargebacks"] = {
            "total_amount": money_out(cents),
            "items": [
                {
                    "chargeback_id": self.hex_id(),
                    "amount": money_out(cents),
                    "reason_code": code,
                    "reason": reason,
                    "status": self.rng.choice(("open", "won", "lost", "lost")),
                    "chargeback_timestamp": at,
                }
            ],
        }
        doc["last_updated_timestamp"] = at
        self.event(account, at, doc["charge_id"], "chargebacks", cents)

    def refund(self, account: Account, doc: dict[str, Any], cents: int, moment: datetime) -> int:
        when = self.later(moment, 1, 240)
        if when is None or cents < 200:
            return 0
        full = self.rng.random() < 0.5
        amount = cents if full else cents * self.rng.randrange(20, 70) // 100
        at = iso_ms(when)
        rowid = len(self.batch.refunds) + 1
        tags = ["customer-service"] if self.rng.random() < 0.5 else []
        attributes = {"ticket": [f"T-{self.rng.randrange(1000, 9999)}"]}
        rdoc = refund_doc(
            refund_id=self.hex_id(),
            charge=doc,
            amount_cents=amount,
            reason=self.rng.choice(REFUND_REASONS),
            ts=at,
            tags=tags,
            attributes=attributes,
        )
        self.batch.refunds.append(
            (rowid, rdoc["refund_id"], doc["charge_id"], doc["account_id"], at, amount, dumps(rdoc))
        )
        self.batch.refund_tags.extend(tag_rows(rowid, tags))
        self.batch.refund_attrs.extend(attr_rows(rowid, attributes))
        doc["reversal_flag"] = full
        doc["last_updated_timestamp"] = at
        self.event(account, at, doc["charge_id"], "refunds", amount)
        return amount

    def declined(
        self, ts: str, cents: int, last4: str, method: dict[str, Any], common: dict[str, Any]
    ) -> int:
        if "token_id" not in method:
            method = {**method, "type": "visa", "card_number": "XXXXXXXXXXXX0002"}
            last4 = "0002"
        doc = charge_doc(
            charge_id=self.hex_id(),
            ts=ts,
            charge_type="sale",
            status="declined",
            result_code="Declined",
            result_text="Card declined",
            authorization_code=None,
            amount_cents=cents,
            payment_method=method,
            processor_messages={**PASSED, "message": "Do not honor"},
            **common,
        )
        self.add_charge(doc, cents, last4)
        return 1

    def authorization(
        self,
        account: Account,
        ts: str,
        moment: datetime,
        cents: int,
        last4: str,
        method: dict[str, Any],
        common: dict[str, Any],
    ) -> int:
        code = self.auth_code()
        auth = charge_doc(
            charge_id=self.hex_id(),
            ts=ts,
            charge_type="authorization",
            status="success",
            result_code="Authorized",
            result_text=SUCCESS_TEXT,
            authorization_code=code,
            amount_cents=cents,
            payment_method=method,
            processor_messages=dict(PASSED),
            **common,
        )
        when = self.later(moment, 0.5, 120)
        if when is None or self.rng.random() < 0.35:
            self.add_charge(auth, cents, last4)
            return 1
        fee_args = self.fees({})
        total = (
            cents
            + fee_args.get("convenience_fee_cents", 0)
            + fee_args.get("supplemental_fee_cents", 0)
        )
        at = iso_ms(when)
        capture = charge_doc(
            charge_id=self.hex_id(),
            ts=at,
            charge_type="capture",
            status="success",
            result_code="Approved",
            result_text=None,
            authorization_code=code,
            amount_cents=total,
            payment_method=method,
            processor_messages=dict(PASSED),
            original_charge_id=auth["charge_id"],
            **common,
            **fee_args,
        )
        auth["captured_charge_id"] = capture["charge_id"]
        auth["last_updated_timestamp"] = at
        self.add_charge(auth, cents, last4)
        self.card_sale(account, at, when, total, last4, method, common, doc=capture)
        return 2

    def bank_sale(
        self,
        account: Account,
        ts: str,
        moment: datetime,
        cents: int,
        contact: dict[str, str],
        common: dict[str, Any],
    ) -> int:
        last4 = self.rng.choice(BANK_LAST4)
        method = {"method": "bank_account", "account_number": last4, "contact": contact}
        doc = charge_doc(
            charge_id=self.hex_id(),
            ts=ts,
            charge_type="sale",
            status="success",
            result_code="ProcessorPendingACHSale",
            result_text=SUCCESS_TEXT,
            authorization_code=None,
            amount_cents=cents,
            payment_method=method,
            processor_messages=dict(PASSED),
            **common,
        )
        self.settle(account, doc, cents, fee=50)
        refunded = 0
        if self.rng.random() < 0.06 and (when := self.later(moment, 48, 120)):
            code, reason = self.rng.choice(RETURN_REASONS)
            at = iso_ms(when)
            doc["status"] = "return"
            doc["return"] = {"return_code": code, "reason": reason, "return_timestamp": at}
            doc["last_updated_timestamp"] = at
            self.event(account, at, doc["charge_id"], "returns", cents)
        elif self.rng.random() < 0.04:
            refunded = self.refund(account, doc, cents, moment)
        self.add_charge(doc, cents, last4, refunded)
        return 1

    def charges(self, count: int) -> None:
        takers = [a for a in self.accounts if a.weight > 0]
        weights = [a.weight for a in takers]
        made = 0
        while made < count:
            account = self.rng.choices(takers, weights=weights)[0]
            made += self.one(account) if count - made > 1 else self.single(account)

    def single(self, account: Account) -> int:
        """The last charge: a plain sale, so the total is exactly what was asked for."""
        moment = self.moment()
        _, contact = self.customer()
        method, last4, _ = self.card_method(contact, account)
        common = {
            "account_id": account.account_id,
            "merchant_id": account.merchant_id,
            "tags": [],
            "attributes": {},
        }
        return self.card_sale(
            account, iso_ms(moment), moment, self.amount(account), last4, method, common
        )

    # -- cases to practise on ------------------------------------------------------------------

    def practice(self, seed: int) -> None:
        """The practice cases (`PRACTICE_CHARGEBACKS`, a duplicate pair, a card hold that ends
        today, an ACH return of yesterday), after the history and from their own random stream,
        so the history is the same with or without them. They are in no payout."""
        rng = random.Random(seed + 41)
        shop = next(a for a in self.accounts if a.name == "Blue Fern Online Store")

        def method(brand: str, last4: str, length: int, who: tuple[str, str]) -> dict[str, Any]:
            contact = {"first_name": who[0], "last_name": who[1]}
            return {
                "method": "card",
                "type": brand,
                "card_number": "X" * (length - 4) + last4,
                "contact": contact,
            }

        def sale(when: datetime, cents: int, pm: dict[str, Any], **extra: Any) -> dict[str, Any]:
            return charge_doc(
                charge_id=f"{rng.getrandbits(96):024x}", ts=iso_ms(when), status="success",
                result_code="Approved", result_text=SUCCESS_TEXT,
                authorization_code="".join(rng.choices("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", k=6))
                if pm["method"] == "card" else None,
                amount_cents=cents, account_id=shop.account_id, merchant_id=shop.merchant_id,
                payment_method=pm, processor_messages=dict(PASSED), tags=["web", "practice"],
                attributes={"channel": ["web"]}, **{"charge_type": "sale", **extra},
            )  # fmt: skip

        fraud: tuple[datetime, dict[str, Any], dict[str, list[str]]] | None = None
        for days, brand, last4, length, code, stage, who in PRACTICE_CHARGEBACKS:
            dated = self.anchor - timedelta(days=days)
            # Bought a month or two before the anchor: chargebacks come weeks after the sale,
            # and these stay out of the pulse's 30 days (a chargeback counts on its charge's
            # day there), whose rate the demo keeps near 0.2 %.
            charged = self.anchor - timedelta(days=rng.uniform(31, 75))
            cents = rng.randrange(1_500, 40_000)
            doc = sale(charged, cents, method(brand, last4, length, who))
            doc["attributes"].update(PRACTICE_ATTRIBUTES.get(code, {}))
            if code == "10.4":
                fraud = (charged, doc["payment_method"], doc["attributes"])
            doc["status"] = "chargeback"
            at = iso_ms(dated)
            item = chargeback_item(
                f"{rng.getrandbits(96):024x}", cents=cents, reason_code=code, reason=None,
                status="open", at=at, stage=stage,
            )  # fmt: skip
            doc["chargebacks"] = {"total_amount": money_out(cents), "items": [item]}
            doc["last_updated_timestamp"] = at
            self.add_charge(doc, cents, last4)
        # "Charged twice?": the same card, amount and account two minutes apart.
        twice = self.anchor - timedelta(days=5, hours=3)
        pm = method("visa", "1881", 16, ("Mateo", "Rossi"))
        for gap in (0, 2):
            self.add_charge(sale(twice + timedelta(minutes=gap), 4_999, pm), 4_999, "1881")
        # A visa hold (7 days) that ends later today (UTC), whatever the hour of the anchor.
        end_of_day = self.anchor.replace(hour=23, minute=55, second=0, microsecond=0)
        ends = self.anchor + max(
            timedelta(minutes=30), min(timedelta(hours=3), end_of_day - self.anchor)
        )
        hold = sale(ends - timedelta(days=7), 12_500, method("visa", "1111", 16, ("Elif", "Kaya")),
                    charge_type="authorization")  # fmt: skip
        hold["result_code"] = "Authorized"
        hold["captured_charge_id"] = None
        self.add_charge(hold, 12_500, "1111")
        # An ACH return of yesterday (insufficient funds), on a debit of four days ago.
        bank = {"method": "bank_account", "account_number": "4321",
                "contact": {"first_name": "Jonas", "last_name": "Weber"}}  # fmt: skip
        debit = sale(self.anchor - timedelta(days=4, hours=2), 8_250, bank)
        debit["result_code"] = "ProcessorPendingACHSale"
        returned = iso_ms(self.anchor - timedelta(days=1))
        debit["status"] = "return"
        debit["return"] = {"return_code": "R01", "reason": "Insufficient funds",
                           "return_timestamp": returned}  # fmt: skip
        debit["last_updated_timestamp"] = returned
        self.add_charge(debit, 8_250, "4321")
        # The fraud case's earlier charges (their own stream: the cases above keep their ids).
        rng = random.Random(seed + 42)
        assert fraud is not None  # PRACTICE_CHARGEBACKS has its 10.4 case
        charged, pm, attributes = fraud
        for days in PRIOR_DAYS:
            cents = rng.randrange(1_500, 12_000)
            prior = sale(charged - timedelta(days=days), cents, dict(pm))
            prior["attributes"] = {k: list(v) for k, v in attributes.items()}
            self.add_charge(prior, cents, pm["card_number"][-4:])

    def distributions(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        merchant_of = {a.account_id: a.merchant_id for a in self.accounts}
        latest: dict[str, str] = {}
        for account_id, day in self.batch.events:
            latest[account_id] = max(day, latest.get(account_id, day))
        dist_rows: list[tuple[Any, ...]] = []
        item_rows: list[tuple[Any, ...]] = []
        for (account_id, day), events in sorted(self.batch.events.items()):
            distribution_id = self.hex_id()
            status = "open" if latest[account_id] == day else "paid"
            stamp = min(datetime.fromisoformat(day).replace(hour=23, tzinfo=UTC), self.anchor)
            sums: dict[str, int] = defaultdict(int)
            for seq, (_, charge_id, category, cents) in enumerate(sorted(events), start=1):
                sums[category] += cents
                item_rows.append((self.hex_id(), distribution_id, charge_id, category, cents, seq))
            doc = {
                "distribution_id": distribution_id,
                "account_id": account_id,
                "merchant_id": merchant_of[account_id],
                "status": status,
                "distribution_timestamp": iso_ms(stamp),
                "total_amounts": totals(sums),
            }
            dist_rows.append(
                (
                    distribution_id,
                    account_id,
                    merchant_of[account_id],
                    status,
                    iso_ms(stamp),
                    dumps(doc),
                )
            )
        return dist_rows, item_rows

    def threads(self, seed: int) -> dict[str, list[tuple[Any, ...]]]:
        """The demo threads about some charges (their own random stream: see
        `sandbox.conversations.seed_rows`)."""
        charges = [
            conversations.SeedCharge(row[1], row[2], row[4], row[5], row[10], row[14])
            for row in self.batch.charges[: self.history]
        ]
        return conversations.seed_rows(charges, seed=seed + 27, anchor=self.anchor)


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def build_database(
    path: Path | str,
    *,
    charges: int = 3000,
    seed: int = 7,
    anchor: datetime = DEFAULT_ANCHOR,
    practice: bool = True,
) -> None:
    """(Re)build the demo database at `path`; built beside it and renamed, so never half-built.
    `charges` of history, then (`practice`) the `PRACTICE_COUNT` practice cases."""
    path = Path(path)
    refuse_unless_regular(path)  # `/dev/null` as the database: never unlinked, never replaced
    # The database holds the full card numbers typed into the sandbox: a private directory (when
    # paytui makes it) and a private file, created 0600 before SQLite opens it (its -wal and
    # -shm files take the database file's mode).
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    building = path.with_name(path.name + f".building-{os.getpid()}")
    _remove(building)
    os.close(os.open(building, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600))
    os.chmod(building, 0o600)
    conn = sqlite3.connect(building, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA cache_size=-131072")
        schema.create_tables(conn)
        seeder = Seeder(seed, anchor)
        conn.execute("BEGIN")
        seeder.merchants_and_accounts(conn)
        seeder.card_tokens(conn)
        seeder.charges(charges)
        seeder.history = len(seeder.batch.charges)
        if practice:
            seeder.practice(seed)
        batch = seeder.batch
        conn.executemany(INSERT_CHARGE, (row[:-1] for row in batch.charges))
        conn.executemany(INSERT_DOC, ((row[0], row[-1]) for row in batch.charges))
        conn.executemany("INSERT INTO charge_tags VALUES (?, ?)", batch.tags)
        conn.executemany(
            "INSERT INTO charge_names VALUES (?, ?)",
            all_name_rows((row[0], row[14]) for row in batch.charges),
        )
        conn.executemany("INSERT INTO charge_attrs VALUES (?, ?, ?)", batch.attrs)
        conn.executemany("INSERT INTO refunds VALUES (?, ?, ?, ?, ?, ?, ?)", batch.refunds)
        conn.executemany("INSERT INTO refund_tags VALUES (?, ?)", batch.refund_tags)
        conn.executemany("INSERT INTO refund_attrs VALUES (?, ?, ?)", batch.refund_attrs)
        dist_rows, item_rows = seeder.distributions()
        conn.executemany("INSERT INTO distributions VALUES (?, ?, ?, ?, ?, ?)", dist_rows)
        conn.executemany("INSERT INTO distribution_items VALUES (?, ?, ?, ?, ?, ?)", item_rows)
        conversations.insert_seed(conn, seeder.threads(seed))
        meta = {
            "schema": schema.SCHEMA_VERSION,
            "seed": str(seed),
            "charges": str(charges),
            "anchor": iso_ms(anchor),
        }
        conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        conn.execute("COMMIT")
        schema.create_indexes(conn)
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    _remove(path)
    os.replace(building, path)
