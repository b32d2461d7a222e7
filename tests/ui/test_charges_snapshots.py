"""Snapshots of the charge search screen and the help screen, at 120x40 and 80x24.

Plain `def` tests: `snap_compare` runs its own event loop. Seeded sandbox, frozen clock, and a
`run_before` that waits for the workers, so a snapshot never catches a half-loaded page.
Update after checking the new SVGs by eye: `pytest tests/ui/test_charges_snapshots.py
--snapshot-update`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from paytui.ui.app import PaytuiApp
from paytui.ui.widgets.query_input import QueryInput
from tests.ui.conftest import SIZES, frozen_clock, make_app, wait_for_workers


def never_connecting_app() -> PaytuiApp:
    """An app whose connection never completes: the loading state holds still."""

    async def factory() -> Any:
        await asyncio.Event().wait()

    return PaytuiApp(factory, clock=frozen_clock)


@pytest.mark.parametrize("size", SIZES)
def test_charge_list_loaded(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("j", "j")

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_loading_state(snap_compare: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        pilot.app.animation_level = "none"
        await pilot.pause()

    assert snap_compare(never_connecting_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_empty_result(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("slash")
        pilot.app.screen.query_one(QueryInput).insert_text_at_cursor("tag:no-such-tag")
        await pilot.press("enter")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_error_state(
    snap_compare: Any,
    sandbox_transport: httpx.AsyncBaseTransport,
    sandbox_faults: Any,
    size: tuple[int, int],
) -> None:
    sandbox_faults.fail_status = 500
    sandbox_faults.fail_path_prefix = "/v2/charges"
    assert snap_compare(
        make_app(sandbox_transport), terminal_size=size, run_before=wait_for_workers
    )


@pytest.mark.parametrize("size", SIZES)
def test_help_screen(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)
