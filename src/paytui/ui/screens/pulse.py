"""The pulse as a screen of its own (palette: "Pulse"): the `PulseStrip`, full width.

The Today screen shows the same strip at its top; this screen is the pulse one command away
from any screen. `escape` goes back.
"""

from __future__ import annotations

from textual.app import ComposeResult

from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.textual_fixes import LaidOutOnce, StyledAtMount
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.pulse import PulseStrip


class PulseScreen(LaidOutOnce, StyledAtMount, PaytuiScreen[None]):
    """Sales volume, captures, refunds, chargebacks, ACH returns and the chargeback rate; the
    month's dispute ratio of every account."""

    AUTO_FOCUS = "PulseStrip"

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield PulseStrip(id="pulse", every_account=True)
        yield PaytuiFooter()
