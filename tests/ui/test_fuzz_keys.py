"""UI fuzz: seeded random keys (every binding, specials, printable) across every screen and modal,
the command palette and the profile switcher included; no unhandled exception, and `?` still
opens Help afterwards.

CI runs `FUZZ_SEEDS` seeds x `FUZZ_KEYS` keys (3 x 500 by default: about 10 ms of CPU a key since
the footer repaints only when its keys change, some 15 s of CPU in all; a smoke run, the suite's
time being within its budget: the crashes found so far took thousands of keys, which is what the
nightly size is for). The nightly size,
``PAYTUI_FUZZ=nightly pytest tests/ui/test_fuzz_keys.py``, is 20 x 5,000 (7-9 minutes on the 2-core
machine on 3 workers, about 14 minutes of CPU; `bash .ci/run` runs it after the suite when
``PAYTUI_NIGHTLY=1``); ``PAYTUI_FUZZ_SEEDS`` / ``PAYTUI_FUZZ_KEYS`` set either number.

A failure names its seed and key index, and the seed replays the same keys:
``PAYTUI_FUZZ_SEED=7 PAYTUI_FUZZ_KEYS=5000 pytest tests/ui/test_fuzz_keys.py -p no:randomly -n 0``
runs seed 7 alone, with a readable traceback (``PAYTUI_FUZZ_SEED`` takes a comma-separated list
too, and overrides the number of seeds). The same keys do not always replay the same timing: a
race that showed on a loaded machine (3 workers, 20 seeds) may pass alone, so a fixed crash is
pinned by its own pilot test (`tests/ui/test_fuzz_crashes.py`), not by its seed.

The keys are cheap: they are queued a batch (`BATCH`) at a time, as a fast typist or a paste
would deliver them, and the app is let settle once per batch, not once per key (Textual's
`pilot.press` waits for the app to go idle after every key, which costs about 50 ms of CPU a
key). After every fifth batch the screen is painted (test apps skip the frames no test looks at:
`tests/ui/conftest.py`), so a state that cannot be drawn fails the run. Keys that land while a
screen is still opening or a list still loading are the point: that is where the races were
(the palette's PageDown, keys right after a profile switch).
"""

from __future__ import annotations

import os
import random
import string
import traceback
import unicodedata
from typing import Any

import httpx
import pytest
from textual import events
from textual.keys import _character_to_key
from textual.widgets import Input, TextArea

from paytui.ui import bindings
from paytui.ui.screens.help import HelpScreen
from tests.ui.conftest import make_app, paint, settle

#: Seeds x keys per size (``PAYTUI_FUZZ=ci``, the default, or ``nightly``).
SIZES = {"ci": (3, 500), "nightly": (20, 5000)}
_SIZE = os.environ.get("PAYTUI_FUZZ", "ci")
if _SIZE not in SIZES:
    raise ValueError(f"PAYTUI_FUZZ={_SIZE!r}: one of {', '.join(SIZES)}")
FUZZ_SEEDS = int(os.environ.get("PAYTUI_FUZZ_SEEDS", SIZES[_SIZE][0]))
FUZZ_KEYS = int(os.environ.get("PAYTUI_FUZZ_KEYS", SIZES[_SIZE][1]))
#: Only these seeds (``PAYTUI_FUZZ_SEED=7`` or ``=7,11``), to replay a failure alone.
ONLY_SEEDS = [int(s) for s in os.environ.get("PAYTUI_FUZZ_SEED", "").split(",") if s.strip()]
#: Keys queued between two settles.
BATCH = 30
#: Batches between two paints of the screen (a full paint at 120x40 costs as much CPU as about
#: 15 keys).
PAINT_EVERY = 5
#: Quitting ends the run, it is not a crash; everything else is fair game.
NEVER = {"q", "ctrl+q", "ctrl+c"}


def binding_keys() -> list[str]:
    """Every key any paytui binding lists (every group of `bindings.all_groups`: the App's and
    those found beside their screens and widgets)."""
    found: set[str] = set()
    for group in bindings.all_groups():
        for item in group.bindings:
            found.update(key.strip() for key in item.key.split(","))
    return sorted(found - NEVER)


SPECIALS = [
    "tab", "shift+tab", "escape", "enter", "backspace", "delete", "left", "right", "up", "down",
    "home", "end", "pageup", "pagedown", "ctrl+p", "space", "ctrl+a", "ctrl+e", "ctrl+k",
    "ctrl+w", "f1", "ctrl+left", "ctrl+right", "shift+up", "shift+down",
]  # fmt: skip
PRINTABLE = [c for c in string.ascii_letters + string.digits + "-_.:,=<>\"' " if c not in NEVER]


def key_stream(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    pools = [binding_keys(), SPECIALS, PRINTABLE]
    weights = [5, 3, 2]
    return [rng.choice(rng.choices(pools, weights)[0]) for _ in range(count)]


def key_event(key: str) -> events.Key:
    """The `Key` event a terminal sends for `key` (a binding name such as ``question_mark``,
    ``ctrl+r`` or ``pagedown``, or one printable character)."""
    if len(key) == 1:
        return events.Key(key if key.isalnum() else _character_to_key(key), key)
    try:
        char: str | None = unicodedata.lookup(key.upper().replace("_", " "))
    except KeyError:
        char = None
    return events.Key(key, char)


def queue_keys(app: Any, keys: list[str]) -> None:
    """Post `keys` to the app at once, as the terminal driver does, without waiting between."""
    for key in keys:
        event = key_event(key)
        event.set_sender(app)
        app.post_message(event)


def in_text_field(app: Any) -> bool:
    """A text field has the focus: `?` there is a character, not Help (rule 4)."""
    return isinstance(app.focused, (Input, TextArea))


def where(app: Any) -> str:
    """Where the keys go: the mode, its screens and the focused widget (for a failure)."""
    stack = " > ".join(type(screen).__name__ for screen in app.screen_stack)
    return f"mode {app.current_mode!r}, screens {stack}, focus {app.focused!r}"


async def leave_everything(app: Any, pilot: Any) -> None:
    """Close modals and leave text fields, so `?` is a key and not a character. Each step is let
    settle (an escape may start a worker or close a screen in its own turn) before the next look,
    and the way out is asserted rather than tried a fixed number of times: it used to press
    escape 8 times with a bare pause between, whatever the state, and then `?`."""
    for _ in range(40):
        if len(app.screen_stack) <= 1 and not in_text_field(app):
            return
        if in_text_field(app):
            app.set_focus(None)
        else:
            await pilot.press("escape")
        await settle(app, pilot)
    raise AssertionError(f"modals and text fields not left after 40 steps: {where(app)}")


@pytest.mark.parametrize("seed", ONLY_SEEDS or range(FUZZ_SEEDS))
async def test_random_keys_never_crash_and_help_still_opens(
    sandbox_transport: httpx.AsyncBaseTransport, seed: int
) -> None:
    app = make_app(sandbox_transport)
    keys = key_stream(seed, FUZZ_KEYS)
    quits: list[int] = []

    async def quit_is_no_crash() -> None:
        """The palette's "Quit" (enter on whichever command a fast stream of keys highlights)
        is a way out, not a crash: counted, and the run goes on with the rest of the keys."""
        quits.append(len(quits))

    app.action_quit = quit_is_no_crash  # type: ignore[method-assign]
    back_or_quit = app.action_back_or_quit

    async def back_but_no_quit() -> None:
        """`q`'s action, also in the palette ("Everywhere: Back / quit"): its back is fair game,
        its quit (on a top-level screen) a way out, counted as the palette's Quit."""
        if len(app.screen_stack) > 1:
            await back_or_quit()
        else:
            await quit_is_no_crash()

    app.action_back_or_quit = back_but_no_quit  # type: ignore[method-assign]
    exits: list[str] = []
    exit_app = app.exit

    def exit_noted(*args: Any, **kwargs: Any) -> None:
        """An exit is not a crash, but a stop nobody explains is: say where it came from."""
        exits.append("".join(traceback.format_stack(limit=16)))
        exit_app(*args, **kwargs)

    app.exit = exit_noted  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for index in range(0, len(keys), BATCH):
            queue_keys(app, keys[index : index + BATCH])
            await pilot.pause()
            assert app.is_running, f"seed {seed}: the app stopped near key {index}" + (
                f"; exit() was called from:\n{exits[-1]}" if exits else ""
            )
            if index % (PAINT_EVERY * BATCH) == 0:
                paint(app)  # whatever state the keys left, it can be painted
        await settle(app, pilot)
        await leave_everything(app, pilot)
        before = where(app)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen), (
            f"seed {seed}: ? did not open Help from {before}: {where(app)}"
        )
    assert app.return_code in (None, 0), f"seed {seed}: exit code {app.return_code}"
