"""One connection per SQLite file per process, and never a second descriptor of it.

On POSIX, closing *any* descriptor of a file drops *every* lock the process holds on it. A
journal opened twice in one process (the dashboard's executor, then its History screen or a
batch log) used to open and close a descriptor of the file beside the live connection: the
dashboard was left without its lock, and a command line beside it, finding itself alone,
checkpointed and deleted the WAL the dashboard still had open (issue 38: entries lost, the
trail broken). These tests read what the kernel says: the process's descriptors of the file
(``/proc/self/fd``) and its locks on it (``/proc/locks``).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from paytui.actions.batch_log import BatchLog
from paytui.actions.journal import Journal, JournalEntry
from paytui.today.seen import SeenStore


def _intent(journal: Journal, charge_id: str = "a" * 24) -> JournalEntry:
    return journal.record_intent(
        profile="sandbox",
        base_url="http://sandbox",
        operation="refund",
        charge_id=charge_id,
        amount=Decimal("5.00"),
        request_summary={"total_amount": "5.00"},
    )


def _descriptors(path: Path) -> int:
    """How many of this process's open descriptors are of `path` (its -wal and -shm aside)."""
    target = path.resolve()
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if Path(os.readlink(f"/proc/self/fd/{fd}")) == target:
                count += 1
        except OSError:
            continue  # closed since it was listed (the listing's own descriptor)
    return count


def _locked_by_me(path: Path) -> bool:
    """Does this process hold a POSIX lock on `path`? (A connection in WAL mode holds a shared
    lock on the database file as long as it is open: that is how another process knows it is
    not alone.)"""
    inode = path.stat().st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        mine = len(fields) >= 6 and fields[1] == "POSIX" and fields[4] == str(os.getpid())
        if mine and int(fields[5].rsplit(":", 1)[1]) == inode:
            return True
    return False


def test_a_second_journal_on_one_file_shares_the_one_connection(tmp_path: Path) -> None:
    path = tmp_path / "data" / "journal.sqlite3"
    (tmp_path / "link.sqlite3").symlink_to(path.relative_to(tmp_path))
    with Journal(path) as dashboard:
        _intent(dashboard)
        assert _descriptors(path) == 1 and _locked_by_me(path)
        # The History screen, a bulk action's log and a command in the same process, one of
        # them spelling the path another way.
        with Journal(tmp_path / "link.sqlite3") as history:
            log = BatchLog(path)
            try:
                assert history._store.connection is dashboard._store.connection
                assert _descriptors(path) == 1
                assert _locked_by_me(path)
                _intent(history, "b" * 24)
                assert log.resumable(profile="sandbox", base_url="http://sandbox") == []
            finally:
                log.close()
        assert _descriptors(path) == 1 and _locked_by_me(path)
        assert sorted(e.charge_id or "" for e in dashboard.list()) == ["a" * 24, "b" * 24]
        assert dashboard.verify().ok
    assert _descriptors(path) == 0


def test_a_journal_closed_twice_lets_go_once(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as dashboard:
        command = Journal(path)
        command.close()
        command.close()
        _intent(dashboard)  # still open: the second close did not count again
        with pytest.raises(sqlite3.ProgrammingError):
            command.list()
    assert _descriptors(path) == 0


def test_the_seen_store_keeps_one_connection_to_its_file(tmp_path: Path) -> None:
    path = tmp_path / "today.sqlite3"
    screen = SeenStore(path, "http://sandbox")
    command = SeenStore(path, "http://sandbox")
    try:
        assert _descriptors(path) == 1 and _locked_by_me(path)
        seen = datetime(2026, 11, 20, 18, 30, tzinfo=UTC)
        assert screen.first_seen("chargeback", ["cb1"], seen) == {"cb1": seen}
        assert command.first_seen("chargeback", ["cb1"], seen.replace(year=2030)) == {"cb1": seen}
    finally:
        command.close()
    assert _descriptors(path) == 1 and _locked_by_me(path)
    screen.close()
    assert _descriptors(path) == 0


_OTHER_PROCESS = """
import sys
from datetime import UTC, datetime
from decimal import Decimal
from paytui.actions.journal import Journal
with Journal(sys.argv[1]) as journal:
    journal.record_intent(profile="sandbox", base_url="http://sandbox", operation="refund",
        charge_id="c" * 24, amount=Decimal("1.00"), request_summary={})
"""


def test_a_command_beside_the_dashboard_leaves_its_wal_alone(tmp_path: Path) -> None:
    """The dashboard opened its journal twice (History); a command line in another process
    writes and quits: it is not alone, so it leaves the WAL in place, and the dashboard reads
    what it wrote."""
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as dashboard:
        _intent(dashboard)
        Journal(path).close()  # History opened and closed beside it
        done = subprocess.run(
            [sys.executable, "-c", _OTHER_PROCESS, str(path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert path.with_name("journal.sqlite3-wal").exists()
        assert sorted(e.charge_id or "" for e in dashboard.list()) == ["a" * 24, "c" * 24]
        assert dashboard.verify().ok


def test_a_first_start_waits_for_another_to_make_the_file_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two first starts at once: while another process is writing the new file (here, a
    connection in a write transaction on it), SQLite answers this one's switch to WAL "database
    is locked" at once, without waiting. The opener asks again once the other is done, rather
    than failing (what made `test_two_first_starts_do_not_race` fail on a loaded machine)."""
    path = tmp_path / "journal.sqlite3"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("CREATE TABLE before_us (x)")
    other.execute("BEGIN IMMEDIATE")
    waited: list[float] = []

    def other_finishes(seconds: float) -> None:
        waited.append(seconds)
        if other.in_transaction:
            other.execute("COMMIT")

    monkeypatch.setattr(time, "sleep", other_finishes)
    try:
        with Journal(path) as journal:
            assert journal._store.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert _intent(journal).id == 1
    finally:
        other.close()
    assert waited  # it did meet the lock, and waited rather than failing
