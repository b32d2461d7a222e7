"""The refund dialog on one PostgreSQL journal: a send on a view that went stale is refused,
with what changed and who changed it, and nothing is sent (docs/money-safety.md, "No money on a
stale view").

The colleague is another executor on its own connection to the journal, stamped as another
machine's paytui. The dashboard's live follower is stopped first: what is tested is the last
line of defence — the send itself — as when the news has not arrived yet (a slow network).
"""

from __future__ import annotations

from decimal import Decimal

import httpx
from textual.widgets import Button

from paytui.actions.journal import Journal
from paytui.actions.ops import refund as refund_op
from paytui.api.queries import ChargeQuery
from tests.actions.support import refunds_of
from tests.actions.test_stale_view import _chargeback
from tests.ui.conftest import frozen_clock, make_app, settle
from tests.ui.team import colleague_executor
from tests.ui.test_money_actions import find, message, modal, open_detail


async def _reviewing(app, pilot, charge_id: str):
    await open_detail(app, pilot, charge_id)
    await pilot.press("r")
    dialog = await modal(app, pilot)
    await settle(app, pilot)
    assert dialog.step == "form"
    amount = dialog.query_one("#amount")
    amount.value = "3.00"
    await pilot.press("enter")  # the review
    await settle(app, pilot)
    assert dialog.step == "review"
    return dialog


async def _reviewed_then_refunded_by_a_colleague(app, pilot, team_journal_url: str):
    """A sale in review in the refund dialog (3.00), then refunded 5.00 by a colleague on the
    same team journal. The live follower is stopped first: the news is late, so only the send
    can catch it."""
    await settle(app, pilot)
    sale = await find(
        app,
        ChargeQuery(charge_type="sale", status="success"),
        lambda c: (c.total_amount or 0) > 20 and not c.chargebacks,
    )
    assert app.actions._watch is not None
    app.actions._watch.close()
    dialog = await _reviewing(app, pilot, sale.charge_id)
    mine = await app.actions.executor()
    with Journal(team_journal_url, clock=frozen_clock) as journal:
        colleague = colleague_executor(mine, journal)
        assert (
            await colleague.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        ).succeeded
    return sale, dialog


async def test_a_colleagues_refund_since_the_review_stops_the_send_and_names_them(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(120, 40)) as pilot:
        sale, dialog = await _reviewed_then_refunded_by_a_colleague(app, pilot, team_journal_url)
        await pilot.press("enter")  # send: refused, nothing sent
        await settle(app, pilot)
        told = message(dialog)
        assert "Nothing was sent: the charge changed since it was read" in told, told
        assert "refunded 5.00 by the dashboard of support-12" in told, told
        left = (sale.total_amount or Decimal(0)) - Decimal("5.00")
        assert f"{left:,.2f} left" in told, told
        assert str(dialog.query_one("#go", Button).label) == "Review again"
        client = await app.get_client()
        assert [r.total_amount for r in await refunds_of(client, sale.charge_id)] == [
            Decimal("5.00")
        ]
        await pilot.press("enter")  # reviewed again: the charge as it is now, nothing sent
        await settle(app, pilot)
        assert dialog.step == "form" and dialog.remaining == left
        assert "by support-12" in str(dialog.query_one("#dialog-info").render())


async def test_a_chargeback_arriving_between_review_and_send_is_shown_and_nothing_sent(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(charge_type="sale", status="success", method="card"),
            lambda c: (c.total_amount or 0) > 20 and not c.chargebacks,
        )
        dialog = await _reviewing(app, pilot, sale.charge_id)
        _chargeback(sandbox_transport, sale.charge_id)
        await pilot.press("enter")
        await settle(app, pilot)
        told = message(dialog)
        assert "a chargeback of 1.00 arrived (open), outside paytui" in told, told
        client = await app.get_client()
        assert await refunds_of(client, sale.charge_id) == []
        await pilot.press("enter")  # review again: a charged-back charge is not refunded
        await settle(app, pilot)
        assert dialog.step == "blocked"
        assert "charged-back" in message(dialog)


async def test_enters_typed_at_once_on_review_again_do_not_send_on_the_state_not_yet_seen(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    """After "Changed since you looked", enter reads the charge again; two enters typed while it
    reads were typed before its new state showed, so they are let go unapplied (said), not
    replayed as a review and a send of a state the person never saw."""
    from tests.ui.test_typing import key_events

    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(120, 40)) as pilot:
        sale, dialog = await _reviewed_then_refunded_by_a_colleague(app, pilot, team_journal_url)
        await pilot.press("enter")  # send: refused, "Review again"
        await settle(app, pilot)
        assert str(dialog.query_one("#go", Button).label) == "Review again"
        dialog.go()  # enter on "Review again": the charge is read again
        assert dialog.step == "loading"
        for key in key_events("\n\n"):  # typed before its new state shows
            app.post_message(key)
        await settle(app, pilot)
        client = await app.get_client()
        assert [r.total_amount for r in await refunds_of(client, sale.charge_id)] == [
            Decimal("5.00")
        ]
        assert dialog.step == "form", (dialog.step, message(dialog))
        assert "2 keys typed before" in message(dialog), message(dialog)
        assert app.held_keys == ()
