"""In a real terminal (tmux): a charge carrying OSC 2 / OSC 52 / CSI 2J / BEL / NUL / U+202E is
shown by paytui (list, detail, JSON view) and the terminal's title does not change.

    python scripts/hostile_terminal_check.py          # prints one line per check, exit 0 = held

Needs `tmux` on PATH. First a control run proves that this tmux honours OSC 2 (a raw `printf`
does rename the pane), so a pass means paytui neutralised the text, not that tmux ignored it.
The result is recorded in docs/reliability.md ("Hostile data and broken servers").
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The check's own tmux session, on its own tmux server (`-L SOCKET`), both named for this
#: process: two checks (two test runs on one machine) never kill or retitle each other's session,
#: and the session's command runs in this process's environment, not in that of a tmux server
#: someone else started earlier (another HOME, no XDG directories of this run).
SESSION = f"paytui-hostile-check-{os.getpid()}"
SOCKET = SESSION
TITLE = "title-before"


def tmux(*args: str) -> str:
    result = subprocess.run(
        ["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False
    )
    return result.stdout.strip()


def stop() -> None:
    """End the check's session and its tmux server."""
    tmux("kill-server")


def pane_title() -> str:
    return tmux("display-message", "-p", "-t", SESSION, "#{pane_title}")


def wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


def start(command: str) -> None:
    tmux("kill-session", "-t", SESSION)
    tmux("new-session", "-d", "-s", SESSION, "-x", "200", "-y", "40", command)
    tmux("select-pane", "-t", SESSION, "-T", TITLE)


def outer() -> int:
    if shutil.which("tmux") is None:
        print("tmux not found: install it (apt-get install -y tmux) to run this check")
        return 2
    from paytui.sandbox.hostile import make_hostile_charge
    from paytui.sandbox.seed import build_database

    work = Path(tempfile.mkdtemp(prefix="paytui-hostile-"))
    db = work / "sandbox.sqlite3"
    build_database(db, charges=200, seed=7)
    make_hostile_charge(db)
    results: list[tuple[str, bool]] = []

    # Control: a raw OSC 2 does rename the pane in this tmux.
    start("sleep 1; printf '\\033]2;pwned\\007'; sleep 30")
    renamed = wait_for(lambda: pane_title() == "pwned", 10)
    results.append(("control: raw OSC 2 renames the tmux pane", renamed))

    root = Path(__file__).resolve().parents[1]
    start(f"sleep 1; cd {root} && {sys.executable} -m tests.ui.terminal_run {db}; sleep 30")
    shown = wait_for(lambda: "Eve␛]2;pwned␇Mal" in tmux("capture-pane", "-p", "-t", SESSION), 60)
    results.append(("paytui shows the hostile name with placeholders", shown))
    detail = wait_for(lambda: "\\u001b]2;pwned" in tmux("capture-pane", "-p", "-t", SESSION), 60)
    results.append(("the detail's JSON view shows it as escapes", detail))
    done = wait_for(lambda: "TERMINAL-RUN-DONE" in tmux("capture-pane", "-p", "-t", SESSION), 60)
    results.append(("paytui ran to the end without a crash", done))
    title = pane_title()
    results.append((f"terminal title unchanged ({title!r})", title == TITLE))
    stop()
    shutil.rmtree(work, ignore_errors=True)
    for name, held in results:
        print(f"{'held' if held else 'FAILED'}: {name}")
    return 0 if all(held for _, held in results) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    raise SystemExit(outer())
