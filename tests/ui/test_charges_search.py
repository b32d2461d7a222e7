"""Charge search against the seeded sandbox: queries, quick views, sorting, paging, copy, open."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from paytui.api.queries import CHARGEBACKS
from paytui.search.query import format_query
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charges import ChargeSearchScreen
from paytui.ui.widgets.charge_table import ChargeTable
from paytui.ui.widgets.query_input import QueryInput
from tests.ui.conftest import make_app, screen_text, settle

SIZE = (120, 40)


class CountingTransport(httpx.AsyncBaseTransport):
    """Records the charge searches that reach the sandbox; while `held` is an event, each
    search waits for it (a slow service, as slow as the test needs)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.searches: list[httpx.URL] = []
        self.held: asyncio.Event | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v2/charges" and request.method == "GET":
            self.searches.append(request.url)
            if self.held is not None:
                await self.held.wait()
        return await self.inner.handle_async_request(request)


@pytest.fixture
def counting(sandbox_transport: httpx.AsyncBaseTransport) -> CountingTransport:
    return CountingTransport(sandbox_transport)


def loaded(table: ChargeTable) -> list[Any]:
    """The charges of the pages in memory, in row order."""
    return [table.charge_at(row) for row in range(table.total) if table.charge_at(row) is not None]


async def open_app(pilot: Any, app: PaytuiApp) -> tuple[ChargeSearchScreen, ChargeTable]:
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ChargeSearchScreen)
    return screen, screen.query_one(ChargeTable)


async def type_query(pilot: Any, text: str, *, keys: bool = False) -> None:
    """`/` then the text: key by key (slow, the real thing) or pasted into the line."""
    await pilot.press("slash")
    query_input = pilot.app.screen.query_one(QueryInput)
    query_input.value = ""
    if keys:
        await pilot.press(*text)
    else:
        query_input.insert_text_at_cursor(text)


async def test_first_page_newest_first_and_showing_n_of_m(counting: CountingTransport) -> None:
    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_app(pilot, app)
        assert screen.state == "results"
        assert table.total == 3015
        rows = loaded(table)
        assert len(rows) == ChargeTable.PAGE_SIZE and len(counting.searches) == 1
        times = [c.charge_timestamp for c in rows]
        assert times == sorted(times, reverse=True)
        text = screen_text(app)
        assert "Showing" in text and "of 3,015" in text
        assert app.focused is table


async def test_typed_chargeback_query_shows_only_chargebacks(counting: CountingTransport) -> None:
    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        _screen, table = await open_app(pilot, app)
        await type_query(pilot, "status:chargeback", keys=True)
        await settle(app, pilot)
        # The table follows the typing; only queries that parse were sent: "s".."status" are
        # names, "status:", "status:c".."status:chargebac" do not parse.
        sent = counting.searches[1:]
        assert sent[-1].params["status"] == "chargeback"
        assert all(
            url.params.get("status") == "chargeback"
            or "status".startswith(url.params.get("contact_name", "-"))
            for url in sent
        )
        assert 0 < table.total < 3015
        assert {c.status for c in loaded(table)} == {"chargeback"}
        assert isinstance(app.focused, QueryInput)
        before = len(counting.searches)
        await pilot.press("enter")
        await settle(app, pilot)
        assert len(counting.searches) == before  # already shown: Enter sends nothing again
        assert app.focused is table  # Enter hands the keys to the results
        assert f"of {table.total:,}" in screen_text(app)


async def test_bad_query_is_underlined_explained_and_not_sent(counting: CountingTransport) -> None:
    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_app(pilot, app)
        await type_query(pilot, "method:bogus tag:vip")
        await settle(app, pilot)
        query_input = screen.query_one(QueryInput)
        assert query_input.error_spans == [(7, 12)]  # "bogus"
        styled = query_input._value
        assert any(span.start == 7 and span.end == 12 for span in styled.spans)
        assert "unknown method" in screen_text(app)
        await pilot.press("enter")
        await settle(app, pilot)
        assert len(counting.searches) == 1  # nothing sent
        # The rows of the search before are not this query's: they go, the text stays.
        assert table.total == 0 and query_input.value == "method:bogus tag:vip"
        # Fixing it clears the complaint.
        query_input.value = "method:card"
        await settle(app, pilot)
        assert query_input.error_spans == []
        assert "unknown method" not in screen_text(app)


async def test_a_status_paytui_does_not_know_is_searched_with_a_note(
    counting: CountingTransport,
) -> None:
    # Issue 38: the service decides its statuses; paytui says it does not know this one and
    # sends it (the sandbox, which has no `settled`, answers for itself).
    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        screen, _table = await open_app(pilot, app)
        await type_query(pilot, "status:settled")
        await settle(app, pilot)
        query_input = screen.query_one(QueryInput)
        assert query_input.error_spans == []
        assert "paytui does not know the status `settled`" in screen_text(app)
        assert counting.searches[-1].params["status"] == "settled"


async def test_quick_views(counting: CountingTransport) -> None:
    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_app(pilot, app)
        query_input = screen.query_one(QueryInput)

        await pilot.press("b")
        await settle(app, pilot)
        assert {c.status for c in loaded(table)} == {"chargeback"}
        assert query_input.value == format_query(CHARGEBACKS)
        chargebacks = table.total

        await pilot.press("R")
        await settle(app, pilot)
        returns = loaded(table)
        assert returns and {c.status for c in returns} == {"return"}
        assert {c.method for c in returns} == {"bank_account"}

        await pilot.press("O")
        await settle(app, pilot)
        auths = loaded(table)
        assert auths and {c.charge_type for c in auths} == {"authorization"}
        assert all(c.captured_charge_id is None for c in auths)
        assert counting.searches[-1].params["captured"] == "false"

        await pilot.press("a")
        await settle(app, pilot)
        assert table.total == 3015 and query_input.value == ""
        assert chargebacks != table.total


async def test_sorting_by_key_and_header_click(counting: CountingTransport) -> None:
    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        _screen, table = await open_app(pilot, app)
        await pilot.press("s")  # time -> charge id (ascending)
        await settle(app, pilot)
        assert counting.searches[-1].params["sort"] == "charge_id"
        ids = [c.charge_id for c in loaded(table)]
        assert ids == sorted(ids)
        await pilot.press("S")  # reverse
        await settle(app, pilot)
        assert counting.searches[-1].params["sort"] == "-charge_id"
        ids = [c.charge_id for c in loaded(table)]
        assert ids == sorted(ids, reverse=True)
        assert "Charge ▼" in screen_text(app)

        # Click the "Amount" header: sorted by amount, biggest first; click again: smallest first.
        header = screen_text(app).splitlines()
        row = next(i for i, line in enumerate(header) if "Amount" in line and "Time" in line)
        column = header[row].index("Amount")
        region = table.region
        await pilot.click(offset=(column + 1, region.y))
        await settle(app, pilot)
        assert counting.searches[-1].params["sort"] == "-total_amount"
        amounts = [c.total_amount for c in loaded(table)]
        assert amounts == sorted(amounts, reverse=True)
        await pilot.click(offset=(column + 1, region.y))
        await settle(app, pilot)
        assert counting.searches[-1].params["sort"] == "total_amount"
        assert "Amount ▲" in screen_text(app)


async def test_page_to_the_end_reaches_the_oldest_charge(
    counting: CountingTransport, sandbox_transport: httpx.AsyncBaseTransport
) -> None:
    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        _screen, table = await open_app(pilot, app)
        await pilot.press("G")
        await settle(app, pilot)
        assert table.cursor_row == 3014
        last = table.cursor_charge
        assert last is not None
        # The oldest charge, asked of the sandbox directly.
        client = await app.get_client()
        from paytui.api.queries import ChargeQuery

        oldest = await client.search_charges_page(ChargeQuery(sort="charge_timestamp"), limit=1)
        assert last.charge_id == oldest.items[0].charge_id
        assert "(rows 2," in screen_text(app) and "3,015)" in screen_text(app)
        assert len(counting.searches) <= 4  # first page, last page (+ a neighbour), the check
        # Walk back up 12 pages, more than the cache keeps, then home: memory stays bounded.
        # (Every page of a whole walk: tests/ui/test_charges_paging_whole.py.)
        for row in range(2899, 2899 - 12 * ChargeTable.PAGE_SIZE, -ChargeTable.PAGE_SIZE):
            table.cursor_row = row
            await settle(app, pilot)
            assert table.cursor_charge is not None
        await pilot.press("end", "home")
        await settle(app, pilot)
        assert table.cursor_row == 0
        assert table.pages_fetched > ChargeTable.MAX_PAGES  # so pages really were evicted
        assert table.cached_pages <= ChargeTable.MAX_PAGES
        assert table.cursor_charge is not None


async def test_y_copies_the_charge_id_and_says_so(app_factory: Any) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        _screen, table = await open_app(pilot, app)
        await pilot.press("j", "j")
        charge = table.cursor_charge
        await pilot.press("y")
        assert app.clipboard == charge.charge_id
        assert any(
            charge.charge_id in n.message and "Copied" in n.message for n in app._notifications
        )


async def test_markup_in_a_name_is_shown_literally(app_factory: Any) -> None:
    app = app_factory()
    async with app.run_test(size=(160, 40)) as pilot:
        _screen, table = await open_app(pilot, app)
        await type_query(pilot, "sort:name")  # "[" sorts before the letters
        await pilot.press("enter")
        await settle(app, pilot)
        assert table.charge_at(0).contact_name.startswith("[bold red]Mallory[/]")
        assert "[bold red]M" in screen_text(app)  # literal, even when the column cuts it


async def test_enter_opens_detail_and_escape_restores_the_row(app_factory: Any) -> None:
    app = app_factory()
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_app(pilot, app)
        await pilot.press("j", "j", "j", "j", "j")
        charge = table.cursor_charge
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is not screen
        assert type(app.screen).__name__ == "ChargeDetailScreen"
        assert charge.charge_id in screen_text(app)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        assert table.cursor_row == 5 and table.cursor_charge.charge_id == charge.charge_id
        assert app.focused is table


async def test_typing_a_first_name_shows_that_customers_charges(
    counting: CountingTransport,
) -> None:
    """`/` then a first name, no Enter: the table follows; the letters (`s` sorts, `r`
    reloads, `d`, `g`, `e` are keys too) land in the line and fire nothing."""
    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_app(pilot, app)
        await type_query(pilot, "Edsger", keys=True)
        await settle(app, pilot)
        query_input = screen.query_one(QueryInput)
        assert query_input.value == "Edsger" and app.focused is query_input
        assert app.screen is screen and screen._sort is None
        assert counting.searches[-1].params["contact_name"] == "Edsger"
        names = {c.contact_name for c in loaded(table)}
        assert names == {"Edsger Dijkstra"} and 0 < table.total < 3015
        assert "Edsger Dijk" in screen_text(app)


async def test_a_slow_search_says_searching_and_a_quick_one_paints_its_rows(
    counting: CountingTransport,
) -> None:
    """The status line says "searching…" after `SEARCHING_AFTER`: a quick answer is one frame
    after the key's echo, a slow one is said until its rows come. Slow: the search is held until
    "searching…" was seen (a service answering after a fixed second could, on a loaded machine,
    answer before the test looked)."""
    from textual.widgets import Static

    app = make_app(counting)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_app(pilot, app)
        status = screen.query_one("#page-status", Static)
        counting.held = asyncio.Event()
        await type_query(pilot, "status:chargeback")
        for _ in range(400):
            if "searching…" in str(status.content):
                break
            await pilot.pause(0.01)
        assert "searching…" in str(status.content), "a held search said nothing"
        counting.held.set()
        await settle(app, pilot)
        assert "searching…" not in str(status.content)
        assert {c.status for c in loaded(table)} == {"chargeback"}


async def test_an_invalid_query_does_not_keep_the_rows_of_the_one_before(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """Under "'abc' is not an amount" the chargebacks of the query before read as its answer:
    they go, the panel says nothing was searched, and the fixed query brings rows back."""
    app = make_app(sandbox_transport)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await open_app(pilot, app)
        await type_query(pilot, "status:chargeback")
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen.state == "results" and table.total > 0
        before = [row.charge_id for row in loaded(table)]

        await type_query(pilot, "status:chargeback amount>=abc")
        await settle(app, pilot)
        text = screen_text(app)
        assert "'abc' is not an amount" in text
        assert "Nothing searched: the query has an error" in text
        assert screen.state == "empty" and table.total == 0
        assert not any(charge_id in text for charge_id in before)

        await pilot.press("enter")  # Enter on it: still nothing searched, nothing shown
        await settle(app, pilot)
        assert screen.state == "empty" and table.total == 0

        query_input = screen.query_one(QueryInput)
        query_input.value = "status:chargeback"  # back to the query shown before
        await settle(app, pilot)
        assert screen.state == "results" and table.total > 0
        assert "Nothing searched" not in screen_text(app)


async def test_a_list_of_chargebacks_shows_each_case(counting: CountingTransport) -> None:
    """`status:chargeback` adds the Case column: each row's reason in the network's words,
    stage, status, age and time left (docs/today.md, "The case"); another list has none."""
    app = make_app(counting)
    async with app.run_test(size=(160, 40)) as pilot:
        _screen, table = await open_app(pilot, app)
        assert "case" not in [c.key for c in table.columns]
        await type_query(pilot, "status:chargeback", keys=True)
        await settle(app, pilot)
        assert "case" in [c.key for c in table.columns]
        text = " ".join(screen_text(app).split())
        assert " Case " in text
        # What to scan first first: status, time left, age, then the reason in the network's words.
        assert "open · ≈ overdue 30 min · 8 d old · Visa 11.3 No Authorization" in text
        assert "lost · 11 d old · Visa 13.3 Not as Described" in text  # closed: no time left
        # Each card's chargeback in its own network's code and words (the demo's history too).
        assert "lost · 12 d old · Mastercard 4837 No Cardholder" in text
        assert "won · 30 d old · Discover DP Duplicate Processing" in text
        assert "not a Discover code" not in text and "not a Mastercard code" not in text


async def test_paytuis_own_filters_list_only_proven_rows(counting: CountingTransport) -> None:
    """`dispute:lost` (sent as status=chargeback, each row proven here) and `-status:declined`
    (never sent): every row loaded is proven, by the rule the State column shows."""
    from paytui.charge_state import dispute_state

    app = make_app(counting)
    async with app.run_test(size=(160, 40)) as pilot:
        _screen, table = await open_app(pilot, app)
        await type_query(pilot, "dispute:lost", keys=True)
        await settle(app, pilot)
        assert counting.searches[-1].params["status"] == "chargeback"
        rows = loaded(table)
        assert rows and {dispute_state(c) for c in rows} == {"lost"}
        assert "case" in [c.key for c in table.columns]
        assert not table.unproven
        await type_query(pilot, "-status:declined", keys=True)
        await settle(app, pilot)
        assert "status" not in counting.searches[-1].params
        rows = loaded(table)
        assert rows and "declined" not in {c.status for c in rows}
        assert len(rows) >= ChargeTable.PAGE_SIZE  # pages are filled after rows are left out


async def test_help_on_the_search_lists_the_language(counting: CountingTransport) -> None:
    """`?` on the charge search: its keys, then the search language's keys from its one table,
    the money-state filters and the excluding ones included."""
    from paytui.search.query import KEYS
    from paytui.ui.screens.help import HelpScreen

    app = make_app(counting)
    async with app.run_test(size=(120, 60)) as pilot:
        _screen, table = await open_app(pilot, app)
        table.focus()
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        notes = app.screen.notes
        assert notes is not None
        for key in KEYS:
            assert f"\n{key}:" in "\n" + notes.plain
        assert "-tag:vip and -status:declined exclude" in notes.plain
        assert "refunded:  full, partial, none" in notes.plain
