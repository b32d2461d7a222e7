"""Full collections of the cyclic collector wait for the dashboard's idle moments
(`paytui.collector`, `PaytuiApp._pace_full_collections`): at 100,000 charges the ones that Today's
queue set off held the event loop 48-346 ms while the person waited for rows. In an idle moment
CPython decides with its own rule, so none runs that CPython would not have run."""

from __future__ import annotations

import asyncio
import gc

import pytest

from paytui import collector
from paytui.collector import pause_collector
from paytui.ui import app as app_module
from tests.ui.conftest import HANG_GUARD, fake_app, settle


def middle_collections(count: int) -> None:
    """`count` collections of the middle generation: each one brings a full collection nearer
    (`gc.get_count()[2]`), as the young objects a screen's reading leaves behind do."""
    for _ in range(count):
        gc.collect(1)


async def test_full_collections_are_held_back_while_the_person_is_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Only the test's own looks decide (the app's look on its timer would race with them).
    monkeypatch.setattr(app_module, "COLLECT_LOOK_EVERY", HANG_GUARD)
    cpython = gc.get_threshold()
    app = fake_app()
    pause_collector()  # as the launcher does: the app's own process
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        assert collector.deferring()
        assert gc.get_threshold() == (*cpython[:2], collector.OUT_OF_REACH)  # young: as before

        # Idle: nobody types, nothing reads: CPython's own rule.
        app.last_typed = float("-inf")
        app._pace_full_collections()
        assert gc.get_threshold() == cpython

        # A key typed holds them back at once, before any look.
        await pilot.press("j")
        assert gc.get_threshold()[2] == collector.OUT_OF_REACH
        await settle(app, pilot)

        # A worker starting (a screen reading), no key for long: held back at once, before
        # any look, and at each look while it runs.
        app.last_typed = float("-inf")
        app._pace_full_collections()
        assert gc.get_threshold() == cpython
        reading = asyncio.Event()
        app.run_worker(reading.wait(), name="a read")
        assert gc.get_threshold()[2] == collector.OUT_OF_REACH
        await pilot.pause()
        app._pace_full_collections()
        assert gc.get_threshold()[2] == collector.OUT_OF_REACH

        # Never idle long enough: CPython's rule is given back once far overdue.
        middle_collections(collector.FULL_ANYWAY_AFTER - gc.get_count()[2])
        assert collector.far_overdue()
        app._pace_full_collections()
        assert gc.get_threshold() == cpython
        reading.set()
        await settle(app, pilot)
    assert not collector.deferring()
    assert gc.get_threshold() == cpython  # CPython's own rule for good once the app has ended


async def test_an_app_the_launcher_did_not_start_leaves_the_collector_as_it_was() -> None:
    """Tests and other hosts build the app without the launcher: their collector is theirs."""
    threshold = gc.get_threshold()
    app = fake_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("j")
        assert not collector.deferring()
        assert gc.get_threshold() == threshold
