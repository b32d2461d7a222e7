"""Schema 6: the journal admits the state "awaiting_service" (the service accepted an action and
has not finished it). A schema-5 file — whose CHECK does not admit it — is rebuilt on open with
its rows, ids and trail kept, and the new state can then be written."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions import journal_schema
from paytui.actions.journal import Journal


def _schema_5(path: Path) -> None:
    """A file as paytui wrote it with schema 5: the same tables, a CHECK without the state."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(
        journal_schema.SQLITE_TABLES.replace(", 'awaiting_service'", "")
        + journal_schema._INDEXES
        + journal_schema._SQLITE_RULES
        + "PRAGMA user_version = 5;"
    )
    db.close()


def _sent_by_schema_5(location: Path | str, ref: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A refund intent marked sent by a paytui of schema 5 (whose CHECK refuses the new state,
    as the attempt shows); the entry."""
    with monkeypatch.context() as old:
        old.setattr(journal_schema, "SCHEMA_VERSION", 5)
        with Journal(location) as journal:
            entry = journal.record_intent(
                profile="p",
                base_url="http://sandbox",
                operation="refund",
                charge_id="c1",
                amount=Decimal("5.00"),
                request_summary={},
                client_reference=ref,
                settle_seconds=12.0,
            )
            journal.transition(entry.id, "sent", expected={"pending"})
            with pytest.raises(Exception, match=r"(?i)check"):
                journal.transition(entry.id, "awaiting_service", expected={"sent"})
    return entry


def test_a_schema_5_journal_is_rebuilt_with_its_rows_and_trail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "data" / "journal.sqlite3"
    _schema_5(path)
    # An entry written by that paytui (its version, as it wrote them: trail included).
    entry = _sent_by_schema_5(path, "ref-1", monkeypatch)
    with Journal(path) as journal:
        version = journal._store.connection.execute("PRAGMA user_version").fetchone()[0]
        assert version == journal_schema.SCHEMA_VERSION >= 6
        # Schema 7: a claim's heartbeat, added in place.
        claims = journal._store.connection.execute("PRAGMA table_info(claims)").fetchall()
        assert "beat_at" in {column[1] for column in claims}
        kept = journal.get(entry.id)
        assert kept is not None and (kept.client_reference, kept.state) == ("ref-1", "sent")
        assert journal.transition(entry.id, "awaiting_service", expected={"sent"})
        assert journal.verify().ok
        # The rules came back with the table: a final state still never changes.
        assert journal.transition(entry.id, "succeeded", expected={"awaiting_service"})
        with pytest.raises(Exception, match="never change"):
            journal._store.run("UPDATE actions SET state = 'failed' WHERE id = ?", (entry.id,))


def test_a_schema_5_team_journal_admits_the_state_after_its_migration(
    team_journal_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    with psycopg.connect(team_journal_url, autocommit=True) as db:
        db.execute(
            (
                journal_schema.POSTGRES_TABLES.replace(", 'awaiting_service'", "")
                + journal_schema._INDEXES
                + journal_schema._POSTGRES_RULES
                + "INSERT INTO paytui_schema (version) VALUES (5);"
            ).encode()
        )
    entry = _sent_by_schema_5(team_journal_url, "ref-pg", monkeypatch)
    with Journal(team_journal_url) as journal:
        assert journal.schema_version() == journal_schema.SCHEMA_VERSION >= 6
        # Schema 7: a claim's heartbeat, added in place (a claim writes it).
        claim = journal.claim("http://sandbox", "c1", agent="a", machine=None, owner="h:1")
        assert claim.beat_at is not None
        assert journal.transition(entry.id, "awaiting_service", expected={"sent"})
        kept = journal.get(entry.id)
        assert kept is not None and (kept.client_reference, kept.state) == (
            "ref-pg",
            "awaiting_service",
        )
        assert journal.verify().ok
