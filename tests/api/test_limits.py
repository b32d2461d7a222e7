"""Text lengths (paytui.limits): the same limits refused by the request models, the sandbox (422)
and the new-charge form (a message on the field, nothing sent, what was typed kept)."""

from __future__ import annotations

from decimal import Decimal

import pydantic
import pytest

from paytui.api.models import CardPaymentMethodRequest, ChargeRequest, Contact, RefundRequest
from paytui.limits import LIMITS

CARD = "4111111111111111"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("reason", "r" * (LIMITS["reason"] + 1)),
        ("tags", ["t" * (LIMITS["tag"] + 1)]),
        ("tags", [f"t{i}" for i in range(LIMITS["tags"] + 1)]),
        ("attributes", {"k" * (LIMITS["attribute_key"] + 1): ["v"]}),
        ("attributes", {"k": ["v" * (LIMITS["attribute_value"] + 1)]}),
    ],
)
def test_request_models_refuse_text_over_its_limit(field: str, value: object) -> None:
    with pytest.raises(pydantic.ValidationError, match="at most"):
        RefundRequest(charge_id="c", **{field: value})  # type: ignore[arg-type]


def test_a_refused_request_does_not_quote_the_card_number() -> None:
    with pytest.raises(pydantic.ValidationError) as info:
        ChargeRequest(
            account_id="pa_x",
            total_amount=Decimal(1),
            invoice_number="i" * 100,
            payment_method=CardPaymentMethodRequest(
                card_number=CARD,
                expiration_date="2030-01",
                contact=Contact(first_name="Ada"),
            ),
        )
    assert CARD not in str(info.value) and "invoice number" in str(info.value)
