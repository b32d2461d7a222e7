"""`paytui_app(node)`: the running app, typed as `PaytuiHost` (the App as screens see it); and
`still_shown(node, ...)`: may a read that just ended still show what it read on `node`.

Textual types `DOMNode.app` as a plain `App`; every screen and widget of paytui runs inside a
`PaytuiApp`, and this is the one place that says so, so screens call its public methods
(`get_client`, `now`, `actions`, ...) with their real types instead of silencing the checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.widget import Widget

    from paytui.ui.host import PaytuiHost


def paytui_app(node: DOMNode) -> PaytuiHost:
    """The app `node` runs in (a `PaytuiApp`: paytui mounts its screens in nothing else)."""
    return cast("PaytuiHost", node.app)


def still_shown(node: DOMNode, *parts: str | type[Widget]) -> bool:
    """May a read (a worker's await) that just ended show its result on `node`? Only while
    `node` is in the app's DOM, the app runs, and each of `parts` (a selector or a widget type:
    what the result is written to) is still found under it.

    The one guard of every background read against being taken down. A read can end while
    the app quits: `App._shutdown` stops the app, then removes every screen, each node's
    children before the node, and cancels a node's workers only as the node itself goes; a
    worker resuming in between found its widgets gone (`NoMatches`, which ended the app) or
    wrote into a screen nobody will see again. (A popped screen's workers are cancelled before
    it goes: `textual_fixes.ScreenSwitchGuards`.) A read asks this after its await, before it
    writes anything; `tests/ui/test_teardown.py` ends each such read as the app quits."""
    if not node.is_attached or not node.app.is_running:
        return False
    return all(node.query(part) for part in parts)
