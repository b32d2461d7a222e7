"""The executor's modules are imported off the event loop after the first page.

The read-back of earlier actions starts once the first page is on screen, as the first keys
arrive; importing the executor there (the table of operations, the API models: 100-400 ms)
held the loop for all of it (issue 45: nothing stalls the loop over 50 ms).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).with_name("loop_imports_probe.py")


def test_the_read_back_at_start_imports_the_executor_in_a_thread(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAYTUI_", "XDG_"))}
    env |= {"HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    done = subprocess.run(
        [sys.executable, str(PROBE), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # a hang's bound only
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    threads = json.loads(done.stdout.strip().splitlines()[-1])
    # Each was imported (the read-back built the executor), and none on the loop's thread.
    assert set(threads) == {
        "paytui.ui.actions_service",
        "paytui.actions.executor",
        "paytui.actions.operations",
    }
    assert "MainThread" not in threads.values(), threads
