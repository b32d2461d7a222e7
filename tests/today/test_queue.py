"""Today's queue against the in-process sandbox (the demo data, anchored at this hour)."""

from __future__ import annotations

import asyncio
import os
import stat
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from paytui.actions.journal import Journal
from paytui.api.queries import OPEN_AUTHORIZATIONS
from paytui.config.model import TodayPrefs
from paytui.sandbox.seed import DEFAULT_ANCHOR
from paytui.today.queue import (
    authorizations_since,
    build_queue,
    due_words,
    items_from_journal,
    parse_when,
)
from paytui.today.seen import SeenStore

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

URL = "http://sandbox"


async def test_the_queue_is_sorted_by_deadline_and_proves_each_row(
    demo_client: PaymentClient, tmp_path: Path
) -> None:
    now = DEFAULT_ANCHOR + timedelta(minutes=30)  # a fixed clock: the demo's hour
    seen = SeenStore(tmp_path / "today.sqlite3", URL)
    queue = await build_queue(demo_client, seen=seen, now=now)
    kinds = {item.kind for item in queue.items}
    assert {"chargeback", "return", "authorization", "account"} <= kinds
    # What can be acted on, by due time; then what is past its window; then the lapsed holds.
    actionable = queue.select(lapsed=False, past_window=False)
    late = queue.select(past_window=True)
    lapsed = queue.select(lapsed=True)
    assert queue.items == actionable + late + lapsed and lapsed and queue.lapsed == len(lapsed)
    assert [i.due_at for i in actionable] == sorted(i.due_at for i in actionable)
    assert [i.due_at for i in lapsed] == sorted(i.due_at for i in lapsed)
    assert {i.kind for i in lapsed} == {"authorization"} and all(i.due_at <= now for i in lapsed)
    assert any(f"{len(lapsed)} lapsed holds" in note for note in queue.notes)
    # Every open authorization within the lookback is in it, due at its hold's end.
    for item in queue.select(kinds=["authorization"]):
        charge = await demo_client.get_charge(item.id)
        assert charge.is_open_authorization
        assert charge.charge_timestamp is not None
        assert item.due_at == charge.charge_timestamp + timedelta(days=7)
        assert item.estimated and item.lapsed == (item.due_at <= now)
    # A chargeback whose inner status is won or lost is not in it; an open one is, due from
    # its own date (the sandbox shows it) by the acquirer's window less the buffer.
    for item in queue.select(kinds=["chargeback"]):
        charge = await demo_client.get_charge(item.id)
        assert charge.chargebacks is not None and charge.chargebacks.items
        opened = [cb for cb in charge.chargebacks.items if cb.status == "open"]
        assert opened and opened[0].chargeback_timestamp is not None
        assert item.amount is not None and item.amount > 0
        assert item.basis == "chargeback_date"
        assert item.due_at == opened[0].chargeback_timestamp + timedelta(days=8)
    assert actionable[0].due_at < now < actionable[-1].due_at  # overdue and due later
    # Only holds that can still be in it are read, and none that can is missed.
    since = authorizations_since(TodayPrefs(), now)
    assert since is not None and any(f"holds before {since:%Y-%m-%d}" in n for n in queue.notes)
    listed = {item.id for item in queue.select(kinds=["authorization"])}
    oldest = now - timedelta(days=TodayPrefs().lookback_days)
    every = [
        c async for page in demo_client.search_charges(OPEN_AUTHORIZATIONS) for c in page.items
    ]
    due = {
        c.charge_id
        for c in every
        if c.charge_timestamp is not None and c.charge_timestamp + timedelta(days=7) >= oldest
    }
    assert due and due == listed
    assert len(every) > len(listed)  # older holds exist, and were not read into the queue
    assert stat.S_IMODE(os.stat(tmp_path / "today.sqlite3").st_mode) == 0o600


async def test_a_chargeback_past_its_window_goes_below_the_winnable_ones(
    demo_client: PaymentClient, tmp_path: Path
) -> None:
    seen = SeenStore(tmp_path / "today.sqlite3", URL)
    first = await build_queue(demo_client, seen=seen, now=DEFAULT_ANCHOR)
    due = sorted(item.due_at for item in first.select(kinds=["chargeback"]))
    # Two days after the first chargeback's window closed, before the last one's closes.
    now = due[0] + timedelta(days=2)
    assert due[-1] > now
    queue = await build_queue(demo_client, seen=seen, now=now)
    chargebacks = queue.select(kinds=["chargeback"])
    late = [item for item in chargebacks if item.past_window]
    winnable = [item for item in chargebacks if not item.past_window]
    assert late and winnable
    assert all(item.due_at < now - timedelta(days=1) for item in late)
    assert all(item.due_at >= now - timedelta(days=1) for item in winnable)
    # Every winnable chargeback is above every one past its window (whatever their due
    # times), and those are above the lapsed holds.
    order = queue.items.index
    assert max(map(order, winnable)) < min(map(order, late))
    lapsed = queue.select(lapsed=True)
    assert not lapsed or max(map(order, late)) < min(map(order, lapsed))
    assert queue.past_window == len(queue.select(past_window=True))
    assert any(f"{queue.past_window} past their window" in note for note in queue.notes)
    assert {item.late_word for item in late} == {"past window"}


async def test_an_estimate_does_not_move(demo_client: PaymentClient, tmp_path: Path) -> None:
    seen = SeenStore(tmp_path / "today.sqlite3", URL)
    now = datetime.now(UTC)
    prefs = TodayPrefs(lookback_days=0)  # keep the items that become long overdue
    first = await build_queue(demo_client, prefs=prefs, seen=seen, now=now)
    later = await build_queue(demo_client, prefs=prefs, seen=seen, now=now + timedelta(days=3))
    due = {i.id: i.due_at for i in first.select(kinds=["chargeback", "return"])}
    assert due and due == {i.id: i.due_at for i in later.select(kinds=["chargeback", "return"])}
    # The account statuses seen: unchanged for 3 more days, the same "since".
    assert {i.id: i.due_at for i in first.select(kinds=["account"])} == {
        i.id: i.due_at for i in later.select(kinds=["account"])
    }


async def test_windows_come_from_the_config(demo_client: PaymentClient) -> None:
    now = datetime.now(UTC)
    prefs = TodayPrefs(hold_days=1, brand_hold_days={"VISA": 3}, lookback_days=0)
    queue = await build_queue(demo_client, prefs=prefs, seen=SeenStore(None, URL), now=now)
    assert queue.left_out == {}
    for item in queue.select(kinds=["authorization"]):
        charge = await demo_client.get_charge(item.id)
        assert charge.charge_timestamp is not None
        days = 3 if charge.payment_method and charge.payment_method.type == "visa" else 1
        assert item.due_at == charge.charge_timestamp + timedelta(days=days)


async def test_unknown_outcomes_come_first(demo_client: PaymentClient, tmp_path: Path) -> None:
    with Journal(tmp_path / "journal.sqlite3") as book:
        entry = book.record_intent(
            profile="sandbox",
            base_url=URL,
            operation="refund",
            charge_id="ch_unknown",
            amount=Decimal("5.00"),
            request_summary={},
        )
        book.transition(entry.id, "sent", expected={"pending"})
        book.transition(entry.id, "unknown", expected={"sent"})
        unknown = [e for e in book.unresolved(base_url=URL) if e.state == "unknown"]
    now = datetime.now(UTC) - timedelta(days=400)  # everything else is due later than it
    queue = await build_queue(
        demo_client, seen=SeenStore(None, URL), now=now + timedelta(days=400), unknown=unknown
    )
    assert queue.items[0].kind == "unknown" and queue.items[0].id == "ch_unknown"
    assert items_from_journal(unknown)[0].amount == Decimal("5.00")


def test_time_left_in_words() -> None:
    now = datetime(2026, 1, 1, 12, tzinfo=UTC)
    assert due_words(now + timedelta(days=2, hours=4), now) == "due in 2 d 4 h"
    assert due_words(now - timedelta(hours=3), now) == "overdue 3 h"
    assert due_words(now + timedelta(minutes=30), now, estimated=True) == "≈ due in 30 min"
    assert parse_when("today", now) == datetime(2026, 1, 2, tzinfo=UTC)
    assert parse_when("2d", now) == now + timedelta(days=2)
    assert parse_when("2026-03-01", now) == datetime(2026, 3, 1, tzinfo=UTC)


def test_the_today_table_of_the_config(tmp_path: Path) -> None:
    from paytui.config import load_config

    path = tmp_path / "config.toml"
    path.write_text("[today]\nhold_days = 5\nbrand_hold_days = { Amex = 10 }\nhurry = 1\n")
    result = load_config(path)
    assert result.config.today.hold_days == 5
    assert result.config.today.brand_hold_days == {"amex": 10}
    assert any("hurry" in str(problem) for problem in result.problems)


async def test_a_service_that_ignores_the_filters_adds_nothing(
    second_service: Any,
) -> None:
    """The second service applies no filter: every charge comes back for `status=chargeback`.
    Only the rows that show a chargeback (or a return) are in the queue; authorizations it
    cannot show uncaptured are left out and said."""
    from tests.second_service.fixtures import client_for

    service = second_service(applied_filters=frozenset())
    now = max(c.moment for c in service.store.charges) + timedelta(hours=1)
    async with client_for(service) as client:
        queue = await build_queue(
            client, prefs=TodayPrefs(lookback_days=0), seen=SeenStore(None, "x"), now=now
        )
    by_id = {c.charge_id: c for c in service.store.charges}
    chargebacks = {i.id for i in queue.select(kinds=["chargeback"])}
    returns = {i.id for i in queue.select(kinds=["return"])}
    assert chargebacks and returns
    assert {by_id[i].status for i in chargebacks} == {"chargeback"}
    assert {by_id[i].status for i in returns} == {"return"}
    assert chargebacks == {c.charge_id for c in service.store.charges if c.status == "chargeback"}
    # Not one authorization shows it is uncaptured here: none is listed, and that is said.
    assert not queue.select(kinds=["authorization"])
    assert any(n.startswith("open authorizations: ") and "not proven" in n for n in queue.notes)
    assert queue.failed == ["tokens"]  # this service has no token list: said, not fatal


async def test_each_source_read_shows_the_queue_so_far(demo_client: PaymentClient) -> None:
    """`on_partial`: the queue so far after each source but the last, in the same order and by
    the same rules, saying what is still being read; the whole queue holds every partial item."""
    now = datetime.now(UTC)
    partials: list[Any] = []
    queue = await build_queue(
        demo_client, seen=SeenStore(None, URL), now=now, on_partial=partials.append
    )
    assert len(partials) == 4  # five sources: after each of the first four
    sizes = [len(p.items) for p in partials]
    assert sizes == sorted(sizes) and sizes[-1] <= len(queue.items)
    for partial in partials:
        assert partial.notes[0].startswith("still reading ")
        assert [i.sort_key for i in partial.items] == sorted(i.sort_key for i in partial.items)
        assert set(partial.items) <= set(queue.items)
    assert not any(n.startswith("still reading") for n in queue.notes)


async def test_the_charge_pages_and_the_chargebacks_rows_are_worked_out_off_the_loop(
    demo_client: PaymentClient, monkeypatch: Any
) -> None:
    """At 100,000 charges, parsing the queue's pages of charges and building each chargeback's
    row (its case, deadline, score and advice) on the event loop held it for hundreds of ms:
    both run in a thread now, the loop only awaits them (the loop's thread is told apart by its
    identity, not by any timing)."""
    import threading

    import paytui.api.client as client_module
    import paytui.today.queue as queue_module

    loop_thread = threading.get_ident()
    parsed: list[tuple[str, int]] = []
    cased: list[int] = []
    real_parse, real_case = client_module._parse_page, queue_module.case_of

    def parse_page(body: Any, model: Any, plural: str, limit: int, offset: int) -> Any:
        parsed.append((plural, threading.get_ident()))
        return real_parse(body, model, plural, limit, offset)

    def case_of(*args: Any, **kwargs: Any) -> Any:
        cased.append(threading.get_ident())
        return real_case(*args, **kwargs)

    monkeypatch.setattr(client_module, "_parse_page", parse_page)
    monkeypatch.setattr(queue_module, "case_of", case_of)
    queue = await build_queue(demo_client, seen=SeenStore(None, URL), now=DEFAULT_ANCHOR)
    assert queue.select(kinds=["chargeback"]) and queue.select(kinds=["return"])
    charge_pages = [thread for plural, thread in parsed if plural == "charges"]
    assert charge_pages and loop_thread not in charge_pages
    assert cased and loop_thread not in cased


async def test_the_returns_and_holds_rows_and_each_merge_are_worked_out_off_the_loop(
    demo_client: PaymentClient, monkeypatch: Any
) -> None:
    """As the chargebacks': each ACH return's deadline, each open hold's row and every merge
    and sort of the queue (each partial queue, the whole one) run in a thread, the loop only
    awaits them (at 100,000 charges each held the loop for 30-150 ms); the partial queues still
    arrive one a source, in order (the loop's thread told apart by its identity)."""
    import threading

    import paytui.today.queue as queue_module

    loop_thread = threading.get_ident()
    where: dict[str, list[int]] = {"return": [], "hold": [], "merge": []}
    real_deadline, real_hold, real_merge = (
        queue_module.return_deadline,
        queue_module.hold_days,
        queue_module.items_from_journal,
    )

    def return_deadline(*args: Any, **kwargs: Any) -> Any:
        where["return"].append(threading.get_ident())
        return real_deadline(*args, **kwargs)

    def hold_days(*args: Any, **kwargs: Any) -> Any:
        where["hold"].append(threading.get_ident())
        return real_hold(*args, **kwargs)

    def items_from_journal(*args: Any, **kwargs: Any) -> Any:
        where["merge"].append(threading.get_ident())
        return real_merge(*args, **kwargs)

    monkeypatch.setattr(queue_module, "return_deadline", return_deadline)
    monkeypatch.setattr(queue_module, "hold_days", hold_days)
    monkeypatch.setattr(queue_module, "items_from_journal", items_from_journal)
    partials: list[Any] = []
    queue = await build_queue(
        demo_client, seen=SeenStore(None, URL), now=DEFAULT_ANCHOR, on_partial=partials.append
    )
    assert queue.select(kinds=["return"]) and queue.select(kinds=["authorization"])
    assert where["return"] and loop_thread not in where["return"]
    assert where["hold"] and loop_thread not in where["hold"]
    assert len(where["merge"]) == 5 and loop_thread not in where["merge"]  # 4 partial, 1 whole
    sizes = [len(p.items) for p in partials]
    assert len(partials) == 4 and sizes == sorted(sizes)


async def test_a_source_that_fails_past_a_note_stops_the_others(
    demo_client: PaymentClient,
) -> None:
    """A source's error that is not the service's (`ApiError` is a note) ends the read, and the
    sources still reading stop with it: none hands a partial queue to the screen afterwards."""

    class Failing:
        """The demo client, its tokens failing at once and its accounts never answering."""

        def __getattr__(self, name: str) -> Any:
            return getattr(demo_client, name)

        async def list_tokens_page(self, **_: Any) -> Any:
            raise RuntimeError("a bug in a source")

        async def list_accounts_page(self, **_: Any) -> Any:
            await asyncio.Event().wait()

    partials: list[Any] = []
    with pytest.raises(RuntimeError, match="a bug in a source"):
        await build_queue(
            Failing(),  # type: ignore[arg-type]
            seen=SeenStore(None, URL),
            now=datetime.now(UTC),
            on_partial=partials.append,
        )
    still = [
        task
        for task in asyncio.all_tasks()
        if "build_queue" in task.get_coro().__qualname__ and not task.done()
    ]
    assert still == []
