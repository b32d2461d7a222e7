"""Client-side checks of the payment forms (`paytui.validation`): pure functions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from paytui import validation as v

TODAY = datetime(2026, 11, 20, tzinfo=UTC)


@pytest.mark.parametrize(
    ("number", "ok"),
    [
        ("4111111111111111", True),
        ("4000000000000002", True),
        ("5555555555554444", True),
        ("378282246310005", True),
        ("4111111111111112", False),
        ("", False),
        ("4111 1111", False),
    ],
)
def test_luhn(number: str, ok: bool) -> None:
    assert v.luhn_valid(number) is ok


@pytest.mark.parametrize(
    ("number", "brand"),
    [
        ("4111111111111111", "visa"),
        ("5555555555554444", "mastercard"),
        ("2221000000000009", "mastercard"),
        ("378282246310005", "amex"),
        ("6011111111111117", "discover"),
        ("9111111111111110", None),
        ("41111", None),
    ],
)
def test_brand(number: str, brand: str | None) -> None:
    assert v.card_brand(number) == brand


def test_check_card_number_messages_never_quote_the_number() -> None:
    assert v.check_card_number("4111111111111111") is None
    for bad in ("4111111111111112", "9111111111111110", "41111", "", "4111x"):
        message = v.check_card_number(bad)
        assert message
        assert bad == "" or bad not in message
    assert "Luhn" in (v.check_card_number("4111111111111112") or "")
    assert "brand" in (v.check_card_number("9111111111111110") or "")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2026-11", None),
        ("2030-01", None),
        ("2026-10", "expired"),
        ("2026-13", "YYYY-MM"),
        ("26-11", "YYYY-MM"),
        ("11/2028", "YYYY-MM"),
        ("", "YYYY-MM"),
    ],
)
def test_expiration(text: str, fragment: str | None) -> None:
    message = v.check_expiration(text, TODAY)
    if fragment is None:
        assert message is None
    else:
        assert message is not None and fragment in message


@pytest.mark.parametrize(
    ("routing", "ok"),
    [("021000021", True), ("011000015", True), ("021000022", False), ("12345678", False)],
)
def test_routing(routing: str, ok: bool) -> None:
    assert v.routing_number_valid(routing) is ok
    assert (v.check_routing_number(routing) is None) is ok


def test_mask_card() -> None:
    assert v.mask_card(16, "1111") == "•••• •••• •••• 1111"
    assert v.mask_card(15, "0005") == "••• •••• •••• 0005"
    assert v.mask_card(3, "123") == "123"
    assert v.mask_card(0, "") == ""
    assert "4111111111111111" not in v.mask_card(16, "1111")


def test_tags_and_attributes() -> None:
    assert v.parse_tags(" a, b ,,c ") == ["a", "b", "c"]
    assert v.parse_tags("vip, web, vip") == ["vip", "web"]  # order kept, a repeat once
    assert v.parse_attributes("k=1\nk=2\n\nx = y=z") == ({"k": ["1", "2"], "x": ["y=z"]}, None)
    attrs, message = v.parse_attributes("k=1\nnot a pair")
    assert attrs == {} and message is not None and "Line 2" in message


def test_country() -> None:
    assert v.check_country("") is None
    assert v.check_country("us") is None
    assert v.check_country("USA")


def test_an_attribute_value_may_hold_commas_and_a_key_may_repeat() -> None:
    """The one rule of every attribute field (new charge, refund, edit tags)."""
    assert v.parse_attributes("order=A-1,A-2") == ({"order": ["A-1,A-2"]}, None)
    assert v.parse_attributes("order=A-1\norder=A-2\norder=A-1") == (
        {"order": ["A-1", "A-2"]},
        None,
    )


def test_attributes_written_to_the_field_parse_back_the_same() -> None:
    attributes = {"order": ["A-1,A-2", "B-3"], "channel": ["phone"], "note": ["a=b"]}
    text = v.format_attributes(attributes)
    assert text == "order=A-1,A-2\norder=B-3\nchannel=phone\nnote=a=b"
    assert v.parse_attributes(text) == (attributes, None)


def test_the_refund_and_edit_dialogs_use_the_one_parser() -> None:
    from paytui.ui.screens.modals import edit_tags, refund

    assert refund.parse_attributes is v.parse_attributes is edit_tags.parse_attributes
    assert refund.parse_tags is v.parse_tags is edit_tags.parse_tags


def test_the_api_models_read_comma_string_tags_with_the_same_grammar() -> None:
    from paytui.api.models import Charge

    assert Charge.model_validate({"charge_id": "ch_1", "tags": " vip, web,,vip "}).tags == [
        "vip",
        "web",
    ]
