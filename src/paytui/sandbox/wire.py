"""Wire formats shared by the store, the seed and the endpoints: money, timestamps, ids.

Money lives as integer cents everywhere inside the sandbox. It becomes a JSON number only at the
edge (`money_out`), and comes in through `Decimal` (`cents_from_decimal`), so no amount is ever
the result of float arithmetic.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation

_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class AmountError(ValueError):
    """An amount that is not a number with at most two decimals."""


def money_out(cents: int) -> int | float:
    """Cents as a JSON number in the main unit (`2550` -> `25.5`, `100` -> `1`).

    The float is only a carrier for JSON: `float(Decimal)` of a two-decimal value is the nearest
    double, whose shortest repr is exactly the decimal text again. No arithmetic happens on it.
    """
    if cents % 100 == 0:
        return cents // 100
    return float(Decimal(cents).scaleb(-2))


def cents_from_decimal(value: Decimal | int | str) -> int:
    """Exact cents of an amount; raises AmountError for more than two decimals or non-numbers."""
    try:
        amount = value if isinstance(value, Decimal) else Decimal(str(value))
    except InvalidOperation as exc:
        raise AmountError("must be a number") from exc
    if not amount.is_finite():
        raise AmountError("must be a finite number")
    scaled = amount.scaleb(2)
    if scaled != scaled.to_integral_value():
        raise AmountError("must have at most two decimals")
    return int(scaled)


def iso_ms(moment: datetime) -> str:
    """`2022-02-11T19:45:03.115Z`: the one timestamp form on the wire and in indexed columns.

    Fixed width, so text comparison in SQLite orders the same way as time.
    """
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_utc() -> datetime:
    return datetime.now(UTC)


def parse_instant(text: str) -> datetime:
    """An ISO 8601 date or timestamp (offset optional, UTC assumed) as an aware datetime."""
    text = text.strip()
    if _DATE_ONLY.match(text):
        day = date.fromisoformat(text)
        return datetime(day.year, day.month, day.day, tzinfo=UTC)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def hex_id() -> str:
    """24 lowercase hex characters, the form of charge, refund, distribution and session ids."""
    return secrets.token_hex(12)


def prefixed_id(prefix: str) -> str:
    """`pa_` / `mt_` / `ct_` + 20 lowercase alphanumerics."""
    return prefix + "".join(secrets.choice(_ID_ALPHABET) for _ in range(20))


def add_years(moment: datetime, years: int) -> datetime:
    """Same day `years` later (28 February for a 29 February start)."""
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:
        return moment.replace(year=moment.year + years, day=28)


def month_not_past(expiration: str, today: datetime) -> bool:
    """A YYYY-MM card expiry is valid through the end of that month."""
    year, month = (int(part) for part in expiration.split("-"))
    return (year, month) >= (today.year, today.month)


EXPIRATION_FORMAT = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
