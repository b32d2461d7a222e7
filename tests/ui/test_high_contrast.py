"""The high-contrast theme earns its name: every text role reads at WCAG AAA (7:1) on its
background, and the theme is offered with Textual's own."""

from __future__ import annotations

from textual.color import Color

from paytui.ui.themes import HIGH_CONTRAST
from tests.ui.conftest import fake_app

ROLES = ("foreground", "text-muted", "text-primary", "text-secondary", "text-accent")
STATUSES = ("text-success", "text-warning", "text-error", "footer-key-foreground")


def _luminance(colour: Color) -> float:
    def channel(value: int) -> float:
        x = value / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def test_high_contrast_roles_read_at_7_to_1() -> None:
    app = fake_app()
    assert HIGH_CONTRAST.name in app.available_themes
    app.theme = HIGH_CONTRAST.name
    variables = app.get_css_variables()
    background = Color.parse(variables["background"])
    for name in ROLES + STATUSES:
        colour = Color.parse(variables[name])
        if colour.a < 1:
            colour = background.blend(colour, colour.a)
        light, dark = sorted((_luminance(colour), _luminance(background)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 7, name
