"""Snapshots of the money-action dialogs and History, at 120x40 and 80x24 (issue 4).

Plain `def` tests (`snap_compare` runs its own loop). The seeded sandbox, the frozen clock (the
journal uses the app's clock) and deterministic new ids (the sandbox's `hex_id` replaced by a
counter) keep the pictures stable. Update only after reading the SVGs:
`pytest tests/ui/test_money_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input, TextArea

from paytui.actions.ops import capture as capture_op
from paytui.actions.ops import labels as labels_op
from paytui.actions.ops import refund as refund_op
from paytui.api.queries import ChargeQuery
from paytui.ui.screens.modals.capture import CaptureModal
from paytui.ui.screens.modals.edit_tags import EditTagsModal
from paytui.ui.screens.modals.refund import RefundModal
from tests.ui.conftest import SIZES, make_app, wait_for_workers

OPEN_AUTHS = ChargeQuery(charge_type="authorization", captured=False, status="success")
SALES = ChargeQuery(charge_type="sale", status="success")


@pytest.fixture(autouse=True)
def stable_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = itertools.count(1)
    monkeypatch.setattr("paytui.sandbox.ledger.hex_id", lambda: f"{next(counter):024x}")
    # What the sandbox writes (a new capture's time) is frozen too: the list shows it on top.
    monkeypatch.setattr(
        "paytui.sandbox.store.Store.now_iso", lambda self: "2026-11-20T18:30:00.000Z"
    )


@pytest.fixture
def snap_app(sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path) -> Any:
    return make_app(sandbox_transport, journal_path=tmp_path / "journal.sqlite3")


async def settle(pilot: Any) -> None:
    await wait_for_workers(pilot)


async def first(
    pilot: Any, query: ChargeQuery, pick: Callable[[Any], bool] = lambda c: True
) -> Any:
    client = await pilot.app.get_client()
    page = await client.search_charges_page(query, limit=100)
    return next(c for c in page.items if pick(c))


async def open_modal(pilot: Any, modal: Any) -> Any:
    await settle(pilot)
    await pilot.app.push_screen(modal)
    await settle(pilot)
    return modal


def capture_form(pilot: Any) -> Any:
    async def run(pilot: Any) -> None:
        auth = await first(pilot, OPEN_AUTHS)
        await open_modal(pilot, CaptureModal(auth.charge_id))

    return run


async def capture_result(pilot: Any) -> None:
    auth = await first(pilot, OPEN_AUTHS)
    dialog = await open_modal(pilot, CaptureModal(auth.charge_id))
    dialog.query_one("#convenience_fee", Input).value = "1.50"
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    await pilot.app.actions.ready.aclose()
    await settle(pilot)


async def refund_field_error(pilot: Any) -> None:
    sale = await first(pilot, SALES, lambda c: (c.total_amount or 0) > 20)
    dialog = await open_modal(pilot, RefundModal(sale.charge_id))
    dialog.query_one("#amount", Input).value = "12.345"
    dialog.query_one("#reason", Input).value = "[bold]customer[/] request"
    await pilot.press("enter")
    await settle(pilot)


async def edit_tags_diff(pilot: Any) -> None:
    charge = await first(pilot, SALES, lambda c: len(c.tags) >= 1)
    dialog = await open_modal(pilot, EditTagsModal(charge.charge_id))
    tags = dialog.query_one("#tags", Input)
    tags.value = ", ".join([*charge.tags[1:], "escalated"])
    # Two values of one key: one line each (a comma is part of a value).
    dialog.query_one("#attributes", TextArea).text = "ticket=T-9\nticket=T-10\nteam=support"
    tags.focus()
    await pilot.press("enter")
    await settle(pilot)


async def history_with_entries(pilot: Any) -> None:
    await settle(pilot)
    app = pilot.app
    executor = await app.actions.executor()
    auth = await first(pilot, OPEN_AUTHS)
    await executor.run("capture", auth.charge_id, capture_op.Params())
    sale = await first(pilot, SALES, lambda c: (c.total_amount or 0) > 20)
    await executor.run(
        "refund", sale.charge_id, refund_op.Params(Decimal("10.00"), reason="partial")
    )
    await executor.run("update_charge", sale.charge_id, labels_op.Params(tags=["escalated"]))
    await pilot.press("5")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_capture_modal(snap_compare: Any, snap_app: Any, size: tuple[int, int]) -> None:
    assert snap_compare(snap_app, terminal_size=size, run_before=capture_form(None))


@pytest.mark.parametrize("size", SIZES)
def test_capture_result(snap_compare: Any, snap_app: Any, size: tuple[int, int]) -> None:
    assert snap_compare(snap_app, terminal_size=size, run_before=capture_result)


@pytest.mark.parametrize("size", SIZES)
def test_refund_modal_field_error(snap_compare: Any, snap_app: Any, size: tuple[int, int]) -> None:
    assert snap_compare(snap_app, terminal_size=size, run_before=refund_field_error)


@pytest.mark.parametrize("size", SIZES)
def test_edit_tags_diff(snap_compare: Any, snap_app: Any, size: tuple[int, int]) -> None:
    assert snap_compare(snap_app, terminal_size=size, run_before=edit_tags_diff)


@pytest.mark.parametrize("size", SIZES)
def test_history_with_entries(snap_compare: Any, snap_app: Any, size: tuple[int, int]) -> None:
    assert snap_compare(snap_app, terminal_size=size, run_before=history_with_entries)
