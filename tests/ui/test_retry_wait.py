"""A read the service asks to retry later (429 + Retry-After) counts down on the list's loading
line and escape cancels it. The client's sleep and the countdown's clock are injected: nothing
really waits."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient, RetryWait
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.list_state import WAIT_CANCELLED, ListState, waiting_text
from tests.ui.conftest import HANG_GUARD, frozen_clock, screen_text


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_waiting_text_counts_whole_seconds_up() -> None:
    assert waiting_text("Service busy", 11.2) == (
        "Service busy, retrying in 12 s… (escape to cancel)"
    )
    assert waiting_text("Service busy", 0) == "Service busy, retrying now… (escape to cancel)"


async def test_client_reports_each_wait_before_it_sleeps() -> None:
    answers = iter(
        [httpx.Response(429, headers={"Retry-After": "12"}), httpx.Response(200, json={})]
    )
    client = PaymentClient(
        "http://x", token="t", transport=httpx.MockTransport(lambda r: next(answers))
    )
    events: list[object] = []
    client.on_wait = events.append

    async def sleep(seconds: float) -> None:
        events.append(("slept", seconds))

    client.sleep = sleep
    await client._request("GET", "/v2/anything")
    assert events == [RetryWait(12.0, "Service busy", 429), ("slept", 12.0)]
    await client.aclose()


async def test_list_counts_down_a_retry_after_and_escape_cancels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(ListState, "clock", staticmethod(clock))
    slept: list[float] = []
    cancelled = asyncio.Event()

    async def sleep_until_cancelled(seconds: float) -> None:
        slept.append(seconds)
        try:
            await asyncio.Event().wait()  # never set: only a cancel ends this wait
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def busy(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "12"}, json={"message": "slow down"})

    async def factory() -> Any:
        client = PaymentClient(
            "http://sandbox", token="t", transport=httpx.MockTransport(busy), max_retries=3
        )
        client.sleep = sleep_until_cancelled
        return client

    app = PaytuiApp(factory, clock=frozen_clock)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        state = screen.query_one(ListState)
        for _ in range(200):  # until the read is waiting (no fixed sleep: each pause is an idle)
            if state.waiting:
                break
            await pilot.pause()
        assert slept == [12.0]
        assert "Service busy, retrying in 12 s… (escape to cancel)" in screen_text(app)

        clock.now += 5
        state.tick()  # what the one-second timer does
        await pilot.pause()
        assert "Service busy, retrying in 7 s… (escape to cancel)" in screen_text(app)

        app.set_focus(None)  # escape from wherever focus is: the query line leaves first
        await pilot.press("escape")
        await asyncio.wait_for(cancelled.wait(), HANG_GUARD)
        await pilot.pause()
        assert state.state == "error" and not state.waiting
        assert WAIT_CANCELLED in screen_text(app)
        assert app.screen is screen  # escape stopped the wait, it did not navigate
