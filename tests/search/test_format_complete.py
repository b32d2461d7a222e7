"""format_query (the inverse of parse), the never-raises guarantee, and completion."""

from __future__ import annotations

import random
import string
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from paytui.api.queries import (
    ACH_RETURNS,
    ALL,
    CHARGEBACKS,
    OPEN_AUTHORIZATIONS,
    SORT_COLUMNS,
    ChargeQuery,
)
from paytui.search import apply_completion, complete, completion_start, format_query, parse
from paytui.search.query import _Parser

NOW = datetime(2026, 11, 20, 18, 30, 15, tzinfo=UTC)
CID = "6206bcbf0123456789abcdef"


def reparse(query: ChargeQuery) -> ChargeQuery | None:
    result = parse(format_query(query), now=NOW)
    assert result.errors == [], (format_query(query), result.errors)
    return result.query


# -- format_query ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "text"),
    [
        (ALL, ""),
        (CHARGEBACKS, "status:chargeback"),
        (ACH_RETURNS, "status:return"),
        (OPEN_AUTHORIZATIONS, "is:open"),
        (ChargeQuery(account_id="pa_abc"), "account:pa_abc"),
        (
            ChargeQuery(charge_type="authorization", captured=True),
            "type:authorization captured:yes",
        ),
        (ChargeQuery(captured=False), "captured:no"),
        (ChargeQuery(min_amount=Decimal("25.50")), "amount>=25.5"),
        (ChargeQuery(max_amount=Decimal("100")), "amount<=100"),
        (ChargeQuery(min_amount=Decimal("10"), max_amount=Decimal("10.00")), "amount:10"),
        (ChargeQuery(min_amount=Decimal("10"), max_amount=Decimal("50")), "amount:10..50"),
        (
            ChargeQuery(created_from=datetime(2026, 1, 31, tzinfo=UTC)),
            "from:2026-01-31",
        ),
        (
            ChargeQuery(created_to=datetime(2026, 2, 1, tzinfo=UTC)),
            "to:2026-01-31",
        ),
        (
            ChargeQuery(
                created_from=datetime(2026, 1, 31, tzinfo=UTC),
                created_to=datetime(2026, 2, 1, tzinfo=UTC),
            ),
            "on:2026-01-31",
        ),
        (
            ChargeQuery(
                created_from=datetime(2026, 1, 31, 10, 0, 0, 5, tzinfo=UTC),
                created_to=datetime(2026, 2, 1, 9, 30, tzinfo=UTC),
            ),
            "from:2026-01-31T10:00:00.000005Z to:2026-02-01T09:30:00Z",
        ),
        (ChargeQuery(tags=("vip", "phone order")), 'tag:vip tag:"phone order"'),
        (ChargeQuery(tags=('say "hi"\\',)), 'tag:"say \\"hi\\"\\\\"'),
        (ChargeQuery(attributes=(("note", "a b"), ("k", ""))), 'attr:"note=a b" attr:k='),
        (ChargeQuery(charge_id="6206bc", sort="-total_amount"), "6206bc sort:-amount"),
        (ChargeQuery(sort="charge_timestamp"), "sort:time"),
        (ChargeQuery(contact_name="Edsger  O'Brien"), 'name:Edsger name:"O\'Brien"'),
        (ChargeQuery(method="bank_account", last4="1111"), "method:bank_account last4:1111"),
        (ChargeQuery(original_charge_id=CID, merchant_id="mt_x"), f"merchant:mt_x original:{CID}"),
    ],
)
def test_format_query(query: ChargeQuery, text: str) -> None:
    assert format_query(query) == text
    assert reparse(query) == query


def test_format_edges_of_the_calendar() -> None:
    first = ChargeQuery(created_to=datetime(1, 1, 1, tzinfo=UTC))
    assert format_query(first) == "to:0001-01-01T00:00:00Z"
    assert reparse(first) == first
    last = ChargeQuery(created_from=datetime(9999, 12, 31, tzinfo=UTC))
    assert format_query(last) == "from:9999-12-31"
    assert reparse(last) == last


def _text(rng: random.Random, alphabet: str, low: int = 1, high: int = 8) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


# Awkward characters on purpose: whitespace of several kinds, both quotes, backslashes, operators.
TAG_ALPHABET = string.ascii_letters + "  \t\"'\\=:<>-.éß日\u00a0\u3000\x1f"
HEX = "0123456789abcdef"


def _random_time(rng: random.Random) -> datetime:
    base = datetime(2020, 1, 1, tzinfo=UTC) + timedelta(days=rng.randint(0, 3000))
    if rng.random() < 0.5:
        return base
    return base + timedelta(seconds=rng.randint(0, 86399), microseconds=rng.choice([0, 1, 500000]))


def random_query(rng: random.Random) -> ChargeQuery:
    """A query parse can produce: canonical values, valid id forms, non-empty ranges."""
    fields: dict = {}
    maybe = lambda: rng.random() < 0.4  # noqa: E731
    if maybe():
        fields["status"] = rng.choice(["success", "declined", "chargeback", "return"])
    if maybe():
        fields["tags"] = tuple(_text(rng, TAG_ALPHABET) for _ in range(rng.randint(1, 3)))
    if maybe():
        fields["attributes"] = tuple(
            (_text(rng, TAG_ALPHABET.replace("=", "")), _text(rng, TAG_ALPHABET, 0))
            for _ in range(rng.randint(1, 3))
        )
    if maybe():
        fields["account_id"] = "pa_" + _text(rng, string.ascii_letters + string.digits, 1, 20)
    if maybe():
        fields["merchant_id"] = "mt_" + _text(rng, string.ascii_lowercase + string.digits, 1, 20)
    if maybe():
        start, end = sorted({_random_time(rng), _random_time(rng)})
        if rng.random() < 0.3:
            end = None
        fields["created_from"], fields["created_to"] = (
            (start, end) if maybe() else (None, end or start)
        )
    if maybe():
        low = Decimal(rng.randint(0, 10**7)) / 100
        high = low + Decimal(rng.randint(0, 10**6)) / 100
        fields["min_amount"] = rng.choice([low, None])
        fields["max_amount"] = rng.choice([high, None, low])
    if maybe():
        fields["method"] = rng.choice(["card", "bank_account"])
    if maybe():
        fields["last4"] = _text(rng, string.digits, 4, 4)
    if maybe():
        fields["charge_type"] = rng.choice(
            ["sale", "authorization", "pre_authorization", "capture"]
        )
    if maybe():
        fields["captured"] = rng.choice([True, False])
    if maybe():
        fields["original_charge_id"] = _text(rng, HEX, 24, 24)
    if maybe():
        fields["charge_id"] = _text(rng, HEX, 4, 24)
    if maybe():
        fields["sort"] = rng.choice(["", "-"]) + rng.choice(SORT_COLUMNS)
    if maybe():
        tags = set(fields.get("tags", ()))
        fields["not_tags"] = tuple(
            t for t in (_text(rng, TAG_ALPHABET) for _ in range(rng.randint(1, 2))) if t not in tags
        )
    if maybe():
        fields["not_statuses"] = tuple(
            s
            for s in rng.sample(["success", "declined", "chargeback", "return"], 2)
            if s != fields.get("status")
        )
    if maybe():
        fields["refund_state"] = rng.choice(["full", "partial", "none"])
    if maybe():
        fields["dispute_state"] = rng.choice(["open", "won", "lost", "none"])
    return ChargeQuery(**fields)


def test_round_trip_property() -> None:
    rng = random.Random(20261120)
    for _ in range(1500):
        query = random_query(rng)
        assert reparse(query) == query, format_query(query)


# -- never raises ----------------------------------------------------------------------------------

FUZZ_ALPHABET = "abcdefxyz0123456789 :=<>.-_$\"'\\\t\n" + "TZtz+" + "é日\u00a0\u3000\x00\x1b"
FUZZ_WORDS = [
    "status:",
    "tag:",
    "attr:",
    "amount",
    "amount>",
    "amount:",
    "..",
    "from:",
    "to:",
    "on:",
    "account:pa_",
    "merchant:mt_",
    "method:",
    "last4:",
    "type:",
    "captured:",
    "is:open",
    "original:",
    "id:",
    "sort:-",
    "2026-01-31",
    "T10:00",
    "+02:00",
    "today",
    "7d",
    "9999-12-31",
    "0001-01-01",
    "999999w",
    '"',
    "'",
    " ",
    "-",
]


def _fuzz_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 8)):
        if rng.random() < 0.5:
            parts.append(rng.choice(FUZZ_WORDS))
        else:
            parts.append(_text(rng, FUZZ_ALPHABET, 1, 6))
    return "".join(parts)


def test_parse_never_raises_and_keeps_its_promises() -> None:
    """Calls the parser without parse()'s last-resort guard, so a bug fails here, not hides."""
    rng = random.Random(7)
    parsed = 0
    for _ in range(3000):
        text = _fuzz_text(rng)
        result = _Parser(text, NOW).run()
        assert (result.query is None) == bool(result.errors), text
        for error in result.errors:
            assert 0 <= error.start < error.end <= len(text), (text, error)
            assert error.message and "\n" not in error.message
        assert result.errors == sorted(result.errors, key=lambda e: (e.start, e.end))
        if result.query is not None:
            parsed += 1
            # Whatever parses, formats back to text that parses to the same query.
            assert reparse(result.query) == result.query, text
        for cursor in (0, len(text) // 2, len(text)):
            complete(text, cursor)
    assert parsed > 100  # the fuzzer reaches valid queries too, not only errors


# -- completion ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("st", ["status:"]),
        ("S", ["status:", "sort:"]),
        ("ta", ["tag:"]),
        ("attri", ["attr:"]),
        ("charge_t", ["type:"]),
        ("zzz", []),
        ("6206", []),
        (
            "status:",
            [
                "status:success",
                "status:declined",
                "status:chargeback",
                "status:return",
                "status:voided",
            ],
        ),
        ("status:c", ["status:chargeback"]),
        ("status:cb", ["status:chargeback"]),
        ("STATUS:ach", ["STATUS:return"]),
        ("status:return", []),
        ("status=d", ["status=declined"]),
        ("method:b", ["method:bank_account"]),
        ("method:ac", ["method:bank_account"]),
        ("type:p", ["type:pre_authorization"]),
        ("type:au", ["type:authorization"]),
        ("captured:", ["captured:yes", "captured:no"]),
        ("is:", ["is:open"]),
        ("sort:-am", ["sort:-amount"]),
        ("sort:na", ["sort:name"]),
        ("sort:total", ["sort:amount"]),
        ("from:y", ["from:yesterday"]),
        ("on:t", ["on:today"]),
        ("tag:v", []),
        ("amount>", []),
        ("stauts:c", []),
    ],
)
def test_complete_word(text: str, expected: list[str]) -> None:
    assert complete(text, len(text)) == expected


def test_complete_all_keys_on_an_empty_word() -> None:
    keys = complete("", 0)
    assert keys[:3] == ["status:", "tag:", "attr:"]
    assert "is:" in keys
    assert "sort:" in keys
    assert complete("tag:vip ", 8) == keys


def test_complete_uses_only_text_before_the_cursor() -> None:
    text = "tag:vip status:c amount>5"
    cursor = text.index("status:c") + len("status:c")
    assert completion_start(text, cursor) == 8
    assert complete(text, cursor) == ["status:chargeback"]
    assert apply_completion(text, cursor, "status:chargeback") == (
        "tag:vip status:chargeback amount>5",
        25,
    )


def test_complete_clamps_the_cursor() -> None:
    assert complete("st", 99) == ["status:"]
    assert complete("st", -5) == complete("", 0)
    assert apply_completion("st", 99, "status:") == ("status:", 7)
