"""`DismissOnce`: a screen is closed once, whatever keys are queued behind the one that closed it.

Upstream race (Textual 8.2.8, `Screen.dismiss`): dismiss pops whatever screen is on top of the
stack. Two closing keys handled before the first pop lands (enter then escape typed fast in a
dialog, the profile switcher or the command palette) popped the screen *beneath* as well, up to
"Can't pop screen" (`ScreenStackError`) and the end of the app. Here a dismiss of a screen that
is no longer on top is ignored.
"""

from __future__ import annotations

from typing import Any

from textual.await_complete import AwaitComplete

__all__ = ["DismissOnce"]


async def _nothing() -> None:
    """The awaitable of a dismiss that had nothing to do."""


class DismissOnce:
    """Mixin for a `Screen` subclass (before it in the bases): see the module docstring."""

    def dismiss(self, result: Any = None) -> AwaitComplete:
        screen: Any = self
        if not screen.is_attached or screen.app.screen is not screen:
            return AwaitComplete(_nothing())
        return super().dismiss(result)  # type: ignore[misc, no-any-return]
