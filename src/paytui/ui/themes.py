"""paytui's own theme: high contrast, for bright rooms, projectors and low vision.

Textual's themes are all offered by the theme picker (the command palette's "Theme"); this one is
added to them. Pure black and white with saturated role colours: every role (`paytui.ui.format`)
stays readable on the background, and the production banner's `$error` stays unmistakable.
"""

from __future__ import annotations

from textual.theme import Theme

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

__all__ = ["HIGH_CONTRAST"]
