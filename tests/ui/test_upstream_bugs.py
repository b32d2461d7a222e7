"""The Textual bugs `paytui.ui.textual_fixes` works around still happen in plain Textual.

Each test here shows a bug on Textual's own classes, without paytui's workaround. When an
upgrade fixes one, its test fails: delete the workaround in `textual_fixes.py` and the test.
(The workarounds themselves are held by the fuzz and the crash tests, tests/ui/test_fuzz_*.py.)
"""

from __future__ import annotations

import pytest
from textual import events
from textual.app import App, ComposeResult, ScreenStackError
from textual.screen import Screen
from textual.widgets import OptionList

from paytui.ui.textual_fixes import DismissOnce, ScreenSwitchGuards


class _Plain(Screen[None]):
    def compose(self) -> ComposeResult:
        yield OptionList("one", "two")


class _Once(DismissOnce, _Plain):
    pass


def test_option_list_page_moves_before_its_first_layout_still_raise() -> None:
    """`GuardedCommandPalette` ignores page moves on a list that has no size yet."""
    options = OptionList("one", "two", "three")
    options.highlighted = 0
    with pytest.raises(KeyError):
        options.action_page_down()


async def test_a_second_dismiss_still_pops_the_screen_beneath() -> None:
    """`DismissOnce`: two closing keys handled before the first pop landed closed two screens."""
    app: App[None] = App()
    async with app.run_test() as pilot:
        await app.push_screen(_Plain())
        top = _Plain()
        await app.push_screen(top)
        top.dismiss()
        top.dismiss()  # the same screen, again: Textual pops whatever is on top
        await pilot.pause()
        assert len(app.screen_stack) == 1  # the screen beneath went too

        guarded = _Once()
        await app.push_screen(_Plain())
        await app.push_screen(guarded)
        guarded.dismiss()
        guarded.dismiss()
        await pilot.pause()
        assert len(app.screen_stack) == 2  # with the workaround: only the one dismissed


async def _key_with_no_screen(app: App[None]) -> None:
    """A key handed to the App inside `switch_mode`'s window (the new mode's stack empty)."""
    stack = app._screen_stacks[app._current_mode]
    saved = list(stack)
    stack.clear()
    try:
        await app.on_event(events.Key("x", "x"))
    finally:
        stack.extend(saved)


async def test_a_key_between_two_mode_stacks_still_ends_a_plain_app() -> None:
    """`ScreenSwitchGuards.on_event`: while `switch_mode` is between two stacks, `App.on_event`
    forwards a key to `self.screen`, which raises; the guarded App drops it."""
    plain: App[None] = App()
    async with plain.run_test():
        with pytest.raises(ScreenStackError):
            await _key_with_no_screen(plain)
    guarded = ScreenSwitchGuards()
    async with guarded.run_test():
        await _key_with_no_screen(guarded)
