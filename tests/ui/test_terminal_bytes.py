"""The done-when of hostile data, in a real terminal: a charge whose name and tags carry OSC 2,
OSC 52, CSI 2J, BEL, NUL and U+202E is shown (list, detail, JSON view) and not one of those
sequences reaches the terminal as itself.

Always in a pty (the bytes paytui writes are read raw and searched); also in tmux when tmux is
installed, where the pane's title must stay what it was (tmux obeys a raw OSC 2: the control
run proves it first).
"""

from __future__ import annotations

import importlib.util
import os
import pty
import re
import select
import shutil
import struct
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest

from paytui.sandbox.hostile import make_hostile_charge
from tests.ui.terminal_run import DONE

ROOT = Path(__file__).resolve().parents[2]
CSI = re.compile(r"\x1b\[[0-9;?<>=$]*[A-Za-z]")
#: Raw sequences that must never reach the terminal from the data.
RAW = {
    "OSC 2": b"\x1b]2;pwned",
    "OSC 52": b"\x1b]52;c;cm0g",
    "CSI 2J in a tag": b"x\x1b[2Jy",
    "BEL in a tag": b"bell\x07",
    "NUL": b"\x00",
    "U+202E": "\u202e".encode(),
}


def run_in_pty(db: Path, limit: float = 90.0) -> bytes:
    """Run `tests.ui.terminal_run` in a 120x40 pty; every byte it wrote."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: paytui in the pty
        os.chdir(ROOT)
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        os.execve(sys.executable, [sys.executable, "-m", "tests.ui.terminal_run", str(db)], env)
    import fcntl

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    out = bytearray()
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, bytes(out[-2000:])
    return bytes(out)


def test_hostile_charge_reaches_a_pty_neutralised(sandbox_db: Path) -> None:
    make_hostile_charge(sandbox_db)
    out = run_in_pty(sandbox_db)
    assert DONE.encode() in out, out[-2000:]
    # What a person sees: the text without paytui's own CSI sequences (colours, cursor moves).
    text = CSI.sub("", out.decode("utf-8", "replace"))
    assert "pwned" in text and "␛]2;pwned␇" in text  # shown, as placeholders
    assert "\\u001b]2;pwned" in text  # the JSON view: escapes
    for name, raw in RAW.items():
        assert raw not in out, name


TMUX = shutil.which("tmux")


def _check_script() -> Any:
    """scripts/hostile_terminal_check.py as a module (its tmux helpers)."""
    spec = importlib.util.spec_from_file_location(
        "hostile_terminal_check", ROOT / "scripts" / "hostile_terminal_check.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("terminal", ["tmux"] if TMUX else [])
def test_tmux_title_does_not_change(terminal: str, sandbox_db: Path) -> None:
    """In tmux: a raw OSC 2 renames the pane (the control); paytui, writing to that pane, shows
    the hostile charge with placeholders and escapes, and the pane's title stays what it was."""
    make_hostile_charge(sandbox_db)
    results = _check_script().check(sandbox_db)
    assert [name for name, held in results if not held] == [], results
