"""`paytui conversations list|show|close` and `paytui messages list|send`: formats, exit codes,
the text never an argument and shown as it will go, each write sent once (the sandbox in
process, a journal of the test's own; the second service for its other choices)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from paytui.commands.runtime import Exit
from tests.actions.support import WireTransport
from tests.cli_support import Run, sandbox_cli


@pytest.fixture
def wire(sandbox_transport: httpx.AsyncBaseTransport) -> WireTransport:
    return WireTransport(sandbox_transport)


@pytest.fixture
def run(wire: WireTransport, tmp_path: Path) -> Run:
    return sandbox_cli(wire, tmp_path / "journal.sqlite3")


def _jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_read_close_and_reply_from_a_script(run: Run, wire: WireTransport, tmp_path: Path) -> None:
    code, out, _ = run("conversations", "list", "--status", "open", "--format", "jsonl")
    rows = _jsonl(out)
    assert code == Exit.OK and rows and {r["status"] for r in rows} == {"open"}
    cid, charge = rows[0]["id"], rows[0]["charge_id"]
    code, out, _ = run("conversations", "list", "--charge", charge, "--format", "jsonl")
    assert code == Exit.OK and [r["id"] for r in _jsonl(out)] == [cid]

    code, out, err = run("conversations", "show", cid, "--format", "json")
    shown = json.loads(out)
    times = [line["time"] for line in shown["thread"]]
    assert code == Exit.OK and times == sorted(times) and shown["conversation"]["status"] == "open"
    code, out, _ = run("conversations", "show", cid)
    assert code == Exit.OK and "customer" in out and "us" in out

    # The text: never an argument; from stdin or a file, shown as it will go, sent once.
    code, _, err = run("messages", "send", cid, "--body", "Hi")
    assert code == Exit.USAGE
    code, out, err = run("messages", "send", cid, stdin="We refunded it.\nSam\n")
    assert code == Exit.NEEDS_CONFIRMATION and "--yes" in err and "| We refunded it." in err
    assert wire.posts("/messages") == []
    code, out, err = run("messages", "send", cid, "--yes", "--format", "json", stdin="Hi\nSam\n")
    sent = json.loads(out)
    assert code == Exit.OK and sent["state"] == "succeeded" and sent["conversation_id"] == cid
    assert [p.body["body"] for p in wire.posts("/messages")] == ["Hi\nSam"]
    code, _, err = run("messages", "send", cid, "--yes", stdin="Hi\nSam")
    assert code == Exit.EARLIER_ATTEMPT and "--again" in err
    note = tmp_path / "reply.txt"
    note.write_text("Escape \x1b[2J stays text.\n", encoding="utf-8")
    code, _, err = run("messages", "send", cid, "--file", str(note), tty=True, stdin="y\n")
    assert code == Exit.OK and "␛[2J" in err and "\x1b" not in err
    code, _, err = run("messages", "send", cid, "--yes", stdin="   \n")
    assert code == Exit.USAGE and "empty" in err
    # Bytes that are not UTF-8 (stdin decoded with surrogateescape): one clear line, not sent.
    code, _, err = run("messages", "send", cid, "--yes", stdin="caf\udce9 ok")
    assert code == Exit.USAGE and "not UTF-8" in err and "character 4" in err
    assert err.count("\n") == 1 and "codec" not in err
    assert len(wire.posts("/messages")) == 2

    code, out, _ = run("messages", "list", "--conversation", cid, "--format", "jsonl")
    lines = _jsonl(out)
    assert code == Exit.OK and [line["text"] for line in lines][-2:] == [
        "Hi␊Sam",  # every text through the sanitiser, on stdout too
        "Escape ␛[2J stays text.",
    ]

    code, _, err = run("conversations", "close", cid)
    assert code == Exit.NEEDS_CONFIRMATION and wire.posts("/close") == []
    code, out, err = run("conversations", "close", cid, "--yes")
    assert code == Exit.OK and "closed" in err
    code, _, err = run("conversations", "close", cid, "--yes")
    assert code == Exit.REFUSED and "conversation is closed" in err
    code, _, err = run("messages", "send", cid, "--yes", stdin="Too late")
    assert code == Exit.REFUSED
    assert len(wire.posts("/close")) == 1 and len(wire.posts("/messages")) == 2
    code, out, _ = run("history", "--format", "jsonl", "--action", "send_message")
    assert [row["outcome"] for row in _jsonl(out)] == [
        "refused",  # the conversation is closed: the registry's rule, asked before sending
        "succeeded",  # from the file
        "refused",  # the same text again, without --again
        "succeeded",
    ]
    code, _, err = run("conversations", "show", "cv_nothing")
    assert code == Exit.NOT_FOUND


def test_the_second_service_thread_comes_from_its_messages(
    second_service: Any, second_cli: Any
) -> None:
    run = second_cli(second_service())
    code, out, _ = run("conversations", "show", "conv-0001", "--format", "json")
    thread = json.loads(out)["thread"]
    assert code == Exit.OK
    assert [(line["side"], line["who"]) for line in thread] == [
        ("customer", thread[0]["who"]),
        ("us", "Support"),
    ]
    code, out, _ = run("messages", "list", "--conversation", "conv-0004", "--format", "jsonl")
    assert code == Exit.OK and len(_jsonl(out)) == 2  # the filter ignored there: checked here


def test_a_row_the_service_sent_that_cannot_be_read_is_said_not_dropped(
    run: Run, sandbox_db: Path
) -> None:
    """A listed item that is no object (here a number, and a list) is an unreadable row: the
    listing says how many and exits INCOMPLETE, as `conversations show` does."""
    import sqlite3

    code, out, _ = run("conversations", "list", "--status", "open", "--format", "jsonl")
    cid = _jsonl(out)[0]["id"]
    with sqlite3.connect(sandbox_db) as db:
        db.execute("INSERT INTO messages VALUES ('odd', ?, '2026-01-01', '5')", (cid,))
        db.execute(
            "INSERT INTO conversations VALUES ('cv_odd', 'ch', 'open', NULL, NULL, '2027-01-01',"
            " '[1, 2]')"
        )
    code, out, err = run("messages", "list", "--conversation", cid, "--format", "jsonl")
    assert code == Exit.INCOMPLETE and "1 item(s) could not be read" in err
    assert len(_jsonl(out)) == 3  # the demo thread's lines are all there
    code, out, err = run("conversations", "list", "--format", "jsonl")
    assert code == Exit.INCOMPLETE and "1 row(s) the service sent could not be read" in err
    assert _jsonl(out)


def test_stdin_that_is_not_utf8_is_named_stdin(tmp_path: Path) -> None:
    """A strict stdin (a UTF-8 locale) fails to decode: the line names stdin, not "--file"."""
    import io
    from types import SimpleNamespace

    from paytui.actions.operations import OPERATIONS
    from paytui.commands.runtime import CommandError, Io
    from paytui.commands.verbs import read_document

    line = OPERATIONS["send_message"].command
    assert line is not None
    (body,) = line.options
    strict = io.TextIOWrapper(io.BytesIO(b"caf\xe9"), encoding="utf-8", errors="strict")
    runtime: Any = SimpleNamespace(io=Io(inp=strict, interactive=False))
    with pytest.raises(CommandError) as refused:
        read_document(runtime, body, "-", asks=False)
    assert refused.value.message.startswith("cannot read the message from stdin: ")
    assert "None" not in refused.value.message


def test_a_charge_list_says_the_rows_it_could_not_read(run: Run, sandbox_db: Path) -> None:
    """Any listing, not only the conversations': a row the service sent that cannot be read
    is said on stderr and the exit says the list is incomplete (never dropped in silence)."""
    import sqlite3

    with sqlite3.connect(sandbox_db) as db:
        rowid, doc = db.execute(
            "SELECT c.id, d.doc FROM charges c JOIN charge_docs d ON d.id = c.id"
            " ORDER BY c.ts DESC, c.charge_id DESC LIMIT 1"
        ).fetchone()
        data = json.loads(doc)
        data["charge_id"] = {"not": "an id"}
        db.execute("UPDATE charge_docs SET doc = ? WHERE id = ?", (json.dumps(data), rowid))
    code, out, err = run("charges", "search", "", "--limit", "5", "--format", "jsonl")
    assert code == Exit.INCOMPLETE, err
    assert "1 row(s) the service sent could not be read and are not listed" in err
    assert len(_jsonl(out)) == 5  # the limit, filled from the rows that could be read
