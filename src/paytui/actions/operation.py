"""The shape of an operation's description (`Operation`); the table is `operations.py`.

Kept apart from the table so each operation's module (`paytui.actions.ops`) can build its own
spec without importing the others.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from paytui.actions.basis import Basis
    from paytui.actions.entry import JournalEntry
    from paytui.actions.plan import Plan
    from paytui.actions.read_backs import ReadBack
    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge

__all__ = [
    "Asked",
    "Asking",
    "BadOption",
    "CommandLine",
    "Executor",
    "NoParams",
    "Operation",
    "OperationName",
    "Option",
    "Request",
    "decimal_or_none",
]

#: A journal operation's name: a key of `paytui.actions.operations.OPERATIONS`, which is the
#: list (not a `Literal` here: a new operation is one module and one line in that table).
OperationName = str

CHARGES_ALL = "urn:v2:charges:all"
REFUNDS_ALL = "urn:v2:refunds:all"
TOKENS_ALL = "urn:v2:tokens:all"
DISTRIBUTE = "urn:v2:charges:distribute:create"
PLUGINS_ALL = "urn:v2:plugins:all"
ACCOUNTS_ALL = "urn:v2:accounts:all"


class Executor(Protocol):
    """What an operation's preparation may use of the executor (`ActionExecutor` is one): the
    client and the checks every operation shares. An operation never runs the pipeline itself:
    every caller runs it through `ActionExecutor.run`."""

    @property
    def client(self) -> PaymentClient: ...

    def confirm(
        self, operation: str, amount: Decimal | None, charge_id: str | None, typed: str | None
    ) -> None: ...

    async def read_authorization(self, charge_id: str) -> Charge: ...

    async def read_charge(self, charge_id: str) -> Charge | None: ...

    async def who_changed(self, operation: str, target: str, after_id: int) -> str: ...


@dataclass(frozen=True)
class Asked:
    """What the person gave with the parameters, for the preparation: the production typed
    confirmation, and the journal entry this one sends again (a retry), if any."""

    confirmation: str | None = None
    retry_of: int | None = None


@dataclass(frozen=True)
class NoParams:
    """The parameters of an operation that takes none beyond its target (distribute, close a
    conversation, delete a session)."""


@dataclass(frozen=True)
class Option:
    """One option of an operation's command-line verb: ``--email ADDRESS`` fills the field
    `field` of the operation's `Params` (its flag is the field's name, ``_`` written ``-``, or
    `name`). `kind`: how it is read —

    - ``text`` as it is typed, ``amount`` a positive amount, ``fee`` an amount that may be zero,
      ``words`` a comma-separated list (``a,b``; empty: none);
    - ``secret``: never an argument (other users see argv): typed at a prompt without echo, or
      one line of stdin (a card number); it has no flag;
    - ``document``: a text of several lines from ``--file PATH`` or stdin (the default, ``-``),
      as written (one final newline dropped: an editor's); at most `most` characters are read.

    `check`: why the text is wrong (None: it is not), said ``{said}: why`` (exit 2) before
    anything is sent; `said`: how a line names it (default: its flag) — ``card number``."""

    field: str
    help: str
    metavar: str = "TEXT"
    kind: str = "text"
    required: bool = False
    check: Callable[[str], str | None] | None = None
    name: str | None = None
    said_as: str | None = None
    most: int | None = None

    @property
    def flag(self) -> str:
        return "--" + (self.name or self.field).replace("_", "-")

    @property
    def said(self) -> str:
        return self.said_as or self.flag


@dataclass(frozen=True)
class Asking:
    """What a verb says and asks before it sends (`CommandLine.asking`), worked out from its
    parameters and what was read: the question (None: nothing is asked), the amount it names
    (the typed confirmation's), the lines said first (a message's text exactly as it will go),
    and the parameters sent when what was read fills them (a refund of what is left; None:
    those given)."""

    question: str | None
    amount: Decimal | None = None
    review: tuple[str, ...] = ()
    params: Any = None


class BadOption(Exception):
    """An option's value that what was read refuses (``--amount`` above what is left): one
    line, exit 2, nothing kept in the trail (the person mistyped, the service refused nothing)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


#: (target, its parameters, what was read — None when the operation reads nothing first) ->
#: what its verb asks (`Asking`). Raises `PrecheckFailed` when what was read refuses it (kept
#: in the audit trail, like every refusal) or `BadOption`.
AskingFn = Callable[[str, Any, "Basis | None"], Asking]


@dataclass(frozen=True)
class CommandLine:
    """An operation's verb on the command line (`paytui.commands.verbs` builds its parser and
    runs it through the one shared path: allowed → settle → observe → confirm → `run`).

    - `words`: its command, ``"customers update"`` (the noun must be a script command:
      `paytui.cli.SCRIPT_COMMANDS`, with a line in `paytui.commands.COMMAND_HELP`).
    - `summary`: its help line; `target`: the help of its one positional argument, the target
      — or of `target_flag` (``--account``, required) when the target is given as an option.
    - `options`: what fills its `Params` (`Option`); the other fields keep their defaults.
      `params`: what makes the `Params` of the options' values instead (keyword arguments,
      with the target as `target`), when they are not its fields one by one (a new token's
      request); it raises `BadOption` when the options alone refuse it (exit 2, nothing asked).
    - `ask`: the question before sending (``{target}`` is the target), the options given are
      said after it; None: nothing is asked (and the verb has no ``--yes``). `asking`: works
      the question out from what was read instead (`AskingFn`: the amount an authorization
      holds, what is left to refund, a message shown as it will go).
    - `again`: the help of ``--again`` (None: the verb has no ``--again``); `again_hint`: the
      line after "the same was made recently" (``{amount}``: the amount asked).
    - `record_key`: the key naming the target in what the verb writes (``charge_id``...);
      `record_amount`: whether that record says the amount (None: when money moves).
    - `result_columns`: the name of `paytui.exporter`'s columns the result is written with
      when it went through (``TOKEN_COLUMNS``: the new token); None: the record above.
    """

    words: str
    summary: str
    target: str = "the target"
    options: tuple[Option, ...] = ()
    ask: str | None = "{target}"
    again: str | None = None
    record_key: str = "charge_id"
    target_flag: str | None = None
    params: Callable[..., Any] | None = None
    asking: AskingFn | None = None
    again_hint: str = "Pass --again to do it again."
    record_amount: bool | None = None
    result_columns: str | None = None

    @property
    def noun(self) -> str:
        return self.words.split()[0]

    @property
    def verb(self) -> str:
        return self.words.split()[1]

    @property
    def asks(self) -> bool:
        """Whether the verb asks before sending (then ``--yes`` skips the question)."""
        return self.ask is not None or self.asking is not None

    def fields(self, params: type) -> set[str]:
        """What its options may fill: the fields of `params` (the operation's), or the keyword
        arguments of its own `params` maker."""
        if self.params is None:
            return set(getattr(params, "__dataclass_fields__", {}))
        import inspect

        return set(inspect.signature(self.params).parameters) - {"target"}


#: (method, path, query, JSON body) of a request, as `paytui.api.curl` writes it.
Request = tuple[str, str, list[tuple[str, str]] | None, Any]
ReadBackFn = Callable[
    ["PaymentClient", "JournalEntry", dict[str, Any] | None], Awaitable["ReadBack"]
]
#: An operation's preparation, run by the pipeline once the past is settled: (executor, target,
#: its typed parameters, what the person gave) -> the `Plan` (checks, first reads, what the
#: journal keeps, how to send it once).
PrepareFn = Callable[["Executor", str, Any, Asked], Awaitable["Plan"]]
#: A journal entry (and the request this process sent for it, when it still holds it) back to
#: the target and parameters that send it again (`NotRetryable` when the journal cannot say).
AgainFn = Callable[["JournalEntry", Any], tuple[str, Any]]


@dataclass(frozen=True)
class Operation:
    """One operation. `name` is what the journal records; the words are for sentences.

    - `noun`: "The same {noun} is being sent…", "A later {noun} of the same charge…".
    - `label`: the subject of a policy refusal ("{label} is off: this profile is read-only").
    - `short`: History's Action column.
    - `done`: what was done, in "refunded 5.00 by … 4 s ago".
    - `success`: the line when it went through (`{result_id}`, `{amount}`: " 5.00" or "").
    - `result_noun`: what its result id names ("new charge 3f2a…"); None: it makes nothing.
    - `target_key`: where the journal keeps its target when that is not a charge (the summary
      key); None: the journal's `charge_id` column.
    - `names_a_charge`: the journal's `charge_id` is a charge History can open (not a refund's,
      a token's or an account's id).
    - `params` / `prepare` / `params_of`: its typed parameters (a small frozen dataclass of its
      module), how it is prepared from them (`PrepareFn`), and how a journal entry gives them
      back for a retry (`AgainFn`). Every caller runs it the one way,
      ``await executor.run(name, target, params, ...)``, and the executor imports no operation.
    - `action`: the id of the registry's action (`paytui.actions.registry.ACTIONS`) whose rule
      `run` asks before anything is sent, on what the preparation read (`Plan.subject`) — for
      every operation; the same rule greys the key. None: the operation's own name.
    - `amount_of` / `identity_of`: the amount asked (kept with a refusal) and what makes two of
      them "the same" when the parameters say it before anything is read (a token's card).
    - `bulk_label` / `bulk_noun` / `bulk_params`: set when it may be done on many marked charges
      at once; `bulk_params` are the parameters of one of them, run through the same
      `ActionExecutor.run` as the single action (`paytui.actions.batch`): a label without them
      is refused when the table is built, never sent as another operation. An operation that
      is not done in bulk says why instead (`no_bulk`): one of the two, in its table line.
    - What the person decides on (`ActionExecutor.observe`, checked again before sending):
      `seen_refunds` — the charge's refunds and what is left (a refund); `seen_capture` —
      whether the authorization was captured (a capture). Neither: the charge's status only.
    - `four_eyes`: above the profile's `approve_above` it is not sent on one person's keypress
      but becomes a request a second person approves (`paytui.actions.journal_approvals`).
    - `makes_a_charge`: its target is an account and its result a new charge (the journal's
      charge column holds the result).
    - `command` / `no_command`: its verb on the command line (`CommandLine`), or why it has
      none — one of the two, said in its table line (a new operation cannot forget it).
    - `amount_is_identity`: two of them with the same amount on the same target are "the same"
      (a recent one needs "again"); read from the entry's amount for journals older than the
      identity they now carry.
    """

    name: OperationName
    noun: str
    label: str
    short: str
    scope: str
    success: str
    read_back: ReadBackFn
    params: type
    prepare: PrepareFn
    params_of: AgainFn
    action: str | None = None
    amount_of: Callable[[Any], Decimal | None] | None = None
    identity_of: Callable[[Any], str | None] | None = None
    moves_money: bool = False
    done: str = "done"
    result_noun: str | None = None
    target_key: str | None = None
    names_a_charge: bool = True
    bulk_label: str | None = None
    bulk_noun: str | None = None
    bulk_params: Any = None
    seen_refunds: bool = False
    seen_capture: bool = False
    makes_a_charge: bool = False
    four_eyes: bool = False
    amount_is_identity: bool = False
    request: Callable[[str, dict[str, Any]], Request | None] | None = None
    command: CommandLine | None = None
    no_command: str | None = None
    no_bulk: str | None = None

    def __post_init__(self) -> None:
        if self.bulk_label is not None and self.bulk_params is None:
            raise ValueError(
                f"operation {self.name!r} has a bulk_label but no bulk_params: say with what"
                " one marked charge is done (its own parameters), or it cannot be done in bulk"
            )
        if self.bulk_params is not None and not isinstance(self.bulk_params, self.params):
            raise ValueError(f"operation {self.name!r}: bulk_params are not its params")
        if (self.bulk_params is None) == (self.no_bulk is None):
            raise ValueError(
                f"operation {self.name!r}: give the parameters of one marked item"
                " (`bulk_params`) or say why it is not done in bulk (`no_bulk`), one of the two"
            )
        if (self.command is None) == (self.no_command is None):
            raise ValueError(
                f"operation {self.name!r}: give its command-line verb (`command`) or say why it"
                " has none (`no_command`), one of the two"
            )
        if self.command is not None:
            fields = self.command.fields(self.params)
            unknown = [o.field for o in self.command.options if o.field not in fields]
            if unknown:
                raise ValueError(f"operation {self.name!r}: options {unknown} fill no Params field")

    @property
    def rule(self) -> str:
        """The registry action whose rule `run` asks (`action`, else the operation's name)."""
        return self.action or self.name

    def request_of(self, entry: JournalEntry) -> Request | None:
        """The request an entry stands for, as far as the journal keeps it (None: not kept)."""
        if self.request is None:
            return None
        summary = dict(entry.request_summary or {})
        summary.pop("redacted", None)
        return self.request(entry.charge_id or "", summary)

    def result_word(self, entry: JournalEntry) -> str:
        """ "new charge 3f2a…", or the journal entry when it made nothing that has an id."""
        if entry.result_id:
            return f"{self.result_noun or 'entry'} {entry.result_id}"
        return f"journal entry #{entry.id}"


def decimal_or_none(value: Any) -> Decimal | None:
    """An amount the journal kept as text, back as a Decimal."""
    return Decimal(str(value)) if value is not None else None
