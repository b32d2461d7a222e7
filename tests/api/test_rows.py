"""Light rows (`paytui.api.rows.ChargeLine`): what an export or a streamed search reads instead of
a whole model, held to write, prove and judge exactly what the model (`ChargeRow`) does for
the same JSON, for the service's plain rows and for every odd shape (which the model reads)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pydantic
import pytest

from paytui.api.client import PaymentClient
from paytui.api.models import Charge, ChargeRow, row_id
from paytui.api.money import loads_json
from paytui.api.queries import ChargeQuery
from paytui.api.rows import CHARGE_FIELDS, ChargeLine
from paytui.charge_state import dispute_state, refund_state
from paytui.exporter import CHARGE_COLUMNS, write_rows

BASE: dict[str, Any] = {
    "charge_id": "58396f72d564cddfb425d0c3",
    "charge_type": "sale",
    "charge_timestamp": "2026-11-20T17:18:50.351Z",
    "last_updated_timestamp": "2026-11-20T17:18:50.351Z",
    "status": "success",
    "result_code": "Approved",
    "result_text": "Sandbox transaction success",
    "authorization_code": "VH77SV",
    "total_amount": Decimal("75.39"),
    "reversal_flag": False,
    "account_id": "pa_gjanl9lb5hgmdkxi1d3f",
    "merchant_id": "mt_9m3zwombec0jfd45ykik",
    "payment_method": {
        "method": "card",
        "type": "visa",
        "card_number": "XXXXXXXXXXXX1111",
        "contact": {"first_name": "Edsger", "last_name": "Dijkstra"},
    },
    "processor_messages": {"avs_response": "passed", "cv_response": "passed"},
    "tags": ["web"],
    "attributes": {"order_id": ["A-2856"], "channel": ["web"]},
}

#: Rows in the shapes the service sends: each is read by hand, never by the model.
PLAIN: dict[str, dict[str, Any]] = {
    "demo": {},
    "offset time, fraction of one digit": {"charge_timestamp": "2026-01-31T10:00:00.1+05:30"},
    "no zone (read as UTC)": {"last_updated_timestamp": "2026-01-31T10:00:00"},
    "amount as text, integral fee": {"total_amount": "12.5", "convenience_fee": 3},
    "amount of three places": {"total_amount": Decimal("0.125")},
    "tags as one string": {"tags": "vip, web,vip"},
    "tags with a null": {"tags": ["vip", None, "x"]},
    "attributes as bare values": {"attributes": {"k": "v", "n": 3, "e": None, "l": ["a", None]}},
    "card without a method": {"payment_method": {"type": "visa", "card_number": "XXXX4242"}},
    "bank account": {
        "payment_method": {
            "method": "bank_account",
            "account_number": "XXXXX6789",
            "routing_number": "021000021",
            "contact": {"first_name": "Ada", "last_name": None, "country": "GB"},
        }
    },
    "chargebacks": {
        "status": "chargeback",
        "chargebacks": {
            "total_amount": "10.00",
            "items": [{"status": "won", "amount": 10, "chargeback_timestamp": None}],
        },
    },
    "an ACH return": {"status": "return", "return": {"return_code": "R01", "reason": "NSF"}},
    "an authorization told by its result code": {
        "charge_type": None,
        "result_code": "Authorized",
        "total_amount": "5",
    },
    "a capture": {"charge_type": "capture", "original_charge_id": "aba8636e634173cf3f4efcf5"},
    "fields beyond the spec (not kept)": {"hold": {"until": "2026-12-01"}, "risk": 3},
    "hostile text": {
        "payment_method": {
            "method": "card",
            "type": "visa",
            "card_number": "XXXXXXXXXXXX1111",
            "contact": {"first_name": "4111 1111 1111 1111", "last_name": "\x1b]2;pwn\x07"},
        },
        "tags": ['=HYPERLINK("x")', "Bearer abc.def", "\u202egpj.exe"],
        "result_text": "password=hunter2",
    },
    "nothing but an id": {
        key: None for key in BASE if key not in ("charge_id", "tags", "attributes")
    },
}

#: Rows with a field in a shape the hand reader does not take: the model reads them (and sets
#: the field aside, or refuses the row), so they come out as before.
ODD: dict[str, dict[str, Any]] = {
    "time with a space": {"charge_timestamp": "2026-01-31 10:00:00Z"},
    "time as a number": {"charge_timestamp": 1769853600},
    "time of nanoseconds": {"charge_timestamp": "2026-01-31T10:00:00.123456789Z"},
    "time that is not one": {"charge_timestamp": "yesterday"},
    "amount that is not one": {"total_amount": "abc"},
    "amount as a boolean": {"total_amount": True},
    "amount as a float's NaN": {"total_amount": float("nan")},
    "status as a number": {"status": 5},
    "flag as text": {"reversal_flag": "true"},
    "tags as an object": {"tags": {"x": 1}},
    "attributes of an object": {"attributes": {"k": {"x": 1}}},
    "a method of another kind": {"payment_method": {"method": "wallet", "card_number": "XX1234"}},
    "a method left null": {"payment_method": {"method": None, "card_number": "XXXX4242"}},
    "both numbers": {
        "payment_method": {"method": "card", "card_number": "X1111", "account_number": "X2222"}
    },
    "a name as a number": {"payment_method": {"method": "card", "contact": {"first_name": 5}}},
    "chargeback items as text": {"chargebacks": {"items": "x"}},
    "return by its field name": {"return_info": {"return_code": "R02"}},
}

#: Rows no reader can read: refused as unreadable by both.
REFUSED: dict[str, dict[str, Any]] = {
    "no id": {"charge_id": None},
    "an id as a number": {"charge_id": 123},
}

QUERIES = [
    ChargeQuery(status="chargeback"),
    ChargeQuery(status="return", tags=("vip",)),
    ChargeQuery(attributes=(("channel", "web"), ("k", ""))),
    ChargeQuery(min_amount=Decimal("10"), max_amount=Decimal("100"), method="card"),
    ChargeQuery(last4="1111", charge_type="authorization", captured=False),
    ChargeQuery(contact_name="edsger", charge_id="5839", original_charge_id="x"),
    ChargeQuery(dispute_state="won", refund_state="none", not_tags=("web",)),
    ChargeQuery(created_to=datetime(2026, 11, 1, tzinfo=UTC), not_statuses=("declined",)),
]


def raw(overrides: dict[str, Any]) -> dict[str, Any]:
    return {**BASE, **overrides}


def written(rows: list[Any], fmt: str, *, local: bool = False) -> str:
    out = io.StringIO()
    write_rows(out, rows, fmt, columns=list(CHARGE_COLUMNS), local=local)
    return out.getvalue()


def assert_alike(line: Any, model: ChargeRow) -> None:
    """Everything an export, a search's proof and the state rules read of a row."""
    for fmt in ("jsonl", "csv"):
        assert written([line], fmt) == written([model], fmt)
    assert written([line], "jsonl", local=True) == written([model], "jsonl", local=True)
    assert line.model_fields_set == model.model_fields_set
    assert row_id(line) == row_id(model)
    for query in QUERIES:
        assert query.verdicts(line) == query.verdicts(model)
    assert dispute_state(line) == dispute_state(model)
    assert refund_state(line, None) == refund_state(model, None)
    for name in ("is_authorization", "is_open_authorization", "token_id", "contact_name"):
        assert getattr(line, name) == getattr(model, name), name


@pytest.mark.parametrize("name", list(PLAIN))
def test_a_plain_row_is_read_by_hand_and_reads_as_the_model(name: str) -> None:
    body = raw(PLAIN[name])
    line = ChargeLine.model_validate(body)
    assert type(line) is ChargeLine  # no pydantic for this row
    assert_alike(line, ChargeRow.model_validate(body))


@pytest.mark.parametrize("name", list(ODD))
def test_an_odd_field_is_left_to_the_model(name: str) -> None:
    body = raw(ODD[name])
    assert ChargeLine.read(body) is None
    line = ChargeLine.model_validate(body)
    assert type(line) is ChargeRow
    assert_alike(line, ChargeRow.model_validate(body))


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_row_without_its_id_is_refused_as_by_the_model(name: str) -> None:
    body = raw(REFUSED[name])
    with pytest.raises(pydantic.ValidationError):
        ChargeRow.model_validate(body)
    with pytest.raises(pydantic.ValidationError):
        ChargeLine.model_validate(body)


async def test_the_sandbox_rows_are_read_by_hand_and_write_what_the_model_writes(
    demo_client: PaymentClient,
) -> None:
    """Every demo charge (every status, method, chargeback and return the seed makes)."""
    rows: list[dict[str, Any]] = []
    offset = 0
    while True:
        body = await demo_client.read("/v2/charges", [("limit", "100"), ("offset", str(offset))])
        rows += body["data"]
        if not body.get("has_more"):
            break
        offset += len(body["data"])
    lines = [ChargeLine.model_validate(item) for item in rows]
    models = [ChargeRow.model_validate(item) for item in rows]
    assert len(rows) > 100 and all(type(line) is ChargeLine for line in lines)
    for fmt in ("jsonl", "csv"):
        assert written(lines, fmt) == written(models, fmt)
    assert [line.model_fields_set for line in lines] == [m.model_fields_set for m in models]


async def test_a_page_counts_a_row_it_cannot_read_and_keeps_the_others(
    demo_client: PaymentClient,
) -> None:
    """Through the client's page reader: the unreadable row is counted (never a traceback)."""
    from paytui.api.client import _parse_page

    body = loads_json(
        '{"data": [{"charge_id": "a1", "status": "success"}, {"status": "success"},'
        ' {"charge_id": "a3", "charge_timestamp": "soon"}], "has_more": false}'
    )
    page = _parse_page(body, ChargeLine, "charges", 100, 0)  # type: ignore[type-var]
    assert [row_id(item) for item in page.items] == ["a1", "a3"]
    assert [type(item) for item in page.items] == [ChargeLine, ChargeRow]
    assert page.items[1].charge_timestamp is None  # set aside, as the model does
    assert [item.position for item in page.unreadable] == [1]
    rows = list(csv.reader(io.StringIO(written(page.items, "csv"))))
    assert [row[1] for row in rows[1:]] == ["a1", "a3"]


def test_a_line_is_read_without_pydantic() -> None:
    """`ChargeLine` (and `ChargeReads`, which the model shares) import no pydantic: the light
    path of an export or a streamed search reads its rows without it."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from paytui.api.money import loads_json\n"
        "from paytui.api.rows import ChargeLine\n"
        "line = ChargeLine.read(loads_json(sys.argv[1]))\n"
        "print(line.last4, line.contact_name, line.is_authorization)\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'pydantic'))\n"
    )
    body = '{"charge_id": "c1", "payment_method": {"method": "card", "card_number": "XX4242"}}'
    out = subprocess.run(
        [sys.executable, "-c", code, body], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["4242  False", "[]"]


def test_the_model_declares_the_one_list_of_a_charges_fields() -> None:
    """`CHARGE_FIELDS` is the one list (the light row's slots, the detail's panels read it);
    the model declares each field with its type: the same fields, by wire name and by name."""
    by_wire = {field.alias or name: name for name, field in Charge.model_fields.items()}
    assert by_wire == CHARGE_FIELDS
    assert set(ChargeRow.model_fields) == set(CHARGE_FIELDS.values())
