"""The modules `paytui` imports before its first page of charges is painted, against a budget.

    .venv/bin/python -m benchmarks.import_budget            # the figures, and what is over budget
    .venv/bin/python -m benchmarks.import_budget --write    # accept the present set as the budget

Start-up time rots one import at a time: a module pulled onto the first paint's path costs a few
milliseconds that no timing test on a shared machine can see. This counts instead of timing. One
run of the start-up probe (`startup_paytui.py`: the real start path on a real pty, the embedded
sandbox) writes the modules loaded when the first page of rows is painted; `-X importtime` gives
what their imports cost (self time, microseconds; printed, not judged: it moves with the machine).

The budget (`import_budget.json`, committed) holds every paytui module and every other top-level
package allowed on that path, and the total count. `tests/test_import_budget.py` fails when a
paytui module or a package is added to the path, or the count grows past the budget by more than
`COUNT_SLACK` (a library's patch release may add a private module or two). A smaller set passes
and says so: `--write` then locks the gain in.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from benchmarks.startup import _time_once, byte_compile

HERE = Path(__file__).resolve().parent
BUDGET_FILE = HERE / "import_budget.json"
#: How far the module count may grow beyond the budget before it fails (library patch releases).
COUNT_SLACK = 0.03
PAINTED_LINE = "import time: painted"
XDG_KINDS = ("CONFIG", "DATA", "STATE", "CACHE")


class Budget(TypedDict):
    """`import_budget.json`: what may be loaded at the first paint."""

    module_count: int
    paytui_modules: list[str]
    packages: list[str]


@dataclass(frozen=True)
class FirstPaintImports:
    """What was loaded at the first paint: module names, and `-X importtime`'s self times (us)."""

    modules: frozenset[str]
    self_us: dict[str, int]

    @property
    def paytui_modules(self) -> frozenset[str]:
        return frozenset(m for m in self.modules if m == "paytui" or m.startswith("paytui."))

    @property
    def packages(self) -> frozenset[str]:
        """Top-level names other than paytui (the standard library's included)."""
        return frozenset(m.split(".")[0] for m in self.modules if not m.startswith("paytui"))

    @property
    def import_ms(self) -> float:
        return sum(self.self_us.values()) / 1000


def measure() -> FirstPaintImports:
    """One start of the probe on a pty, as a new user's first `paytui`: a home of its own (no
    profile, so the embedded sandbox, not kept warm), nothing of this user's config, journal,
    keyring or `PAYTUI_*` environment. The modules loaded when its first page is painted."""
    with tempfile.TemporaryDirectory(prefix="paytui-imports-") as tmp:
        modules_file = Path(tmp) / "modules.txt"
        stderr_file = Path(tmp) / "stderr.txt"
        home = Path(tmp) / "home"
        child_env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PAYTUI_", "XDG_"))},
            "HOME": str(home),
            **{f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in XDG_KINDS},
            "XDG_RUNTIME_DIR": str(home / "run"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "PAYTUI_BENCH_MODULES": str(modules_file),
            "PAYTUI_SANDBOX_IDLE": "0",
        }
        for directory in (home, home / "run"):
            directory.mkdir(mode=0o700)
        with stderr_file.open("wb") as err:
            _time_once(
                [sys.executable, "-X", "importtime", str(HERE / "startup_paytui.py")],
                child_env,
                timeout=60.0,
                stderr=err.fileno(),
            )
        modules = frozenset(modules_file.read_text(encoding="utf-8").split())
        return FirstPaintImports(modules, _self_times(stderr_file.read_text(errors="replace")))


def _self_times(stderr: str) -> dict[str, int]:
    """`-X importtime` lines up to the probe's "painted" line: module -> self time (us)."""
    times: dict[str, int] = {}
    for line in stderr.splitlines():
        if line.startswith(PAINTED_LINE):
            break
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) == 3 and parts[0].isdigit():
            times[parts[2].strip()] = int(parts[0])
    return times


def load_budget() -> Budget:
    budget: Budget = json.loads(BUDGET_FILE.read_text(encoding="utf-8"))
    return budget


def over_budget(found: FirstPaintImports, budget: Budget) -> list[str]:
    """One line per way `found` exceeds `budget`; empty when within it."""
    problems: list[str] = []
    allowed_paytui = set(budget["paytui_modules"])
    allowed_packages = set(budget["packages"])
    for name in sorted(found.paytui_modules - allowed_paytui):
        problems.append(f"paytui module on the first paint's path: {name}")
    for name in sorted(found.packages - allowed_packages):
        problems.append(f"package on the first paint's path: {name}")
    limit = budget["module_count"] * (1 + COUNT_SLACK)
    if len(found.modules) > limit:
        problems.append(
            f"{len(found.modules)} modules loaded at the first paint, budget "
            f"{budget['module_count']} (+{COUNT_SLACK:.0%})"
        )
    return problems


def as_budget(found: FirstPaintImports) -> Budget:
    return {
        "module_count": len(found.modules),
        "paytui_modules": sorted(found.paytui_modules),
        "packages": sorted(found.packages),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="accept the present set as budget")
    args = parser.parse_args()
    byte_compile()
    found = measure()
    heaviest = sorted(found.self_us.items(), key=lambda kv: -kv[1])[:15]
    report: dict[str, object] = {
        "modules_at_first_paint": len(found.modules),
        "paytui_modules": len(found.paytui_modules),
        "import_self_ms": round(found.import_ms, 1),
        "heaviest_ms": {name: round(us / 1000, 1) for name, us in heaviest},
    }
    if args.write:
        BUDGET_FILE.write_text(json.dumps(as_budget(found), indent=1) + "\n", encoding="utf-8")
        report["written"] = str(BUDGET_FILE)
    else:
        report["over_budget"] = over_budget(found, load_budget())
    print(json.dumps(report, indent=2))
    return 1 if report.get("over_budget") else 0


if __name__ == "__main__":
    raise SystemExit(main())
