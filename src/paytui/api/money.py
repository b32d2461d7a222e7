"""Money: the one place that knows how amounts are parsed, checked, written and shown.

Amounts are `Decimal` from the moment they leave the wire until the moment they go back on it.
Binary floats cannot represent most cent values (0.1 + 0.2 != 0.3), and a payment tool that is
off by a cent is wrong, so:

- JSON bodies are parsed with `loads_json` (``parse_float=Decimal``): a number's raw text becomes
  a Decimal directly, it never passes through float.
- `to_decimal` still accepts a float (a Python caller may pass one) and converts it through its
  shortest repr, which is the text the caller typed, not the binary expansion.
- `to_wire` writes an amount as a JSON number with at most two places. Integral amounts become an
  int; others a float whose shortest repr is exactly the two-place decimal text (this holds for
  every value with at most 15 significant digits, i.e. up to about 10 trillion).
- `exact_number` writes back an amount *read* from the service with every digit it came with
  (``1.005`` stays ``1.005``): response models use it (`Amount`), so a dump never rounds.
- `format_amount` is how every screen, message and log line shows an amount ("1,234.50"), and
  `amount_text` the shortest exact text of one ("25.5"), as the search language writes it. Both
  take whatever a response held: a huge, NaN or infinite amount is shown, never raised.
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Annotated, Any

CENT = Decimal("0.01")
#: What `format_amount` shows for a missing amount.
NO_AMOUNT = "—"
#: Amounts from 10^30 up are shown in scientific notation (no grouping of 30-digit numbers).
_SCIENTIFIC_FROM = 30

#: An amount written with two places and shorter than this is its own file text (`plain_amount`).
_PLAIN_UP_TO = 28
#: A float holds any decimal of this many significant digits exactly enough for repr to round-trip.
_FLOAT_SAFE_DIGITS = 15


def to_decimal(value: object) -> Decimal:
    """A Decimal from an int, float, numeric string or Decimal; raises ValueError otherwise.

    bool is refused on purpose: ``True`` is an int in Python but never a meaningful amount.
    """
    if isinstance(value, bool):
        raise ValueError("an amount cannot be a boolean")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, float):
        result = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError("not a decimal number") from None
    else:
        raise ValueError(f"not an amount: {type(value).__name__}")
    if not result.is_finite():
        raise ValueError("an amount must be finite")
    return result


def quantize(amount: Decimal) -> Decimal:
    """Round to cents (banker's rounding, as ledgers do) for display or sending."""
    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)


def to_wire(amount: Decimal) -> int | float:
    """The JSON number for an amount: at most two places, exactly the decimal text.

    ``json.dumps`` and pydantic both write a float with its shortest repr, so a two-place decimal
    with at most 15 significant digits comes out as exactly its own text (``0.3``, ``25.5``).
    """
    cents = quantize(amount)
    if cents == cents.to_integral_value():
        return int(cents)
    as_float = float(cents)
    if len(cents.as_tuple().digits) > _FLOAT_SAFE_DIGITS or Decimal(repr(as_float)) != cents:
        raise ValueError(f"amount {cents} cannot be written exactly as a JSON number")
    return as_float


def exact_number(amount: Decimal) -> int | float | str:
    """An amount read from the service, written back with every digit it came with.

    Requests are held to two places (`to_wire`); what the service *said* is not ours to round:
    ``1.005`` stays ``1.005``. An int when integral, else a float whose shortest repr is exactly
    the decimal, else (more digits than a float holds) the exact decimal text.
    """
    if not amount.is_finite():
        return str(amount)
    if amount == amount.to_integral_value():
        return int(amount)
    as_float = float(amount)
    if Decimal(repr(as_float)) == amount:
        return as_float
    return format(amount, "f")


def has_cents_only(amount: Decimal) -> bool:
    """True when `amount` has at most two decimal places ("12.500" has: it is 12.50)."""
    return amount.is_finite() and amount == _round_cents(amount)


def format_amount(amount: Decimal | None, *, grouping: bool = True) -> str:
    """An amount as people read it: two places, thousands grouped ("1,234.50"); "—" if None.

    Never raises: NaN and infinities are named, an amount too long for the default decimal
    context is rounded in a wider one, and from 10^30 up it is shown as "1.00E+30".
    """
    if amount is None:
        return NO_AMOUNT
    if not amount.is_finite():
        return "NaN" if amount.is_nan() else ("-∞" if amount < 0 else "∞")
    if amount.adjusted() >= _SCIENTIFIC_FROM:
        return f"{amount:.2E}"
    cents = _round_cents(amount)
    return f"{cents:,}" if grouping else str(cents)


def plain_amount(amount: Decimal) -> str:
    """An amount for a file (CSV, JSON Lines): exact and ungrouped, two places ("1234.50"),
    more only when the service sent more ("0.125" is never rounded). Never raises."""
    text = str(amount)
    if len(text) < _PLAIN_UP_TO and text[-3:-2] == "." and "E" not in text:
        return text  # two places as sent ("75.39"): already its own plain text
    if not amount.is_finite():
        return format_amount(amount)
    if has_cents_only(amount):
        return format_amount(amount, grouping=False)
    return format(amount, "f")


def amount_text(amount: Decimal) -> str:
    """The shortest exact text of an amount ("25.5", "10", "0"): the search language's form."""
    text = format(amount.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _round_cents(amount: Decimal) -> Decimal:
    """`quantize(amount)` in a context wide enough for any finite amount below 10^30."""
    digits = max(28, amount.adjusted() + 3)
    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN, context=Context(prec=digits))


def loads_json(text: str | bytes) -> Any:
    """Parse a JSON body keeping every non-integer number as an exact Decimal."""
    return json.loads(text, parse_float=Decimal)


#: A serialization context key (``model_dump(mode="json", context={MONEY_AS_TEXT: True})``):
#: every amount is written as its decimal text ("12.50"), as the command line's JSON promises
#: (docs/cli.md, "The output contract"), never as a JSON number a script would read as a float.
MONEY_AS_TEXT = "money_as_text"


def _as_text(info: Any) -> bool:
    context = getattr(info, "context", None)
    return isinstance(context, dict) and bool(context.get(MONEY_AS_TEXT))


def _serialize_money(value: Decimal, info: Any) -> int | float | str:
    return plain_amount(value) if _as_text(info) else to_wire(value)


def _serialize_amount(value: Decimal, info: Any) -> int | float | str:
    return plain_amount(value) if _as_text(info) else exact_number(value)


if TYPE_CHECKING:  # to the checker both are Decimal; pydantic reads their metadata at runtime
    Money = Decimal
    Amount = Decimal
else:

    def __getattr__(name: str) -> Any:
        """`Money` and `Amount`, built on first use: they need pydantic, and the screen's money
        formatting (`format_amount`) is on the first paint's path, where pydantic is not."""
        if name not in ("Money", "Amount"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from pydantic import BeforeValidator, PlainSerializer

        kinds = globals()
        #: An amount field: parsed exactly from int/float/str, dumped as Decimal in Python mode
        #: and as a two-place JSON number in JSON mode. For requests: what paytui sends has
        #: cents only.
        kinds["Money"] = Annotated[
            Decimal,
            BeforeValidator(to_decimal),
            PlainSerializer(_serialize_money, return_type=int | float | str, when_used="json"),
        ]
        #: An amount read from the service: exact in, exact out (`exact_number`), never rounded.
        kinds["Amount"] = Annotated[
            Decimal,
            BeforeValidator(to_decimal),
            PlainSerializer(_serialize_amount, return_type=int | float | str, when_used="json"),
        ]
        return kinds[name]
