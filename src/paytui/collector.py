"""The cyclic garbage collector, paused while a process starts (the dashboard, the sandbox).

Start-up is budgeted (1.3x a bare Textual app, `docs/performance.md`). Importing Textual, pydantic,
httpx (or FastAPI) and paytui's own modules allocates several hundred thousand objects, and
Python's cyclic collector ran over and over in between, scanning objects that live as long as the
process: about a tenth of the dashboard's start (an A/B of the start-up probe with and without
it). `paytui.ui.launch` pauses the collector; the app resumes it when its first page is painted
(or after `RESUME_AFTER` seconds at the latest: an error or a slow service must not leave it off);
the embedded sandbox once it serves. Resuming first moves everything allocated so far into the
collector's permanent generation (`gc.freeze()`, once per process), so later collections (while
typing, holding `j`) do not scan them again either. Textual pauses the collector around smooth
scrolling too (`App.PAUSE_GC_ON_SCROLL`).

When the warm-up (`paytui.ui.warm_up`) has built the screens ahead, what it allocated (the screens,
Today's queue, the pulse, their widgets) lives about as long as the app: it is frozen too
(`freeze_warmed_up`, once per process, the young generations collected first), so the full
collections that a screen's reading sets off later (the pulse's 12,000 sales at 100,000 charges)
do not walk it (they fell inside the loop's longest steps, 100-200 ms of wall time each).

Only what `pause_collector` switched off is switched back on: tests that build the app without
the launcher, and a collector the user disabled, are left as they were.
"""

from __future__ import annotations

import gc

#: Seconds after the app mounted when it resumes the collector even without a painted page.
RESUME_AFTER = 3.0

_paused = False
_frozen = False
_warmed_up_frozen = False


def pause_collector() -> None:
    """Switch the cyclic collector off for the start (no effect if it already was off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector(*, freeze: bool = True) -> None:
    """Start-up is over: freeze what it allocated, and switch the collector back on if
    `pause_collector` switched it off. `freeze=False` when the start ended without its first page
    (an error, the app closed): there is nothing worth freezing then.

    Freezing happens once per process: a later app (tests run many) would also freeze the garbage
    the earlier ones left, which would then never be collected. The frozen objects (Textual, the
    screens, the client and its models) live as long as the process; full collections walking
    them took 70-160 ms, a frozen frame now and then while `j` is held.
    """
    global _paused, _frozen
    if freeze and not _frozen:
        _frozen = True
        gc.freeze()
    if _paused:
        _paused = False
        gc.enable()


def freeze_warmed_up() -> None:
    """The warm-up is over: freeze what it allocated, once per process and only after the
    start's freeze (nothing when the start did not freeze). The young generations are collected
    first (a few ms): their garbage is not frozen with the rest; what the warm-up left in the
    old generation that is garbage stays (a full collection would hold the loop 100 ms and
    more at 100,000 charges; the warm-up's screens and their reads live on anyway)."""
    global _warmed_up_frozen
    if _frozen and not _warmed_up_frozen:
        _warmed_up_frozen = True
        gc.collect(1)
        gc.freeze()


def thaw() -> None:
    """The app let go of screens that were frozen with the rest (a profile switch discards a
    workspace's screens, built ahead or visited; closing a workspace discards its own): a
    frozen object is never collected, and Textual's screens and widgets hold one another in
    cycles, so they and what they read (Today's queue, the pulse's sales) would stay for good,
    once more at every switch. Everything frozen goes back to the collector's oldest
    generation, which a later full collection walks again (the stalls the freeze saved return
    until the process ends: a profile switch is rare, memory kept at each one is not)."""
    if _frozen and gc.get_freeze_count():  # the warm-up freezes only after the start did
        gc.unfreeze()


def collector_paused() -> bool:
    """True between `pause_collector` and `resume_collector` (for tests)."""
    return _paused
