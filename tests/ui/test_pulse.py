"""The pulse strip: drawn with its numbers as text, 30/90 days, errors in words, a snapshot.

Against the in-process sandbox at the frozen clock (2026-11-20T18:30Z). Plain `def` for the
snapshot: `snap_compare` runs its own event loop.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.config import resolve_connection
from paytui.config.model import PulsePrefs
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.faults import Faults
from paytui.search.pulse import compute_pulse
from paytui.today.ratio import compute_ratio, standing
from paytui.ui.palette_commands import open_pulse
from paytui.ui.screens.pulse import PulseScreen
from paytui.ui.widgets.chart_line import ChartLine
from paytui.ui.widgets.pulse import PulseStrip
from paytui.ui.widgets.ratio import RatioStrip
from tests.ui.conftest import (
    FROZEN_NOW,
    make_app,
    run_in_palette,
    screen_text,
    settle,
    wait_for_workers,
)


async def expected_pulse(transport: httpx.AsyncBaseTransport, days: int) -> Any:
    client = PaymentClient(
        "http://sandbox",
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        transport=transport,
    )
    async with client:
        return await compute_pulse(client, now=FROZEN_NOW, days=days)


async def test_the_palette_opens_the_pulse_drawn_with_its_numbers(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    expected = await expected_pulse(sandbox_transport, 30)
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await run_in_palette(app, pilot, "Pulse")
        assert isinstance(app.screen, PulseScreen)
        strip = app.screen.query_one(PulseStrip)
        assert strip.pulse is not None and strip.pulse.days == expected.days
        text = screen_text(app)
        assert "Pulse · last 30 days (UTC)" in text
        total = int(expected.total("chargebacks"))
        assert "Chargebacks" in text and f"30 d {total:,}" in text
        assert f"{expected.chargeback_rate:.2f} % over 30 d" in text
        assert "below both lines" in text  # the rate in words, not colour alone
        chart = app.screen.query_one("#pulse-volume", ChartLine)
        assert chart.data == expected.series("volume")


async def test_V_switches_to_ninety_days_and_back(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        open_pulse(app)
        await settle(app, pilot)
        strip = app.screen.query_one(PulseStrip)
        await pilot.press("V")
        await settle(app, pilot)
        assert strip.pulse is not None and len(strip.pulse.days) == 90
        assert "Pulse · last 90 days (UTC)" in screen_text(app)
        await pilot.press("V")
        await settle(app, pilot)
        assert len(strip.pulse.days) == 30


async def test_a_failing_service_is_said_in_words_and_ctrl_r_retries(
    sandbox_transport: httpx.AsyncBaseTransport, sandbox_faults: Faults
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sandbox_faults.fail_status = 503
        sandbox_faults.fail_path_prefix = "/v2/refunds"
        open_pulse(app)
        await settle(app, pilot)
        strip = app.screen.query_one(PulseStrip)
        assert strip.pulse is None
        text = screen_text(app)
        assert "Pulse · 30 days · " in text and "503" in text
        assert "ctrl+r retries" in text
        sandbox_faults.fail_status = None
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert strip.pulse is not None
        assert "Pulse · last 30 days (UTC)" in screen_text(app)


def test_pulse_snapshot(snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        open_pulse(pilot.app)
        await wait_for_workers(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=(120, 24), run_before=run_before)


async def test_the_lines_come_from_the_pulse_table(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """`[pulse] warn_rate` / `alert_rate` are the lines the words compare against."""
    connection = replace(
        resolve_connection(environ={}), pulse=PulsePrefs(warn_rate=0.1, alert_rate=0.5)
    )
    app = make_app(sandbox_transport, connection=connection)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        open_pulse(app)
        await settle(app, pilot)
        text = screen_text(app)
        assert "lines 0.1 % / 0.5 %" in text
        assert "above the 0.1 % warning line" in text


async def test_the_timer_reads_again_only_while_the_pulse_is_shown(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """On Today, behind another mode, a tick of the refresh timer reads nothing; shown, it
    computes the pulse again."""
    # The test ticks the timer itself: the strip's own timer is set a day apart, so that a
    # loaded machine slow to get through the test never has it tick in between.
    connection = replace(resolve_connection(environ={}), pulse=PulsePrefs(refresh_seconds=86_400))
    app = make_app(sandbox_transport, connection=connection)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("0")
        await settle(app, pilot)
        strip = app.screen.query_one(PulseStrip)
        first = strip.pulse
        assert first is not None
        await pilot.press("1")
        await settle(app, pilot)
        strip.tick()
        await settle(app, pilot)
        assert strip.pulse is first
        await pilot.press("0")
        await settle(app, pilot)
        strip.tick()
        await settle(app, pilot)
        assert strip.pulse is not None and strip.pulse is not first
        assert strip.pulse.days == first.days


async def test_the_pulse_screen_draws_every_accounts_dispute_ratio_with_its_numbers(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """The month's ratio under the days, every account on the Pulse screen, each chart's line
    the month-to-date ratio by day and its figures as text beside it (the standing in words)."""
    client = PaymentClient(
        "http://sandbox",
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        transport=sandbox_transport,
    )
    async with client:
        expected = await compute_ratio(client, now=FROZEN_NOW)
    app = make_app(sandbox_transport)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        open_pulse(app)
        await settle(app, pilot)
        ratio = app.screen.query_one(RatioStrip)
        assert ratio.pulse is not None and ratio.pulse.accounts == expected.accounts
        rows = list(ratio.query(ChartLine))
        assert len(rows) == len(expected.accounts) > 3  # every account, not Today's three
        text = screen_text(app)
        assert "Dispute ratio · November 2026 (UTC)" in text
        for row, account in zip(rows, expected.accounts, strict=True):
            assert row.data == account.trend()
            assert account.account_id in text
            assert account.ratio is not None
            words = standing(account.ratio, account.disputes, PulsePrefs().ratio_lines).words
            line = f"{100 * account.ratio:.2f} % · {words} · {account.disputes:,} of"
            assert line in text
        cases = sum(len(a.open_cases) for a in expected.accounts)
        assert cases >= 8 and f"Open cases in this month's count: {cases}" in text


async def test_a_refresh_puts_the_new_figures_in_the_lines_already_there(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """ctrl+r computes the pulse and the ratio again and writes them into the very lines on
    screen: no line is built again (each refresh rebuilt a row of widgets per account, and
    Textual keeps the drawing cache of every widget it ever drew: memory grew each time)."""
    app = make_app(sandbox_transport)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        open_pulse(app)
        await settle(app, pilot)
        strip = app.screen.query_one(PulseStrip)
        ratio = app.screen.query_one(RatioStrip)
        first, first_ratio = strip.pulse, ratio.pulse
        lines = list(app.screen.query(ChartLine))
        assert len(lines) == 6 + len(first_ratio.accounts if first_ratio else ())
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert strip.pulse is not None and strip.pulse is not first
        assert ratio.pulse is not None and ratio.pulse is not first_ratio
        again = list(app.screen.query(ChartLine))
        assert len(again) == len(lines) and all(a is b for a, b in zip(again, lines, strict=True))
        for line, account in zip(ratio.query(ChartLine), ratio.pulse.accounts, strict=True):
            assert line.data == account.trend() and line.label == account.account_id


async def test_the_dispute_ratio_is_read_once_the_days_are(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The days first, then the month's ratio: read side by side, the two shared the service
    and the loop, and the days (what the strip is for) came 2.05-2.2 s after the screen was
    pushed at 100,000 charges with a core busy. Told by the order of the two computations'
    starts and ends, not by time."""
    from paytui.ui.widgets import pulse as pulse_widget
    from paytui.ui.widgets import ratio as ratio_widget

    order: list[str] = []

    def told(name: str, compute: Any) -> Any:
        async def computed(*args: Any, **kwargs: Any) -> Any:
            order.append(f"{name} started")
            try:
                return await compute(*args, **kwargs)
            finally:
                order.append(f"{name} ended")

        return computed

    monkeypatch.setattr(pulse_widget, "compute_pulse", told("days", compute_pulse))
    monkeypatch.setattr(ratio_widget, "compute_ratio", told("ratio", compute_ratio))
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        order.clear()  # only what opening the pulse reads
        open_pulse(app)
        await settle(app, pilot)
        assert order == ["days started", "days ended", "ratio started", "ratio ended"]
        assert app.screen.query_one(RatioStrip).pulse is not None
