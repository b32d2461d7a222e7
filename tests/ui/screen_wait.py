"""Textual's pilot waits with a clock of its own: a failure there says what it waited for.

Every `pilot.press`, `pilot.pause`, `pilot.click` and `wait_for_scheduled_animations` first
waits (`Pilot._wait_for_screen`) until the app and every widget of the screen have handled the
messages queued before the wait began. The wait ends on an event (the last of them handled), but
Textual bounds it with 30 s of the wall clock and then raises `WaitForScreenTimeout`: "Timed out
while waiting for widgets to process pending messages", naming none. A widget meets it when one
of its handlers awaits something that does not come (a request a test holds, a worker waited for
inside a handler): everything queued behind that handler waits with it, keys included.

`explained_wait` runs the same wait and, when it gives up, fails the test with an
`AssertionError` naming each widget that still had messages queued and where its handler is
awaiting (the top of its task's stack), so the cause reads in the failure itself instead of a
bare timeout: the one thing to fix is that handler (or the test holding it), never the 30 s.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot, WaitForScreenTimeout

_WAIT_FOR_SCREEN = Pilot._wait_for_screen


def busy_widgets(pilot: Any) -> list[str]:
    """The app and the screen's widgets with messages still queued: each with how many, and the
    frames where its task is awaiting (innermost last)."""
    app = pilot.app
    try:
        nodes = [app, *app.screen.walk_children(with_self=True)]
    except Exception:  # no screen (the app closing): only the app
        nodes = [app]
    busy = []
    for node in nodes:
        queued = node._message_queue.qsize()
        if not queued:
            continue
        task = node._task
        frames = []
        # The chain of coroutines the task is suspended in (`Task.get_stack` gives only the
        # outermost one of a suspended task).
        awaiting = task.get_coro() if task is not None and not task.done() else None
        while awaiting is not None and getattr(awaiting, "cr_frame", None) is not None:
            code = awaiting.cr_frame.f_code
            line = awaiting.cr_frame.f_lineno
            frames.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{line} {code.co_name}")
            awaiting = getattr(awaiting, "cr_await", None)
        where = " <- ".join(reversed(frames[-4:])) or "not running"
        busy.append(f"{node!r}: {queued} queued; awaiting in {where}")
    return busy


async def explained_wait(self: Pilot[Any], timeout: float = 30.0) -> bool:
    """`Pilot._wait_for_screen`, with a failure that names what it waited for."""
    try:
        return await _WAIT_FOR_SCREEN(self, timeout)
    except WaitForScreenTimeout:
        busy = busy_widgets(self) or ["none left (they finished as the wait gave up)"]
        raise AssertionError(
            f"the pilot waited {timeout:g} s for the screen's widgets to handle their messages;"
            " still busy: " + "; ".join(busy)
        ) from None
