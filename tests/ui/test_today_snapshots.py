"""Snapshots of Today (`0`) at 120x40 and 80x24, in UTC (the due column is local time).

Plain `def` tests: `snap_compare` runs its own event loop. Update after checking the SVGs by eye:
`pytest tests/ui/test_today_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.ui.conftest import SIZES, make_app, wait_for_workers


@pytest.mark.parametrize("size", SIZES)
def test_today(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int], utc: None
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("0")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


def test_todays_pulse_with_the_dispute_ratio_at_full_width(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, utc: None
) -> None:
    """Wide enough for every figure of the ratio's rows (the day pulse above it, the queue's
    first rows below), at the frozen clock: November 2026 to the 20th."""

    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("0")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=(180, 30), run_before=run_before)
