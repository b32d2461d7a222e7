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

**Full collections wait for an idle moment.** What is frozen is not walked, but what a screen
reads afterwards is: at 100,000 charges the full collections that Today's queue and the pulse's
sales set off took 48-346 ms each on the event loop, the longest steps left between two frames
while the person waits for rows (issue 45, item 5). Where the launcher paused the collector
(`pause_collector`: the dashboard's own process), the app then holds full collections back while
the person is busy (`defer_full_collections`: the third threshold set out of reach; the young
generations are collected as before) and gives CPython its own rule back in idle moments (no key
typed for a second, no worker running: `allow_full_collections`), where CPython decides as it
always does (its third threshold, and its rule that skips a full collection while the old
objects waiting for one are under a quarter of the old generation): no full collection is ever
run that CPython would not have run. A key typed holds them back again at once. Never idle that
long, the person still gets CPython's rule back once `FULL_ANYWAY_AFTER` middle-generation
collections have passed since the last full one (`far_overdue`): memory stays bounded.
`end_deferral` gives the threshold back for good when the app ends. The embedded sandbox's
process, which has no idle moments to wait for, keeps CPython's own rule throughout.
"""

from __future__ import annotations

import gc

#: Seconds after the app mounted when it resumes the collector even without a painted page.
RESUME_AFTER = 3.0

_paused = False
_frozen = False
_warmed_up_frozen = False
#: The third threshold `defer_full_collections` found and set aside (None: not deferring).
_deferred_threshold: int | None = None

#: Middle-generation collections since the last full one after which CPython's own rule is given
#: back even while the person is busy (never idle long enough): 20 times its usual threshold.
FULL_ANYWAY_AFTER = 200
#: The third threshold while full collections wait: out of reach.
OUT_OF_REACH = 1 << 30


def pause_collector() -> None:
    """Switch the cyclic collector off for the start (no effect if it already was off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector(*, freeze: bool = True) -> bool:
    """Start-up is over: freeze what it allocated, and switch the collector back on if
    `pause_collector` switched it off. `freeze=False` when the start ended without its first page
    (an error, the app closed): there is nothing worth freezing then.

    Freezing happens once per process: a later app (tests run many) would also freeze the garbage
    the earlier ones left, which would then never be collected. The frozen objects (Textual, the
    screens, the client and its models) live as long as the process; full collections walking
    them took 70-160 ms, a frozen frame now and then while `j` is held.

    True when it switched the collector back on (the launcher's pause: the dashboard's own
    process, whose app then defers full collections to its idle moments).
    """
    global _paused, _frozen
    if freeze and not _frozen:
        _frozen = True
        gc.freeze()
    if not _paused:
        return False
    _paused = False
    gc.enable()
    return True


def defer_full_collections() -> None:
    """Full collections held back while the person is busy (`allow_full_collections`); the young
    generations are collected as before. Once, until `end_deferral`."""
    global _deferred_threshold
    if _deferred_threshold is None:
        first, second, third = gc.get_threshold()
        _deferred_threshold = third
        gc.set_threshold(first, second, OUT_OF_REACH)


def deferring() -> bool:
    """True while full collections wait for idle moments (`defer_full_collections`)."""
    return _deferred_threshold is not None


def far_overdue() -> bool:
    """Whether `FULL_ANYWAY_AFTER` middle-generation collections have passed since the last full
    one (`gc.get_count()[2]`): CPython's rule is given back even while the person is busy."""
    return gc.get_count()[2] >= FULL_ANYWAY_AFTER


def allow_full_collections(allowed: bool) -> None:
    """While deferring: CPython's own rule for full collections (`allowed`: an idle moment, or
    far overdue), or none (the person is busy). Nothing when not deferring."""
    if _deferred_threshold is None:
        return
    first, second, third = gc.get_threshold()
    wanted = _deferred_threshold if allowed else OUT_OF_REACH
    if third != wanted:
        gc.set_threshold(first, second, wanted)


def hold_full_collections() -> None:
    """The person is busy (a key typed, a read started): full collections held back, unless
    far overdue (`allow_full_collections`)."""
    allow_full_collections(far_overdue())


def end_deferral() -> None:
    """The app is ending: full collections run on CPython's own threshold again."""
    global _deferred_threshold
    if _deferred_threshold is not None:
        first, second, _third = gc.get_threshold()
        gc.set_threshold(first, second, _deferred_threshold)
        _deferred_threshold = None


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
