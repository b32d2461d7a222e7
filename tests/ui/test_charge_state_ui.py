"""State words in the charge list and the detail heading (issue #26, item 3), on the sandbox."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Static

from paytui.api.models import RefundRequest
from paytui.api.queries import ChargeQuery
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import screen_text, settle
from tests.ui.test_charge_detail import AppFactory, find, open_detail
from tests.ui.test_charges_search import type_query


def heading(screen: ChargeDetailScreen) -> str:
    return str(screen.query_one("#detail-heading", Static).content)


async def test_detail_heading_says_refunded_so_far_and_left(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success", min_amount=Decimal("20")),
            lambda c: c.chargebacks is None and c.return_info is None,
        )
        screen = await open_detail(app, pilot, sale.charge_id)
        left = f"{sale.total_amount:,.2f}"
        assert f"refunded 0.00, {left} left to refund" in heading(screen)
        assert "refunded" not in heading(screen).split("\n")[0]
        await pilot.press("escape")

        client = await app.get_client()
        await client.create_refund(RefundRequest(charge_id=sale.charge_id, total_amount="5.00"))
        screen = await open_detail(app, pilot, sale.charge_id)
        rest = f"{sale.total_amount - Decimal('5.00'):,.2f}"
        assert f"Partly refunded  refunded 5.00, {rest} left to refund" in heading(screen)
        assert screen.refund_position is not None and screen.refund_position.left == Decimal(rest)
        await pilot.press("escape")

        await client.create_refund(RefundRequest(charge_id=sale.charge_id))
        screen = await open_detail(app, pilot, sale.charge_id)
        assert f"Refunded  refunded {left}, 0.00 left to refund" in heading(screen)


async def test_list_rows_show_disputed_and_captured(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("b")  # chargebacks
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        assert table.total > 0
        assert "State" in screen_text(app)
        rows = screen_text(app).splitlines()
        first: Any = table.charge_at(0)
        line = next(row for row in rows if first.charge_id[:8] in row)
        assert any(word in line for word in ("Disputed (open)", "Won", "Lost"))

        auth = await find(app, ChargeQuery(charge_type="authorization", captured=True))
        detail = await open_detail(app, pilot, auth.charge_id)
        assert "Captured" in heading(detail)


async def test_a_charged_back_charge_has_nothing_left_to_refund(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        disputed = await find(app, ChargeQuery(status="chargeback"))
        screen = await open_detail(app, pilot, disputed.charge_id)
        case, _charge, second = heading(screen).split("\n")
        assert case.startswith("Case ")  # the case first: the reason the charge was opened
        word = {"open": "Disputed (open)", "won": "Won", "lost": "Lost"}[
            disputed.chargebacks.items[0].status  # type: ignore[union-attr,index]
        ]
        assert second == f"{word}  refunded 0.00; not refundable"
        assert "left to refund" not in second


async def test_every_row_says_its_refund_state_without_the_cursor_visiting_it(
    app_factory: AppFactory,
) -> None:
    """Refunded in full, in part, and not at all: each row says so (nothing for the last) once
    the rows on screen had their refunds read, the cursor never leaving the top row; at 80
    columns too."""
    from paytui.api.models import CardPaymentMethodRequest, ChargeRequest

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        account = (await client.list_accounts_page(status="approved", limit=1)).items[0]
        card = CardPaymentMethodRequest(card_number="4111111111111111", expiration_date="2030-12")
        full, part, untouched, top = [
            await client.create_charge(
                ChargeRequest(
                    account_id=account.account_id, total_amount=Decimal(amount), payment_method=card
                )
            )
            for amount in ("30.00", "40.00", "50.00", "60.00")
        ]
        await client.create_refund(RefundRequest(charge_id=full.charge_id))
        await client.create_refund(RefundRequest(charge_id=part.charge_id, total_amount="1.00"))
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        assert table.charge_at(0).charge_id == top.charge_id  # the newest first
        assert table.cursor_row == 0

        def row_of(charge_id: str) -> str:
            return next(line for line in screen_text(app).splitlines() if charge_id[:6] in line)

        assert "State" in screen_text(app)
        assert "Refunded" in row_of(full.charge_id)
        assert "Partly refunded" in row_of(part.charge_id)
        assert "refunded" not in row_of(untouched.charge_id).lower()
        assert "?" not in row_of(untouched.charge_id)
        assert table.cursor_row == 0


async def test_a_lost_chargeback_says_lost(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        lost = await find(
            app,
            ChargeQuery(status="chargeback"),
            lambda c: (
                c.chargebacks is not None
                and [item.status for item in c.chargebacks.items or []] == ["lost"]
            ),
        )
        await type_query(pilot, f"id:{lost.charge_id}")
        await pilot.press("enter")
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        assert table.total == 1 and table.charge_at(0).charge_id == lost.charge_id
        rows = screen_text(app).splitlines()
        line = next(row for row in rows if lost.charge_id[:6] in row and "id:" not in row)
        assert "Lost" in line
        assert "Disputed" not in line


async def test_refunds_read_for_one_row_draw_that_row_again_only(
    app_factory: AppFactory, monkeypatch: Any
) -> None:
    """Refunds read of some rows (a window read a few at a time, as a held `j` scrolls rows in)
    draw those rows again, with their new state, and take every other line from the cache."""
    from paytui.charge_state import RefundPosition

    app = app_factory()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ChargeTable)
        screen_text(app)  # every line drawn once
        row = 3
        charge = table.charge_at(row)
        assert charge is not None
        drawn: list[int] = []
        real = ChargeTable._render_row

        def render_row(self: ChargeTable, at: int, width: int, is_cursor: bool) -> Any:
            drawn.append(at)
            return real(self, at, width, is_cursor)

        monkeypatch.setattr(ChargeTable, "_render_row", render_row)
        whole = RefundPosition(refunded=Decimal("1.00"), left=Decimal("0"), count=1, complete=True)
        table.set_refunds_of({charge.charge_id: whole})
        text = screen_text(app)
        assert drawn == [row]
        line = next(line for line in text.splitlines() if charge.charge_id[:6] in line)
        assert "Refunded" in line


async def test_moving_the_window_never_cancels_a_refunds_read_under_way(
    sandbox_transport: Any,
) -> None:
    """One reader follows the rows on screen: a move of the window while its read waits on the
    service (a held `j`: a new window at every key) lets that read finish, and the reader then
    reads the window as it is. Cancelling the read at every move cut its connection and left
    cyclic garbage (its exceptions' tracebacks and frames) that a full collection then walked
    on the event loop. Worker states are read from the screen's messages, never timed."""
    from textual.worker import Worker, WorkerState

    from paytui.charge_state import may_have_refunds
    from tests.ui.conftest import make_app
    from tests.ui.test_charge_detail import HeldRefunds

    held = HeldRefunds(sandbox_transport)
    app = make_app(held)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        table = screen.query_one(ChargeTable)
        states: list[WorkerState] = []

        def seen(message: Any) -> None:
            if isinstance(message, Worker.StateChanged) and message.worker.group == "row-refunds":
                states.append(message.state)

        screen.message_signal.subscribe(screen, seen, immediate=True)
        held.armed = True
        for _ in range(200):  # down a page at a time until a read waits on the service
            if states and states[-1] == WorkerState.RUNNING:
                break
            await pilot.press("pagedown")
            await pilot.pause()
        assert states and states[-1] == WorkerState.RUNNING
        first_window = {charge.charge_id for charge in table.window_charges()}
        await pilot.press("pagedown", "pagedown")  # moved on while the read waits
        await pilot.pause()
        assert {charge.charge_id for charge in table.window_charges()}.isdisjoint(first_window)
        held.release.set()
        await settle(app, pilot)
        assert WorkerState.CANCELLED not in states
        assert states[-1] == WorkerState.SUCCESS
        unread = [
            charge.charge_id
            for charge in table.window_charges()
            if may_have_refunds(charge) and charge.charge_id not in table.refunds
        ]
        assert table.window_charges() and unread == []
