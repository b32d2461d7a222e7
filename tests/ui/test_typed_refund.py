"""A refund or capture typed in one burst, as a support agent types it: it completes, once, for
the amount typed, and the dialog says so.

`r`, the amount, enter (review) and enter (send) typed at once: every key after `r` is for the
dialog `r` opens, and the dialog can take them only once it has read the charge (its form shows
then, the amount field focused with what is left in it, selected). Before, they reached the
dialog while it was still reading: the amount typed was dropped and so were the enters, so the
refund was never sent — or, with the read ending between two keys, the enters found the form
filled with the whole amount left and sent a full refund instead of the one typed. Now they wait
(`paytui.ui.held_keys`, `OPENS_A_SCREEN`) and go to the form in order.

Keys are posted into the app's queue at once (`type_text` of `tests/ui/test_typing.py`), alone
and while a worker keeps the event loop busy; the server's refunds are counted afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.modals.bulk import BulkActionModal
from paytui.ui.screens.modals.confirm import MoneyActionModal
from tests.ui.conftest import settle
from tests.ui.test_exactly_once import unrefunded_sale
from tests.ui.test_money_actions import message, open_detail, refunds_of
from tests.ui.test_typing import BOTH_MODES, type_text

pytestmark = pytest.mark.asyncio

AppFactory = Callable[..., PaytuiApp]


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def sent_once(dialog: object) -> None:
    assert isinstance(dialog, MoneyActionModal), type(dialog)
    assert dialog.step == "result", (dialog.step, message(dialog))
    assert "The refund went through" in message(dialog)


async def _check_one_refund(app: PaytuiApp, sale: Charge, amount: str) -> None:
    refunds = await refunds_of(app, sale.charge_id)
    assert [r.total_amount for r in refunds] == [Decimal(amount)]


async def sale_listed_alone(app: PaytuiApp, pilot: Any) -> Charge:
    """A sale with nothing refunded, the only row of the charge list (the cursor on it)."""
    await settle(app, pilot)
    sale = await unrefunded_sale(app)
    await app.open_charge_search(ChargeQuery(charge_id=sale.charge_id))
    await settle(app, pilot)
    return sale


async def typed(app: PaytuiApp, pilot: Any, text: str, mode: str) -> None:
    """`text` typed in one burst (`type_text`), and the app settled after it."""
    await type_text(app, pilot, text, mode)
    await settle(app, pilot)


@pytest.mark.parametrize("mode", BOTH_MODES)
async def test_a_partial_refund_typed_at_once_on_the_detail_is_sent_once(
    app_factory: AppFactory, journal: Path, mode: str
) -> None:
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await unrefunded_sale(app)
        await open_detail(app, pilot, sale.charge_id)
        await typed(app, pilot, "r10\n\n", mode)
        sent_once(app.screen)
        await _check_one_refund(app, sale, "10.00")


@pytest.mark.parametrize("mode", BOTH_MODES)
async def test_a_full_refund_typed_at_once_from_the_list_is_sent_once(
    app_factory: AppFactory, journal: Path, mode: str
) -> None:
    """`r enter enter` on the list: the refund dialog of the highlighted charge takes both
    enters (review, send); the first one never opens the charge beneath it."""
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        sale = await sale_listed_alone(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        assert screen.check_action("refund", ()) is True
        await typed(app, pilot, "r\n\n", mode)
        assert [type(s) for s in app.screen_stack][-2] is ChargeSearchScreen
        sent_once(app.screen)
        await _check_one_refund(app, sale, str(sale.total_amount))


@pytest.mark.parametrize("mode", BOTH_MODES)
async def test_open_and_refund_typed_at_once_from_the_list(
    app_factory: AppFactory, journal: Path, mode: str
) -> None:
    """enter (open the charge), `r`, the amount, enter, enter: all in one burst."""
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        sale = await sale_listed_alone(app, pilot)
        await typed(app, pilot, "\nr7.50\n\n", mode)
        assert isinstance(app.screen_stack[-2], ChargeDetailScreen)
        sent_once(app.screen)
        await _check_one_refund(app, sale, "7.50")


@pytest.mark.parametrize("mode", BOTH_MODES)
async def test_a_capture_typed_at_once_on_the_authorization_is_sent_once(
    app_factory: AppFactory, journal: Path, mode: str
) -> None:
    """`c enter enter` on an open authorization: reviewed, then captured, once."""
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        query = ChargeQuery(charge_type="authorization", captured=False, status="success")
        (auth,) = (await client.search_charges_page(query, limit=1)).items
        await open_detail(app, pilot, auth.charge_id)
        await typed(app, pilot, "c\n\n", mode)
        dialog = app.screen
        assert isinstance(dialog, MoneyActionModal), type(dialog)
        assert dialog.step == "result", (dialog.step, message(dialog))
        assert "The capture went through" in message(dialog)
        captures = await client.search_charges_page(
            ChargeQuery(original_charge_id=auth.charge_id), limit=10
        )
        assert dialog.outcome is not None
        assert [c.charge_id for c in captures.items] == [dialog.outcome.result_id]


@pytest.mark.parametrize("mode", BOTH_MODES)
async def test_mark_and_a_bulk_refund_typed_at_once_start_it_once(
    app_factory: AppFactory, journal: Path, mode: str
) -> None:
    """`space B enter` on the list: the enter waits for the dry run and starts it (it was
    dropped while the dialog read the charges); the marked charge is refunded in full, once."""
    app = app_factory(journal_path=journal)
    async with app.run_test(size=(120, 40)) as pilot:
        sale = await sale_listed_alone(app, pilot)
        await typed(app, pilot, " B\n", mode)
        dialog = app.screen
        assert isinstance(dialog, BulkActionModal), type(dialog)
        assert dialog.step == "done", dialog.step
        await _check_one_refund(app, sale, str(sale.total_amount))
