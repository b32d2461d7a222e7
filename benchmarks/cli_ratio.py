"""A script command against Python importing what it needs: `paytui history --limit 1` and
`paytui charges show ID`, each over `python -c "import httpx, json, sqlite3, argparse"`.

Interleaved pairs (the bare import, then the command, again and again), each process's own CPU
(user + sys, from `getrusage(RUSAGE_CHILDREN)` around it) and wall time; the figure is the median
of the pairs' ratios (target 1.3), with the medians of both sides beside it. CPU is the figure to
hold a change to on a shared machine (wall time grows with the load; the 1-minute load average is
printed with it). The command runs in a new HOME (an empty journal, no config file;
`history_config` is `history` with a small config file); `charges show` asks
`paytui sandbox` served on loopback in its own process, not measured. Run alone:
`python -m benchmarks.cli_ratio [--pairs N]`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.figures import emit, figure

#: What a script command cannot do without (the client, its output, the journal, its options).
BARE = [sys.executable, "-c", "import httpx, json, sqlite3, argparse"]
TARGET = 1.3
#: A small config file for `history_config`: a default profile (the sandbox) and two tables.
CONFIG_FILE = """default_profile = "sandbox"

[ui]
claim_lease_seconds = 90

[today]
hold_days = 5
"""


def paytui_command() -> list[str]:
    """`paytui` as it is installed beside this Python (the console script), else the same call."""
    script = Path(sys.executable).with_name("paytui")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from paytui.cli import main; sys.exit(main())"]


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds (user + sys) and wall seconds of one run of `command` (it must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def pairs(command: list[str], env: dict[str, str], runs: int) -> dict[str, list[float]]:
    """`runs` interleaved pairs (bare, command), after one unmeasured run of each."""
    timed(BARE, env)
    timed(command, env)
    seen: dict[str, list[float]] = {"bare_cpu": [], "cpu": [], "bare_wall": [], "wall": []}
    for _ in range(runs):
        bare_cpu, bare_wall = timed(BARE, env)
        cpu, wall = timed(command, env)
        seen["bare_cpu"].append(bare_cpu)
        seen["cpu"].append(cpu)
        seen["bare_wall"].append(bare_wall)
        seen["wall"].append(wall)
    return seen


def report(name: str, seen: dict[str, list[float]]) -> Iterator[dict[str, Any]]:
    cpu = [c / b for c, b in zip(seen["cpu"], seen["bare_cpu"], strict=True)]
    wall = [w / b for w, b in zip(seen["wall"], seen["bare_wall"], strict=True)]
    yield figure(f"cli_cpu_ratio/{name}", cpu, "x", TARGET)
    yield figure(f"cli_wall_ratio/{name}", wall, "x", TARGET)
    for key in ("cpu", "bare_cpu", "wall", "bare_wall"):
        yield figure(f"cli_{key}_ms/{name}", [s * 1000 for s in seen[key]], "ms", None)


def charge_id(paytui: list[str], env: dict[str, str], base_url: str) -> str:
    found = subprocess.run(
        [*paytui, "charges", "search", "--limit", "1", "--format", "json", "--base-url", base_url],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    rows = json.loads(found.stdout)
    return str(rows[0]["charge_id"])


def figures(runs: int, charges: int = 200) -> Iterator[dict[str, Any]]:
    from benchmarks.loopback_details import served
    from benchmarks.startup import byte_compile
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    byte_compile()  # as an installed paytui: no module compiled from source on each run
    paytui = paytui_command()
    with tempfile.TemporaryDirectory(prefix="paytui-cli-") as home:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PAYTUI_", "XDG_"))},
            "HOME": home,
        }
        yield figure("cli_load_1m", [os.getloadavg()[0]], "load", None)
        yield from report("history", pairs([*paytui, "history", "--limit", "1"], env, runs))
        # The same with a config file, as a person's machine has one: its tables are validated.
        config = Path(home) / ".config" / "paytui" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(CONFIG_FILE, encoding="utf-8")
        seen = pairs([*paytui, "history", "--limit", "1"], env, runs)
        config.unlink()
        yield from report("history_config", seen)
        db = Path(home) / "sandbox.db"
        from paytui.sandbox.seed import build_database

        build_database(db, charges=charges)
        # The sandbox's demo client, in the environment (never in arguments).
        env |= {"PAYTUI_CLIENT_ID": DEMO_CLIENT_ID, "PAYTUI_CLIENT_SECRET": DEMO_CLIENT_SECRET}
        with served(db) as base_url:
            show = [*paytui, "charges", "show", charge_id(paytui, env, base_url)]
            seen = pairs([*show, "--base-url", base_url], env, runs)
        yield from report("charges_show", seen)
        yield figure("cli_load_1m", [os.getloadavg()[0]], "load", None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=9, help="interleaved pairs (9)")
    args = parser.parse_args(argv)
    for item in figures(args.pairs):
        emit(item)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
