"""Marks (`paytui.ui.marks`, pure) and "mark all matching" over every page (a fake backend)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from textual.widgets import Static

from paytui.ui.marks import Marks
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import FakeClient, fake_app, screen_text, settle


def _charge(charge_id: str, amount: str | None) -> SimpleNamespace:
    return SimpleNamespace(
        charge_id=charge_id, total_amount=Decimal(amount) if amount is not None else None
    )


def test_marks_are_kept_by_id() -> None:
    marks = Marks()
    a, b = _charge("a", "1.50"), _charge("b", None)
    assert marks.toggle(a) and marks.toggle(b) and "a" in marks
    version = marks.version
    assert not marks.toggle(_charge("a", "1.50"))  # the same id, another copy: unmarks
    assert marks.version > version and "a" not in marks
    assert marks.add([a, b, _charge("c", "2.25")]) == 2
    assert (len(marks), marks.total) == (3, Decimal("3.75"))
    marks.refresh(_charge("a", "9.00"))  # read again on a new page: the newer copy counts
    marks.refresh(_charge("z", "5.00"))  # not marked: ignored
    assert marks.total == Decimal("11.25")
    marks.discard(["a", "nope"])
    assert [c.charge_id for c in marks.charges()] == ["b", "c"]
    assert marks.clear() == 2 and len(marks) == 0


async def test_mark_all_matching_shows_the_count_then_marks_every_page() -> None:
    client = FakeClient(total=250)
    app = fake_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        await pilot.press("M")
        await settle(app, pilot)
        said = [n.message for n in app._notifications]
        assert any("250 charges match this search. Press M again" in m for m in said)
        assert str(screen.query_one("#marks", Static).content) == ""  # nothing marked yet
        await pilot.press("M")
        await settle(app, pilot)
        marks = screen.query_one(ChargeTable).marks
        assert len(marks) == 250  # every page, not only the 100 rows loaded
        assert [offset for _, _, offset in client.calls][-3:] == [0, 100, 200]
        assert str(screen.query_one("#marks", Static).content).startswith("250 marked · ")
        # Seen, not only set: the counter is laid out wide enough for what it says (an
        # invisible mark would change what `C`, `B` and `x` act on).
        shown = screen.query_one("#marks", Static)
        assert shown.size.width >= len(str(shown.content)), shown.size
        assert marks.total == sum(Decimal(10 + i) for i in range(250))


async def test_a_saved_searchs_name_is_shown_as_text_never_as_terminal_codes() -> None:
    """A name from the config with an OSC 2 in it (which retitled the terminal) is shown with
    the escape visible, on the summary line, and sent to the terminal as nothing but text."""
    app = fake_app(FakeClient(total=3))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        screen.run_query_text("status:success", "Saved: \x1b]2;pwned\x07cb")
        await settle(app, pilot)
        shown = str(screen.query_one("#view-name", Static).content)
        assert "\x1b" not in shown and "\x07" not in shown
        assert "pwned" in shown and shown.startswith("Saved: ")


async def test_the_count_beside_the_marks_is_whole_at_80_columns() -> None:
    """Issue 44: at 80 columns, with marks shown, the summary's right side read "Showing 32 of
    94  (rows" (a fixed width cut by the marks beside it) until the terminal was resized."""
    client = FakeClient(total=250)
    app = fake_app(client)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        await pilot.press("M", "M")
        await settle(app, pilot)
        count = str(screen.query_one("#showing", Static).content)
        assert "(rows 1–" in count, count
        summary = next(line for line in screen_text(app).splitlines() if "marked" in line)
        assert "250 marked" in summary and summary.rstrip().endswith(count), summary
