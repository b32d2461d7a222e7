"""The dispute ratio: per account, this calendar month's disputes over its sales (count and
amount), the trend by day, the open cases in the count, and where the ratio stands against
the configured lines (docs/today.md, "The dispute ratio").

No Textual. What counts follows the spec (docs/api-assumptions.md, "The dispute ratio"):

- **A sale** is a charge of the month (its `charge_timestamp`, UTC) that went through and moved
  money: status `success`, or `chargeback` / `return` (a sale that came back is still a sale),
  and not an authorization or a pre-authorization (a capture is its own charge and counts). A
  declined or voided charge is not; a status paytui does not know is not counted either, and
  said (`RatioPulse.unknown_statuses`): the ratio then leans high, never low.
- **A dispute** is a charge the service finds with `status=chargeback`, counted once, in the
  month of its chargeback's own date (the earliest of its inner chargebacks); a service that
  shows no date of it gets the charge's date, and the pulse says how many (`dated_by_charge`).
  Its amount is the chargebacks' `total_amount`, else the sum of the items, else the charge's.

Every row is read through the client, so every filter is proven on it (a row the service
cannot show to match is counted as an upper bound and said). Pages are parsed off the event
loop (`search_charges_as(..., offload=True)`) and each page's rows are counted as it arrives,
none kept: the month's sales are thousands of rows (docs/performance.md, "The dispute ratio").
"""

from __future__ import annotations

import asyncio
import calendar
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.api.models import Chargebacks
from paytui.api.money import to_decimal
from paytui.api.queries import ChargeQuery
from paytui.charge_state import dispute_state
from paytui.config.model import DEFAULT_RATIO_LINES, RatioLine
from paytui.search.pulse import SaleRow, day_index, run_all
from paytui.today.deadlines import chargeback_date

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Page

__all__ = [
    "DISPUTE_LOOKBACK_DAYS",
    "AccountRatio",
    "OpenCase",
    "RatioPulse",
    "RatioRow",
    "Standing",
    "compute_ratio",
    "month_bounds",
    "parse_month",
    "standing",
]

#: How far before the month a disputed charge is looked for: the networks' longest window for
#: a cardholder to dispute (540 days from the transaction, Visa's and Mastercard's outer limit).
DISPUTE_LOOKBACK_DAYS = 540
#: Rows a page (light rows, parsed in a thread).
PAGE_SIZE = 200
#: Statuses of a charge that went through (a chargeback or a return came back on a sale).
SALE_STATUSES = frozenset({"success", "chargeback", "return"})
#: Statuses of a charge that moved no money.
NOT_SALE_STATUSES = frozenset({"declined", "voided", "failed", "error"})


class RatioRow(SaleRow):
    """What the ratio reads of a charge: the pulse's light row (`SaleRow`), with the account
    and the chargebacks object; the rest of the row is not parsed."""

    account_id: str | None = None
    chargebacks: Chargebacks | None = None


@dataclass(frozen=True)
class OpenCase:
    """A dispute of the month still open (or whose outcome the service does not show)."""

    charge_id: str
    amount: Decimal
    disputed_at: datetime
    reason_code: str | None
    state: str


@dataclass(frozen=True)
class AccountRatio:
    """One account's month: counts and amounts, the count by day, the open cases."""

    account_id: str
    disputes: int
    disputes_amount: Decimal
    sales: int
    sales_amount: Decimal
    #: Per day of the month so far, oldest first: (disputes, sales) of that day.
    by_day: tuple[tuple[int, int], ...]
    open_cases: tuple[OpenCase, ...] = ()

    @property
    def ratio(self) -> float | None:
        """Disputes over sales (a fraction); None with no sale."""
        return self.disputes / self.sales if self.sales else None

    def trend(self) -> list[float]:
        """The month-to-date ratio at the end of each day, in percent (0 before a sale)."""
        out: list[float] = []
        disputes = sales = 0
        for day_disputes, day_sales in self.by_day:
            disputes += day_disputes
            sales += day_sales
            out.append(100.0 * disputes / sales if sales else 0.0)
        return out


@dataclass(frozen=True)
class Standing:
    """Where a ratio stands: the highest line crossed (ratio and count), else the lowest line
    whose percent is reached without its count, else none; in words for screen and text."""

    level: str  # "below", "under_count" or "above"
    line: RatioLine | None
    words: str


@dataclass(frozen=True)
class RatioPulse:
    """The month's ratio per account, highest ratio first."""

    month_start: datetime
    month_end: datetime
    computed_at: datetime
    days: tuple[datetime, ...]
    accounts: tuple[AccountRatio, ...]
    #: Filters the service ignored (applied here): said, never hidden.
    ignored_filters: tuple[str, ...] = ()
    #: Rows counted that could not show they match a filter (an upper bound).
    unproven: int = 0
    #: Charges of the month in a status paytui does not know, by status: not counted as sales.
    unknown_statuses: dict[str, int] = field(default_factory=dict)
    #: Disputes dated by their charge (the service showed no chargeback date).
    dated_by_charge: int = 0

    def account(self, account_id: str) -> AccountRatio | None:
        return next((a for a in self.accounts if a.account_id == account_id), None)


def parse_month(text: str) -> datetime:
    """`2026-11` as the first moment of that month in UTC (ValueError otherwise)."""
    try:
        start = datetime.strptime(text.strip(), "%Y-%m")
    except ValueError:
        raise ValueError(f"not a month (YYYY-MM): {text!r}") from None
    return start.replace(tzinfo=UTC)


def month_bounds(now: datetime, month: datetime | None = None) -> tuple[datetime, datetime]:
    """The calendar month (UTC) of `month`, else of `now`: its start and the next one's."""
    moment = (month or now).astimezone(UTC)
    start = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    days = calendar.monthrange(start.year, start.month)[1]
    return start, start + timedelta(days=days)


def standing(ratio: float | None, disputes: int, lines: Sequence[RatioLine]) -> Standing:
    """Where `ratio` (a fraction) with `disputes` in the month stands against `lines`."""
    if ratio is None:
        return Standing("below", None, "no sales this month")
    percent = 100.0 * ratio
    ordered = sorted(lines, key=lambda line: (line.percent, line.min_disputes))
    crossed = [ln for ln in ordered if percent >= ln.percent and disputes >= ln.min_disputes]
    if crossed:
        top = crossed[-1]
        return Standing("above", top, f"ABOVE {top.name} ({_line(top)})")
    reached = [ln for ln in ordered if percent >= ln.percent]
    if reached:
        top = reached[-1]
        words = f"over {top.name}'s {top.percent:g} %, under its {top.min_disputes:,} disputes"
        return Standing("under_count", top, words)
    if not ordered:
        return Standing("below", None, "no lines set")
    return Standing("below", None, f"below every line (lowest {ordered[0].percent:g} %)")


def _line(line: RatioLine) -> str:
    count = f", {line.min_disputes:,} disputes" if line.min_disputes else ""
    return f"{line.percent:g} %{count}"


def _is_sale(row: RatioRow) -> bool | None:
    """True: a sale of the month; False: moved no money; None: a status paytui does not know."""
    status = (row.status or "").strip().casefold()
    if status in NOT_SALE_STATUSES:
        return False
    if status not in SALE_STATUSES:
        return None
    if row.charge_type == "pre_authorization" or (
        row.charge_type is None and row.result_code == "Authorized"
    ):
        return False
    return not row.is_authorization


def _amount(value: Any) -> Decimal | None:
    try:
        return None if value is None else to_decimal(value)
    except ValueError:
        return None


def _dispute(row: RatioRow) -> tuple[datetime | None, bool, Decimal]:
    """(the dispute's date, whether it is the chargeback's own, its amount)."""
    block = row.chargebacks
    items = (block.items if block is not None else None) or []
    dates = [d for d in (chargeback_date(item) for item in items) if d is not None]
    own = min(dates) if dates else None
    amount = _amount(block.total_amount) if block is not None else None
    if amount is None:
        amounts = [a for a in (_amount(item.amount) for item in items) if a is not None]
        amount = sum(amounts, Decimal(0)) if amounts else None
    if amount is None:
        amount = _amount(row.total_amount) or Decimal(0)
    if own is not None:
        return own, True, amount
    stamp = row.charge_timestamp
    if stamp is not None and stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp, False, amount


def _reason(row: RatioRow) -> str | None:
    items = (row.chargebacks.items if row.chargebacks is not None else None) or []
    return next((item.reason_code for item in items if item.reason_code), None)


@dataclass
class _Tally:
    disputes: int = 0
    disputes_amount: Decimal = Decimal(0)
    sales: int = 0
    sales_amount: Decimal = Decimal(0)
    by_day: list[list[int]] = field(default_factory=list)
    open_cases: list[OpenCase] = field(default_factory=list)


async def compute_ratio(
    client: PaymentClient,
    *,
    now: datetime,
    month: datetime | None = None,
    concurrency: int = 4,
    on_progress: Callable[[int], None] | None = None,
    offload: bool = True,
) -> RatioPulse:
    """The dispute ratio of the calendar month (UTC) of `month`, else of `now`, per account.

    The month's charges (its days up to `now`, concurrently when the service applies the date
    filters, else the month at once) and the charges with a chargeback from
    `DISPUTE_LOOKBACK_DAYS` before the month to its end; `on_progress(rows read)` after each
    page. `offload` False parses the pages on the loop (the benchmark's "before")."""
    start, end = month_bounds(now, month)
    moment = now.astimezone(UTC)
    # The month so far: its days up to today's; a month past, all of them; one to come, none.
    n_days = (end - start).days if moment >= end else max(0, (moment - start).days + 1)
    days = tuple(start + timedelta(days=i) for i in range(n_days))
    if not days:
        return RatioPulse(start, end, now, days, ())
    gate = asyncio.Semaphore(max(1, concurrency))
    tallies: dict[str, _Tally] = {}
    ignored: dict[str, None] = {}
    unknown: dict[str, int] = {}
    counters = {"rows": 0, "unproven": 0, "by_charge": 0}

    def tally(account_id: str | None) -> _Tally:
        key = account_id or "(none)"
        if key not in tallies:
            tallies[key] = _Tally(by_day=[[0, 0] for _ in days])
        return tallies[key]

    def seen(page: Page[RatioRow]) -> None:
        ignored.update(dict.fromkeys(page.ignored_filters))
        counters["unproven"] += len(page.unproven)
        counters["rows"] += len(page.items)
        if on_progress is not None:
            on_progress(counters["rows"])

    async def read(query: ChargeQuery, count: Callable[[RatioRow], None]) -> None:
        # Each page is counted as it comes, then the loop is free again: a day's (or the
        # chargebacks') thousands of rows counted at once held the loop for hundreds of ms at
        # 100,000 charges (docs/performance.md, "The dispute ratio").
        async with gate:
            pages = client.search_charges_as(RatioRow, query, page_size=PAGE_SIZE, offload=offload)
            async for page in pages:
                seen(page)
                for row in page.items:
                    count(row)

    async def sales(first: int, until: int) -> None:
        query = ChargeQuery(
            created_from=days[first], created_to=min(end, days[until] + timedelta(days=1))
        )

        def count(row: RatioRow) -> None:
            index = day_index(row.charge_timestamp, days)
            if index is None or not first <= index <= until:
                return
            verdict = _is_sale(row)
            if verdict is None:
                word = (row.status or "(none)").strip()[:40]
                unknown[word] = unknown.get(word, 0) + 1
            elif verdict:
                entry = tally(row.account_id)
                entry.sales += 1
                entry.sales_amount += _amount(row.total_amount) or Decimal(0)
                entry.by_day[index][1] += 1

        await read(query, count)

    async def disputes() -> None:
        query = ChargeQuery(
            status="chargeback",
            created_from=start - timedelta(days=DISPUTE_LOOKBACK_DAYS),
            created_to=end,
        )

        def count(row: RatioRow) -> None:
            when, own, amount = _dispute(row)
            index = day_index(when, days)
            if index is None:
                return
            counters["by_charge"] += 0 if own else 1
            entry = tally(row.account_id)
            entry.disputes += 1
            entry.disputes_amount += amount
            entry.by_day[index][0] += 1
            state = dispute_state(row)
            if state in {"open", "unknown"} and when is not None:
                entry.open_cases.append(OpenCase(row.charge_id, amount, when, _reason(row), state))

        await read(query, count)

    async with gate:  # does the service apply the date filters? then a day each, concurrently
        probe = await client.search_charges_page(
            ChargeQuery(created_from=start, created_to=end), limit=1
        )
    per_day = not probe.ignored_filters and not probe.unproven and probe.paging_note is None
    spans = [(i, i) for i in range(len(days))] if per_day else [(0, len(days) - 1)]
    await run_all([disputes(), *(sales(a, b) for a, b in spans)])
    accounts = tuple(
        sorted(
            (
                AccountRatio(
                    account_id=key,
                    disputes=t.disputes,
                    disputes_amount=t.disputes_amount,
                    sales=t.sales,
                    sales_amount=t.sales_amount,
                    by_day=tuple((d, s) for d, s in t.by_day),
                    open_cases=tuple(sorted(t.open_cases, key=lambda c: c.disputed_at)),
                )
                for key, t in tallies.items()
            ),
            key=lambda a: (-(a.ratio or 0.0), -a.disputes, -a.sales, a.account_id),
        )
    )
    return RatioPulse(
        month_start=start,
        month_end=end,
        computed_at=now,
        days=days,
        accounts=accounts,
        ignored_filters=tuple(ignored),
        unproven=counters["unproven"],
        unknown_statuses=dict(sorted(unknown.items())),
        dated_by_charge=counters["by_charge"],
    )


def lines_of(prefs: Any) -> tuple[RatioLine, ...]:
    """The configured lines (`[pulse] ratio_lines`), or the defaults."""
    lines = getattr(prefs, "ratio_lines", None)
    return tuple(lines) if lines is not None else DEFAULT_RATIO_LINES
