"""ChargeQuery / RefundQuery: the exact wire parameters of docs/api-assumptions.md."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from pydantic import ValidationError

from paytui.api.queries import (
    ACH_RETURNS,
    ALL,
    CHARGEBACKS,
    OPEN_AUTHORIZATIONS,
    QUICK_VIEWS,
    ChargeQuery,
    RefundQuery,
    format_wire_amount,
    format_wire_timestamp,
)

CHARGE_ID = "6206bcbf0123456789abcdef"


def test_empty_query_sends_nothing() -> None:
    assert ChargeQuery().to_params() == []
    assert RefundQuery().to_params() == []
    assert ALL.is_empty
    assert ChargeQuery(sort="-total_amount").is_empty
    assert not CHARGEBACKS.is_empty


def test_every_charge_parameter_in_documented_order() -> None:
    query = ChargeQuery(
        status="chargeback",
        tags=("vip", "phone order"),
        attributes=(("order_id", "A-1001"), ("note", "a=b"), ("has", "")),
        account_id="pa_abc",
        merchant_id="mt_def",
        created_from=datetime(2026, 1, 1, tzinfo=UTC),
        created_to=datetime(2026, 2, 1, 12, 30, 5, 250000, tzinfo=UTC),
        min_amount=Decimal("25.00"),
        max_amount=Decimal("50.5"),
        method="bank_account",
        last4="1111",
        charge_type="authorization",
        captured=False,
        original_charge_id=CHARGE_ID,
        charge_id="6206bc",
        sort="-total_amount",
    )
    assert query.to_params() == [
        ("status", "chargeback"),
        ("tag", "vip"),
        ("tag", "phone order"),
        ("attribute", "order_id=A-1001"),
        ("attribute", "note=a=b"),
        ("attribute", "has="),
        ("account_id", "pa_abc"),
        ("merchant_id", "mt_def"),
        ("created_from", "2026-01-01T00:00:00.000Z"),
        ("created_to", "2026-02-01T12:30:05.250Z"),
        ("min_amount", "25"),
        ("max_amount", "50.5"),
        ("method", "bank_account"),
        ("last4", "1111"),
        ("charge_type", "authorization"),
        ("captured", "false"),
        ("original_charge_id", CHARGE_ID),
        ("charge_id", "6206bc"),
        ("sort", "-total_amount"),
    ]


def test_captured_true_and_empty_strings_omitted() -> None:
    assert ChargeQuery(captured=True, status="", last4="").to_params() == [("captured", "true")]


def test_refund_parameters() -> None:
    query = RefundQuery(
        charge_id=CHARGE_ID,
        account_id="pa_abc",
        tags=("t",),
        attributes={"k": ["v1", "v2"]},
        created_from=datetime(2026, 1, 1),
        created_to=datetime(2026, 1, 2, tzinfo=UTC),
    )
    assert query.to_params() == [
        ("charge_id", CHARGE_ID),
        ("account_id", "pa_abc"),
        ("tag", "t"),
        ("attribute", "k=v1"),
        ("attribute", "k=v2"),
        ("created_from", "2026-01-01T00:00:00.000Z"),
        ("created_to", "2026-01-02T00:00:00.000Z"),
    ]


def test_quick_views() -> None:
    assert ALL.to_params() == []
    assert CHARGEBACKS.to_params() == [("status", "chargeback")]
    assert ACH_RETURNS.to_params() == [("status", "return")]
    assert OPEN_AUTHORIZATIONS.to_params() == [
        ("charge_type", "authorization"),
        ("captured", "false"),
    ]
    assert QUICK_VIEWS[0] == ("All charges", ALL)


def test_hashable_and_equal_by_value() -> None:
    a = ChargeQuery(tags=["vip"], min_amount=Decimal("25.5"))
    b = ChargeQuery(tags=("vip",), min_amount=Decimal("25.50"))
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, ALL}) == 2
    with pytest.raises(ValidationError):
        a.status = "x"  # type: ignore[misc]


def test_times_normalised_to_utc() -> None:
    plus2 = timezone(timedelta(hours=2))
    query = ChargeQuery(
        created_from=datetime(2026, 1, 1, 2, tzinfo=plus2), created_to=datetime(2026, 1, 2)
    )
    assert query.created_from == datetime(2026, 1, 1, tzinfo=UTC)
    assert query.created_from.tzinfo is UTC
    assert query.created_to.tzinfo is UTC
    assert query.to_params()[0] == ("created_from", "2026-01-01T00:00:00.000Z")


def test_repeats_deduplicated_in_order() -> None:
    query = ChargeQuery(tags=("b", "a", "b"), attributes=(("k", "1"), ("k", "1"), ("j", "2")))
    assert query.tags == ("b", "a")
    assert query.attributes == (("k", "1"), ("j", "2"))


def test_attributes_from_api_shape() -> None:
    query = ChargeQuery(attributes={"order_id": "A-1", "sku": ["x", "y"]})
    assert query.attributes == (("order_id", "A-1"), ("sku", "x"), ("sku", "y"))


@pytest.mark.parametrize(
    "fields",
    [
        {"tags": ("",)},
        {"attributes": (("", "v"),)},
        {"attributes": (("a=b", "v"),)},
        {"min_amount": Decimal("-1")},
        {"max_amount": Decimal("1.001")},
        {"max_amount": Decimal("Infinity")},
        {"method": "cash"},
        {"charge_type": "refund"},
        {"unknown": 1},
    ],
)
def test_rejects_what_the_wire_cannot_carry(fields: dict) -> None:
    with pytest.raises(ValidationError):
        ChargeQuery(**fields)


def test_evolve_revalidates() -> None:
    assert CHARGEBACKS.evolve(sort="-total_amount").sort == "-total_amount"
    with pytest.raises(ValidationError):
        CHARGEBACKS.evolve(min_amount=Decimal("-1"))


@pytest.mark.parametrize(
    ("value", "wire"),
    [
        (Decimal("25"), "25"),
        (Decimal("25.50"), "25.5"),
        (Decimal("100"), "100"),
        (Decimal("1E+2"), "100"),
        (Decimal("0.00"), "0"),
        (Decimal("0.01"), "0.01"),
    ],
)
def test_wire_amount(value: Decimal, wire: str) -> None:
    assert format_wire_amount(value) == wire


def test_wire_timestamp_keeps_sub_millisecond_precision() -> None:
    assert (
        format_wire_timestamp(datetime(5, 1, 2, 3, 4, 5, tzinfo=UTC)) == "0005-01-02T03:04:05.000Z"
    )
    assert (
        format_wire_timestamp(datetime(2026, 1, 1, 0, 0, 0, 1, tzinfo=UTC))
        == "2026-01-01T00:00:00.000001Z"
    )


def test_paytuis_own_filters_are_proven_on_the_row() -> None:
    """`-tag:`, `-status:`, `dispute:`, `refunded:`: never sent; True / False from what the
    row shows, None (unproven: shown, never acted on in bulk) where it shows nothing."""
    from paytui.api.models import Charge

    tagged = Charge.model_validate({"charge_id": "a1", "status": "success", "tags": ["vip"]})
    untagged = Charge.model_validate({"charge_id": "a2", "status": "declined", "tags": []})
    silent = Charge.model_validate({"charge_id": "a3", "status": "success"})  # no tags sent
    no_vip = ChargeQuery(not_tags=("vip",))
    assert no_vip.to_params() == []
    assert [no_vip.verdicts(c)["not_tag"] for c in (tagged, untagged, silent)] == [
        False,
        True,
        None,
    ]
    not_declined = ChargeQuery(not_statuses=("declined",))
    assert not_declined.verdicts(tagged)["not_status"] is True
    assert not_declined.verdicts(untagged)["not_status"] is False
    lost = Charge.model_validate(
        {
            "charge_id": "a4",
            "status": "success",  # a service that puts the status back: the object says it
            "chargebacks": {"items": [{"status": "lost"}]},
        }
    )
    assert ChargeQuery(not_statuses=("chargeback",)).verdicts(lost)["not_status"] is False
    assert ChargeQuery(dispute_state="lost").verdicts(lost)["dispute_state"] is True
    assert ChargeQuery(dispute_state="open").verdicts(lost)["dispute_state"] is False
    assert ChargeQuery(dispute_state="none").verdicts(tagged)["dispute_state"] is True
    unknown = Charge.model_validate(
        {"charge_id": "a5", "status": "chargeback", "chargebacks": {"count": 1}}
    )
    assert ChargeQuery(dispute_state="won").verdicts(unknown)["dispute_state"] is None
    # A declined charge has no refunds: proven "none" without reading; a sale needs its refunds.
    assert ChargeQuery(refund_state="none").verdicts(untagged)["refund_state"] is True
    assert ChargeQuery(refund_state="full").verdicts(untagged)["refund_state"] is False
