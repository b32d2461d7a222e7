"""`LiveStatic`: a line whose changes a screen reader is told of (a live region, as ARIA's).

A list's state ("Loading charges…", "No charges match", an error), a money dialog's steps (the
charge as read, the review, the outcome) and a field's error line are live: in screen-reader mode
each new text is said by the app's one announcer (`paytui.ui.announcer`), in order with focus
and notifications. Out of that mode it is a `Static`, nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Static

if TYPE_CHECKING:
    from textual.visual import VisualType

__all__ = ["LiveStatic"]


class LiveStatic(Static):
    """A `Static` whose every update is said in screen-reader mode (`spoken=False`: a countdown's
    tick, shown but not said again)."""

    def update(self, content: VisualType = "", *, layout: bool = True, spoken: bool = True) -> None:
        super().update(content, layout=layout)
        if not spoken:
            return
        # The app's announcer (`paytui.ui.announcer`), there in screen-reader mode only: this
        # module imports nothing of it, so a list's first paint does not.
        announcer = getattr(self.app, "announcer", None) if self.is_attached else None
        if announcer is not None:
            announcer.region_changed(self, content)
