"""The Pulse screen is laid out once as it is pushed, and again for each new size."""

from __future__ import annotations

from typing import Any

import httpx

from paytui.ui.palette_commands import open_pulse
from paytui.ui.screens.pulse import PulseScreen
from paytui.ui.widgets.pulse import PulseStrip
from tests.ui.conftest import make_app, settle


async def test_the_screens_own_resize_lays_it_out_again_only_for_a_new_size(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """Textual lays a pushed screen out as it resumes, then again, at the same size, for the
    `Resize` that layout sends the screen itself."""
    app = make_app(sandbox_transport)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        open_pulse(app)
        screen = app.screen
        assert isinstance(screen, PulseScreen)
        resized: list[tuple[int, int]] = []  # the sizes its Resize handler was given
        laid_out: list[tuple[int, int]] = []  # and laid the screen out at
        reflow, screen_resized = screen._compositor.reflow, screen._screen_resized

        def counted_reflow(parent: Any, size: Any) -> Any:
            if resized:
                laid_out.append(tuple(size))
            return reflow(parent, size)

        def counted_resize(size: Any) -> None:
            resized.append(tuple(size))
            screen_resized(size)
            resized.pop()

        screen._compositor.reflow = counted_reflow  # type: ignore[method-assign]
        screen._screen_resized = counted_resize  # type: ignore[method-assign]
        await settle(app, pilot)
        assert screen.query_one(PulseStrip).outer_size.width == 120
        assert laid_out == []
        await pilot.resize_terminal(100, 30)
        await settle(app, pilot)
        assert laid_out == [(100, 30)]
        assert screen.query_one(PulseStrip).outer_size.width == 100
