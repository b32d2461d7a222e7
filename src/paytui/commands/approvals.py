"""`paytui approvals list|approve|reject`: four eyes from the command line (docs/team.md, "Four
eyes").

A refund or capture above the profile's `approve_above` is not sent: `refunds create` or
`charges capture` exits 15 naming the request it made. Another agent lists the waiting requests,
approves one — it is then sent at once, through the one executor, exactly as it was asked and
on the view it was asked on (`paytui.actions.four_eyes`) — or rejects it, for good, saying why.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from paytui.commands.runtime import CommandError, Exit, Runtime, entry_number

if TYPE_CHECKING:
    from paytui.actions.journal_approvals import Approval
    from paytui.exporter import Column

__all__ = ["APPROVAL_HANDLERS", "add_parser", "approval_columns"]

HELP = (
    "Four eyes: requests for a second person's approval (a refund or capture above the"
    " profile's approve_above). approve sends it at once, exactly as asked; reject is final."
    " The requester can neither approve nor reject their own (the journal refuses it)."
)


def add_parser(top: Any, common: argparse.ArgumentParser) -> None:
    """`paytui approvals ...` on the command line's parser (`paytui.commands.build_parser`)."""
    from paytui.commands import COMMAND_HELP, confirm_flags

    approvals = top.add_parser("approvals", help=COMMAND_HELP["approvals"], description=HELP)
    verbs = approvals.add_subparsers(dest="verb", metavar="{list,approve,reject}")
    verbs.required = True

    def sub(name: str, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = verbs.add_parser(
            name, help=text, description=text, parents=[common], allow_abbrev=False
        )
        return parser

    listed = sub("list", "The requests waiting for approval on this service, oldest first.")
    listed.add_argument(
        "--all", action="store_true", help="every request, decided ones too (newest last)"
    )
    listed.add_argument(
        "--format", choices=("table", "json", "jsonl", "csv"), help="output (default: table)"
    )
    listed.add_argument("--local-time", action="store_true", help="local time instead of UTC")
    approve = sub("approve", "Approve a request and send it now (as another agent).")
    approve.add_argument("id", type=entry_number, metavar="ID")
    confirm_flags(approve)
    reject = sub("reject", "Reject a request, for good (as another agent).")
    reject.add_argument("id", type=entry_number, metavar="ID")
    reject.add_argument("--reason", help="why (kept in the journal's trail)")
    reject.add_argument("--format", choices=("table", "json"), default="table")


def approval_columns() -> dict[str, Column]:
    """What a request is written as (a table for people, or json, jsonl, csv)."""
    from paytui.exporter import Column

    def money(a: Approval) -> str:
        return f"{a.amount:.2f}"

    return {
        column.key: column
        for column in (
            Column("id", lambda a: a.id, "integer", "the request"),
            Column("state", lambda a: a.state, "text", "waiting, approved, rejected, void, sent"),
            Column("action", lambda a: a.operation, "text", "refund or capture"),
            Column("charge_id", lambda a: a.charge_id, "id", "the charge"),
            Column("amount", money, "text", "the amount asked"),
            Column("requested_by", lambda a: a.requested_by, "text", "who asked"),
            Column("requested_at", lambda a: a.requested_at, "time", "when"),
            Column("decided_by", lambda a: a.decided_by, "text", "who approved or rejected"),
            Column("decided_at", lambda a: a.decided_at, "time", "when"),
            Column("reason", lambda a: a.reason, "text", "why rejected, or what voided it"),
            Column("entry", lambda a: a.action_id, "integer", "the journal entry that sent it"),
        )
    }


def _write(runtime: Runtime, fmt: str, rows: list[Approval], *, local: bool = False) -> None:
    from paytui.exporter import write_listing

    write_listing(runtime.io.out, rows, fmt, approval_columns(), local=local)


async def approvals_list(runtime: Runtime, args: argparse.Namespace) -> int:
    import asyncio

    from paytui.actions.journal_approvals import APPROVAL_STATES
    from paytui.config.urls import service_key

    journal = runtime.journal(off="approvals cannot be read")
    states = APPROVAL_STATES if args.all else ("waiting",)
    async with runtime.client() as client:
        found = await asyncio.to_thread(
            journal.approvals, base_url=service_key(str(client.base_url)), states=states
        )
    _write(runtime, args.format or "table", found, local=args.local_time)
    if not found:
        runtime.io.message("No request waits for approval." if not args.all else "No requests.")
    return Exit.OK


async def approvals_approve(runtime: Runtime, args: argparse.Namespace) -> int:
    import asyncio

    from paytui.actions.four_eyes import approve
    from paytui.commands.handlers import report

    async with runtime.client() as client:
        executor = await runtime.executor(client)
        asked = await asyncio.to_thread(executor.journal.approval, args.id)
        if asked is None or asked.base_url != executor.base_url:
            raise CommandError(f"no approval request #{args.id} on this service", Exit.NOT_FOUND)
        what = f"Approve and send request {asked.describe()}"
        policy = executor.policy
        typed = runtime.confirm(
            what,
            asked.amount,
            yes=args.yes,
            confirm=args.confirm,
            needs_typed=policy.needs_typed_confirmation(asked.operation, asked.amount),
            phrase=policy.confirmation_phrase(asked.amount, asked.charge_id),
        )
        outcome = await approve(executor, args.id, confirmation=typed)
    return report(runtime, outcome, args.format)


async def approvals_reject(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.actions.four_eyes import reject

    reason = (args.reason or "").strip() or None
    async with runtime.client() as client:
        executor = await runtime.executor(client)
        rejected = await reject(executor, args.id, reason)
    _write(runtime, args.format, [rejected])
    runtime.io.message(f"Rejected request {rejected.describe()}, for good: nothing is sent.")
    return Exit.OK


APPROVAL_HANDLERS = {
    "approvals list": approvals_list,
    "approvals approve": approvals_approve,
    "approvals reject": approvals_reject,
}
