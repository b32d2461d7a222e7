"""The pilot's wait for the screen (`tests/ui/screen_wait.py`): a widget stuck in a handler is
named in the failure, with where it awaits; once it is let go, the same wait ends by itself."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.message import Message
from textual.widgets import Static

from tests.ui.screen_wait import explained_wait


class Hold(Message):
    """Asks the widget to wait for its release inside the handler."""


class Stuck(Static):
    def __init__(self) -> None:
        super().__init__("stuck", id="stuck")
        self.release = asyncio.Event()
        self.entered = asyncio.Event()

    async def on_hold(self, message: Hold) -> None:
        self.entered.set()
        await self.release.wait()


class Tiny(App[None]):
    def compose(self) -> ComposeResult:
        yield Stuck()


def test_a_wait_that_gives_up_names_the_busy_widget_and_where_it_awaits() -> None:
    # In an event loop of its own: held inside pytest-asyncio's loop, the handler did not
    # start here (not understood); run alone, as a script, it does.
    asyncio.run(_a_wait_that_gives_up())


async def _a_wait_that_gives_up() -> None:
    app = Tiny()
    async with app.run_test() as pilot:
        stuck = app.query_one(Stuck)
        stuck.post_message(Hold())
        await stuck.entered.wait()  # the handler runs and holds: an event, not a time
        # The timeout is the subject here: a short one, not Textual's 30 s.
        with pytest.raises(AssertionError) as failed:
            await explained_wait(pilot, timeout=0.1)
        said = str(failed.value)
        assert "Stuck(id='stuck')" in said and "1 queued" in said, said
        assert "on_hold" in said, said  # where its handler awaits
        stuck.release.set()
        assert await explained_wait(pilot) is True  # let go: the wait ends on its event
