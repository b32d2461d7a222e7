"""The pulse: per UTC day over the last 30 (or 90) days, sales volume, captures, refunds,
chargebacks and ACH returns, and the chargeback rate against configurable lines (docs/today.md,
"The pulse").

No Textual. At most `concurrency` requests at a time. Each counted kind's `total` over the
window (`limit=1`) chooses its route: few rows are read and counted by day (proven here: the
client applies the filters the service ignores); many are counted with one total a day, used
only when every day's page shows the service applied every filter (no filter ignored, refused
or unproven, no paging note), else read too, with progress. Sales volume has no total on the
wire: the successful charges are always read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict

from paytui.api.models import Resource, Timestamp, is_authorization
from paytui.api.money import Amount, to_decimal
from paytui.api.queries import ChargeQuery, RefundQuery

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Page

__all__ = [
    "COUNTED",
    "KINDS",
    "DayFigures",
    "Progress",
    "Pulse",
    "PulseCache",
    "compute_pulse",
    "day_index",
    "day_starts",
    "run_all",
]

#: The figures of a day, in the order the strip draws them.
KINDS: tuple[str, ...] = ("volume", "captures", "refunds", "chargebacks", "returns")
Kind = Literal["sales", "captures", "refunds", "chargebacks", "returns"]
#: The kinds counted (the rest is summed from rows); `sales` is the rate's denominator.
COUNTED: tuple[Kind, ...] = ("sales", "captures", "refunds", "chargebacks", "returns")
#: Rows per page when rows are read: about 25 ms of parsing each, so no frame waits longer.
PAGE_SIZE = 100
#: Rows per page of the successful charges, read as light rows (`SaleRow`): about 90 requests
#: for the volume at 100,000 charges instead of 135, each page still parsed within a frame or
#: so (250 a page was faster to read but held the loop longer: docs/performance.md).
SALES_PAGE_SIZE = 150
#: A kind with at most this many rows in the window is read and counted by day (proven here);
#: above, it is counted with one total a day.
READ_UP_TO = 2_000


@dataclass(frozen=True)
class DayFigures:
    """One UTC day's figures."""

    day: datetime
    volume: Decimal = Decimal(0)
    sales: int = 0
    captures: int = 0
    refunds: int = 0
    chargebacks: int = 0
    returns: int = 0

    @property
    def chargeback_rate(self) -> float | None:
        """Chargebacks over successful sales of the day, in percent (None: no sales)."""
        return 100.0 * self.chargebacks / self.sales if self.sales else None


@dataclass(frozen=True)
class Pulse:
    """The window's days, oldest first, and how each kind was obtained."""

    days: tuple[DayFigures, ...]
    computed_at: datetime
    #: Kinds counted from their rows (few enough, a total not trusted, or sales: always).
    read_whole: tuple[str, ...] = ()
    #: Filters the service ignored (applied here), by query parameter name: said, never hidden.
    ignored_filters: tuple[str, ...] = ()
    #: Kinds counted with rows that could not show they match (a service that does not echo
    #: `charge_type`, say): an upper bound, drawn as such.
    unproven: tuple[str, ...] = ()

    def series(self, kind: str) -> list[float]:
        return [float(getattr(day, kind)) for day in self.days]

    def total(self, kind: str) -> Decimal | int:
        values = [getattr(day, kind) for day in self.days]
        return sum(values, Decimal(0)) if kind == "volume" else sum(values)

    @property
    def chargeback_rate(self) -> float | None:
        """Chargebacks over successful sales of the whole window, in percent."""
        sales = int(self.total("sales"))
        return 100.0 * int(self.total("chargebacks")) / sales if sales else None


@dataclass
class Progress:
    """How far a computation is: queries and pages done of those known so far."""

    done: int = 0
    planned: int = 0
    rows: int = 0
    phase: str = "counting"


def day_starts(now: datetime, days: int) -> list[datetime]:
    """The starts of the last `days` UTC days, oldest first, today (partial) last."""
    today = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return [today - timedelta(days=offset) for offset in range(days - 1, -1, -1)]


class SaleRow(Resource):
    """What the pulse reads of a successful charge: the fields its filters are judged by and
    its volume needs (`client.search_charges_as`), the rest of the row left unparsed."""

    model_config = ConfigDict(extra="ignore")

    charge_id: str
    charge_timestamp: Timestamp | None = None
    total_amount: Amount | None = None
    status: str | None = None
    result_code: str | None = None
    charge_type: str | None = None

    @property
    def is_authorization(self) -> bool:
        return is_authorization(self.charge_type, self.result_code, self.total_amount)


def _charge_query(kind: Kind, start: datetime, end: datetime) -> ChargeQuery:
    if kind == "captures":
        return ChargeQuery(charge_type="capture", created_from=start, created_to=end)
    if kind == "chargebacks":
        return ChargeQuery(status="chargeback", created_from=start, created_to=end)
    if kind == "returns":
        return ChargeQuery(status="return", created_from=start, created_to=end)
    return ChargeQuery(status="success", created_from=start, created_to=end)


def _trusted(page: Page[Any]) -> bool:
    """A total only counts when nothing on the page says a filter was not applied by the
    service (ignored, refused, unproven) and the paging was plain."""
    return (
        page.total is not None
        and not page.ignored_filters
        and not page.unproven
        and page.paging_note is None
    )


def day_index(moment: datetime | None, starts: Sequence[datetime]) -> int | None:
    if moment is None:
        return None
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    offset = (moment.astimezone(UTC) - starts[0]).days
    return offset if 0 <= offset < len(starts) else None


def _is_sale(charge: Any) -> bool:
    """A successful charge that moved money: not an authorization still waiting for capture."""
    return not bool(getattr(charge, "is_authorization", False))


async def run_all(coroutines: Sequence[Coroutine[Any, Any, None]]) -> None:
    """Run them all; the first failure cancels the others and is raised as itself."""
    try:
        async with asyncio.TaskGroup() as group:
            for coroutine in coroutines:
                group.create_task(coroutine)
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None


async def compute_pulse(
    client: PaymentClient,
    *,
    now: datetime,
    days: int = 30,
    concurrency: int = 4,
    on_progress: Callable[[Progress], None] | None = None,
    read_up_to: int = READ_UP_TO,
    offload: bool = True,
) -> Pulse:
    """The pulse of the `days` UTC days up to `now`, with at most `concurrency` requests at once.

    Rows read are proven here (the client applies any filter the service ignores), so a total
    only chooses the route: each counted kind's total over the window (`limit=1`) first; up to
    `read_up_to` rows are read and counted by day; above, one total per day, used only if none
    of the kind's days showed a filter not applied by the service (one day whose single row
    happens to match proves nothing when another day shows the filter ignored), else read too.
    Successful charges are always read (their volume has no total), which counts the sales.
    `offload` False parses the pages of rows on the loop (the benchmark's "before")."""
    starts = day_starts(now, days)
    bounds = [*starts, starts[-1] + timedelta(days=1)]
    gate = asyncio.Semaphore(max(1, concurrency))
    counted = [kind for kind in COUNTED if kind != "sales"]
    progress = Progress(planned=len(counted))
    ignored: dict[str, None] = {}
    doubted: set[str] = set()  # kinds with a page that showed a filter not applied
    unproven: set[str] = set()  # kinds read with rows that cannot show they match

    def tick(done: int = 1, rows: int = 0) -> None:
        progress.done += done
        progress.rows += rows
        if on_progress is not None:
            on_progress(progress)

    counts: dict[str, list[int]] = {kind: [0] * days for kind in COUNTED}
    volume = [Decimal(0)] * days

    async def total(kind: Kind, start: datetime, end: datetime) -> Page[Any]:
        async with gate:
            if kind == "refunds":
                query = RefundQuery(created_from=start, created_to=end)
                page: Page[Any] = await client.search_refunds_page(query, limit=1)
            else:
                page = await client.search_charges_page(_charge_query(kind, start, end), limit=1)
        ignored.update(dict.fromkeys(page.ignored_filters))
        return page

    async def count(kind: Kind, index: int) -> None:
        page = await total(kind, bounds[index], bounds[index + 1])
        if not _trusted(page):
            doubted.add(kind)
        counts[kind][index] = page.total or 0
        tick()

    async def read(kind: Kind, first: int, last: int) -> None:
        """The rows of `kind` from day `first` to day `last` (inclusive), counted by day; the
        successful charges' volume too (`kind` "sales")."""
        start, end = bounds[first], bounds[last + 1]
        found = [0] * days
        async with gate:
            # Each page's JSON, rows and proof are worked out in a thread (`offload`): a page
            # of 150 sales parsed on the loop held it 80-odd ms at 100,000 charges.
            pages: Any = (
                client.search_refunds(
                    RefundQuery(created_from=start, created_to=end),
                    page_size=PAGE_SIZE,
                    offload=offload,
                )
                if kind == "refunds"
                else client.search_charges_as(
                    SaleRow,
                    _charge_query(kind, start, end),
                    page_size=SALES_PAGE_SIZE,
                    offload=offload,
                )
                if kind == "sales"
                else client.search_charges(
                    _charge_query(kind, start, end), page_size=PAGE_SIZE, offload=offload
                )
            )
            async for page in pages:
                ignored.update(dict.fromkeys(page.ignored_filters))
                if page.unproven:
                    unproven.add(kind)
                for item in page.items:
                    stamp = getattr(
                        item, "refund_timestamp" if kind == "refunds" else "charge_timestamp", None
                    )
                    index = day_index(stamp, starts)
                    if index is None or not first <= index <= last:
                        continue
                    found[index] += 1
                    if kind == "sales" and _is_sale(item):
                        volume[index] += to_decimal(item.total_amount or 0)
                tick(0, len(page.items))
        for index in range(first, last + 1):
            counts[kind][index] = found[index]
        tick()

    async def route(kind: Kind) -> None:
        window = await total(kind, bounds[0], bounds[-1])
        tick()
        if (window.total is not None and window.total <= read_up_to) or not _trusted(window):
            doubted.add(kind)  # counted from its rows
            progress.planned += 1
            await read(kind, 0, days - 1)
            return
        progress.planned += days
        await run_all([count(kind, i) for i in range(days)])
        if kind in doubted:
            progress.planned += 1
            await read(kind, 0, days - 1)

    async def sales() -> None:
        # Per day, concurrently, while the service applies the date filters; else the window
        # once (a service that ignores them would send its whole list for each day).
        probe = await total("sales", bounds[0], bounds[-1])
        per_day = _trusted(probe) and not any(n.startswith("created_") for n in ignored)
        spans = [(i, i) for i in range(days)] if per_day else [(0, days - 1)]
        progress.planned += len(spans)
        await run_all([read("sales", a, b) for a, b in spans])

    progress.phase = "reading"
    await run_all([sales(), *(route(kind) for kind in counted)])
    figures = tuple(
        DayFigures(
            day=starts[i],
            volume=volume[i],
            sales=counts["sales"][i],
            captures=counts["captures"][i],
            refunds=counts["refunds"][i],
            chargebacks=counts["chargebacks"][i],
            returns=counts["returns"][i],
        )
        for i in range(days)
    )
    read_whole = tuple(kind for kind in COUNTED if kind in doubted or kind == "sales")
    proven_not = tuple(kind for kind in COUNTED if kind in unproven)
    return Pulse(figures, now, read_whole, tuple(ignored), proven_not)


@dataclass
class PulseCache:
    """The session's pulses by window length: drawn at once on a later visit, then refreshed."""

    pulses: dict[int, Pulse] = field(default_factory=dict)

    def get(self, days: int) -> Pulse | None:
        return self.pulses.get(days)

    def put(self, pulse: Pulse) -> None:
        self.pulses[len(pulse.days)] = pulse
