"""Snapshots of the charge detail screen, at 120x40 and 80x24: a sale, a chargeback with its
distributions expanded, the JSON view, and an error state.

Plain `def` tests (`snap_compare` runs its own loop). The seeded sandbox (seed 7) and the frozen
clock make the pictures stable; `run_before` finds the charge through the client (by kind, not by
id), opens it, and waits for every worker. Update only after reading the new SVGs:
`pytest tests/ui/test_charge_detail_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from textual.worker import Worker

from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery
from paytui.sandbox.faults import Faults
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.widgets.distribution_tree import DistributionTree
from tests.ui.conftest import SIZES, make_app, wait_for_workers


async def settle(pilot: Any) -> None:
    await wait_for_workers(pilot)


def opener(
    query: ChargeQuery, pick: Callable[[Charge], bool] = lambda charge: True
) -> Callable[[Any], Any]:
    """A `run_before` that opens the first seeded charge matching `query` and `pick`."""

    async def open_charge(pilot: Any) -> ChargeDetailScreen:
        app = pilot.app
        await settle(pilot)
        client = await app.get_client()
        page = await client.search_charges_page(query, limit=100)
        charge = next(c for c in page.items if pick(c))
        screen = ChargeDetailScreen(charge.charge_id)
        await app.push_screen(screen)
        await settle(pilot)
        return screen

    return open_charge


SALE = opener(ChargeQuery(charge_type="sale", status="success"), lambda c: bool(c.invoice_number))
#: The seeded chargeback whose customer is literally `[bold red]Mallory[/]`.
CHARGEBACK = opener(ChargeQuery(status="chargeback"), lambda c: "[" in c.contact_name)


@pytest.mark.parametrize("size", SIZES)
def test_sale(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=SALE)


@pytest.mark.parametrize("size", SIZES)
def test_chargeback_with_distributions(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await CHARGEBACK(pilot)
        workers: list[str] = []  # what the screen's workers did from here, should it fail

        def seen(message: Any) -> None:
            if isinstance(message, Worker.StateChanged):
                workers.append(f"{message.worker.group} {message.state.name}")

        screen.message_signal.subscribe(screen, seen, immediate=True)
        tree = screen.query_one(DistributionTree)
        tree.focus()
        await pilot.pause()
        # The chargebacks panel at the top, the tree (with its chargebacks category) under it.
        chargebacks = screen.query_one("#panel-chargebacks")
        body = screen.query_one("#detail-panels")
        body.scroll_to_widget(chargebacks, top=True, animate=False)
        # Quiet again, not one pause: at load 28 one run's snapshot showed the panels' loading
        # line (a read still running after the focus and the scroll). It did once more, at
        # load 20 with four workers: if the panels still say "Loading", this says what ran.
        await settle(pilot)
        running = [f"{w.group} {w.state.name}" for w in pilot.app.workers]
        assert not body.loading, f"loading after settle; since opened: {workers}; now: {running}"

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_json_view(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await CHARGEBACK(pilot)
        await pilot.press("J")
        await pilot.pause()

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_error_state(
    snap_compare: Any,
    sandbox_transport: httpx.AsyncBaseTransport,
    sandbox_faults: Faults,
    size: tuple[int, int],
) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        sandbox_faults.update({"fail_status": 500, "fail_path_prefix": "/v2/charges/"})
        await pilot.app.push_screen(ChargeDetailScreen("f0b919c1d676142d2f75da78"))
        await settle(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)
