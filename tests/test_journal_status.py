"""`paytui journal status` says whether the journal is whole: SQLite's integrity check, its WAL,
the processes of this machine split from it, and the trail (issue 38). A split or damaged
journal is said plainly, with where its recovery is described, and exits 11."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from paytui.actions.journal import Journal
from paytui.api.client import PaymentClient
from paytui.commands.runtime import Exit
from tests.cli_support import Run, cli_runner


def _no_client() -> PaymentClient:
    pytest.fail("journal status never connects to the service")


def _runner(journal: Path | str) -> Run:
    return cli_runner(_no_client, journal)


def _fill(location: Path | str, count: int = 3) -> None:
    with Journal(location) as journal:
        for n in range(count):
            journal.record_intent(
                profile="sandbox",
                base_url="http://sandbox",
                operation="refund",
                charge_id=f"{n:024d}",
                amount=Decimal("5.00"),
                request_summary={"reason": "x" * 200},
            )


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "postgresql":
        url: str = request.getfixturevalue("team_journal_url")
        return url
    return tmp_path / "journal.sqlite3"


def test_a_whole_journal_is_said_whole(location: Path | str) -> None:
    _fill(location)
    code, out, err = _runner(location)("journal", "status", "--format", "json")
    status = json.loads(out)
    assert code == Exit.OK and err == ""
    assert status["problems"] == [] and status["trail"]["ok"] and status["trail"]["links"] == 3
    if isinstance(location, Path):
        assert status["integrity"] == ["ok"] and status["journal_mode"] == "wal"
        assert status["split"] == []
    code, out, _ = _runner(location)("journal", "status")
    lines = out.splitlines()
    fields = dict(line.split(None, 1) for line in lines[: lines.index("")])
    assert code == Exit.OK and fields["trail"] == "holds (3 links)"
    # Rows that name no one (written without an agent) are counted, not dropped ("agents 0").
    assert fields["agents"] == (
        "0 (and 3 entries and refusals that name no one: written before paytui recorded who)"
    )
    assert any(line.split()[:5] == ["(no", "one", "named)", "—", "3"] for line in lines), out
    if isinstance(location, Path):
        assert (fields["integrity"], fields["split"]) == ("ok", "no")


def test_a_damaged_journal_is_said_damaged(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    _fill(path, count=300)  # closed: the WAL is copied into the file
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8192] = bytes((n * 7) % 256 for n in range(8192))  # a bad disk
    path.write_bytes(bytes(data))

    code, out, err = _runner(path)("journal", "status", "--format", "json")
    status = json.loads(out)
    assert code == Exit.UNPROVEN
    assert status["integrity"] != ["ok"]
    assert "damaged: SQLite's integrity check says" in err
    assert "'When the journal is split or damaged'" in err
    assert "Traceback" not in err


_SPLIT_DASHBOARD = """
import os, sys
from paytui.actions.journal import Journal
journal = Journal(sys.argv[1])
journal.head()
# What an older paytui's History did beside its dashboard: a descriptor of the journal opened
# and closed, which dropped every lock this process held on the file.
os.close(os.open(sys.argv[1], os.O_RDWR))
print("ready", flush=True)
sys.stdin.readline()
os._exit(0)  # as a kill: no checkpoint of its stale WAL over the journal
"""

_COMMAND = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("SELECT count(*) FROM actions").fetchone()
db.close()
"""


def test_a_process_split_from_the_journal_is_named(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    _fill(path)
    dashboard = subprocess.Popen(
        [sys.executable, "-c", _SPLIT_DASHBOARD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert dashboard.stdout is not None and dashboard.stdin is not None
        assert dashboard.stdout.readline().strip() == "ready"
        # A command beside it finds itself alone: it checkpoints and deletes the WAL.
        subprocess.run([sys.executable, "-c", _COMMAND, str(path)], check=True, timeout=120)
        code, out, err = _runner(path)("journal", "status", "--format", "json")
        status = json.loads(out)
        assert code == Exit.UNPROVEN
        (line,) = status["split"]
        assert line.startswith(f"process {dashboard.pid} has open a ")
        assert f"/proc/{dashboard.pid}/fd/" in line and "not in the journal" in line
        assert f"split: process {dashboard.pid}" in err
        assert str(os.getpid()) not in line  # this process holds the journal whole
    finally:
        if dashboard.stdin is not None:
            dashboard.stdin.close()
        dashboard.wait(timeout=120)
    code, _, _ = _runner(path)("journal", "status")
    assert code == Exit.OK  # the split process gone: nothing holds a stale file any more
