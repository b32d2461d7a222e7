"""Models: exact money, the wire timestamp form, tolerant reading, and secrets kept out of logs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from pydantic import ValidationError as PydanticValidationError

from paytui.api.models import (
    BankAccountPaymentMethod,
    BankAccountPaymentMethodRequest,
    CardPaymentMethod,
    CardPaymentMethodRequest,
    Charge,
    ChargeRequest,
    Distribution,
    Page,
    RefundRequest,
    Token,
    TokenCreatePaymentMethodRequest,
    TokenInfo,
    TokenPaymentMethodRequest,
    TokenRequest,
    TokenUpdate,
    UnknownPaymentMethod,
)
from paytui.api.money import loads_json, to_decimal, to_wire

CARD_SALE = """{
  "charge_id": "6206bcbf973c0193850fb6c7",
  "charge_timestamp": "2022-02-11T19:45:03.115Z",
  "authorization_code": "123456",
  "total_amount": 25.10,
  "reversal_flag": false,
  "payment_method": {
    "method": "card", "type": "visa", "card_number": "XXXXXXXXXXXX1111",
    "contact": {"first_name": "Ada", "last_name": "Lovelace"}
  },
  "processor_messages": {"avs_response": "passed", "cv_response": "passed"},
  "account_id": "pa_aaaaaaaaaaaaaaaaaaaa",
  "merchant_id": "mt_aaaaaaaaaaaaaaaaaaaa",
  "status": "success",
  "result_code": "Approved",
  "result_text": "Sandbox transaction success",
  "last_updated_timestamp": "2022-02-11T19:45:03.115Z",
  "charge_type": "sale",
  "tags": ["vip"],
  "attributes": {"order": ["A-1"]},
  "chargebacks": {"total_amount": 10.05, "items": [
    {"chargeback_id": "c1", "amount": 10.05, "reason_code": "4837", "future": 1}]},
  "return": {"return_code": "R01", "reason": "Insufficient funds",
             "return_timestamp": "2022-02-12T00:00:00.000Z"},
  "brand_new_field": {"nested": [1, 2]}
}"""


def charge(**overrides: object) -> Charge:
    data = loads_json(CARD_SALE)
    data.update(overrides)
    return Charge.model_validate(data)


# -- money ------------------------------------------------------------------------------------


def test_money_is_parsed_from_the_raw_text_never_through_float() -> None:
    parsed = Charge.model_validate(
        loads_json('{"charge_id": "x", "total_amount": 0.30000000000000004}')
    )
    assert parsed.total_amount == Decimal("0.30000000000000004")
    assert isinstance(parsed.total_amount, Decimal)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (1, Decimal("1")),
        (25.5, Decimal("25.5")),
        ("10.10", Decimal("10.10")),
        (0.1, Decimal("0.1")),
    ],
)
def test_money_accepts_int_float_and_str(raw: object, expected: Decimal) -> None:
    assert to_decimal(raw) == expected
    assert str(to_decimal(raw)) == str(expected)


@pytest.mark.parametrize("bad", [True, "abc", float("nan"), "Infinity", None, [1]])
def test_money_refuses_non_amounts(bad: object) -> None:
    with pytest.raises(ValueError):
        to_decimal(bad)


def test_decimal_sum_round_trips_exactly_through_a_request_body() -> None:
    amount = Decimal("0.1") + Decimal("0.2")
    request = ChargeRequest(
        account_id="pa_x",
        total_amount=amount,
        payment_method=TokenPaymentMethodRequest(token_id="ct_x"),
    )
    text = json.dumps(request.to_body())
    assert '"total_amount": 0.3' in text
    assert loads_json(text)["total_amount"] == Decimal("0.3")
    assert request.model_dump_json().count('"total_amount":0.3') == 1


def test_money_is_written_with_at_most_two_places() -> None:
    assert to_wire(Decimal("25.50")) == 25.5
    assert to_wire(Decimal("1.00")) == 1
    assert isinstance(to_wire(Decimal("1.00")), int)
    assert to_wire(Decimal("2.005")) == 2.0  # banker's rounding to the cent
    assert to_wire(Decimal("1234567890123.45")) == 1234567890123.45
    with pytest.raises(ValueError):
        to_wire(Decimal("12345678901234567.25"))


def test_charge_money_fields_round_trip_through_json() -> None:
    original = charge()
    again = Charge.model_validate(loads_json(original.model_dump_json()))
    assert again.total_amount == Decimal("25.10")
    assert again.chargebacks is not None
    assert again.chargebacks.total_amount == Decimal("10.05")
    assert again.chargebacks.items[0].amount == Decimal("10.05")


# -- timestamps -------------------------------------------------------------------------------


def test_timestamps_are_aware_and_written_back_exactly() -> None:
    parsed = charge()
    assert parsed.charge_timestamp == datetime(2022, 2, 11, 19, 45, 3, 115000, tzinfo=UTC)
    assert parsed.charge_timestamp.tzinfo is not None
    dumped = json.loads(parsed.model_dump_json())
    assert dumped["charge_timestamp"] == "2022-02-11T19:45:03.115Z"
    assert dumped["return"]["return_timestamp"] == "2022-02-12T00:00:00.000Z"


def test_timestamps_with_offset_or_none_are_normalised_to_utc() -> None:
    with_offset = charge(charge_timestamp="2022-02-11T21:45:03.115+02:00")
    assert (
        json.loads(with_offset.model_dump_json())["charge_timestamp"] == "2022-02-11T19:45:03.115Z"
    )
    naive = charge(charge_timestamp="2022-02-11T19:45:03")
    assert naive.charge_timestamp == datetime(2022, 2, 11, 19, 45, 3, tzinfo=UTC)


def test_token_update_writes_timestamp_in_wire_form() -> None:
    update = TokenUpdate(
        token_expiration_date=datetime(
            2030, 1, 2, 3, 4, 5, 678901, tzinfo=timezone(timedelta(hours=1))
        )
    )
    assert update.to_body() == {"token_expiration_date": "2030-01-02T02:04:05.678Z"}


# -- tolerant reading -------------------------------------------------------------------------


def test_unknown_fields_are_kept_and_dumped_again() -> None:
    parsed = charge()
    assert parsed.model_extra is not None
    assert parsed.model_extra["brand_new_field"] == {"nested": [1, 2]}
    dumped = parsed.model_dump()
    assert dumped["brand_new_field"] == {"nested": [1, 2]}
    assert dumped["chargebacks"]["items"][0]["future"] == 1
    assert dumped["return"]["return_code"] == "R01"  # by alias: the wire key


def test_return_info_is_read_from_the_reserved_word_key() -> None:
    parsed = charge()
    assert parsed.return_info is not None
    assert parsed.return_info.reason == "Insufficient funds"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("vip, refund-risk,,  wholesale", ["vip", "refund-risk", "wholesale"]),
        (["a", "b"], ["a", "b"]),
        ("", []),
        (None, []),
    ],
)
def test_tags_accept_the_legacy_string_form(raw: object, expected: list[str]) -> None:
    assert charge(tags=raw).tags == expected


def test_attributes_accept_a_bare_string_value() -> None:
    parsed = charge(attributes={"order": "A-1", "lines": ["x", "y"], "empty": None})
    assert parsed.attributes == {"order": ["A-1"], "lines": ["x", "y"], "empty": []}


def test_a_minimal_charge_is_enough() -> None:
    parsed = Charge.model_validate({"charge_id": "abc"})
    assert parsed.total_amount is None
    assert parsed.tags == []
    assert parsed.last4 is None
    assert parsed.contact_name == ""
    assert parsed.method is None
    assert not parsed.is_open_authorization


def test_a_charge_without_id_is_rejected() -> None:
    with pytest.raises(PydanticValidationError):
        Charge.model_validate({"total_amount": 1})


# -- payment methods --------------------------------------------------------------------------


def test_card_payment_method_and_convenience_properties() -> None:
    parsed = charge()
    assert isinstance(parsed.payment_method, CardPaymentMethod)
    assert parsed.payment_method.brand == "visa"
    assert parsed.method == "card"
    assert parsed.last4 == "1111"
    assert parsed.contact_name == "Ada Lovelace"


def test_bank_account_payment_method() -> None:
    parsed = charge(
        payment_method={
            "method": "bank_account",
            "account_number": "1111",
            "contact": {"first_name": "Grace", "last_name": "Hopper"},
        }
    )
    assert isinstance(parsed.payment_method, BankAccountPaymentMethod)
    assert parsed.method == "bank_account"
    assert parsed.last4 == "1111"
    assert parsed.contact_name == "Grace Hopper"


def test_unknown_payment_method_is_kept_not_rejected() -> None:
    parsed = charge(payment_method={"method": "wallet", "wallet_id": "w1", "card_number": "XX4242"})
    assert isinstance(parsed.payment_method, UnknownPaymentMethod)
    assert parsed.method == "wallet"
    assert parsed.last4 == "4242"
    assert parsed.model_dump()["payment_method"]["wallet_id"] == "w1"


def test_token_charge_keeps_the_token_id() -> None:
    pm = {"method": "card", "type": "visa", "card_number": "XXXXXXXXXXXX1111", "token_id": "ct_1"}
    assert charge(payment_method=pm).token_id == "ct_1"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"charge_type": "authorization", "result_code": "Authorized"}, True),
        ({"charge_type": "authorization", "captured_charge_id": "c2"}, False),
        ({"charge_type": "authorization", "status": "declined"}, False),
        ({"charge_type": "pre_authorization", "result_code": "Authorized"}, False),
        ({"charge_type": "sale"}, False),
        ({"charge_type": None, "result_code": "Authorized"}, True),
        ({"charge_type": None, "result_code": "Authorized", "total_amount": 0}, False),
    ],
)
def test_is_open_authorization(fields: dict[str, object], expected: bool) -> None:
    assert charge(**fields).is_open_authorization is expected


def test_token_and_distribution_read() -> None:
    token = Token.model_validate(
        loads_json(
            '{"token_id": "ct_x", "payment_method": {"method": "card", "card_number":'
            ' "XXXXXXXXXXXX1111", "expiration_date": "2030-12", "contact": {"country": "US"}},'
            ' "fraud_score": 0.25, "reason": "on_file",'
            ' "token_expiration_date": "2029-01-01T00:00:00.000Z"}'
        )
    )
    assert token.fraud_score == Decimal("0.25")
    assert token.last4 == "1111"
    dist = Distribution.model_validate(
        loads_json(
            '{"distribution_id": "d1", "total_amounts": {"sales": 100.10, "chargebacks": 0,'
            ' "net": 100.10}, "items": [{"item_id": "i", "charge_id": "c", "category":'
            ' "chargebacks", "amount": 5.5}]}'
        )
    )
    assert dist.total_amounts is not None
    assert dist.total_amounts.chargebacks == Decimal("0")
    assert dist.items is not None
    assert dist.items[0].amount == Decimal("5.5")


# -- requests and secrets ---------------------------------------------------------------------

CARD = "4111111111111111"
BANK = "111111111111"


def card_request() -> ChargeRequest:
    return ChargeRequest(
        account_id="pa_x",
        total_amount=Decimal("10.00"),
        payment_method=CardPaymentMethodRequest(
            card_number=CARD, expiration_date="2030-12", contact={"first_name": "Ada"}
        ),
        tags="a,b",
    )


def test_card_number_never_shows_in_repr_str_or_json_dump() -> None:
    request = card_request()
    for text in (repr(request), str(request), request.model_dump_json(), str(request.model_dump())):
        assert CARD not in text
    assert "**********" in repr(request)


def test_card_number_is_revealed_only_in_the_request_body() -> None:
    body = card_request().to_body()
    assert body == {
        "account_id": "pa_x",
        "total_amount": 10,
        "payment_method": {
            "method": "card",
            "card_number": CARD,
            "expiration_date": "2030-12",
            "contact": {"first_name": "Ada"},
        },
        "tags": ["a", "b"],
    }


def test_bank_account_number_is_secret_too() -> None:
    request = ChargeRequest(
        account_id="pa_x",
        total_amount=Decimal("5"),
        payment_method=BankAccountPaymentMethodRequest(
            routing_number="021000021", account_number=BANK
        ),
    )
    assert BANK not in repr(request)
    assert BANK not in request.model_dump_json()
    assert request.to_body()["payment_method"] == {
        "method": "bank_account",
        "type": "checking",
        "routing_number": "021000021",
        "account_number": BANK,
    }


def test_token_create_request_carries_the_reason() -> None:
    request = TokenRequest(
        account_id="pa_x",
        payment_method=TokenCreatePaymentMethodRequest(card_number=CARD, expiration_date="2030-12"),
    )
    assert CARD not in repr(request)
    assert request.to_body()["payment_method"]["reason"] == "on_file"
    assert request.to_body()["payment_method"]["card_number"] == CARD


def test_charge_request_picks_the_payment_method_variant_from_a_dict() -> None:
    token = ChargeRequest.model_validate(
        {"account_id": "a", "total_amount": "1.50", "payment_method": {"token_id": "ct_1"}}
    )
    assert isinstance(token.payment_method, TokenPaymentMethodRequest)
    bank = ChargeRequest.model_validate(
        {
            "account_id": "a",
            "total_amount": 1,
            "payment_method": {
                "method": "bank_account",
                "routing_number": "021000021",
                "account_number": BANK,
            },
        }
    )
    assert isinstance(bank.payment_method, BankAccountPaymentMethodRequest)


def test_request_models_refuse_unknown_fields() -> None:
    with pytest.raises(PydanticValidationError):
        RefundRequest.model_validate({"charge_id": "c", "totl_amount": 1})


def test_refund_request_leaves_out_what_is_not_given() -> None:
    assert RefundRequest(charge_id="c").to_body() == {"charge_id": "c"}
    assert RefundRequest(charge_id="c", total_amount=Decimal("0.10")).to_body() == {
        "charge_id": "c",
        "total_amount": 0.1,
    }


def test_token_info_hides_the_token_and_knows_expiry() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    info = TokenInfo(
        access_token="sekrit-token", expires_at=now + timedelta(seconds=90), scopes=frozenset({"a"})
    )
    assert "sekrit-token" not in repr(info)
    assert not info.expires_within(60, now)
    assert info.expires_within(60, now + timedelta(seconds=31))


def test_page_next_offset() -> None:
    page = Page[Charge](items=[charge(), charge()], total=10, limit=2, offset=4, has_more=True)
    assert page.next_offset == 6
