"""The command line's verbs come from the operations table: every operation says its verb (or
why it has none, as docs/adding-an-operation.md lists), every verb reaches the executor under its
operation's name, and `paytui customers update` changes a contact journaled and sent once."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.actions.operation import Option
from paytui.actions.operations import OPERATIONS
from paytui.cli import SCRIPT_COMMANDS
from paytui.commands import COMMAND_HELP, build_parser
from paytui.commands.runtime import Exit
from tests.actions.support import WireTransport
from tests.cli_support import Run, sandbox_cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "adding-an-operation.md"
CUSTOMER = "cu_00000000000000000004"
#: A value of each kind of option, for a verb run on a target that does not exist (an option
#: whose text is checked: a value it takes), and what stdin holds for a secret or a document.
SAMPLE = {"text": "someone@example.org", "amount": "1.00", "fee": "0", "words": "vip"}
SAMPLE_OF = {"expiration": "2031-09", "country": "US"}
STDIN = {"secret": "4111111111111111\n", "document": "Hello.\n"}


@pytest.fixture
def cli(sandbox_transport: httpx.AsyncBaseTransport, tmp_path: Path) -> tuple[Run, WireTransport]:
    """`paytui` run in process on the sandbox, and what it sent."""
    wire = WireTransport(sandbox_transport)
    return sandbox_cli(wire, tmp_path / "journal.sqlite3"), wire


def _trail(run: Run, operation: str) -> list[dict[str, Any]]:
    code, out, err = run("history", "--action", operation, "--format", "jsonl")
    assert code == Exit.OK, err
    return [json.loads(line) for line in out.splitlines()]


def _verbs() -> set[str]:
    """Every `noun verb` the whole parser knows."""
    top = build_parser(every=True)
    (nouns,) = [a for a in top._actions if a.dest == "noun"]
    found = set()
    for noun, parser in nouns.choices.items():  # type: ignore[union-attr]
        for action in parser._actions:
            if action.dest == "verb":
                found.update(f"{noun} {verb}" for verb in action.choices)  # type: ignore[union-attr]
    return found


def test_an_operation_that_says_neither_its_verb_nor_why_not_is_refused() -> None:
    spec = OPERATIONS["update_customer"]
    with pytest.raises(ValueError, match="command-line verb"):
        dataclasses.replace(spec, command=None)
    with pytest.raises(ValueError, match="command-line verb"):
        dataclasses.replace(spec, no_command="and a verb too")
    line = spec.command
    assert line is not None
    wrong = dataclasses.replace(line, options=(Option("emial", "typo"),))
    with pytest.raises(ValueError, match="fill no Params field"):
        dataclasses.replace(spec, command=wrong)


def test_the_operations_without_a_verb_are_those_the_doc_names_with_their_reason() -> None:
    """docs/adding-an-operation.md's list of operations without a verb is the table's."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Operations without a verb", 1)[1].split("\n#", 1)[0]
    listed = set(re.findall(r"^- `(\w+)`", section, flags=re.MULTILINE))
    assert listed == {n for n, spec in OPERATIONS.items() if spec.no_command}


def test_the_operations_not_done_in_bulk_are_those_the_doc_names() -> None:
    """docs/adding-an-operation.md's list of operations not done in bulk is the table's, and
    every operation of the table is either done in bulk or says why not."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Bulk, and the operations not done in bulk", 1)[1].split("\n#", 1)[0]
    listed = set(re.findall(r"^- `(\w+)`(?:, `(\w+)`)?:", section, flags=re.MULTILINE))
    names = {name for pair in listed for name in pair if name}
    assert names == {n for n, spec in OPERATIONS.items() if spec.no_bulk}
    assert all((s.bulk_params is None) == bool(s.no_bulk) for s in OPERATIONS.values())
    with pytest.raises(ValueError, match="not done in bulk"):
        dataclasses.replace(OPERATIONS["update_customer"], no_bulk=None)


def test_every_verb_of_the_table_is_a_command_of_the_parser() -> None:
    known = _verbs()
    for name, spec in OPERATIONS.items():
        if spec.command is None:
            continue
        assert spec.command.words in known, name
        assert spec.command.noun in SCRIPT_COMMANDS and spec.command.noun in COMMAND_HELP, name


def test_every_journaled_verb_is_built_from_the_table() -> None:
    """No money verb is written by hand: every verb that takes ``--acknowledge`` (a journaled
    action's way forward) is the table's, run by the one shared path (`operation` set)."""
    top = build_parser(every=True)
    (nouns,) = [a for a in top._actions if a.dest == "noun"]
    journaled = {}
    for noun, parser in nouns.choices.items():  # type: ignore[union-attr]
        for action in parser._actions:
            if action.dest != "verb":
                continue
            for verb, sub in action.choices.items():
                if any(a.dest == "acknowledge" for a in sub._actions):
                    journaled[f"{noun} {verb}"] = sub.get_default("operation")
    table = {spec.command.words: n for n, spec in OPERATIONS.items() if spec.command}
    assert journaled == table
    assert {"charges capture", "refunds create", "tokens create", "messages send"} <= set(table)


def _argv(name: str) -> tuple[tuple[str, ...], str]:
    """A run of `name`'s verb on a target that does not exist (its options filled): argv and
    stdin."""
    spec = OPERATIONS[name]
    line = spec.command
    assert line is not None
    target = (
        ("no-such-target",) if line.target_flag is None else (line.target_flag, "no-such-target")
    )
    options = [
        word
        for o in line.options
        if o.kind not in STDIN
        for word in (o.flag, SAMPLE_OF.get(o.field, SAMPLE[o.kind]))
    ]
    stdin = "".join(STDIN[o.kind] for o in line.options if o.kind in STDIN)
    yes = ("--yes",) if line.asks else ()
    return (*line.words.split(), *target, *options, *yes), stdin


@pytest.mark.parametrize("name", [n for n, spec in OPERATIONS.items() if spec.command])
def test_every_verb_of_the_table_reaches_the_executor_under_its_operation(
    cli: tuple[Run, WireTransport], name: str
) -> None:
    """Each verb, on a target the service does not have: it goes the one way (the executor
    keeps the attempt in the audit trail under the operation's name), and no money moves."""
    run, _ = cli
    argv, stdin = _argv(name)
    code, _, err = run(*argv, stdin=stdin)
    assert code not in {Exit.OK, Exit.USAGE, Exit.INTERNAL}, (argv, err)
    trail = _trail(run, name)
    assert len(trail) == 1 and trail[0]["charge_id"] in (*argv, None), (argv, trail)
    assert trail[0]["outcome"] in {"refused", "failed", "not_applied"}, trail


def test_customers_update_changes_the_contact_journaled_and_sent_once(
    cli: tuple[Run, WireTransport],
) -> None:
    run, wire = cli
    code, out, err = run(
        "customers", "update", CUSTOMER, "--email", "barbara@example.org",
        "--phone", "+1 555 0100", "--yes", "--format", "json",
    )  # fmt: skip
    assert code == Exit.OK, err
    record = json.loads(out)
    assert record == {
        "entry": 1,
        "action": "update_customer",
        "customer_id": CUSTOMER,
        "state": "succeeded",
        "result_id": CUSTOMER,
    }
    assert f"Contact of {CUSTOMER} saved" in err
    (sent,) = wire.posts("/v2/customers")
    assert (sent.method, sent.body) == (
        "PATCH",
        {"email": "barbara@example.org", "phone": "+1 555 0100"},
    )
    (row,) = _trail(run, "update_customer")
    assert (row["outcome"], row["charge_id"]) == ("succeeded", CUSTOMER)


def test_customers_update_asks_and_a_read_only_profile_sends_nothing(
    cli: tuple[Run, WireTransport],
) -> None:
    run, wire = cli
    code, out, err = run("customers", "update", CUSTOMER, "--phone", "123")  # no terminal
    assert code == Exit.NEEDS_CONFIRMATION and out == ""
    assert "Change the contact of customer" in err and "(phone 123)" in err and "--yes" in err
    code, out, err = run("customers", "update", CUSTOMER, "--phone", "123", stdin="n\n", tty=True)
    assert code != Exit.OK and "[y/N]" in err
    code, out, err = run(
        "customers", "update", CUSTOMER, "--phone", "123", "--yes", env={"PAYTUI_READ_ONLY": "1"}
    )
    assert code == Exit.NOT_ALLOWED and "read-only" in err, err
    code, out, err = run("customers", "update", CUSTOMER, "--yes")
    assert code == Exit.REFUSED and "Nothing to change" in err
    assert wire.posts("/v2/customers") == []
    assert [r["outcome"] for r in _trail(run, "update_customer")] == ["refused", "refused"]


def test_customers_update_with_its_answer_lost_is_read_back_and_never_sent_twice(
    cli: tuple[Run, WireTransport], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service changed the contact and the answer was lost: read back, exit 0, one PATCH.
    When it cannot be read back either: "unknown" (7); the next run settles that one first and
    sends nothing without `--acknowledge`, which its line prints."""
    run, wire = cli
    forward = wire.handle_async_request
    lost: list[str] = []

    async def lose_patch_answers(request: httpx.Request) -> httpx.Response:
        # Once the second answer is lost, the service cannot be read back either.
        if request.method == "GET" and "reads down" in lost and lost.count("answer") == 2:
            return httpx.Response(403, json={"message": "test: reads refused"})
        response = await forward(request)
        if request.method == "PATCH":
            await response.aread()
            lost.append("answer")
            raise httpx.ReadError("test: the answer was lost", request=request)
        return response

    monkeypatch.setattr(wire, "handle_async_request", lose_patch_answers)
    update = ("customers", "update", CUSTOMER, "--email", "lost@example.org", "--yes")
    code, out, err = run(*update, "--format", "json")
    assert code == Exit.OK, err
    assert json.loads(out)["state"] == "succeeded" and "answer was lost" in err
    assert len(wire.posts("/v2/customers")) == 1

    lost.append("reads down")
    code, out, err = run(*update[:4], "unread@example.org", "--yes", "--format", "json")
    assert code == Exit.UNKNOWN_OUTCOME, err
    assert json.loads(out)["state"] == "unknown"
    assert len(wire.posts("/v2/customers")) == 2

    lost.remove("reads down")
    code, out, err = run(*update[:4], "unread@example.org", "--yes")
    assert code == Exit.EARLIER_ATTEMPT and out == "", err
    assert "--acknowledge 2" in err, err
    assert len(wire.posts("/v2/customers")) == 2


def _a_token(run: Run) -> dict[str, Any]:
    """A stored card of the demo with a holder (first name, last name, country)."""
    code, out, err = run("tokens", "list", "--limit", "50", "--format", "jsonl")
    assert code == Exit.OK, err
    for line in out.splitlines():
        token_id = json.loads(line)["token_id"]
        code, shown, err = run("tokens", "show", token_id, "--format", "json")
        assert code == Exit.OK, err
        token: dict[str, Any] = json.loads(shown)
        contact = (token.get("payment_method") or {}).get("contact") or {}
        if contact.get("first_name") and contact.get("country"):
            return token
    raise AssertionError("the demo has no token with a holder")


def test_tokens_update_changes_the_card_journaled_and_sends_the_holder_whole(
    cli: tuple[Run, WireTransport],
) -> None:
    """`--last-name` alone: the holder's other fields are read from the token and sent with it
    (a service that replaces the contact whole keeps them); one PUT, read back, exit 0."""
    run, wire = cli
    token = _a_token(run)
    token_id = token["token_id"]
    held = token["payment_method"]["contact"]
    code, out, err = run(
        "tokens", "update", token_id, "--last-name", "Lovelace", "--expiration", "2032-04",
        "--yes", "--format", "json",
    )  # fmt: skip
    assert code == Exit.OK, err
    assert json.loads(out) == {
        "entry": 1,
        "action": "token_update",
        "token_id": token_id,
        "state": "succeeded",
        "result_id": token_id,
    }
    (sent,) = wire.posts("/v2/tokens")
    assert sent.method == "PUT" and sent.body["payment_method"] == {
        "expiration_date": "2032-04",
        "contact": {
            "first_name": held["first_name"],
            "last_name": "Lovelace",
            "country": held["country"],
        },
    }
    code, shown, _ = run("tokens", "show", token_id, "--format", "json")
    contact = json.loads(shown)["payment_method"]["contact"]
    assert contact["last_name"] == "Lovelace" and contact["first_name"] == held["first_name"]
    (row,) = _trail(run, "token_update")
    assert (row["outcome"], row["charge_id"]) == ("succeeded", token_id)


def test_tokens_update_asks_checks_and_sends_nothing_without_a_change(
    cli: tuple[Run, WireTransport],
) -> None:
    run, wire = cli
    token_id = _a_token(run)["token_id"]
    code, out, err = run("tokens", "update", token_id, "--country", "FR")  # no terminal
    assert code == Exit.NEEDS_CONFIRMATION and out == ""
    assert f"Change token {token_id} (country FR)" in err and "--yes" in err
    code, _, err = run("tokens", "update", token_id, "--expiration", "2019-01", "--yes")
    assert code == Exit.USAGE and err.startswith("paytui: error: --expiration: "), err
    code, _, err = run("tokens", "update", token_id, "--yes")
    assert code == Exit.USAGE and "Nothing to change" in err
    assert wire.posts("/v2/tokens") == []


def test_tokens_update_with_its_answer_lost_is_read_back_and_never_sent_twice(
    cli: tuple[Run, WireTransport], monkeypatch: pytest.MonkeyPatch
) -> None:
    run, wire = cli
    token_id = _a_token(run)["token_id"]
    forward = wire.handle_async_request

    async def lose_put_answers(request: httpx.Request) -> httpx.Response:
        response = await forward(request)
        if request.method == "PUT":
            await response.aread()
            raise httpx.ReadError("test: the answer was lost", request=request)
        return response

    monkeypatch.setattr(wire, "handle_async_request", lose_put_answers)
    code, out, err = run(
        "tokens", "update", token_id, "--expiration", "2033-05", "--yes", "--format", "json"
    )
    assert code == Exit.OK, err
    assert json.loads(out)["state"] == "succeeded" and "answer was lost" in err
    assert len(wire.posts("/v2/tokens")) == 1


def test_a_card_number_prompt_ended_with_ctrl_d_is_one_line_and_sends_nothing(
    cli: tuple[Run, WireTransport], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ctrl+d at the no-echo prompt (getpass's EOFError) is bad input, said in one line, exit
    2: not "EOFError", exit 1 (a bug)."""
    run, wire = cli

    def ended(prompt: str = "", stream: Any = None) -> str:
        raise EOFError

    monkeypatch.setattr("getpass.getpass", ended)
    code, out, err = run(
        "tokens", "create", "--account", "pa_any", "--expiration", "2031-09", tty=True
    )
    assert code == Exit.USAGE and out == "", err
    assert err.splitlines()[-1] == "paytui: error: no card number typed (end of input)", err
    assert wire.posts("/v2/tokens") == []


def test_an_unknown_target_s_refusal_reads_not_found_in_the_trail(
    cli: tuple[Run, WireTransport],
) -> None:
    """The trail keeps why a capture or a token's change was refused on a target the service
    does not have: "Not found", not "*** found" (the secrets' scrubber reads "the token: X" and
    "the authorization: X" as a secret's key and value)."""
    run, _ = cli
    for argv, operation in (
        (("charges", "capture", "no-such-charge", "--yes"), "capture"),
        (("tokens", "update", "no-such-token", "--last-name", "X", "--yes"), "token_update"),
    ):
        code, _, err = run(*argv)
        assert code == Exit.NOT_FOUND, err
        (row,) = _trail(run, operation)
        assert row["outcome"] == "refused" and "Not found" in row["reason"], row
        assert "***" not in row["reason"], row


def test_tokens_update_with_nothing_to_change_is_told_before_anything_is_asked(
    cli: tuple[Run, WireTransport],
) -> None:
    """No option given: exit 2 at once (docs/cli.md), not "pass --yes" (exit 9) to a script that
    would then be told there is nothing to change, nor a question at a terminal."""
    run, wire = cli
    token_id = _a_token(run)["token_id"]
    code, out, err = run("tokens", "update", token_id)  # no terminal, no --yes
    assert code == Exit.USAGE and out == "" and "Nothing to change" in err, err
    code, _, err = run("tokens", "update", token_id, stdin="y\n", tty=True)
    assert code == Exit.USAGE and "[y/N]" not in err, err
    assert wire.posts("/v2/tokens") == []


def test_tokens_update_of_an_unknown_token_is_refused_before_sending_whatever_is_given(
    cli: tuple[Run, WireTransport],
) -> None:
    """A new expiry alone, as a holder's field: the token is read first, so a token the service
    does not have is refused (exit 5, docs/cli.md) with nothing sent, not found out by a PUT."""
    run, wire = cli
    code, out, err = run("tokens", "update", "no-such-token", "--expiration", "2031-01", "--yes")
    assert code == Exit.NOT_FOUND and out == "", err
    assert wire.posts("/v2/tokens") == []
    (row,) = _trail(run, "token_update")
    assert row["outcome"] == "refused" and "Not found" in row["reason"], row


def test_a_question_ended_with_ctrl_d_is_answered_on_a_line_of_its_own(
    cli: tuple[Run, WireTransport],
) -> None:
    """ctrl+d at "[y/N]": the error starts its own line, not the end of the question's."""
    run, wire = cli
    code, out, err = run("customers", "update", CUSTOMER, "--phone", "123", stdin="", tty=True)
    assert code == Exit.NEEDS_CONFIRMATION and out == "", err
    assert err.splitlines()[-1].startswith("paytui: error: no answer (end of input)"), err
    assert wire.posts("/v2/customers") == []
