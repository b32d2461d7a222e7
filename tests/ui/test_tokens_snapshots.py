"""Snapshots of the Tokens screen, the token form with errors and the New charge form, at 120x40
and 80x24. Plain `def` tests (`snap_compare` runs its own loop); seeded sandbox, frozen clock.

The card number typed into the forms must never appear in an SVG: the test asserts it, and
``grep -r 4111111111111111 tests/ui/__snapshots__`` finds nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input

from paytui.ui.widgets.card_input import CardInput
from tests.ui.conftest import SIZES, make_app, wait_for_workers

BAD_NUMBER = "4111111111111112"  # fails Luhn
SNAPSHOTS = Path(__file__).parent / "__snapshots__" / "test_tokens_snapshots"


@pytest.mark.parametrize("size", SIZES)
def test_tokens_list(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("2")
        await wait_for_workers(pilot)
        await pilot.press("j", "j")
        await pilot.pause()

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_token_form_with_errors(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("2")
        await wait_for_workers(pilot)
        await pilot.press("N")
        await wait_for_workers(pilot)
        form = pilot.app.screen
        form.query_one("#card", CardInput).type_digits(BAD_NUMBER)
        form.query_one("#expiry", Input).value = "2026-13"
        form.query_one("#first", Input).value = "Ada"
        form.query_one("#country", Input).value = "USA"
        await pilot.press("ctrl+s")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_new_charge_form(
    snap_compare: Any, sandbox_transport: httpx.AsyncBaseTransport, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await wait_for_workers(pilot)
        await pilot.press("n")
        await wait_for_workers(pilot)
        form = pilot.app.screen
        form.query_one("#amount", Input).value = "25.50"
        form.query_one("#card", CardInput).type_digits("4111111111111111")
        form.query_one("#expiry", Input).value = "2029-04"
        form.query_one("#first", Input).value = "Ada"
        form.query_one("#last", Input).value = "Lovelace"
        form.query_one("#amount", Input).focus()
        await pilot.pause()

    assert snap_compare(make_app(sandbox_transport), terminal_size=size, run_before=run_before)


def test_no_snapshot_holds_a_card_number() -> None:
    for svg in SNAPSHOTS.glob("*.svg"):
        text = svg.read_text()
        assert "4111111111111111" not in text
        assert BAD_NUMBER not in text
