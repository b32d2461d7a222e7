"""The one exporter: charges (a whole search, page by page, or a given list) and the audit trail
to CSV or JSON Lines, streamed, for the app (`x`) and the command line (`paytui export`,
`--format csv|jsonl`).

Why streamed: a search can match 100,000 charges. Each page is turned into lines and written
before the next is read, so memory stays flat whatever the row count (docs/performance.md has
the figure). A file export goes to ``NAME.part`` and is renamed into place only when complete:
a file at the chosen path is always a whole export; a cancelled or failed one leaves nothing.

What a row holds (docs/export.md):

- times in UTC (``2026-01-31T10:00:00Z``), or local time with its offset when asked; the CSV
  header says which (``time (UTC)`` / ``time (local)``);
- money exact (`paytui.api.money.plain_amount`): the service's amount, never a float, never
  grouped, two places (more only when the service sent more);
- card and bank numbers only ever masked: the `number` column is rebuilt from the last four
  digits, and every free-text cell passes the one redactor (`paytui.logs.redact`), so a number
  a customer typed into a name or a tag is masked too;
- text as data: control and bidi characters become placeholders (`paytui.text.safe`), and a CSV
  cell that a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``) is quoted with a
  leading ``'``.

No Textual and no I/O beyond the stream or file it is given.

The columns of each list (what a row holds) are `export_columns.py`; the cells' rules and the
writing are here, one set for every writer.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
from collections.abc import (
    AsyncIterator,
    Callable,
    Container,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, cast

from paytui.api.money import plain_amount
from paytui.export_columns import (
    ACCOUNT_COLUMNS,
    AUDIT_COLUMNS,
    CHARGE_COLUMNS,
    DEFAULT_CHARGE_COLUMNS,
    REFUND_COLUMNS,
    TOKEN_COLUMNS,
    Attribute,
    Column,
    Kind,
    parse_columns,
)
from paytui.logs import redact
from paytui.text import safe

if TYPE_CHECKING:
    import asyncio

    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge, Trust
    from paytui.api.queries import ChargeQuery
    from paytui.charge_state import RefundPosition

__all__ = [
    "ACCOUNT_COLUMNS",
    "AUDIT_COLUMNS",
    "CHARGE_COLUMNS",
    "DEFAULT_CHARGE_COLUMNS",
    "FORMATS",
    "LISTING_FORMATS",
    "PROVEN",
    "REFUND_COLUMNS",
    "TOKEN_COLUMNS",
    "Column",
    "ExportCancelled",
    "ExportResult",
    "Progress",
    "charge_pages",
    "default_export_path",
    "export_charges",
    "export_charges_to_file",
    "parse_columns",
    "pinned_query",
    "proven_items",
    "rows_of",
    "with_proven",
    "write_listing",
    "write_record",
    "write_rows",
    "writer_for",
]

Format = Literal["csv", "jsonl"]
FORMATS: tuple[str, ...] = ("csv", "jsonl")
#: What a bounded listing (`--limit N`) may also be written as: an aligned table, a JSON array.
LISTING_FORMATS: tuple[str, ...] = ("table", "json", "jsonl", "csv")
#: Charges read per request when exporting a search (the service's largest page).
PAGE_SIZE = 100
#: Cells a spreadsheet would evaluate as a formula when they start with one of these.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: Twelve or more digits (spaces and dashes between): what a card or bank number needs (so a
#: shorter id, a status or a brand, is never searched).
_DIGIT_RUN = re.compile(r"\d[\d -]{10,}\d")


class ExportCancelled(Exception):
    """The export was cancelled; `rows` were written before it stopped (the file is removed)."""

    def __init__(self, rows: int) -> None:
        super().__init__(f"export cancelled after {rows} rows")
        self.rows = rows


# --------------------------------------------------------------------------------------------
# Cells and rows
# --------------------------------------------------------------------------------------------


def _time_text(value: datetime, local: bool) -> str:
    if local:
        return value.astimezone().isoformat(timespec="seconds")
    return value.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _money_cell(value: Any) -> str | None:
    if value is None:
        return None
    return plain_amount(value) if isinstance(value, Decimal) else safe(redact(value))


def _id_cell(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    # Ids, statuses, kinds: only a run of 12+ digits could be a card number. (The redactor's
    # key=value rules would take an id starting "aba8636…" for a routing number.)
    if (
        text.isascii()
        and text.isprintable()
        and (len(text) < 12 or _DIGIT_RUN.search(text) is None)
    ):
        return text
    return safe(redact(text))


def _text_cell(value: Any) -> str | None:
    if value is None:
        return None
    return safe(redact(value if isinstance(value, str) else str(value)))


def _time_cell(value: Any, local: bool = False) -> str | None:
    if value is None:
        return None
    return _time_text(value, local) if isinstance(value, datetime) else safe(value)


def _flag_text(value: Any) -> str | None:
    return None if value is None else "true" if value else "false"


def _flag_json(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _integer_json(value: Any) -> int | None:
    return None if value is None else int(value)


def cell_function(kind: Kind, local: bool, *, json_value: bool = False) -> Callable[[Any], Any]:
    """How a value of `kind` is exported (None stays None: an empty CSV cell, a JSON null): text;
    with `json_value` a JSON value (a flag stays a boolean, ``"proven": false``; an integer a
    number, an entry's id; the rest is text, money as decimal text, docs/cli.md). Chosen once
    per column: a writer of 100,000 rows makes one call a cell, not a chain of tests on its kind."""
    if kind == "flag":
        return _flag_json if json_value else _flag_text
    if kind == "integer" and json_value:
        return _integer_json
    if kind == "time":
        return partial(_time_cell, local=True) if local else _time_cell
    return {"money": _money_cell, "id": _id_cell}.get(kind, _text_cell)


def _cell(value: Any, kind: Kind, local: bool) -> str | None:
    """One value as exported text (`cell_function`)."""
    return cast("str | None", cell_function(kind, local)(value))


def _json_cell(column: Column, item: Any, local: bool) -> Any:
    """One column of `item` as a JSON value (`cell_function`)."""
    return cell_function(column.kind, local, json_value=True)(column.read(item))


def _line_encoder() -> Callable[[Any], str]:
    """One JSON object a line, as `json.dumps(..., ensure_ascii=False)` writes it. The C
    encoder is made once here: `JSONEncoder.encode` makes a new one for every row (about a
    third of the line's cost at 17 columns). Where Python has no C encoder, the plain one."""
    from json import encoder

    make = getattr(encoder, "c_make_encoder", None)
    plain = json.JSONEncoder(ensure_ascii=False)
    if make is None:
        return plain.encode
    # As `JSONEncoder.iterencode` makes it for `encode`, without the circular check (markers):
    # a row is one flat object of strings, numbers, booleans and nulls.
    chunks = make(
        None, plain.default, encoder.encode_basestring, None, ": ", ", ", False, False, True
    )
    return lambda value: "".join(chunks(value, 0))


#: One JSON object a line (`_line_encoder`).
_JSON_LINE = _line_encoder()


def json_record(
    table: Mapping[str, Column], row: Any, keys: Sequence[str] | None = None, local: bool = False
) -> dict[str, Any]:
    """One row as the JSON object of a listing: `keys` (all of `table`'s by default), each a
    JSON value of its kind (a flag a boolean, money and times text, docs/cli.md)."""
    return {key: _json_cell(table[key], row, local) for key in (keys or list(table))}


#: The column of a row a search cannot prove matches its filters (`--include-unproven`).
PROVEN = "proven"


def with_proven(
    table: dict[str, Column], keys: Sequence[str], unproven: Container[str]
) -> tuple[dict[str, Column], list[str]]:
    """`table` and `keys` with a last column `proven`: false for a row whose id is in
    `unproven` (`Page.unproven`, `Trust.unproven`: read as the pages come), else true."""
    from paytui.api.models import row_id

    column = Column(
        PROVEN,
        lambda item: row_id(item) not in unproven,
        "flag",
        "false: the row cannot show it matches the search's filters (the service does not show"
        " the field)",
    )
    return {**table, PROVEN: column}, [*keys, PROVEN]


def with_refund_states(
    table: dict[str, Column], positions: Mapping[str, RefundPosition]
) -> dict[str, Column]:
    """`table` whose `refund_state` column reads the refunds in `positions` (by charge id,
    filled as pages come: `charge_state.read_positions`); a charge not in it: ``unknown``."""
    from paytui.charge_state import refund_state

    column = table["refund_state"]
    reader = Column(
        column.key,
        lambda charge: refund_state(charge, positions.get(getattr(charge, "charge_id", ""))),
        column.kind,
        column.help,
    )
    return {**table, column.key: reader}


def proven_items(page: Any) -> list[Any]:
    """The items of `page` (a `Page`) that show they match every filter asked."""
    from paytui.api.models import row_id

    unproven = page.unproven
    if not unproven:
        return list(page.items)
    return [item for item in page.items if row_id(item) not in unproven]


def _headers(keys: Sequence[str], table: dict[str, Column], local: bool) -> list[str]:
    """CSV headers: a time column says its zone (``time (UTC)`` / ``time (local)``)."""
    zone = "local" if local else "UTC"
    return [f"{key} ({zone})" if table[key].kind == "time" else key for key in keys]


@dataclass
class Progress:
    """How far an export got: told after every page (the app's progress bar, the CLI's line)."""

    rows: int = 0
    total: int | None = None
    path: Path | None = None


#: Distinct texts remembered per column (`_Memo`): statuses, types, accounts, brands repeat
#: across 100,000 rows; a charge id never does, so the memo stops growing at this many.
_MEMO_SIZE = 1024


class _Memo(dict[Any, Any]):
    """One column's cells by value: ``memo[value]`` is ``cell(value)``, computed once per
    distinct text (a lookup, not the redactor and the sanitiser again, for the next row with the
    same status or account). Only a value of type `str` is kept: one of another type may equal
    one of a third (``1 == 1.0 == True``) yet be written otherwise. The cell rules are pure given
    the redactor's registered secrets: the writer forgets every memo when those change."""

    __slots__ = ("cell",)

    def __init__(self, cell: Callable[[Any], Any]) -> None:
        super().__init__()
        self.cell = cell
        self.clear()

    def clear(self) -> None:
        super().clear()
        self[None] = self.cell(None)

    def __missing__(self, value: Any) -> Any:
        result = self.cell(value)
        if type(value) is str and len(self) < _MEMO_SIZE:
            self[value] = result
        return result


def _csv_cell(cell: Callable[[Any], Any], guard: bool) -> Callable[[Any], str]:
    """`cell` as CSV text: None an empty cell; with `guard`, a formula quoted with a ``'``."""

    def text_of(value: Any) -> str:
        text = cell(value)
        if text is None:
            return ""
        return f"'{text}" if guard and text.startswith(_FORMULA_START) else text

    return text_of


def _registered_secrets() -> object:
    """What the redactor masks besides its rules (changes when a secret is registered)."""
    from paytui import logs

    return logs._registered_pattern


class _Writer:
    """Writes rows of one format to a text stream; `rows` counts them.

    Per column, chosen once: how it is read (an attribute read by `operator.attrgetter`) and
    what its cell is, the whole rule (redactor, sanitiser, formula quote, empty cell) in one
    function, remembered per distinct text for ids and text (`_Memo`). A row is then one call
    a column and one `json.dumps` (or one CSV row): the same bytes as a cell's rule applied to
    each value (`cell_function`), which `tests/test_exporter.py` holds it to."""

    def __init__(
        self,
        stream: IO[str],
        fmt: str,
        keys: Sequence[str],
        table: dict[str, Column],
        *,
        local: bool,
        header: bool = True,
    ) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; choose csv or jsonl")
        self.stream = stream
        self.fmt = fmt
        self.columns = [table[key] for key in keys]
        self.keys = list(keys)
        self.local = local
        json_value = fmt == "jsonl"
        self._memos: list[_Memo] = []
        self._secrets = _registered_secrets()
        self._cells = [self._pair(c, local, json_value) for c in self.columns]
        self.rows = 0
        self._csv = csv.writer(stream, lineterminator="\n") if fmt == "csv" else None
        if self._csv is not None and header:
            self._csv.writerow(_headers(keys, table, local))

    def _pair(
        self, column: Column, local: bool, json_value: bool
    ) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
        """How `column` is read (attributes by `attrgetter`, a missing one read as None by the
        row's slow path) and its whole cell."""
        read = column.read
        reader = attrgetter(read.name) if isinstance(read, Attribute) else read
        cell = cell_function(column.kind, local, json_value=json_value)
        if not json_value:
            cell = _csv_cell(cell, guard=column.kind != "money")
        if column.kind in ("id", "text"):
            memo = _Memo(cell)
            self._memos.append(memo)
            cell = memo.__getitem__
        return reader, cell

    def _cells_of(self, item: Any) -> list[Any]:
        """A row's cells when an attribute is missing (read as None, as `Column.read` does)."""
        return [
            cell(column.read(item))
            for column, (_, cell) in zip(self.columns, self._cells, strict=True)
        ]

    def write(self, items: Iterable[Any]) -> int:
        """Write one row per item; returns how many."""
        secrets = _registered_secrets()
        if secrets is not self._secrets:  # a new secret to mask: no cell remembered holds
            self._secrets = secrets
            for memo in self._memos:
                memo.clear()
        pairs = self._cells
        rows = []
        for item in items:
            try:
                cells = [cell(read(item)) for read, cell in pairs]
            except AttributeError:
                cells = self._cells_of(item)
            rows.append(cells)
        if self._csv is not None:
            self._csv.writerows(rows)
        elif rows:
            keys = self.keys
            line = _JSON_LINE
            self.stream.write(
                "\n".join([line(dict(zip(keys, cells, strict=True))) for cells in rows]) + "\n"
            )
        self.rows += len(rows)
        return len(rows)


def writer_for(
    stream: IO[str],
    fmt: str,
    columns: Sequence[str] | None,
    table: dict[str, Column] | None,
    local: bool,
    *,
    header: bool = True,
) -> _Writer:
    """A writer of `columns` of `table` (charges by default; all columns of another table);
    `header=False`: no CSV header (the rows go on from another writer's)."""
    table = table if table is not None else CHARGE_COLUMNS
    default = DEFAULT_CHARGE_COLUMNS if table is CHARGE_COLUMNS else tuple(table)
    return _Writer(
        stream, fmt, list(columns) if columns else list(default), table, local=local, header=header
    )


def write_rows(
    stream: IO[str],
    rows: Iterable[Any],
    fmt: str,
    *,
    columns: Sequence[str] | None = None,
    table: dict[str, Column] | None = None,
    local: bool = False,
) -> int:
    """Write `rows` (charges by default, or audit rows with ``table=AUDIT_COLUMNS``) to an open
    stream; returns the row count. Used for an explicit list (the marked rows) and History."""
    writer = writer_for(stream, fmt, columns, table, local)
    for batch in rows_of(rows):
        writer.write(batch)
    return writer.rows


# --------------------------------------------------------------------------------------------
# Charges: a search, every page, streamed
# --------------------------------------------------------------------------------------------


def pinned_query(query: ChargeQuery, moment: datetime) -> ChargeQuery:
    """`query` ending at `moment` at the latest (``created_to``): an export's or a streamed
    search's, read by offset from its start (`charge_pages`, `commands.plainly`)."""
    if query.created_to is None or query.created_to > moment:
        return query.evolve(created_to=moment)
    return query


async def charge_pages(
    client: PaymentClient,
    query: ChargeQuery | None,
    *,
    page_size: int = PAGE_SIZE,
    progress: Progress | None = None,
    now: datetime | None = None,
    trust: Trust | None = None,
    proven_only: bool = False,
) -> AsyncIterator[list[Charge]]:
    """Every page of a search, one list at a time (nothing kept: the caller writes and drops
    it), its rows light (`paytui.api.rows.ChargeLine`: checked by hand, not by a model, unless
    a field is not in its plain shape). `progress.total`
    is set from the first page when the service says how many. `proven_only`: a row that cannot
    show it matches the filters (`Page.unproven`) is left out (counted in `trust`), so it never
    passes for a match.

    The search is pinned to the moment the export starts (``created_to`` = now, unless the query
    ends earlier): pages are read by offset, so a charge made meanwhile at the top of a
    newest-first list would shift every later page by one row and repeat a row."""
    from paytui.api.queries import ChargeQuery
    from paytui.api.rows import ChargeLine

    pinned = pinned_query(query or ChargeQuery(), now or datetime.now(UTC))
    # A `ChargeLine` reads like a `Charge` for every column, filter and state rule (it is read
    # by the page reader as a model is: `ChargeLine.model_validate`), so it stands for one here.
    lines = cast("type[Charge]", ChargeLine)
    async for page in client.search_charges(pinned, page_size=page_size, model=lines):
        if progress is not None and progress.total is None:
            progress.total = page.total
        if trust is not None:  # what the rows showed of the filters (`paytui.api.models.Trust`)
            trust.add(page)
        yield proven_items(page) if proven_only else list(page.items)


async def export_charges(
    pages: AsyncIterator[Sequence[Charge]] | Iterable[Sequence[Charge]],
    stream: IO[str],
    fmt: str,
    *,
    columns: Sequence[str] | None = None,
    local: bool = False,
    progress: Progress | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: asyncio.Event | None = None,
    table: dict[str, Column] | None = None,
    header: bool = True,
) -> int:
    """Write every page of charges to `stream` as it arrives; returns the row count.

    `pages` is `charge_pages(...)` for a search or any iterable of lists (the marked rows);
    `table` another object's columns (`REFUND_COLUMNS` for `paytui refunds list --all`).
    `cancel` set: stops before the next page with `ExportCancelled`. The stream is flushed after
    each page so a reader (a pipe, `tail -f`) sees rows as they come. `header=False`: the rows
    go on from rows already written (`commands.plainly.export_plainly`), no CSV header."""
    writer = writer_for(stream, fmt, columns, table, local, header=header)
    progress = progress if progress is not None else Progress()

    async def each() -> AsyncIterator[Sequence[Charge]]:
        if hasattr(pages, "__aiter__"):
            async for page in pages:
                yield page
        else:
            for page in pages:
                yield page

    async for page in each():
        if cancel is not None and cancel.is_set():
            raise ExportCancelled(writer.rows)
        writer.write(page)
        stream.flush()
        progress.rows = writer.rows
        if on_progress is not None:
            on_progress(progress)
        await _yield_to_loop()  # a page from a list or the journal: let the UI paint, cancel
    if cancel is not None and cancel.is_set():
        raise ExportCancelled(writer.rows)
    return writer.rows


async def _yield_to_loop() -> None:
    import asyncio  # here: a writer of the journal's rows (`paytui history`) runs without a loop

    await asyncio.sleep(0)


@dataclass(frozen=True)
class ExportResult:
    path: Path
    rows: int
    fmt: str
    columns: list[str] = field(default_factory=list)


async def export_charges_to_file(
    pages: AsyncIterator[Sequence[Charge]] | Iterable[Sequence[Charge]],
    path: Path,
    fmt: str,
    *,
    columns: Sequence[str] | None = None,
    local: bool = False,
    progress: Progress | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: asyncio.Event | None = None,
    table: dict[str, Column] | None = None,
) -> ExportResult:
    """`export_charges` into `path` (mode 0600, via ``path.part``, renamed when complete).

    A cancelled or failed export removes the partial file and raises (`ExportCancelled`, or the
    error); the file at `path` is only ever a whole export."""
    progress = progress if progress is not None else Progress()
    progress.path = path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with open(fd, "w", encoding="utf-8", newline="") as stream:
            rows = await export_charges(
                pages,
                stream,
                fmt,
                columns=columns,
                local=local,
                progress=progress,
                on_progress=on_progress,
                cancel=cancel,
                table=table,
            )
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    return ExportResult(path, rows, fmt, list(columns or ()))


def default_export_path(
    fmt: str, *, stem: str = "paytui-charges", now: datetime | None = None
) -> Path:
    """``<documents dir>/paytui-charges-20261120-101500.csv`` (platformdirs' documents dir)."""
    import platformdirs

    moment = (now or datetime.now(UTC)).astimezone(UTC)
    folder = Path(platformdirs.user_documents_dir())
    return folder / f"{stem}-{moment:%Y%m%d-%H%M%S}.{fmt}"


def rows_of(items: Iterable[Any], size: int = PAGE_SIZE) -> Iterator[list[Any]]:
    """An explicit list (the marked rows) as pages for `export_charges`."""
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def write_listing(
    stream: IO[str],
    rows: Sequence[Any],
    fmt: str,
    table: dict[str, Column],
    *,
    columns: Sequence[str] | None = None,
    local: bool = False,
) -> int:
    """A bounded list (`--limit N`) in any of `LISTING_FORMATS`: ``table`` (aligned columns
    for people), ``json`` (one array), or the streaming ``jsonl`` / ``csv``."""
    keys = list(columns) if columns else list(table)
    if fmt in FORMATS:
        return write_rows(stream, rows, fmt, columns=keys, table=table, local=local)
    if fmt == "json":
        records = [json_record(table, row, keys, local) for row in rows]
        stream.write(json.dumps(records, ensure_ascii=False, indent=2) + "\n")
        return len(rows)
    cells = [[_cell(table[k].read(row), table[k].kind, local) for k in keys] for row in rows]
    if fmt != "table":
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(LISTING_FORMATS)}")
    texts = [[c if c is not None else "—" for c in line] for line in cells]
    headers = [k.upper() for k in keys]
    widths = [max([len(h)] + [len(line[i]) for line in texts]) for i, h in enumerate(headers)]
    right = [table[k].kind == "money" for k in keys]

    def fit(line: Sequence[str]) -> str:
        parts = [
            text.rjust(width) if is_right else text.ljust(width)
            for text, width, is_right in zip(line, widths, right, strict=True)
        ]
        return "  ".join(parts).rstrip()

    stream.write("\n".join([fit(headers), *(fit(line) for line in texts)]) + "\n")
    return len(rows)


def write_record(stream: IO[str], row: Any, fmt: str, table: dict[str, Column]) -> None:
    """One object (`show`): ``json`` is the whole object as the service sent it (redacted),
    ``table`` one "key  value" line per column."""
    if fmt == "json":
        from paytui.api.errors import redact_data
        from paytui.api.money import MONEY_AS_TEXT
        from paytui.text import escaped

        # Only the fields the service sent (its unknown ones included), not a None for every
        # field the model knows; every amount as decimal text ("75.39"), never a float.
        dump = getattr(row, "model_dump", None)
        data = (
            dump(mode="json", exclude_unset=True, context={MONEY_AS_TEXT: True})
            if dump is not None
            else row
        )
        text = json.dumps(redact_data(data), ensure_ascii=False, indent=2)
        stream.write(escaped(text, keep_lines=True) + "\n")
        return
    if fmt != "table":
        write_rows(stream, [row], fmt, table=table)
        return
    width = max(len(key) for key in table)
    for key, column in table.items():
        value = _cell(column.read(row), column.kind, False)
        stream.write(f"{key.ljust(width)}  {value if value is not None else '—'}\n")
