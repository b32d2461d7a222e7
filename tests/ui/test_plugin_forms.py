"""The plugin session and new account forms' rules, without an app: what is sent, and each wrong
field named with one sentence (nothing sent)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from paytui.api.models import Account
from paytui.plugin_rules import PREPOPULATE_SCOPE
from paytui.ui.plugin_forms import (
    account_request,
    enrollment_request,
    limit_line,
    payment_request,
    prepopulate_allowed,
    session_cap_text,
)

TODAY = datetime(2026, 11, 20, tzinfo=UTC)
ACCOUNT = Account(account_id="pa_1", status="approved", max_transaction_amount=Decimal(500))


def test_a_full_payment_session_is_typed_as_the_spec_says() -> None:
    values = {
        "account": "pa_1",
        "charge-type": "authorization",
        "token-expiry": "2030-05-06",
        "max-attempts": "3",
        "max-amount": "480",
        "tags": "kiosk, lobby, kiosk",
        "attributes": "store=12; lane=3",
        "payment-methods": "card",
        "invoice": "INV-1",
        "po": "PO-1",
        "convenience-fee": "5",
        "tax-amount": "15",
        "submit-button": "Pay now",
        "loader-color": "#ff0000",
        "loader-background": "#000",
        "field-color": "#333333",
        "prefix": "main",
        "data": "title=Lobby; who=Ada",
    }
    flags = {"tokenize": True, "captcha": True, "dark-mode": True}
    request, errors = payment_request(values, flags, ACCOUNT, TODAY)
    assert errors == {}
    assert request is not None
    assert request.to_body() == {
        "account_id": "pa_1",
        "charge_type": "authorization",
        "tokenize": {"token_expiration_date": "2030-05-06T00:00:00.000Z"},
        "max_attempts": 3,
        "max_transaction_amount": 480,
        "attributes": {"store": ["12"], "lane": ["3"]},
        "tags": ["kiosk", "lobby"],
        "payment_methods": ["card"],
        "invoice_number": "INV-1",
        "po_number": "PO-1",
        "convenience_fee": {"amount": 5},
        "tax_amount": 15,
        "captcha": True,
        "fields": {"submit_button": "Pay now"},
        "appearance": {
            "dark_mode": {"enabled": True},
            "loader": {"color": "#ff0000", "background_color": "#000"},
            "field": {"color": "#333333"},
        },
        "prefix": "main",
        "data": {"title": "Lobby", "who": "Ada"},
    }
    # The defaults: a sale, no cap (the service takes the limit minus the fees).
    plain, errors = payment_request({"account": "pa_1"}, {}, ACCOUNT, TODAY)
    assert errors == {} and plain is not None and plain.to_body() == {"account_id": "pa_1"}


def test_each_wrong_payment_field_is_named() -> None:
    values = {
        "account": "pa_1",
        "charge-type": "refund",
        "token-expiry": "2020-01-01",
        "max-attempts": "0",
        "payment-methods": "card, cash",
        "loader-color": "red",
        "data": "title",
        "tax-amount": "1.005",
    }
    request, errors = payment_request(values, {"tokenize": True}, ACCOUNT, TODAY)
    assert request is None
    assert set(errors) == {
        "charge-type",
        "token-expiry",
        "max-attempts",
        "payment-methods",
        "loader-color",
        "data",
        "tax-amount",
    }
    _, errors = payment_request(
        {"account": "pa_1", "token-expiry": "2030-01-01"}, {}, ACCOUNT, TODAY
    )
    assert errors == {"token-expiry": "Turn tokenize on to set the token's expiry"}


def test_the_cap_fits_the_accounts_limit_with_the_fees() -> None:
    fees = {"account": "pa_1", "convenience-fee": "5", "tax-amount": "15"}
    fits, errors = payment_request({**fees, "max-amount": "480"}, {}, ACCOUNT, TODAY)
    assert fits is not None and errors == {}
    _, errors = payment_request({**fees, "max-amount": "481"}, {}, ACCOUNT, TODAY)
    assert "at most 480" in errors["max-amount"]
    _, errors = payment_request({"account": "pa_1", "max-amount": "500.01"}, {}, ACCOUNT, TODAY)
    assert "at most the account limit 500" in errors["max-amount"]
    assert limit_line(ACCOUNT) == "Processing limit 500.00, fees included"
    assert limit_line(Account(account_id="pa_2")).endswith(
        "not shown (the service applies its own)"
    )


def test_an_account_showing_no_limit_is_not_given_one() -> None:
    """No assumed 10,000: with no limit on the account, a large cap is the service's to judge."""
    unlimited = Account(account_id="pa_2", status="pending_underwriting")
    big = {"account": "pa_2", "max-amount": "250000", "convenience-fee": "5"}
    request, errors = payment_request(big, {}, unlimited, TODAY)
    assert errors == {} and request is not None
    assert request.max_transaction_amount == Decimal(250000)
    assert session_cap_text(request, unlimited) == "250,000.00"
    default, _ = payment_request({"account": "pa_2"}, {}, unlimited, TODAY)
    assert default is not None and default.max_transaction_amount is None  # the service sets it
    assert session_cap_text(default, unlimited) == "the account's limit (set by the service)"


def test_enrollment_prepopulates_only_with_the_scope() -> None:
    assert prepopulate_allowed(frozenset({PREPOPULATE_SCOPE}))[0]
    allowed, note = prepopulate_allowed(frozenset({"urn:v2:plugins:all"}))
    assert not allowed and PREPOPULATE_SCOPE in note
    values = {
        "merchant": "mt_1",
        "tags": "new",
        "account-tags": "a, b",
        "account-attributes": "tier=gold",
        "product-description": "Bikes",
        "processing-max": "900",
        "monthly-volume": "20,000",
    }
    request, errors = enrollment_request(values, prepopulate=True)
    assert errors == {} and request is not None
    assert request.to_body() == {
        "merchant_id": "mt_1",
        "tags": ["new"],
        "account": {"tags": ["a", "b"], "attributes": {"tier": ["gold"]}},
        "data": {
            "account": {
                "product_description": "Bikes",
                "processing": {"max_transaction_amount": 900, "monthly_volume": 20000},
            }
        },
    }
    without, _ = enrollment_request(values, prepopulate=False)
    assert without is not None and without.data is None and not without.prepopulates


def test_a_tax_authority_only_for_category_9311() -> None:
    base = {"merchant": "mt_1", "name": "Levy", "tax-authority": "Lakeside", "tax-state": "mn"}
    request, errors = account_request({**base, "mcc": "9311"})
    assert errors == {} and request is not None
    assert (request.tax_authority, request.tax_authority_state) == ("Lakeside", "MN")
    _, errors = account_request({**base, "mcc": "5999"})
    assert errors == {"tax-authority": "Applies only to merchant category code 9311"}
    _, errors = account_request({**base, "mcc": "9311", "tax-state": "Minnesota"})
    assert set(errors) == {"tax-state"}
    _, errors = account_request({"merchant": "", "name": "", "mcc": ""})
    assert set(errors) == {"merchant", "name", "mcc"}


def test_text_limits_land_on_their_fields() -> None:
    long = {
        "account": "pa_1",
        "invoice": "x" * 65,
        "tags": "t" * 65,
        "attributes": "k=" + "v" * 256,
    }
    request, errors = payment_request(long, {}, ACCOUNT, TODAY)
    assert request is None
    assert set(errors) == {"invoice", "tags", "attributes"}  # none left to the whole form
    _, errors = enrollment_request({"account-tags": "t" * 65}, prepopulate=False)
    assert set(errors) == {"account-tags"}
    texts = {
        "account": "pa_1",
        "prefix": "p" * 65,
        "submit-button": "b" * 65,
        "data": "a=" + "d" * 256,
    }
    _, errors = payment_request(texts, {}, ACCOUNT, TODAY)
    assert set(errors) == {"prefix", "submit-button", "data"}
    _, errors = enrollment_request({"product-description": "d" * 256}, prepopulate=True)
    assert set(errors) == {"product-description"}
    _, errors = account_request({"merchant": "m", "name": "n" * 101, "mcc": "5999"})
    assert set(errors) == {"name"}
