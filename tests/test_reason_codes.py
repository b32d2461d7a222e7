"""The reason-code table (docs/reason-codes.md): one entry per network and code, four
categories, and a code the table does not hold is never guessed."""

from __future__ import annotations

from paytui.reason_codes import CATEGORIES, NETWORKS, REASON_CODES, lookup


def test_each_network_has_codes_of_every_category() -> None:
    assert set(REASON_CODES) == set(NETWORKS)
    for network, codes in REASON_CODES.items():
        assert {entry.category for entry in codes.values()} == set(CATEGORIES), network
        for code, entry in codes.items():
            assert entry.code == code and entry.network == network and entry.words


def test_a_code_is_read_with_its_network() -> None:
    visa = lookup("10.4", "visa")
    assert visa is not None and visa.category == "fraud"
    assert visa.words == "Other Fraud: Card-Absent Environment"
    master = lookup("4853", "mastercard")
    assert master is not None and master.category == "consumer dispute"
    amex = lookup(" c08 ", "amex")  # spelled loosely: folded
    assert amex is not None and amex.words.startswith("Goods/Services Not Received")
    discover = lookup("UA02", "discover")
    assert discover is not None and discover.category == "fraud"
    assert lookup("11.3", "visa") is not None and lookup("11.3", "visa").category == "authorization"  # type: ignore[union-attr]


def test_a_code_of_another_network_or_unknown_is_not_guessed() -> None:
    assert lookup("13.1", "mastercard") is None  # a Visa code on a Mastercard charge
    assert lookup("99.9", "visa") is None
    assert lookup("", "visa") is None and lookup(None, None) is None
    # No network known (a brand the table does not hold): only a code one network holds.
    found = lookup("4837", None)
    assert found is not None and found.network == "mastercard"
    assert lookup("4837", "unionpay") is not None
