"""Full collections of the cyclic collector wait for the dashboard's idle moments
(`paytui.collector`, `PaytuiApp._collect_when_idle`): at 100,000 charges the ones that Today's
queue set off held the event loop 48-346 ms while the person waited for rows."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from time import monotonic
from typing import Any

import pytest

from paytui import collector
from paytui.collector import pause_collector
from tests.ui.conftest import fake_app, settle


@pytest.fixture
def full_collections() -> Iterator[list[float]]:
    """`monotonic()` of each full collection the process runs while the test does."""
    seen: list[float] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(monotonic())

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


def middle_collections(count: int) -> None:
    """`count` collections of the middle generation: each one brings a full collection nearer
    (`gc.get_count()[2]`), as the young objects a screen's reading leaves behind do."""
    for _ in range(count):
        gc.collect(1)


async def test_full_collections_wait_until_no_key_and_no_worker(
    full_collections: list[float],
) -> None:
    threshold = gc.get_threshold()
    app = fake_app()
    pause_collector()  # as the launcher does: the app's own process
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        assert collector.deferring()
        assert gc.get_threshold()[2] == collector.OUT_OF_REACH
        assert gc.get_threshold()[:2] == threshold[:2]  # the young generations as before

        # A worker running (a screen reading): due, but not run, however long it waits.
        reading = asyncio.Event()
        app.run_worker(reading.wait(), name="a read")
        await pilot.pause()
        middle_collections(collector.FULL_WHEN_IDLE_AFTER)
        app._collect_when_idle()
        assert full_collections == []
        assert gc.get_count()[2] >= collector.FULL_WHEN_IDLE_AFTER  # still due

        # The read ended, but a key was typed just now: not idle either.
        reading.set()
        await settle(app, pilot)
        app.last_typed = monotonic()
        app._collect_when_idle()
        assert full_collections == []

        # Idle: nobody types, nothing reads. It runs (by the look's own timer, or this call).
        app.last_typed = float("-inf")
        idle_from = monotonic()
        app._collect_when_idle()
        assert [when for when in full_collections if when >= idle_from]
        assert gc.get_count()[2] < collector.FULL_WHEN_IDLE_AFTER

        # Never idle long enough: it runs anyway once far overdue (memory stays bounded).
        app.last_typed = monotonic() + 3600  # typing, as far as the look can tell
        busy_from = monotonic()
        middle_collections(collector.FULL_ANYWAY_AFTER)
        app._collect_when_idle()
        assert [when for when in full_collections if when >= busy_from]
    assert not collector.deferring()
    assert gc.get_threshold() == threshold  # CPython's own rule again once the app has ended


async def test_an_app_the_launcher_did_not_start_leaves_the_collector_as_it_was() -> None:
    """Tests and other hosts build the app without the launcher: their collector is theirs."""
    threshold = gc.get_threshold()
    app = fake_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        assert not collector.deferring()
        assert gc.get_threshold() == threshold
