"""The bulk action flow from the keyboard (docs/bulk-actions.md): mark with space, the counter,
marks that survive a re-sort, `U`, the dry run, progress and the summary, and History resuming a
batch a crash left (`T`); the service's records
checked afterwards. The batch logic itself is proven in tests/actions/test_batch.py."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from textual.widgets import ProgressBar, RichLog, Static

from paytui.actions.ops import refund as refund_op
from paytui.api.models import CardPaymentMethodRequest, ChargeRequest
from paytui.api.queries import ChargeQuery
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.screens.modals.bulk import BulkActionModal
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import settle


def _marks(app: Any) -> str:
    return str(app.screen.query_one("#marks", Static).content)


async def test_mark_then_bulk_capture_from_the_keyboard(app_factory: Any, tmp_path: Path) -> None:
    app = app_factory(journal_path=tmp_path / "journal.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("O")  # open authorizations
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        table = screen.query_one(ChargeTable)
        first = [table.charge_at(row) for row in range(3)]
        await pilot.press("space", "space", "space")
        total = sum(c.total_amount for c in first if c is not None)
        assert _marks(app).startswith("3 marked · ") and _marks(app).endswith(f"{total:,.2f}")
        assert table.cursor_row == 3  # space moves on, as k9s does

        await pilot.press("s")  # a re-sort (a new first page) keeps the marks
        await settle(app, pilot)
        assert _marks(app).startswith("3 marked")

        await pilot.press("C")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, BulkActionModal)
        info = str(modal.query_one("#dialog-info", Static).content)
        assert "Capture of 3 authorizations" in info and "skipped" not in info
        assert "Marked: 3 by hand." in info  # how the rows were chosen
        await pilot.press("enter")
        await settle(app, pilot)
        assert modal.query_one(ProgressBar).progress == 3
        # One entry an item (a long line wraps: ids are never cut), each saying its outcome.
        logged = [line.text for line in modal.query_one(RichLog).lines]
        assert sum(line.startswith("succeeded") for line in logged) == 3, logged
        summary = str(modal.query_one("#bulk-summary", Static).content)
        assert summary.startswith("Capture: 3 done"), summary
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and _marks(app) == ""  # what was done is unmarked

        client = await app.get_client()
        for charge in first:
            assert charge is not None
            page = await client.search_charges_page(
                ChargeQuery(original_charge_id=charge.charge_id), limit=10
            )
            assert len(page.items) == 1

        # The dry run names what it skips (these are captured now), and U clears the marks.
        await pilot.press("a")
        await settle(app, pilot)
        await pilot.press("space", "space")
        assert _marks(app).startswith("2 marked")
        await pilot.press("U")
        assert _marks(app) == ""

        # The account's recent charges mark the same way; the dry run names what it skips.
        from paytui.ui.screens.account_detail import AccountDetailScreen

        await app.push_screen(AccountDetailScreen(first[0].account_id or ""))
        await settle(app, pilot)
        await pilot.press("space", "space")
        title = str(app.screen.query_one("#recent-title", Static).content)
        assert title.startswith("Recent charges · 2 marked · ")
        await pilot.press("C")
        await settle(app, pilot)
        assert isinstance(app.screen, BulkActionModal)
        plan = app.screen.plan
        assert plan.count + len(plan.skipped) == 2
        await pilot.press("escape")  # nothing sent
        await settle(app, pilot)
        await pilot.press("U", "escape")
        await settle(app, pilot)

        # A batch a crash left (recorded, nothing sent yet): History offers it, T resumes it.
        card = CardPaymentMethodRequest(card_number="4111111111111111", expiration_date="2030-12")
        sales = [
            await client.create_charge(
                ChargeRequest(
                    account_id=first[0].account_id or "",
                    total_amount=Decimal(amount),
                    payment_method=card,
                )
            )
            for amount in ("3.10", "4.20")
        ]
        log = await app.actions.batch_log()
        executor = await app.actions.executor()
        left = log.create(
            profile=executor.profile,
            base_url=executor.base_url,
            operation="refund",
            journal_mark=executor.journal.last_id(),
            items=[(c.charge_id, c.total_amount) for c in sales],
            now=app.now(),
        )
        # The kill came after the first item's refund went through, before the batch log said
        # so: the journal has it, and the banner counts it done (1 left, not 2).
        assert (await executor.run("refund", sales[0].charge_id, refund_op.Params(None))).succeeded
        await pilot.press("5")
        await settle(app, pilot)
        status = str(app.screen.query_one("#history-status", Static).content)
        assert f"#{left.id} stopped with 1 of 2 left: T resumes it" in status
        await pilot.press("T")
        await settle(app, pilot)
        resume = app.screen
        assert isinstance(resume, BulkActionModal)
        # Its dry run reads both as they are now: the first has nothing left to refund (and
        # says who refunded it), so only the second is offered.
        dry_run = str(resume.query_one("#dialog-info", Static).content)
        assert "Full refund of 1 charge: total 4.20" in dry_run, dry_run
        assert f"{sales[0].charge_id}: nothing left to refund; refunded 3.10 by" in dry_run
        await pilot.press("enter")
        await settle(app, pilot)
        assert str(resume.query_one("#bulk-summary", Static).content).startswith(
            "Full refund: 2 done"
        )
        assert log.resumable(profile=executor.profile, base_url=executor.base_url) == []


def test_the_dry_run_breaks_its_lines_and_keeps_the_data_literal() -> None:
    """Skipped charges stand one a line (a line break is layout, never shown as ␊), while a
    reason or id from the service stays literal text (its own control characters visible)."""
    from paytui.actions.batch import BatchPlan, Skipped
    from paytui.ui.screens.modals.bulk import dry_run_text

    plan = BatchPlan(
        "refund",
        (("ch_1", Decimal("5.00")),),
        (Skipped("ch_2", "a chargeback"), Skipped("ch_3", "odd\nreason")),
    )
    lines = dry_run_text(plan, needs_phrase=False).plain.splitlines()
    assert "  ch_2: a chargeback" in lines
    assert "  ch_3: odd␊reason" in lines
    assert not any(line.endswith("␊") for line in lines)


def test_the_dry_run_names_each_reason_once_and_its_numbers_add_up() -> None:
    """Eleven skipped for one reason and one for another: each reason once with its count,
    at most `SHOWN_SKIPPED` ids named, the rest counted beside them."""
    from paytui.actions.batch import BatchPlan, Skipped
    from paytui.ui.screens.modals.bulk import SHOWN_SKIPPED, dry_run_text

    back = "A charged-back charge cannot be refunded: the money already went back"
    skipped = [Skipped(f"cb_{n:02}", back) for n in range(11)] + [Skipped("ch_x", "declined")]
    plan = BatchPlan("refund", (), tuple(skipped))
    lines = dry_run_text(plan, needs_phrase=False).plain.splitlines()
    assert "12 marked will be skipped:" in lines
    assert lines.count(f"  {back} (11)") == 1
    named = ", ".join(f"cb_{n:02}" for n in range(SHOWN_SKIPPED))
    assert f"    {named}, … and {11 - SHOWN_SKIPPED} more" in lines
    assert lines[-1] == "  … and 1 more"  # the other reason's one charge, counted


async def test_the_dry_run_of_seven_chargebacks_fits_80x24_with_every_one_named(
    app_factory: Any,
) -> None:
    """Issue 44: `/status:cb amount>=1000`, enter, `M`, `M`, `B` at 80x24 said "7 marked will
    be skipped" and showed 6, each reason wrapped onto two lines, the dialog cut short."""
    from tests.ui.conftest import screen_text

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"status:cb amount>=1000", "enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        table = screen.query_one(ChargeTable)
        ids = [c.charge_id for c in (table.charge_at(r) for r in range(table.total)) if c]
        assert len(ids) == 7, ids
        await pilot.press("M", "M")
        await settle(app, pilot)
        await pilot.press("B")
        await settle(app, pilot)
        assert isinstance(app.screen, BulkActionModal)
        shown = screen_text(app)
        assert "7 marked will be skipped" in shown and "(7)" in shown
        assert all(charge_id in shown for charge_id in ids), shown
        assert "escape closes" in shown  # the dialog's last line: nothing below it was cut


async def test_the_progress_log_never_cuts_an_id_at_80_columns() -> None:
    """At 80x24 an item's line is longer than the log: it wraps, and the new refund's id is
    shown whole (it was cut to 23 of 24 characters, with no ellipsis)."""
    from paytui.actions.batch import BatchPlan
    from paytui.actions.batch_log import BatchItem
    from tests.ui.conftest import fake_app, screen_text

    app = fake_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        dialog = BulkActionModal(BatchPlan("refund", (("a" * 24, Decimal("5.00")),)))
        app.push_screen(dialog)
        await settle(app, pilot)
        dialog._set_step("running")
        refund_id = "0123456789abcdef01234567"
        dialog._item_done(
            BatchItem(
                1,
                "a" * 24,
                Decimal("5.00"),
                "succeeded",
                7,
                refund_id,
                f"Refunded 5.00 of what was left after earlier refunds: refund {refund_id}",
            )
        )
        await settle(app, pilot)
        assert refund_id in screen_text(app).replace("\n", " ")
