"""The reason-code table: each network's words and category, and no guess across networks."""

from __future__ import annotations

from types import SimpleNamespace

from paytui.today.reason_codes import CATEGORIES, DISPUTES, REASON_CODES, describe, lookup


def test_every_row_has_a_known_category_and_dispute() -> None:
    for row in REASON_CODES.values():
        assert row.category in CATEGORIES, row
        assert row.dispute in DISPUTES, row


def test_the_common_codes_of_each_network() -> None:
    fraud = lookup("10.4", "visa")
    assert fraud is not None and (fraud.category, fraud.dispute) == ("fraud", "fraud")
    assert lookup("4837", "mastercard").dispute == "fraud"  # type: ignore[union-attr]
    assert lookup("c08", "American Express").dispute == "not_received"  # type: ignore[union-attr]
    assert lookup("UA02", "discover").category == "fraud"  # type: ignore[union-attr]
    assert lookup("13.2", "visa").dispute == "cancelled_recurring"  # type: ignore[union-attr]


def test_a_code_of_another_network_is_not_taken_for_this_ones() -> None:
    assert lookup("4837", "visa") is None
    # Without a brand, a code only one network uses is still found; none is invented.
    assert lookup("13.1", None).network == "visa"  # type: ignore[union-attr]
    assert lookup("99.9", None) is None


def test_describe_says_what_it_does_not_know() -> None:
    item = SimpleNamespace(reason_code="10.4", reason=None)
    assert describe(item, "visa") == "10.4 Other fraud: card-absent environment (fraud)"
    odd = SimpleNamespace(reason_code="Z9", reason="Something")
    assert describe(odd, "visa") == "Z9 Something (a code paytui does not know)"
    assert describe(SimpleNamespace(reason_code=None, reason=None)) == "reason not shown"
