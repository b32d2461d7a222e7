"""The journal on its own: durability settings, file mode, states, queries, no secrets."""

from __future__ import annotations

import sqlite3
import stat
from decimal import Decimal
from pathlib import Path

import pytest

from paytui.actions.journal import Journal, default_journal_path


def _intent(journal: Journal, **overrides: object):
    values: dict[str, object] = {
        "profile": "sandbox",
        "base_url": "http://sandbox",
        "operation": "refund",
        "charge_id": "a" * 24,
        "amount": Decimal("12.50"),
        "request_summary": {"total_amount": "12.50"},
    }
    values.update(overrides)
    return journal.record_intent(**values)  # type: ignore[arg-type]


def test_default_path_is_under_the_user_data_dir(isolated_user_dirs: Path) -> None:
    path = default_journal_path()
    assert path.name == "journal.sqlite3"
    assert str(path).startswith(str(isolated_user_dirs / "data"))
    journal = Journal()
    try:
        assert journal.path == path and path.exists()
    finally:
        journal.close()


def test_file_is_private_and_durable(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "journal.sqlite3"
    with Journal(path) as journal:
        _intent(journal)
        for file in path.parent.iterdir():  # the database and SQLite's -wal / -shm files
            assert stat.S_IMODE(file.stat().st_mode) == 0o600, file.name
        assert journal._store.connection.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert journal._store.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_intent_is_committed_and_visible_to_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        entry = _intent(journal)
        other = sqlite3.connect(path)
        try:
            row = other.execute(
                "SELECT state, client_reference, amount FROM actions WHERE id = ?", (entry.id,)
            ).fetchone()
        finally:
            other.close()
    assert row == ("pending", entry.client_reference, "12.50")
    assert len(entry.client_reference) == 32
    int(entry.client_reference, 16)


def test_states_move_only_forward(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as journal:
        entry = _intent(journal)
        assert journal.transition(entry.id, "sent", expected={"pending"})
        assert not journal.transition(entry.id, "sent", expected={"pending"})
        assert journal.transition(entry.id, "unknown", expected={"sent"}, error="Timed out")
        assert journal.transition(
            entry.id, "succeeded", expected={"unknown"}, result_id="r1", amount=Decimal("12.5")
        )
        # A late writer expecting "sent" cannot overwrite the verdict.
        assert not journal.transition(entry.id, "failed", expected={"sent"}, error="late")
        final = journal.get(entry.id)
        assert final is not None
        assert (final.state, final.result_id, final.error) == ("succeeded", "r1", None)
        assert final.amount == Decimal("12.5")
        assert final.sent_at is not None and final.resolved_at is not None
        with pytest.raises(ValueError):
            journal.transition(entry.id, "exploded", expected={"succeeded"})
        with pytest.raises(ValueError):
            _intent(journal, operation="delete")


def test_list_unresolved_and_lookups(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as journal:
        first = _intent(journal)
        second = _intent(journal, operation="capture", amount=None, profile="prod")
        third = _intent(journal)
        journal.transition(third.id, "failed", expected={"pending"}, error="422")
        assert [e.id for e in journal.list()] == [third.id, second.id, first.id]
        assert [e.id for e in journal.list(profile="prod")] == [second.id]
        assert [e.id for e in journal.unresolved()] == [first.id, second.id]
        assert [e.id for e in journal.unresolved(profile="sandbox")] == [first.id]
        assert [e.id for e in journal.unresolved(operation="capture")] == [second.id]
        assert journal.by_reference(second.client_reference) == journal.get(second.id)
        assert journal.get(9999) is None
        retry = _intent(journal, retry_of=third.id)
        assert [e.id for e in journal.retries_of(third.id)] == [retry.id]
        assert not journal.get(third.id).retryable  # type: ignore[union-attr]  # a refusal
        fourth = _intent(journal)
        journal.transition(fourth.id, "failed", expected={"pending"}, never_sent=True)
        assert journal.get(fourth.id).retryable  # type: ignore[union-attr]  # never left
        assert journal.get(first.id).unresolved  # type: ignore[union-attr]


def test_reopening_keeps_entries(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        entry = _intent(journal)
    with Journal(path) as journal:
        again = journal.get(entry.id)
    assert again is not None and again.client_reference == entry.client_reference


def test_the_guard_keys_a_target_kept_in_the_summary_by_its_own_key(tmp_path: Path) -> None:
    """A plugin session's target is its account (summary key "target"): one being sent for
    an account stands in the way of another for that account only."""
    from paytui.actions.journal import JournalConflict

    def session(account: str, **guard: object) -> object:
        return _intent(
            journal,
            operation="plugin_session",
            charge_id=None,
            amount=None,
            request_summary={"kind": "payment", "target": account},
            target=("target", account),
            **guard,
        )

    with Journal(tmp_path / "j.sqlite3") as journal:
        session("pa_one")
        session("pa_two", guard_since=journal.last_id())  # another account: not in the way
        with pytest.raises(JournalConflict):
            session("pa_one", guard_since=journal.last_id())
