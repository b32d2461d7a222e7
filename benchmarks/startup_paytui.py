"""The start-up probe: `paytui` with no arguments, exactly as a user starts it, plus one listener.

Run as a child of `benchmarks/startup.py`. It goes through the real start path,
`paytui.ui.launch.main([])`: parse the arguments, resolve the connection (no profile: the embedded
sandbox), start or reuse the sandbox, import Textual, run the app on the terminal. The only change
is the app class: `launch.build_app` builds whatever `paytui.ui.app.PaytuiApp` names when it runs,
so this script swaps in a subclass that writes one line to the file descriptor named by
PAYTUI_BENCH_FD when the first `ResultsPainted` with rows arrives, then exits the app. The swap
happens when `build_app` is called (after the sandbox has been started), so the import order of
the real start path is kept; the product code has no benchmark hook.

With PAYTUI_BENCH_KEYS set, the app does not exit at the first rows: the harness types `j j space`
the moment "painted" is reported (as a person who sees the rows), and the probe writes "moved"
when the first key has been applied (the cursor on the second row: time to interactive), then
"marked N" when the mark has (N: the row of the charge marked, 3 when the keys landed as meant),
and exits. Nothing is typed before the first paint, so the first paint is timed as without it.

With PAYTUI_BENCH_MODULES naming a file, the probe also writes there the modules loaded at that
moment (one name a line) and a line `import time: painted` to stderr, so that `-X importtime`
lines before it are the imports of the first paint (`benchmarks/import_budget.py`), however
long that first paint takes: the app's "at the latest" start of deferred work is put off then.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from paytui.ui import launch

_real_build_app = launch.build_app

if os.environ.get("PAYTUI_BENCH_MODULES"):
    # Counting what the first paint needs, the rows counted are the first-page child's: on a
    # machine loaded enough that the child gave up (`CHILD_DEADLINE`, 20 s), the screen would
    # search itself and the client would be counted. The child is forked before `build_app`,
    # so its deadline is put off here (the module is on the first paint's path anyway).
    from paytui.ui import first_page as _first_page

    _first_page.CHILD_DEADLINE = 3600.0


def _build_probed_app(connection: Any, *, sandbox: Any = None, **kwargs: Any) -> Any:
    import paytui.ui.app as app_module
    from paytui.ui.messages import ResultsPainted

    real_app_class = app_module.PaytuiApp
    if os.environ.get("PAYTUI_BENCH_MODULES"):
        # Counting what the first paint needs: the "at the latest" fallback that starts the
        # deferred work when the first page is slow (a loaded machine) must not count as it.
        app_module.RESUME_AFTER = 3600.0  # type: ignore[attr-defined]
        # Nor must connecting's own start, which waits for the first-page child's rows only
        # so long (`FIRST_PAGE_WAIT`): the rows counted are the child's, as on a quick machine.
        app_module.FIRST_PAGE_WAIT = 3600.0  # type: ignore[attr-defined]

    keys = bool(os.environ.get("PAYTUI_BENCH_KEYS"))

    def probe(line: str) -> None:
        fd = os.environ.get("PAYTUI_BENCH_FD")
        if fd:
            os.write(int(fd), f"{line}\n".encode())

    class ProbedApp(real_app_class):  # type: ignore[misc, valid-type]
        _reported = False
        _moved = False

        def on_charge_table_highlighted(self, message: Any) -> None:
            """The keys typed at the first rows, as they are applied (PAYTUI_BENCH_KEYS)."""
            if not (keys and self._reported):
                return
            if not self._moved and message.row >= 1:
                self._moved = True
                probe("moved")
            table = message._sender  # the charge table that moved
            marked = {charge.charge_id for charge in table.marks.charges()}
            if marked:
                rows = [row for row, charge in table.loaded_from(0) if charge.charge_id in marked]
                probe(f"marked {rows[0] + 1 if rows else 0}")
                self.exit()

        def on_results_painted(self, message: ResultsPainted) -> None:
            if self._reported or not message.total:
                return
            self._reported = True
            modules_file = os.environ.get("PAYTUI_BENCH_MODULES")
            if modules_file:
                with open(modules_file, "w", encoding="utf-8") as out:
                    out.write("\n".join(sorted(sys.modules)) + "\n")
                os.write(2, b"import time: painted\n")
            probe("painted")
            if not keys:
                self.exit()

    ProbedApp.__name__ = ProbedApp.__qualname__ = "PaytuiApp"  # same CSS type name
    app_module.PaytuiApp = ProbedApp  # type: ignore[misc]
    try:
        return _real_build_app(connection, sandbox=sandbox, **kwargs)
    finally:
        app_module.PaytuiApp = real_app_class  # type: ignore[misc]


launch.build_app = _build_probed_app  # type: ignore[assignment]

if __name__ == "__main__":
    sys.exit(launch.main([]))
