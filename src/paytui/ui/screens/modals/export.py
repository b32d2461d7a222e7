"""The export dialog (`x`): the current search (every page), a given list of charges, or the
audit trail, to CSV or JSON Lines, through the one exporter (`paytui.exporter`).

The form asks for the format, the columns (the default set, or chosen ones), UTC or local time,
and the file (default: the platformdirs documents directory). Enter starts it; a progress bar and
the row count follow every page; escape cancels (the partial file is removed) or closes. The
path is shown before, during and after. Nothing here holds the rows: each page is written and
dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, ProgressBar, Static

from paytui.exporter import (
    AUDIT_COLUMNS,
    CHARGE_COLUMNS,
    DEFAULT_CHARGE_COLUMNS,
    FORMATS,
    Column,
    ExportCancelled,
    Progress,
    default_export_path,
    export_charges_to_file,
    parse_columns,
    rows_of,
)
from paytui.text import safe
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.safe_input import SafeInput

#: Pages to export, made when the export starts (told the progress, for the total).
PageSource = Callable[[Progress], "AsyncIterator[Sequence[Any]] | Iterable[Sequence[Any]]"]


EXPORT_BINDINGS: list[Binding] = [
    Binding(
        "escape",
        "close",
        "Close / cancel",
        id="export.close",
        tooltip="Cancel a running export (its file is removed), or close",
    ),
]


class ExportModal(PaytuiModal[Path | None]):
    """Export `source`'s rows; dismisses with the written path (None: closed or cancelled)."""

    TEXT_ENTRY = True
    CSS_PATH = Path(__file__).with_name("confirm.tcss")
    DEFAULT_CSS = """
    ExportModal {
        align: center middle;
        background: $background 60%;
    }
    ExportModal #dialog-form {
        max-height: 16;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [*EXPORT_BINDINGS]
    HELP_TITLE = "Export"
    KEYS_TITLE = "Export dialog"

    def __init__(
        self,
        source: PageSource,
        what: str,
        *,
        table: dict[str, Column] | None = None,
        default_columns: Sequence[str] = DEFAULT_CHARGE_COLUMNS,
        stem: str = "paytui-charges",
    ) -> None:
        super().__init__()
        self.source = source
        self.what = what
        self.table = table if table is not None else CHARGE_COLUMNS
        self.default_columns = list(default_columns)
        self.stem = stem
        self.cancel = asyncio.Event()
        self.progress = Progress()
        self.running = False
        self.written: Path | None = None
        #: What a search's pages showed of its filters (`for_search`): the rows not proven to
        #: match are left out of the file, and the done line counts them.
        self.trust: Any = None

    # --- the three sources ---------------------------------------------------------------------
    @classmethod
    def for_search(cls, client: Any, query: Any, what: str) -> ExportModal:
        """Every page of a charge search (the charges list's `x`): only the rows proven to match
        (as `paytui export`; docs/export.md), the others counted when done."""
        from paytui.api.models import Trust
        from paytui.exporter import charge_pages

        trust = Trust()
        modal = cls(
            lambda progress: charge_pages(
                client, query, progress=progress, trust=trust, proven_only=True
            ),
            what,
        )
        modal.trust = trust
        return modal

    @classmethod
    def for_charges(cls, charges: Sequence[Any], what: str) -> ExportModal:
        """An explicit list of charges (the marked rows)."""

        def pages(progress: Progress) -> Iterable[Sequence[Any]]:
            progress.total = len(charges)
            return rows_of(charges)

        return cls(pages, what)

    @classmethod
    def for_audit(cls, rows: Callable[[], Iterable[Any]], what: str) -> ExportModal:
        """The audit trail (History's `x`), read from the journal in batches as it is written."""
        return cls(
            lambda progress: rows_of(rows()),
            what,
            table=AUDIT_COLUMNS,
            default_columns=list(AUDIT_COLUMNS),
            stem="paytui-history",
        )

    # --- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Export"
            yield Static(Text(safe(self.what)), id="dialog-info")
            with Vertical(id="dialog-form"):
                yield Static("Format: csv or jsonl", classes="field-label")
                yield SafeInput("csv", id="export-format")
                yield Static("Columns (comma-separated)", classes="field-label")
                yield SafeInput(",".join(self.default_columns), id="export-columns")
                yield Static("Times: utc or local", classes="field-label")
                yield SafeInput("utc", id="export-time")
                yield Static("File", classes="field-label")
                yield SafeInput(str(default_export_path("csv", stem=self.stem)), id="export-path")
            yield ProgressBar(id="export-progress", show_eta=False)
            yield Static(Text("enter: export    esc: close", style="dim"), id="export-status")

    def on_mount(self) -> None:
        self.query_one("#export-progress", ProgressBar).display = False
        self.set_focus(self.query_one("#export-format", Input))

    def _value(self, name: str) -> str:
        return self.query_one(f"#export-{name}", Input).value.strip()

    def _status(self, text: str, style: str = "") -> None:
        self.query_one("#export-status", Static).update(Text(safe(text), style=style))

    @on(Input.Changed, "#export-format")
    def _format_changed(self, event: Input.Changed) -> None:
        """A new format renames the default file's extension (a path the user typed stays)."""
        fmt = event.value.strip().lower()
        path_input = self.query_one("#export-path", Input)
        current = Path(path_input.value)
        if fmt in FORMATS and current.suffix.lstrip(".") in FORMATS:
            path_input.value = str(current.with_suffix(f".{fmt}"))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.start()

    # --- running -------------------------------------------------------------------------------
    def start(self) -> None:
        if self.running or self.written is not None:
            return
        fmt = self._value("format").lower()
        if fmt not in FORMATS:
            self._status("Format: csv or jsonl. Nothing written.", "bold")
            return
        try:
            columns = parse_columns(self._value("columns"), self.table, self.default_columns)
        except ValueError as exc:
            self._status(f"{error_detail(exc)}. Nothing written.", "bold")
            return
        zone = self._value("time").lower()
        if zone not in {"utc", "local"}:
            self._status("Times: utc or local. Nothing written.", "bold")
            return
        path_text = self._value("path")
        if not path_text:
            self._status("Enter the file to write. Nothing written.", "bold")
            return
        path = Path(path_text).expanduser()
        self.running = True
        for field in self.query(Input):
            field.disabled = True
        bar = self.query_one("#export-progress", ProgressBar)
        bar.display = True
        self._status(f"Exporting to {path}…")
        self._run(path, fmt, columns, zone == "local")

    def _tell(self, progress: Progress) -> None:
        bar = self.query_one("#export-progress", ProgressBar)
        if progress.total is not None:
            bar.update(total=progress.total, progress=progress.rows)
        of = f" of {progress.total:,}" if progress.total is not None else ""
        self._status(f"{progress.rows:,}{of} rows → {progress.path}   esc: cancel")

    @work(exclusive=True, group="export")
    async def _run(self, path: Path, fmt: str, columns: list[str], local: bool) -> None:
        try:
            result = await export_charges_to_file(
                self.source(self.progress),
                path,
                fmt,
                columns=columns,
                local=local,
                progress=self.progress,
                on_progress=self._tell,
                cancel=self.cancel,
                table=self.table,
            )
        except ExportCancelled as exc:
            self._status(f"Cancelled after {exc.rows:,} rows; no file was left.", "bold")
            self.app.notify("Export cancelled; no file was left.", title="Export", markup=False)
            self.running = False
            return
        except Exception as exc:
            self._status(f"Export failed: {error_detail(exc)}. No file was left.", "bold")
            self.running = False
            return
        self.running = False
        self.written = result.path
        bar = self.query_one("#export-progress", ProgressBar)
        bar.update(total=max(result.rows, 1), progress=max(result.rows, 1))
        left = len(self.trust.unproven) if self.trust is not None else 0
        out = f"; {left:,} not proven to match left out" if left else ""
        self._status(f"Exported {result.rows:,} rows to {result.path}{out}   esc: close")
        self.app.notify(
            f"Exported {result.rows:,} rows to {result.path}{out}",
            title="Export",
            severity="warning" if left else "information",
            markup=False,
        )

    def action_close(self) -> None:
        if self.running:
            self.cancel.set()  # the worker stops before the next page and removes the file
            return
        self.dismiss(self.written)


__all__ = ["ExportModal"]
