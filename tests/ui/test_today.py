"""Today (`0`): the queue by deadline, the time left in words, phases, `enter` opens the item."""

from __future__ import annotations

from typing import Any

import httpx

from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.screens.today import PHASES, TodayScreen
from paytui.ui.widgets.nav_table import NavTable
from paytui.ui.widgets.pulse import PulseStrip
from tests.ui.conftest import make_app, screen_text, settle


async def open_today(app: PaytuiApp, pilot: Any) -> TodayScreen:
    await settle(app, pilot)
    await pilot.press("0")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, TodayScreen)
    return screen


async def test_zero_opens_today_sorted_by_deadline(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        assert screen.state == "results"
        assert screen.query_one("#pulse")  # the pulse's slot
        # drawn, started once the queue's first rows were on screen
        assert screen.query_one(PulseStrip).pulse is not None
        table = screen.query_one(NavTable)
        labels = [str(column.label) for column in table.ordered_columns]
        assert labels[:6] == ["Kind", "What", "Customer", "Amount", "Due (local)", "Time left"]
        assert "Claimed by" not in labels  # a file journal: no claims to show
        due = [item.due_at for item in screen.items]
        assert table.row_count == len(due)
        # What can be acted on by due time, then what is past its window, then the lapsed
        # holds: in words, not colour alone.
        lapsed = [item.lapsed for item in screen.items]
        ranks = [item.rank for item in screen.items]
        assert any(lapsed) and ranks == sorted(ranks)
        acting = [item.due_at for item in screen.items if not item.rank]
        assert acting == sorted(acting)
        assert screen.queue is not None
        assert any(f"{sum(lapsed)} lapsed holds" in note for note in screen.queue.notes)
        text = screen_text(app)
        assert "≈ overdue" in text and "≈ due in" in text  # words, not colour alone
        assert {"chargeback", "authorization", "return", "account"} <= {
            i.kind for i in screen.items
        }
        assert "ACH return" in text and "capture by" in text

        # `f` steps to "due today": only items due before the end of the local day.
        await pilot.press("f")
        await settle(app, pilot)
        assert PHASES[screen.phase].name == "due today"
        assert len(screen.items) < len(due)
        await pilot.press(
            *["f"] * (next(i for i, p in enumerate(PHASES) if p.name == "chargebacks") - 1)
        )
        await settle(app, pilot)
        assert screen.items and {item.kind for item in screen.items} == {"chargeback"}
        # The lapsed holds: a phase of their own, and only there besides "all".
        for name in ("due today", "overdue", "authorizations"):
            phase = next(p for p in PHASES if p.name == name)
            assert phase.lapsed is False
        lapsed_phase = next(i for i, p in enumerate(PHASES) if p.name == "lapsed holds")
        assert PHASES[lapsed_phase].lapsed is True

        # `enter` opens the charge of a chargeback.
        first = screen.items[0]
        table.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        assert first.id in screen_text(app)


async def test_claimed_by_shows_on_a_team_journal(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    from paytui.actions.journal import Journal
    from paytui.config.urls import service_key
    from tests.ui.conftest import frozen_clock

    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_today(app, pilot)
        labels = [str(column.label) for column in screen.query_one(NavTable).ordered_columns]
        assert "Claimed by" in labels  # a team journal: the column, "nobody" where free
        first = next(item for item in screen.items if item.target == "charge")
        with Journal(team_journal_url, clock=frozen_clock) as other:
            other.claim(
                service_key("http://sandbox"),
                first.target_id,
                agent="support-12",
                machine="ws-3",
                owner="ws-3:4242",
            )
            await pilot.press("ctrl+r")
            await settle(app, pilot)
            assert screen.claimed_by is not None
            assert screen.claimed_by[first.target_id].startswith("support-12")
            assert "support-12" in screen_text(app)


async def test_a_hold_captured_meanwhile_leaves_the_queue(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        authorizations = [i for i in screen.items if i.kind == "authorization"]
        hold = authorizations[-1]  # one still due (its hold not lapsed)
        await pilot.press("1")  # another screen on top meanwhile
        await settle(app, pilot)
        await (await app.get_client()).capture(hold.id)
        app.charges_changed_by(hold.id)  # what the executor says after a capture
        await pilot.press("0")
        await settle(app, pilot)
        assert app.screen is screen
        left = [i.id for i in screen.items if i.kind == "authorization"]
        assert hold.id not in left and len(left) == len(authorizations) - 1


async def test_capture_from_today_on_an_authorization_only(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    from paytui.ui.screens.modals.capture import CaptureModal

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        accounts = next(i for i, p in enumerate(PHASES) if p.name == "accounts")
        await pilot.press(*["f"] * accounts)
        await settle(app, pilot)
        assert screen.items and screen.items[0].kind == "account"
        assert screen.check_action("capture", ()) is None  # off: an account is no charge
        await pilot.press("c")
        await settle(app, pilot)
        assert app.screen is screen

        holds = next(i for i, p in enumerate(PHASES) if p.name == "authorizations")
        await pilot.press(*["f"] * ((holds - accounts) % len(PHASES)))
        await settle(app, pilot)
        assert screen.items and screen.items[0].kind == "authorization"
        assert screen.check_action("capture", ()) is True
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, CaptureModal)
        assert app.screen.charge_id == screen.items[0].id


async def test_charge_actions_of_a_list_apply_to_charge_rows_only(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """Marks, mark all, bulk, tags, export on Today as on the charge list; an account row takes
    none of them and says so in one line; marks and the cursor survive a re-read."""
    from textual.widgets import Static

    from paytui.ui.screens.modals.bulk import BulkActionModal
    from paytui.ui.screens.modals.edit_tags import EditTagsModal
    from paytui.ui.screens.modals.export import ExportModal

    def phase(name: str) -> int:
        return next(i for i, p in enumerate(PHASES) if p.name == name)

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        await pilot.press(*["f"] * phase("accounts"))
        await settle(app, pilot)
        assert screen.items and screen.items[0].kind == "account"
        for key in ("space", "e", "z"):
            await pilot.press(key)
            await settle(app, pilot)
        said = [n.message for n in app._notifications]
        assert sum("an account, not a charge" in m for m in said) == 3, said
        assert app.screen is screen and not len(screen.marks)
        assert screen.check_action("edit", ()) is None  # off, greyed in the footer and help

        await pilot.press(*["f"] * ((phase("authorizations") - phase("accounts")) % len(PHASES)))
        await settle(app, pilot)
        holds = screen.items
        assert len(holds) >= 3 and {i.kind for i in holds} == {"authorization"}
        await pilot.press("space", "space")
        await settle(app, pilot)
        marked = str(screen.query_one("#marks", Static).content)
        assert marked.startswith("2 marked · ")
        assert screen.query_one(NavTable).cursor_row == 2  # space moves on
        assert "● " + holds[0].id in screen_text(app)  # a sign, not a colour alone

        await pilot.press("ctrl+r")  # read again: marks and the row under the cursor stay
        await settle(app, pilot)
        assert len(screen.marks) == 2 and screen.highlighted() == holds[2]
        assert "● " + holds[0].id in screen_text(app)

        await pilot.press("C")  # bulk capture: the dry run of the marked charges only
        await settle(app, pilot)
        assert isinstance(app.screen, BulkActionModal)
        assert [cid for cid, _ in app.screen.plan.items] == [holds[0].id, holds[1].id]
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("x")  # export: the marked charges
        await settle(app, pilot)
        assert isinstance(app.screen, ExportModal) and "2 marked charges" in app.screen.what
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("U", "M")  # clear, then mark every charge row of the phase
        await settle(app, pilot)
        assert len(screen.marks) == len({i.target_id for i in holds})
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, EditTagsModal)
        assert app.screen.charge_id == holds[2].id


async def test_today_as_the_start_screen_reads_again_on_its_timer_only_when_shown(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """`[ui] start_screen = "today"` opens on Today (the charge search is not built); the
    queue's timer reads only while Today is shown, keeping the cursor's row."""
    from dataclasses import replace

    from paytui.config.model import TodayPrefs, UiPrefs
    from tests.ui.conftest import switchable_app

    _, sandbox = switchable_app(sandbox_transport)  # a sandbox profile's connection
    connection = replace(
        # The timer's own period is a day, so a slow machine never sees it fire on its own:
        # the test ticks it (a real 30 s tick between two steps would read an extra time).
        sandbox,
        ui=UiPrefs(start_screen="today"),
        today=TodayPrefs(refresh_seconds=86_400),
    )
    app = make_app(sandbox_transport, connection=connection)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TodayScreen) and app.current_mode == "today"
        assert screen.state == "results" and not app._screen_stacks.get("charges")
        table = screen.query_one(NavTable)
        table.move_cursor(row=3)
        under = screen.highlighted()
        read = screen.queue  # each read builds a new queue
        screen.tick()
        await settle(app, pilot)
        assert screen.queue is not read and screen.highlighted() == under  # by key, not row
        read = screen.queue
        await pilot.press("1")  # another screen shown: the tick does not read
        await settle(app, pilot)
        screen.tick()
        await settle(app, pilot)
        assert screen.queue is read
        await pilot.press("0")  # back: one read, as the tick asked
        await settle(app, pilot)
        assert screen.queue is not read and screen.highlighted() == under


async def test_a_read_again_during_a_read_follows_the_item_the_first_one_followed(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """A tick or `r` while a read is under way (its partial rows may have moved the cursor)
    keeps following the item the cursor was on when the first read began; and the list is
    "reading" until the latest read ends, not when the one it replaced is cancelled."""
    import asyncio

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        table = screen.query_one(NavTable)
        table.move_cursor(row=3)
        under = screen.highlighted()
        gate = asyncio.Event()
        real_fetch = screen.fetch

        async def held_fetch(client: Any, offset: int, limit: int) -> Any:
            await gate.wait()
            return await real_fetch(client, offset, limit)

        screen.fetch = held_fetch  # type: ignore[method-assign]
        screen.reload()  # the first read: held
        await pilot.pause()
        table.move_cursor(row=0)  # as rows shown meanwhile move it
        screen.reload()  # a second read replaces the first
        await pilot.pause()
        await pilot.pause()
        assert screen.reading  # the replaced read ended; the latest has not
        gate.set()
        await settle(app, pilot)
        assert not screen.reading
        assert screen.highlighted() == under


async def test_a_source_arriving_puts_its_rows_in_place_under_a_kept_cursor(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """A source of the queue that arrives adds its rows among those shown, by deadline, and
    the cursor stays on its item; the rows already shown are kept as they are (not cleared and
    built again: that held the event loop 46-90 ms a source at 100,000 charges); a row the new
    source pushed out goes."""
    from paytui.today.queue import TodayQueue

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        assert screen.queue is not None
        whole = screen.queue
        assert len(whole.items) >= 6
        table = screen.query_one(NavTable)

        def shown_keys() -> list[str | None]:
            return [row.key.value for row in table.ordered_rows]

        # A first source: every other item, the others still being read.
        first = TodayQueue(whole.items[1::2], whole.now, ["still reading holds"])
        screen._show_partial(first)
        await pilot.pause()
        table.move_cursor(row=2)
        under = screen.highlighted()
        assert under is not None
        under_key = screen.row_key(under)
        assert under_key is not None
        cells = table.get_row(under_key)

        # The other source arrives: its rows go in place, sorted with the first's.
        screen._show_partial(TodayQueue(list(whole.items), whole.now, ["still reading x"]))
        await pilot.pause()
        expected = [screen.row_key(item) for item in screen._in_phase(whole)]
        assert [screen.row_key(item) for item in screen.items] == expected
        assert shown_keys() == expected  # the table's own order, not only the screen's list
        assert screen.highlighted() == under  # the cursor on the same item, rows above it
        assert table.cursor_row == expected.index(under_key) > 2
        assert all(a is b for a, b in zip(table.get_row(under_key), cells, strict=True))

        # A re-read in which items left (captured meanwhile): their rows go, the rest stay.
        fewer = [item for item in whole.items if screen.row_key(item) != expected[0]]
        screen._show_partial(TodayQueue(fewer, whole.now, ["still reading y"]))
        await pilot.pause()
        assert shown_keys() == expected[1:]
        assert screen.highlighted() == under
        assert table.row_count == len(expected) - 1


async def test_the_whole_queue_keeps_the_partial_rows_cells_unless_claims_or_presence_changed(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """When the last source arrives, the whole queue's rows that were shown already keep their
    cells on a file journal (nothing they show changed: building 100 rows again held the loop
    30-190 ms at 100,000 charges). Who has a charge open, changed while the queue was read (not
    drawn then), has every row built again."""
    from paytui.today.queue import TodayQueue

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        assert screen.queue is not None and screen.claimed_by is None  # a file journal
        whole = screen.queue
        table = screen.query_one(NavTable)

        def arrive(last: bool) -> None:
            """A partial queue of every item, then (`last`) the whole queue, as a read does."""
            if not last:
                screen.reading = True
                screen._show_partial(TodayQueue(list(whole.items), whole.now, ["still reading"]))
            else:
                screen._partial = False
                screen.reading = False
                screen.show_first(screen._slice(whole, 0, screen.PAGE_SIZE), None)

        built: list[Any] = []
        real = screen.row_cells

        def row_cells(item: Any) -> Any:
            built.append(item)
            return real(item)

        screen.row_cells = row_cells  # type: ignore[method-assign]
        arrive(last=False)
        await pilot.pause()
        key = screen.row_key(screen.items[0])
        assert key is not None
        cells = table.get_row(key)
        built.clear()
        arrive(last=True)
        await pilot.pause()
        assert not built  # no row built again
        assert all(a is b for a, b in zip(table.get_row(key), cells, strict=True))

        arrive(last=False)
        await pilot.pause()
        screen._presence_changed({})  # while reading: not drawn now
        built.clear()
        arrive(last=True)
        await pilot.pause()
        assert len(built) == len(screen.items)  # every row built again, with who has it open


async def test_a_sources_rows_put_in_place_are_drawn_a_loop_turn_later(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """The screen's updates wait a loop turn after a source's rows are put in place (as
    `App.delay_update`), then draw them: at 100,000 charges the rows and the draw that came
    right after made one step of the loop of 60-90 ms, with no timer due meanwhile run between
    them. The wait ends by itself (the app draws again; nothing is left held), without the
    whole screen drawn again as `delay_update` ends (the changed widgets draw themselves)."""
    from paytui.today.queue import TodayQueue

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        assert screen.queue is not None
        whole = screen.queue
        screen._show_partial(TodayQueue(whole.items[1::2], whole.now, ["still reading holds"]))
        await settle(app, pilot)
        assert app._batch_count == 0
        refreshed: list[tuple[Any, ...]] = []
        real = screen.refresh

        def refresh(*regions: Any, **kwargs: Any) -> Any:
            refreshed.append((regions, kwargs))
            return real(*regions, **kwargs)

        screen.refresh = refresh  # type: ignore[method-assign]
        screen._show_partial(TodayQueue(list(whole.items), whole.now, ["still reading x"]))
        held = app._batch_count  # the screen's updates, held for the turn
        await settle(app, pilot)
        assert held == 1
        assert app._batch_count == 0  # drawn after it
        # Not the whole screen again as the turn ends (`App.delay_update` does): what changed
        # drew itself.
        assert ((), {}) not in refreshed
        assert "still reading x" in screen_text(app)


async def test_at_80x24_the_pulse_folds_and_the_queue_keeps_the_screen(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """Under 30 lines the pulse folds to its title and the dispute ratio's: the queue shows at
    least 10 rows at 80x24 (5 with the whole pulse); at 40 lines the whole pulse is back."""
    app = make_app(sandbox_transport)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_today(app, pilot)
        strip = screen.query_one(PulseStrip)
        assert strip.pulse is not None  # drawn, and folded
        assert strip.outer_size.height == 2
        table = screen.query_one(NavTable)
        assert len(screen.items) >= 10
        assert table.size.height - table.header_height >= 10
        text = screen_text(app)
        assert "Pulse · last 30 days" in text and "Dispute ratio" in text
        assert "Sales volume" not in text
        await pilot.resize_terminal(120, 40)
        await settle(app, pilot)
        assert "Sales volume" in screen_text(app) and strip.outer_size.height > 2


async def test_each_row_says_its_case_its_evidence_and_its_money_state(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """At 80x24 the line under the queue says the highlighted row's case and which evidence and
    clock its due time came from; the State column says the money state by the one rule, and
    a chargeback opened from Today shows its case as the detail's first line."""
    from paytui.charge_state import state_words

    app = make_app(sandbox_transport)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_today(app, pilot)
        chargebacks = next(i for i, p in enumerate(PHASES) if p.name == "chargebacks")
        await pilot.press(*["f"] * chargebacks)
        await settle(app, pilot)
        table = screen.query_one(NavTable)
        assert "state" in table.shown_columns  # kept at 80 columns
        practice = next(i for i, item in enumerate(screen.items) if "Discover UA02" in item.why)
        table.move_cursor(row=practice)
        await settle(app, pilot)
        text = " ".join(screen_text(app).split())
        case = "Discover UA02 Fraud: Card Not Present Transaction (fraud) · arbitration · open"
        assert case in text
        assert "from the chargeback's date" in text and "window" in text
        item = screen.items[practice]
        words = state_words(item.subject, refunds=screen.refunds.get(item.id))
        assert words and words[0] == "Disputed (open)" and "?" not in words  # refunds read
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ChargeDetailScreen)
        lines = [line.strip() for line in screen_text(app).splitlines()]
        assert lines[1].startswith("Case Discover UA02 Fraud: Card Not Present Transaction")


async def test_open_by_shows_who_else_has_a_queued_charge_open_live(
    sandbox_transport: httpx.AsyncBaseTransport, team_journal_url: str
) -> None:
    """Another agent opening a charge of the queue: its row says so at once (no reload)."""
    import asyncio

    from paytui.actions.journal import Journal
    from paytui.actions.presence import PresenceBoard
    from paytui.config.urls import service_key

    app = make_app(sandbox_transport, journal_path=team_journal_url)
    async with app.run_test(size=(180, 40)) as pilot:
        screen = await open_today(app, pilot)
        first = next(item for item in screen.items if item.target == "charge")
        assert "ana" not in screen_text(app)
        board = app.actions.presence
        assert board is not None and board.available
        told = asyncio.Event()
        app.presence_changed.subscribe(screen, lambda _people: told.set())
        with Journal(team_journal_url) as journal:
            ana = PresenceBoard(
                journal,
                base_url=service_key("http://sandbox"),
                agent="ana",
                machine="ws-3",
                owner="ws-3:4242",
                clock=board.clock,  # the lease is judged by the dashboard's clock
            )
            ana.show("detail", first.target_id, "refunding")
            ana.flush()
            await asyncio.wait_for(told.wait(), 60)
            await settle(app, pilot)
        labels = [str(column.label) for column in screen.query_one(NavTable).ordered_columns]
        assert "Open by" in labels
        # On screen (the column may cut its end: "◉ ana refun…"), whole in the row's cell.
        assert "◉ ana refun" in screen_text(app)
        assert "◉ ana refunding" in screen.row_cells(first)[8].plain


async def test_the_first_read_imports_the_journals_code_in_a_thread(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: Any
) -> None:
    """Today's first read needs the journal (its unknown outcomes): on Today as the start
    screen, the first use of the session's actions imported the executor, the journal and the
    table of operations on the event loop (100-400 ms at 100,000 charges under load). They are
    imported in a thread now; the loop's thread is told apart by its identity, not by timing."""
    import importlib
    import threading
    from dataclasses import replace

    from paytui.config.model import UiPrefs
    from tests.ui.conftest import switchable_app

    real = importlib.import_module
    imported_in: list[int] = []

    def import_module(name: str, package: str | None = None) -> Any:
        if name == "paytui.ui.actions_service":
            imported_in.append(threading.get_ident())
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", import_module)
    _, sandbox = switchable_app(sandbox_transport)
    connection = replace(sandbox, ui=UiPrefs(start_screen="today"))
    app = make_app(sandbox_transport, connection=connection)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TodayScreen) and screen.state == "results" and screen.items
        assert app.session.actions_if_built is not None
        assert imported_in and threading.get_ident() not in imported_in


async def test_the_evidence_keys_are_read_in_a_thread(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: Any
) -> None:
    """The queue's read needs the evidence pack's item keys (each chargeback's checklist
    score): the first read imported the evidence code on the event loop, in the push's step.
    They are read (and the code imported) in a thread now, with the first-seen store opened;
    the loop's thread is told apart by its identity, not by timing."""
    import threading

    from paytui.evidence import case

    real = case.attribute_keys
    read_in: list[int] = []

    def attribute_keys(configured: Any, kind: str) -> Any:
        read_in.append(threading.get_ident())
        return real(configured, kind)

    monkeypatch.setattr(case, "attribute_keys", attribute_keys)
    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        assert screen.items and not screen.reading
        assert read_in and threading.get_ident() not in read_in


async def test_the_first_seen_store_is_closed_in_a_thread(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: Any
) -> None:
    """The queue's first-seen store is closed once the sources are read: its file's last
    user closes the connection, which checkpoints it, on the event loop in the step that
    shows the whole queue (13 ms at 100,000 charges). It is closed in a thread now, once a
    read (the loop's thread told apart by its identity, not by timing)."""
    import threading

    from paytui.today.seen import SeenStore

    real = SeenStore.close
    closed_in: list[int] = []

    def close(store: SeenStore) -> None:
        closed_in.append(threading.get_ident())
        real(store)

    monkeypatch.setattr(SeenStore, "close", close)
    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        assert screen.items and not screen.reading
        assert len(closed_in) == 1 and threading.get_ident() not in closed_in


async def test_a_pushed_today_is_styled_once_as_it_mounts_not_again_on_its_first_resume(
    sandbox_transport: httpx.AsyncBaseTransport, monkeypatch: Any
) -> None:
    """Textual styles every node of a screen as it is registered, then again on the screen's
    first resume (`ScreenResume(refresh_styles=True)`; a mode's first visit resumes it twice):
    up to half the loop's longest step as Today is shown at 100,000 charges. Today's resumes
    before its first suspend do not (`StyledAtMount`); its nodes hold what a full restyle gives
    them; a resume after a suspend styles them again only when what styles them changed while
    it was hidden (`StyledWhileHidden`: here nothing did)."""
    from textual.dom import DOMNode

    from tests.ui.test_upstream_bugs import resumes_noted

    resumed = resumes_noted(monkeypatch)
    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)  # its mode's first visit (one or two resumes)
        assert screen.items
        first = [styles for resumed_screen, styles in resumed if resumed_screen is screen]
        assert first and not any(first)

        def rules() -> dict[DOMNode, Any]:
            return {node: node.styles.base.get_rules() for node in screen.walk_children()}

        styled = rules()
        screen.update_node_styles(animate=False)  # what the skipped restyle would have given
        assert rules() == styled
        await pilot.press("1")
        await settle(app, pilot)
        await pilot.press("0")
        await settle(app, pilot)
        assert app.screen is screen  # resumed after a suspend, nothing changed meanwhile
        again = [styles for resumed_screen, styles in resumed if resumed_screen is screen]
        assert again == [*first, False]
        styled = rules()
        screen.update_node_styles(animate=False)
        assert rules() == styled


async def test_the_lists_state_restyles_the_table_it_hides_not_the_whole_screen(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """today.tcss's rules on the list's state (`-loading`, ...) hide the table only: a change
    of state restyles the panel and the table (`LIST_STATE_STYLED`), not every node of the
    screen (tens of ms of the loop each time at 100,000 charges); the table still hides."""
    from textual.dom import DOMNode

    from paytui.ui.widgets.list_state import ListState

    app = make_app(sandbox_transport)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_today(app, pilot)
        restyled: list[DOMNode] = []
        real = app.stylesheet.update_nodes

        def update_nodes(nodes: Any, animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.extend(nodes)
            real(nodes, animate=animate)

        app.stylesheet.update_nodes = update_nodes  # type: ignore[method-assign]
        table = screen.query_one(NavTable)
        state = screen.query_one(ListState)
        state.show_loading("items")
        await pilot.pause()
        assert screen.has_class("-loading") and table.styles.display == "none"
        assert table in restyled and screen not in restyled
        state.show_results()
        await pilot.pause()
        assert table.styles.display == "block" and screen not in restyled
