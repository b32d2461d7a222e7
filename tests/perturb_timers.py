"""A pytest plugin moving the product's timers, to find tests that depend on the machine's speed.

    PERTURB="paytui.ui.app:AFTER_FIRST_ROWS=3,paytui.ui.warm_up:WARM_UP_AFTER=0.001" \
        .venv/bin/python -m pytest -p tests.perturb_timers tests/ui -n 2

Each item is `module:NAME=seconds` (`NAME` may be `Class.ATTRIBUTE`), set before any test runs
(and in each xdist worker). A timer set long stands for a quick machine, where a test's waits end
before the timer fires; set short, for a loaded one, where it fires during them. A test that
fails only with a timer moved depends on the speed of the machine it runs on, unless that timer
is what it tests (docs/reliability.md, "No test depends on the machine's speed"). Not loaded by
the suite itself.
"""

from __future__ import annotations

import importlib
import os
from typing import Any


def pytest_configure(config: Any) -> None:
    for item in filter(None, os.environ.get("PERTURB", "").split(",")):
        target, value = item.split("=")
        module, attribute = target.split(":")
        owner: Any = importlib.import_module(module)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        if not hasattr(owner, name):
            raise ValueError(f"PERTURB: {module} has no {attribute}")
        setattr(owner, name, float(value))
