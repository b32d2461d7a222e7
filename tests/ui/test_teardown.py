"""A read that ends while the app quits shows nothing and raises nothing (`still_shown`).

`App._shutdown` stops the app, then removes every screen, children first, and cancels a node's
workers only as the node itself goes: a read that ends in between must not write (a popped
screen's workers are cancelled before it goes: `textual_fixes.ScreenSwitchGuards`). Each test
holds a real read (the in-process sandbox answered it) and lets it end at the first message
handled once the app stopped. It then proves the read did end there (not cancelled before),
that nothing was raised (`run_test` raises what ended the app) and that nothing was written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from textual.message import Message

import paytui.charge_state
from paytui.ui.screens.refunds import RefundsScreen
from paytui.ui.screens.today import TodayScreen
from paytui.ui.widgets import pulse as pulse_module
from paytui.ui.widgets import ratio as ratio_module
from paytui.ui.widgets.pulse import PulseStrip
from paytui.ui.widgets.ratio import RatioStrip
from tests.ui.conftest import make_app, settle

#: How long a test waits for a held read to be reached (it is reached in well under a second;
#: this only turns a read that never comes into a failure instead of a hang).
REACHED_WITHIN = 120


class HeldRead:
    """A read that, once answered, waits to end until `when()` holds as a message is handled
    (the app's `message_hook` sees the messages of every node started from the app's task:
    teardown is messages too)."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.gate = asyncio.Event()
        self.when: Callable[[], bool] | None = None
        #: The held read handed its answer to the code that awaited it (it was not cancelled).
        self.ended = False

    def hook(self, message: Message) -> None:
        if self.when is not None and not self.gate.is_set() and self.when():
            self.gate.set()

    def around(self, read: Callable[..., Awaitable[Any]]) -> Any:
        """`read`, held once answered."""

        async def held(*args: Any, **kwargs: Any) -> Any:
            answer = await read(*args, **kwargs)
            self.reached.set()
            await self.gate.wait()
            self.ended = True
            return answer

        return held

    async def ends_as_it_quits(self, app: Any) -> None:
        """Once the read is answered and held: it ends at the first message handled after the
        app stopped (the test's end shuts the app down)."""
        await asyncio.wait_for(self.reached.wait(), REACHED_WITHIN)
        self.when = lambda: not app.is_running


async def open_today(app: Any, pilot: Any) -> TodayScreen:
    await settle(app, pilot)
    await pilot.press("0")
    await settle(app, pilot)
    assert isinstance(app.screen, TodayScreen)
    return app.screen


async def test_todays_refunds_read_ending_as_the_app_quits_writes_nothing(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(sandbox_transport)
    held = HeldRead()
    async with app.run_test(size=(140, 40), message_hook=held.hook) as pilot:
        screen = await open_today(app, pilot)
        assert screen.refunds  # read once the rows showed
        monkeypatch.setattr(
            paytui.charge_state, "read_positions", held.around(paytui.charge_state.read_positions)
        )
        screen.refunds.clear()
        screen._read_refunds()  # as new rows would
        await held.ends_as_it_quits(app)
    assert held.ended
    assert screen.refunds == {}


async def test_a_list_read_ending_as_the_app_quits_shows_nothing(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """The list kit (`PagedListScreen`, here Refunds): a read of the first page again."""
    app = make_app(sandbox_transport)
    held = HeldRead()
    async with app.run_test(size=(120, 40), message_hook=held.hook) as pilot:
        await settle(app, pilot)
        screen = RefundsScreen()
        app.call_later(app.push_screen, screen)  # from the app's task: its messages hooked
        await settle(app, pilot)
        rows = screen.items
        assert rows  # the sandbox's refunds, on screen
        screen.fetch = held.around(screen.fetch)  # type: ignore[method-assign]
        screen.load()  # read again: the rows on screen stay until it is read
        await held.ends_as_it_quits(app)
    assert held.ended
    assert screen.items is rows  # not replaced by the late read


@pytest.mark.parametrize(
    ("strip_type", "module", "read"),
    [(PulseStrip, pulse_module, "compute_pulse"), (RatioStrip, ratio_module, "compute_ratio")],
)
async def test_a_strips_read_ending_as_the_app_quits_shows_nothing(
    sandbox_transport: httpx.AsyncBaseTransport,
    monkeypatch: pytest.MonkeyPatch,
    strip_type: type[PulseStrip | RatioStrip],
    module: Any,
    read: str,
) -> None:
    """Today's pulse, and the dispute ratio under it."""
    app = make_app(sandbox_transport)
    held = HeldRead()
    async with app.run_test(size=(140, 40), message_hook=held.hook) as pilot:
        screen = await open_today(app, pilot)
        strip = screen.query_one(strip_type)
        monkeypatch.setattr(module, read, held.around(getattr(module, read)))
        strip.pulse = None
        strip.load(cached=False)
        await held.ends_as_it_quits(app)
    assert held.ended
    assert strip.pulse is None
