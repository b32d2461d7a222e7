"""`paytui today`: Today's queue for a script (docs/today.md), sorted as the dashboard's `0`.

Data on stdout in the format asked, the notes (a source not read, rows left out) on stderr;
exit 12 when a source could not be read (the queue printed lacks its items), else 0.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from paytui.commands.runtime import CommandError, Exit, Runtime
from paytui.text import safe

if TYPE_CHECKING:
    from paytui.exporter import Column

__all__ = ["add_parser", "today", "today_columns"]

HELP = (
    "Everything that needs a person, soonest deadline first: unknown outcomes, open chargebacks,"
    " ACH returns, open authorizations (capture by), accounts stuck or needing information,"
    " cards and tokens expiring this month. Estimated due times are marked (docs/today.md)."
)


def now_utc() -> datetime:
    """The moment Today is read at (a test of the command sets its own: the demo's data is
    dated, so a test reading it at the wall clock would drift out of its windows)."""
    return datetime.now(UTC)


def add_parser(top: Any, common: argparse.ArgumentParser) -> None:
    """`paytui today` on the command line's parser (`paytui.commands.build_parser`)."""
    from paytui.commands import COMMAND_HELP
    from paytui.today.queue import KINDS

    parser: argparse.ArgumentParser = top.add_parser(
        "today",
        help=COMMAND_HELP["today"],
        description=HELP,
        parents=[common],
        allow_abbrev=False,
    )
    parser.add_argument(
        "--kind",
        action="append",
        choices=KINDS,
        metavar="K",
        help=f"only this kind (repeat for more): {', '.join(KINDS)}",
    )
    parser.add_argument(
        "--due-before",
        metavar="WHEN",
        help="only items due before: today, tomorrow, overdue, 2d, 12h, 2026-01-31, an ISO time",
    )
    parser.add_argument(
        "--format", choices=("table", "json", "jsonl", "csv"), help="output (default: table)"
    )
    parser.add_argument("--local-time", action="store_true", help="local time instead of UTC")


def today_columns() -> dict[str, Column]:
    """The fields of a queue item, in order (`kind`, `id`, ..., `basis`, `lapsed`,
    `past_window`, `why`)."""
    from paytui.exporter import Column

    return {
        column.key: column
        for column in (
            Column("kind", lambda item: item.kind, "id"),
            Column("id", lambda item: item.id, "id"),
            Column("customer", lambda item: item.customer),
            Column("amount", lambda item: item.amount, "money"),
            Column("due_at", lambda item: item.due_at, "time"),
            Column(
                "estimated",
                lambda item: item.estimated,
                "flag",
                "true: paytui estimated the due time (the service gave none); a JSON boolean",
            ),
            Column(
                "basis",
                lambda item: item.basis,
                "id",
                "what the due time was computed from: service, chargeback_date, return_date,"
                " charge_updated, first_seen, authorization_date, account_updated, journal",
            ),
            Column(
                "lapsed",
                lambda item: item.lapsed,
                "flag",
                "true: an authorization whose hold lapsed (listed below what can be acted on)",
            ),
            Column(
                "past_window",
                lambda item: item.past_window,
                "flag",
                "true: a chargeback or ACH return overdue by more than a day, its window to"
                " answer over (listed below what can be won, above the lapsed holds)",
            ),
            Column("why", lambda item: item.why),
            Column(
                "advice",
                lambda item: item.advice,
                "text",
                "an open chargeback's fight-or-accept line: the amount against the dispute fee,"
                " the merchant's won / lost record for the reason category, the time left and a"
                " lean; a suggestion, never a decision (empty on other kinds)",
            ),
        )
    }


async def today(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.evidence.case import attribute_keys
    from paytui.exporter import write_listing
    from paytui.today.queue import build_queue, parse_when, unknown_outcomes
    from paytui.today.seen import SeenStore, default_seen_path

    now = now_utc()
    try:
        before = parse_when(args.due_before, now) if args.due_before else None
    except ValueError as exc:
        raise CommandError(f"--due-before: {exc}", Exit.USAGE) from None
    async with runtime.client() as client:
        base_url = str(client.base_url)
        unknown = []
        try:
            journal = runtime.journal(off="unknown outcomes are not shown")
            unknown = unknown_outcomes(journal, base_url)
        except CommandError as exc:
            runtime.io.message(f"paytui: warning: {exc.message}")
        seen = SeenStore(default_seen_path(), base_url)
        try:
            queue = await build_queue(
                client,
                prefs=runtime.connection.today,
                seen=seen,
                now=now,
                unknown=unknown,
                item_keys=attribute_keys(dict(runtime.connection.evidence.attribute_keys), "item"),
            )
        finally:
            seen.close()
    rows = queue.select(kinds=args.kind or (), due_before=before)
    fmt = args.format or "table"
    write_listing(runtime.io.out, rows, fmt, today_columns(), local=args.local_time)
    for note in queue.notes:
        runtime.io.err.write(f"paytui: {safe(note)}\n")
    return Exit.INCOMPLETE if queue.failed else Exit.OK
