"""Every state a money command can end in has a way forward from the command line (docs/cli.md,
"Exit codes"): an earlier success another command found is acknowledged by naming it
(`--acknowledge ENTRY`, the exit-8 line says what to type), an unacknowledged token blocks only
the same card, and a journal lost after the request left exits 7 ("do not repeat"), not 2."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.api.client import PaymentClient
from paytui.commands.runtime import Exit
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.actions.support import WireTransport
from tests.cli_support import Run, sandbox_cli
from tests.fixtures_postgres import terminate_senders

VISA = "4111111111111111"
MASTERCARD = "5555555555554444"


class LosingWire(WireTransport):
    """The sandbox, where the answer of a POST to a path in `lose` is lost after the service
    applied it, and every read fails from then on until `reads_back()`: the command that sent it
    cannot prove what happened (exit 7) and leaves its entry "unknown"."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        super().__init__(inner)
        self.lose: set[str] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if request.method == "POST" and request.url.path in self.lose:
            await response.aread()
            self.fail_gets = True
            raise httpx.ReadError("test: the answer was lost", request=request)
        return response

    def reads_back(self) -> None:
        self.lose = set()
        self.fail_gets = False


@pytest.fixture
def wire(sandbox_transport: httpx.AsyncBaseTransport) -> LosingWire:
    return LosingWire(sandbox_transport)


@pytest.fixture
def run(wire: LosingWire, tmp_path: Path) -> Run:
    return sandbox_cli(wire, tmp_path / "journal.sqlite3")


def _sale(run: Run) -> str:
    code, out, _ = run(
        "charges", "search", "status:success", "type:sale", "--limit", "1", "--format", "jsonl"
    )
    assert code == Exit.OK
    return str(json.loads(out.splitlines()[0])["charge_id"])


def _typed(err: str) -> list[str]:
    """The command the exit-8 line says to type (between backticks), as argv after `paytui`."""
    start = err.index("`paytui ") + 1
    words = shlex.split(err[start : err.index("`", start)])
    assert words[0] == "paytui"
    return words[1:]


def test_a_refund_settled_by_another_command_is_acknowledged_by_naming_it(
    run: Run, wire: LosingWire
) -> None:
    """Command 1's refund lands but its answer and read-back are lost (exit 7). Command 2 reads
    it back and finds it happened (exit 8, nothing sent). Before, every later command — the
    same call, `--again`, after `history check` — exited 8 for good ("confirm to send another",
    with no way to confirm). Now the line says exactly what to type, and that sends one more."""
    charge = _sale(run)
    refund = ("refunds", "create", charge, "--amount", "1.00", "--yes", "--format", "json")
    wire.lose = {"/v2/refunds"}
    code, out, err = run(*refund)
    assert code == Exit.UNKNOWN_OUTCOME, err
    entry = json.loads(out)["entry"]
    wire.reads_back()

    code, _, err = run(*refund)
    assert code == Exit.EARLIER_ATTEMPT, err
    assert f"Earlier refund #{entry}" in err and "did go through" in err
    assert len(wire.posts("/v2/refunds")) == 1
    # The way forward is named in full: the same command, acknowledging that entry.
    typed = _typed(err)
    assert typed[-2:] == ["--acknowledge", str(entry)] and typed[:-2] == list(refund), err
    # `--again` alone does not pass it (it is about recent refunds, not this found one), and
    # `history check` has nothing left to settle: neither is the way forward, and neither sends.
    assert run(*refund, "--again")[0] == Exit.EARLIER_ATTEMPT
    assert run("history", "check")[0] == Exit.OK
    assert len(wire.posts("/v2/refunds")) == 1

    code, out, err = run(*typed)
    assert code == Exit.OK, err
    assert json.loads(out)["state"] == "succeeded"
    assert len(wire.posts("/v2/refunds")) == 2
    # Acknowledged once: the next identical refund is the ordinary "same refund recently" case.
    code, _, err = run(*refund)
    assert code == Exit.EARLIER_ATTEMPT and "--again" in err, err
    assert len(wire.posts("/v2/refunds")) == 2


def test_acknowledging_another_entry_than_the_one_found_sends_nothing(
    run: Run, wire: LosingWire
) -> None:
    charge = _sale(run)
    refund = ("refunds", "create", charge, "--amount", "2.00", "--yes", "--format", "json")
    wire.lose = {"/v2/refunds"}
    code, out, _ = run(*refund)
    entry = json.loads(out)["entry"]
    wire.reads_back()
    code, _, err = run(*refund, "--acknowledge", str(entry + 1))
    assert code == Exit.EARLIER_ATTEMPT, err
    assert run(*refund, "--acknowledge", "twelve")[0] == Exit.USAGE
    assert len(wire.posts("/v2/refunds")) == 1


def _account(run: Run) -> str:
    code, out, _ = run(
        "accounts", "list", "--status", "approved", "--limit", "1", "--format", "jsonl"
    )
    assert code == Exit.OK
    return str(json.loads(out.splitlines()[0])["account_id"])


def test_a_token_found_stored_blocks_only_the_same_card(run: Run, wire: LosingWire) -> None:
    """A card stored with its answer lost, then found by another command: storing *another*
    card on the account is not blocked by it (before: every card, 66 in a row); the same card
    is, with the way forward named."""
    account = _account(run)
    create = ("tokens", "create", "--account", account, "--expiration", "2031-09")
    wire.lose = {"/v2/tokens"}
    code, out, err = run(*create, "--last-name", "Hopper", "--format", "json", stdin=VISA + "\n")
    assert code == Exit.UNKNOWN_OUTCOME, err
    entry = json.loads(out)["entry"]
    wire.reads_back()

    code, out, err = run(*create, "--last-name", "Lovelace", stdin=MASTERCARD + "\n")
    assert code == Exit.OK, err
    assert len(wire.posts("/v2/tokens")) == 2

    code, _, err = run(*create, "--last-name", "Hopper", stdin=VISA + "\n")
    assert code == Exit.EARLIER_ATTEMPT, err
    assert f"#{entry}" in err and "--acknowledge" in err
    assert len(wire.posts("/v2/tokens")) == 2
    typed = _typed(err)
    assert typed[-2:] == ["--acknowledge", str(entry)]
    code, _, err = run(*typed, stdin=VISA + "\n")
    assert code == Exit.OK, err
    assert len(wire.posts("/v2/tokens")) == 3


def _in_flight(journal: Path, charge: str, amount: str, owner: str) -> tuple[int, str]:
    """A refund's entry "sent" by the paytui `owner` ("host:pid"), as its sender leaves it
    between the request leaving and the answer: (entry id, its reference)."""
    from decimal import Decimal

    from paytui.actions.journal import Journal

    with Journal(journal) as opened:
        entry = opened.record_intent(
            profile="sandbox",
            base_url="http://sandbox",
            operation="refund",
            charge_id=charge,
            amount=Decimal(amount),
            request_summary={"total_amount": amount},
            owner=owner,
            actor="the command line of ada@desk",
        )
        assert opened.transition(entry.id, "sent", expected={"pending"})
    return entry.id, entry.client_reference


def test_a_refund_being_sent_by_a_live_paytui_names_the_check_to_run(
    run: Run, wire: LosingWire, tmp_path: Path
) -> None:
    """The same refund is being sent by another paytui that is still running: exit 8, nothing
    sent, and the line names the command to type (`paytui history check N`), not a screen."""
    charge = _sale(run)
    alive = f"{socket.gethostname()}:{os.getpid()}"
    entry, _ = _in_flight(tmp_path / "journal.sqlite3", charge, "3.00", alive)
    code, _, err = run("refunds", "create", charge, "--amount", "3.00", "--yes")
    assert code == Exit.EARLIER_ATTEMPT, err
    assert "right now" in err and f"`paytui history check {entry}`" in err, err
    assert wire.posts("/v2/refunds") == []


def test_a_refund_left_by_a_paytui_that_stopped_is_read_back_not_called_in_flight(
    run: Run, wire: LosingWire, tmp_path: Path
) -> None:
    """Its sender was killed after the request left (a process that ended, not yet reaped by
    its parent): before, "being sent … right now" (exit 8) until `history check` ran. Now the
    entry is said to be left by a paytui that stopped, and read back: it happened, so nothing
    is sent and the way forward is named."""
    import asyncio

    from paytui.actions.read_backs import REF_ATTRIBUTE
    from paytui.api.models import RefundRequest

    charge = _sale(run)
    stopped = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        while _state(stopped.pid) != "Z":  # ended; its parent (this test) has not reaped it
            os.sched_yield()
        owner = f"{socket.gethostname()}:{stopped.pid}"
        entry, ref = _in_flight(tmp_path / "journal.sqlite3", charge, "3.00", owner)

        async def landed() -> None:  # what its request did before it was killed
            async with PaymentClient(
                "http://sandbox",
                client_id=DEMO_CLIENT_ID,
                client_secret=DEMO_CLIENT_SECRET,
                transport=wire.inner,
            ) as client:
                request = RefundRequest(
                    charge_id=charge,
                    total_amount=Decimal("3.00"),
                    attributes={REF_ATTRIBUTE: [ref]},
                )
                await client.create_refund(request)

        asyncio.run(landed())
        code, _, err = run("refunds", "create", charge, "--amount", "3.00", "--yes")
    finally:
        stopped.wait()
    assert code == Exit.EARLIER_ATTEMPT, err
    assert "right now" not in err, err
    assert f"Earlier refund #{entry}" in err and "left by a paytui that stopped" in err, err
    assert "did go through" in err and f"--acknowledge {entry}" in err, err
    assert wire.posts("/v2/refunds") == []


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rpartition(")")[2].split()[0]


def test_a_journal_lost_after_the_send_exits_7_not_usage(
    postgres_server: str, team_journal_url: str, sandbox_transport: Any
) -> None:
    """The team journal's connection dies while the refund is out: it was sent, its outcome is
    not recorded. Exit 7 ("sent, outcome not proven: do not repeat"), naming the entry and the
    check to run; before, exit 2 ("usage"), which invites a script to fix its call and repeat it.
    The next command reads it back: one refund."""

    wire = WireTransport(sandbox_transport)
    run = sandbox_cli(wire, team_journal_url)
    charge = _sale(run)

    def cut(request: httpx.Request) -> None:
        if request.method == "POST":  # the sending paytui's session: it holds its entry's lock
            assert terminate_senders(postgres_server, team_journal_url) == 1

    wire.on_send = cut
    refund = ("refunds", "create", charge, "--amount", "4.00", "--yes")
    code, out, err = run(*refund)
    wire.on_send = None
    assert code == Exit.UNKNOWN_OUTCOME, err
    assert out == "" and "was sent" in err and "paytui history check 1" in err, err
    assert len(wire.posts("/v2/refunds")) == 1
    code, out, err = run("history", "check", "--format", "jsonl")
    assert code == Exit.OK, err
    assert [json.loads(line)["state"] for line in out.splitlines()] == ["succeeded"]
    assert len(wire.posts("/v2/refunds")) == 1
