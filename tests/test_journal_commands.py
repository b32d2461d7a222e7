"""`paytui history verify`, `history --agent`, `journal status|migrate|password`: through the
command line's entry point (`tests/cli_support.py`), on a file and on a team's PostgreSQL
(`location`, a schema of its own per test). None of them talks to the service."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions.audit import parse_filter
from paytui.actions.journal import Journal, JournalConflict, JournalEntry
from paytui.actions.journal_schema import SCHEMA_VERSION
from paytui.api.client import PaymentClient
from paytui.cli import main as paytui_main
from paytui.commands.runtime import Exit
from paytui.config.connection import resolve_connection
from paytui.config.model import IMPLICIT_PROFILE, Profile
from paytui.config.secrets import get_secret
from paytui.config.store import save_profile
from tests.actions.support import raw_sql
from tests.cli_support import Run, cli_runner

SERVICE = "http://sandbox"
#: A team journal nobody answers at (port 1), its password written in (never shown).
UNREACHABLE = "postgresql://ops:hunter2@127.0.0.1:1/paytui"


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """A journal on each engine: a file, and a schema of its own on the PostgreSQL server."""
    if request.param == "postgresql":
        url: str = request.getfixturevalue("team_journal_url")
        return url
    return tmp_path / "journal.sqlite3"


def _no_client() -> PaymentClient:
    pytest.fail("the journal's commands never connect to the service")


def _runner(journal: Path | str) -> Run:
    return cli_runner(_no_client, journal)


def _intent(journal: Journal, charge: str = "c" * 24, **extra: Any) -> JournalEntry:
    values: dict[str, Any] = {
        "profile": "sandbox",
        "base_url": SERVICE,
        "operation": "refund",
        "charge_id": charge,
        "amount": Decimal("5.00"),
        "request_summary": {"total_amount": "5.00"},
        "agent": "support-07",
        "machine": "ws-17",
    }
    values.update(extra)
    return journal.record_intent(**values)


def _refusal(journal: Journal, **extra: Any) -> None:
    values: dict[str, Any] = {
        "profile": "sandbox",
        "base_url": SERVICE,
        "operation": "refund",
        "charge_id": "d" * 24,
        "amount": None,
        "reason": "read-only profile",
        "agent": "support-07",
        "machine": "ws-17",
    }
    values.update(extra)
    journal.record_refusal(**values)


def _fill(location: Path | str) -> JournalEntry:
    """Two agents' entries and a refusal (6 links); returns the first entry."""
    with Journal(location) as journal:
        first = _intent(journal)
        journal.transition(first.id, "sent", expected={"pending"})
        journal.transition(first.id, "succeeded", expected={"sent"}, result_id="r1")
        other = _intent(journal, "e" * 24, agent="support-12", machine="ws-3")
        journal.transition(other.id, "failed", expected={"pending"}, error="declined")
        _refusal(journal)
    return first


def _tamper(location: Path | str, entry_id: int) -> None:
    """Someone with the owner's rights turns the rules off and rewrites an amount."""
    if isinstance(location, Path):
        off = "DROP TRIGGER actions_constrained;"
    else:
        off = "ALTER TABLE actions DISABLE TRIGGER actions_constrained;"
    raw_sql(location, off + f"UPDATE actions SET amount = '500.00' WHERE id = {entry_id};")


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# --------------------------------------------------------------------------------------------
# history verify
# --------------------------------------------------------------------------------------------


def test_history_verify_holds_then_names_the_first_broken_link(location: Path | str) -> None:
    run = _runner(location)
    first = _fill(location)
    code, out, err = run("history", "verify")
    assert code == Exit.OK and err == ""
    assert "holds: 6 links checked, 3 entries and refusals match it; no head seen before" in out
    code, out, _ = run("history", "verify", "--format", "json")
    report = json.loads(out)
    assert code == Exit.OK
    assert (report["ok"], report["links"], report["entries"], report["broken"]) == (
        True,
        6,
        3,
        None,
    )
    # The head the first run recorded outside the database is found in the chain.
    assert report["anchored"] == 6
    code, out, _ = run("history", "verify")
    assert "; the head this machine saw before (link 6) is in it." in out

    _tamper(location, first.id)
    code, out, err = run("history", "verify")
    assert code == Exit.UNPROVEN and out == ""
    line = _one_line(err)
    assert line.startswith("paytui: error: the trail of ")
    assert f"is broken: entry #{first.id} was changed outside paytui" in line
    code, out, _ = run("history", "verify", "--format", "json")
    assert code == Exit.UNPROVEN
    assert json.loads(out)["broken"] == f"entry #{first.id} was changed outside paytui"


def test_the_trail_holds_with_a_whole_settle_time(location: Path | str) -> None:
    """SQLite's RETURNING gives a REAL column's 35.0 as 35, its SELECT as 35.0: the same value
    to the trail (every entry the executor writes has such a settle time)."""
    with Journal(location) as journal:
        entry = _intent(journal, settle_seconds=35.0)
        journal.transition(entry.id, "sent", expected={"pending"}, settle_seconds=40.0)
        journal.transition(entry.id, "unknown", expected={"sent"}, settle_seconds=12.5)
    code, out, err = _runner(location)("history", "verify")
    assert code == Exit.OK, err
    assert "3 links checked, 1 entry and refusal match it" in out


def test_history_verify_counts_entries_older_than_the_trail(tmp_path: Path) -> None:
    """A file of an earlier paytui: its entries predate the trail, said, not a break."""
    path = tmp_path / "old.sqlite3"
    _old_file(path)
    code, out, _ = _runner(path)("history", "verify")
    assert code == Exit.OK
    assert "0 links checked" in out and "2 entries older than the trail" in out


def test_history_verify_takes_no_entries_nor_another_format(tmp_path: Path) -> None:
    run = _runner(tmp_path / "journal.sqlite3")
    code, _, err = run("history", "verify", "12")
    assert code == Exit.USAGE and "takes no entries" in _one_line(err)
    code, _, err = run("history", "verify", "--format", "csv")
    assert code == Exit.USAGE and "--format table or json" in _one_line(err)
    code, _, err = run("history", "verfy")
    assert code == Exit.USAGE and "`paytui history verify`" in _one_line(err)


# --------------------------------------------------------------------------------------------
# history --agent, and who in every format
# --------------------------------------------------------------------------------------------


def test_history_filters_by_agent_and_shows_who_and_where(location: Path | str) -> None:
    run = _runner(location)
    _fill(location)
    code, out, _ = run("history", "--agent", "support-07", "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == Exit.OK and len(rows) == 2  # the entry and the refusal
    assert {(r["agent"], r["machine"]) for r in rows} == {("support-07", "ws-17")}
    assert {r["outcome"] for r in rows} == {"succeeded", "refused"}
    code, out, _ = run("history", "--agent", "support-12", "--format", "json")
    assert code == Exit.OK
    assert [(r["agent"], r["machine"], r["outcome"]) for r in json.loads(out)] == [
        ("support-12", "ws-3", "failed")
    ]
    assert run("history", "--agent", "nobody", "--format", "json")[1].strip() == "[]"
    code, out, _ = run("history", "--all", "--format", "csv")
    assert code == Exit.OK
    assert out.splitlines()[0].endswith(",result_id,entry,agent,machine")
    code, out, _ = run("history")
    header, *lines = out.splitlines()
    assert header.split()[-3:] == ["ENTRY", "AGENT", "MACHINE"]
    assert any("support-12" in line and "ws-3" in line for line in lines)
    # The History screen's filter line takes the same term.
    assert parse_filter("agent:support-07 outcome:refused").agent == "support-07"
    # An action as History's Action column shows it: `message` is `send_message`.
    assert parse_filter("action:message").checked().operation == "send_message"


# --------------------------------------------------------------------------------------------
# journal status
# --------------------------------------------------------------------------------------------


def test_journal_status_names_where_engine_schema_and_agents(location: Path | str) -> None:
    run = _runner(location)
    _fill(location)
    code, out, err = run("journal", "status", "--format", "json", env={"PAYTUI_AGENT": "me-01"})
    status = json.loads(out)
    engine = "sqlite" if isinstance(location, Path) else "postgresql"
    assert code == Exit.OK and err == ""
    assert (status["engine"], status["agent"]) == (engine, "me-01")
    assert status["schema"] == SCHEMA_VERSION
    assert {(a["agent"], a["machine"], a["entries"], a["refusals"]) for a in status["agents"]} == {
        ("support-07", "ws-17", 1, 1),
        ("support-12", "ws-3", 1, 0),
    }
    assert all(a["last_seen"].endswith("Z") for a in status["agents"])
    if engine == "sqlite":
        assert status["journal"] == str(location) and status["password"] is None
    else:
        assert status["journal"].startswith("postgresql://")
        assert status["password"] == "from PGPASSFILE or PGPASSWORD, if any"

    code, out, _ = run("journal", "status", env={"PAYTUI_AGENT": "me-01"})
    assert code == Exit.OK
    lines = out.splitlines()
    fields = dict(line.split(None, 1) for line in lines[: lines.index("")])
    assert (fields["engine"], fields["schema"], fields["agent"]) == (
        engine,
        str(SCHEMA_VERSION),
        "me-01",
    )
    assert fields["agents"] == "2" and ("password" in fields) == (engine == "postgresql")
    assert any(line.split()[:4] == ["AGENT", "MACHINE", "ENTRIES", "REFUSALS"] for line in lines)
    assert any(line.split()[:4] == ["support-12", "ws-3", "1", "0"] for line in lines)


def test_an_unreachable_journal_is_one_line_its_password_masked(tmp_path: Path) -> None:
    run = _runner(UNREACHABLE)
    source = tmp_path / "mine.sqlite3"
    _fill(source)
    for argv in (
        ("journal", "status"),
        ("history", "verify"),
        ("journal", "migrate", "--from", str(source)),
    ):
        code, out, err = run(*argv)
        line = _one_line(err)
        assert code == Exit.CONFIG and out == "", argv
        assert "postgresql://ops:***@127.0.0.1:1/paytui cannot be reached" in line
        assert "hunter2" not in err


def test_the_entry_point_runs_journal_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert paytui_main(["journal", "status", "--format", "json"]) == Exit.OK
    status = json.loads(capsys.readouterr().out)
    assert (status["engine"], status["schema"]) == ("sqlite", SCHEMA_VERSION)
    assert status["journal"].endswith("journal.sqlite3")


# --------------------------------------------------------------------------------------------
# journal migrate
# --------------------------------------------------------------------------------------------


def _old_file(path: Path) -> None:
    """A journal an earlier paytui (schema 4) wrote: two entries, no agent, no trail."""
    with Journal(path) as journal:
        for charge in ("a" * 24, "b" * 24):
            entry = _intent(journal, charge, agent=None, machine=None)
            journal.transition(entry.id, "succeeded", expected={"pending"}, result_id="old")
    db = sqlite3.connect(path)
    try:  # what schema 4 had: no trail, no rules
        db.executescript(
            "DROP TRIGGER actions_constrained; DROP TRIGGER trail_no_delete;"
            " DELETE FROM trail; DROP TABLE trail; PRAGMA user_version = 4;"
        )
    finally:
        db.close()


def _local_history(path: Path) -> dict[str, JournalEntry]:
    """A person's own file: an old entry with no agent, a failure and its retry, a refund whose
    outcome is unknown (guarded), two refusals (one with no agent)."""
    with Journal(path) as journal:
        old = _intent(journal, "a" * 24, agent=None, machine=None)
        journal.transition(old.id, "succeeded", expected={"pending"}, result_id="r-old")
        failed = _intent(journal, "b" * 24, operation="capture", amount=None)
        journal.transition(failed.id, "failed", expected={"pending"}, never_sent=True)
        retry = _intent(journal, "b" * 24, operation="capture", amount=None, retry_of=failed.id)
        journal.transition(retry.id, "sent", expected={"pending"})
        journal.transition(retry.id, "succeeded", expected={"sent"}, result_id="cap-1")
        unknown = _intent(journal, "f" * 24, guard_since=journal.last_id(), settle_seconds=30.0)
        journal.transition(unknown.id, "sent", expected={"pending"})
        journal.transition(unknown.id, "unknown", expected={"sent"}, error="timed out")
        _refusal(journal)
        _refusal(journal, agent=None, machine=None, reason="missing scope")
        names = {"old": old, "failed": failed, "retry": retry, "unknown": unknown}
        return {name: journal.get(entry.id) or entry for name, entry in names.items()}


def _same_but_id(copy: JournalEntry | None, entry: JournalEntry, **changed: Any) -> None:
    assert copy is not None and copy.id != entry.id
    mine = dataclasses.replace(entry, **changed)
    skip = {"id", "retry_of"}
    for field in dataclasses.fields(JournalEntry):
        if field.name not in skip:
            assert getattr(copy, field.name) == getattr(mine, field.name), field.name


def test_migrate_copies_a_local_history_once(location: Path | str, tmp_path: Path) -> None:
    run = _runner(location)
    source = tmp_path / "mine" / "journal.sqlite3"
    local = _local_history(source)
    with Journal(location) as team:  # the team's own entry first: the copies get new ids
        _intent(team, "9" * 24, agent="support-12", machine="ws-3")

    code, out, err = run("journal", "migrate", "--from", f"sqlite:{source}")
    assert code == Exit.OK, err
    assert out.startswith("6 copied (4 entries, 2 refusals), 0 already there: ")
    assert "1 entry copied with no settled outcome" in err
    assert "2 rows copied without an agent" in err

    with Journal(location) as team:
        copies = {name: team.by_reference(e.client_reference) for name, e in local.items()}
        for name, entry in local.items():
            _same_but_id(copies[name], entry)
        retry, failed = copies["retry"], copies["failed"]
        assert retry is not None and failed is not None and retry.retry_of == failed.id
        refused = [r for r in team.audit() if r.kind == "refused"]
        assert {(r.reason, r.agent, r.machine) for r in refused} == {
            ("read-only profile", "support-07", "ws-17"),
            ("missing scope", None, None),
        }
        # The unknown refund still guards its charge here: nobody refunds it again meanwhile.
        with pytest.raises(JournalConflict):
            _intent(team, "f" * 24, guard_since=team.last_id(), agent="support-12")
    code, out, _ = run("history", "verify")
    assert code == Exit.OK and "holds: 7 links checked, 7 entries and refusals" in out

    code, out, err = run("journal", "migrate", "--from", str(source), "--format", "json")
    done = json.loads(out)
    assert code == Exit.OK and err == ""
    assert (done["copied"], done["present"]) == (0, 6)
    code, out, _ = run("journal", "migrate", "--from", str(source))
    assert out.startswith("0 copied (0 entries, 0 refusals), 6 already there: ")
    assert run("history", "verify")[0] == Exit.OK


def test_migrate_names_the_author_of_rows_without_one(tmp_path: Path) -> None:
    target = tmp_path / "team.sqlite3"
    source = tmp_path / "old.sqlite3"
    _old_file(source)
    run = _runner(target)
    code, out, err = run("journal", "migrate", "--from", str(source), "--agent", "ana")
    assert code == Exit.OK and out.startswith("2 copied (2 entries, 0 refusals)") and err == ""
    with Journal(target) as team:
        assert {(e.agent, e.machine) for e in team.list()} == {("ana", None)}
        assert team.verify().ok
    code, _, err = run("journal", "migrate", "--from", str(source), "--agent", " ")
    assert code == Exit.USAGE and "--agent" in _one_line(err)


def test_migrate_refuses_the_journal_itself_and_bad_sources(tmp_path: Path) -> None:
    target = tmp_path / "journal.sqlite3"
    _fill(target)
    run = _runner(target)
    code, _, err = run("journal", "migrate", "--from", f"sqlite:{target}")
    assert code == Exit.USAGE and "is this connection's journal itself" in _one_line(err)
    (tmp_path / "link.sqlite3").symlink_to(target)
    code, _, err = run("journal", "migrate", "--from", str(tmp_path / "link.sqlite3"))
    assert code == Exit.USAGE and "itself" in _one_line(err)

    code, _, err = run("journal", "migrate", "--from", str(tmp_path / "nope.sqlite3"))
    assert code == Exit.USAGE and "nope.sqlite3: no such file" in _one_line(err)
    code, _, err = run("journal", "migrate", "--from", str(tmp_path))
    assert code == Exit.USAGE and "not a file" in _one_line(err)
    code, _, err = run("journal", "migrate", "--from", "postgresql://db.example/paytui")
    assert code == Exit.USAGE and "takes a SQLite file" in _one_line(err)
    text = tmp_path / "notes.txt"
    text.write_text("not a journal\n" * 100)
    code, _, err = run("journal", "migrate", "--from", str(text))
    assert code == Exit.CONFIG and "cannot be opened" in _one_line(err)
    code, _, err = run("journal", "migrate")
    assert code == Exit.USAGE and "--from" in _one_line(err)

    broken = tmp_path / "broken.sqlite3"
    entry = _fill(broken)
    _tamper(broken, entry.id)
    code, out, err = run("journal", "migrate", "--from", str(broken))
    assert code == Exit.UNPROVEN and out == ""
    assert f"is broken (entry #{entry.id} was changed outside paytui): nothing copied" in (
        _one_line(err)
    )
    with Journal(target) as journal:
        assert len(journal.list()) == 2


# --------------------------------------------------------------------------------------------
# journal password
# --------------------------------------------------------------------------------------------


def test_journal_password_is_read_from_stdin_and_stored(tmp_path: Path) -> None:
    run = _runner(tmp_path / "journal.sqlite3")
    save_profile(
        "team",
        Profile(
            base_url="https://pay.example.com",
            token_env="TEAM_TOKEN",
            journal="postgresql://db.example/paytui",
        ),
    )
    code, out, err = run("journal", "password", "--profile", "team", stdin="s3cret pw\n")
    assert code == Exit.OK and out == "", err
    assert _one_line(err).startswith("The team journal's password for profile 'team' is stored")
    assert "s3cret" not in err
    stored = get_secret("team", "journal_password")
    assert stored is not None and stored.get_secret_value() == "s3cret pw"
    connection = resolve_connection(profile="team", environ={"TEAM_TOKEN": "t0ken"})
    assert connection.journal_password == stored

    # No team journal on the implicit profile yet: stored, and said.
    code, _, err = run("journal", "password", stdin="other\n")
    assert code == Exit.OK and "has no team journal yet" in err
    stored = get_secret(IMPLICIT_PROFILE, "journal_password")
    assert stored is not None and stored.get_secret_value() == "other"


def test_journal_password_never_from_an_argument_nor_empty(tmp_path: Path) -> None:
    run = _runner(tmp_path / "journal.sqlite3")
    code, _, err = run("journal", "password", "--password", "hunter2")
    assert code == Exit.USAGE and "never taken as command-line arguments" in _one_line(err)
    code, _, err = run("journal", "password", "hunter2")
    assert code == Exit.USAGE
    code, _, err = run("journal", "password")
    assert code == Exit.USAGE and "no password on stdin" in _one_line(err)
    code, _, err = run("journal", "password", stdin="  \n")
    assert code == Exit.USAGE and "empty" in _one_line(err)
    code, _, err = run("journal", "password", "--profile", "nope", stdin="pw\n")
    assert code == Exit.CONFIG and "nope" in _one_line(err)
    assert get_secret(IMPLICIT_PROFILE, "journal_password") is None


def test_journal_password_at_a_terminal_is_asked_without_echo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    def getpass(prompt: str, stream: Any = None) -> str:
        asked.append(prompt)
        return "typed\n"

    monkeypatch.setattr("getpass.getpass", getpass)
    code, _, _ = _runner(tmp_path / "journal.sqlite3")("journal", "password", tty=True)
    assert code == Exit.OK and asked == [
        "Team journal password for profile 'sandbox' (not shown): "
    ]
    stored = get_secret(IMPLICIT_PROFILE, "journal_password")
    assert stored is not None and stored.get_secret_value() == "typed"


def test_history_of_a_profile_reads_that_profiles_journal(tmp_path: Path) -> None:
    """`history --profile team` reads the team profile's journal (here a file it names), not
    the journal of the connection in use, and needs no login as `team` (its token is unset)."""
    import io

    from paytui.commands import main
    from paytui.commands.runtime import Io

    team_file = tmp_path / "team.sqlite3"
    with Journal(team_file) as journal:
        entry = _intent(journal, profile="team")
    save_profile(
        "team",
        Profile(
            base_url="https://pay.example.com",
            token_env="TEAM_TOKEN",
            journal=f"sqlite:{team_file}",
        ),
    )
    out, err = io.StringIO(), io.StringIO()
    argv = ["history", "--profile", "team", "--format", "jsonl"]
    code = main(argv, io=Io(out=out, err=err, inp=io.StringIO()), environ={})
    assert code == Exit.OK, err.getvalue()
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [row["charge_id"] for row in rows] == [entry.charge_id]


def test_history_of_the_sandbox_profile_lists_the_sandboxs_actions(tmp_path: Path) -> None:
    """The embedded sandbox's actions are recorded under its display name ("sandbox
    (embedded)"); `history --profile sandbox`, the name a person types, finds them."""
    with Journal(tmp_path / "journal.sqlite3") as journal:
        entry = _intent(journal, profile="sandbox (embedded)")
    run = _runner(tmp_path / "journal.sqlite3")
    code, out, err = run("history", "--profile", "sandbox", "--format", "jsonl")
    assert code == Exit.OK, err
    assert [json.loads(line)["charge_id"] for line in out.splitlines()] == [entry.charge_id]
