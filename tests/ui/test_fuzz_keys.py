"""UI fuzz: seeded random keys (every binding, specials, printable) across every screen and modal,
the command palette and the profile switcher included; no unhandled exception, and `?` still
opens Help afterwards.

CI runs `FUZZ_SEEDS` seeds x `FUZZ_KEYS` keys (2 x 400 by default, so the whole suite keeps
within its time budget); more with e.g.
``PAYTUI_FUZZ_SEEDS=20 PAYTUI_FUZZ_KEYS=5000 pytest tests/ui/test_fuzz_keys.py``. A failure names
its seed, and the seed replays the same keys.
"""

from __future__ import annotations

import os
import random
import string
from typing import Any

import httpx
import pytest
from textual.binding import Binding

from paytui.ui import bindings
from paytui.ui.screens.help import HelpScreen
from tests.ui.conftest import make_app, settle

FUZZ_SEEDS = int(os.environ.get("PAYTUI_FUZZ_SEEDS", "2"))
FUZZ_KEYS = int(os.environ.get("PAYTUI_FUZZ_KEYS", "400"))
#: Quitting ends the run, it is not a crash; everything else is fair game.
NEVER = {"q", "ctrl+q", "ctrl+c"}


def binding_keys() -> list[str]:
    """Every key any paytui binding lists (read from the one bindings module)."""
    found: set[str] = set()
    for value in vars(bindings).values():
        if isinstance(value, list | tuple):
            for item in value:
                if isinstance(item, Binding):
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


async def leave_everything(app: Any, pilot: Any) -> None:
    """Close modals and leave text fields, so `?` is a key and not a character."""
    for _ in range(8):
        if len(app.screen_stack) <= 1 and app.focused is None:
            break
        await pilot.press("escape")
        if app.focused is not None and hasattr(app.focused, "value"):
            app.set_focus(None)
        await pilot.pause()


@pytest.mark.parametrize("seed", range(FUZZ_SEEDS))
async def test_random_keys_never_crash_and_help_still_opens(
    sandbox_transport: httpx.AsyncBaseTransport, seed: int
) -> None:
    app = make_app(sandbox_transport)
    keys = key_stream(seed, FUZZ_KEYS)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for index in range(0, len(keys), 50):
            await pilot.press(*keys[index : index + 50])
            assert app.is_running, f"seed {seed}: the app stopped near key {index}"
        await settle(app, pilot)
        await leave_everything(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen), f"seed {seed}: {app.screen!r}"
    assert app.return_code in (None, 0), f"seed {seed}: exit code {app.return_code}"
