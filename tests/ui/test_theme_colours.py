"""Status colours are theme roles: they take the running theme's colours and follow a change."""

from __future__ import annotations

from textual.color import Color

from paytui.ui import format as fmt
from tests.ui.conftest import fake_app, settle


def _colour(spec: str) -> str:
    colour = fmt.tone(spec).color
    assert colour is not None and colour.triplet is not None
    return colour.triplet.hex.upper()


def test_every_style_is_a_role_or_an_attribute() -> None:
    """No literal colour: every word of every style is a role or a Rich attribute."""
    attributes = {"bold", "dim", "italic", ""}
    tables = [
        fmt.ACTION_STATE_STYLES,
        fmt.STATUS_STYLES,
        fmt.RESULT_STYLES,
        fmt.BOARDING_STYLES,
        fmt.CHANGE_STYLES,
        {"outgoing": fmt.OUTGOING_STYLE},
    ]
    for table in tables:
        for spec in table.values():
            for word in spec.split():
                assert word in fmt.ROLE_VARIABLES or word in attributes, spec


def test_a_role_is_bold_and_coloured_by_the_theme_variable() -> None:
    fmt.use_theme({"text-error": "#123456", "text-success": "#00FF00"})
    try:
        style = fmt.tone("bold error")
        assert style.bold is True
        assert _colour("bold error") == "#123456"
        assert fmt.status("declined").style == fmt.tone("error")
    finally:
        fmt._theme_variables = None
        fmt.tone.cache_clear()


async def test_a_theme_change_recolours_statuses() -> None:
    app = fake_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        app.theme = "textual-light"
        await settle(app, pilot)
        light = Color.parse(app.theme_variables["text-success"]).hex.upper()
        assert _colour("success") == light
        app.theme = "textual-dark"
        await settle(app, pilot)
        assert _colour("success") != light
