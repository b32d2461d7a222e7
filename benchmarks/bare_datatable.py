"""The start-up baseline: a bare Textual app that paints a 50-row DataTable.

Run as a child of `benchmarks/startup.py`; it writes one line to the file descriptor named by
PAYTUI_BENCH_FD once the rows have been painted, then exits.
"""

from __future__ import annotations

import os

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header


class BareTable(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(
            "time", "id", "status", "result", "amount", "method", "name", "account", "tags"
        )
        for n in range(50):
            table.add_row(
                "2026-11-20 18:00:00",
                f"{n:024x}",
                "success",
                "Approved",
                f"{n}.00",
                "visa 1111",
                "Jane Doe",
                "pa_0000",
                "vip",
            )
        self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        fd = os.environ.get("PAYTUI_BENCH_FD")
        if fd:
            os.write(int(fd), b"painted\n")
        self.exit()


if __name__ == "__main__":
    BareTable().run()
