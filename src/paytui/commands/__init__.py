"""The command line for scripts: `paytui charges|refunds|tokens|accounts|history|journal|export`,
`claim`, `approvals`, `today`, `pulse`, `conversations`, `messages` and `evidence`.

The same connection, client, journal and exactly-once rule as the dashboard, without the screens
(docs/cli.md is the user's view, with the exit-code table). The parser is built here; each
command is a coroutine in `paytui.commands.handlers`. Start-up stays light: nothing from the UI,
no Textual, and the client and the sandbox are imported only by commands that talk to them.
"""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from paytui.cli import SCRIPT_COMMANDS
from paytui.commands.runtime import (
    CommandError,
    Connector,
    Exit,
    Io,
    Runtime,
    entry_number,
    exit_code_of,
    way_forward,
)
from paytui.console import SafeArgumentParser

__all__ = ["COMMANDS", "main"]

#: The first word of every command of this module: `paytui.cli` dispatches on the same list,
#: kept there so that choosing costs no import.
COMMANDS = SCRIPT_COMMANDS

#: Options that would put a card number on the command line (other users see argv).
NUMBER_OPTIONS = frozenset({"--card", "--card-number", "--number", "--pan", "--account-number"})


class _Parser(SafeArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CommandError(f"{message} (see `{self.prog} --help`)", Exit.USAGE)


def _common() -> _Parser:
    common = _Parser(add_help=False)
    common.add_argument("--profile", metavar="NAME", help="connect with this profile")
    common.add_argument("--base-url", metavar="URL", help="override the profile's base URL")
    return common


def _listing(parser: argparse.ArgumentParser, *, streams: bool = True) -> None:
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--limit", type=int, default=50, metavar="N", help="at most N (50)")
    if streams:
        limits.add_argument(
            "--all", action="store_true", help="every page, streamed (JSON Lines unless --format)"
        )
    parser.add_argument(
        "--format", choices=("table", "json", "jsonl", "csv"), help="output (default: table)"
    )
    parser.add_argument("--columns", metavar="A,B,...", help="columns to write, in order")
    parser.add_argument("--local-time", action="store_true", help="local time instead of UTC")


def unproven_flag(parser: argparse.ArgumentParser) -> None:
    """``--include-unproven``: also the rows a search cannot prove match, each marked."""
    parser.add_argument(
        "--include-unproven",
        action="store_true",
        help="also write the rows that cannot show they match the filters (the service does not"
        " show the field), each marked: a `proven` column (false); default: left out, counted"
        " on stderr",
    )


def acknowledge_flag(parser: argparse.ArgumentParser) -> None:
    """``--acknowledge ENTRY``: the way forward past an earlier attempt found done (exit 8)."""
    parser.add_argument(
        "--acknowledge",
        type=entry_number,
        metavar="ENTRY",
        help="send it although the earlier attempt ENTRY (12 or #12) was found done: the"
        " exit-8 line names it and prints the command to type",
    )


def confirm_flags(parser: argparse.ArgumentParser) -> None:
    """`--yes`, `--confirm AMOUNT` and `--format` of a command that sends money."""
    parser.add_argument("--yes", action="store_true", help="do not ask (scripts)")
    parser.add_argument(
        "--confirm",
        metavar="AMOUNT",
        help="production, with --yes: the amount, as the typed confirmation would be",
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")


#: What each command is, in `paytui --help`'s order: the one description the commands' parsers
#: read too, so listing the commands costs no import, and a command's own parser (with what its
#: options need: the names of the operations, Today's kinds) is built only when it runs.
COMMAND_HELP: dict[str, str] = {
    "charges": "search, show, capture charges",
    "refunds": "create and list refunds",
    "tokens": "list, show, create, update stored cards",
    "accounts": "list, show, watch merchant accounts",
    "history": "the audit trail: actions, refusals and failures",
    "journal": "the action journal: status, migrate a local history, the team journal's password",
    "claim": "claim a charge, or see who holds claims (docs/team.md)",
    "approvals": "four eyes: list, approve, reject requests above approve_above (docs/team.md)",
    "today": "what needs doing next, by deadline (docs/today.md)",
    "pulse": "the dispute ratio per account this month, against the lines (docs/today.md)",
    "conversations": "list, show, close conversations",
    "customers": "change a customer's contact",
    "messages": "list and send messages of a conversation",
    "export": "export a charge search to a file (every page)",
    "evidence": "a chargeback's evidence pack, and the check before submitting it",
}

#: Adds a command's parser (its verbs, its options) to the top parser's commands; its third
#: argument is the verb chosen (None: not known), so that a verb of the operations table is
#: built only when it may be the one run (`paytui.commands.verbs.add_table_verbs`).
Builder = Callable[[Any, argparse.ArgumentParser, "str | None"], None]


def _sub(
    group: Any, name: str, text: str, common: argparse.ArgumentParser
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = group.add_parser(
        name, help=text, description=text, parents=[common], allow_abbrev=False
    )
    return parser


def _charges(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    from paytui.commands.verbs import add_table_verbs

    charges = top.add_parser("charges", help=COMMAND_HELP["charges"])
    verbs = charges.add_subparsers(dest="verb", metavar="{search,show,capture}")
    verbs.required = True
    search = _sub(
        verbs, "search", "Search charges with the query language (docs/search.md).", common
    )
    search.add_argument("query", nargs="*", help="e.g. status:chargeback tag:vip amount>=25")
    _listing(search)
    unproven_flag(search)
    show = _sub(verbs, "show", "Show one charge.", common)
    show.add_argument("id")
    show.add_argument("--expand", choices=("distributions", "all"))
    show.add_argument("--format", choices=("table", "json"), default="table")
    add_table_verbs(verbs, "charges", common, verb, own=("search", "show"))


def _refunds(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    from paytui.commands.verbs import add_table_verbs

    refunds = top.add_parser("refunds", help=COMMAND_HELP["refunds"])
    verbs = refunds.add_subparsers(dest="verb", metavar="{create,list}")
    verbs.required = True
    listing = _sub(verbs, "list", "List refunds.", common)
    listing.add_argument("--charge", metavar="ID", help="the refunds of this charge")
    listing.add_argument("--account", metavar="ID")
    _listing(listing)
    unproven_flag(listing)
    add_table_verbs(verbs, "refunds", common, verb, own=("list",))


def _customers(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    """Only verbs of the operations table (`paytui.commands.verbs`)."""
    from paytui.commands.verbs import add_table_verbs

    customers = top.add_parser("customers", help=COMMAND_HELP["customers"])
    verbs = customers.add_subparsers(dest="verb")
    verbs.required = True
    add_table_verbs(verbs, "customers", common, verb)


def _tokens(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    from paytui.commands.verbs import add_table_verbs

    tokens = top.add_parser("tokens", help=COMMAND_HELP["tokens"])
    verbs = tokens.add_subparsers(dest="verb", metavar="{list,show,create,update}")
    verbs.required = True
    listing = _sub(verbs, "list", "List stored card tokens.", common)
    listing.add_argument("--account", metavar="ID")
    _listing(listing, streams=False)
    show = _sub(verbs, "show", "Show one token (the number masked).", common)
    show.add_argument("id")
    show.add_argument("--format", choices=("table", "json"), default="table")
    add_table_verbs(verbs, "tokens", common, verb, own=("list", "show"))


def _accounts(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    accounts = top.add_parser("accounts", help=COMMAND_HELP["accounts"])
    verbs = accounts.add_subparsers(dest="verb", metavar="{list,show,watch}")
    verbs.required = True
    listing = _sub(verbs, "list", "List merchant accounts.", common)
    listing.add_argument("--merchant", metavar="ID")
    listing.add_argument("--status")
    _listing(listing, streams=False)
    show = _sub(verbs, "show", "Show one account and its boarding status.", common)
    show.add_argument("id")
    show.add_argument("--format", choices=("table", "json"), default="table")
    watch = _sub(
        verbs,
        "watch",
        "Print the account's status as JSON Lines whenever it changes (ctrl+c).",
        common,
    )
    watch.add_argument("id")
    watch.add_argument("--interval", type=float, default=5.0, metavar="SECONDS")
    watch.add_argument("--count", type=int, metavar="N", help="stop after N changes")


def _history(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    from paytui.actions.operation_names import OPERATION_NAMES

    history = top.add_parser(
        "history",
        help=COMMAND_HELP["history"],
        description="The audit trail of the journal: every money action with its outcome, and "
        "every refused attempt. Newest first.",
        allow_abbrev=False,
    )
    history.add_argument(
        "check",
        nargs="*",
        metavar="check [ENTRY ...] | verify",
        help="`history check`: read back every entry whose outcome is not proven (or these"
        " entries) and record the verdict; `history verify`: walk the journal's trail (its hash"
        " chain) and name the first broken link",
    )
    history.add_argument("--profile", metavar="NAME", help="only this profile's")
    history.add_argument("--client-id", metavar="ID")
    history.add_argument(
        "--action",
        choices=OPERATION_NAMES,  # the table of operations' names, without building the table
    )
    history.add_argument("--charge", metavar="ID")
    history.add_argument("--outcome", metavar="STATE", help="succeeded, failed, refused, ...")
    history.add_argument("--agent", metavar="NAME", help="only this agent's (who acted)")
    history.add_argument("--since", metavar="DATE", help="2026-01-31 or an ISO time (UTC)")
    history.add_argument("--until", metavar="DATE")
    _listing(history)


def _journal(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    journal = top.add_parser("journal", help=COMMAND_HELP["journal"])
    verbs = journal.add_subparsers(dest="verb", metavar="{status,migrate,password}")
    verbs.required = True
    status = _sub(
        verbs,
        "status",
        "Where the journal is (a password masked), its engine and schema version, the agents"
        " seen on it, and this session's agent.",
        common,
    )
    status.add_argument("--format", choices=("table", "json"), default="table")
    migrate = _sub(
        verbs,
        "migrate",
        "Copy a person's own journal (a SQLite file) into this connection's journal (a team's),"
        " once: a second run copies nothing again.",
        common,
    )
    migrate.add_argument(
        "--from",
        dest="source",
        metavar="sqlite:PATH",
        required=True,
        help="the file to copy (sqlite:PATH or a path)",
    )
    migrate.add_argument(
        "--agent",
        metavar="NAME",
        help="who made the rows that name no agent (written before paytui recorded it);"
        " default: they stay without one",
    )
    migrate.add_argument("--format", choices=("table", "json"), default="table")
    password = _Parser(add_help=False)
    password.add_argument("--profile", metavar="NAME", help="the profile to store it for")
    verbs.add_parser(
        "password",
        help="store the team journal's password",
        description="Store the team journal's password for a profile (the system keyring, else"
        " the secrets file): typed at a prompt (no echo) or read as one line from stdin;"
        " never an argument.",
        parents=[password],
        allow_abbrev=False,
    )


def _export(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
    export = top.add_parser(
        "export",
        help=COMMAND_HELP["export"],
        description="Export every charge a search finds to CSV or JSON Lines, streamed. "
        "Default file: the documents directory; --output - writes to stdout.",
        parents=[common],
        allow_abbrev=False,
    )
    export.add_argument("query", nargs="*")
    export.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    export.add_argument("--output", "-o", metavar="PATH")
    export.add_argument("--columns", metavar="A,B,...")
    export.add_argument("--local-time", action="store_true")
    unproven_flag(export)


def _elsewhere(module: str, *, verbs: bool = False) -> Builder:
    """The builder a command's own module keeps (`add_parser`), imported when it is built;
    `verbs`: it takes the verb chosen (it holds verbs of the operations table)."""

    def build(top: Any, common: argparse.ArgumentParser, verb: str | None = None) -> None:
        builder = importlib.import_module(module).add_parser
        if verbs:
            builder(top, common, verb)
        else:
            builder(top, common)

    return build


# conversations and messages
_conversations = _elsewhere("paytui.commands.conversations", verbs=True)
#: Each command's builder (one builder may add several commands).
BUILDERS: dict[str, Builder] = {
    "charges": _charges,
    "refunds": _refunds,
    "tokens": _tokens,
    "accounts": _accounts,
    "history": _history,
    "journal": _journal,
    "claim": _elsewhere("paytui.commands.claims"),
    "approvals": _elsewhere("paytui.commands.approvals"),
    "today": _elsewhere("paytui.commands.today"),
    "pulse": _elsewhere("paytui.commands.pulse"),
    "conversations": _conversations,
    "messages": _conversations,
    "customers": _customers,
    "export": _export,
    "evidence": _elsewhere("paytui.commands.evidence"),
}


#: A word of the search language that excludes (`-tag:vip`, `-status:declined`): not an option.
_EXCLUDING = re.compile(r"-[A-Za-z_][A-Za-z_0-9]+[:=]")


def query_words(argv: Sequence[str]) -> list[str]:
    """`argv` with the search language's excluding words (`-tag:vip`) kept as words of the query,
    not taken for options: argparse takes a word starting with a space for a positional one, and
    the query is read with its spaces stripped (`handlers.parse_query`)."""
    if chosen_command(argv) not in {"charges", "export"}:
        return list(argv)
    return [f" {word}" if _EXCLUDING.match(word) else word for word in argv]


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command `argv` runs (its first word that names one), or None (`paytui --help`)."""
    for word in argv:
        if word in BUILDERS:
            return word
        if not word.startswith("-"):
            return None
    return None


def chosen_verb(argv: Sequence[str]) -> str | None:
    """The word after the command in `argv` (its verb, when it has verbs), or None."""
    command = chosen_command(argv)
    if command is None:
        return None
    rest = list(argv)[list(argv).index(command) + 1 :]
    return rest[0] if rest and not rest[0].startswith("-") else None


def build_parser(
    command: str | None = None, *, every: bool = False, verb: str | None = None
) -> argparse.ArgumentParser:
    """The parser of `command` (see `chosen_command`): every command is listed, with its line
    of `COMMAND_HELP`, but only `command`'s own parser is built (`every`: all of them, as the
    documentation and the tests read them). `verb`: the verb chosen (`chosen_verb`), so that
    the operations table is read only when it may be one of the table's verbs."""
    common = _common()
    parser = _Parser(
        prog="paytui",
        description="paytui's command line for scripts (data on stdout, messages on stderr). "
        "See docs/cli.md.",
        allow_abbrev=False,
    )
    top = parser.add_subparsers(dest="noun", metavar="{" + ",".join(COMMANDS) + "}")
    top.required = True
    built: set[Builder] = set()
    for name, builder in BUILDERS.items():
        if every or builder is BUILDERS.get(command or ""):
            if builder not in built:
                built.add(builder)
                builder(top, common, None if every else verb)
        else:
            # Listed, not built: its own parser is built when it is the command run.
            top.add_parser(name, help=COMMAND_HELP[name], add_help=False)
    return parser


def refuse_number_arguments(argv: Sequence[str]) -> None:
    """Card numbers are never arguments (the process list shows them to every user)."""
    from paytui.config.arguments import refuse_secret_arguments

    for arg in argv:
        if arg.split("=", 1)[0] in NUMBER_OPTIONS:
            raise CommandError(
                "a card number is never taken as an argument (other users can see arguments); "
                "type it at the prompt or pipe it on stdin",
                Exit.USAGE,
            )
    try:
        refuse_secret_arguments(argv)
    except Exception as exc:
        raise CommandError(str(exc), Exit.USAGE) from exc


def main(
    argv: Sequence[str],
    *,
    io: Io | None = None,
    connector: Connector | None = None,
    journal_path: Path | str | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Run one command; returns its exit code (`Exit`). Never raises, never a traceback."""
    from paytui.commands.contract import requested_format

    io = io or Io()
    io.fmt = requested_format(argv)
    runtime: Runtime | None = None
    try:
        refuse_number_arguments(argv)
        try:
            parser = build_parser(chosen_command(argv), verb=chosen_verb(argv))
            args = parser.parse_args(query_words(argv))
        except SystemExit as exit_:  # --help
            return int(exit_.code or 0)
        runtime = Runtime(
            io,
            # `history --profile` filters the trail; `history check --profile` connects with it.
            profile=getattr(args, "profile", None)
            if args.noun != "history" or args.check
            else None,
            base_url=getattr(args, "base_url", None),
            environ=environ,
            journal_path=journal_path,
            trail_profile=getattr(args, "profile", None)
            if args.noun == "history" and not args.check
            else None,
        )
        if connector is not None:
            runtime.connector = connector
        from paytui.commands.handlers import run, without_loop

        done = without_loop(runtime, args)
        if done is not None:
            return int(done)
        import asyncio

        return int(asyncio.run(run(runtime, args)))
    except KeyboardInterrupt:
        io.error("interrupted", Exit.INTERRUPTED)
        return Exit.INTERRUPTED
    except BrokenPipeError:  # `paytui charges search ... | head`
        return Exit.OK
    except Exception as exc:
        code = exit_code_of(exc)
        forward = way_forward(exc, argv)
        if forward is not None:
            message = " ".join(forward.split())
        else:
            message = exc.message if isinstance(exc, CommandError) else _one_line(exc)
        io.error(message, code, exc)
        return code
    finally:
        if runtime is not None:
            runtime.close()


def _one_line(exc: BaseException) -> str:
    """The error as one line. Action errors are paytui's own sentences, already redacted (the
    redactor would take "authorization: Not found" for an Authorization header); anything else
    is redacted here."""
    from paytui.actions.errors import ActionError
    from paytui.api.errors import ApiError
    from paytui.logs import redact

    text = str(getattr(exc, "message", None) or exc) or type(exc).__name__
    if not isinstance(exc, ActionError):
        text = redact(text)
    if isinstance(exc, ApiError) and exc.reading is not None:  # what failed, then why
        from paytui.actions.target_reads import could_not_read

        text = could_not_read(exc, text)
    return " ".join(text.split())
