"""The charge search language: every key, every error (with its exact span), quoting, unicode."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from paytui.api.queries import ChargeQuery
from paytui.search import ParseResult, QueryError, parse
from paytui.search.query import format_query

NOW = datetime(2026, 11, 20, 18, 30, 15, tzinfo=UTC)
TODAY = datetime(2026, 11, 20, tzinfo=UTC)
CID = "6206bcbf0123456789abcdef"


def ok(text: str, now: datetime = NOW) -> ChargeQuery:
    result = parse(text, now=now)
    assert result.errors == [], result.errors
    assert result.ok
    assert result.query is not None
    return result.query


def errors(text: str) -> list[tuple[str, str]]:
    """(underlined text, message) for each error, so tests read like what the user sees."""
    result = parse(text, now=NOW)
    assert result.query is None
    assert not result.ok
    return [(text[e.start : e.end], e.message) for e in result.errors]


def only_error(text: str) -> tuple[str, str]:
    found = errors(text)
    assert len(found) == 1, found
    return found[0]


# -- the whole language in one line


def test_example_from_the_brief() -> None:
    text = (
        "status:chargeback tag:vip attr:order_id=A-1001 amount>=25 from:2026-01-01 "
        "to:2026-02-01 account:pa_abc123 merchant:mt_xyz789 method:bank_account last4:1111 "
        f"type:authorization captured:no original:{CID} sort:-amount 6206bcbf"
    )
    assert ok(text) == ChargeQuery(
        status="chargeback",
        tags=("vip",),
        attributes=(("order_id", "A-1001"),),
        min_amount=Decimal("25"),
        created_from=datetime(2026, 1, 1, tzinfo=UTC),
        created_to=datetime(2026, 2, 2, tzinfo=UTC),
        account_id="pa_abc123",
        merchant_id="mt_xyz789",
        method="bank_account",
        last4="1111",
        charge_type="authorization",
        captured=False,
        original_charge_id=CID,
        sort="-total_amount",
        charge_id="6206bcbf",
    )


@pytest.mark.parametrize("text", ["", "   ", "\t\n", "\u3000 \u00a0"])
def test_empty_input_is_the_empty_query(text: str) -> None:
    assert parse(text, now=NOW) == ParseResult(ChargeQuery(), [])


def test_result_types() -> None:
    result = parse("method:nope", now=NOW)
    assert isinstance(result.errors[0], QueryError)
    assert result.errors[0] == QueryError(7, 11, result.errors[0].message)


# -- keys


@pytest.mark.parametrize(
    ("typed", "status"),
    [
        ("success", "success"),
        ("declined", "declined"),
        ("chargeback", "chargeback"),
        ("cb", "chargeback"),
        ("CB", "chargeback"),
        ("return", "return"),
        ("ach_return", "return"),
        ("voided", "voided"),
        ("void", "voided"),
    ],
)
def test_status(typed: str, status: str) -> None:
    assert ok(f"status:{typed}").status == status


def test_keys_are_case_insensitive_and_equals_works_as_colon() -> None:
    assert ok("STATUS:cb Tag:VIP").to_params() == [("status", "chargeback"), ("tag", "VIP")]
    assert ok("status=cb").status == "chargeback"


@pytest.mark.parametrize(
    ("typed", "method"),
    [
        ("card", "card"),
        ("bank", "bank_account"),
        ("bank_account", "bank_account"),
        ("ACH", "bank_account"),
    ],
)
def test_method(typed: str, method: str) -> None:
    assert ok(f"method:{typed}").method == method


@pytest.mark.parametrize(
    ("typed", "charge_type"),
    [
        ("sale", "sale"),
        ("auth", "authorization"),
        ("authorization", "authorization"),
        ("preauth", "pre_authorization"),
        ("pre_authorization", "pre_authorization"),
        ("capture", "capture"),
    ],
)
def test_type(typed: str, charge_type: str) -> None:
    assert ok(f"type:{typed}").charge_type == charge_type
    assert ok(f"charge_type:{typed}").charge_type == charge_type


@pytest.mark.parametrize(
    ("typed", "captured"),
    [("yes", True), ("no", False), ("true", True), ("FALSE", False), ("y", True), ("0", False)],
)
def test_captured(typed: str, captured: bool) -> None:
    assert ok(f"captured:{typed}").captured is captured


def test_is_open_means_uncaptured_authorizations() -> None:
    assert ok("is:open") == ChargeQuery(charge_type="authorization", captured=False)
    # Saying the same thing twice is fine.
    assert ok("is:open type:auth captured:no") == ok("is:open")


def test_tags_repeat_and_and_together() -> None:
    assert ok("tag:vip tag:refund-risk tag:vip").tags == ("vip", "refund-risk")
    assert ok("tag:Vip").tags == ("Vip",)  # values keep their case: tags are data


def test_attributes() -> None:
    query = ok("attr:order_id=A-1001 attribute:sku=x attr:note=a=b attr:has_key= attr:bare")
    assert query.attributes == (
        ("order_id", "A-1001"),
        ("sku", "x"),
        ("note", "a=b"),
        ("has_key", ""),
        ("bare", ""),
    )


def test_ids() -> None:
    query = ok(f"account:pa_abc merchant:mt_DEF1 original:{CID.upper()} id:6206BC")
    assert query.account_id == "pa_abc"
    assert query.merchant_id == "mt_DEF1"
    assert query.original_charge_id == CID
    assert query.charge_id == "6206bc"


def test_bare_word_is_a_charge_id_prefix() -> None:
    assert ok("6206").charge_id == "6206"
    assert ok("6206BCBF").charge_id == "6206bcbf"
    assert ok(CID).charge_id == CID
    # Two prefixes AND together: the longer one that extends the other wins.
    assert ok("6206 6206bcbf").charge_id == "6206bcbf"
    assert ok("6206bcbf 6206").charge_id == "6206bcbf"


def test_last4() -> None:
    assert ok("last4:4242").last4 == "4242"
    assert ok("last4:0001").last4 == "0001"


@pytest.mark.parametrize(
    ("typed", "sort"),
    [
        ("time", "charge_timestamp"),
        ("-time", "-charge_timestamp"),
        ("amount", "total_amount"),
        ("-amount", "-total_amount"),
        ("+amount", "total_amount"),
        ("status", "status"),
        ("result", "result_code"),
        ("type", "charge_type"),
        ("account", "account_id"),
        ("method", "method"),
        ("last4", "last4"),
        ("-name", "-contact_name"),
        ("id", "charge_id"),
        ("-total_amount", "-total_amount"),
        ("AMOUNT", "total_amount"),
    ],
)
def test_sort(typed: str, sort: str) -> None:
    assert ok(f"sort:{typed}").sort == sort


# -- amounts


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("amount:25", "25", "25"),
        ("amount=25.5", "25.5", "25.5"),
        ("amount>=25", "25", None),
        ("amount>25", "25.01", None),
        ("amount<=50", None, "50"),
        ("amount<50", None, "49.99"),
        ("amount<0.01", None, "0"),
        ("amount:10..50", "10", "50"),
        ("amount:10..", "10", None),
        ("amount:..50", None, "50"),
        ("amount:$25", "25", "25"),
        ("amount:.5", "0.5", "0.5"),
        ("amount:25.", "25", "25"),
        ("amount:10..10", "10", "10"),
        ("amount>=10 amount<=50", "10", "50"),
        # Repeated bounds AND together: the tightest wins.
        ("amount>=10 amount>=20 amount<=90 amount<100", "20", "90"),
        ("amt>5", "5.01", None),
    ],
)
def test_amounts(text: str, low: str | None, high: str | None) -> None:
    query = ok(text)
    assert query.min_amount == (Decimal(low) if low else None)
    assert query.max_amount == (Decimal(high) if high else None)


# -- times


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("from:2026-01-31", day(2026, 1, 31), None),
        ("to:2026-01-31", None, day(2026, 2, 1)),  # the whole day is included
        ("to:2026-12-31", None, day(2027, 1, 1)),
        ("on:2026-01-31", day(2026, 1, 31), day(2026, 2, 1)),
        ("on:2026-02", day(2026, 2, 1), day(2026, 3, 1)),
        ("on:2026-12", day(2026, 12, 1), day(2027, 1, 1)),
        ("from:2026-02 to:2026-02", day(2026, 2, 1), day(2026, 3, 1)),
        ("from:today", TODAY, None),
        ("to:today", None, TODAY + timedelta(days=1)),
        ("from:yesterday", TODAY - timedelta(days=1), None),
        ("to:yesterday", None, TODAY),
        ("on:yesterday", TODAY - timedelta(days=1), TODAY),
        ("on:TODAY", TODAY, TODAY + timedelta(days=1)),
        ("from:7d", NOW - timedelta(days=7), None),
        ("from:24h", NOW - timedelta(hours=24), None),
        ("from:2w", NOW - timedelta(weeks=2), None),
        ("to:7d", None, NOW - timedelta(days=7)),
        ("to:now", None, NOW),
        ("from:2026-01-31T10:00:00Z", datetime(2026, 1, 31, 10, tzinfo=UTC), None),
        ("from:2026-01-31t10:00z", datetime(2026, 1, 31, 10, tzinfo=UTC), None),
        ("from:2026-01-31T10:00", datetime(2026, 1, 31, 10, tzinfo=UTC), None),
        ("from:2026-01-31T10:00:00.5Z", datetime(2026, 1, 31, 10, 0, 0, 500000, tzinfo=UTC), None),
        ("from:2026-01-31T12:00+02:00", datetime(2026, 1, 31, 10, tzinfo=UTC), None),
        ("from:2026-01-31T05:30-0430", datetime(2026, 1, 31, 10, tzinfo=UTC), None),
        ('from:"2026-01-31 10:00"', datetime(2026, 1, 31, 10, tzinfo=UTC), None),
        # A timestamp in to: is the exclusive bound itself.
        ("to:2026-01-31T10:00:00Z", None, datetime(2026, 1, 31, 10, tzinfo=UTC)),
        ("since:2026-01-01 until:2026-01-01", day(2026, 1, 1), day(2026, 1, 2)),
        # Repeated bounds AND together.
        (
            "from:2026-01-01 from:2026-01-05 to:2026-03-01 to:2026-02-01",
            day(2026, 1, 5),
            day(2026, 2, 2),
        ),
    ],
)
def test_times(text: str, start: datetime | None, end: datetime | None) -> None:
    query = ok(text)
    assert query.created_from == start
    assert query.created_to == end


def test_relative_times_follow_now_and_accept_naive_now() -> None:
    other = datetime(2026, 1, 1, 3, 0, tzinfo=timezone(timedelta(hours=5)))  # 2025-12-31 22:00Z
    assert ok("from:today", now=other).created_from == day(2025, 12, 31)
    assert ok("from:today", now=datetime(2026, 1, 1, 3, 0)).created_from == day(2026, 1, 1)


def test_support_agent_example() -> None:
    query = ok("last4:4242 from:yesterday")
    assert query.to_params() == [("created_from", "2026-11-19T00:00:00.000Z"), ("last4", "4242")]


# -- quoting and unicode


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ('tag:"phone order"', ("phone order",)),
        ("tag:'phone order'", ("phone order",)),
        ('"tag:phone order"', None),  # quoting the key makes it a bare word (error, see below)
        ('tag:"say \\"hi\\""', ('say "hi"',)),
        ('tag:"back\\\\slash"', ("back\\slash",)),
        ('tag:"it\'s"', ("it's",)),
        ("tag:'say \"hi\"'", ('say "hi"',)),
        ('tag:a"b c"d', ("ab cd",)),
        ("tag:back\\slash", ("back\\slash",)),  # outside quotes a backslash is just a character
        ('tag:"\\n"', ("\\n",)),
        ("tag:café tag:日本", ("café", "日本")),
        ('tag:"a\u00a0b"', ("a\u00a0b",)),
        ("tag:a:b", ("a:b",)),
        ("tag:>=5", (">=5",)),
    ],
)
def test_quoting(text: str, tags: tuple[str, ...] | None) -> None:
    if tags is None:
        assert errors(text)
    else:
        assert ok(text).tags == tags


def test_quoted_attribute_value_and_whole_pair() -> None:
    assert ok('attr:note="a b"').attributes == (("note", "a b"),)
    assert ok('attr:"my key=a b"').attributes == (("my key", "a b"),)


def test_unicode_whitespace_separates_terms() -> None:
    assert ok("tag:a\u3000tag:b\u00a0status:cb") == ChargeQuery(
        status="chargeback", tags=("a", "b")
    )


# -- errors, with exact spans


def test_unknown_key_suggests() -> None:
    assert only_error("stauts:cb") == ("stauts", "unknown key 'stauts'; did you mean status:?")
    assert only_error("tag:x ammount>5") == (
        "ammount",
        "unknown key 'ammount'; did you mean amount:?",
    )
    assert only_error("account_di:pa_x")[1].endswith("did you mean account:?")
    text, message = only_error("zzz:1")
    assert text == "zzz"
    assert message.startswith("unknown key 'zzz'; keys are status, tag, attr, amount")


def test_unknown_values_suggest() -> None:
    assert only_error("method:crad") == ("crad", "unknown method 'crad'; did you mean card?")
    assert only_error("type:zzz") == (
        "zzz",
        "unknown type 'zzz'; use one of: sale, authorization, pre_authorization, capture",
    )
    assert only_error("captured:maybe") == ("maybe", "captured: takes yes or no, not 'maybe'")
    assert only_error("is:opne") == ("opne", "unknown is:opne; did you mean is:open?")
    assert only_error("is:xyz") == (
        "xyz",
        "unknown is:xyz; the only one is is:open (not yet captured)",
    )
    assert only_error("sort:amout") == ("amout", "cannot sort by 'amout'; did you mean amount?")
    assert only_error("sort:-amout")[1] == "cannot sort by 'amout'; did you mean -amount?"
    assert only_error("sort:zzz")[1].startswith(
        "cannot sort by 'zzz'; sort by time, amount, status"
    )


def test_bare_words_that_are_not_charge_ids() -> None:
    base = "is not a charge id: a bare word is searched as a charge id prefix"
    assert only_error("status:cb refund2") == (
        "refund2",
        f"'refund2' {base} (4+ hex characters); for a tag write tag:refund2",
    )
    assert only_error("chargeback") == (
        "chargeback",
        f"'chargeback' {base}; did you mean status:chargeback?",
    )
    assert only_error("card")[1].endswith("did you mean method:card?")
    assert only_error("auth")[1].endswith("did you mean type:auth?")
    assert only_error("open")[1].endswith("did you mean is:open?")
    assert only_error("yesterday")[1].endswith("did you mean on:yesterday?")
    assert only_error("2026-01-31")[1].endswith("did you mean on:2026-01-31?")
    assert only_error("25.00")[1].endswith("did you mean amount:25.00?")
    assert only_error("ab1") == ("ab1", "a charge id prefix needs at least 4 hex characters")
    assert only_error("tag") == ("tag", "'tag' needs a value: tag:…")
    assert only_error('""') == ('""', "empty quotes: remove them or put a value inside")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Edsger", "Edsger"),
        ("eds dij", "eds dij"),
        ("Ada", "Ada"),  # hex, but too short for an id: a name
        ("José Núñez", "José Núñez"),
        ("O.Brien-Smith", "O.Brien-Smith"),
        ('"Spärck Jones"', "Spärck Jones"),
        ("name:Abbe", "Abbe"),  # hex and 4 long: only name: makes it a name
        ("name:chargeback customer:'van der'", "chargeback van der"),
        ("status:cb refund", "refund"),
    ],
)
def test_names(text: str, name: str) -> None:
    assert ok(text).contact_name == name


def test_name_with_other_terms_and_its_wire_form() -> None:
    query = ok("Edsger status:success 6206")
    assert (query.contact_name, query.status, query.charge_id) == ("Edsger", "success", "6206")
    assert ("contact_name", "Edsger") in query.to_params()
    assert ok("abbe").contact_name is None and ok("abbe").charge_id == "abbe"


def test_name_errors() -> None:
    assert only_error("name:4242424242424242") == (
        "4242424242424242",
        "name: takes letters, as in name:Edsger",
    )
    assert only_error("name:") == ("name:", "name: needs a value, as in name:Edsger")
    assert only_error("chargeback")[1].endswith("did you mean status:chargeback?")


def test_charge_id_errors() -> None:
    assert only_error("id:abc") == ("abc", "a charge id prefix needs at least 4 characters")
    assert only_error("id:xyz1") == (
        "xyz1",
        "'xyz1' is not a charge id: ids are hexadecimal (0-9, a-f)",
    )
    assert only_error("a" * 25) == ("a" * 25, "charge ids have 24 characters, this has 25")
    assert only_error("6206 7777") == (
        "7777",
        "'7777' contradicts '6206': the charge id takes one value",
    )


def test_full_card_number_is_refused_and_not_echoed() -> None:
    text, message = only_error("status:cb 4242424242424242")
    assert text == "4242424242424242"
    assert message == "this looks like a full card number; search by last4: instead"
    text, message = only_error("last4:4242424242424242")
    assert (text, message) == ("4242424242424242", "last4: takes only the last four digits")
    assert "4242424242424242" not in message


def test_last4_errors() -> None:
    assert only_error("last4:424") == ("424", "last4: takes four digits, not '424'")
    assert only_error("last4:42a2") == ("42a2", "last4: takes four digits, not '42a2'")
    assert only_error("last4:٤٢٤٢")[0] == "٤٢٤٢"  # Arabic-Indic digits are not card digits


def test_id_form_errors() -> None:
    assert only_error("account:mt_abc") == ("mt_abc", "that is a merchant id; use merchant:mt_abc")
    assert only_error("merchant:pa_abc") == ("pa_abc", "that is an account id; use account:pa_abc")
    assert only_error("account:abc") == (
        "abc",
        "account ids look like pa_… (letters and digits), not 'abc'",
    )
    assert only_error("merchant:mt_a-b")[0] == "mt_a-b"
    assert only_error("original:6206bcbf") == (
        "6206bcbf",
        "original: needs the whole 24-character authorization id",
    )
    assert only_error("original:zz")[1] == "original: takes a 24-character hex charge id, not 'zz'"


def test_amount_errors() -> None:
    assert only_error("amount>=abc") == ("abc", "'abc' is not an amount; write it like 25 or 25.50")
    assert only_error("amount:-5") == ("-5", "amounts are never negative")
    assert only_error("amount>25.001") == ("25.001", "amounts have at most two decimal places")
    assert only_error("amount<0") == ("0", "no amount is below 0")
    assert only_error("amount:1" + "0" * 15) == ("1" + "0" * 15, "that amount is too large")
    assert only_error("amount:.") == (".", "'.' is not an amount; write it like 25 or 25.50")
    assert only_error("amount:50..10") == (
        "50..10",
        "this range runs backwards; write the low end first",
    )
    assert only_error("amount:..") == ("..", "a range needs at least one end: amount:10..50")
    # Inside a range only the bad end is underlined.
    assert only_error("amount:10..x5") == ("x5", "'x5' is not an amount; write it like 25 or 25.50")
    assert only_error("amount:1.234..5") == ("1.234", "amounts have at most two decimal places")
    assert only_error('amount:"1 0"')[0] == '"1 0"'  # quoted: the whole value is underlined
    assert only_error("amount>50 amount<10") == (
        "amount<10",
        "'amount<10' and 'amount>50' leave no amount between",
    )
    assert only_error("amount<=10 amount>=50")[0] == "amount>=50"


def test_comparison_only_for_amount() -> None:
    assert only_error("from>2026-01-01") == (
        ">",
        "> only works with amount (amount>25); for dates use from: and to:",
    )
    assert only_error("status<=cb") == ("<=", "<= only works with amount (amount<=25)")


def test_a_status_paytui_does_not_know_is_sent_and_proven_on_the_rows() -> None:
    """Issue 38: the service decides what its statuses are; paytui never refuses one. The value
    is sent (lower case, as the spec writes statuses) and each returned row is proven by it."""
    from types import SimpleNamespace

    for typed, sent in (
        ("status:settled", "settled"),
        ("Status:Partially_Refunded", "partially_refunded"),
        ("status:chargebak", "chargebak"),  # a typo is the service's to answer, too
    ):
        query = ok(typed)
        assert query.status == sent
        assert ("status", sent) in query.to_params()
        assert format_query(query) == f"status:{sent}"
    query = ok("status:settled")
    assert query.verdicts(SimpleNamespace(status="settled"))["status"] is True
    assert query.verdicts(SimpleNamespace(status="success"))["status"] is False
    assert only_error("status:cb status:settled")[1].endswith("status takes one value")
    assert only_error("status:4111111111111111") == (
        "4111111111111111",
        "this looks like a full card number, not a status",
    )


def test_missing_values() -> None:
    assert only_error("status:") == (
        "status:",
        "status: needs a value: success, declined, chargeback, return, or any status the"
        " service shows",
    )
    assert only_error("tag: status:cb") == ("tag:", "tag: needs a value, as in tag:vip")
    assert only_error("amount>=") == (
        "amount>=",
        "amount>= needs a value, as in amount>=25 or amount:10..50",
    )
    assert only_error("attr:") == ("attr:", "attr: needs a value")
    assert only_error("attr:=x") == ("=x", "attr: needs a key, as in attr:order_id=A-1001")


def test_time_errors() -> None:
    assert only_error("from:2026-02-30") == (
        "2026-02-30",
        "'2026-02-30' is not a real date or time",
    )
    assert only_error("from:2026-13") == ("2026-13", "'2026-13' is not a real date or time")
    assert (
        only_error("from:2026-01-01T25:00Z")[1] == "'2026-01-01T25:00Z' is not a real date or time"
    )
    assert only_error("from:2026-01-01T10:00+25:00")[1] == "'+25:00' is not a time zone offset"
    assert only_error("from:lastweek") == (
        "lastweek",
        "'lastweek' is not a time; use 2026-01-31, 2026-01-31T10:00Z, today, yesterday, 7d or 24h",
    )
    assert only_error("to:9999-12-31") == ("9999-12-31", "that date is out of range")
    assert only_error("on:9999-12") == ("9999-12", "that date is out of range")
    assert only_error("from:999999w") == ("999999w", "that is too far back")
    assert only_error("on:7d") == ("7d", "on: takes a day or month (2026-01-31, today, 2026-01)")
    assert only_error("from:2026-02-01 to:2026-01-15") == (
        "to:2026-01-15",
        "'to:2026-01-15' and 'from:2026-02-01' leave no time between",
    )
    assert only_error("from:now to:now") == (
        "to:now",
        "'to:now' and 'from:now' leave no time between",
    )


def test_contradictions_name_the_earlier_term() -> None:
    assert only_error("status:cb status:return") == (
        "status:return",
        "'status:return' contradicts 'status:cb': status takes one value",
    )
    assert only_error("is:open type:sale") == (
        "type:sale",
        "'type:sale' contradicts 'is:open': type takes one value",
    )
    # is:open contradicts both type and captured, but the user sees one message for the term.
    assert errors("type:sale captured:yes is:open") == [
        ("is:open", "'is:open' contradicts 'type:sale': type takes one value")
    ]
    assert only_error("sort:time sort:amount")[0] == "sort:amount"
    assert only_error("last4:1111 last4:2222")[0] == "last4:2222"
    assert only_error("method:card method:ach")[0] == "method:ach"


def test_excluding_filters_tag_and_status_only() -> None:
    query = ok("-tag:vip -tag:'phone order' -status:cb -status:settled tag:web")
    assert query.not_tags == ("vip", "phone order") and query.tags == ("web",)
    assert query.not_statuses == ("chargeback", "settled")  # an alias written paytui's way
    assert query.to_params() == [("tag", "web")]  # never sent: proven on each row here
    assert only_error("-amount:5") == (
        "-amount",
        "only tag: and status: can be excluded (-tag:vip, -status:declined), not amount:",
    )
    assert only_error("-vip") == (
        "-vip",
        "to exclude, write -tag:vip or -status:declined (tag: and status: only)",
    )
    assert only_error("tag:vip -tag:vip") == ("-tag:vip", "'-tag:vip' contradicts tag:vip")
    assert only_error("-status:declined status:declined")[0] == "status:declined"
    assert ok("sort:-amount").sort == "-total_amount"  # a value's dash is no exclusion


def test_refunded_and_dispute() -> None:
    assert ok("refunded:full").refund_state == "full"
    assert ok("refunded:partly").refund_state == "partial"
    assert ok("refund_state:no").refund_state == "none"
    assert ok("dispute:won").dispute_state == "won"
    # An open, won or lost dispute is on a charge with a chargeback: the spec's filter narrows.
    assert ok("dispute:lost").to_params() == [("status", "chargeback")]
    assert ok("dispute:none").to_params() == []
    assert ok("refunded:partial").to_params() == []
    assert only_error("refunded:maybe") == (
        "maybe",
        "unknown refunded: value 'maybe'; use one of: full, partial, none",
    )
    assert only_error("dispute:open dispute:won")[0] == "dispute:won"


def test_unclosed_quote() -> None:
    assert only_error('tag:"phone order') == (
        '"phone order',
        'this " quote is never closed; add a "',
    )
    assert only_error("tag:'x") == ("'x", "this ' quote is never closed; add a '")


def test_every_error_is_reported_in_order() -> None:
    text = "stauts:cb foo1 amount>=abc 4242424242424242 from:2026-02-30 tag:ok"
    assert [underlined for underlined, _ in errors(text)] == [
        "stauts",
        "foo1",
        "abc",
        "4242424242424242",
        "2026-02-30",
    ]


def test_long_user_text_is_shortened_in_messages() -> None:
    text, message = only_error("method:" + "x" * 200)
    assert text == "x" * 200
    assert message.count("x") < 40
    assert "…" in message
    # Control characters never reach the one-line message.
    assert "\x1b" not in only_error("method:\x1b[31m")[1]
    assert only_error("status:\x1b[31m") == ("\x1b[31m", "a status has no control characters")
