"""Script reads done with the standard library: `paytui charges show ID`, `paytui export
--output -` and `paytui charges search --all`, read without the client, its models or an event
loop when that is plainly possible (`Runtime.plain_read`, `Runtime.plain_reader`: a service
named by the command line and the environment alone, or the embedded sandbox with every
default), each charge a `paytui.api.rows.ChargeLine` (checked by hand, each field as `Charge`
reads it) and written by the same writer as the client's rows.

Only the plain case is read here; each function returns None for anything else, and the
command's coroutine (`paytui.commands.handlers`) reads it through the client as before. A list
read here is written as it comes, each page only once every row of it is proven to match every
filter asked (`ChargeQuery.verdicts`, or for a search of every charge its pinned time alone,
`api.window.time_verdicts`: the one proof the client's pages are judged by); at the first page
that is not plain (an answer that is not a 200, a row in another shape, a row a filter cannot
be proven on or contradicts, a sort the rows show ignored, a list shape, paging hint or next
link of another kind, a page repeating the one before) the client reads the same pinned search
and the command goes on after the rows already written (`Runtime.plain_begun`). So the rows,
the stderr lines and the exit code never depend on which reader read them
(`tests/test_charges_show_plain.py`, `tests/test_export_plain.py`,
`tests/test_search_plain.py`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from paytui.commands.runtime import Exit, Runtime
from paytui.exporter import (
    CHARGE_COLUMNS,
    DEFAULT_CHARGE_COLUMNS,
    FORMATS,
    PAGE_SIZE,
    Column,
    pinned_query,
    write_record,
    writer_for,
)

if TYPE_CHECKING:
    from paytui.api.plain import PlainReader
    from paytui.api.queries import ChargeQuery
    from paytui.api.rows import ChargeLine

__all__ = ["charges_search_plainly", "charges_show_plainly", "export_plainly"]

#: Whether a page's rows, read plainly, show they match every filter asked (each row every
#: filter, and the page its sort): only then is the page written here.
Proof = Callable[[Sequence["ChargeLine"]], bool]


def charges_show_plainly(runtime: Runtime, args: argparse.Namespace) -> int | None:
    """`paytui charges show ID` as a table (`Runtime.plain_read`: two plain 200s), the charge
    read as a `ChargeLine` (`tests/api/test_rows.py` holds it to `Charge`). None for anything
    else, `--format json` and a charge with distributions included (the model's to read and
    write): then `handlers.charges_show` reads it through the client as before, so what is
    shown, and every error's line and exit code, never depend on which reader read it."""
    if args.format != "table" or not args.id:
        return None
    from urllib.parse import quote

    from paytui.api.rows import ChargeLine

    params = [("expand", args.expand)] if args.expand else []
    path = f"/v2/charges/{quote(args.id, safe='')}"  # as the client's `_path`
    line = ChargeLine.read(runtime.plain_read(path, params))
    if line is None or line.distributions:
        return None
    write_record(runtime.io.out, line, args.format, CHARGE_COLUMNS)
    return Exit.OK


def export_plainly(runtime: Runtime, args: argparse.Namespace) -> int | None:
    """`paytui export [QUERY] --output -`, read plainly (the module's docstring), its search
    pinned to its start as `exporter.charge_pages` pins it; "N rows" on stderr as the client's
    export says. None: `handlers.export`'s, from its start or from the rows written (a file, its
    progress, `.part` and rename, and `--include-unproven` are always the client's)."""
    if args.output != "-" or args.include_unproven or args.format not in FORMATS:
        return None
    from paytui.commands.handlers import _columns, parse_query

    query = parse_query(args.query)
    keys = _columns(args, CHARGE_COLUMNS, DEFAULT_CHARGE_COLUMNS)
    rows = _search_plainly(runtime, query, args.format, keys, CHARGE_COLUMNS, args.local_time)
    if rows is None:
        return None
    runtime.io.message(f"{rows} rows")
    return Exit.OK


def charges_search_plainly(runtime: Runtime, args: argparse.Namespace) -> int | None:
    """`paytui charges search [QUERY] --all`, read plainly (the module's docstring). None:
    `handlers.charges_search`'s, from its start or from the rows written: `--include-unproven`,
    the `refund_state` column (each row's refunds, read eight at a time by the client) and
    `refunded:` (proven on the rows by reading their refunds) always are."""
    if not args.all or args.include_unproven:
        return None
    from paytui.commands.handlers import (
        SEARCH_CHARGE_COLUMNS,
        TABLE_CHARGE_COLUMNS,
        _columns,
        _listing_format,
        parse_query,
    )

    query = parse_query(args.query)  # the same checks, in the same order, as the client's
    fmt = _listing_format(args)
    default = TABLE_CHARGE_COLUMNS if fmt == "table" else SEARCH_CHARGE_COLUMNS
    keys = _columns(args, CHARGE_COLUMNS, default)
    if "refund_state" in keys or (query is not None and query.refund_state is not None):
        return None
    rows = _search_plainly(runtime, query, fmt, keys, CHARGE_COLUMNS, args.local_time)
    return None if rows is None else Exit.OK


def _search_plainly(
    runtime: Runtime,
    query: ChargeQuery | None,
    fmt: str,
    keys: list[str],
    table: dict[str, Column],
    local: bool,
) -> int | None:
    """Every page of the search `query` (None: every charge) pinned to now, read plainly and
    written as it comes; the rows written, or None when the client is to read it, from its
    start or after the rows written here (`Runtime.plain_begun`)."""
    from paytui.api.paging import row_key

    moment = datetime.now(UTC)
    params, proof = _pinned(query, moment)
    with runtime.plain_reader() as reader:
        if reader is None:
            return None
        writer = None
        offset = 0
        before: frozenset[str] = frozenset()
        while True:
            found = _plain_page(reader, params, proof, offset, before)
            if found is None:
                if writer is not None:
                    runtime.plain_begun = (moment, writer.rows)
                return None
            lines, has_more = found
            if writer is None:
                writer = writer_for(runtime.io.out, fmt, keys, table, local)
            writer.write(lines)
            runtime.io.out.flush()
            if not has_more:
                return writer.rows
            before = frozenset(row_key(line, "charges") for line in lines)
            offset += len(lines)


def _pinned(query: ChargeQuery | None, moment: datetime) -> tuple[list[tuple[str, str]], Proof]:
    """The search's filters on the wire, pinned to `moment` as `exporter.pinned_query` pins
    the client's, and their proof on a page: `ChargeQuery.verdicts` every one True for each
    row and the sort not shown ignored (`sort_ignored_by`), as the client judges its pages.
    Every charge: its pinned time alone (`api.window.time_verdicts`, which `verdicts` asks
    too), without the query's model (pydantic)."""
    from paytui.api.window import format_wire_timestamp, time_verdicts

    if query is None:
        shown = {"created_to": True}

        def in_time(lines: Sequence[ChargeLine]) -> bool:
            return all(
                time_verdicts(line.charge_timestamp, None, moment) == shown for line in lines
            )

        return [("created_to", format_wire_timestamp(moment))], in_time
    pinned = pinned_query(query, moment)

    def proven(lines: Sequence[ChargeLine]) -> bool:
        return all(
            all(verdict is True for verdict in pinned.verdicts(line).values()) for line in lines
        ) and not pinned.sort_ignored_by(lines)

    return pinned.to_params(), proven


def _plain_page(
    reader: PlainReader,
    params: list[tuple[str, str]],
    proof: Proof,
    offset: int,
    before: frozenset[str],
) -> tuple[list[ChargeLine], bool] | None:
    """The rows of the search `params` at `offset`, read plainly, and whether more may follow
    (`api.paging.more`), or None when anything in the answer is the client's to read: every
    row a plain `ChargeLine`, the page `proof`'s, offset paging without a next link or page
    number, and not the rows of the page `before` again."""
    from paytui.api.paging import hints_of, more, row_key, unwrap
    from paytui.api.rows import ChargeLine

    body = reader.get("/v2/charges", [*params, ("limit", str(PAGE_SIZE)), ("offset", str(offset))])
    found = unwrap(body, "charges") if body is not None else None
    if found is None:
        return None
    raw, meta = found
    hints = hints_of(meta)
    said = meta.get("offset", offset)
    if hints.next_link is not None or hints.page is not None or type(said) is not int:
        return None
    if said != offset:
        return None
    lines: list[ChargeLine] = []
    for item in raw:
        line = ChargeLine.read(item)
        if line is None:
            return None
        lines.append(line)
    if not proof(lines):
        return None
    has_more = more(hints, len(raw), PAGE_SIZE, offset)
    ids = {row_key(line, "charges") for line in lines}
    if (has_more and not lines) or (offset > 0 and ids and ids <= before):
        return None
    return lines, has_more
