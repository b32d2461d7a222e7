"""Each command of `paytui.commands`, as one coroutine: read the arguments, talk to the service
(money through the one `ActionExecutor`), write data to stdout, return an `Exit` code.

Why one module of more than 800 lines: each command is one short coroutine sharing the same reading
of arguments, connection and exit codes (`runtime.py`), and the money verbs' one path
(`money_verb`: allowed → settle → observe → confirm → `ActionExecutor.run`). The verbs of the
operations table are built from their declarations beside it (`verbs.py`); commands with a
concept of their own live beside it too (`journal.py`, `claims.py`, `today.py`,
`conversations.py`, `probe.py`).
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.commands.runtime import CommandError, Exit, Runtime
from paytui.exporter import (
    ACCOUNT_COLUMNS,
    AUDIT_COLUMNS,
    CHARGE_COLUMNS,
    DEFAULT_CHARGE_COLUMNS,
    FORMATS,
    REFUND_COLUMNS,
    TOKEN_COLUMNS,
    Column,
    Progress,
    charge_pages,
    default_export_path,
    export_charges,
    export_charges_to_file,
    parse_columns,
    proven_items,
    with_proven,
    with_refund_states,
    write_listing,
    write_record,
    write_rows,
)
from paytui.text import safe

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from paytui.actions.basis import Basis
    from paytui.actions.executor import ActionExecutor, ActionOutcome
    from paytui.api.client import PaymentClient
    from paytui.api.models import Trust
    from paytui.api.queries import ChargeQuery
    from paytui.charge_state import RefundPosition

#: The charge columns a terminal table shows by default (the files get `DEFAULT_CHARGE_COLUMNS`).
TABLE_CHARGE_COLUMNS = (
    "time",
    "charge_id",
    "status",
    "type",
    "amount",
    "method",
    "last4",
    "contact",
)
#: A search's columns written as data (json, jsonl, csv): an export's, and each row's money
#: state (`charge_state.refund_state`, `dispute_state`).
SEARCH_CHARGE_COLUMNS = DEFAULT_CHARGE_COLUMNS
#: Outcome state -> exit code of a money command.
OUTCOME_EXIT = {
    "succeeded": Exit.OK,
    "failed": Exit.REFUSED,
    "not_applied": Exit.UNAVAILABLE,
    "unknown": Exit.UNKNOWN_OUTCOME,
    "awaiting_service": Exit.AWAITING_SERVICE,
}

Handler = Callable[[Runtime, argparse.Namespace], Awaitable[int]]


async def run(runtime: Runtime, args: argparse.Namespace) -> int:
    """Dispatch `args` (from `build_parser`) to its handler."""
    if getattr(args, "operation", None):  # a verb of the operations table
        from paytui.commands.verbs import run_verb

        return await run_verb(runtime, args)
    if args.noun == "claim":
        from paytui.commands.claims import claim

        return await claim(runtime, args)
    if args.noun == "today":
        from paytui.commands.today import today

        return await today(runtime, args)
    if args.noun == "pulse":
        from paytui.commands.pulse import pulse

        return await pulse(runtime, args)
    if args.noun == "evidence":
        from paytui.commands.evidence import evidence

        return await evidence(runtime, args)
    key = args.noun if args.noun in {"history", "export"} else f"{args.noun} {args.verb}"
    if args.noun in {"conversations", "messages"}:
        from paytui.commands.conversations import CONVERSATION_HANDLERS

        return await CONVERSATION_HANDLERS[key](runtime, args)
    if args.noun == "journal":
        from paytui.commands.journal import JOURNAL_HANDLERS

        return await JOURNAL_HANDLERS[key](runtime, args)
    if args.noun == "approvals":
        from paytui.commands.approvals import APPROVAL_HANDLERS

        return await APPROVAL_HANDLERS[key](runtime, args)
    return await HANDLERS[key](runtime, args)


# --------------------------------------------------------------------------------------------
# Shared pieces
# --------------------------------------------------------------------------------------------


def parse_query(words: list[str]) -> ChargeQuery | None:
    """The search language (`paytui.search`), every mistake one line (exit 2). Without words
    the language is not even imported (`paytui export` of everything)."""
    text = " ".join(words).strip()
    if not text:
        return None
    from paytui.search import parse

    result = parse(text, now=datetime.now(UTC))
    if not result.ok:
        problems = "; ".join(
            f"{error.message} (at {text[error.start : error.end]!r})" for error in result.errors
        )
        raise CommandError(f"query: {problems}", Exit.USAGE)
    return result.query


def _limit(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise CommandError("--limit must be at least 1", Exit.USAGE)
    return int(args.limit)


def _columns(args: argparse.Namespace, table: dict[str, Column], default: Any) -> list[str]:
    try:
        return parse_columns(args.columns, table, default)
    except ValueError as exc:
        raise CommandError(str(exc), Exit.USAGE) from exc


def _listing_format(args: argparse.Namespace) -> str:
    fmt = args.format or ("jsonl" if getattr(args, "all", False) else "table")
    if getattr(args, "all", False) and fmt not in FORMATS:
        raise CommandError("--all streams page by page: use --format jsonl or csv", Exit.USAGE)
    return str(fmt)


async def _collect(
    fetch: Callable[[int, int], Awaitable[Any]],
    limit: int,
    page_size: int = 100,
    trust: Trust | None = None,
    proven_only: bool = False,
) -> list[Any]:
    """Up to `limit` items of a paged list (`fetch(limit, offset)` -> Page); what the pages
    showed of the filters goes to `trust`. Rows a filter was applied to here are not items,
    so a page can hold none and more still follow. `proven_only`: neither are rows that cannot
    show they match (`Page.unproven`; counted in `trust`)."""
    items: list[Any] = []
    offset = 0
    # One page size throughout: a page-numbered service reads `offset // size`, so a size that
    # shrank as rows were filtered out here would re-read some rows and skip others.
    size = min(page_size, limit)
    while len(items) < limit:
        page = await fetch(size, offset)
        items.extend(proven_items(page) if proven_only else page.items)
        if trust is not None:
            trust.add(page)
        if not page.has_more or page.next_offset <= offset:
            break
        offset = page.next_offset
    return items[:limit]


def _trusted(runtime: Runtime, trust: Trust, *, left_out: bool = False) -> int:
    """Say on stderr how far the rows printed are the service's answer (filters applied here,
    rows not proven to match, sort ignored, rows that could not be read); `Exit.UNPROVEN` when
    they cannot all be taken as matches, `Exit.INCOMPLETE` when some are missing. `left_out`:
    the rows not proven were not written (the default of a search: never passed off)."""
    note = trust.note
    if note:
        runtime.io.err.write(f"paytui: {safe(note)}\n")
    if trust.unproven:
        count = len(trust.unproven)
        rows = "1 row" if count == 1 else f"{count} rows"
        runtime.io.err.write(
            f"paytui: {rows} not proven to match left out (--include-unproven writes them,"
            " marked proven=false)\n"
            if left_out
            else f"paytui: {rows} not proven to match written with proven=false\n"
        )
    if trust.unreadable:  # sent by the service, not printed: said, never dropped in silence
        runtime.io.err.write(
            f"paytui: {trust.unreadable} row(s) the service sent could not be read"
            " and are not listed\n"
        )
    if trust.paging_note:  # the list stopped before its end (`paytui.api.paging`)
        runtime.io.err.write(f"paytui: {safe(trust.paging_note)}\n")
        return Exit.INCOMPLETE
    if trust.doubtful:
        return Exit.UNPROVEN
    return Exit.INCOMPLETE if trust.unreadable else Exit.OK


def report(
    runtime: Runtime,
    outcome: ActionOutcome,
    fmt: str,
    *,
    key: str = "charge_id",
    amount: bool = True,
) -> int:
    """The outcome of a money action: data on stdout, the sentence on stderr, its exit code.
    `key` names its target in the record (a conversation's: ``conversation_id``); `amount`: the
    record says the amount (an operation that moves money)."""
    record = {
        "entry": outcome.entry_id,
        "action": outcome.operation,
        key: outcome.charge_id,
        "state": outcome.state,
        "result_id": outcome.result_id,
    }
    if amount:
        record["amount"] = _plain(outcome)
    columns = {name: _field(name) for name in record}
    write_record(runtime.io.out, record, fmt, columns)
    runtime.io.message(outcome.message or outcome.state)
    if outcome.state == "failed" and outcome.never_sent:
        return Exit.UNAVAILABLE
    return OUTCOME_EXIT.get(outcome.state, Exit.UNKNOWN_OUTCOME)


def _plain(outcome: ActionOutcome) -> str | None:
    from paytui.api.money import plain_amount

    amount = None
    if outcome.refund is not None:
        amount = outcome.refund.total_amount
    elif outcome.charge is not None:
        amount = outcome.charge.total_amount
    return plain_amount(amount) if amount is not None else None


def _field(key: str) -> Column:
    def read(row: dict[str, Any]) -> Any:
        return row.get(key)

    return Column(key, read, "integer" if key == "entry" else "id")


async def _settle_first(
    runtime: Runtime, executor: ActionExecutor, operation: str, target: str
) -> None:
    """Settle the past before reading the charge: an earlier entry of the same action left
    unknown (or not proven) is read back now, its verdict recorded in the journal and said on
    stderr — so "Already captured" is never all a capture that did happen leaves behind."""
    import asyncio

    for outcome in await executor.settle_earlier(operation, target):
        entry = await asyncio.to_thread(executor.journal.get, outcome.entry_id)
        by = f" by {entry.actor}" if entry is not None and entry.actor else ""
        runtime.io.message(f"Earlier {operation} #{outcome.entry_id}{by}: {outcome.message}")


async def _observe(
    executor: ActionExecutor, operation: str, target: str, amount: Decimal | None = None
) -> Basis:
    """What the command decides on: the action is tied to it (changed since → not sent). The
    action registry's rule is asked with the read, as for the key in the app; its refusal is
    kept in the audit trail like the executor's own — and so is a charge that cannot be read
    (one the service does not have: "Could not read the charge: Not found"), as a capture's
    authorization that cannot be read is, so that every verb on an unknown target leaves its
    one entry. The error itself goes on (its exit code: not found, unavailable...)."""
    from paytui.actions.errors import PrecheckFailed
    from paytui.actions.target_reads import could_not_read
    from paytui.api.errors import ApiError

    try:
        return await executor.observe(operation, target)
    except PrecheckFailed as err:
        await executor.record_refusal(operation, target, err.message, amount)
        raise
    except ApiError as err:
        # What failed, in words: the charge, or its refunds (read after it, for a refund).
        await executor.record_refusal(operation, target, could_not_read(err), amount)
        raise


def _warn_claimed(runtime: Runtime, executor: ActionExecutor, basis: Basis) -> None:
    """Another agent's live claim on the charge (read with the basis): said on stderr before
    anything is asked or sent. A warning: the exactly-once guard holds either way. Then what
    the action registry says beside the action (`registry.note`: a status paytui does not
    know, which refuses nothing: the service decides)."""
    from paytui.actions.registry import note

    if basis.claim is not None:
        told = basis.claim.describe(now=executor.clock())
        runtime.io.message(f"Warning: {told} — they may be working on it.")
    said = note(basis.operation, basis.charge)
    if said is not None:
        runtime.io.message(f"Note: {said}.")


async def _allowed(
    executor: ActionExecutor, operation: str, target: str, amount: Decimal | None = None
) -> None:
    from paytui.actions.errors import ActionRefused

    decision = executor.check(operation)
    if not decision.allowed:
        reason = decision.reason or "Not allowed"
        await executor.record_refusal(operation, target, reason, amount)
        raise ActionRefused(decision)


#: What a money verb asks before sending, from what it observed (None: it observes nothing):
#: the question and the amount it names — or None, when the verb asks nothing (a new token).
Question = Callable[
    ["ActionExecutor", "Basis | None"], Awaitable["tuple[str, Decimal | None] | None"]
]


async def money_verb(
    runtime: Runtime,
    args: argparse.Namespace,
    name: str,
    target: str,
    params: Callable[[Basis | None], Any],
    question: Question,
    *,
    asked: Decimal | None = None,
    again_hint: Callable[[], str] = lambda: "Pass --again to do it again.",
) -> ActionOutcome:
    """Every money verb of the command line, one path: allowed → settle → observe → confirm →
    send (`ActionExecutor.run`). An operation whose decision is tied to what was read (a
    capture's authorization, a refund's refunds: `Operation.seen_capture` / `seen_refunds`)
    settles its past and observes the charge first, says another agent's claim, then asks.
    `params` makes the operation's parameters from what was observed; `asked` is the amount
    the person typed (kept with a refusal); `again_hint` the line after "the same was made
    recently" (`RecentlyDone`)."""
    async with runtime.client() as client:
        executor = await runtime.executor(client)
        return await _money_verb(
            runtime, args, executor, name, target, params, question, asked, again_hint
        )


async def _money_verb(
    runtime: Runtime,
    args: argparse.Namespace,
    executor: ActionExecutor,
    name: str,
    target: str,
    params: Callable[[Basis | None], Any],
    question: Question,
    asked: Decimal | None,
    again_hint: Callable[[], str],
) -> ActionOutcome:
    from paytui.actions.errors import RecentlyDone
    from paytui.actions.operations import OPERATIONS

    spec = OPERATIONS[name]
    await _allowed(executor, name, target, asked)
    basis = None
    if spec.seen_capture or spec.seen_refunds:
        await _settle_first(runtime, executor, name, target)
        basis = await _observe(executor, name, target, asked)
        _warn_claimed(runtime, executor, basis)
    typed = None
    said = await question(executor, basis)
    if said is not None:
        what, amount = said
        policy = executor.policy
        typed = runtime.confirm(
            what,
            amount,
            yes=args.yes,
            confirm=getattr(args, "confirm", None),
            needs_typed=policy.needs_typed_confirmation(name, amount),
            phrase=policy.confirmation_phrase(amount, target),
        )
    try:
        return await executor.run(
            name,
            target,
            params(basis),
            confirmation=typed,
            basis=basis,
            again=getattr(args, "again", False),
            acknowledge_earlier=args.acknowledge,
        )
    except RecentlyDone as err:
        raise CommandError(f"{err.message} {again_hint()}", Exit.EARLIER_ATTEMPT) from err


# --------------------------------------------------------------------------------------------
# Charges
# --------------------------------------------------------------------------------------------


async def charges_search(runtime: Runtime, args: argparse.Namespace) -> int:
    query = parse_query(args.query)
    fmt = _listing_format(args)
    default = TABLE_CHARGE_COLUMNS if fmt == "table" else SEARCH_CHARGE_COLUMNS
    keys = _columns(args, CHARGE_COLUMNS, default)
    from paytui.api.models import Trust

    trust = Trust()
    # Each row's refund state: its refunds read a page at a time, only when it is written.
    positions: dict[str, RefundPosition] = {}
    refunds_wanted = "refund_state" in keys
    table, keys, proven_only = _proven_columns(
        args, with_refund_states(CHARGE_COLUMNS, positions), keys, trust
    )
    async with runtime.client() as client:
        if args.all:
            # Begun plainly (`commands.plainly`): the same pinned search, after its rows.
            moment, written = runtime.plain_begun or (None, 0)
            pages = charge_pages(client, query, trust=trust, proven_only=proven_only, now=moment)
            pages = _after(pages, written) if written else pages
            await export_charges(
                _with_refunds(client, pages, positions) if refunds_wanted else pages,
                runtime.io.out,
                fmt,
                columns=keys,
                local=args.local_time,
                table=table,
                header=not written,
            )
            return _trusted(runtime, trust, left_out=proven_only)
        limit = _limit(args)
        rows = await _collect(
            lambda size, offset: client.search_charges_page(query, limit=size, offset=offset),
            limit,
            trust=trust,
            proven_only=proven_only,
        )
        if refunds_wanted:
            from paytui.charge_state import read_positions

            positions.update(await read_positions(client, rows, at_once=REFUND_READS))
    write_listing(runtime.io.out, rows, fmt, table, columns=keys, local=args.local_time)
    return _trusted(runtime, trust, left_out=proven_only)


#: Refund lists read at once for a page of a search's rows (`refund_state`).
REFUND_READS = 8


async def _with_refunds(
    client: PaymentClient, pages: AsyncIterator[list[Any]], positions: dict[str, RefundPosition]
) -> AsyncIterator[list[Any]]:
    """Each page of `pages` once the refunds of its rows are read into `positions`."""
    from paytui.charge_state import read_positions

    async for page in pages:
        positions.update(await read_positions(client, page, at_once=REFUND_READS))
        yield page


def _proven_columns(
    args: argparse.Namespace, table: dict[str, Column], keys: list[str], trust: Trust
) -> tuple[dict[str, Column], list[str], bool]:
    """A search's rows: by default only those proven to match (the others counted on stderr);
    `--include-unproven`: all, with a last column `proven` read from `trust` as pages come.
    Returns the columns, their keys, and whether to leave the unproven out."""
    if not args.include_unproven:
        return table, keys, True
    with_flag, keys = with_proven(table, keys, trust.unproven)
    return with_flag, keys, False


async def charges_show(runtime: Runtime, args: argparse.Namespace) -> int:
    async with runtime.client() as client:
        charge = await client.get_charge(args.id, expand=args.expand)
    write_record(runtime.io.out, charge, args.format, CHARGE_COLUMNS)
    if args.format == "table" and charge.distributions:
        for distribution in charge.distributions:
            runtime.io.out.write(
                f"distribution  {distribution.distribution_id} ({distribution.status or '—'})\n"
            )
    return Exit.OK


# --------------------------------------------------------------------------------------------
# Refunds
# --------------------------------------------------------------------------------------------


async def refunds_list(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.api.queries import RefundQuery

    fmt = _listing_format(args)
    keys = _columns(args, REFUND_COLUMNS, list(REFUND_COLUMNS))
    query = RefundQuery(charge_id=args.charge, account_id=args.account)
    from paytui.api.models import Trust

    trust = Trust()
    table, keys, proven_only = _proven_columns(args, REFUND_COLUMNS, keys, trust)
    async with runtime.client() as client:
        if args.all:

            async def pages() -> Any:
                async for page in client.search_refunds(query, page_size=100):
                    trust.add(page)
                    yield proven_items(page) if proven_only else page.items

            await export_charges(
                pages(),
                runtime.io.out,
                fmt,
                columns=keys,
                table=table,
                local=args.local_time,
            )
            return _trusted(runtime, trust, left_out=proven_only)
        rows = await _collect(
            lambda size, offset: client.search_refunds_page(query, limit=size, offset=offset),
            _limit(args),
            trust=trust,
            proven_only=proven_only,
        )
    write_listing(runtime.io.out, rows, fmt, table, columns=keys, local=args.local_time)
    return _trusted(runtime, trust, left_out=proven_only)


# --------------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------------


async def _listing(
    runtime: Runtime,
    args: argparse.Namespace,
    table: dict[str, Any],
    read_page: Callable[[Any, int, int], Awaitable[Any]],
) -> int:
    """A plain list command: its pages read 50 at a time up to `--limit`, written in the
    format asked. `read_page(client, size, offset)` reads one page."""
    fmt = _listing_format(args)
    keys = _columns(args, table, list(table))
    async with runtime.client() as client:
        rows = await _collect(
            lambda size, offset: read_page(client, size, offset), _limit(args), page_size=50
        )
    write_listing(runtime.io.out, rows, fmt, table, columns=keys, local=args.local_time)
    return Exit.OK


async def tokens_list(runtime: Runtime, args: argparse.Namespace) -> int:
    return await _listing(
        runtime,
        args,
        TOKEN_COLUMNS,
        lambda client, size, offset: client.list_tokens_page(
            account_id=args.account, limit=size, offset=offset
        ),
    )


async def tokens_show(runtime: Runtime, args: argparse.Namespace) -> int:
    async with runtime.client() as client:
        token = await client.get_token(args.id)
    write_record(runtime.io.out, token, args.format, TOKEN_COLUMNS)
    return Exit.OK


# --------------------------------------------------------------------------------------------
# Accounts
# --------------------------------------------------------------------------------------------


async def accounts_list(runtime: Runtime, args: argparse.Namespace) -> int:
    return await _listing(
        runtime,
        args,
        ACCOUNT_COLUMNS,
        lambda client, size, offset: client.list_accounts_page(
            merchant_id=args.merchant, status=args.status, limit=size, offset=offset
        ),
    )


async def accounts_show(runtime: Runtime, args: argparse.Namespace) -> int:
    async with runtime.client() as client:
        account = await client.get_account(args.id)
    write_record(runtime.io.out, account, args.format, ACCOUNT_COLUMNS)
    return Exit.OK


async def accounts_watch(runtime: Runtime, args: argparse.Namespace) -> int:
    """One JSON line each time the status (or its message) changes; the first at once."""
    import asyncio

    if args.interval < 0 or (args.count is not None and args.count < 1):
        raise CommandError("--interval must be >= 0 and --count >= 1", Exit.USAGE)
    seen: tuple[Any, Any] | None = None
    printed = 0
    async with runtime.client() as client:
        while True:
            account = await client.get_account(args.id)
            state = (account.status, account.status_message)
            if state != seen:
                seen = state
                write_rows(runtime.io.out, [account], "jsonl", table=ACCOUNT_COLUMNS)
                runtime.io.out.flush()
                printed += 1
                if args.count is not None and printed >= args.count:
                    return Exit.OK
            await asyncio.sleep(args.interval)


# --------------------------------------------------------------------------------------------
# History and export
# --------------------------------------------------------------------------------------------


async def history(runtime: Runtime, args: argparse.Namespace) -> int:
    if args.check[:1] == ["verify"]:
        from paytui.commands.journal import history_verify

        return await history_verify(runtime, args)
    if args.check:
        return await history_check(runtime, args)
    return history_listing(runtime, args)


def without_loop(runtime: Runtime, args: argparse.Namespace) -> int | None:
    """Run `args`' command here when it reads only this machine and waits on nothing (the
    journal's trail: `paytui history`), or reads the service plainly (`commands.plainly`:
    `charges show`, `charges search --all`, `export -o -`), so that it starts no event loop and
    imports no asyncio; None: it is a coroutine for `run`."""
    if args.noun == "history" and not args.check:
        return history_listing(runtime, args)
    if (args.noun == "charges" and args.verb in {"show", "search"}) or args.noun == "export":
        from paytui.commands.plainly import (
            charges_search_plainly,
            charges_show_plainly,
            export_plainly,
        )

        if args.noun == "export":
            return export_plainly(runtime, args)
        if args.verb == "show":
            return charges_show_plainly(runtime, args)
        return charges_search_plainly(runtime, args)
    return None


def history_listing(runtime: Runtime, args: argparse.Namespace) -> int:
    """`paytui history`: the journal's trail, newest first, filtered."""
    fmt = _listing_format(args)
    keys = _columns(args, AUDIT_COLUMNS, list(AUDIT_COLUMNS))
    from paytui.actions.audit import AuditFilter, parse_moment

    try:
        wanted = AuditFilter(
            profile=runtime.trail_name(),
            client_id=args.client_id,
            operation=args.action,
            charge_id=args.charge,
            outcome=args.outcome,
            agent=args.agent,
            since=parse_moment(args.since) if args.since else None,
            until=parse_moment(args.until, end=True) if args.until else None,
        ).checked()
    except ValueError as exc:
        raise CommandError(f"history: {exc}", Exit.USAGE) from exc
    limit = None if args.all else _limit(args)
    # A listing makes and reads no claim: the journal's place is all it needs of the config.
    rows = runtime.journal(claims=False).audit(**wanted.kwargs(), limit=limit)
    if args.all:
        write_rows(
            runtime.io.out,
            rows,
            fmt,
            columns=keys,
            table=AUDIT_COLUMNS,
            local=args.local_time,
        )
    else:
        write_listing(
            runtime.io.out, list(rows), fmt, AUDIT_COLUMNS, columns=keys, local=args.local_time
        )
    return Exit.OK


async def history_check(runtime: Runtime, args: argparse.Namespace) -> int:
    """`paytui history check [ENTRY ...]`: read the service back for every entry of this
    profile whose outcome is not proven (or for the entries named) and record the verdict —
    what the dashboard's History does with "check again". Exit 7 while one stays unknown."""
    word, *named = args.check
    if word != "check":
        raise CommandError(
            f"history: unknown word {word!r} (did you mean `paytui history check` or"
            " `paytui history verify`?)",
            Exit.USAGE,
        )
    ids: list[int] = []
    for text in named:
        try:
            ids.append(int(text.removeprefix("#")))
        except ValueError:
            message = f"history check: {text!r} is not an entry number"
            raise CommandError(message, Exit.USAGE) from None
    async with runtime.client() as client:
        executor = await runtime.executor(client)
        if ids:
            outcomes = [await executor.reconcile_entry(entry_id) for entry_id in ids]
            rows = [
                {
                    "entry": o.entry_id,
                    "action": o.operation,
                    "charge_id": o.charge_id,
                    "state": o.state,
                    "result_id": o.result_id,
                }
                for o in outcomes
            ]
        else:
            entries = await executor.reconcile_all(wait=True)
            rows = [
                {
                    "entry": e.id,
                    "action": e.operation,
                    "charge_id": e.charge_id,
                    "state": e.state,
                    "result_id": e.result_id,
                }
                for e in entries
            ]
    fmt = args.format or "table"
    columns = {key: _field(key) for key in ("entry", "action", "charge_id", "state", "result_id")}
    write_listing(runtime.io.out, rows, fmt, columns, columns=list(columns))
    unknown = [row for row in rows if row["state"] in {"pending", "sent", "unknown"}]
    awaiting = [row for row in rows if row["state"] == "awaiting_service"]
    waiting = f", {len(awaiting)} awaiting the service" if awaiting else ""
    runtime.io.message(
        f"Checked {len(rows)} {'entry' if len(rows) == 1 else 'entries'} with the service;"
        f" {len(unknown)} still unknown{waiting}"
        if rows
        else "Nothing to check: every outcome is proven"
    )
    if unknown:
        return Exit.UNKNOWN_OUTCOME
    return Exit.AWAITING_SERVICE if awaiting else Exit.OK


async def export(runtime: Runtime, args: argparse.Namespace) -> int:
    from pathlib import Path

    query = parse_query(args.query)
    keys = _columns(args, CHARGE_COLUMNS, DEFAULT_CHARGE_COLUMNS)
    from paytui.api.models import Trust

    trust = Trust()
    table, keys, proven_only = _proven_columns(args, CHARGE_COLUMNS, keys, trust)
    io = runtime.io
    progress = Progress()
    show = bool(getattr(io.err, "isatty", lambda: False)())

    def tell(p: Progress) -> None:
        if show:
            of = f" of {p.total}" if p.total is not None else ""
            io.err.write(f"\r{p.rows}{of} rows")
            io.err.flush()

    moment, written = runtime.plain_begun or (None, 0)
    async with runtime.client() as client:
        pages = charge_pages(
            client, query, progress=progress, trust=trust, proven_only=proven_only, now=moment
        )
        if args.output == "-":
            rows = await export_charges(
                _after(pages, written) if written else pages,
                io.out,
                args.format,
                columns=keys,
                local=args.local_time,
                progress=progress,
                table=table,
                header=not written,
            )
            io.message(f"{written + rows} rows")
            return _trusted(runtime, trust, left_out=proven_only)
        path = Path(args.output) if args.output else default_export_path(args.format)
        result = await export_charges_to_file(
            pages,
            path,
            args.format,
            columns=keys,
            local=args.local_time,
            progress=progress,
            on_progress=tell,
            table=table,
        )
    if show:
        io.err.write("\n")
    io.out.write(f"{result.path}\n")
    io.message(f"{result.rows} rows written to {result.path}")
    return _trusted(runtime, trust, left_out=proven_only)


async def _after(pages: AsyncIterator[list[Any]], written: int) -> AsyncIterator[list[Any]]:
    """The rows of `pages` after the first `written` (written already by `export_plainly`)."""
    async for page in pages:
        if written >= len(page):
            written -= len(page)
            continue
        yield page[written:]
        written = 0


HANDLERS: dict[str, Handler] = {
    "charges search": charges_search,
    "charges show": charges_show,
    "refunds list": refunds_list,
    "tokens list": tokens_list,
    "tokens show": tokens_show,
    "accounts list": accounts_list,
    "accounts show": accounts_show,
    "accounts watch": accounts_watch,
    "history": history,
    "export": export,
}
