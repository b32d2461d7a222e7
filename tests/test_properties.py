"""Hypothesis properties: random JSON into the models raises only the project's own error; unknown
fields survive a round trip; the query parser never fails inside (and what it formats it reads
back); amount parsing raises only `AmountError` and reads back what it accepts; the display
sanitiser leaves nothing unsafe and keeps lengths.

Example counts are bounded for CI (`PAYTUI_PROPERTY_EXAMPLES`, default 50).
"""

from __future__ import annotations

import contextlib
import os
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paytui.actions.amounts import AmountError, parse_amount
from paytui.api.client import _parse, _parse_page
from paytui.api.errors import MalformedResponseError
from paytui.api.models import Account, Charge, Distribution, Merchant, Refund, Token
from paytui.search import format_query, parse
from paytui.text import first_unsafe, safe

EXAMPLES = int(os.environ.get("PAYTUI_PROPERTY_EXAMPLES", "50"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
NOW = datetime(2026, 11, 20, 18, 30, tzinfo=UTC)
MODELS = [Charge, Refund, Token, Account, Merchant, Distribution]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.decimals(allow_nan=False)
    | st.text(max_size=30)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
#: Objects that look like the resources: their field names with random values, plus noise.
FIELDS = sorted({name for model in MODELS for name in model.model_fields} | {"return"})
resource_like = st.dictionaries(
    st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=12
)


@SETTINGS
@given(model=st.sampled_from(MODELS), body=json_values | resource_like)
def test_random_json_raises_only_malformed_response(model: Any, body: Any) -> None:
    with contextlib.suppress(MalformedResponseError):
        _parse(model, body)


@SETTINGS
@given(items=st.lists(resource_like, max_size=3), total=json_values)
def test_a_random_page_never_fails_as_a_whole(items: list[Any], total: Any) -> None:
    try:
        page = _parse_page({"data": items, "total": total}, Charge, "charges", 50, 0)
    except MalformedResponseError:
        return
    assert len(page.items) + len(page.unreadable) == len(items)


@SETTINGS
@given(
    extra=st.dictionaries(
        st.text(min_size=1, max_size=10).filter(lambda k: k not in FIELDS),
        json_values.filter(lambda v: not isinstance(v, float | Decimal)),
        max_size=5,
    )
)
def test_unknown_fields_survive_a_round_trip(extra: dict[str, Any]) -> None:
    body = {"charge_id": "ch_1", "status": "success", **extra}
    charge = Charge.model_validate(body)
    dumped = charge.model_dump(mode="python", by_alias=True, exclude_unset=True)
    for key, value in extra.items():
        assert dumped[key] == value
    assert Charge.model_validate(dumped).model_dump(exclude_unset=True) == charge.model_dump(
        exclude_unset=True
    )


QUERY_WORDS = st.sampled_from(
    ["status:", "amount:", ">", "<", "..", "from:", "to:", "tag:", "attr:", "is:", "sort:",
     "account:", "pa_", "last4:", "4242", "today", "7d", "declined", "success", "-", '"', ":",
     "=", "12.50", "1e9", "card", "bank", " ", "yesterday", "2026-11-", "captured:"]
)  # fmt: skip
queries = st.lists(QUERY_WORDS | st.text(max_size=6), max_size=8).map("".join)


@SETTINGS
@given(text=queries)
def test_the_query_parser_never_fails_inside_and_reads_back_what_it_writes(text: str) -> None:
    result = parse(text, now=NOW)
    assert all("could not read this query" not in e.message for e in result.errors)
    if result.query is not None:
        again = parse(format_query(result.query), now=NOW)
        assert again.query == result.query, format_query(result.query)


@SETTINGS
@given(text=st.text(max_size=20) | st.decimals(allow_nan=True).map(str))
def test_amount_parsing_raises_only_amount_error(text: str) -> None:
    try:
        amount = parse_amount(text, allow_zero=True)
    except AmountError:
        return
    assert amount == amount.quantize(Decimal("0.01"))
    assert parse_amount(str(amount), allow_zero=True) == amount


@SETTINGS
@given(cents=st.integers(min_value=1, max_value=100_000_000_000))
def test_every_two_place_amount_reads_back_exactly(cents: int) -> None:
    amount = Decimal(cents) / 100
    assert parse_amount(f"{amount:.2f}") == amount
    assert parse_amount(f"{amount:,.2f}") == amount


@SETTINGS
@given(text=st.text())
def test_the_sanitiser_leaves_nothing_unsafe_and_keeps_the_length(text: str) -> None:
    shown = safe(text)
    assert first_unsafe(shown) is None
    assert len(shown) == len(text)
    assert safe(shown) == shown


def test_request_models_refuse_with_pydantic_errors_only() -> None:
    with pytest.raises(pydantic.ValidationError):
        Charge.model_validate({"charge_id": None})


#: Charge-like objects: `Charge`'s wire names with random values, beside a plausible row.
charge_like = st.fixed_dictionaries(
    {"charge_id": st.text(max_size=6) | json_values},
    optional={
        name: json_values
        | st.text(alphabet="0123456789-:TZ.+ ", max_size=30)
        | st.sampled_from(["2026-01-31T10:00:00.5Z", "2026-01-31T10:00:00", "12.50"])
        for name in sorted({*Charge.model_fields, "return"} - {"charge_id"})
    },
)


@SETTINGS
@given(body=charge_like)
def test_a_light_row_reads_what_the_model_reads(body: dict[str, Any]) -> None:
    """`ChargeLine` (read by hand, or by the model for an odd field) writes every column as
    `ChargeRow` does, and refuses the rows the model refuses."""
    import io

    from paytui.api.models import ChargeRow
    from paytui.api.rows import ChargeLine
    from paytui.exporter import CHARGE_COLUMNS, write_rows

    def written(model: Any) -> str | None:
        try:
            row = _parse(model, body)
        except MalformedResponseError:
            return None
        out = io.StringIO()
        write_rows(out, [row], "jsonl", columns=list(CHARGE_COLUMNS))
        return out.getvalue() + repr(sorted(row.model_fields_set))

    assert written(ChargeLine) == written(ChargeRow)


@SETTINGS
@given(text=st.text(alphabet="0123456789 -=:abeirsBEAtkſK\u212a.\"'", max_size=40) | st.text())
def test_redacting_a_text_with_nothing_to_mask_leaves_it(text: str) -> None:
    """The redactor's shortcut (no digit, ``=``, ``:`` or scheme name: nothing to do) never
    skips what its rules would mask."""
    from paytui.logs import _masked, redact

    assert redact(text) == _masked(text)


@SETTINGS
@given(amount=st.decimals(allow_nan=False, allow_infinity=False) | st.decimals(places=2))
def test_a_two_place_amount_is_its_own_plain_text(amount: Decimal) -> None:
    from paytui.api.money import format_amount, has_cents_only, plain_amount

    if not amount.is_finite() or not has_cents_only(amount):
        expected = format_amount(amount) if not amount.is_finite() else format(amount, "f")
    else:
        expected = format_amount(amount, grouping=False)
    assert plain_amount(amount) == expected
