"""Where the start-up goes: a timeline of `paytui`'s phases, ms since spawn, medians of N runs.

    .venv/bin/python -m benchmarks.startup_phases [--runs 5]

Each run is the start-up probe's (`startup_paytui.py`: `paytui` with no arguments on a real pty,
120x40, the kept-warm sandbox; `PAYTUI_SANDBOX_IDLE=0` for a cold one) plus marks: first imports
of the modules that matter (an audit hook on "import": the time an import *starts*), the launcher's
steps (connection resolved, sandbox started, `build_app`), the app's (`on_load`, `on_mount`,
connecting, the shell's first paint, the client ready) and the charge search (token, first
search) until the first page of rows is painted. Wall-clock under whatever else runs on the
machine: compare phases within one run of this tool, and use `-X importtime` or CPU time
(`startup.py`'s interleaved runs) for costs. The byte code is compiled first, as an install does.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: Modules whose first import is marked (the start of the import).
WATCHED = (
    "pydantic",
    "tomllib",
    "platformdirs",
    "paytui.sandbox.embedded",
    "textual",
    "textual.app",
    "paytui.ui.app",
    "paytui.ui.screens.charges",
    "httpx",
    "paytui.api.models",
    "paytui.api.queries",
    "paytui.search.query",
    "paytui.ui.actions_service",
    "anyio",
)


def _child() -> int:
    """In the probed process: mark the phases, run `paytui`, write the marks when rows paint."""
    spawned = float(os.environ["PHASES_T0"])
    marks: list[tuple[float, str]] = []

    def mark(name: str) -> None:
        marks.append(((time.time() - spawned) * 1000, name))

    mark("interpreter up")
    seen: set[str] = set()

    def on_import(event: str, args: tuple[Any, ...]) -> None:
        if event == "import" and args[0] in WATCHED and args[0] not in seen:
            seen.add(args[0])
            mark(f"import {args[0]}")

    sys.addaudithook(on_import)
    from paytui.ui import launch

    mark("launcher imported")
    real_build_app = launch.build_app

    def build_app(connection: Any, *, sandbox: Any = None, **kwargs: Any) -> Any:
        mark("connection resolved, sandbox started: build_app")
        import paytui.ui.app as app_module

        real = app_module.PaytuiApp

        class Probed(real):  # type: ignore[misc, valid-type]
            _reported = False

            def on_load(self) -> None:
                mark("app on_load")
                super().on_load()

            def on_mount(self) -> None:
                mark("app on_mount (first screen composed)")
                super().on_mount()

            def _after_first_paint(self) -> None:
                mark("first paint (the shell)")
                super()._after_first_paint()

            async def _connect(self, future: Any) -> None:
                await super()._connect(future)
                mark("client ready")

            def on_results_painted(self, message: Any) -> None:
                if self._reported or not message.total:
                    return
                self._reported = True
                mark("first page of rows painted")
                with open(os.environ["PHASES_OUT"], "w") as out:
                    out.writelines(f"{ms:.1f}\t{name}\n" for ms, name in marks)
                os.write(int(os.environ["PAYTUI_BENCH_FD"]), b"painted\n")
                self.exit()

        Probed.__name__ = Probed.__qualname__ = "PaytuiApp"
        app_module.PaytuiApp = Probed  # type: ignore[misc]
        try:
            return real_build_app(connection, sandbox=sandbox, **kwargs)
        finally:
            app_module.PaytuiApp = real  # type: ignore[misc]

    launch.build_app = build_app  # type: ignore[assignment]
    return launch.main([])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child()
    import statistics

    sys.path.insert(0, str(HERE.parent))
    from benchmarks.startup import _time_once, byte_compile

    byte_compile()
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"paytui-phases-{os.getpid()}.tsv"
    phases: dict[str, list[float]] = defaultdict(list)
    totals: list[float] = []
    for run in range(args.runs + 1):  # the first run warms the sandbox and the OS caches
        env = {**os.environ, "PHASES_T0": repr(time.time()), "PHASES_OUT": str(out)}
        total = _time_once([sys.executable, str(Path(__file__).resolve()), "--child"], env)
        if run == 0:
            continue
        totals.append(total * 1000)
        for line in out.read_text().splitlines():
            ms, name = line.split("\t", 1)
            phases[name].append(float(ms))
    out.unlink(missing_ok=True)
    print(f"load {os.getloadavg()[0]:.2f}, {args.runs} runs, medians (ms since spawn):")
    for name in sorted(phases, key=lambda n: statistics.median(phases[n])):
        print(f"{statistics.median(phases[name]):8.1f}  {name}")
    print(f"{statistics.median(totals):8.1f}  the probe's pipe read by the parent (startup.py)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
