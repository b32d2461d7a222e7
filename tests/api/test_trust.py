"""Trust only what the service says: a capture is named only when its `original_charge_id` says
so, a filter the service ignored is noticed and said, amounts keep every digit, one odd field is
"unreadable" and not the whole charge, and a plain sale is sent without `charge_type`."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from paytui.api.captures import find_capture
from paytui.api.models import CardPaymentMethod, Charge, ChargeRequest
from paytui.api.money import loads_json
from paytui.api.queries import OPEN_AUTHORIZATIONS, ChargeQuery, RefundQuery
from tests.api.test_client import make_client

AUTH_OPEN = {
    "charge_id": "a" * 24,
    "status": "success",
    "result_code": "Authorized",
    "total_amount": 10,
}
AUTH_CAPTURED = {
    "charge_id": "b" * 24,
    "status": "success",
    "charge_type": "authorization",
    "total_amount": 20,
}
CAPTURE_OF_B = {
    "charge_id": "c" * 24,
    "status": "success",
    "result_code": "Approved",
    "original_charge_id": "b" * 24,
    "total_amount": 20,
}
CAPTURE_OF_OTHER = {
    "charge_id": "d" * 24,
    "status": "success",
    "result_code": "Approved",
    "original_charge_id": "f" * 24,
    "total_amount": 5,
}
SALE = {"charge_id": "e" * 24, "status": "success", "charge_type": "sale", "total_amount": 1}
CHARGES = [CAPTURE_OF_OTHER, SALE, CAPTURE_OF_B, AUTH_OPEN, AUTH_CAPTURED]


def service(*, honours: frozenset[str] = frozenset()) -> Any:
    """A service that reads only `limit`, `offset` and the parameters in `honours` (equality);
    every other query parameter is ignored, as many services do with unknown ones."""

    def handle(request: httpx.Request) -> httpx.Response:
        params = request.url.params
        if request.url.path == "/v2/charges":
            found = [
                c for c in CHARGES if all(c.get(k) == params[k] for k in honours if k in params)
            ]
            offset, limit = int(params.get("offset", 0)), int(params.get("limit", 50))
            return httpx.Response(200, json={"data": found[offset : offset + limit]})
        charge_id = request.url.path.rsplit("/", 1)[-1]
        return httpx.Response(200, json=next(c for c in CHARGES if c["charge_id"] == charge_id))

    return handle


async def test_a_service_ignoring_the_filter_never_lends_a_charge_as_the_capture() -> None:
    async with make_client(service()) as client:
        open_lookup = await find_capture(client, AUTH_OPEN["charge_id"])
        captured_lookup = await find_capture(client, await client.get_charge("b" * 24))
    # Captures of other authorizations came back first: none is named, and nothing is proven.
    assert open_lookup.capture_id is None and not open_lookup.proven
    assert "ignored" in open_lookup.describe()
    # The one whose original_charge_id says so is.
    assert captured_lookup.capture_id == CAPTURE_OF_B["charge_id"] and captured_lookup.proven


async def test_a_service_honouring_the_filter_proves_not_captured() -> None:
    async with make_client(service(honours=frozenset({"original_charge_id"}))) as client:
        lookup = await find_capture(client, AUTH_OPEN["charge_id"])
        found = await find_capture(client, AUTH_CAPTURED["charge_id"])
    assert lookup.capture_id is None and lookup.proven
    assert lookup.describe() == "not captured yet"
    assert found.capture_id == CAPTURE_OF_B["charge_id"]


async def test_the_sandbox_shortcut_names_the_capture_without_a_search() -> None:
    def no_search(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no search needed")

    async with make_client(no_search) as client:
        auth = Charge.model_validate({**AUTH_CAPTURED, "captured_charge_id": "c" * 24})
        assert (await find_capture(client, auth)).capture_id == "c" * 24


async def test_an_ignored_filter_is_noticed_and_said_in_one_line() -> None:
    async with make_client(service()) as client:
        page = await client.search_charges_page(OPEN_AUTHORIZATIONS)
        plain = await client.search_charges_page(ChargeQuery())
        refunds_service = make_client(
            lambda r: httpx.Response(200, json=[{"refund_id": "r1", "charge_id": "x"}])
        )
        async with refunds_service as refunds_client:
            refunds = await refunds_client.search_refunds_page(RefundQuery(charge_id="y"))
            tokens = await refunds_client.list_tokens_page(account_id="pa_1")
    assert page.ignored_filters == ("charge_type",)
    assert page.ignored_note is not None and "charge_type" in page.ignored_note
    assert "\n" not in page.ignored_note
    assert plain.ignored_filters == () and plain.ignored_note is None
    assert refunds.ignored_filters == ("charge_id",)
    assert tokens.ignored_filters == ()  # no item carries an account_id: nothing contradicts


@pytest.mark.parametrize(
    ("query", "charge", "expected"),
    [
        (ChargeQuery(captured=False), {"captured_charge_id": "x"}, ["captured"]),
        (
            ChargeQuery(charge_type="authorization"),
            {"result_code": "Approved", "status": "success"},
            ["charge_type"],
        ),
        (ChargeQuery(charge_type="authorization"), {"result_code": "Declined"}, []),
        (
            ChargeQuery(charge_type="authorization"),
            {"result_code": "Authorized", "total_amount": 3},
            [],
        ),
        (ChargeQuery(status="chargeback"), {"status": "success", "chargebacks": {}}, []),
        (ChargeQuery(status="chargeback"), {"status": "success"}, ["status"]),
        (ChargeQuery(tags=("VIP",)), {"tags": ["vip"]}, []),
        (ChargeQuery(tags=("vip",)), {"tags": ["other"]}, ["tag"]),
        (ChargeQuery(tags=("vip",)), {}, []),
        (ChargeQuery(charge_id="abcd"), {}, []),
        (ChargeQuery(charge_id="bcde"), {}, ["charge_id"]),
        (ChargeQuery(min_amount=Decimal(5)), {"total_amount": 4}, ["min_amount"]),
        (ChargeQuery(original_charge_id="z"), {}, ["original_charge_id"]),
    ],
)
def test_what_contradicts_a_filter(
    query: ChargeQuery, charge: dict[str, Any], expected: list[str]
) -> None:
    parsed = Charge.model_validate({"charge_id": "abcd1234", **charge})
    assert query.contradicted_by(parsed) == expected


def test_amounts_keep_every_digit_when_written_back() -> None:
    charge = Charge.model_validate(loads_json('{"charge_id": "c", "total_amount": 1.005}'))
    assert charge.total_amount == Decimal("1.005")
    dumped = json.loads(charge.model_dump_json())
    assert dumped["total_amount"] == 1.005
    long = Charge.model_validate(
        loads_json('{"charge_id": "c", "total_amount": 0.12345678901234567891}')
    )
    assert Decimal(str(long.model_dump(mode="json")["total_amount"])) == long.total_amount


def test_a_payment_method_without_method_keeps_its_brand() -> None:
    charge = Charge.model_validate(
        {"charge_id": "c", "payment_method": {"type": "visa", "card_number": "XXXXXXXXXXXX1111"}}
    )
    assert isinstance(charge.payment_method, CardPaymentMethod)
    assert charge.payment_method.brand == "visa" and charge.last4 == "1111"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("chargebacks", [{"amount": 1}]),
        ("convenience_fee", {"amount": 1}),
        ("line_items", {"sku": "x"}),
        ("total_amount", float("nan")),
        ("total_amount", "lots"),
    ],
)
def test_one_odd_field_is_unreadable_not_the_whole_charge(field: str, value: Any) -> None:
    charge = Charge.model_validate({"charge_id": "c", "status": "success", field: value})
    assert charge.status == "success"
    assert set(charge.unreadable_fields) == {field}
    assert getattr(charge, field) is None
    assert "lots" not in charge.unreadable_fields[field]  # values are not quoted (card data)


def test_a_plain_sale_leaves_charge_type_out() -> None:
    common: dict[str, Any] = {
        "account_id": "pa_1",
        "total_amount": 1,
        "payment_method": {"token_id": "ct_1"},
    }
    assert "charge_type" not in ChargeRequest(**common, charge_type="sale").to_body()
    body = ChargeRequest(**common, charge_type="authorization").to_body()
    assert body["charge_type"] == "authorization"
