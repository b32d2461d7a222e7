"""`paytui_app(node)`: the running app, typed as `PaytuiHost` (the App as screens see it).

Textual types `DOMNode.app` as a plain `App`; every screen and widget of paytui runs inside a
`PaytuiApp`, and this is the one place that says so, so screens call its public methods
(`get_client`, `now`, `actions`, ...) with their real types instead of silencing the checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from paytui.ui.host import PaytuiHost


def paytui_app(node: DOMNode) -> PaytuiHost:
    """The app `node` runs in (a `PaytuiApp`: paytui mounts its screens in nothing else)."""
    return cast("PaytuiHost", node.app)
