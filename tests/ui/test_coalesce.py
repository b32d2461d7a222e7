"""Messages that flood coalesce (issue 40, item 5): a burst of the charge table's highlights,
as a held `j` or type-ahead makes, reaches the screen as the newest one only (Textual's
`can_replace`, `paytui.ui.messages.Latest`), and two origins never replace each other. Counted
through the screen's own message signal (what it handled), never timed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message

from paytui.ui.app import PaytuiApp
from paytui.ui.messages import Latest
from paytui.ui.widgets.charge_table import ChargeTable
from tests.ui.conftest import settle


def test_only_a_newer_one_of_the_same_kind_and_origin_replaces_a_message() -> None:
    table, other = object(), object()
    older = ChargeTable.Highlighted(1, None, table)
    assert older.can_replace(ChargeTable.Highlighted(2, None, table))
    assert not older.can_replace(ChargeTable.Highlighted(2, None, other))
    assert not older.can_replace(ChargeTable.WindowChanged(0, 9, 99, table))
    assert not older.can_replace(Message())
    assert isinstance(older, Latest) and not ChargeTable.Selected.__mro__.count(Latest)


async def test_a_burst_of_highlights_reaches_the_screen_as_the_newest(
    app_factory: Callable[..., PaytuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        table = screen.query_one(ChargeTable)
        handled: list[tuple[int, Any]] = []

        def seen(message: Message) -> None:
            if isinstance(message, ChargeTable.Highlighted):
                handled.append((message.row, message.origin))

        screen.message_signal.subscribe(screen, seen, immediate=True)
        stranger = object()
        # Posted together (nothing runs between them): 30 from the table, then one from
        # another origin, as a held key's highlights arrive while the screen is busy.
        for row in range(1, 31):
            table.post_message(ChargeTable.Highlighted(row, None, table))
        table.post_message(ChargeTable.Highlighted(99, None, stranger))
        await settle(app, pilot)
        assert handled == [(30, table), (99, stranger)]


async def test_a_burst_of_moves_waits_for_one_look_at_the_rows_refunds(
    app_factory: Callable[..., PaytuiApp],
) -> None:
    """Each highlight and each new window asks for the refunds of the rows on screen after the
    next refresh. A held `j` on a loaded machine asked thousands of times before a frame came,
    and each ran then, one after the other, on the event loop: one look waits at a time now,
    and it reads the window as it is when it runs (the rows' states are still read)."""
    from paytui.ui.screens.charges import ChargeSearchScreen

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ChargeSearchScreen)
        table = screen.query_one(ChargeTable)
        # The first rows' own look may still wait for a refresh (`settle` waits for workers,
        # not for a frame): it would run the method as bound before the count below, and the
        # burst would find it pending and add none. Its turn comes first, as an event.
        for _ in range(100):
            if not screen._refunds_look_pending:
                break
            await pilot.pause()
        assert not screen._refunds_look_pending
        looks: list[int] = []
        look = screen._read_window_refunds_if_shown

        def counted() -> None:
            looks.append(table.cursor_row)
            look()

        screen._read_window_refunds_if_shown = counted  # type: ignore[method-assign]
        for _ in range(30):  # asked together, before any refresh: as a burst of highlights
            screen._read_window_refunds_soon()
        await settle(app, pilot)
        assert len(looks) == 1
        screen._read_window_refunds_soon()  # the look ran: a later move asks again
        await settle(app, pilot)
        assert len(looks) == 2
