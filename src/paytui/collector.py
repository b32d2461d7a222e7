"""The cyclic garbage collector, paused while a process starts (the dashboard, the sandbox).

Start-up is budgeted (1.3x a bare Textual app, `docs/performance.md`). Importing Textual, pydantic,
httpx (or FastAPI) and paytui's own modules allocates several hundred thousand objects, and
Python's cyclic collector ran over and over in between, scanning objects that live as long as the
process: about a tenth of the dashboard's start (an A/B of the start-up probe with and without
it). `paytui.ui.launch` pauses the collector; the app resumes it when its first page is painted
(or after `RESUME_AFTER` seconds at the latest: an error or a slow service must not leave it off);
the embedded sandbox once it serves. Resuming first moves everything allocated so far into the
collector's permanent generation (`gc.freeze()`), so later collections (while typing) do not scan
the modules again either. Textual does the same around smooth scrolling
(`App.PAUSE_GC_ON_SCROLL`).

Only what `pause_collector` switched off is switched back on: tests that build the app without
the launcher, and a collector the user disabled, are left as they were.
"""

from __future__ import annotations

import gc

#: Seconds after the app mounted when it resumes the collector even without a painted page.
RESUME_AFTER = 3.0

_paused = False


def pause_collector() -> None:
    """Switch the cyclic collector off for the start (no effect if it already was off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector() -> None:
    """Freeze what start-up allocated, and switch the collector back on if we paused it."""
    global _paused
    if not _paused:
        return
    _paused = False
    gc.freeze()
    gc.enable()


def collector_paused() -> bool:
    """True between `pause_collector` and `resume_collector` (for tests)."""
    return _paused
