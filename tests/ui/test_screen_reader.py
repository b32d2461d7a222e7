"""Screen-reader mode (docs/accessibility.md): the linear text a screen reader is given.

A whole refund is driven from the keyboard through Textual's pilot, and the lines the one
announcer said (`PaytuiApp.announcer.lines`: what the region at the bottom of each screen shows,
the terminal cursor on the newest) are compared with what a person must hear, in order: where
they are, what has focus, the selected row as a sentence, the dialog's steps, the outcome, the
notification; each once, no spinner frame, no redraw said again.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import LoadingIndicator

from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery, RefundQuery
from paytui.config.connection import Connection
from paytui.ui import format as fmt
from paytui.ui.announcer import SpokenLines
from paytui.ui.app import PaytuiApp
from paytui.ui.launch import build_parser
from tests.ui.conftest import make_app, settle

SALES = ChargeQuery(charge_type="sale", status="success")


@pytest.fixture
def reader_app(
    sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path
) -> Callable[..., PaytuiApp]:
    def build(**kwargs: Any) -> PaytuiApp:
        kwargs.setdefault("journal_path", tmp_path / "journal.sqlite3")
        kwargs.setdefault("screen_reader", True)
        return make_app(sandbox_transport, **kwargs)

    return build


async def refundable_sale(app: PaytuiApp) -> Charge:
    client = await app.get_client()
    page = await client.search_charges_page(SALES, limit=100)
    for charge in page.items:
        refunds = await client.search_refunds_page(RefundQuery(charge_id=charge.charge_id), limit=5)
        if not refunds.items and not charge.chargebacks:
            return charge
    raise AssertionError("no refundable sale in the demo data")


def in_order(lines: list[str], expected: list[str]) -> list[str]:
    """The expected lines not found in `lines` in that order (empty: all were)."""
    missing, at = [], 0
    for want in expected:
        found = next((i for i in range(at, len(lines)) if lines[i] == want), None)
        if found is None:
            missing.append(want)
        else:
            at = found + 1
    return missing


async def test_a_whole_refund_is_read_as_lines_in_order(
    reader_app: Callable[..., PaytuiApp],
) -> None:
    app = reader_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        announcer = app.announcer
        assert announcer is not None
        assert announcer.lines[0] == "Charges."
        # No spinner in this mode: the list's state is said in words instead.
        assert not [i for i in app.screen.query(LoadingIndicator) if i.display]
        sale = await refundable_sale(app)
        amount = fmt.money(sale.total_amount)
        start = len(announcer.lines)
        await pilot.press("slash", *sale.charge_id[:12], "enter")
        await settle(app, pilot)
        await pilot.press("enter")  # open the charge
        await settle(app, pilot)
        await pilot.press("r")  # refund it
        await settle(app, pilot)
        await pilot.press("enter")  # review
        await settle(app, pilot)
        await pilot.press("enter")  # refund
        await settle(app, pilot)
        client = await app.get_client()
        (refund,) = (
            await client.search_refunds_page(RefundQuery(charge_id=sale.charge_id), limit=5)
        ).items
        said = announcer.lines[start:]
        row = next(line for line in said if line.startswith("Results table, list. Row 1 of 1: "))
        for words in (
            f"Charge {sale.charge_id}",
            "Status success",
            "Type sale",
            f"Amount {amount}",
        ):
            assert words in row, (words, row)
        dialog = said[said.index(f"Refund {sale.charge_id}.") :]
        assert not in_order(
            said,
            [
                row,
                f"Charge {sale.charge_id}.",  # the detail, by name
                f"Summary: Charge id {sale.charge_id}",  # then its panels, in reading order
                f"Refund {sale.charge_id}.",  # the dialog, by name
                f"Charged {amount}",  # the charge as read for the dialog
                f"Left {amount}",
                f"Amount, text field, contains {amount}.",  # focus, with what is in the field
                f"Refund {amount} (all that is left) of charge {sale.charge_id}",  # the review
                "Press enter to refund, escape to cancel. This cannot be undone.",
                "Refund, button.",
                "Sending the refund…",
                f"The refund went through: {refund.refund_id}",  # the outcome
                f"Note: Refund: Refunded {amount}: refund {refund.refund_id}",  # the toast
                "Left 0.00",  # the dialog's charge again: only what changed
                f"Refunded {amount} ({refund.refund_id}, 0s ago, by you)",
                "Close, button.",
            ],
        ), said
        # No redraw noise: within the dialog nothing is said twice; nowhere a line twice in a row.
        assert len(set(dialog)) == len(dialog), dialog
        assert all(a != b for a, b in itertools.pairwise(said)), said
        # What the screen reader reads: the region at the bottom, the cursor on its newest line.
        (region,) = app.screen.query(SpokenLines)
        assert str(region.render()).splitlines()[-1] == announcer.lines[-1]
        shown = str(region.render()).splitlines()
        assert app.cursor_position.y == region.content_region.y + len(shown) - 1


async def test_what_is_said_passes_the_display_sanitiser(
    reader_app: Callable[..., PaytuiApp],
) -> None:
    app = reader_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        app.notify("Rename\x1b]2;pwned\x07 \u202eexe.txt", title="Hostile", markup=False)
        await pilot.pause()
        assert app.announcer is not None
        assert app.announcer.lines[-1] == "Note: Hostile: Rename␛]2;pwned␇ \ufffdexe.txt"


async def test_the_mode_is_off_unless_asked(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PAYTUI_SCREEN_READER", raising=False)
    assert make_app(sandbox_transport).announcer is None
    monkeypatch.setenv("PAYTUI_SCREEN_READER", "0")
    assert make_app(sandbox_transport).announcer is None
    monkeypatch.setenv("PAYTUI_SCREEN_READER", "1")
    asked = make_app(sandbox_transport)
    assert asked.announcer is not None and asked.animation_level == "none"


def test_the_flag_and_the_config_ask_for_it(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PAYTUI_SCREEN_READER", raising=False)
    assert build_parser().parse_args(["--screen-reader"]).screen_reader is True
    assert build_parser().parse_args([]).screen_reader is False
    from paytui.config.model import UiPrefs

    connection = Connection(
        profile_name="sandbox",
        environment="sandbox",
        base_url="http://sandbox",
        ui=UiPrefs(screen_reader=True),
    )
    assert make_app(sandbox_transport, connection=connection).announcer is not None
    plain = Connection(profile_name="sandbox", environment="sandbox", base_url="http://sandbox")
    assert make_app(sandbox_transport, connection=plain).announcer is None


async def test_the_command_palettes_matches_are_said_as_the_cursor_reaches_them(
    reader_app: Callable[..., PaytuiApp],
) -> None:
    """The palette's search field keeps the focus while the matches change under it: each
    match the cursor reaches is said, with its place in the list."""
    from textual.command import CommandList

    app = reader_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        await pilot.press("t", "h", "e", "m", "e")
        await settle(app, pilot)
        commands = app.screen.query_one(CommandList)
        count = commands.option_count
        assert count >= 1
        before = len(app.announcer.lines)  # type: ignore[union-attr]
        await pilot.press("down")
        await settle(app, pilot)
        said = app.announcer.lines[before:]  # type: ignore[union-attr]
        highlighted = commands.highlighted
        assert highlighted is not None
        place = f"{highlighted + 1} of {count}"
        assert any(line.endswith(place) for line in said), said
