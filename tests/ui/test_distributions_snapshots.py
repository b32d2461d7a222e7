"""Snapshots of the distributions list and a distribution's detail, at 120x40 and 80x24.

Plain `def` tests: `snap_compare` runs its own event loop. Update after checking the SVGs by eye:
`pytest tests/ui/test_distributions_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.ui.conftest import SIZES, make_app, wait_for_workers


@pytest.mark.parametrize("size", SIZES)
def test_distributions_list(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("4")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_distribution_detail(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("4")
        await wait_for_workers(pilot)
        await pilot.press("j", "enter")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)
