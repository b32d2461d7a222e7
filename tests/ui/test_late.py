"""`textual_fixes.Late`: a call after a delay, never once stopped, even when already posted."""

from __future__ import annotations

import asyncio

from textual.app import App

from paytui.ui.textual_fixes import Late
from tests.ui.conftest import HANG_GUARD


async def test_a_call_whose_turn_was_posted_is_not_made_once_stopped() -> None:
    """The race that left the charge detail on "Loading..." for good: the delay's turn posts
    the call (as `set_timer` does, `call_next`), the work ends and stops it, then the call's
    turn comes."""
    calls: list[str] = []
    app = App[None]()
    async with app.run_test() as pilot:
        late = Late(app, 60, lambda: calls.append("late"))
        app.call_next(late._due)  # the timer's turn: the call posted
        late.stop()
        await pilot.pause()
    assert calls == []


async def test_a_call_not_stopped_is_made_after_its_delay() -> None:
    calls: list[str] = []
    made = asyncio.Event()

    def call() -> None:
        calls.append("late")
        made.set()

    app = App[None]()
    async with app.run_test():
        Late(app, 0.001, call)
        await asyncio.wait_for(made.wait(), HANG_GUARD)  # however long a loaded machine takes
    assert calls == ["late"]
