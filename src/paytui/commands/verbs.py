"""The command line's verbs of the operations table: each operation's `CommandLine` (its table
line, `paytui.actions.operations`) made into a parser, and run through the one shared path
(`handlers.money_verb`: allowed → settle → observe → confirm → `ActionExecutor.run`), with the
same flags (``--yes`` when it asks, ``--confirm`` for money, ``--acknowledge``, ``--again``,
``--format``), the same record on stdout and the same exit codes as every money verb.

Every verb of an operation is built here from its declaration, the money verbs included
(`charges capture`, `refunds create`, `tokens create`, `messages send`): its parser, how its
options are read (an amount, a card number at a prompt — never an argument —, a text from a
file or stdin), its question (worked out from what was read when it declares `asking`: the
amount an authorization holds, what is left to refund, a message shown as it will go) and its
record. A new operation whose verb is declared in its table line needs nothing here.

Start-up stays light: the table (every operation's module, the client's models) is imported only
when the verb chosen may be one of its verbs — never for `charges show` or `refunds list`.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Iterator
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from paytui.commands.runtime import CommandError, Exit, Runtime
from paytui.text import safe

if TYPE_CHECKING:
    from paytui.actions.basis import Basis
    from paytui.actions.executor import ActionExecutor
    from paytui.actions.operation import Asking, CommandLine, Operation, Option

__all__ = ["add_table_verbs", "read_document", "run_verb", "table_verbs"]


def table_verbs(noun: str | None = None) -> Iterator[Operation]:
    """The operations with a verb of the command line (of `noun`, if given), table order."""
    from paytui.actions.operations import OPERATIONS

    for spec in OPERATIONS.values():
        if spec.command is not None and noun in (None, spec.command.noun):
            yield spec


def add_table_verbs(
    group: Any,
    noun: str,
    common: argparse.ArgumentParser,
    verb: str | None,
    own: Collection[str] = (),
) -> None:
    """Add to `group` (the `verb` sub-parsers of `noun`) the verbs of the operations table that
    are built from their declaration. `verb`: the verb chosen (None: not known, build them all);
    one of `own`, the noun's other verbs (reads), builds none and imports nothing."""
    if verb is not None and verb in own:
        return
    from paytui.commands import acknowledge_flag

    for spec in table_verbs(noun):
        line = spec.command
        if line is None:
            continue
        parser: argparse.ArgumentParser = group.add_parser(
            line.verb,
            help=line.summary,
            description=line.summary,
            parents=[common],
            allow_abbrev=False,
        )
        if line.target_flag is not None:
            parser.add_argument(
                line.target_flag, dest="id", metavar="ID", required=True, help=line.target
            )
        else:
            parser.add_argument("id", help=line.target)
        for option in line.options:
            if option.kind == "secret":
                continue  # never an argument: typed at a prompt or read from stdin
            parser.add_argument(
                option.flag,
                dest=option.field,
                metavar=option.metavar,
                help=option.help,
                required=option.required,
            )
        if line.again is not None:
            parser.add_argument("--again", action="store_true", help=line.again)
        acknowledge_flag(parser)
        if line.asks:
            parser.add_argument("--yes", action="store_true", help="do not ask (scripts)")
        if spec.moves_money:
            parser.add_argument(
                "--confirm",
                metavar="AMOUNT",
                help="production, with --yes: the amount, as the typed confirmation would be",
            )
        parser.add_argument("--format", choices=("table", "json"), default="table")
        parser.set_defaults(operation=spec.name)
    group.metavar = "{" + ",".join(group.choices) + "}"


def _value(runtime: Runtime, args: argparse.Namespace, option: Option, text: str) -> Any:
    """What `option`'s text stands for, its kind read (a bad value: one line, exit 2)."""
    if option.kind == "secret":
        text = _read_secret(runtime, option)
    elif option.kind == "document":
        text = read_document(runtime, option, text, asks=not getattr(args, "yes", False))
    if option.check is not None and (problem := option.check(text)):
        raise CommandError(f"{option.said}: {problem}", Exit.USAGE)
    if option.kind == "words":
        return tuple(word.strip() for word in text.split(",") if word.strip())
    if option.kind in {"amount", "fee"}:
        from paytui.actions.amounts import parse_amount

        try:
            return parse_amount(text, allow_zero=option.kind == "fee")
        except Exception as exc:
            message = f"{option.flag}: {getattr(exc, 'message', exc)}"
            raise CommandError(message, Exit.USAGE) from exc
    return text


def _read_secret(runtime: Runtime, option: Option) -> str:
    """From a no-echo prompt at a terminal, else one line of stdin. Never an argument."""
    io = runtime.io
    if io.interactive:
        import getpass

        prompt = f"{option.said.capitalize()} (not shown): "
        try:
            text = getpass.getpass(prompt, stream=cast("TextIO", io.err))
        except EOFError:  # ctrl+d at the prompt: nothing typed, said as bad input
            io.err.write("\n")  # on a line of its own, not the prompt's
            raise CommandError(f"no {option.said} typed (end of input)", Exit.USAGE) from None
    else:
        text = io.inp.readline()
        if not text:
            raise CommandError(
                f"no {option.said} on stdin (pipe it in, or run at a terminal to be asked)",
                Exit.USAGE,
            )
    return text.strip()


def read_document(runtime: Runtime, option: Option, path: str, *, asks: bool) -> str:
    """The text of a ``document`` option from its file or stdin (``-``), as written (one final
    newline dropped: an editor's, not the writer's); at most `Option.most` characters."""
    from_stdin = path == "-"
    if from_stdin and runtime.io.interactive and asks:
        runtime.io.message(f"Type the {option.said}; end it with ctrl+d on a line of its own.")
    most = option.most if option.most is not None else -1
    try:
        if from_stdin:
            text = runtime.io.inp.read(most)
        else:
            with Path(path).open(encoding="utf-8") as handle:
                text = handle.read(most)
    except (OSError, UnicodeDecodeError) as exc:
        where = (
            f"cannot read the {option.said} from stdin"
            if from_stdin
            else f"{option.flag}: cannot read {path}"
        )
        raise CommandError(f"{where}: {exc}", Exit.USAGE) from None
    return text.removesuffix("\n")


def _values(runtime: Runtime, args: argparse.Namespace, line: CommandLine) -> dict[str, Any]:
    """Each option's value by field, read in the declared order (a secret or a document read
    when its turn comes: after the flags before it were checked)."""
    values = {}
    for option in line.options:
        text = getattr(args, option.field, None)
        if option.kind == "secret":
            text = ""
        elif option.kind == "document" and text is None:
            text = "-"  # stdin, the default
        if text is not None:
            values[option.field] = _value(runtime, args, option, text)
    return values


def _said(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(value) or "(none)"
    return str(value)


def _asking(spec: Operation, target: str, params: Any, values: dict[str, Any]) -> Asking:
    """What the verb asks when its declaration has no `asking`: `ask` and the options given."""
    from paytui.actions.operation import Asking

    line = spec.command
    assert line is not None
    if line.ask is None:
        return Asking(None)
    given = ", ".join(
        f"{option.flag.removeprefix('--')} {_said(values[option.field])}"
        for option in line.options
        if option.field in values and option.kind not in {"secret", "document"}
    )
    amount = spec.amount_of(params) if spec.amount_of is not None else None
    return Asking(line.ask.format(target=target) + (f" ({given})" if given else ""), amount)


async def run_verb(runtime: Runtime, args: argparse.Namespace) -> int:
    """A verb of the table (`args.operation`): its parameters read from its options, asked,
    then run the one way; the record of `handlers.report` on stdout (or the result, when the
    verb writes it: `CommandLine.result_columns`), the state's exit code."""
    from paytui.actions.errors import PrecheckFailed
    from paytui.actions.operation import BadOption
    from paytui.actions.operations import OPERATIONS
    from paytui.commands.handlers import money_verb, report

    spec = OPERATIONS[args.operation]
    line = spec.command
    assert line is not None  # only its verbs set `operation`
    values = _values(runtime, args, line)
    try:
        given = (
            line.params(target=args.id, **values)
            if line.params is not None
            else spec.params(**values)
        )
    except BadOption as err:  # the options alone refuse it: said before anything is asked
        raise CommandError(err.message, Exit.USAGE) from None
    asked: Decimal | None = spec.amount_of(given) if spec.amount_of is not None else None
    chosen: list[Asking] = []

    async def question(
        executor: ActionExecutor, basis: Basis | None
    ) -> tuple[str, Decimal | None] | None:
        try:
            said = (
                line.asking(args.id, given, basis)
                if line.asking is not None
                else _asking(spec, args.id, given, values)
            )
        except PrecheckFailed as err:  # what was read refuses it: kept in the trail
            await executor.record_refusal(spec.name, args.id, err.message, asked)
            raise
        except BadOption as err:
            raise CommandError(err.message, Exit.USAGE) from None
        chosen.append(said)
        for review in said.review:
            runtime.io.message(review)
        return None if said.question is None else (safe(said.question), said.amount)

    def hint() -> str:
        from paytui.api.money import format_amount

        amount = chosen[0].amount if chosen else asked
        return line.again_hint.format(amount=format_amount(amount) if amount is not None else "")

    outcome = await money_verb(
        runtime,
        args,
        spec.name,
        args.id,
        lambda _: chosen[0].params if chosen and chosen[0].params is not None else given,
        question,
        asked=asked,
        again_hint=hint,
    )
    if line.result_columns is not None and outcome.succeeded and outcome.result is not None:
        from paytui import exporter
        from paytui.exporter import write_record

        columns = getattr(exporter, line.result_columns)
        write_record(runtime.io.out, outcome.result, args.format, columns)
        said = spec.success.format(result_id=outcome.result_id, amount="")
        runtime.io.message(outcome.message or said)
        return Exit.OK
    record_amount = spec.moves_money if line.record_amount is None else line.record_amount
    return report(runtime, outcome, args.format, key=line.record_key, amount=record_amount)
