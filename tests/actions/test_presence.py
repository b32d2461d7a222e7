"""Presence on a team journal: who has which charge open, leased by heartbeat, notified at once.

Two boards on one PostgreSQL journal stand for two agents' dashboards; the lease is judged by a
clock the test moves (no sleeping), and "at once" is a notification the other board's listener
hears (an event), not a time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from paytui.actions.journal import Journal
from paytui.actions.presence import PresenceBoard, presence_words
from paytui.actions.watch import JournalWatch

SERVICE = "http://sandbox"
CHARGE = "c" * 24


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _board(journal: Journal, agent: str, clock: Clock) -> PresenceBoard:
    return PresenceBoard(
        journal,
        base_url=SERVICE,
        agent=agent,
        machine=f"ws-{agent}",
        owner=f"{agent}-host:1",
        clock=clock,
    )


def test_another_agent_sees_what_one_has_open_and_loses_it_when_the_lease_lapses(
    team_journal_url: str,
) -> None:
    clock = Clock()
    with Journal(team_journal_url) as a_journal, Journal(team_journal_url) as b_journal:
        ana, bob = _board(a_journal, "ana", clock), _board(b_journal, "bob", clock)
        watch = JournalWatch(b_journal, own=None)
        try:
            ana.show("detail", CHARGE)
            assert ana.flush()
            watch.next(timeout=30.0)  # woken by ana's notification (or the 30 s bound)
            assert watch.presence_heard()
            assert bob.read()
            assert presence_words(bob.on(CHARGE)) == "ana viewing"
            # The refund dialog over the detail: the stronger doing is shown, with its amount.
            ana.show("dialog", CHARGE, "refunding", Decimal("40.00"))
            ana.flush()
            assert bob.read() and presence_words(bob.on(CHARGE)) == "ana refunding 40.00"
            ana.hide("dialog")
            ana.flush()
            assert bob.read() and presence_words(bob.on(CHARGE)) == "ana viewing"
            # Renewed by a beat 20 s on: still there at 45 s (the lease counts from the beat).
            clock.now += timedelta(seconds=20)
            assert ana.beat_due()
            ana.beat()
            bob.read()
            clock.now += timedelta(seconds=25)
            assert not bob.lapse_due() and bob.on(CHARGE)
            # ana's paytui dies (no beat, no goodbye): gone once the lease has lapsed.
            clock.now += timedelta(seconds=6)
            assert bob.lapse_due()
            assert bob.on(CHARGE) == ()
            assert bob.read()  # a change for the screens, though nothing in the table moved
            assert not bob.lapse_due()
        finally:
            watch.close()


def test_leaving_takes_the_rows_at_once_and_one_agent_never_sees_itself(
    team_journal_url: str,
) -> None:
    clock = Clock()
    with Journal(team_journal_url) as a_journal, Journal(team_journal_url) as b_journal:
        ana, bob = _board(a_journal, "ana", clock), _board(b_journal, "bob", clock)
        ana.show("detail", CHARGE)
        ana.flush()
        bob.show("detail", CHARGE, "capturing")
        bob.flush()
        ana.read()
        bob.read()
        assert presence_words(ana.on(CHARGE)) == "bob capturing"
        assert presence_words(bob.on(CHARGE)) == "ana viewing"
        ana.leave()
        assert bob.read() and bob.on(CHARGE) == ()


def test_a_file_journal_has_no_presence(tmp_path) -> None:
    clock = Clock()
    with Journal(tmp_path / "journal.sqlite3") as journal:
        board = _board(journal, "ana", clock)
        board.show("detail", CHARGE)
        assert not board.available and not board.flush() and not board.read()
        assert board.others() == {}
