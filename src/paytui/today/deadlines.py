"""When a chargeback or an ACH return is due, from the best evidence there is (docs/today.md).

The evidence, best first (`basis`):

- ``service``: a due date the service gives on the chargeback (the spec shows none; a few
  plausible keys are read, `SERVICE_DUE_KEYS`): used as given, not estimated;
- ``chargeback_date`` (``return_date``): the chargeback's (return's) own date;
- ``charge_updated``: the charge's `last_updated_timestamp`, when it is no later than paytui
  first saw the item (the chargeback changed the charge, so it is dated at or before that);
- ``first_seen``: when paytui first saw it, only when nothing older exists.

From that start two clocks run, the network's (per card brand and stage, `TodayPrefs.
network_windows`) and the acquirer's (`response_days`): the **earlier** is the due time, less
`buffer_days`. Every estimate says which evidence and which clock it used. No I/O here: the
caller passes the time paytui first saw the item and the time it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from paytui.config.model import STAGES

if TYPE_CHECKING:
    from paytui.api.models import Charge
    from paytui.config.model import TodayPrefs

__all__ = [
    "BASES",
    "DATE_KEYS",
    "SERVICE_DUE_KEYS",
    "STAGE_KEYS",
    "Deadline",
    "brand_of",
    "chargeback_date",
    "chargeback_deadline",
    "field_of",
    "moment_of",
    "network_window",
    "return_deadline",
    "stage_of",
]

#: What a due time can be computed from, best first.
BASES: tuple[str, ...] = (
    "service",
    "chargeback_date",
    "return_date",
    "charge_updated",
    "first_seen",
)
#: Keys of a chargeback that may carry the service's own due date (none is in the spec).
SERVICE_DUE_KEYS: tuple[str, ...] = (
    "due_timestamp",
    "due_date",
    "due_at",
    "respond_by",
    "respond_by_timestamp",
    "response_due_timestamp",
    "response_due_date",
    "reply_by_date",
    "deadline",
)
#: Keys of a chargeback that may carry its own date (the sandbox's is `chargeback_timestamp`).
DATE_KEYS: tuple[str, ...] = (
    "chargeback_timestamp",
    "chargeback_date",
    "created_timestamp",
    "received_timestamp",
    "date",
)
#: Keys of a chargeback that may carry its stage.
STAGE_KEYS: tuple[str, ...] = ("stage", "chargeback_stage", "cycle", "phase")
#: A service's words for a stage, folded (lower case, "_" for spaces and dashes).
_STAGE_WORDS = {
    "first": "chargeback",
    "first_chargeback": "chargeback",
    "dispute": "chargeback",
    "chargeback": "chargeback",
    "retrieval": "chargeback",
    "pre_arbitration": "pre_arbitration",
    "prearbitration": "pre_arbitration",
    "pre_arb": "pre_arbitration",
    "second_chargeback": "pre_arbitration",
    "arbitration": "arbitration",
    "arb": "arbitration",
}
#: A brand's spellings, folded, onto the table's.
_BRANDS = {
    "americanexpress": "amex",
    "american_express": "amex",
    "mc": "mastercard",
    "master_card": "mastercard",
    "discover_card": "discover",
}
_WHAT = {
    "chargeback_date": "the chargeback's date",
    "return_date": "the return's date",
    "charge_updated": "the charge's last update",
    "first_seen": "first seen by paytui",
}


@dataclass(frozen=True)
class Deadline:
    """A due time (UTC), whether paytui estimated it, what it was computed from (`basis`, one
    of `BASES`) and that in words ("≈ from the chargeback's date 2026-11-09, acquirer window
    10 d, less 2 d buffer")."""

    due_at: datetime
    estimated: bool
    basis: str
    words: str


def field_of(item: Any, keys: tuple[str, ...]) -> Any:
    """The first of `keys` an object read from the service carries (a field or an extra)."""
    if item is None:
        return None
    extra = getattr(item, "model_extra", None) or {}
    for key in keys:
        value = getattr(item, key, None)
        if value is None and isinstance(extra, dict):
            value = extra.get(key)
        if value not in (None, ""):
            return value
    return None


def moment_of(value: Any) -> datetime | None:
    """A time the service sent, as UTC (a date is its start); None when it is not one."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _fold(text: object) -> str:
    return str(text).strip().lower().replace(" ", "_").replace("-", "_")


def chargeback_date(chargeback: Any) -> datetime | None:
    """The chargeback's own date (UTC) from the first of `DATE_KEYS` it carries; None: none."""
    return moment_of(field_of(chargeback, DATE_KEYS))


def stage_of(chargeback: Any) -> str | None:
    """The chargeback's stage (one of `STAGES`), "" for a word paytui does not know, None when
    the service shows none."""
    word = field_of(chargeback, STAGE_KEYS)
    if word is None:
        return None
    return _STAGE_WORDS.get(_fold(word), "")


def brand_of(charge: Any) -> str | None:
    """The card brand of a charge, folded as the tables spell it (`visa`, `mastercard`, `amex`,
    `discover`, or the service's word folded); None for a bank debit or no brand shown."""
    pm = getattr(charge, "payment_method", None)
    if getattr(pm, "method", "card") == "bank_account":
        return None
    brand = getattr(pm, "type", None)
    if not brand:
        return None
    folded = _fold(brand)
    return _BRANDS.get(folded, folded)


def network_window(prefs: TodayPrefs, brand: str | None, stage: str | None) -> tuple[str, float]:
    """(the network's name as the row says it, its window in days) for a card `brand` at
    `stage` (None: the first chargeback; "": unknown, the brand's shortest). A brand not in the
    table gets the shortest window of the stage over every brand."""
    table = prefs.network_windows()
    folded = _fold(brand) if brand else ""
    folded = _BRANDS.get(folded, folded)
    stage = "chargeback" if stage is None else stage
    windows = table.get(folded)
    if windows:
        if stage in windows:
            return folded, windows[stage]
        return folded, min(windows.values())
    known = [w[stage] for w in table.values() if stage in w] if stage in STAGES else []
    shortest = min(known or [min(w.values()) for w in table.values() if w])
    return "unknown network (shortest)", shortest


def _days(value: float) -> str:
    return f"{value:g} d"


def _start(
    own: datetime | None, own_basis: str, charge: Charge | None, first_seen: datetime
) -> tuple[datetime, str]:
    """The oldest trustworthy start: the item's own date; else the charge's last update when
    it is no later than first seen; else first seen."""
    if own is not None:
        return (own, own_basis) if own <= first_seen else (first_seen, "first_seen")
    updated = moment_of(getattr(charge, "last_updated_timestamp", None))
    if updated is not None and updated <= first_seen:
        return updated, "charge_updated"
    return first_seen, "first_seen"


def chargeback_deadline(
    chargeback: Any, charge: Charge | None, first_seen: datetime, prefs: TodayPrefs
) -> Deadline:
    """When an open chargeback is due: the service's date, else the earlier of the network's
    and the acquirer's window from the best evidence of its date, less the buffer."""
    given = moment_of(field_of(chargeback, SERVICE_DUE_KEYS))
    if given is not None:
        return Deadline(given, False, "service", "due date given by the service")
    start, basis = _start(chargeback_date(chargeback), "chargeback_date", charge, first_seen)
    brand = brand_of(charge)
    stage = stage_of(chargeback)
    network, network_days = network_window(prefs, brand, stage)
    acquirer = prefs.response_days
    if acquirer <= network_days:
        days, who = acquirer, "acquirer"
    else:
        days, who = network_days, network
        if stage:
            who += f" {stage.replace('_', '-')}"
    buffer = min(prefs.buffer_days, days)
    words = f"≈ from {_WHAT[basis]} {start:%Y-%m-%d}, {who} window {_days(days)}"
    words += f", less {_days(buffer)} buffer" if buffer else ""
    return Deadline(start + timedelta(days=days - buffer), True, basis, words)


def return_deadline(charge: Charge, first_seen: datetime, prefs: TodayPrefs) -> Deadline:
    """When an ACH return is due: its own date + `return_days` (else the charge's last update,
    else first seen)."""
    info = charge.return_info
    own = moment_of(info.return_timestamp) if info is not None else None
    start, basis = _start(own, "return_date", charge, first_seen)
    window = _days(prefs.return_days)
    words = f"≈ from {_WHAT[basis]} {start:%Y-%m-%d}, act within {window}"
    return Deadline(start + timedelta(days=prefs.return_days), True, basis, words)
