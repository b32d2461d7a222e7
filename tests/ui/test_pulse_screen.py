"""The Pulse and Today screens are laid out once as they are shown, and again for each new size;
the layout as they resume does not draw, the update timer's draw is the first (`LaidOutOnce`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from textual._compositor import Compositor
from textual.screen import Screen

from paytui.ui.app import PaytuiApp
from paytui.ui.palette_commands import open_pulse
from paytui.ui.screens.pulse import PulseScreen
from paytui.ui.screens.today import TodayScreen
from paytui.ui.widgets.footer import PaytuiFooter
from tests.ui.conftest import make_app, screen_text, settle


async def _pulse(app: PaytuiApp, _pilot: Any) -> None:
    open_pulse(app)


async def _today(_app: PaytuiApp, pilot: Any) -> None:
    await pilot.press("0")


async def _today_pushed(app: PaytuiApp, _pilot: Any) -> None:
    """A new Today pushed (`0` shows the one built ahead, laid out already)."""
    await app.push_screen(TodayScreen())


def laid_out_by_resize(
    monkeypatch: pytest.MonkeyPatch, kind: type[Screen[Any]]
) -> list[tuple[int, int]]:
    """The sizes a screen of `kind`'s own `Resize` handler lays it out at from now on."""
    resized: list[tuple[int, int]] = []  # the sizes its Resize handler was given
    laid_out: list[tuple[int, int]] = []
    reflow, screen_resized = Compositor.reflow, kind._screen_resized

    def counted_reflow(compositor: Compositor, parent: Any, size: Any) -> Any:
        if resized:
            laid_out.append(tuple(size))
        return reflow(compositor, parent, size)

    def counted_resize(screen: Screen[Any], size: Any) -> None:
        resized.append(tuple(size))
        screen_resized(screen, size)
        resized.pop()

    monkeypatch.setattr(Compositor, "reflow", counted_reflow)
    monkeypatch.setattr(kind, "_screen_resized", counted_resize)
    return laid_out


def drawn_as_it_resumes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Screen[Any]]]:
    """What happens to each screen while Textual's resume handler runs, from now on: ("draw",
    screen) for each draw of the screen (`Screen._compositor_refresh`, which the tests'
    `no_unseen_frames` keeps from painting), ("refresh", screen) for each whole-screen refresh
    asked (`refresh()`, no region)."""
    noted: list[tuple[str, Screen[Any]]] = []
    resuming: list[Screen[Any]] = []
    resume, draw, refresh = Screen._on_screen_resume, Screen._compositor_refresh, Screen.refresh

    def noted_resume(screen: Screen[Any], event: Any) -> None:
        resuming.append(screen)
        try:
            resume(screen, event)
        finally:
            resuming.pop()

    def noted_draw(screen: Screen[Any]) -> None:
        if resuming:
            noted.append(("draw", screen))
        draw(screen)

    def noted_refresh(screen: Screen[Any], *regions: Any, **k: Any) -> Any:
        if resuming and not regions and not k:
            noted.append(("refresh", screen))
        return refresh(screen, *regions, **k)

    monkeypatch.setattr(Screen, "_on_screen_resume", noted_resume)
    monkeypatch.setattr(Screen, "_compositor_refresh", noted_draw)
    monkeypatch.setattr(Screen, "refresh", noted_refresh)
    return noted


@pytest.mark.parametrize(
    ("show", "kind"),
    [(_pulse, PulseScreen), (_today_pushed, TodayScreen)],
    ids=["pulse", "today"],
)
async def test_the_screen_is_drawn_by_the_update_timer_not_as_it_resumes(
    sandbox_transport: httpx.AsyncBaseTransport,
    show: Callable[[PaytuiApp, Any], Awaitable[None]],
    kind: type[Screen[Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual's resume lays the screen out, which draws it whole, then asks for the whole
    screen drawn again (`refresh()`): the update timer's draw, in a later step. The layout as
    the screen resumes does not draw here; the screen is drawn all the same."""
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        noted = drawn_as_it_resumes(monkeypatch)
        await show(app, pilot)
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, kind)
        assert ("refresh", screen) in noted  # Textual's resume ran, and asked for the draw
        assert ("draw", screen) not in noted
        assert "Help" in screen_text(app)  # the footer's keys: drawn


@pytest.mark.parametrize(
    ("show", "kind"), [(_pulse, PulseScreen), (_today, TodayScreen)], ids=["pulse", "today"]
)
async def test_the_screens_own_resize_lays_it_out_again_only_for_a_new_size(
    sandbox_transport: httpx.AsyncBaseTransport,
    show: Callable[[PaytuiApp, Any], Awaitable[None]],
    kind: type[Screen[Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual lays a shown screen out as it resumes, then again, at the same size, for the
    `Resize` that layout sends the screen itself. A new size is laid out once: by the screen's
    `Resize`, or (when the screen's update timer came first, which a loaded machine decides: two
    runs of three at load 20) before it, the `Resize` then finding the size already laid out."""
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        laid_out = laid_out_by_resize(monkeypatch, kind)
        await show(app, pilot)
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, kind)
        assert screen.query_one(PaytuiFooter).outer_size.width == 120
        assert laid_out == []
        await pilot.resize_terminal(100, 30)
        await settle(app, pilot)
        assert laid_out in ([(100, 30)], [])
        assert screen.query_one(PaytuiFooter).outer_size.width == 100
