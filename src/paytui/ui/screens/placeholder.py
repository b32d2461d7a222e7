"""A "coming soon" screen for top-level views that a later issue builds (Tokens, Accounts, ...).

It keeps the global keys and the header working, so navigation is complete from day one.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.widgets import Footer, Static

from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.header import PaytuiHeader


class PlaceholderScreen(PaytuiScreen[None]):
    """A titled empty screen saying the view is not built yet."""

    CSS_PATH = Path(__file__).with_name("placeholder.tcss")  # absolute: subclasses elsewhere work

    def __init__(self, title: str, blurb: str) -> None:
        super().__init__()
        self.title_text = title
        self.blurb = blurb
        self.HELP_TITLE = title

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        with Middle(), Center():
            yield Static(Text(self.title_text), id="placeholder-title")
            yield Static(Text(f"{self.blurb} — coming soon."), id="placeholder-blurb")
            yield Static(Text("Press 1 for Charges, ? for help."), id="placeholder-hint")
        yield Footer()
