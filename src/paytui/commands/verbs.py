"""The command line's verbs of the operations table: each operation's `CommandLine` (its table
line, `paytui.actions.operations`) made into a parser, and run through the one shared path
(`handlers.money_verb`: allowed → settle → observe → confirm → `ActionExecutor.run`), with the
same flags (``--yes``, ``--confirm`` for money, ``--acknowledge``, ``--again``, ``--format``), the
same record on stdout and the same exit codes as every money verb.

A new operation whose verb is declared in its table line needs nothing here: its parser, its
question and its record come from the declaration. Verbs written by hand in `handlers.py` or
`conversations.py` say why in their declaration (`CommandLine.hand_written`).

Start-up stays light: the table (every operation's module, the client's models) is imported only
when the verb chosen may be one of its verbs — never for `charges show` or `refunds list`.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paytui.commands.runtime import CommandError, Exit, Runtime
from paytui.text import safe

if TYPE_CHECKING:
    from paytui.actions.operation import Operation, Option

__all__ = ["add_table_verbs", "run_verb", "table_verbs"]


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
    one of `own`, the noun's verbs written by hand, builds none and imports nothing."""
    if verb is not None and verb in own:
        return
    from paytui.commands import acknowledge_flag

    for spec in table_verbs(noun):
        line = spec.command
        if line is None or line.hand_written is not None:
            continue
        parser: argparse.ArgumentParser = group.add_parser(
            line.verb,
            help=line.summary,
            description=line.summary,
            parents=[common],
            allow_abbrev=False,
        )
        parser.add_argument("id", help=line.target)
        for option in line.options:
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


def _value(option: Option, text: str) -> Any:
    """What `option`'s text stands for, its kind read (a bad amount: one line, exit 2)."""
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


def _said(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(value) or "(none)"
    return str(value)


async def run_verb(runtime: Runtime, args: argparse.Namespace) -> int:
    """A verb of the table (`args.operation`): its parameters read from its options, asked,
    then run the one way; the record of `handlers.report` on stdout, the state's exit code."""
    from paytui.actions.operations import OPERATIONS
    from paytui.commands.handlers import money_verb, report

    spec = OPERATIONS[args.operation]
    line = spec.command
    assert line is not None  # only its verbs set `operation`
    values = {
        option.field: _value(option, text)
        for option in line.options
        if (text := getattr(args, option.field)) is not None
    }
    params = spec.params(**values)
    amount: Decimal | None = spec.amount_of(params) if spec.amount_of is not None else None
    given = ", ".join(
        f"{option.flag.removeprefix('--')} {_said(values[option.field])}"
        for option in line.options
        if option.field in values
    )
    what = safe(line.ask.format(target=args.id) + (f" ({given})" if given else ""))

    async def question(_executor: Any, _basis: Any) -> tuple[str, Decimal | None]:
        return what, amount

    outcome = await money_verb(
        runtime, args, spec.name, args.id, lambda _: params, question, asked=amount
    )
    return report(runtime, outcome, args.format, key=line.record_key, amount=spec.moves_money)
