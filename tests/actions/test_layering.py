"""The action core is UI-free: screens call it, it never calls them (nor the sandbox)."""

from __future__ import annotations

import subprocess
import sys


def test_actions_import_neither_textual_nor_the_sandbox() -> None:
    code = (
        "import sys, paytui.actions; "
        "bad = [m for m in ('textual', 'fastapi', 'paytui.sandbox.app') if m in sys.modules]; "
        "print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
