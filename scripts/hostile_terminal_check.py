"""In a real terminal (tmux): a charge carrying OSC 2 / OSC 52 / CSI 2J / BEL / NUL / U+202E is
shown by paytui (list, detail, JSON view) and the terminal's title does not change.

    python scripts/hostile_terminal_check.py          # prints one line per check, exit 0 = held

Needs `tmux` on PATH. First a control run proves that this tmux honours OSC 2 (a raw `printf`
does rename the pane), so a pass means paytui neutralised the text, not that tmux ignored it.
Everything paytui writes to the pane is also logged (`pipe-pane`, attached before paytui starts),
so what it showed is read from that log once it has ended, not caught on screen in passing.
`tests/ui/test_terminal_bytes.py` runs `check`. The result is recorded in docs/reliability.md
("Hostile data and broken servers").
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
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
#: Where `start` leaves the file that lets the pane's command begin (removed by `stop`).
_GO = Path(tempfile.gettempdir()) / f"{SESSION}-go"
ROOT = Path(__file__).resolve().parents[1]
#: What the pane's command prints once paytui has exited (its exit status after it).
ENDED = "PANE-COMMAND-ENDED"
#: paytui's own control sequences (colours, cursor moves), taken out of the log before reading it.
CSI = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]")


def _tmux(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False
    )


def tmux(*args: str) -> str:
    return _tmux(*args).stdout.strip()


def stop() -> None:
    """End the check's session and its tmux server."""
    tmux("kill-server")
    shutil.rmtree(_GO, ignore_errors=True)


def pane_title() -> str:
    return tmux("display-message", "-p", "-t", SESSION, "#{pane_title}")


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


def start(command: str, log: Path | None = None) -> None:
    """Run `command` in the check's pane: a new session the first time, then the same pane
    respawned (killing the server's only session would end the server, and a `new-session` sent
    while it is still ending can be lost: nothing runs, the pane reads empty). With `log`, every
    byte written to the pane is appended to it, from before `command` starts."""
    _GO.mkdir(exist_ok=True)
    go = _GO / f"go-{time.monotonic_ns()}"
    held = f"until [ -e {shlex.quote(str(go))} ]; do sleep 0.05; done; {command}"
    if _tmux("has-session", "-t", SESSION).returncode == 0:
        done = _tmux("respawn-pane", "-k", "-t", SESSION, held)
    else:
        done = _tmux("new-session", "-d", "-s", SESSION, "-x", "200", "-y", "40", held)
    if done.returncode != 0:
        raise RuntimeError(f"tmux did not start the check's command: {done.stderr.strip()}")
    tmux("select-pane", "-t", SESSION, "-T", TITLE)
    if log is not None:
        _tmux("pipe-pane", "-t", SESSION, f"cat >> {shlex.quote(str(log))}")
    go.touch()


def check(db: Path, seconds: float = 90.0) -> list[tuple[str, bool]]:
    """Each check on the sandbox database `db` (holding the hostile charge), and whether it held.
    `seconds`: how long paytui may take to run to its end."""
    results: list[tuple[str, bool]] = []
    try:
        # Control: a raw OSC 2 does rename the pane in this tmux.
        start("printf '\\033]2;pwned\\007'; sleep 60")
        renamed = wait_for(lambda: pane_title() == "pwned", 10)
        results.append(("control: raw OSC 2 renames the tmux pane", renamed))

        log = db.parent / "hostile_terminal_check.log"
        log.unlink(missing_ok=True)
        run = f"{shlex.quote(sys.executable)} -m tests.ui.terminal_run {shlex.quote(str(db))}"
        start(f"cd {shlex.quote(str(ROOT))} && {run}; echo {ENDED} $?; sleep 60", log)
        ended = wait_for(lambda: ENDED in screen(), seconds)
        shown = CSI.sub("", log.read_text(encoding="utf-8", errors="replace")) if ended else ""
        last = screen()
        ran = f"{ENDED} 0" in last
        results.append(("paytui ran to its end" + ("" if ran else f" (pane: {last!r})"), ran))
        results.append(
            ("paytui shows the hostile name with placeholders", "Eve␛]2;pwned␇Mal" in shown)
        )
        results.append(("the detail's JSON view shows it as escapes", "\\u001b]2;pwned" in shown))
        title = pane_title()
        results.append((f"terminal title unchanged ({title!r})", title == TITLE))
    finally:
        stop()
    return results


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
    results = check(db)
    shutil.rmtree(work, ignore_errors=True)
    for name, held in results:
        print(f"{'held' if held else 'FAILED'}: {name}")
    return 0 if all(held for _, held in results) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    raise SystemExit(outer())
