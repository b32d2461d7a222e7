"""The pulse as a screen of its own (palette: "Pulse"): the `PulseStrip`, full width.

The Today screen shows the same strip at its top; this screen is the pulse one command away
from any screen. `escape` goes back.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.geometry import Size

from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.textual_fixes import StyledAtMount
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.pulse import PulseStrip


class PulseScreen(StyledAtMount, PaytuiScreen[None]):
    """Sales volume, captures, refunds, chargebacks, ACH returns and the chargeback rate; the
    month's dispute ratio of every account."""

    AUTO_FOCUS = "PulseStrip"

    def _screen_resized(self, size: Size) -> None:
        """Lay the screen out for a new size only. Textual lays a pushed screen out as it
        resumes, which sends the screen itself a `Resize`, whose handler lays it out again at
        the same size in the same step of the event loop (10-15 ms of the push at 100,000
        charges, docs/performance.md). A change since that layout is laid out by the screen's
        update timer, as any other."""
        if size == self._compositor.size and self._compositor.root is self:
            return
        super()._screen_resized(size)

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield PulseStrip(id="pulse", every_account=True)
        yield PaytuiFooter()
