"""The suite's patches for speed only, in one place: none may change what a test proves.

Each is on by default and switched off by its own environment variable (set to ``1``);
``PAYTUI_TEST_AS_SHIPPED=1`` switches them all off, to run the suite on Textual and Python as they
ship (slower) and show that no test's outcome depends on them. The fixtures that apply them
name their switch (`tests/ui/conftest.py`, `tests/conftest.py`); docs/testing.md lists them.
"""

from __future__ import annotations

import os

#: Patch (the name of what applies it) -> what it saves. Switched off by
#: ``PAYTUI_TEST_OFF_<NAME>=1`` (`variable`), e.g. ``PAYTUI_TEST_OFF_QUICK_IDLE=1``.
PATCHES: dict[str, str] = {
    "gc_thresholds": "the cyclic garbage collector runs about 8 times less often",
    "fewer_frames": "test apps refresh their screens 5 times a second, not 60",
    "no_unseen_frames": "test apps lay out every frame but paint only what a test looks at",
    "css_parsed_once": "each stylesheet is parsed once per test process, not once per app",
    "quick_idle": "a pilot waits for idle in 4 ms steps with nothing queued, not 20 ms steps",
    "animations_waited_when_any": "`settle` waits for animations only when one runs or is due",
    "one_sandbox_app": "one sandbox app per test process, its state set afresh for each test",
}

AS_SHIPPED = "PAYTUI_TEST_AS_SHIPPED"


def variable(name: str) -> str:
    """The environment variable that switches patch `name` off."""
    if name not in PATCHES:
        raise KeyError(f"no speed patch named {name!r}: {', '.join(PATCHES)}")
    return f"PAYTUI_TEST_OFF_{name.upper()}"


def enabled(name: str) -> bool:
    """Whether patch `name` applies in this run (on unless switched off)."""
    off = os.environ.get(variable(name)) == "1" or os.environ.get(AS_SHIPPED) == "1"
    return not off
