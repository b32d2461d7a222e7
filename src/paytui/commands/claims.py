"""`paytui claim`: claims on charges from the command line (docs/team.md, "Claims").

A claim lives as long as the paytui that made it (its session lock on a team's PostgreSQL, its
process on a file journal), and this command's process ends when it has answered: a claim made
here is released as it exits. So from the command line `paytui claim` mostly asks — who holds
these charges (`--list`), is this one free, which of these is free (`--next`) — and the
dashboard's `m` is where an agent keeps a claim while working on a charge.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from paytui.commands.runtime import CommandError, Exit, Runtime

if TYPE_CHECKING:
    from paytui.actions.claims import Claim
    from paytui.actions.executor import ActionExecutor
    from paytui.exporter import Column

__all__ = ["add_parser", "claim", "claim_columns"]

#: Said with every claim this command makes: how long it lasts, honestly.
SHORT_LIVED = (
    "held while this command runs: it is released as it exits. To keep a charge claimed while"
    " you work on it, claim it in the dashboard (m)."
)

HELP = (
    "Claim a charge for this agent, or ask who holds claims. A claim lives as long as the paytui"
    " that made it, so one made here is released as this command exits: from the command line"
    " it mostly asks (is it free, which is free, who holds what); keep claims in the dashboard"
    " (m). Exit 6 when the charge is claimed by another agent or none is free."
)


def add_parser(top: Any, common: argparse.ArgumentParser) -> None:
    """`paytui claim` on the command line's parser (`paytui.commands.build_parser`)."""
    from paytui.commands import COMMAND_HELP

    parser: argparse.ArgumentParser = top.add_parser(
        "claim",
        help=COMMAND_HELP["claim"],
        description=HELP,
        parents=[common],
        allow_abbrev=False,
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--release",
        action="store_true",
        help="let go of the claim instead (only the paytui holding a claim can: m in that"
        " dashboard, or its exit)",
    )
    what.add_argument("--list", action="store_true", help="the live claims on the service")
    what.add_argument(
        "--next",
        action="store_true",
        help="claim the first of the charges given that nobody holds; print which",
    )
    parser.add_argument(
        "--take-over",
        metavar="REASON",
        help="take the charge from the agent whose claim is still live, saying why (the reason,"
        " who it was taken from and who took it go into the journal's trail)",
    )
    parser.add_argument("ids", nargs="*", metavar="CHARGE_ID")
    parser.add_argument(
        "--format", choices=("table", "json", "jsonl", "csv"), help="output (default: table)"
    )
    parser.add_argument("--local-time", action="store_true", help="local time instead of UTC")


async def claim(runtime: Runtime, args: argparse.Namespace) -> int:
    ids: list[str] = list(args.ids)
    if args.list and ids:
        raise CommandError("claim --list takes no charge ids", Exit.USAGE)
    if not args.list and not ids:
        raise CommandError("claim: name a charge (or --list)", Exit.USAGE)
    if not args.list and not args.next and len(ids) > 1:
        raise CommandError("claim: one charge at a time (--next picks among several)", Exit.USAGE)
    if args.take_over is not None and (args.list or args.next or args.release):
        raise CommandError("claim --take-over takes one charge to claim", Exit.USAGE)
    if args.take_over is not None and not args.take_over.strip():
        raise CommandError(
            "claim --take-over: say why (the reason goes into the trail)", Exit.USAGE
        )
    async with runtime.client() as client:
        executor = await runtime.executor(client)
        try:
            if args.list:
                found = await asyncio.to_thread(
                    executor.journal.claims, executor.base_url, owner=executor.owner
                )
                _write(runtime, args, sorted(found.values(), key=lambda c: c.claimed_at))
                if not found:
                    runtime.io.message(f"No live claims on {executor.base_url}.")
                return Exit.OK
            if args.release:
                return await _release(runtime, executor, ids[0])
            if args.next:
                return await _claim_next(runtime, args, executor, ids)
            await client.get_charge(ids[0])  # no claim on a typo: NOT_FOUND (5)
            return await _claim(runtime, args, executor, ids[0])
        finally:
            # Our claims go with this process anyway (lock or pid): the rows should not stay.
            with contextlib.suppress(Exception):
                await asyncio.to_thread(executor.journal.release_all, owner=executor.owner)


def claim_columns() -> dict[str, Column]:
    """What a claim is written as (a table for people, or json, jsonl, csv)."""
    from paytui.exporter import Column

    return {
        column.key: column
        for column in (
            Column("charge_id", lambda c: c.target, "id", "the claimed charge"),
            Column("agent", lambda c: c.agent, "text", "who claimed it"),
            Column("machine", lambda c: c.machine, "text", "on which machine"),
            Column("since", lambda c: c.claimed_at, "time", "since when"),
            Column("renewed", lambda c: c.beat, "time", "last renewed by its holder's paytui"),
        )
    }


def _write(runtime: Runtime, args: argparse.Namespace, claims: list[Claim]) -> None:
    from paytui.exporter import write_listing

    fmt = args.format or "table"
    write_listing(runtime.io.out, claims, fmt, claim_columns(), local=args.local_time)


def _taken(runtime: Runtime, executor: ActionExecutor, claim: Claim) -> int:
    holder = claim.holder(executor.clock())
    runtime.io.error(
        f"{claim.target} is claimed by {holder}. To take it over, say why:"
        f" paytui claim {claim.target} --take-over REASON",
        Exit.REFUSED,
    )
    return Exit.REFUSED


async def _claim(
    runtime: Runtime, args: argparse.Namespace, executor: ActionExecutor, charge_id: str
) -> int:
    from paytui.actions.claims import ClaimedElsewhere

    try:
        mine = await executor.claim(charge_id, take_over=args.take_over)
    except ClaimedElsewhere as taken:
        return _taken(runtime, executor, taken.claim)
    _write(runtime, args, [mine])
    runtime.io.message(f"Claimed {charge_id}, {SHORT_LIVED}")
    return Exit.OK


async def _claim_next(
    runtime: Runtime, args: argparse.Namespace, executor: ActionExecutor, ids: list[str]
) -> int:
    mine = await executor.claim_next(ids)
    if mine is None:
        count = len(set(ids))
        runtime.io.error(
            f"Nothing free: {'the' if count == 1 else 'all'} {count} charge"
            f"{'' if count == 1 else 's'} given {'is' if count == 1 else 'are'} claimed by other"
            " agents.",
            Exit.REFUSED,
        )
        return Exit.REFUSED
    _write(runtime, args, [mine])
    runtime.io.message(f"Claimed {mine.target}, {SHORT_LIVED}")
    return Exit.OK


async def _release(runtime: Runtime, executor: ActionExecutor, charge_id: str) -> int:
    """Only the paytui holding a claim lets go of it (its lock is its own): this process holds
    none of another's, so this says who does — or that nobody does."""
    if await executor.release(charge_id):
        runtime.io.message(f"Released {charge_id}.")
        return Exit.OK
    held = (await executor.claimed([charge_id])).get(charge_id)
    if held is None:
        runtime.io.message(f"{charge_id} is not claimed.")
        return Exit.OK
    holder = held.holder(executor.clock())
    runtime.io.error(
        f"{charge_id} is claimed by {holder}: a claim is released by the paytui holding it"
        " (m in that dashboard, or when it exits).",
        Exit.REFUSED,
    )
    return Exit.REFUSED
