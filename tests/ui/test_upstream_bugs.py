"""The Textual bugs `paytui.ui.textual_fixes` works around still happen in plain Textual.

Each test here shows a bug on Textual's own classes, without paytui's workaround. When an
upgrade fixes one, its test fails: delete the workaround in `textual_fixes.py` and the test.
(The workarounds themselves are held by the fuzz and the crash tests, tests/ui/test_fuzz_*.py.)
"""

from __future__ import annotations

import gc
import weakref
from collections import Counter
from typing import Any

import pytest
from textual import events
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult, ScreenStackError
from textual.color import Color
from textual.screen import Screen
from textual.widgets import Button, OptionList

from paytui.ui.textual_fixes import (
    UPSTREAM_INNER_OUTER,
    DialogButton,
    DismissOnce,
    ScreenSwitchGuards,
)
from tests.ui.test_pulse_screen import drawn_as_it_resumes, laid_out_by_resize


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


class _OneButton(App[None]):
    def __init__(self, button: Button) -> None:
        super().__init__()
        self.button = button
        self.presses = 0

    def compose(self) -> ComposeResult:
        yield self.button

    def on_button_pressed(self) -> None:
        self.presses += 1


async def _press_ask_again_press(button: Button) -> int:
    """Enter on a button; it is disabled (sending), enabled again and relabelled (a refusal:
    a new question); enter again. How many presses arrived. The press's look lasts long here,
    so the test does not depend on how fast the machine gets to the second enter."""
    button.active_effect_duration = 60
    app = _OneButton(button)
    async with app.run_test() as pilot:
        button.focus()
        await pilot.press("enter")
        button.disabled = True
        await pilot.pause()
        button.disabled = False
        button.label = "Review again"
        button.focus()
        await pilot.press("enter")
        await pilot.pause()
        return app.presses


async def test_a_button_asked_anew_still_drops_the_enter_within_its_press_look() -> None:
    """`DialogButton`: a plain `Button` ignores enter while it shows its last press ("-active"),
    though it was disabled, enabled and relabelled since; a dialog's next answer was lost."""
    assert await _press_ask_again_press(Button("Refund")) == 1  # the second enter dropped
    assert await _press_ask_again_press(DialogButton("Refund")) == 2


class _StyledScreen(Screen[None]):
    CSS = "_StyledScreen { background: $primary; }"


class _ModesApp(App[None]):
    MODES = {"main": _StyledScreen}
    DEFAULT_MODE = "main"


async def test_a_first_mode_screen_still_parses_every_stylesheet_again(
    css_parses: Counter[tuple[object, ...]],
) -> None:
    """`ParsedOnceStylesheet`: a mode's first screen with CSS of its own re-parsed every source."""
    app = _ModesApp()
    async with app.run_test() as pilot:
        await pilot.pause()
    assert max(css_parses.values()) >= 3


def _kept_after_backgrounds(get_inner_outer: object) -> bool:
    """Is a widget's drawing cache still alive once the widget is gone, after its backgrounds
    were asked of `get_inner_outer`?"""
    cache = StylesCache()
    get_inner_outer(cache, Color(1, 2, 3), Color(4, 5, 6))  # type: ignore[operator]
    ref = weakref.ref(cache)
    del cache
    gc.collect()
    return ref() is not None


def test_a_widgets_backgrounds_still_keep_its_drawing_cache_alive() -> None:
    """`inner_outer`: upstream's cache of a widget's two backgrounds is keyed by its
    `StylesCache`, which then outlives the widget (up to 1,024 of them, every line they drew);
    paytui's, set on the class, is keyed by the colours alone."""
    assert _kept_after_backgrounds(UPSTREAM_INNER_OUTER)
    assert not _kept_after_backgrounds(StylesCache.get_inner_outer)


def resumes_noted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Screen[Any], bool]]:
    """Each `ScreenResume` a screen handles from now on, with its `refresh_styles` as Textual's
    own handler reads it (after `StyledAtMount`'s, which runs first)."""
    resumed: list[tuple[Screen[Any], bool]] = []
    real = Screen._on_screen_resume

    def on_screen_resume(self: Screen[Any], event: events.ScreenResume) -> None:
        resumed.append((self, event.refresh_styles))
        real(self, event)

    monkeypatch.setattr(Screen, "_on_screen_resume", on_screen_resume)
    return resumed


async def test_a_screens_first_resume_still_styles_every_node_styled_as_it_mounted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`StyledAtMount`: a pushed screen's nodes are styled as they are registered, and its
    first `ScreenResume` asks for every node to be styled again (`refresh_styles=True`)."""
    resumed = resumes_noted(monkeypatch)
    app: App[None] = App()
    async with app.run_test() as pilot:
        screen = _Plain()
        await app.push_screen(screen)
        await pilot.pause()
        assert (screen, True) in resumed


async def test_a_shown_screen_is_still_drawn_as_it_resumes_then_asked_whole_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`LaidOutOnce`: Textual's resume lays a pushed screen out, which draws it whole in the
    push's step, then asks for the whole screen drawn again (`refresh()`)."""
    noted = drawn_as_it_resumes(monkeypatch)
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _Plain()
        await app.push_screen(screen)
        await pilot.pause()
        assert [what for what, drawn in noted if drawn is screen] == ["draw", "refresh"]


async def switched(app: App[Any], pilot: Any, *modes: str) -> None:
    """Switch to each of `modes` in turn, each switch's messages handled."""
    for mode in modes:
        await app.switch_mode(mode)
        await pilot.pause()


async def test_a_screen_shown_again_by_a_mode_switch_is_still_styled_again_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`StyledWhileHidden`: a mode switched back to resumes its screen with
    `refresh_styles=True` (every node styled again) though nothing changed while it was
    hidden."""
    resumed = resumes_noted(monkeypatch)

    class Modes(App[None]):
        MODES = {"a": _Plain, "b": _Plain}

    app = Modes()
    async with app.run_test() as pilot:
        await switched(app, pilot, "a")
        shown = app.screen
        await switched(app, pilot, "b")
        resumed.clear()
        await switched(app, pilot, "a")
        assert app.screen is shown and resumed == [(shown, True)]


async def test_a_shown_screen_is_still_laid_out_again_at_the_same_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`LaidOutOnce`: Textual lays a pushed screen out as it resumes, and again, at the same
    size, for the `Resize` that layout sends the screen itself."""
    laid_out = laid_out_by_resize(monkeypatch, _Plain)
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(_Plain())
        await pilot.pause()
        assert laid_out == [(80, 24)]


async def _held_after_switch(app: App[Any], pilot: Any) -> list[bool]:
    """Whether the display is held (`App._batch_count`: `delay_update`) right after each
    `switch_mode`: to `b` never shown, back to `a`, then to `b` again (shown before)."""
    held = []
    for mode in ("b", "a", "b"):
        await app.switch_mode(mode)
        held.append(app._batch_count > 0)
        await pilot.pause()
        while app._batch_count:  # the hold's timer ends it
            await pilot.pause()
    return held


async def test_a_switch_to_a_screen_shown_before_still_holds_its_frame() -> None:
    """`ScreenSwitchGuards.switch_mode`: plain Textual holds the display after every mode
    switch, also to a screen drawn before (laid out and drawn in the switch itself); the
    guarded App holds it for a screen never shown only."""

    class Plain(App[None]):
        MODES = {"a": _Plain, "b": _Plain}

    class Guarded(ScreenSwitchGuards):
        MODES = {"a": _Plain, "b": _Plain}

    plain = Plain()
    async with plain.run_test() as pilot:
        await switched(plain, pilot, "a")
        assert await _held_after_switch(plain, pilot) == [True, True, True]
    guarded = Guarded()
    async with guarded.run_test() as pilot:
        await switched(guarded, pilot, "a")
        assert await _held_after_switch(guarded, pilot) == [True, False, False]


def test_a_strip_cut_at_its_own_length_still_holds_itself() -> None:
    """`divide`: upstream caches `[strip]` in the strip's own cache when it is cut at its own
    length (a reference cycle: freed by the cyclic collector only); paytui's caches nothing
    then, and cuts a strip elsewhere as upstream does."""
    from rich.segment import Segment
    from textual.strip import Strip

    from paytui.ui.textual_fixes import UPSTREAM_DIVIDE

    plain = Strip([Segment("abcdef")])
    assert UPSTREAM_DIVIDE(plain, [6]) == [plain]
    assert plain._divide_cache.get((6,)) == [plain]  # the strip, in its own cache

    fixed = Strip([Segment("abcdef")])
    assert fixed.divide([6]) == [fixed]
    assert fixed._divide_cache.get((6,)) is None
    assert [part.text for part in fixed.divide([2, 6])] == ["ab", "cdef"]
    assert [part.text for part in fixed.divide([2, 6])] == [
        part.text for part in UPSTREAM_DIVIDE(Strip([Segment("abcdef")]), [2, 6])
    ]


async def test_a_stopped_timer_still_makes_the_call_its_turn_posted() -> None:
    """`set_timer` wraps its callback in `call_next`: the timer's turn posts the call to the
    node's queue, and `Timer.stop()` after that does not take it back (`textual_fixes.Late`)."""
    calls: list[str] = []
    app = App[None]()
    async with app.run_test() as pilot:
        timer = app.set_timer(60, lambda: calls.append("called"))
        await timer._tick(next_timer=0.0, count=1)  # its turn: the call posted, not yet made
        timer.stop()  # the work it was for ended
        await pilot.pause()
    assert calls == ["called"]
