"""The output contract (docs/cli.md, "The output contract"), held over every command and every
format it takes: stdout is the data of the documented shape and nothing else, JSON values are
JSON types (money decimal text, booleans, integers), and an error with `--format json|jsonl`
is one JSON object on stderr (`error`, `kind`, `exit`, `message`) with nothing on stdout.

The table of shapes is read from docs/cli.md itself, so the documentation is what is held."""

from __future__ import annotations

import csv
import functools
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.commands import build_parser
from paytui.commands.runtime import Exit
from tests.cli_support import Run, sandbox_cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
CARD = "4111111111111111"
MONEY = re.compile(r"^-?\d+\.\d{2,}$")
TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
KINDS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "money": lambda v: isinstance(v, str) and bool(MONEY.match(v)),
    "time": lambda v: isinstance(v, str) and bool(TIME.match(v)),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


Shape = tuple[str, list[tuple[str, str, bool]]]


def _shape(stdout: str) -> Shape:
    what, _, fields = stdout.partition(":")
    keys = [
        (key, kind, optional == "?")
        for key, optional, kind in re.findall(r"`(\w+)`(\??) (\w+)", fields)
    ]
    return what.strip(), keys


def documented() -> dict[str, tuple[tuple[str, ...], Shape, Shape]]:
    """docs/cli.md's table of output shapes: command -> (formats, shape, jsonl's shape), a
    shape being what (rows, object, service object or nothing) and [(key, type, may be
    absent)]."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Output shapes", 1)[1].split("\n## ", 1)[0]
    shapes = {}
    for line in section.splitlines():
        found = re.match(r"^\| `([a-z -]+)` \| ([a-z -]+) \| (.+) \|$", line)
        if not found:
            continue
        command, formats, stdout = found.groups()
        usual, _, jsonl = stdout.partition(" — jsonl: ")
        shape = _shape(usual)
        shapes[command] = (
            tuple(f for f in formats.split() if f != "-"),
            shape,
            _shape(jsonl) if jsonl else shape,
        )
    return shapes


SHAPES = documented()


def parser_commands() -> set[str]:
    """Every command the parser knows, as its words (`charges search`, `claim`, ...)."""
    top = build_parser(every=True)
    names: set[str] = set()
    (nouns,) = [a for a in top._actions if a.dest == "noun"]
    for noun, parser in nouns.choices.items():  # type: ignore[union-attr]
        verbs = [a for a in parser._actions if a.dest == "verb"]
        if verbs:
            names.update(f"{noun} {verb}" for verb in verbs[0].choices)  # type: ignore[union-attr]
        else:
            names.add(noun)
    names.update({"history check", "history verify"})  # the words of `history`'s positional
    names.add("evidence --check")  # its own shape: the check, not the pack
    return names


def test_every_command_has_a_documented_shape() -> None:
    assert parser_commands() == set(SHAPES), set(SHAPES) ^ parser_commands()
    assert set(CASES) == set(SHAPES)


def _check(value: Any, keys: list[tuple[str, str, bool]], where: str) -> None:
    assert isinstance(value, dict), where
    wanted = [key for key, _, optional in keys if not optional]
    allowed = [key for key, _, _ in keys]
    assert [k for k in value if k in wanted] == wanted, (where, list(value))
    assert set(value) <= set(allowed), (where, set(value) - set(allowed))
    for key, kind, _ in keys:
        if key in value and value[key] is not None:
            assert KINDS[kind](value[key]), (where, key, kind, value[key])


def _amounts_are_text(value: Any, where: str) -> None:
    """No float anywhere in a service object: money is decimal text."""
    if isinstance(value, dict):
        for key, item in value.items():
            _amounts_are_text(item, f"{where}.{key}")
    elif isinstance(value, list):
        for item in value:
            _amounts_are_text(item, where)
    else:
        assert not isinstance(value, float), (where, value)
        if "amount" in where.rsplit(".", 1)[-1] and value is not None:
            assert isinstance(value, str) and MONEY.match(value), (where, value)


def check_output(command: str, fmt: str, out: str) -> int:
    """`out` is exactly the documented shape in `fmt`; returns how many rows or objects."""
    _, usual, jsonl = SHAPES[command]
    what, keys = jsonl if fmt == "jsonl" else usual
    where = f"{command} --format {fmt}"
    if what == "nothing":
        assert out == "", where
        return 0
    if fmt in ("table", "text", "markdown"):
        assert out and not any(line.startswith("paytui:") for line in out.splitlines()), where
        return 1
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        names = [re.sub(r" \((UTC|local)\)$", "", name) for name in rows[0]]
        assert names == [key for key, _, _ in keys], (where, names)
        assert all(len(row) == len(names) for row in rows[1:]), where
        return len(rows) - 1
    values = (
        [json.loads(line) for line in out.splitlines()] if fmt == "jsonl" else [json.loads(out)]
    )
    if what == "rows" and fmt == "json":
        (values,) = values
        assert isinstance(values, list), where
    for value in values:
        if what == "service object":
            assert isinstance(value, dict) and value, where
            _amounts_are_text(value, where)
        else:
            _check(value, keys, where)
    return len(values)


# -- every command, every format ------------------------------------------------------------


class World:
    """Ids from the demo, each list read through the command line itself when first asked for:
    a command's case reads only those it uses."""

    def __init__(self, run: Run, other: Run) -> None:
        self.run = run
        self.other = other
        self.used = 0
        self.acted = False

    @functools.cached_property
    def sales(self) -> list[str]:
        return self._ids("charges", "search", "status:success", "type:sale", "--limit", "20")

    @functools.cached_property
    def holds(self) -> list[str]:
        return self._ids("charges", "search", "is:open", "--limit", "4")

    @functools.cached_property
    def accounts(self) -> list[str]:
        return self._ids(
            "accounts", "list", "--status", "approved", "--limit", "1", key="account_id"
        )

    @functools.cached_property
    def tokens(self) -> list[str]:
        return self._ids("tokens", "list", "--limit", "1", key="token_id")

    @functools.cached_property
    def open(self) -> list[str]:
        return self._ids("conversations", "list", "--status", "open", "--limit", "4", key="id")

    @functools.cached_property
    def chargebacks(self) -> list[str]:
        return self._ids("charges", "search", "status:chargeback", "--limit", "1")

    @functools.cached_property
    def refunds(self) -> list[str]:
        return self._ids("refunds", "list", "--limit", "1", key="refund_id")

    @functools.cached_property
    def customers(self) -> list[str]:
        return self._ids("conversations", "list", "--limit", "1", key="customer_id")

    def _ids(self, *argv: str, key: str = "charge_id") -> list[str]:
        code, out, err = self.run(*argv, "--format", "jsonl")
        assert code == Exit.OK, err
        found = [json.loads(line)[key] for line in out.splitlines()]
        assert found, argv
        return found

    def ready_case(self) -> str:
        """A chargeback whose pack `--check` passes (exit 0): the demo's 10.4 case, whose
        answer requires only the authorization."""
        (found,) = self._ids("charges", "search", "status:chargeback", "name:Omar")
        return found

    def next_sale(self) -> str:
        self.used += 1
        return self.sales[self.used]


Case = Callable[[World, str], tuple[tuple[str, ...], str]]


def _migrate(world: World, fmt: str) -> tuple[tuple[str, ...], str]:
    source = world.other.journal  # type: ignore[attr-defined]
    code, _, err = world.other("refunds", "create", world.next_sale(), "--amount", "1", "--yes")
    assert code == Exit.OK, err
    return ("journal", "migrate", "--from", f"sqlite:{source}", "--format", fmt), ""


def _two(fmt: str) -> int:
    """0 for the first format of a command acting once per format, 1 for the second."""
    return ["table", "json"].index(fmt)


def _distribute(w: World, f: str) -> tuple[tuple[str, ...], str]:
    """A capture of its own (the demo's settled sales are distributed already), distributed."""
    code, out, err = w.run("charges", "capture", w.holds[2 + _two(f)], "--yes", "--format", "json")
    assert code == Exit.OK, err
    return ("charges", "distribute", json.loads(out)["result_id"], "--yes", "--format", f), ""


def _tokens_create(w: World, f: str) -> tuple[tuple[str, ...], str]:
    account = w.accounts[0]
    argv = ("tokens", "create", "--account", account, "--expiration", "2031-09")
    return (*argv, "--last-name", f, "--again", "--format", f), f"{CARD}\n"


#: The requester of four eyes (`approvals`): above 1.00 a refund waits for someone else.
ASKER = {"PAYTUI_AGENT": "ana", "PAYTUI_APPROVE_ABOVE": "1"}


def _requested(w: World) -> str:
    """A refund above the threshold, asked by ana: the id of the request that waits."""
    sale = w.next_sale()
    code, _, err = w.run("refunds", "create", sale, "--amount", "2", "--yes", env=ASKER)
    assert code == Exit.AWAITING_APPROVAL, err
    code, out, err = w.run("approvals", "list", "--format", "json")
    assert code == Exit.OK, err
    return str(next(r["id"] for r in json.loads(out) if r["charge_id"] == sale))


def _approvals(verb: str, *more: str) -> Case:
    return lambda w, f: (("approvals", verb, _requested(w), *more, "--format", f), "")


def _read(*argv: str) -> Case:
    """A command whose words do not depend on the demo: the format appended."""
    return lambda w, f: ((*argv, "--format", f), "")


def _journal(*argv: str) -> Case:
    """A command reading the journal, over a journal that holds an action (a refund sent)."""

    def case(w: World, f: str) -> tuple[tuple[str, ...], str]:
        if not w.acted:
            code, _, err = w.run("refunds", "create", w.next_sale(), "--amount", "2", "--yes")
            assert code == Exit.OK, err
            w.acted = True
        return (*argv, "--format", f), ""

    return case


CASES: dict[str, Case] = {
    "charges search": _read("charges", "search", "status:chargeback", "--limit", "3"),
    "charges show": lambda w, f: (("charges", "show", w.sales[0], "--format", f), ""),
    "charges capture": lambda w, f: (
        ("charges", "capture", w.holds[_two(f)], "--yes", "--format", f),
        "",
    ),
    "charges tag": lambda w, f: (
        ("charges", "tag", w.sales[0], "--tags", f"vip,{f}", "--yes", "--format", f),
        "",
    ),
    "charges distribute": _distribute,
    "refunds tag": lambda w, f: (
        ("refunds", "tag", w.refunds[0], "--tags", f, "--yes", "--format", f),
        "",
    ),
    "customers update": lambda w, f: (
        (
            "customers",
            "update",
            w.customers[0],
            "--email",
            f"{f}@example.org",
            "--yes",
            "--format",
            f,
        ),
        "",
    ),
    "refunds create": lambda w, f: (
        ("refunds", "create", w.next_sale(), "--amount", "2", "--yes", "--format", f),
        "",
    ),
    "refunds list": _read("refunds", "list", "--limit", "3"),
    "tokens list": _read("tokens", "list", "--limit", "2"),
    "tokens show": lambda w, f: (("tokens", "show", w.tokens[0], "--format", f), ""),
    "tokens create": _tokens_create,
    "tokens update": lambda w, f: (
        ("tokens", "update", w.tokens[0], "--last-name", f, "--yes", "--format", f),
        "",
    ),
    "accounts list": _read("accounts", "list", "--limit", "2"),
    "accounts show": lambda w, f: (("accounts", "show", w.accounts[0], "--format", f), ""),
    "accounts watch": lambda w, f: (
        ("accounts", "watch", w.accounts[0], "--count", "1", "--interval", "0"),
        "",
    ),
    "history": _journal("history", "--limit", "5"),
    "history check": _journal("history", "check"),
    "history verify": _journal("history", "verify"),
    "journal status": _journal("journal", "status"),
    "journal migrate": _migrate,
    "journal password": lambda w, f: (("journal", "password"), "a-password\n"),
    "claim": lambda w, f: (("claim", w.sales[-1], "--format", f), ""),
    "approvals list": lambda w, f: (
        ("approvals", "list", "--format", f) if _requested(w) else (),
        "",
    ),
    "approvals approve": _approvals("approve", "--yes"),
    "approvals reject": _approvals("reject", "--reason", "store credit instead"),
    "today": _read("today"),
    "pulse": _read("pulse"),
    "conversations list": _read("conversations", "list", "--limit", "3"),
    "conversations show": lambda w, f: (("conversations", "show", w.open[0], "--format", f), ""),
    "conversations close": lambda w, f: (
        ("conversations", "close", w.open[1 + _two(f)], "--yes", "--format", f),
        "",
    ),
    "messages list": lambda w, f: (
        ("messages", "list", w.open[0], "--limit", "3", "--format", f),
        "",
    ),
    "messages send": lambda w, f: (
        ("messages", "send", w.open[0], "--yes", "--format", f),
        f"Sent as {f}.\n",
    ),
    "export": _read("export", "status:chargeback", "-o", "-"),
    "evidence": lambda w, f: (("evidence", w.chargebacks[0], "--format", f), ""),
    "evidence --check": lambda w, f: (("evidence", w.ready_case(), "--check", "--format", f), ""),
}


@pytest.fixture
def world(sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path) -> World:
    run = sandbox_cli(sandbox_transport, tmp_path / "journal.sqlite3")
    other = sandbox_cli(sandbox_transport, tmp_path / "other.sqlite3")
    other.journal = tmp_path / "other.sqlite3"  # type: ignore[attr-defined]
    return World(run, other)


#: Every (command, format) docs/cli.md documents: a command without formats runs once, as table.
PAIRS = [
    (command, fmt) for command, (formats, _, _) in SHAPES.items() for fmt in formats or ("table",)
]


def test_the_table_documents_every_format_of_every_command() -> None:
    assert len(PAIRS) >= 60, len(PAIRS)


@pytest.mark.parametrize("command", list(SHAPES))
def test_every_command_writes_its_documented_shape_in_every_format(
    world: World, command: str
) -> None:
    """Each command, in each format docs/cli.md gives it (which must be those its parser
    takes): exit 0, stdout exactly the shape documented, no stray text. One test per command,
    on its own copy of the demo, its formats in the table's order."""
    what = SHAPES[command][1][0]
    formats = [fmt for name, fmt in PAIRS if name == command]
    assert formats, command
    for fmt in formats:
        argv, stdin = CASES[command](world, fmt)
        code, out, err = world.run(*argv, stdin=stdin)
        assert code == Exit.OK, (command, fmt, err)
        count = check_output(command, fmt, out)
        assert count or what == "nothing" or command in {"history check"}, (command, fmt)


def test_an_error_in_json_is_one_object_on_stderr_for_every_command(world: World) -> None:
    """An unknown option, with `--format json` (or jsonl, or `--format=json`), on every
    command: nothing on stdout, the last line of stderr one object of the four keys."""
    for command in SHAPES:
        for spelling in (("--format", "json"), ("--format=jsonl",)):
            argv = (*command.split(), "--no-such-option", *spelling)
            code, out, err = world.run(*argv)
            assert code == Exit.USAGE and out == "", (argv, out)
            error = json.loads(err.splitlines()[-1])
            assert list(error) == ["error", "kind", "exit", "message"], error
            assert (error["kind"], error["exit"]) == ("usage", 2), error
            assert error["error"] == "usage" and "--help" in error["message"], error


def test_a_service_error_in_json_names_its_kind_and_table_keeps_the_line(world: World) -> None:
    for argv, code, kind in (
        (("charges", "show", "f" * 24), Exit.NOT_FOUND, "not_found"),
        (("refunds", "create", world.sales[1], "--amount", "1"), Exit.NEEDS_CONFIRMATION,
         "needs_confirmation"),
        (("claim", "--next"), Exit.USAGE, "usage"),
    ):  # fmt: skip
        got, out, err = world.run(*argv, "--format", "json")
        error = json.loads(err.splitlines()[-1])
        assert (got, out, error["exit"], error["kind"]) == (code, "", int(code), kind), err
        got, out, err = world.run(*argv)
        assert got == code and out == "" and err.splitlines()[-1].startswith("paytui: error: ")
        assert error["message"] in err


def test_messages_list_takes_the_conversation_as_messages_send_does(world: World) -> None:
    conversation = world.open[0]
    by_position = world.run("messages", "list", conversation, "--format", "json")
    by_option = world.run("messages", "list", "--conversation", conversation, "--format", "json")
    assert by_position[0] == Exit.OK and by_position == by_option
    assert json.loads(by_position[1])
    code, out, err = world.run("messages", "list", conversation, "--conversation", "cv_other")
    assert code == Exit.USAGE and out == "" and "give one" in err


def test_conversations_list_names_the_customer(world: World) -> None:
    code, out, _ = world.run("conversations", "list", "--limit", "5", "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == Exit.OK and rows
    for row in rows:
        assert row["customer"] and not row["customer"].startswith("cu_"), row
