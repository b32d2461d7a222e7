"""Each test's CPU time, recorded on demand: where the suite's time goes, on a shared machine.

Wall time says little on a machine other suites share; CPU time (user + system of the test
process, and of the child processes it waited for) much more. Opt in with
``PAYTUI_TEST_CPU_PROFILE=FILE``: every test process (each xdist worker) appends one line per test
to FILE (test id, CPU seconds of setup + call + teardown, wall seconds), and one line for the
CPU it spent outside tests (start, collection). Summarise with
``python -m tests.cpu_profile FILE`` (totals by directory, by file, the largest tests, the median
of the UI tests). The hook is registered by `tests/conftest.py` only when the variable is set.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

VARIABLE = "PAYTUI_TEST_CPU_PROFILE"


def _cpu() -> float:
    """CPU seconds of this process and of its children it waited for."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class CpuProfile:
    """A pytest plugin appending ``cpu<TAB>wall<TAB>nodeid`` per test to a file."""

    def __init__(self, path: Path, *, controller: bool = False) -> None:
        self.path = path
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        #: The process that only starts and feeds xdist workers: its children are the workers,
        #: which record themselves, so it counts its own CPU only.
        self.controller = controller
        self.in_tests = 0.0

    def _write(self, line: str) -> None:
        with self.path.open("a", encoding="utf-8") as out:  # one short line: append is atomic
            out.write(line + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, Any, None]:
        cpu, wall = _cpu(), time.monotonic()
        yield
        spent = _cpu() - cpu
        self.in_tests += spent
        self._write(f"{spent:.4f}\t{time.monotonic() - wall:.4f}\t{item.nodeid}")

    def pytest_sessionfinish(self) -> None:
        if self.controller:
            times = os.times()
            outside = times.user + times.system
        else:
            outside = _cpu() - self.in_tests
        self._write(f"{outside:.4f}\t0\t<outside tests: {self.worker}>")


def register(config: pytest.Config) -> None:
    """Record each test's CPU when `VARIABLE` names a file (called by tests/conftest.py)."""
    target = os.environ.get(VARIABLE)
    if target:
        controller = not hasattr(config, "workerinput") and bool(
            config.getoption("numprocesses", None)
        )
        plugin = CpuProfile(Path(target), controller=controller)
        config.pluginmanager.register(plugin, "paytui-cpu-profile")


def summarise(path: Path, top: int = 40) -> str:
    """Totals by directory and file, the `top` largest tests, the UI tests' median."""
    rows: list[tuple[float, str]] = []
    outside = 0.0
    for line in path.read_text(encoding="utf-8").splitlines():
        cpu, _wall, nodeid = line.split("\t", 2)
        if nodeid.startswith("<outside"):
            outside += float(cpu)
        else:
            rows.append((float(cpu), nodeid))
    by_dir: dict[str, list[float]] = defaultdict(list)
    by_file: dict[str, list[float]] = defaultdict(list)
    for cpu, nodeid in rows:
        file = nodeid.split("::", 1)[0]
        by_file[file].append(cpu)
        by_dir[file.rsplit("/", 1)[0]].append(cpu)
    total = sum(cpu for cpu, _ in rows)
    out = [f"tests: {len(rows)}  CPU in tests: {total:.1f} s  outside tests: {outside:.1f} s"]
    ui = [cpu for cpu, nodeid in rows if nodeid.startswith("tests/ui/")]
    if ui:
        out.append(f"tests/ui median {statistics.median(ui):.3f} s over {len(ui)} tests")
    out.append("\nby directory (CPU s, tests, median):")
    for name, cpus in sorted(by_dir.items(), key=lambda kv: -sum(kv[1])):
        out.append(f"  {sum(cpus):8.1f} {len(cpus):5d} {statistics.median(cpus):7.3f}  {name}")
    out.append("\nby file, largest 30:")
    for name, cpus in sorted(by_file.items(), key=lambda kv: -sum(kv[1]))[:30]:
        out.append(f"  {sum(cpus):8.1f} {len(cpus):5d} {statistics.median(cpus):7.3f}  {name}")
    out.append(f"\nlargest {top} tests:")
    for cpu, nodeid in sorted(rows, reverse=True)[:top]:
        out.append(f"  {cpu:8.2f}  {nodeid}")
    return "\n".join(out)


if __name__ == "__main__":
    print(summarise(Path(sys.argv[1]), *(int(arg) for arg in sys.argv[2:3])))
