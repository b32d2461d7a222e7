"""A team's journal: the same rules on a file and on PostgreSQL, and what only a team needs.

The journal-level tests run on both engines (`journal_location`); the last runs two `paytui`
processes with two homes (two agents' machines) on one PostgreSQL journal.
"""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from paytui.actions.journal import Journal, JournalConflict, JournalUnavailable, open_journal
from paytui.actions.journal_store import DuplicateIntent, mask_url
from paytui.actions.ops import refund as refund_op
from paytui.api.client import PaymentClient
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from tests.actions.support import raw_sql, refunds_of, unrefunded_sales
from tests.actions.test_two_actors import _refund_process

SERVICE = "http://sandbox"


def _intent(journal: Journal, charge: str = "c" * 24, **extra: Any):
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


def test_the_trail_verifies_and_names_the_first_broken_link(journal_location: Path | str) -> None:
    with Journal(journal_location) as journal:
        entry = _intent(journal)
        journal.transition(entry.id, "sent", expected={"pending"})
        journal.transition(entry.id, "succeeded", expected={"sent"}, result_id="r1")
        journal.record_refusal(
            profile="sandbox",
            base_url=SERVICE,
            operation="refund",
            charge_id="d" * 24,
            amount=None,
            reason="read-only profile",
        )
        report = journal.verify()
        assert report.ok and (report.links, report.entries) == (4, 2), report
    # Someone with the owner's rights turns the rules off and rewrites an amount.
    if isinstance(journal_location, Path):
        off = "DROP TRIGGER actions_constrained;"
    else:
        off = "ALTER TABLE actions DISABLE TRIGGER actions_constrained;"
    raw_sql(journal_location, off + f"UPDATE actions SET amount = '500.00' WHERE id = {entry.id};")
    with Journal(journal_location) as journal:
        report = journal.verify()
    assert not report.ok and report.broken == f"entry #{entry.id} was changed outside paytui"


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM actions",
        "UPDATE actions SET request_summary = '{}'",
        "UPDATE actions SET agent = 'someone-else'",
        "UPDATE actions SET state = 'failed'",  # a success is final
        "DELETE FROM trail",
        "UPDATE trail SET body = '{}'",
    ],
)
def test_entries_are_append_only(journal_location: Path | str, sql: str) -> None:
    with Journal(journal_location) as journal:
        entry = _intent(journal)
        journal.transition(entry.id, "sent", expected={"pending"})
        journal.transition(entry.id, "succeeded", expected={"sent"}, result_id="r1")
    with pytest.raises(Exception, match=r"append-only|never"):
        raw_sql(journal_location, sql)
    with Journal(journal_location) as journal:
        assert journal.verify().ok


def test_one_unsettled_intent_per_target_is_the_databases_rule(
    journal_location: Path | str,
) -> None:
    """Even a writer that skips the guard's check (an older paytui) cannot add a second open
    intent on a target the guard was checked on."""
    with Journal(journal_location) as journal:
        first = _intent(journal, guard_since=0)
        with pytest.raises(JournalConflict) as stopped:
            _intent(journal, guard_since=first.id)
        assert stopped.value.entry.id == first.id
        with pytest.raises(DuplicateIntent):
            journal._store.rows(
                "INSERT INTO actions (client_reference, profile, base_url, operation,"
                " request_summary, state, created_at, updated_at, guard_target)"
                " VALUES ('x', 'p', ?, 'refund', '{}', 'pending', 'now', 'now', ?)",
                (SERVICE, first.charge_id),
            )
        journal.transition(first.id, "sent", expected={"pending"})
        journal.transition(first.id, "failed", expected={"sent"}, error="declined")
        again = _intent(journal, guard_since=first.id)  # settled: the target is free again
        assert again.id > first.id


def test_who_acted_is_recorded_and_filtered(journal_location: Path | str) -> None:
    with Journal(journal_location) as journal:
        _intent(journal, "a" * 24)
        _intent(journal, "b" * 24, agent="support-12", machine="ws-3")
        assert [e.agent for e in journal.list(agent="support-12")] == ["support-12"]
        rows = list(journal.audit(agent="support-07"))
        assert [(r.agent, r.machine, r.charge_id) for r in rows] == [
            ("support-07", "ws-17", "a" * 24)
        ]
        assert [(s.agent, s.machine, s.entries) for s in journal.agents()] == [
            ("support-12", "ws-3", 1),
            ("support-07", "ws-17", 1),
        ]


def test_every_agent_is_counted_by_their_entries_and_refusals(
    journal_location: Path | str,
) -> None:
    """An agent whose only row is a refusal is an agent; rows that name no one are counted apart
    (not dropped: `journal status` said "agents 0" over a journal of such rows)."""
    ticks = iter(range(100))

    def clock() -> datetime:
        return datetime(2026, 11, 29, 10, 0, next(ticks), tzinfo=UTC)

    with Journal(journal_location, clock=clock) as journal:
        _intent(journal, "a" * 24, agent=None, machine=None)
        _intent(journal, "b" * 24)
        journal.record_refusal(
            profile="sandbox",
            base_url=SERVICE,
            operation="refund",
            charge_id="d" * 24,
            amount=None,
            reason="read-only profile",
            agent="support-31",
            machine="ws-9",
        )
        _intent(journal, "e" * 24, agent=None, machine=None)
        seen = [(s.agent, s.machine, s.entries, s.refusals) for s in journal.agents()]
        assert seen == [
            ("support-31", "ws-9", 0, 1),
            ("support-07", "ws-17", 1, 0),
            (None, None, 2, 0),
        ]


def test_an_entry_in_flight_is_held_as_long_as_its_sender_lives(
    journal_location: Path | str,
) -> None:
    """On a team journal a sender's session lock says it is alive, and lets go the moment its
    connection does (a crash, a dead network); a file cannot tell (the caller checks the pid)."""
    sender = Journal(journal_location)
    entry = _intent(sender)
    with Journal(journal_location) as other:
        if isinstance(journal_location, Path):
            assert other.sender_alive(entry) is None
            sender.close()
            return
        assert other.sender_alive(entry) is True
        sender.close()  # the agent's paytui dies
        assert other.sender_alive(entry) is False


def test_two_first_starts_do_not_race(journal_location: Path | str) -> None:
    opened: list[Journal] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            opened.append(Journal(journal_location))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert not errors and len(opened) == 4
        assert _intent(opened[0]).id == 1
    finally:
        for journal in opened:
            journal.close()


def test_an_unreachable_team_journal_is_one_line_with_the_password_masked() -> None:
    url = "postgresql://agent:s3cret@127.0.0.1:9/journal"
    with pytest.raises(JournalUnavailable) as failed:
        open_journal(url)
    text = str(failed.value)
    assert "s3cret" not in text and "agent:***@127.0.0.1:9" in text
    assert "\n" not in text
    assert mask_url(url) == "postgresql://agent:***@127.0.0.1:9/journal"


async def test_two_agents_on_two_machines_send_one_refund_and_the_loser_is_told_who(
    sandbox_server: str, tmp_path: Path, team_journal_url: str
) -> None:
    """Two homes (two machines) share nothing but the team journal: of two agents refunding
    the same charge, one refund is sent; the other is told which agent did it."""
    async with PaymentClient(
        sandbox_server, client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET
    ) as client:
        (sale,) = await unrefunded_sales(client, 1)
        agents = ("support-07", "support-12")
        processes = [
            _refund_process(
                sandbox_server,
                sale.charge_id,
                tmp_path / agent,
                {"PAYTUI_JOURNAL_URL": team_journal_url, "PAYTUI_AGENT": agent},
            )
            for agent in agents
        ]
        results = [await asyncio.to_thread(p.communicate, timeout=60) for p in processes]
        refunds = await refunds_of(client, sale.charge_id)
    assert len(refunds) <= 1, results  # never two
    codes = [p.returncode for p in processes]
    if 10 in codes:
        # On a loaded machine a request can be held past its deadline; the service then drops
        # it (in time or never: docs/money-safety.md) and its sender proves it did not happen
        # (10). The other was told so and sent nothing (8), or, that one proven, sent its own:
        # done (0, the refund is there), dropped too (10) or unknown (7).
        assert sorted(codes) in ([8, 10], [10, 10], [0, 10], [7, 10]), (codes, results)
        if 0 in codes:
            assert len(refunds) == 1, results
        elif 7 not in codes:
            assert not refunds, results
        dropped = [err for code, (_, err) in zip(codes, results, strict=True) if code == 10]
        assert all("did not happen" in err for err in dropped), results
        return
    assert sorted(codes) in ([0, 8], [7, 8]), (codes, results)
    loser = codes.index(8)
    winner = agents[1 - loser]
    assert winner in results[loser][1], results[loser][1]
    with Journal(team_journal_url) as journal:
        done = [e for e in journal.list() if e.charge_id == sale.charge_id]
        assert [e.agent for e in done] == [winner]
        refused = [r for r in journal.audit(outcome="refused") if r.charge_id == sale.charge_id]
        assert [r.agent for r in refused] == [agents[loser]]
        assert journal.verify().ok


def test_a_watch_hears_other_writers_and_not_its_own_process(
    journal_location: Path | str,
) -> None:
    from paytui.actions.watch import JournalWatch

    with Journal(journal_location) as mine, Journal(journal_location) as theirs:
        watch = JournalWatch(mine, own="ws-17:100")
        try:
            _intent(mine, "a" * 24, owner="ws-17:100")
            entry = _intent(theirs, "b" * 24, owner="ws-3:4242", agent="support-12")
            assert [(e.id, e.agent) for e in watch.next(timeout=0.1)] == [(entry.id, "support-12")]
            theirs.transition(entry.id, "sent", expected={"pending"})
            assert [e.state for e in watch.next(timeout=0.1)] == ["sent"]
            assert watch.next(timeout=0.1) == []  # nothing new
        finally:
            watch.close()
        assert watch.next(timeout=5) == []  # closed: returns at once


def test_ten_agents_claiming_at_once_get_ten_different_items(
    journal_location: Path | str,
) -> None:
    """Ten agents (ten connections, as ten machines have) press "claim next" on the same ten
    open items at once: each gets a different one, and an eleventh gets none."""
    from paytui.actions.claims import ClaimedElsewhere

    items = [f"ch_{i:02d}" for i in range(10)]
    journals = [Journal(journal_location) for _ in range(11)]
    got: dict[int, str | None] = {}
    start = threading.Barrier(10)

    def agent(n: int) -> None:
        start.wait()
        claim = journals[n].claim_next(
            SERVICE, items, agent=f"support-{n:02d}", machine=f"ws-{n}", owner=f"ws-{n}:1"
        )
        got[n] = claim.target if claim else None

    try:
        threads = [threading.Thread(target=agent, args=(n,)) for n in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(t for t in got.values() if t) == items, got
        late = journals[10]
        assert late.claim_next(SERVICE, items, agent="x", machine="ws-x", owner="ws-x:1") is None
        owner_of_first = next(n for n, t in got.items() if t == items[0])
        with pytest.raises(ClaimedElsewhere) as taken:
            late.claim(SERVICE, items[0], agent="x", machine="ws-x", owner="ws-x:1")
        assert taken.value.claim.agent == f"support-{owner_of_first:02d}"
        seen = late.claims(SERVICE, items[:2])
        assert {c.agent for c in seen.values()} == {
            f"support-{n:02d}" for n, t in got.items() if t in items[:2]
        }
        # Released by its agent: free for the next one.
        assert journals[owner_of_first].release(SERVICE, items[0], owner=f"ws-{owner_of_first}:1")
        assert late.claim(SERVICE, items[0], agent="x", machine="ws-x", owner="ws-x:1").agent == "x"
    finally:
        for journal in journals:
            journal.close()
    with Journal(journal_location) as journal:
        assert journal.verify().ok


class _Clock:
    """A clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_a_claim_lives_while_its_holder_renews_it(journal_location: Path | str) -> None:
    """A holder's paytui alive but silent (asleep, cut off) lets go after the lease, by the
    reader's clock; a renewed claim lives on, and shows its age."""
    holder_clock, reader_clock = _Clock(), _Clock()
    lease = timedelta(seconds=120)
    with (
        Journal(journal_location, clock=holder_clock, claim_lease=lease) as holder,
        Journal(journal_location, clock=reader_clock, claim_lease=lease) as reader,
    ):
        holder.claim(SERVICE, "ch_1", agent="support-07", machine="ws-17", owner="ws-17:1")
        reader_clock.now += timedelta(seconds=100)
        (claim,) = reader.claims(SERVICE).values()
        assert claim.holder(reader_clock.now) == "support-07 on ws-17 since 09:00 UTC (1 min)"
        holder_clock.now += timedelta(seconds=90)
        assert holder.beat_claims(owner="ws-17:1") == 1
        reader_clock.now += timedelta(seconds=100)  # 200 s after the claim, 110 s after a beat
        assert set(reader.claims(SERVICE)) == {"ch_1"}
        reader_clock.now += timedelta(seconds=20)  # 130 s since the last beat: lapsed
        assert reader.claims(SERVICE) == {}
        # A lapsed claim is simply taken (no reason asked), by a plain claim link.
        taken = reader.claim(SERVICE, "ch_1", agent="support-12", machine="ws-3", owner="ws-3:9")
        assert taken.agent == "support-12"
        assert reader.verify().ok


def test_a_live_claim_is_taken_over_only_with_a_reason(journal_location: Path | str) -> None:
    from paytui.actions.claims import ClaimedElsewhere

    with Journal(journal_location) as holder, Journal(journal_location) as other:
        holder.claim(SERVICE, "ch_1", agent="support-07", machine="ws-17", owner="ws-17:1")
        for reason in (None, "", "   "):
            with pytest.raises(ClaimedElsewhere):
                other.claim(
                    SERVICE,
                    "ch_1",
                    agent="support-12",
                    machine="ws-3",
                    owner="ws-3:9",
                    take_over=reason,
                )
        taken = other.claim(
            SERVICE,
            "ch_1",
            agent="support-12",
            machine="ws-3",
            owner="ws-3:9",
            take_over="customer called back, support-07 is off",
        )
        assert (taken.agent, set(holder.claims(SERVICE))) == ("support-12", {"ch_1"})
        assert holder.claims(SERVICE)["ch_1"].agent == "support-12"
        (link,) = [
            json.loads(row["body"])
            for row in other._store.rows("SELECT kind, body FROM trail WHERE kind = 'takeover'")
        ]
        assert link["reason"] == "customer called back, support-07 is off"
        assert link["taken_from"] == {"agent": "support-07", "machine": "ws-17"}
        # The one it was taken from cannot release it any more, nor does its exit.
        assert not holder.release(SERVICE, "ch_1", owner="ws-17:1")
        assert holder.release_all(owner="ws-17:1") == 0
        assert set(other.claims(SERVICE)) == {"ch_1"}
        assert other.verify().ok


def test_a_claim_dies_with_its_agents_connection(
    postgres_server: str, team_journal_url: str
) -> None:
    """The agent's machine dies (its backend is terminated, as when the network goes): the
    server drops its locks and the claim is free, without any timestamp."""
    import time

    holder = Journal(team_journal_url)
    holder.claim(SERVICE, "ch_1", agent="support-07", machine="ws-17", owner="ws-17:1")
    try:
        with Journal(team_journal_url) as other:
            assert set(other.claims(SERVICE)) == {"ch_1"}
            _cut(postgres_server, holder)
            # The server ends the backend asynchronously: ask until its locks are gone.
            deadline = time.monotonic() + 10
            while other.claims(SERVICE) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert other.claims(SERVICE) == {}
            assert other.claim(SERVICE, "ch_1", agent="support-12", machine="ws-3", owner="ws-3:9")
    finally:
        holder.close()


def test_an_agents_role_may_add_and_move_entries_but_never_rewrite_history(
    postgres_server: str, team_journal_url: str
) -> None:
    """The rights docs/team.md gives agents: a journal created by its owner opens and works
    under them, and history cannot be deleted or rewritten, not even by hand."""
    import uuid
    from urllib.parse import parse_qs, quote, urlsplit

    import psycopg

    from paytui.actions.journal_schema import agent_grants

    with Journal(team_journal_url):  # the owner creates the schema
        pass
    options = parse_qs(urlsplit(team_journal_url).query)["options"][0]
    schema = options.split("=", 1)[1]
    role = f"agent_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_server, autocommit=True) as db:
        db.execute(f"CREATE ROLE {role} NOLOGIN".encode())
        db.execute(agent_grants(role, schema).encode())
    as_agent = f"{postgres_server}?options={quote(f'{options} -crole={role}')}"
    try:
        with Journal(as_agent) as journal:
            entry = _intent(journal, guard_since=0)
            journal.transition(entry.id, "sent", expected={"pending"})
            journal.transition(entry.id, "succeeded", expected={"sent"}, result_id="r1")
            journal.claim(SERVICE, "ch_1", agent="support-07", machine="ws-17", owner="ws-17:1")
            journal.share_search("cb", "status:chargeback", agent="support-07")
            assert journal.verify().ok
        for sql in ("DELETE FROM actions", "UPDATE trail SET body = '{}'", "DROP TABLE trail"):
            with pytest.raises(psycopg.Error, match=r"permission denied|must be owner"):
                raw_sql(as_agent, sql)
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as db:
            db.execute(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{schema}" FROM {role}'.encode())
            db.execute(f'REVOKE ALL ON ALL SEQUENCES IN SCHEMA "{schema}" FROM {role}'.encode())
            db.execute(f'REVOKE ALL ON SCHEMA "{schema}" FROM {role}'.encode())
            db.execute(f"DROP ROLE {role}".encode())


def _cut(postgres_server: str, journal: Journal) -> None:
    """The journal's database connection dies (a failover, a network cut)."""
    import psycopg

    row = journal._store.one("SELECT pg_backend_pid() AS pid")
    assert row is not None
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (row["pid"],))


async def test_a_team_journal_lost_before_or_after_sending_is_one_line_and_never_a_resend(
    postgres_server: str, team_journal_url: str, client: Any, wire: Any, clock: Any, sale: Any
) -> None:
    """Lost before the request: nothing is sent and the person is told so. Lost while the
    request is out: it was sent once, the person is told its outcome is not recorded, and the
    next look reads it back from the service (a refund, once)."""
    from paytui.actions.errors import ActionRefused, JournalLost
    from tests.actions.support import clocked_executor

    with Journal(team_journal_url) as journal:
        executor = clocked_executor(client, journal, clock)
        _cut(postgres_server, journal)
        with pytest.raises(ActionRefused, match=r"^Nothing was sent: the team journal .* failed"):
            await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        assert wire.posts("/v2/refunds") == []

        wire.on_send = lambda request: (
            _cut(postgres_server, journal) if request.method == "POST" else None
        )
        with pytest.raises(JournalLost, match=r"^The refund #\d+ was sent, but the team journal"):
            await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
        wire.on_send = None
        assert len(wire.posts("/v2/refunds")) == 1
        [entry] = journal.list()
        assert entry.state == "sent"  # what the journal knew when it went away
        await executor.reconcile_all(wait=True)  # waits out the deadline (a fake clock's sleep)
        settled = journal.get(entry.id)
        assert settled is not None and settled.state == "succeeded"
    assert len(await refunds_of(client, sale.charge_id)) == 1


async def test_an_intent_settled_by_another_paytui_before_it_left_is_not_sent(
    journal_location: Path | str, client: Any, wire: Any, clock: Any, sale: Any
) -> None:
    """Between writing the intent and marking it sent, another paytui reads the entry back and
    settles it ("not applied": it never left). The sender must not send it then: the journal
    no longer says it may (a refund the journal calls not applied would be a contradiction)."""
    from paytui.actions.errors import ActionRefused
    from tests.actions.support import clocked_executor

    class Raced(Journal):
        def transition(self, entry_id: int, new_state: str, **kwargs: Any) -> bool:
            if new_state == "sent":
                with Journal(journal_location) as other:
                    other.transition(
                        entry_id, "not_applied", expected={"pending"}, error="an orphan"
                    )
            return super().transition(entry_id, new_state, **kwargs)

    with Raced(journal_location) as journal:
        executor = clocked_executor(client, journal, clock)
        with pytest.raises(ActionRefused, match=r"^Nothing was sent: the refund #1 was settled"):
            await executor.run("refund", sale.charge_id, refund_op.Params(Decimal("5.00")))
    assert wire.posts("/v2/refunds") == []


def test_today_lists_an_entry_whose_sender_is_gone_as_an_unknown_outcome(
    team_journal_url: str,
) -> None:
    """On a team journal, an entry left "sent" by a paytui that died is money whose outcome is
    not proven: Today lists it first; one whose sender lives is not (it is being answered)."""
    from paytui.today.queue import unknown_outcomes

    with Journal(team_journal_url) as mine:
        sender = Journal(team_journal_url)
        gone = _intent(sender, "a" * 24)
        sender.transition(gone.id, "sent", expected={"pending"})
        live = Journal(team_journal_url)
        try:
            flying = _intent(live, "b" * 24)
            assert unknown_outcomes(mine, SERVICE) == []
            sender.close()  # its paytui dies
            assert [e.id for e in unknown_outcomes(mine, SERVICE)] == [gone.id]
            assert flying.id not in [e.id for e in unknown_outcomes(mine, SERVICE)]
        finally:
            live.close()
