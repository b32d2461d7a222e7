"""`paytui conversations list|show|close` and `paytui messages list|send`: a support agent's
conversations from a script (docs/cli.md).

Reads are the dashboard's (`paytui.api.conversations`: a thread oldest first, links proven per
row). The two writes are verbs of the operations table (`actions/ops/conversation.py`, built and
run by `paytui.commands.verbs` through the one executor and journal): a message's text is never
an argument (long text on the command line is read by every user of the machine): it comes from
`--file PATH` or stdin, and is shown exactly as it will go before anything is sent (`--yes` for
scripts).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from paytui.commands.runtime import CommandError, Exit, Runtime
from paytui.text import safe

if TYPE_CHECKING:
    from paytui.api.conversations import Thread
    from paytui.api.families import GenericObject
    from paytui.exporter import Column

__all__ = ["CONVERSATION_HANDLERS", "add_parser"]


def add_parser(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    """`paytui conversations ...` and `paytui messages ...` on the command line's parser (`close`
    and `send` are verbs of the operations table: `paytui.commands.verbs`)."""
    from paytui.commands import COMMAND_HELP, _listing
    from paytui.commands.verbs import add_table_verbs

    def listing(parser: argparse.ArgumentParser) -> None:
        _listing(parser, streams=False)

    def sub(group: Any, name: str, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = group.add_parser(
            name, help=text, description=text, parents=[common], allow_abbrev=False
        )
        return parser

    conversations = top.add_parser("conversations", help=COMMAND_HELP["conversations"])
    verbs = conversations.add_subparsers(dest="verb", metavar="{list,show,close}")
    verbs.required = True
    found = sub(verbs, "list", "List conversations, newest first (links proven on every row).")
    found.add_argument("--charge", metavar="ID", help="the conversations about this charge")
    found.add_argument("--customer", metavar="ID", help="the conversations of this customer id")
    found.add_argument("--status", metavar="WORD", help="open, closed, ... (the service's words)")
    listing(found)
    show = sub(verbs, "show", "Show one conversation and its thread, oldest first.")
    show.add_argument("id")
    show.add_argument("--format", choices=("table", "json"), default="table")
    add_table_verbs(verbs, "conversations", common, verb, own=("list", "show"))

    messages = top.add_parser("messages", help=COMMAND_HELP["messages"])
    verbs = messages.add_subparsers(dest="verb", metavar="{list,send}")
    verbs.required = True
    found = sub(verbs, "list", "List a conversation's messages, oldest first.")
    found.add_argument("id", nargs="?", help="the conversation (as `messages send ID`)")
    found.add_argument(
        "--conversation", metavar="ID", help="the conversation (the older spelling of ID)"
    )
    listing(found)
    add_table_verbs(verbs, "messages", common, verb, own=("list",))


# -- columns -----------------------------------------------------------------------------------


def conversation_columns() -> dict[str, Column]:
    from paytui.api.conversations import (
        LAST_ACTIVITY_KEYS,
        as_time,
        customer_name,
        status_word,
    )
    from paytui.api.families import FAMILIES
    from paytui.exporter import Column

    family = FAMILIES["conversations"]

    def linked(key: str) -> Any:
        return lambda obj: obj.fields().get(key)

    return {
        column.key: column
        for column in (
            Column("id", lambda obj: obj.id_in(family), "id"),
            Column("status", status_word, "id"),
            Column("subject", lambda obj: obj.label()),
            Column("customer", customer_name, "text", "the customer's name, where it shows one"),
            Column("customer_id", linked("customer_id"), "id"),
            Column("charge_id", linked("charge_id"), "id"),
            Column("updated", lambda obj: as_time(obj.first_of(LAST_ACTIVITY_KEYS)), "time"),
        )
    }


def thread_columns() -> dict[str, Column]:
    """A thread line (`ThreadEntry`): when, which side, who, what."""
    from paytui.exporter import Column

    return {
        column.key: column
        for column in (
            Column("time", lambda line: line.at, "time"),
            Column("side", lambda line: line.side or None, "id"),
            Column("who", lambda line: line.who),
            Column("text", lambda line: line.text),
            Column("id", lambda line: line.item_id, "id"),
        )
    }


# -- reads -------------------------------------------------------------------------------------


async def conversations_list(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.api.models import Trust
    from paytui.commands.handlers import _collect, _columns, _limit, _trusted
    from paytui.exporter import write_listing

    table = conversation_columns()
    keys = _columns(args, table, list(table))
    trust = Trust()  # counts the rows that could not be read too (said by `_trusted`)
    async with runtime.client() as client:
        rows = await _collect(
            lambda size, offset: client.list_conversations_page(
                charge_id=args.charge,
                customer_id=args.customer,
                status=args.status,
                limit=size,
                offset=offset,
            ),
            _limit(args),
            page_size=50,
            trust=trust,
        )
    fmt = args.format or "table"
    write_listing(runtime.io.out, rows, fmt, table, columns=keys, local=args.local_time)
    return _trusted(runtime, trust)


def _thread_notes(runtime: Runtime, thread: Thread) -> int:
    for note in thread.notes:
        runtime.io.err.write(f"paytui: {safe(note)}\n")
    if thread.unreadable:
        runtime.io.err.write(f"paytui: {thread.unreadable} item(s) could not be read as a line\n")
    return Exit.INCOMPLETE if thread.unreadable or thread.cut else Exit.OK


async def conversations_show(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.api.conversations import read_thread
    from paytui.exporter import json_record, write_listing, write_record

    async with runtime.client() as client:
        found = await client.get_object("conversations", args.id)
        thread = await read_thread(client, args.id)
    if args.format == "json":
        # A line as `messages list` writes it (its times the same UTC text), and its kind.
        columns = thread_columns()
        lines = [{**json_record(columns, e), "kind": e.kind} for e in thread.entries]
        data = {"conversation": found.fields(), "thread": lines}
        write_record(runtime.io.out, data, "json", {})  # redacted, control characters shown
    else:
        write_record(runtime.io.out, found, "table", conversation_columns())
        runtime.io.out.write("\n")
        write_listing(runtime.io.out, thread.entries, "table", thread_columns())
    return _thread_notes(runtime, thread)


def _conversation_argument(args: argparse.Namespace) -> str:
    """`messages list ID`, or the older `--conversation ID` (the same when both are given)."""
    given = {value for value in (args.id, args.conversation) if value is not None}
    if not given:
        raise CommandError("messages list: which conversation? `messages list ID`", Exit.USAGE)
    if len(given) > 1:
        raise CommandError(
            f"messages list: two conversations given ({args.id} and --conversation"
            f" {args.conversation}): give one",
            Exit.USAGE,
        )
    return str(given.pop())


async def messages_list(runtime: Runtime, args: argparse.Namespace) -> int:
    from paytui.api.conversations import Thread, entry_of
    from paytui.api.models import Trust
    from paytui.commands.handlers import _collect, _columns, _limit
    from paytui.exporter import write_listing

    conversation = _conversation_argument(args)
    table = thread_columns()
    keys = _columns(args, table, list(table))
    trust = Trust()  # only its count of the rows that could not be read is said
    async with runtime.client() as client:
        rows: list[GenericObject] = await _collect(
            lambda size, offset: client.list_messages_page(
                conversation_id=conversation, limit=size, offset=offset
            ),
            _limit(args),
            page_size=50,
            trust=trust,
        )
    thread = Thread(unreadable=trust.unreadable)
    for row in rows:
        # A service that ignored the filter: another conversation's message is not this one's.
        if str(row.fields().get("conversation_id", conversation)) != conversation:
            continue
        line = entry_of(row)
        if line is None:
            thread.unreadable += 1
        else:
            thread.entries.append(line)
    fmt = args.format or "table"
    write_listing(runtime.io.out, thread.entries, fmt, table, columns=keys, local=args.local_time)
    return _thread_notes(runtime, thread)


CONVERSATION_HANDLERS = {
    "conversations list": conversations_list,
    "conversations show": conversations_show,
    "messages list": messages_list,
}
