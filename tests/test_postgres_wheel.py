"""The tests' PostgreSQL (`tests/postgres_wheel.py`): the environment's, else one from the wheel,
started once however many processes ask at once, and gone, with its files, once stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psutil
import psycopg
import pytest

from tests import postgres_wheel

ROOT = Path(__file__).resolve().parents[1]


def _postmasters(data: Path) -> list[psutil.Process]:
    """The running servers of the data directory `data` (a postmaster's parent is no postgres)."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and str(data) in cmdline:
            parent = proc.parent()
            if parent is None or parent.name() != "postgres":
                found.append(proc)
    return found


def _gone(proc: psutil.Process) -> bool:
    """Exited (a zombie, until whoever adopted it reaps it, has exited too)."""
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_the_environment_names_the_server_or_none(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (postgres_wheel.BASE_URL_ENV, *postgres_wheel.LOCATION_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PGUSER", "someone")  # who, not where: no server named
    assert postgres_wheel.named_by_environment() is None
    monkeypatch.setenv("PGPORT", "5433")  # pg_virtualenv sets PGHOST and PGPORT
    assert postgres_wheel.named_by_environment() == "postgresql://"
    monkeypatch.setenv(postgres_wheel.BASE_URL_ENV, "postgresql://db.example/paytui")
    assert postgres_wheel.named_by_environment() == "postgresql://db.example/paytui"


def _watchdogs(owner: int, directory: Path) -> list[psutil.Process]:
    """The processes watching `owner` for the server of `directory`."""
    watching = ["watch", str(owner), str(directory)]
    return [
        proc
        for proc in psutil.process_iter(["cmdline"])
        if (proc.info["cmdline"] or [])[-3:] == watching
    ]


def test_processes_asking_at_once_share_one_wheel_server_gone_with_its_owner() -> None:
    """Two processes (as two xdist workers) start the server of one directory at once: one of
    them starts it (one watchdog), both get its URL, and it answers. Its owner (pytest's first
    process) is killed before it could stop it: the watchdog stops it and deletes its files."""
    directory = postgres_wheel.make_directory(in_memory=True)
    owner = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        ask = (
            "import sys; from pathlib import Path; from tests.postgres_wheel import start;"
            " print(start(Path(sys.argv[1]), int(sys.argv[2])))"
        )
        askers = [
            subprocess.Popen(
                [sys.executable, "-c", ask, str(directory), str(owner.pid)],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        urls = {asker.communicate()[0].strip() for asker in askers}
        assert [asker.returncode for asker in askers] == [0, 0]
        assert len(urls) == 1
        (url,) = urls
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as db:
            row = db.execute("SELECT current_setting('server_version_num')::int").fetchone()
        assert row is not None and row[0] >= 160000
        (postmaster,) = _postmasters(directory / "data")
        (watchdog,) = _watchdogs(owner.pid, directory)
        owner.kill()
        owner.wait()
        watchdog.wait(timeout=120)  # the watchdog's end, not a time the test allows
        assert _gone(postmaster)
        assert not directory.exists()
    finally:
        owner.kill()
        postgres_wheel.stop(directory)
