"""Keys typed at the first frame: `j j space` sent to the real `paytui` the moment its rows show.

Each launch runs `paytui` (no arguments: the embedded sandbox) in its own tmux session at
120x40, with a temporary HOME shared by the launches (the sandbox's database is built by the
first one, before the count starts). The screen is read with `capture-pane` until the first
charge row shows, then `j j space` is sent at once, as a person who sees the rows types; the
launch counts when the summary says "1 marked" with the mark (●) on the third row. Prints
JSON: launches, marked, the row each launch marked (None: nothing), and how long after the
spawn the rows showed and the mark did.

    .venv/bin/python -m benchmarks.first_keys [--launches 5] [--busy 1]

`--busy N` keeps N cores busy (`while True: pass`) while it runs, as the issue's "under load".
Needs tmux. The deadline for a mark (`--deadline`, 20 s) only ends a launch that lost the keys.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.startup import busy_cores

ROOT = Path(__file__).resolve().parents[1]
#: A charge row of the list: its time column first (the mark sign, if any, before it).
ROW = re.compile(r"^(.)(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) ")
MARK = "●"
KEYS = ("j", "j", "space")


#: The probe's own tmux server (`tmux -L`), kept up by a session of its own for the whole run:
#: on the machine's shared server the last session's end stopped the server, and the next
#: launch's `new-session` could meet it stopping, so that launch showed nothing (1 of 8 at
#: times, counted as keys lost).
SOCKET = f"paytui-first-keys-{os.getpid()}"


def _tmux(*args: str) -> str:
    done = subprocess.run(
        ["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False
    )
    return done.stdout


def _rows(screen: str) -> list[str]:
    """The signs before each charge row's time (a space, or the mark)."""
    return [m.group(1) for line in screen.splitlines() if (m := ROW.match(line))]


def launch(session: str, env: dict[str, str], deadline: float) -> dict[str, object]:
    """One launch: spawn, wait for the rows, type `j j space`, wait for the mark."""
    program = str(ROOT / ".venv" / "bin" / "paytui")
    command = " ".join(f"{k}={v}" for k, v in env.items()) + f" {program}"
    start = time.perf_counter()
    _tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", f"env {command}")
    rows_s = marked_s = None
    marked_row: int | None = None
    try:
        end = start + deadline
        while time.perf_counter() < end:
            if _rows(_tmux("capture-pane", "-p", "-t", session)):
                rows_s = time.perf_counter() - start
                _tmux("send-keys", "-t", session, *KEYS)
                break
        while rows_s is not None and time.perf_counter() < end:
            screen = _tmux("capture-pane", "-p", "-t", session)
            if "1 marked" in screen:
                signs = _rows(screen)
                marked_row = signs.index(MARK) + 1 if MARK in signs else None
                marked_s = time.perf_counter() - start
                break
            time.sleep(0.02)
    finally:
        _tmux("kill-session", "-t", session)
    return {"rows_s": rows_s, "marked_s": marked_s, "marked_row": marked_row}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument("--busy", type=int, default=0, help="cores kept busy meanwhile")
    parser.add_argument("--deadline", type=float, default=20.0)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print(json.dumps({"error": "tmux is not installed"}))
        return 2
    home = tempfile.mkdtemp(prefix="paytui-first-keys-")
    env = {
        "HOME": home,
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
    }
    tag = f"first-keys-{os.getpid()}"
    _tmux("new-session", "-d", "-s", f"{tag}-keep", "sleep 86400")  # the server stays up
    try:
        launch(f"{tag}-warm", env, 120.0)  # builds the sandbox's database
        results = []
        with busy_cores(args.busy):
            for n in range(args.launches):
                results.append(launch(f"{tag}-{n}", env, args.deadline))
    finally:
        subprocess.run(
            [str(ROOT / ".venv" / "bin" / "paytui"), "sandbox", "--stop"],
            env={**os.environ, **env},
            capture_output=True,
            check=False,
        )
        shutil.rmtree(home, ignore_errors=True)
        _tmux("kill-server")
    marked = sum(1 for r in results if r["marked_row"] == 3)
    print(
        json.dumps(
            {
                "keys": " ".join(KEYS),
                "launches": len(results),
                "busy_cores": args.busy,
                "marked_third_row": marked,
                "launch": results,
            },
            indent=2,
        )
    )
    return 0 if marked == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
