"""What a screen's first visit would pay is paid after the first page (`paytui.ui.warm_up`).

Through events and counts, never time: the warm-up's end (`WarmUp.done`), the parses the App's
stylesheet holds, and the parses a first visit makes (Textual's parser counted: `css_parses`).
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paytui.ui import warm_up
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.tokens import TokensScreen
from paytui.ui.warm_up import QUIET, WarmUp
from tests.ui.conftest import settle


async def first_page_shown(app: PaytuiApp) -> None:
    """The start-up's deferred work ran (`after_start`: the warm-up is made then)."""
    shown = asyncio.Event()
    app.after_start(shown.set)
    await asyncio.wait_for(shown.wait(), timeout=60)


def css_file(screen: type[Any]) -> str:
    return os.path.abspath(str(screen.CSS_PATH))


async def test_after_the_first_page_a_screens_css_is_parsed_and_its_first_visit_parses_none(
    app_factory: Callable[..., PaytuiApp],
    monkeypatch: pytest.MonkeyPatch,
    css_parses: Counter[tuple[object, ...]],
) -> None:
    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    app = app_factory()  # the product's app, as it starts: the warm-up is on
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await first_page_shown(app)
        assert app.warm_up is not None
        await asyncio.wait_for(app.warm_up.done.wait(), timeout=60)

        sheet = app.stylesheet
        path = css_file(TokensScreen)
        # Parsed, not added: a screen's CSS file applies to every screen once it is added.
        assert not sheet.has_source(path)
        key = (Path(path).read_text(encoding="utf-8"), (path, ""), False, 0, "")
        assert sheet._parse_cache.get(key)
        before = Counter(css_parses)

        await pilot.press("2")
        await settle(app, pilot)
        assert isinstance(app.screen, TokensScreen)
        assert sheet.has_source(path)
        # The first visit added the screen's CSS and its widgets', and parsed none of it.
        assert css_parses == before


async def test_the_warm_up_waits_while_keys_are_typed(
    app_factory: Callable[..., PaytuiApp],
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = app.last_typed
        await pilot.press("j")
        typed = app.last_typed
        assert typed > before
        assert WarmUp(app, modules=(), clock=lambda: typed + QUIET / 2).busy()
        assert not WarmUp(app, modules=(), clock=lambda: typed + QUIET).busy()


async def test_in_screen_reader_mode_the_warm_up_says_nothing(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    app = app_factory(screen_reader=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await first_page_shown(app)
        await settle(app, pilot)  # what the start-up's deferred work set off, said first
        assert app.announcer is not None and app.warm_up is not None
        said = list(app.announcer.lines)
        screens = list(app.screen_stack)
        await asyncio.wait_for(app.warm_up.done.wait(), timeout=60)
        await settle(app, pilot)
        assert app.announcer.lines == said
        assert list(app.screen_stack) == screens
