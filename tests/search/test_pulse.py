"""The pulse's model against the sandbox and against a service that ignores the date filters."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from paytui.api.client import PaymentClient
from paytui.api.money import to_decimal
from paytui.api.queries import ChargeQuery
from paytui.sandbox.seed import DEFAULT_ANCHOR
from paytui.search.pulse import READ_UP_TO, Progress, SaleRow, compute_pulse, day_starts
from tests.second_service.app import SecondService
from tests.second_service.fixtures import client_for


def test_days_are_utc_days_oldest_first_today_last() -> None:
    starts = day_starts(datetime(2026, 11, 20, 18, 30, tzinfo=UTC), 3)
    assert starts == [datetime(2026, 11, d, tzinfo=UTC) for d in (18, 19, 20)]


@pytest.mark.parametrize("read_up_to", [READ_UP_TO, 0], ids=["rows", "totals-per-day"])
async def test_the_pulse_is_what_the_rows_of_the_window_say(
    demo_client: PaymentClient, read_up_to: int
) -> None:
    """Every figure of every day equals what reading the window's charges and refunds row by
    row gives, whether the counts were read from rows or from the sandbox's totals, one a day
    (`read_up_to=0`: the route of a large window)."""
    seen: list[Progress] = []
    pulse = await compute_pulse(
        demo_client, now=DEFAULT_ANCHOR, days=30, on_progress=seen.append, read_up_to=read_up_to
    )
    start = pulse.days[0].day
    end = start + timedelta(days=30)
    expected: dict[str, Counter[int]] = {
        k: Counter() for k in ("sales", "chargebacks", "returns", "captures", "refunds")
    }
    volume: Counter[int] = Counter()
    async for page in demo_client.search_charges(
        ChargeQuery(created_from=start, created_to=end), page_size=500
    ):
        for charge in page.items:
            assert charge.charge_timestamp is not None
            day = (charge.charge_timestamp - start).days
            if charge.status == "success":
                expected["sales"][day] += 1
                if not charge.is_authorization:
                    volume[day] += to_decimal(charge.total_amount)
            if charge.status == "chargeback":
                expected["chargebacks"][day] += 1
            if charge.status == "return":
                expected["returns"][day] += 1
            if charge.charge_type == "capture":
                expected["captures"][day] += 1
    async for refunds in demo_client.search_refunds(page_size=500):
        for refund in refunds.items:
            assert refund.refund_timestamp is not None
            if start <= refund.refund_timestamp < end:
                expected["refunds"][(refund.refund_timestamp - start).days] += 1
    for index, day in enumerate(pulse.days):
        for kind, counter in expected.items():
            assert getattr(day, kind) == counter[index], (kind, day.day)
        assert day.volume == volume[index]
    assert pulse.ignored_filters == () and pulse.unproven == ()
    assert sum(d.chargebacks for d in pulse.days) > 0 and pulse.chargeback_rate is not None
    assert len({d.volume for d in pulse.days}) > 20  # the demo data is not flat
    assert seen and seen[-1].done == seen[-1].planned


async def test_the_pages_of_rows_are_worked_out_off_the_event_loop(
    demo_client: PaymentClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every page of rows the pulse reads (sales, and each kind counted from its rows) is
    decoded, read and proven in a thread, never on the loop that draws the screen (a page of
    sales parsed on the loop held it 80-odd ms at 100,000 charges); the figures are those of
    the pages parsed on the loop."""
    import threading

    from paytui.api import client as client_module

    decoded = client_module._decoded_page
    threads: list[tuple[str, bool]] = []

    def recorded(body: object, model: type, plural: str, limit: int, offset: int) -> object:
        threads.append((plural, threading.current_thread() is threading.main_thread()))
        return decoded(body, model, plural, limit, offset)

    monkeypatch.setattr(client_module, "_decoded_page", recorded)
    pulse = await compute_pulse(demo_client, now=DEFAULT_ANCHOR, days=30)
    assert {plural for plural, _ in threads} == {"charges", "refunds"}
    assert not any(on_loop for _, on_loop in threads)
    threads.clear()
    inline = await compute_pulse(demo_client, now=DEFAULT_ANCHOR, days=30, offload=False)
    assert threads == []
    assert inline.days == pulse.days


@pytest.mark.parametrize("read_up_to", [READ_UP_TO, 0], ids=["rows", "totals-per-day"])
async def test_a_service_that_ignores_the_date_filters_is_never_counted_by_its_totals(
    second_service: Callable[..., SecondService], read_up_to: int
) -> None:
    """The second service applies only `status` and answers `total` for the whole list: its
    totals are not taken for a day's count (one day's single row may well match). Each kind is
    read over the window and bucketed here; `created_from` is named as ignored; captures, whose
    type this service does not echo, are marked unproven rather than counted as proven."""
    service = second_service()
    charges = service.store.charges
    now = max(c.moment for c in charges) + timedelta(hours=1)
    async with client_for(service) as client:
        pulse = await compute_pulse(client, now=now, days=7, read_up_to=read_up_to)
    start = pulse.days[0].day

    def per_day(moments: list[datetime]) -> list[int]:
        found = Counter((m - start).days for m in moments if m >= start)
        return [found[i] for i in range(7)]

    assert [d.chargebacks for d in pulse.days] == per_day(
        [c.moment for c in charges if c.status == "chargeback"]
    )
    assert [d.returns for d in pulse.days] == per_day(
        [c.moment for c in charges if c.status == "return"]
    )
    assert [d.sales for d in pulse.days] == per_day(
        [c.moment for c in charges if c.status == "success"]
    )
    assert [d.refunds for d in pulse.days] == per_day([r.moment for r in service.store.refunds])
    assert sum(d.volume for d in pulse.days) == sum(
        (c.amount for c in charges if c.status == "success" and c.charge_type != "authorization"),
        Decimal(0),
    )
    assert {"created_from", "created_to"} & set(pulse.ignored_filters)
    assert set(pulse.read_whole) >= {"sales", "chargebacks", "returns", "refunds"}
    assert "captures" in pulse.unproven


async def test_the_pulse_light_row_is_the_charge_model_for_the_fields_it_has(
    demo_client: PaymentClient,
) -> None:
    """`SaleRow` is read instead of `Charge` for the volume, so it must be the same shape for
    what it holds: each field a `Charge` field of the same name, alias, type and validators,
    and each row (and each odd value a service may send) read to the same value by both, or
    refused by both; its authorization verdict is the charge's."""
    from paytui.api.models import Charge
    from paytui.api.paging import unwrap

    for name, light in SaleRow.model_fields.items():
        full = Charge.model_fields[name]
        assert (light.annotation, light.metadata, light.alias) == (
            full.annotation,
            full.metadata,
            full.alias,
        ), name
    found = unwrap(await demo_client.read("/v2/charges", [("limit", "200")]), "charges")
    assert found is not None
    rows = [dict(raw) for raw in found[0]]
    odd = [
        ("total_amount", "12.30"),
        ("total_amount", 7),
        ("total_amount", "x"),
        ("charge_timestamp", "2026-11-20T10:00:00Z"),
        ("charge_timestamp", 5),
        ("status", 3),
    ]
    rows += [{**rows[0], field: value} for field, value in odd]
    for raw in rows:
        try:
            charge = Charge.model_validate(raw)
        except ValueError:
            with pytest.raises(ValueError):
                SaleRow.model_validate(raw)
            continue
        row = SaleRow.model_validate(raw)
        for name in SaleRow.model_fields:
            assert getattr(row, name) == getattr(charge, name), (name, raw.get(name))
        assert row.is_authorization == charge.is_authorization
