"""Snapshots of the accounts screen (grouped by merchant) and an account's detail, 120x40 / 80x24.

Plain `def` tests: `snap_compare` runs its own event loop. Seeded sandbox with its boarding clock
stopped, frozen app clock, workers waited for. Update after checking the SVGs by eye:
`pytest tests/ui/test_accounts_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.sandbox.faults import Faults
from tests.fixtures_sandbox import bound_app
from tests.ui.conftest import SIZES, make_app, wait_for_workers


@pytest.fixture
def still_transport(
    request: pytest.FixtureRequest, sandbox_db: Path, sandbox_faults: Faults
) -> httpx.ASGITransport:
    """The seeded sandbox with its boarding clock stopped (nothing moves unless asked)."""
    return httpx.ASGITransport(app=bound_app(request, sandbox_db, sandbox_faults))


@pytest.mark.parametrize("size", SIZES)
def test_accounts_grouped(
    snap_compare: Any, still_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("3")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(still_transport), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_account_detail(
    snap_compare: Any, still_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("3")
        await wait_for_workers(pilot)
        await pilot.press("enter")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(still_transport), terminal_size=size, run_before=run_before)
