"""paytui's own theme, high contrast, and the order of the theme picker.

Textual's themes are all offered by the theme picker (the command palette's "Theme"); this one is
added to them. Pure black and white with saturated role colours: every role (`paytui.ui.format`)
stays readable on the background, and the production banner's `$error` stays unmistakable.

The picker lists Textual's `ansi-dark` and `ansi-light` first (docs/accessibility.md): they draw
in the terminal's own 16 colours, the palette a person chose for their eyes or their magnifier;
then the high-contrast theme; then the rest by name (`theme_order`, `ThemePicker`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits
from textual.theme import Theme, ThemeProvider

HIGH_CONTRAST = Theme(
    name="paytui-high-contrast",
    primary="#FFFF00",
    secondary="#00FFFF",
    accent="#FF80FF",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#202020",
    boost="#303030",
    success="#00FF00",
    warning="#FFB000",
    error="#FF4040",
    dark=True,
    variables={
        "border": "#FFFFFF",
        "border-blurred": "#C0C0C0",
        "text-muted": "#E0E0E0",
        "footer-key-foreground": "#FFFF00",
    },
)

#: The picker's first choices, in order, with what each is for.
FIRST_THEMES: dict[str, str] = {
    "ansi-dark": "the terminal's own 16 colours, dark",
    "ansi-light": "the terminal's own 16 colours, light",
    HIGH_CONTRAST.name: "black and white, saturated roles",
}


def theme_order(names: Iterable[str]) -> list[str]:
    """`names` as the picker lists them: `FIRST_THEMES` (those there), then the rest by name."""
    present = set(names)
    return [n for n in FIRST_THEMES if n in present] + sorted(present - set(FIRST_THEMES))


class ThemePicker(ThemeProvider):
    """Textual's theme provider, in paytui's order, the first choices saying what they are for."""

    @property
    def commands(self) -> list[tuple[str, Callable[[], None]]]:
        return [(name, partial(self._use, name)) for name in theme_order(self.app.available_themes)]

    def _use(self, name: str) -> None:
        self.app.theme = name

    async def discover(self) -> Hits:
        for name, callback in self.commands:
            yield DiscoveryHit(name, callback, help=FIRST_THEMES.get(name))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback in self.commands:
            if (match := matcher.match(name)) > 0:
                yield Hit(match, matcher.highlight(name), callback, help=FIRST_THEMES.get(name))


__all__ = ["FIRST_THEMES", "HIGH_CONTRAST", "ThemePicker", "theme_order"]
