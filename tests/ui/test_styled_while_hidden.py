"""A screen shown again by a mode switch is styled again only when what styles it changed while
it was hidden (`textual_fixes.StyledWhileHidden`); what Textual restyles on the screens in front
only (the App's classes, the stylesheet) still reaches it when it is shown again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Label

from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.textual_fixes import ParsedOnceStylesheet, StyledWhileHidden
from tests.ui.conftest import press_settled, settle
from tests.ui.test_upstream_bugs import resumes_noted, switched


def _rules(screen: Screen[Any]) -> dict[DOMNode, Any]:
    return {node: node.styles.base.get_rules() for node in screen.walk_children(with_self=True)}


async def test_a_workspace_switched_back_to_is_not_styled_again_and_holds_a_full_restyles_rules(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    resumed = resumes_noted(monkeypatch)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        first = app.screen
        await press_settled(app, pilot, "ctrl+t")
        second = app.screen
        assert isinstance(first, ChargeSearchScreen) and isinstance(second, ChargeSearchScreen)
        await press_settled(app, pilot, "ctrl+pageup")  # the first, hidden since ctrl+t
        await press_settled(app, pilot, "ctrl+pagedown")
        resumed.clear()
        await press_settled(app, pilot, "ctrl+pageup", "ctrl+pagedown")
        assert resumed == [(first, False), (second, False)]
        for screen in (first, second):
            styled = _rules(screen)
            screen.update_node_styles(animate=False)  # what the skipped restyle would give
            assert _rules(screen) == styled


class _Shown(StyledWhileHidden, Screen[None]):
    def compose(self) -> ComposeResult:
        yield Label("said")


class _Modes(App[None]):
    CSS = "App.-loud Label { color: red; }"
    MODES: ClassVar = {"a": _Shown, "b": _Shown}

    def __init__(self) -> None:
        super().__init__()
        self.stylesheet = ParsedOnceStylesheet.replacing(self.stylesheet)


async def test_an_app_class_changed_while_a_screen_was_hidden_styles_it_when_shown_again() -> None:
    """Textual restyles the screens in front only when the App's classes change: the screen
    hidden meanwhile is styled again as it is shown."""
    app = _Modes()
    async with app.run_test() as pilot:
        await switched(app, pilot, "a")
        shown = app.screen
        await switched(app, pilot, "b", "a")  # hidden and shown again, nothing changed
        assert shown.query_one(Label).styles.color != Color.parse("red")
        await switched(app, pilot, "b")
        app.add_class("-loud")
        await pilot.pause()
        await switched(app, pilot, "a")
        assert app.screen is shown
        assert shown.query_one(Label).styles.color == Color.parse("red")


async def test_no_switch_refreshes_the_whole_apps_css_after_the_warm_up(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start screen, built before the theme's refresh could count it, is counted by the
    warm-up (`WarmUp._restyle_stale`), and a new workspace's screens are built styled
    (`_styled_as_built`): neither the first return to the list nor a new workspace and its
    first switches refresh every node's CSS (Textual's `refresh_css`)."""
    from paytui.ui import warm_up
    from tests.ui.test_warm_up import warmed_up

    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    refreshed: list[object] = []
    refresh = App.refresh_css

    def counted(self: App[Any], animate: bool = True) -> None:
        refreshed.append(self.screen)
        refresh(self, animate=animate)

    monkeypatch.setattr(App, "refresh_css", counted)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await warmed_up(app, pilot)
        refreshed.clear()
        await press_settled(app, pilot, "2")
        await press_settled(app, pilot, "1")
        await press_settled(app, pilot, "ctrl+t")
        await press_settled(app, pilot, "ctrl+pageup", "ctrl+pagedown")
        assert isinstance(app.screen, ChargeSearchScreen)
        assert refreshed == []


async def test_a_screen_built_ahead_is_styled_ahead_and_its_first_visit_styles_it_no_more(
    app_factory: Callable[..., PaytuiApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm-up styles a screen it built ahead, not shown (`WarmUp._style`): `2` shows it
    without styling its nodes again, and they hold what a full restyle gives them."""
    from paytui.ui import warm_up
    from paytui.ui.screens.tokens import TokensScreen
    from tests.ui.test_warm_up import warmed_up

    monkeypatch.setattr(warm_up, "WARM_UP_AFTER", 0.01)
    monkeypatch.setattr(warm_up, "BUILT_AHEAD", ("tokens",))
    resumed = resumes_noted(monkeypatch)
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await warmed_up(app, pilot)
        (ahead,) = app._screen_stacks["tokens"]
        resumed.clear()
        await press_settled(app, pilot, "2")
        assert isinstance(ahead, TokensScreen) and app.screen is ahead
        assert resumed == [(ahead, False)]
        styled = _rules(ahead)
        ahead.update_node_styles(animate=False)
        assert _rules(ahead) == styled
