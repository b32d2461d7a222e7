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
import contextlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from types import SimpleNamespace
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
    from concurrent.futures import ThreadPoolExecutor

    from paytui.api.plain import PlainReader
    from paytui.api.queries import ChargeQuery
    from paytui.api.rows import ChargeLine
    from paytui.charge_state import RefundPosition

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
    """`paytui charges search [QUERY] --all`, read plainly (the module's docstring), each
    page's refunds too when the `refund_state` column is written (`_Refunds`). None:
    `handlers.charges_search`'s, from its start or from the rows written; `--include-unproven`
    and `refunded:` (proven on the rows by reading their refunds) always are."""
    if not args.all or args.include_unproven:
        return None
    from paytui.commands.handlers import (
        SEARCH_CHARGE_COLUMNS,
        TABLE_CHARGE_COLUMNS,
        _columns,
        _listing_format,
        parse_query,
    )
    from paytui.exporter import with_refund_states

    query = parse_query(args.query)  # the same checks, in the same order, as the client's
    fmt = _listing_format(args)
    default = TABLE_CHARGE_COLUMNS if fmt == "table" else SEARCH_CHARGE_COLUMNS
    keys = _columns(args, CHARGE_COLUMNS, default)
    if query is not None and query.refund_state is not None:
        return None
    positions: dict[str, RefundPosition] | None = None
    table = CHARGE_COLUMNS
    if "refund_state" in keys:
        positions = {}
        table = with_refund_states(CHARGE_COLUMNS, positions)
    rows = _search_plainly(runtime, query, fmt, keys, table, args.local_time, positions)
    return None if rows is None else Exit.OK


def _search_plainly(
    runtime: Runtime,
    query: ChargeQuery | None,
    fmt: str,
    keys: list[str],
    table: dict[str, Column],
    local: bool,
    positions: dict[str, RefundPosition] | None = None,
) -> int | None:
    """Every page of the search `query` (None: every charge) pinned to now, read plainly and
    written as it comes (with `positions`: each page's refunds read into it first); the rows
    written, or None when the client is to read it, from its start or after the rows written
    here (`Runtime.plain_begun`)."""
    from paytui.api.paging import row_key

    moment = datetime.now(UTC)
    params, proof = _pinned(query, moment)
    with runtime.plain_reader() as reader, contextlib.ExitStack() as stack:
        if reader is None:
            return None
        refunds = None if positions is None else stack.enter_context(_Refunds(reader))
        writer = None
        offset = 0
        before: frozenset[str] = frozenset()
        while True:
            found = _plain_page(reader, params, proof, offset, before)
            if found is not None and refunds is not None and positions is not None:
                read = refunds.positions(found[0])
                found = None if read is None else found
                positions.update(read or {})
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


class _Refunds:
    """Each page's refunds read plainly, as `charge_state.read_positions` reads them for the
    client (`handlers.REFUND_READS` lists side by side: a reader of its own per thread,
    `PlainReader.twin`): one list per charge that may have refunds, ``charge_id`` asked, one
    page of 100. Plain only when every list is a plain 200 of one page (no paging hint, next
    link or page number saying more) whose every row shows its id, the charge asked and an
    amount in its plain shape; anything else is the client's (`positions` None)."""

    def __init__(self, reader: PlainReader) -> None:
        self._reader = reader
        self._twins: list[PlainReader] = []
        self._pool: ThreadPoolExecutor | None = None

    def __enter__(self) -> _Refunds:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        for twin in self._twins:
            twin.close()

    def positions(self, lines: Sequence[ChargeLine]) -> dict[str, RefundPosition] | None:
        from paytui.charge_state import may_have_refunds
        from paytui.commands.handlers import REFUND_READS

        wanted = [line for line in lines if may_have_refunds(line)]
        while len(self._twins) < min(REFUND_READS, len(wanted)):
            twin = self._reader.twin()
            if twin is None:
                break
            self._twins.append(twin)
        readers = self._twins or [self._reader]
        groups = [wanted[index :: len(readers)] for index in range(len(readers))]
        if len(readers) == 1:
            read = [_positions(readers[0], groups[0])]
        else:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor

                self._pool = ThreadPoolExecutor(len(readers))
            read = list(self._pool.map(_positions, readers, groups))
        found: dict[str, RefundPosition] = {}
        for part in read:
            if part is None:
                return None
            found.update(part)
        return found


def _positions(
    reader: PlainReader, charges: Sequence[ChargeLine]
) -> dict[str, RefundPosition] | None:
    """What each charge's refunds add up to, read plainly one after the other (`_Refunds`);
    None at the first list that is the client's to read."""
    from paytui.charge_state import refunds_position

    found: dict[str, RefundPosition] = {}
    for charge in charges:
        asked = [("charge_id", charge.charge_id), ("limit", "100"), ("offset", "0")]
        listed = _plain_refunds(reader.get("/v2/refunds", asked), charge.charge_id)
        if listed is None:
            return None
        refunds, whole = listed
        found[charge.charge_id] = refunds_position(
            charge.charge_id, charge.total_amount, refunds, complete=whole
        )
    return found


def _plain_refunds(body: object, charge_id: str) -> tuple[list[SimpleNamespace], bool] | None:
    """The refunds of `charge_id` in a plain answer (`_Refunds`), each its ``charge_id`` and
    ``total_amount`` as the model reads them, and whether the list is whole: not when a row
    names another charge (the service ignored ``charge_id``: the client applies it and calls
    the list not whole, `Page.ignored_note`). None when the answer is the client's to read."""
    from paytui.api.paging import hints_of, more, unwrap
    from paytui.api.rows import read_amount

    found = unwrap(body, "refunds") if body is not None else None
    if found is None:
        return None
    raw, meta = found
    hints = hints_of(meta)
    if hints.next_link is not None or hints.page is not None or meta.get("offset", 0) != 0:
        return None
    if more(hints, len(raw), 100, 0):
        return None
    refunds: list[SimpleNamespace] = []
    whole = True
    for item in raw:
        if type(item) is not dict or "id" in item or type(item.get("refund_id")) is not str:
            return None
        named = item.get("charge_id")
        if type(named) is not str:
            return None
        if named != charge_id:
            whole = False
            continue
        try:
            amount = read_amount(item.get("total_amount"))
        except ValueError:
            return None
        refunds.append(SimpleNamespace(charge_id=charge_id, total_amount=amount))
    return refunds, whole
