"""`paytui charges|refunds|tokens|accounts|history|export`: every command's output format, exit
code, and that a money command sends once. The commands run against the in-process sandbox
(the connector is injected) on a journal of the test's own."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.cli import main as paytui_main
from paytui.cli import split_globals
from paytui.commands.runtime import Exit
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.actions.support import WireTransport
from tests.cli_support import Run, cli_runner
from tests.fixtures_sandbox import raw_client

CARD = "4111111111111111"
#: An ad hoc production connection (the connector still talks to the sandbox).
PRODUCTION = {"PAYTUI_BASE_URL": "https://pay.example.com", "PAYTUI_TOKEN": "t0ken-for-tests"}


@pytest.fixture
def wire(sandbox_transport: httpx.AsyncBaseTransport) -> WireTransport:
    return WireTransport(sandbox_transport)


@pytest.fixture
def run(wire: WireTransport, tmp_path: Path) -> Run:
    """`run(*argv, stdin="", tty=False, env={})` -> (exit code, stdout, stderr)."""
    return cli_runner(
        lambda: PaymentClient(
            "http://sandbox",
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            transport=wire,
        ),
        tmp_path / "journal.sqlite3",
    )


def _jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _first(run: Run, *query: str) -> dict[str, Any]:
    code, out, _ = run("charges", "search", *query, "--limit", "1", "--format", "jsonl")
    assert code == Exit.OK
    return _jsonl(out)[0]


def test_a_refused_refund_keeps_its_amount_and_again_sends_it(run: Run) -> None:
    """The same refund twice: the second is refused (exit 8, naming the first, `--again` said),
    and the audit trail keeps the amount that was asked; `--again` then sends it."""
    charge = _first(run, "status:success", "type:sale")["charge_id"]
    refund = ("refunds", "create", charge, "--amount", "5", "--yes", "--format", "json")
    code, out, _ = run(*refund)
    assert code == Exit.OK
    first = json.loads(out)["result_id"]
    code, _, err = run(*refund)
    assert code == Exit.EARLIER_ATTEMPT and first in err and "--again" in err, err
    code, out, _ = run("history", "--outcome", "refused", "--format", "jsonl")
    (row,) = _jsonl(out)
    assert (row["action"], row["amount"]) == ("refund", "5.00"), row
    assert run(*refund, "--again")[0] == Exit.OK


def test_a_token_without_a_base_url_is_warned_about_not_ignored_silently(run: Run) -> None:
    """`PAYTUI_TOKEN=abc paytui charges search …` with no base URL runs on the demo sandbox: the
    data still comes, and stderr says the token was ignored (as the dashboard's warning does)."""
    code, out, err = run(
        "charges",
        "search",
        "Edsger",
        "--limit",
        "1",
        "--format",
        "jsonl",
        env={"PAYTUI_TOKEN": "abc"},
    )
    assert code == Exit.OK and len(_jsonl(out)) == 1
    assert err.startswith("paytui: warning: PAYTUI_TOKEN ignored: the embedded sandbox"), err
    assert "abc" not in err


def test_charges_search_formats_limits_and_query_errors(run: Run) -> None:
    code, out, err = run(
        "charges", "search", "status:chargeback", "--limit", "3", "--format", "jsonl"
    )
    rows = _jsonl(out)
    assert code == Exit.OK and err == "" and len(rows) == 3
    assert {row["status"] for row in rows} == {"chargeback"}
    assert rows[0]["time"].endswith("Z") and "." in rows[0]["amount"]

    code, out, _ = run("charges", "search", "status:chargeback", "--limit", "2")
    lines = out.splitlines()
    assert code == Exit.OK and lines[0].split()[:3] == ["TIME", "CHARGE_ID", "STATUS"]
    assert len(lines) == 3

    code, out, _ = run("charges", "search", "status:chargeback", "--limit", "2", "--format", "json")
    assert code == Exit.OK and len(json.loads(out)) == 2

    code, out, err = run("charges", "search", "method:nope")
    assert code == Exit.USAGE and out == "" and err.count("\n") == 1
    assert err.startswith("paytui: error: query:") and "Traceback" not in err

    # A status paytui does not know is the service's to judge (issue 38): the sandbox refuses
    # one it does not have, and its answer is what the person reads.
    code, out, err = run("charges", "search", "status:nope")
    assert code == Exit.REFUSED and out == "" and err.count("\n") == 1
    assert "status: must be one of success, declined" in err and "query:" not in err

    code, out, err = run("charges", "search", "--all", "--format", "table")
    assert code == Exit.USAGE and out == ""


def test_charges_search_all_streams_every_page_as_csv(run: Run) -> None:
    code, out, _ = run("charges", "search", "status:return", "--all", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    code2, counted, _ = run(
        "charges", "search", "status:return", "--limit", "1000", "--format", "jsonl"
    )
    assert code == code2 == Exit.OK
    assert len(rows) == len(_jsonl(counted)) > 0
    assert {row["status"] for row in rows} == {"return"}


def test_charges_show_json_and_not_found(run: Run) -> None:
    charge = _first(run, "status:chargeback")
    code, out, _ = run(
        "charges", "show", charge["charge_id"], "--format", "json", "--expand", "all"
    )
    body = json.loads(out)
    assert code == Exit.OK and body["charge_id"] == charge["charge_id"]
    code, out, _ = run("charges", "show", charge["charge_id"])
    fields = dict(line.split(None, 1) for line in out.splitlines())
    assert code == Exit.OK and fields["charge_id"] == charge["charge_id"]
    assert fields["status"] == "chargeback" and fields["time"].endswith("Z")
    code, out, err = run("charges", "show", "f" * 24)
    assert code == Exit.NOT_FOUND and out == "" and err.startswith("paytui: error:")


def test_charges_show_json_prints_the_charge_as_the_service_sent_it(
    run: Run, sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    """No key the service did not send (the model's unset fields as nulls), none dropped; its
    amounts as decimal text (docs/cli.md, "The output contract"), the rest as sent."""
    import asyncio

    charge_id = _first(run, "status:success", "type:sale")["charge_id"]

    async def as_sent() -> dict[str, Any]:
        http = raw_client(sandbox_transport, "http://sandbox")
        async with http:
            token = await http.post(
                "/v2/services/oauth2/token",
                data={"grant_type": "client_credentials"},
                auth=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET),
            )
            bearer = {"Authorization": f"Bearer {token.json()['access_token']}"}
            answer = await http.get(f"/v2/charges/{charge_id}", headers=bearer)
            return dict(answer.json())

    sent = asyncio.run(as_sent())
    code, out, _ = run("charges", "show", charge_id, "--format", "json")
    shown = json.loads(out)
    assert code == Exit.OK
    assert sorted(shown) == sorted(sent)
    assert shown["total_amount"] == f"{sent['total_amount']:.2f}"
    assert {**shown, "total_amount": sent["total_amount"]} == sent


def test_capture_asks_or_needs_yes_and_sends_once(run: Run, wire: WireTransport) -> None:
    auth = _first(run, "is:open")
    code, out, err = run("charges", "capture", auth["charge_id"])  # no terminal, no --yes
    assert code == Exit.NEEDS_CONFIRMATION and out == "" and "--yes" in err
    assert wire.posts("/capture") == []

    code, out, err = run("charges", "capture", auth["charge_id"], "--tty-less-is-fine", "--yes")
    assert code == Exit.USAGE  # an unknown option is a usage error, nothing sent
    assert wire.posts("/capture") == []

    code, out, err = run("charges", "capture", auth["charge_id"], "--yes", "--format", "json")
    result = json.loads(out)
    assert code == Exit.OK and result["state"] == "succeeded" and result["result_id"]
    assert len(wire.posts("/capture")) == 1 and "Captured" in err

    code, out, err = run("charges", "capture", auth["charge_id"], "--yes")
    assert code == Exit.REFUSED and "Already captured" in err
    code, out, err = run("charges", "capture", "f" * 24, "--yes")
    assert code == Exit.NOT_FOUND and "Not found" in err
    assert len(wire.posts("/capture")) == 1

    code, out, _ = run("history", "--format", "jsonl", "--action", "capture")
    outcomes = [row["outcome"] for row in _jsonl(out)]
    assert code == Exit.OK and outcomes == ["refused", "refused", "succeeded"]


def test_refund_on_production_needs_typed_or_explicit_confirmation(
    run: Run, wire: WireTransport
) -> None:
    sale = _first(run, "type:sale", "status:success", "amount>=150", "method:card", "sort:-amount")
    charge_id, amount = sale["charge_id"], sale["amount"]
    code, _, err = run("refunds", "create", charge_id, "--yes", env=PRODUCTION)
    assert code == Exit.NEEDS_CONFIRMATION and f"--confirm {amount}" in err.replace(",", "")
    code, _, err = run("refunds", "create", charge_id, env=PRODUCTION)  # no terminal
    assert code == Exit.NEEDS_CONFIRMATION and "not a terminal" in err
    code, _, err = run("refunds", "create", charge_id, "--yes", "--confirm", "1.00", env=PRODUCTION)
    assert code == Exit.NEEDS_CONFIRMATION  # the executor checks what was confirmed
    assert wire.posts("/v2/refunds") == []

    code, out, err = run(
        "refunds", "create", charge_id, "--amount", "10", "--reason", "cli", stdin="y\n", tty=True
    )
    assert code == Exit.OK and "[y/N]" in err and len(wire.posts("/v2/refunds")) == 1
    left = str(float(amount) - 10)
    code, out, err = run(
        "refunds", "create", charge_id, stdin=f"{left}\n", tty=True, env=PRODUCTION
    )
    assert code == Exit.OK, err
    assert "Type" in err and len(wire.posts("/v2/refunds")) == 2

    code, out, _ = run("refunds", "list", "--charge", charge_id, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == Exit.OK and len(rows) == 2 and {r["charge_id"] for r in rows} == {charge_id}
    code, _, err = run("refunds", "create", charge_id, "--yes")
    assert code == Exit.REFUSED and len(wire.posts("/v2/refunds")) == 2


def test_tokens_list_show_and_create_from_stdin_never_an_argument(
    run: Run, wire: WireTransport
) -> None:
    code, out, _ = run(
        "accounts", "list", "--status", "approved", "--limit", "1", "--format", "json"
    )
    (account,) = json.loads(out)
    assert code == Exit.OK and account["status"] == "approved"

    code, out, err = run(
        "tokens",
        "create",
        "--account",
        account["account_id"],
        "--expiration",
        "2031-09",
        "--card-number",
        CARD,
    )
    assert code == Exit.USAGE and "never taken as an argument" in err and wire.posts() == []

    code, out, err = run(
        "tokens",
        "create",
        "--account",
        account["account_id"],
        "--expiration",
        "2031-09",
        "--format",
        "json",
        stdin=f"{CARD}\n",
    )
    token = json.loads(out)
    assert code == Exit.OK and token["token_id"]
    assert CARD not in out + err

    code, out, _ = run("tokens", "show", token["token_id"])
    assert code == Exit.OK and "XXXXXXXXXXXX1111" in out and CARD not in out
    code, out, _ = run("tokens", "list", "--account", account["account_id"], "--format", "jsonl")
    assert code == Exit.OK and token["token_id"] in {r["token_id"] for r in _jsonl(out)}
    code, _, err = run(
        "tokens",
        "create",
        "--account",
        account["account_id"],
        "--expiration",
        "2031-09",
        stdin="4111111111111112\n",
    )
    assert code == Exit.USAGE and "Luhn" in err and "4111111111111112" not in err


def test_tokens_create_with_its_answer_lost_is_settled_never_unavailable(
    run: Run, wire: WireTransport, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service stored the card and the answer was lost: read back, one token, exit 0 with
    the token on stdout; when it cannot be read back either: "unknown" (7), never 10."""
    forward = wire.handle_async_request
    lost: list[str] = []

    async def lose_token_answers(request: httpx.Request) -> httpx.Response:
        # The second time, the service cannot be read back either (once the answer is lost).
        if request.method == "GET" and "reads down" in lost and lost.count("answer") == 2:
            return httpx.Response(403, json={"message": "test: reads refused"})
        response = await forward(request)
        if request.method == "POST" and request.url.path == "/v2/tokens":
            await response.aread()
            lost.append("answer")
            raise httpx.ReadError("test: the answer was lost", request=request)
        return response

    monkeypatch.setattr(wire, "handle_async_request", lose_token_answers)
    code, out, _ = run(
        "accounts", "list", "--status", "approved", "--limit", "1", "--format", "json"
    )
    account = json.loads(out)[0]["account_id"]
    create = ("tokens", "create", "--account", account, "--expiration", "2031-09")

    code, out, err = run(*create, "--last-name", "Lost", "--format", "json", stdin=f"{CARD}\n")
    token = json.loads(out)
    assert code == Exit.OK, err
    assert token["token_id"] and "answer was lost" in err and CARD not in out + err
    code, out, _ = run("tokens", "list", "--account", account, "--format", "jsonl")
    assert [r["token_id"] for r in _jsonl(out)].count(token["token_id"]) == 1
    assert len(wire.posts("/v2/tokens")) == 1
    code, out, err = run(*create, "--last-name", "Lost", stdin=f"{CARD}\n")  # a second run
    assert code == Exit.EARLIER_ATTEMPT and "--again" in err and token["token_id"] in err
    assert out == "" and len(wire.posts("/v2/tokens")) == 1

    lost.append("reads down")
    code, out, err = run(*create, "--last-name", "Unread", "--format", "json", stdin=f"{CARD}\n")
    assert code == Exit.UNKNOWN_OUTCOME, err
    assert json.loads(out)["state"] == "unknown" and "Outcome unknown" in err
    assert len(wire.posts("/v2/tokens")) == 2
    code, out, _ = run("history", "--action", "token_create", "--format", "jsonl")
    outcomes = [r["outcome"] for r in _jsonl(out)]
    assert code == Exit.OK and outcomes == ["unknown", "refused", "succeeded"]


def test_history_takes_every_journal_operation(run: Run) -> None:
    from paytui.actions.operations import OPERATIONS

    for operation in OPERATIONS:
        assert run("history", "--action", operation)[0] == Exit.OK, operation


def test_accounts_show_and_watch(run: Run) -> None:
    code, out, _ = run("accounts", "list", "--limit", "2")
    assert code == Exit.OK and out.splitlines()[0].startswith("ACCOUNT_ID")
    account_id = out.splitlines()[1].split()[0]
    code, out, _ = run("accounts", "show", account_id, "--format", "json")
    assert code == Exit.OK and json.loads(out)["account_id"] == account_id
    code, out, _ = run("accounts", "watch", account_id, "--interval", "0", "--count", "1")
    (line,) = _jsonl(out)
    assert code == Exit.OK and line["account_id"] == account_id and line["status"]


def test_export_writes_the_file_and_says_where(run: Run, tmp_path: Path) -> None:
    target = tmp_path / "cb.jsonl"
    code, out, err = run(
        "export",
        "status:chargeback",
        "--format",
        "jsonl",
        "-o",
        str(target),
        "--columns",
        "charge_id,amount",
    )
    assert code == Exit.OK and out == f"{target}\n"
    rows = _jsonl(target.read_text())
    assert rows and set(rows[0]) == {"charge_id", "amount"} and f"{len(rows)} rows" in err
    code, out, err = run("export", "--columns", "nope")
    assert code == Exit.USAGE and "unknown column" in err


def test_history_filters_and_formats(run: Run) -> None:
    code, out, _ = run("history")
    assert code == Exit.OK and out.splitlines()[0].startswith("TIME")
    code, out, _ = run("history", "--all", "--format", "csv", "--outcome", "refused")
    assert code == Exit.OK and out.splitlines()[0].startswith("time (UTC),profile")
    code, _, err = run("history", "--since", "yesterday")
    assert code == Exit.USAGE and "not a day" in err


def test_the_paytui_entry_point_sends_script_commands_here(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert split_globals(["--profile", "p", "charges", "search"]) == (
        ["--profile", "p"],
        ["charges", "search"],
    )
    # The profile option before the command is handed on (the error is the limit's).
    assert paytui_main(["--profile=nope", "history", "--limit", "0"]) == Exit.USAGE
    assert "--limit must be at least 1" in capsys.readouterr().err


def test_a_script_command_never_imports_textual() -> None:
    """Start-up stays light: `paytui history` runs without Textual (or the UI) being imported."""
    code = (
        "import sys\n"
        "from paytui.cli import main\n"
        "assert main(['history', '--limit', '1', '--format', 'json']) == 0\n"
        "loaded = [m for m in sys.modules if m == 'textual' or m.startswith('paytui.ui.')]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_an_earlier_attempt_settled_first_says_whose_it_was(run: Run, tmp_path: Path) -> None:
    """Another agent's refund left unknown on the journal is read back before this one is sent,
    and stderr says whose it was (on a team journal it is often not this person's)."""
    from datetime import UTC, datetime
    from decimal import Decimal

    from paytui.actions.journal import Journal
    from paytui.config.urls import service_key

    charge = _first(run, "status:success", "type:sale")["charge_id"]
    with Journal(tmp_path / "journal.sqlite3") as journal:
        entry = journal.record_intent(
            profile="sandbox",
            base_url=service_key("http://sandbox"),
            operation="refund",
            charge_id=charge,
            amount=Decimal("5.00"),
            request_summary={"total_amount": "5.00"},
            actor="the dashboard of support-07 on ws-17",
        )
        journal.transition(
            entry.id, "sent", expected={"pending"}, at=datetime(2026, 1, 1, tzinfo=UTC)
        )
        journal.transition(entry.id, "unknown", expected={"sent"}, error="Timed out")
    code, _, err = run("refunds", "create", charge, "--amount", "5", "--yes")
    assert code == Exit.OK, err
    assert f"Earlier refund #{entry.id} by the dashboard of support-07 on ws-17: " in err, err


def test_zero_width_characters_never_reach_stdout_raw(run: Run, sandbox_db: Path) -> None:
    """The text output of `charges search` and `charges show` shows U+200B, U+200D, U+FEFF,
    U+2060 and U+180E as placeholders (and JSON as escapes), like every control character."""
    from paytui.sandbox.hostile import INVISIBLE_NAME, INVISIBLE_TAGS, make_hostile_charge

    charge_id = make_hostile_charge(sandbox_db, INVISIBLE_NAME, INVISIBLE_TAGS)
    invisible = ("\u200b", "\u200d", "\ufeff", "\u2060", "\u180e")
    outputs = [
        run("charges", "search", f"id:{charge_id}", "--format", "table"),
        run("charges", "search", f"id:{charge_id}", "--format", "csv"),
        run("charges", "show", charge_id),
        run("charges", "show", charge_id, "--format", "json"),
    ]
    for code, out, err in outputs:
        assert code == Exit.OK, err
        assert not any(char in out + err for char in invisible), repr(out)
    assert "Ad�min�Z�W�J�X" in outputs[0][1] and "Ad�min�Z�W�J�X" in outputs[2][1]
    assert "Ad\\u200bmin\\u200dZ\\ufeffW\\u2060J\\u180eX" in outputs[3][1]


# --- each row's money state (issue #41): `refund_state`, `dispute_state` ---------------------


def _rows(run: Run, *argv: str) -> list[dict[str, Any]]:
    code, out, err = run("charges", "search", *argv, "--format", "jsonl")
    assert code == Exit.OK, err
    return [json.loads(line) for line in out.splitlines()]


def _state(run: Run, charge_id: str, *more: str) -> tuple[str, str]:
    (row,) = _rows(run, f"id:{charge_id}", *more)
    return row["refund_state"], row["dispute_state"]


def test_full_partial_and_no_refund_each_say_so(run: Run) -> None:
    sales = [
        row
        for row in _rows(run, "status:success", "type:sale", "amount>=20", "--limit", "40")
        if row["refund_state"] == "none"
    ]
    full, part, untouched = (row["charge_id"] for row in sales[:3])
    assert run("refunds", "create", full, "--yes")[0] == Exit.OK
    assert run("refunds", "create", part, "--amount", "1.00", "--yes")[0] == Exit.OK
    assert _state(run, full) == ("full", "none")
    assert _state(run, part) == ("partial", "none")
    assert _state(run, untouched) == ("none", "none")
    # Streamed page by page (`--all`): the same states.
    assert _state(run, part, "--all") == ("partial", "none")


def test_a_chargeback_row_says_its_outcome(run: Run) -> None:
    rows = _rows(run, "status:chargeback", "--limit", "60", "--columns", "charge_id,dispute_state")
    states = {row["dispute_state"] for row in rows}
    assert states <= {"open", "won", "lost"} and "lost" in states, states
    assert all(set(row) == {"charge_id", "dispute_state"} for row in rows)


def test_a_declined_charge_has_no_refunds_to_read(run: Run) -> None:
    (row,) = _rows(run, "status:declined", "--limit", "1")
    assert (row["refund_state"], row["dispute_state"]) == ("none", "none")


def test_the_money_state_filters_are_proven_on_each_row(run: Run) -> None:
    """`refunded:` and `dispute:` (paytui's own filters: never sent, proven on every row here)
    and the excluding `-status:` / `-tag:` keep exactly the rows whose own state says so."""
    sales = [
        row
        for row in _rows(run, "status:success", "type:sale", "amount>=20", "--limit", "40")
        if row["refund_state"] == "none"
    ]
    full, part, untouched = (row["charge_id"] for row in sales[:3])
    assert run("refunds", "create", full, "--yes")[0] == Exit.OK
    assert run("refunds", "create", part, "--amount", "1.00", "--yes")[0] == Exit.OK
    for charge_id, state in ((full, "full"), (part, "partial"), (untouched, "none")):
        for wanted in ("full", "partial", "none"):
            found = _rows(run, f"id:{charge_id}", f"refunded:{wanted}")
            assert [row["charge_id"] for row in found] == ([charge_id] if wanted == state else [])
    for outcome in ("open", "won", "lost"):
        rows = _rows(run, f"dispute:{outcome}", "--limit", "20")
        assert rows and {row["dispute_state"] for row in rows} == {outcome}
    kept = _rows(run, "-status:declined", "--limit", "60")
    assert len(kept) == 60 and "declined" not in {row["status"] for row in kept}
    tagged = _rows(run, "--limit", "200", "--columns", "charge_id,tags")
    tag = next(row["tags"].split(",")[0].strip() for row in tagged if row.get("tags"))
    rows = _rows(run, f"-tag:{tag}", "--limit", "60", "--columns", "charge_id,tags")
    assert len(rows) == 60
    assert all(tag not in [t.strip() for t in (row.get("tags") or "").split(",")] for row in rows)


def test_a_refund_whose_refunds_cannot_be_read_says_so_not_the_charge(
    run: Run, sandbox_faults: Any
) -> None:
    """The charge is read, its refunds list fails (503): the one line on stderr and the
    refusal kept in the audit trail name the refunds, not the charge (which was read), and
    nothing is sent."""
    charge = _first(run, "status:success", "type:sale")["charge_id"]
    sandbox_faults.fail_status = 503
    sandbox_faults.fail_path_prefix = "/v2/refunds"
    sandbox_faults.fail_method = "GET"
    code, _, err = run("refunds", "create", charge, "--amount", "5", "--yes")
    assert code == Exit.UNAVAILABLE
    (line,) = err.strip().splitlines()
    assert "Could not read the charge's refunds: " in line, line
    sandbox_faults.fail_status = None
    code, out, _ = run("history", "--outcome", "refused", "--format", "jsonl")
    (row,) = _jsonl(out)
    assert row["action"] == "refund" and row["charge_id"] == charge, row
    assert row["reason"].startswith("Could not read the charge's refunds: "), row
    code, out, _ = run("refunds", "list", "--charge", charge, "--format", "jsonl")
    assert code == Exit.OK and _jsonl(out) == []
