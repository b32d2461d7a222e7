"""Start-up budget: time to the first painted page of charges, against a bare Textual baseline.

Both programs run the same way: a fresh Python process on a real pseudo-terminal (120x40), timed
from spawn until the program reports that its rows are painted. Runs are interleaved so that
machine noise hits both alike, and the figures are medians. Prints JSON.

    .venv/bin/python benchmarks/startup.py [--runs 11] [--busy-core]

`--busy-core`: one core kept busy (`python3 -c 'while True: pass'`, not pinned) from before the
first run until after the last, as a support desk's browser or softphone would.

`--before SRC`: a change's before and after side by side: the paytui of another checkout's
`src` (its bytecode written first, `python -m compileall SRC`) runs as a third program in each
round, the order of the two trees alternating. The kept-warm sandbox is reused only by a tree
of the same build (`embedded.build_id`: the sandbox sources' mtimes among others), so give the
other checkout's `src/paytui/sandbox/*.py` this tree's mtimes (`touch -r`) when they are the
same files, or each start replaces the other's server.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import pty
import resource
import select
import statistics
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUDGET_RATIO = 1.3


def byte_compile() -> None:
    """Write paytui's bytecode, as installing it does (pip compiles a wheel's modules).

    Both programs must start the way an installed program starts: Textual's modules were
    compiled when it was installed, paytui's (an editable install here) would otherwise be
    compiled from source on every run where `PYTHONDONTWRITEBYTECODE` is set (as on the
    benchmark machine): 0.1 s and more that an installed paytui does not spend.
    """
    import compileall

    import paytui

    compileall.compile_dir(str(Path(paytui.__file__).parent), quiet=1)


@contextlib.contextmanager
def busy_cores(cores: int) -> Iterator[None]:
    """`cores` processes spinning (`while True: pass`) from now until the block ends."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _time_once(
    argv: list[str], env: dict[str, str], timeout: float = 30.0, stderr: int | None = None
) -> float:
    """Spawn argv on a fresh pty and return seconds until it writes to the probe pipe.

    `stderr` (a file descriptor) takes the child's standard error instead of the terminal.
    """
    return _run_once(argv, env, timeout, stderr)["painted"]


#: Typed at the first rows by `_run_once(keys=True)`: down, down, mark (the third row).
KEYS = b"jj "


def _run_once(
    argv: list[str],
    env: dict[str, str],
    timeout: float = 30.0,
    stderr: int | None = None,
    *,
    keys: bool = False,
) -> dict[str, float]:
    """Spawn argv on a fresh pty; seconds from the spawn to each line the probe writes.

    "painted": the first rows; "cpu": the CPU seconds (user + system) of the program and the
    children it waited for (the first-page child), whole run. With `keys` (the paytui probe
    only, `startup_paytui.py`): `KEYS` is written to the terminal the moment the rows are
    reported, as a person types at them; then "moved" (the first key applied: time to
    interactive) and "marked" (the mark applied; `marked_row` the row it is on, 3 when every
    key landed where it was meant).
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    probe_r, probe_w = os.pipe()
    child_env = {
        **env,
        **({"PAYTUI_BENCH_KEYS": "1"} if keys else {}),
        "PAYTUI_BENCH_FD": str(probe_w),
        "TERM": "xterm-256color",
        "COLUMNS": "120",
        "LINES": "40",
    }
    cpu_before = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave if stderr is None else stderr,
        env=child_env,
        pass_fds=(probe_w,),
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    os.close(probe_w)
    seen: dict[str, float] = {}
    deadline = start + timeout
    pending = b""
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([master, probe_r], [], [], 0.5)
            if master in ready:
                with contextlib.suppress(OSError):
                    os.read(master, 65536)  # drain the screen output so the child never blocks
            if probe_r in ready:
                chunk = os.read(probe_r, 64)
                now = time.perf_counter() - start
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    name, _, value = line.decode().partition(" ")
                    seen.setdefault(name, now)
                    if value:
                        seen[f"{name}_row"] = float(value)
                    if name == "painted" and keys:
                        os.write(master, KEYS)
                if not chunk or not keys or "marked" in seen:
                    break
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)
        os.close(probe_r)
    seen["cpu"] = _children_cpu() - cpu_before
    if "painted" not in seen:
        raise RuntimeError(f"{argv} never reported a painted page")
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--busy-core", action="store_true", help="one core kept busy meanwhile")
    parser.add_argument("--before", type=Path, help="another checkout's src, run beside this one")
    args = parser.parse_args()
    with busy_cores(1 if args.busy_core else 0):
        return _measure(args.runs, busy=args.busy_core, before=args.before)


def _measure(runs: int, *, busy: bool, before: Path | None) -> int:
    env = dict(os.environ)
    bare = [sys.executable, str(HERE / "bare_datatable.py")]
    paytui = [sys.executable, str(HERE / "startup_paytui.py")]
    byte_compile()
    trees = {"paytui": env}
    if before is not None:
        trees["before"] = {**env, "PYTHONPATH": str(before)}
    for tree_env in trees.values():
        _run_once(paytui, tree_env)  # warm-up: builds the sandbox database, fills OS caches
    _run_once(bare, env)
    times: dict[str, list[float]] = {"bare": [], **{name: [] for name in trees}}
    cpu: dict[str, list[float]] = {name: [] for name in times}
    for round_ in range(runs):
        seen = _run_once(bare, env)
        times["bare"].append(seen["painted"])
        cpu["bare"].append(seen["cpu"])
        for name in sorted(trees, reverse=bool(round_ % 2)):  # the trees' order alternates
            seen = _run_once(paytui, trees[name])
            times[name].append(seen["painted"])
            cpu[name].append(seen["cpu"])
    median = {name: statistics.median(values) for name, values in times.items()}
    median_cpu = {name: statistics.median(values) for name, values in cpu.items()}
    ratio = median["paytui"] / median["bare"]
    report: dict[str, object] = {
        "runs": runs,
        "busy_core": busy,
        "bare_datatable_median_s": round(median["bare"], 3),
        "paytui_first_page_median_s": round(median["paytui"], 3),
        "ratio": round(ratio, 3),
        "cpu_ratio": round(median_cpu["paytui"] / median_cpu["bare"], 3),
        "budget_ratio": BUDGET_RATIO,
        "within_budget": ratio <= BUDGET_RATIO,
        "bare_all_s": [round(t, 3) for t in times["bare"]],
        "paytui_all_s": [round(t, 3) for t in times["paytui"]],
    }
    if before is not None:
        report["before_ratio"] = round(median["before"] / median["bare"], 3)
        report["before_cpu_ratio"] = round(median_cpu["before"] / median_cpu["bare"], 3)
        report["before_all_s"] = [round(t, 3) for t in times["before"]]
    print(json.dumps(report, indent=2))
    return 0 if ratio <= BUDGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
