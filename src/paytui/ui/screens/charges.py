"""The charge search screen: a query line, quick views and a lazily paged results table.

The flow a support agent follows: `/`, type `Edsger` or `status:chargeback tag:vip` (the table
follows the query as it is typed), Enter to hand the keys to the table, `j`/`k` to the charge,
Enter to open it, `escape` to come back to the same row. Everything that talks to the API runs in
a worker (`exclusive=True` per purpose, so a new search cancels a stale one); what the user typed
is never touched by an error.

Search as you type: a key after a pause starts the "search" worker, which cancels the one before
it (its request), and is parsed and sent at once; a key within `TYPE_DELAY` of the one before
only restarts one timer, so a burst of keys (or a paste) sends one request once it pauses, and
costs the same per key at any length of the query. Only a query that parses is sent; the
parser's complaints are underlined.

Why one module of more than 800 lines: the charge search is one screen whose query line, quick
views and table share one state (the query in force, the search worker, the held keys); the table,
the marks and the row actions already live in `widgets/charge_table.py`, `marks.py` and
`charge_rows.py`.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Static, TextArea

from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.claims import claim_next, claim_or_release, read_claims
from paytui.ui.held_keys import bound_to
from paytui.ui.running_app import paytui_app, still_shown
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.textual_fixes import Late
from paytui.ui.widgets.charge_table import (
    CLAIMED,
    CLAIMED_MINE,
    COLUMNS,
    PRESENT,
    SORT_FIELDS,
    UNPROVEN,
    ChargeTable,
)
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState, showing
from paytui.ui.widgets.query_input import LEAVE_KEYS, CompletionSuggester, QueryInput

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.worker import Worker

    from paytui.actions.claims import Claim
    from paytui.api.models import Charge, Page
    from paytui.api.queries import ChargeQuery
    from paytui.ui.held_keys import Bound

DEFAULT_SORT = "-charge_timestamp"
#: "Mark all matching" reads every page: beyond this many, narrow the search first.
MARK_ALL_LIMIT = 5000
#: Rows per request when "mark all matching" reads every page: more than the table's page (which
#: is sized for the screen and for the keystroke), so a long search is fewer round trips.
MARK_ALL_PAGE_SIZE = 100
#: The rows on screen whose refunds one batch reads (`_read_window_refunds`), and how many of
#: those reads are under way at once.
REFUNDS_BATCH = 8
REFUNDS_AT_ONCE = 4
#: What the list says while the query line holds an error (the rows before it are gone).
INVALID_QUERY = "Nothing searched: the query has an error (above). Fix it and the list follows."

#: name -> title of each quick view (its query is the api layer's constant of the same name)
QUICK_VIEWS: dict[str, str] = {
    "all": "All charges",
    "chargebacks": "Chargebacks",
    "ach_returns": "ACH returns",
    "open_authorizations": "Open authorizations",
}


def quick_view_query(name: str) -> ChargeQuery:
    """The `ChargeQuery` of a quick view: the api layer's constant (`ALL`, `CHARGEBACKS`, ...)."""
    from paytui.api import queries

    return {
        "all": queries.ALL,
        "chargebacks": queries.CHARGEBACKS,
        "ach_returns": queries.ACH_RETURNS,
        "open_authorizations": queries.OPEN_AUTHORIZATIONS,
    }[name]


def format_query(query: ChargeQuery) -> str:
    from paytui.search.query import format_query as fmt

    return fmt(query)


CHARGES_BINDINGS: list[Binding] = [
    # Capture and refund first: the footer shows a screen's own actions in this order.
    Binding(
        "c",
        "capture",
        "Capture",
        id="charges.capture",
        tooltip="Capture the highlighted authorization (needs urn:v2:charges:all)",
    ),
    Binding(
        "r",
        "refund",
        "Refund",
        id="charges.refund",
        tooltip="Refund the highlighted charge (needs urn:v2:refunds:all)",
    ),
    # Priority: taken when the app takes the key, so the letters pasted after it already find
    # the query line (the screen stands it down while a field has focus: there "/" is text).
    Binding(
        "slash",
        "focus_query",
        "Search",
        id="charges.search",
        tooltip="Type a query",
        priority=True,
    ),
    Binding("a", "quick_view('all')", "All", id="charges.view_all", tooltip="All charges"),
    Binding(
        "b",
        "quick_view('chargebacks')",
        "Chargebacks",
        id="charges.view_chargebacks",
        tooltip="Charges with a chargeback",
    ),
    Binding(
        "R",
        "quick_view('ach_returns')",
        "ACH returns",
        id="charges.view_returns",
        tooltip="Bank-account charges that came back",
    ),
    Binding(
        "O",
        "quick_view('open_authorizations')",
        "Open auths",
        id="charges.view_open_auths",
        tooltip="Authorized and not yet captured",
    ),
    Binding("s", "cycle_sort", "Sort", id="charges.sort", tooltip="Sort by the next column"),
    Binding("S", "reverse_sort", "Reverse", id="charges.sort_reverse", show=False),
    Binding("y", "copy_id", "Copy id", id="charges.copy_id", tooltip="Copy the charge id"),
    Binding(
        "Y",
        "copy_json",
        "Copy JSON",
        id="charges.copy_json",
        tooltip="Copy the highlighted charge as JSON",
        show=False,
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="charges.refresh", tooltip="Reload / retry"),
    # Marks and bulk actions (docs/bulk-actions.md).
    Binding(
        "space",
        "toggle_mark",
        "Mark",
        id="charges.mark",
        tooltip="Mark or unmark the highlighted charge (for a bulk action)",
        show=False,
    ),
    Binding("U", "clear_marks", "Clear marks", id="charges.clear_marks", show=False),
    # Claims (docs/team.md): the other agents see who works on a charge, and are warned.
    Binding(
        "m",
        "claim",
        "Claim",
        id="charges.claim",
        tooltip="Claim the highlighted charge (others see it and are warned), or release yours",
        show=False,
    ),
    Binding(
        "ctrl+n,ctrl+g",  # ctrl+g in a browser, which keeps ctrl+n (a new window)
        "claim_next",
        "Claim next free",
        id="charges.claim_next",
        tooltip="Claim the first charge from the cursor down that nobody has claimed; go to it",
        show=False,
    ),
    Binding(
        "M",
        "mark_all",
        "Mark all matching",
        id="charges.mark_all",
        tooltip="Mark every charge of this search, every page (shows the count first)",
        show=False,
    ),
    Binding(
        "C",
        "bulk_capture",
        "Bulk capture",
        id="charges.bulk_capture",
        tooltip="Capture the marked authorizations: dry run, confirm, progress",
        show=False,
    ),
    Binding(
        "B",
        "bulk_refund",
        "Bulk full refund",
        id="charges.bulk_refund",
        tooltip="Refund the marked charges in full: dry run, confirm, progress",
        show=False,
    ),
    Binding(
        "W",
        "save_search",
        "Save search",
        id="charges.save_search",
        tooltip="Save this query under a name (in the config)",
        show=False,
    ),
    Binding(
        "z",
        "duplicates",
        "Charged twice?",
        id="charges.duplicates",
        tooltip="Likely duplicates of the highlighted charge (same card, amount, account)",
        show=False,
    ),
    Binding(
        "E",
        "evidence",
        "Evidence pack",
        id="charges.evidence",
        tooltip="The highlighted chargeback's evidence pack, with what is missing",
        show=False,
    ),
    Binding(
        "H",
        "customer",
        "Customer",
        id="charges.customer",
        tooltip="The payer's charges, refunds, chargebacks and tokens, with totals",
        show=False,
    ),
    Binding(
        "x",
        "export",
        "Export",
        id="charges.export",
        tooltip="Export the whole search (every page) to CSV or JSON Lines",
    ),
]


class ChargeSearchScreen(PaytuiScreen[None]):
    """Search, browse and open charges."""

    class Prefill(Message):
        """Put `query` (a `ChargeQuery`) in the query line and run it (an account's charges)."""

        def __init__(self, query: ChargeQuery) -> None:
            super().__init__()
            self.query = query

    CSS_PATH = Path(__file__).with_name("charges.tcss")  # absolute: subclasses elsewhere work
    #: No rule of charges.tcss depends on the list's state: a search's loading / results /
    #: empty restyles the state panel only, not the whole screen (`widgets.list_state`).
    LIST_STATE_STYLED = False
    BINDINGS: ClassVar[list[BindingType]] = [*CHARGES_BINDINGS]
    HELP_TITLE = "Charge search"
    COMMAND_SCOPE = "charges"
    AUTO_FOCUS = "ChargeTable"
    TYPE_DELAY = 0.08
    """A key this soon after the one before waits this long before its query is sent (a burst
    of keys sends one search); a key after a longer pause is sent at once."""
    SEARCHING_AFTER = 0.15
    """Seconds a search as you type runs before the status line says "searching…"."""
    PREVIEW_STANDS = 5.0
    """Seconds the first-page child's rows stand at most while this screen's own first search
    has not answered (`_show_first_page`)."""
    TAKEN_WITHOUT_ROWS = frozenset(
        {
            "focus_query",
            "quick_view",
            "cycle_sort",
            "reverse_sort",
            "refresh",
            "save_search",
            "export",
        }
    )
    """This screen's actions that need no row: taken at once while rows are on their way (a
    query typed, another view or sort: the search under way gives way to it; an export, which
    reads every page of the query itself). Every other key
    of the list waits for the rows (`holds_key`)."""

    def __init__(self) -> None:
        super().__init__()
        self._query: ChargeQuery | None = None
        """The last query sent (what the table shows, or what failed)."""
        self._sort: str | None = None
        """The user's sort, overriding the query's (None: the query's own, else newest first)."""
        self._view_title = QUICK_VIEWS["all"]
        self._refunds_reader_on = False
        """`_read_window_refunds` runs: it follows the window itself, no other one starts."""
        self._refunds_look_pending = False
        """A look at the rows on screen for refunds to read waits for the next refresh
        (`_read_window_refunds_soon`): one is enough, it reads the window as it is then."""
        self.monotonic: Callable[[], float] = time.monotonic
        """The clock a burst is told by (a test gives one that stands still, so what counts as
        a burst does not depend on how fast the machine handles the keys)."""
        self._last_key = 0.0
        """`monotonic()` of the last change of the query line."""
        #: The query line's text waiting for a pause in typing, and the one worker that waits.
        self._typed = ""
        self._typing_wait: Worker[None] | None = None
        self._shown: ChargeQuery | None = None
        """The query whose results the table shows (None: none yet, or an error)."""
        self._focus_results_after_search = False
        self._mark_all_armed: tuple[Any, int] | None = None
        """`M` pressed once: (the query, its count) that a second `M` marks."""
        self._notes = Text("")
        """The list's notes on the summary line (a filter ignored, paging stopped)."""
        self._searches = 0
        """Searches started (`_fetch`): the first-page child's rows stand for the first only."""
        self._preview_cursor: str | None = None
        """The charge the cursor was on when the preview gave way to waiting: the first
        search's rows put it there again (moves typed on the preview are not lost)."""
        self._first_rows_awaited = True
        """No search has answered yet (rows, none, or an error): keys for the list wait."""
        self._submitting = False
        """Enter went to the query line and its `Input.Submitted` is not handled yet: the keys
        after it wait (they are for the results, or for the line again if it does not parse)."""

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        with Vertical(id="query-bar"):
            yield QueryInput(
                placeholder="/ search: status:chargeback tag:vip amount>=25 from:2026-01-01 …",
                id="query",
                suggester=self._suggester(),
            )
            yield Static(Text(""), id="query-error")
        with Horizontal(id="summary"):
            yield Static(Text(self._view_title), id="view-name")
            yield Static(Text(""), id="page-status")
            yield Static(Text(""), id="marks")
            yield Static(Text("Showing 0 of 0"), id="showing")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield ChargeTable(id="results")
        yield PaytuiFooter()

    @staticmethod
    def _suggester() -> CompletionSuggester:
        """Completions of the search language, imported on the first key typed (the first page
        does not need the parser)."""

        def complete(text: str, cursor: int) -> list[str]:
            from paytui.search.query import complete

            return complete(text, cursor)

        def apply(text: str, cursor: int, suggestion: str) -> tuple[str, int]:
            from paytui.search.query import apply_completion

            return apply_completion(text, cursor, suggestion)

        return CompletionSuggester(complete, apply)

    def on_mount(self) -> None:
        self._search(None)
        if paytui_app(self).first_page is not None:
            self._show_first_page()
        self.app.charges_changed.subscribe(self, self._charges_changed)
        self.app.presence_changed.subscribe(self, self._presence_changed)

    def _presence_changed(self, people: dict[str, Any]) -> None:
        """Who else has which charge open changed: the rows and the summary line show it."""
        self.query_one(ChargeTable).set_presence(people)
        self._show_status()

    @work(group="first-page")
    async def _show_first_page(self) -> None:
        """The first page as the first-page child read it (`paytui.ui.first_page`), shown while
        this screen's own first search waits for the client; that search replaces it. Only if
        nothing else was asked for meanwhile (a query typed, a sort, a view) and nothing shown."""
        prefetch = paytui_app(self).first_page
        if prefetch is None or prefetch.taken:  # once: not for a screen built later (a switch)
            return
        prefetch.taken = True
        first = await prefetch.result()
        if (
            first is None
            or not first.rows
            or first.page_size != ChargeTable.PAGE_SIZE
            or self._shown is not None
            or self.state != "loading"
            or self._searches != 1  # another search was asked for since the first
            or self._sort is not None
            or self.query_one(QueryInput).value.strip()
        ):
            return
        table = self.query_one(ChargeTable)
        table.show_preview(first, sort=DEFAULT_SORT)
        self.query_one(ListState).show_results()
        # The service's own answer replaces it within a second or so; one that does not come
        # (a sandbox that never starts) leaves the list waiting, not showing a read-ahead.
        self.set_timer(self.PREVIEW_STANDS, self._preview_stood)
        if self.focused is None:
            table.focus()
        paytui_app(self).release_held_keys()  # moves typed at "Loading charges…" take its rows
        self.call_after_refresh(self.post_message, messages.ResultsPainted(first.total))

    # --- keys typed before the rows they act on (`paytui.ui.held_keys`) ----------------------
    def holds_key(self, key: str) -> bool:
        """Whether `key`, typed now, waits for rows on their way (the App holds it, and all
        typed after it, until `release_held_keys`): at the start, until the first search
        answers, every key of the list (moves only on a preview's rows, which take them) but
        not the query line's, the app's or `TAKEN_WITHOUT_ROWS`; after Enter in the query line,
        every key until the line has taken the Enter (`on_input_submitted`) and the results it
        handed the keys to are shown. Rows are awaited only while a search is in flight: a
        search that ends in whatever way releases them (`on_worker_state_changed`).
        """
        if self._submitting:
            return True
        if key in {"enter", *LEAVE_KEYS} and isinstance(self.focused, QueryInput):
            # The line takes it in its own turn, after the App has taken the keys behind it:
            # those wait until it has (focus moves to the results, or a search starts). A key
            # that leaves the line (down, escape) likewise: "?" typed right after down is for
            # the results, not a character of the query.
            self._submitting = True
            return False
        if not (self._first_rows_awaited or self._focus_results_after_search):
            return False
        searching = (w for w in self.workers if w.node is self and w.group == "search")
        if all(worker.is_finished for worker in searching):
            return False
        if self._focus_results_after_search:
            return True  # Enter handed the keys to the results: what follows is meant for them
        return self._needs_rows(bound_to(self, key))

    def _needs_rows(self, bound: Bound | None) -> bool:
        if isinstance(self.focused, Input | TextArea):
            return False  # the query line takes its text (and Enter) now
        if bound is not None and bound.node is self.app:
            return False  # 1-5, ?, :, q, n: no row needed
        if bound is not None and bound.node is self:
            return bound.action not in self.TAKEN_WITHOUT_ROWS
        table = self.query_one(ChargeTable)
        if bound is not None and bound.node is table and bound.action in table.MOVES:
            return not table.previewing  # a preview's rows take moves; no rows at all, none
        return True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "search" and event.worker.is_finished:
            paytui_app(self).release_held_keys()

    def _charges_changed(self, charge_ids: tuple[str, ...]) -> None:
        """An action changed charges: read the page again where the cursor is (a captured
        authorization leaves the open-authorizations view and the count drops)."""
        self._stale = True
        if self.is_current:
            self.on_screen_resume()

    def on_screen_resume(self) -> None:
        """Read again what changed while another screen was on top (runs besides the base's):
        the charges if an action changed one, else the claims (one was claimed in a detail)."""
        if getattr(self, "_stale", False) and self.state in {"results", "empty"}:
            self._stale = False
            self._search(self._query, cursor=self.query_one(ChargeTable).cursor_row)
        elif self.state == "results" and self.app.actions.ready is not None:
            self._read_claims(self.query_one(ChargeTable).loaded_ids())

    # --- state ----------------------------------------------------------------------------------
    @property
    def state(self) -> str:
        """loading | results | empty | error (the list kit's panel holds it)."""
        return self.query_one(ListState).state

    def _show_loading(self) -> None:
        self.query_one(ListState).show_loading("charges")

    def _show_error(self, exc: BaseException) -> None:
        self._first_rows_awaited = self._focus_results_after_search = False
        info = self.query_one(ListState).show_failed(
            exc, otherwise="Change the query and press Enter."
        )
        self.query_one(ChargeTable).clear()
        self._set_text("#showing", showing(0, 0))
        self.app.notify(info.message, title=info.title, severity="error", markup=False)

    def _show_empty(self, text: str) -> None:
        message = Text("No charges match ")
        message.append_text(fmt.literal(text or "this view", style="bold"))
        message.append(".\nPress / to change the query, or a for all charges.")
        self.query_one(ListState).show_empty(message)

    def _show_invalid(self) -> None:
        """The line holds a query with an error: the rows of the search before are not its
        rows, so they go (under the error they read as its answer); the panel says why."""
        if self._shown is None and self.state == "empty" and not self.query_one(ChargeTable).total:
            return  # already said: nothing to clear
        self._shown = None
        self._first_rows_awaited = self._focus_results_after_search = False
        self.query_one(ChargeTable).clear()
        self._set_text("#showing", showing(0, 0))
        self._page_status(Text(""))
        self.query_one(ListState).show_empty(INVALID_QUERY)

    # --- searching ------------------------------------------------------------------------------
    def _effective(self, query: ChargeQuery) -> ChargeQuery:
        if self._sort is None:
            return query
        return query.model_copy(update={"sort": self._sort})

    def help_notes(self) -> Text:
        """`?` on the charge search: the keys of the search language besides the screen's keys,
        from the language's one table (`paytui.search.query.KEYS`, docs/search.md)."""
        from paytui.search.query import KEYS

        text = Text("Search (docs/search.md): terms AND together; ", style="bold")
        text.append("-tag:vip and -status:declined exclude\n", style="bold")
        for key, words in KEYS.items():
            text.append(f"{key + ':':<10}", style="bold")
            text.append(f" {words}\n")
        return text

    def _case_columns(self, table: ChargeTable, query: ChargeQuery) -> None:
        """A list of chargebacks (`status:chargeback`, `dispute:open|won|lost`) shows each row's
        case (`paytui.today.cases`) in a Case column; any other list, the usual columns."""
        from paytui.ui.widgets.charge_table import CASE_COLUMNS, COLUMNS

        disputes = query.status == "chargeback" or query.dispute_state in {"open", "won", "lost"}
        table.columns = CASE_COLUMNS if disputes else COLUMNS
        table.case_of = self._case_cell if disputes else None

    def _case_cell(self, charge: Any) -> Text:
        """A row's Case cell: its open (else newest) chargeback in one line, "+N" for more."""
        from paytui.config.model import TodayPrefs
        from paytui.today.cases import first_case

        connection = paytui_app(self).session.connection
        prefs = connection.today if connection is not None else TodayPrefs()
        now = self.app.now()
        case, count = first_case(charge, now, prefs)
        if case is None:
            return Text("—")
        more = f" (+{count - 1})" if count > 1 else ""
        return Text(safe(case.row_line(now)) + more)

    def _search(self, query: ChargeQuery | None, *, cursor: int = 0) -> None:
        self._show_loading()
        self.run_search(query, cursor)

    @work(exclusive=True, group="search")
    async def run_search(self, query: ChargeQuery | None, cursor: int = 0) -> None:
        """Fetch the first page (for the states and the total); the table fetches the rest."""
        await self._fetch(query, cursor)

    async def _fetch(self, query: ChargeQuery | None, cursor: int = 0) -> None:
        """The body of a search worker (`run_search`, `search_as_typed`): one at a time."""
        table = self.query_one(ChargeTable)
        self._shown = None
        self._searches += 1
        if self._searches > 1:
            self._drop_preview()
        try:
            client = await self.app.get_client()
            if query is None:
                query = quick_view_query("all")
            self._query = query
            effective = self._effective(query)
            page = await client.search_charges_page(
                effective, limit=ChargeTable.PAGE_SIZE, offset=0
            )
        except Exception as exc:
            if self._standing():
                self._show_error(exc)
            return
        if not self._standing():
            return

        async def loader(offset: int, limit: int) -> Page[Charge]:
            api = await self.app.get_client()
            return await api.search_charges_page(effective, limit=limit, offset=offset)

        if (
            page.ignored_filters
            or effective.filters_here  # paytui's own filters leave rows out of any page
            or (page.has_more and page.next_offset < ChargeTable.PAGE_SIZE)
        ):
            # Rows the service sent that a filter excludes were left out (applied here), or it
            # sent fewer rows than asked (a smaller page size, or paging it ignores): the
            # table's page n is no longer the service's page n, so pages are filled from the
            # service's pages read in order (`FilledPages`), the first one included; its count
            # is claimed only once the rows were reached.
            from paytui.api.filled import FilledPages

            filled = FilledPages(loader, page)
            loader = filled.page
            try:
                page = await filled.page(0, ChargeTable.PAGE_SIZE)
            except Exception as exc:
                self._show_error(exc)
                return
        at = self._preview_cursor if self._searches == 1 else None
        self._case_columns(table, effective)
        table.show(loader, page, sort=effective.sort or DEFAULT_SORT, cursor=cursor, at=at)
        self._shown = query
        # A filter the service ignored is said, not hidden: these rows may not match the query.
        # So is a list that stopped before its end (the service ignores paging).
        ignored = page.ignored_note
        if ignored and page.unproven:  # the rows themselves carry the sign (`ChargeTable`)
            ignored = f"{UNPROVEN} {ignored}"
        notes = [note for note in (page.paging_note, ignored) if note]
        self._page_status(fmt.literal(" · ".join(notes), style="bold"))
        if page.total == 0 or (page.total is None and not page.items):
            self._show_empty(self.query_one(QueryInput).value.strip())
        else:
            self.query_one(ListState).show_results()
        if self._focus_results_after_search or self.focused is None:
            table.focus()
        self._first_rows_awaited = self._focus_results_after_search = False
        self.call_after_refresh(self.post_message, messages.ResultsPainted(page.total))

    def _parse(self, text: str) -> Any:
        from paytui.search.query import parse

        return parse(text, now=paytui_app(self).now())

    def _show_parse_errors(self, result: Any, text: str) -> bool:
        """Underline and explain the parser's complaints; True when the text is sendable."""
        errors = list(getattr(result, "errors", None) or [])
        query_input = self.query_one(QueryInput)
        query_input.set_error_spans([(e.start, e.end) for e in errors])
        if errors:
            first = errors[0]
            line = fmt.literal(first.message)
            snippet = text[first.start : first.end]
            if snippet:
                line = Text.assemble(fmt.literal(snippet, style="bold"), ": ", line)
            if len(errors) > 1:
                line.append(f"  (+{len(errors) - 1} more)")
            self._set_text("#query-error", line)
        else:
            # A note never stops the search ("paytui does not know the status `settled`; the
            # service will decide"): it is said, dim, where a problem would be.
            notes = list(getattr(result, "notes", None) or [])
            self._set_text("#query-error", fmt.literal("; ".join(notes), style="warning"))
        # On the line, not the screen: a class on the screen restyles every widget of it, which
        # was most of the time between the key that fixes a query and its request.
        query_input.set_class(bool(errors), "-query-invalid")
        return not errors

    def _preview_stood(self) -> None:
        """The service's answer has not come in `PREVIEW_STANDS`: the list waits again, and
        its rows will put the cursor back on the charge it was on."""
        table = self.query_one(ChargeTable)
        row = table.row_at(table.cursor_row) if table.previewing else None
        self._preview_cursor = getattr(row, "charge_id", None)
        self._drop_preview()

    def _drop_preview(self) -> None:
        """Another search was asked for: the first-page child's rows stood for the first
        search only."""
        table = self.query_one(ChargeTable)
        if table.previewing:
            table.clear()
            self._show_loading()

    def on_input_changed(self, event: Input.Changed) -> None:
        """A key in the query line. Within `TYPE_DELAY` of the one before, it only restarts one
        timer (the search follows the pause); the first key of a burst stops the search in
        flight. A key costs the same whatever the query's length: a worker per key (each one
        cancelling all those before it, still queued in a burst) cost 6 ms a key at 1,500."""
        if event.input.id != "query":
            return
        self._drop_preview()
        now = self.monotonic()
        burst = now - self._last_key < self.TYPE_DELAY
        self._last_key = now
        self._typed = event.value
        if not burst:
            self._stop_typing_wait()
            self.search_as_typed(event.value)
            return
        if self._typing_wait is None or self._typing_wait.is_finished:
            self.workers.cancel_group(self, "search")  # the results of a query being replaced
            self._typing_wait = self._await_pause()

    def _stop_typing_wait(self) -> None:
        if self._typing_wait is not None:
            self._typing_wait.cancel()
            self._typing_wait = None

    @work(group="typing")
    async def _await_pause(self) -> None:
        """Wait until no key came for `TYPE_DELAY` (each key moves `_last_key`), then search
        the line's latest text. One worker for a whole burst, whatever its length."""
        while (left := self._last_key + self.TYPE_DELAY - self.monotonic()) > 0:
            await asyncio.sleep(left)
        self._typing_wait = None
        self.search_as_typed(self._typed)

    @work(exclusive=True, group="search")
    async def search_as_typed(self, text: str) -> None:
        """Follow the query line: parse, underline, and send the query when it parses and
        differs from what the table shows. The next key cancels this (its request)."""
        result = self._parse(text)
        if not self._show_parse_errors(result, text):
            self._show_invalid()
            return
        if result.query == self._shown:
            return
        if result.partial:  # `status:charg`: the rest of a status is coming (Enter sends it)
            return
        self._use_query(result.query, text)
        # Said only when the answer is slow: painted at once it was a frame of its own between
        # the key's echo and the rows, in the time of the search (`docs/performance.md`).
        searching = Late(
            self, self.SEARCHING_AFTER, lambda: self._page_status(Text("searching…", style="dim"))
        )
        try:
            await self._fetch(result.query)
        finally:
            searching.stop()

    def _use_query(self, query: ChargeQuery, text: str) -> None:
        """The line's query becomes the view (its title; a sort typed in it wins over `s`'s)."""
        self._view_title = "Search" if text.strip() else QUICK_VIEWS["all"]
        self._set_text("#view-name", Text(self._view_title), layout=True)
        if query.sort:
            self._sort = None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "query":
            return
        event.stop()
        try:
            self._submit(event.value)
        finally:
            self._submitting = False
            paytui_app(self).release_held_keys()

    def _submit(self, text: str) -> None:
        """Enter in the query line: search now, the results taking the keys once shown."""
        self._stop_typing_wait()  # Enter searches now; the pause it waited for is moot
        result = self._parse(text)
        if not self._show_parse_errors(result, text):
            self.workers.cancel_group(self, "search")
            self._show_invalid()
            self.app.bell()
            return
        if result.query == self._shown and self.state in {"results", "empty"}:
            # Typing already shows it: Enter only hands the keys to the results.
            self.query_one(ChargeTable).focus()
            return
        self._use_query(result.query, text)
        self._focus_results_after_search = True
        self._search(result.query)

    def on_charge_search_screen_prefill(self, message: ChargeSearchScreen.Prefill) -> None:
        message.stop()
        text = format_query(message.query)
        query_input = self.query_one(QueryInput)
        with query_input.prevent(Input.Changed):
            query_input.value = text
        self._show_parse_errors(None, text)
        self._view_title = "Search"
        self._set_text("#view-name", Text(self._view_title), layout=True)
        self._focus_results_after_search = True
        self._search(message.query)

    def on_query_input_leave(self, event: QueryInput.Leave) -> None:
        # Focus moves now (`Widget.focus` defers it): the keys held behind the one that left
        # the line are replayed next, and must find the results.
        self.set_focus(self.query_one(ChargeTable))
        self._submitting = False
        paytui_app(self).release_held_keys()

    # --- actions --------------------------------------------------------------------------------
    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_query" and isinstance(self.focused, Input | TextArea):
            return False  # a field has focus: "/" is a character there, not a command
        if action == "claim_next":
            return True if self.state == "results" else None
        return super().check_own_action(action, parameters)

    def action_focus_query(self) -> None:
        # Focus moves now, not on the next idle (`Widget.focus` defers it): keys pasted with the
        # slash are taken one by one, and the next one must already find the query line.
        query_input = self.query_one(QueryInput)
        self.set_focus(query_input)
        query_input.cursor_position = len(query_input.value)

    def action_quick_view(self, name: str) -> None:
        """Put the view's query in the line (so it can be refined) and run it."""
        query = quick_view_query(name)
        text = format_query(query)
        query_input = self.query_one(QueryInput)
        with query_input.prevent(Input.Changed):
            query_input.value = text
        self._show_parse_errors(None, text)
        self._view_title = QUICK_VIEWS[name]
        self._set_text("#view-name", Text(self._view_title), layout=True)
        self._search(query)

    def _current_sort(self) -> str:
        if self._sort:
            return self._sort
        return (self._query.sort if self._query is not None else None) or DEFAULT_SORT

    def _sort_by(self, field: str, descending: bool) -> None:
        self._sort = f"-{field}" if descending else field
        column = next(c for c in COLUMNS if c.sort == field)
        self.app.notify(
            f"Sorted by {column.label.lower()}, {'descending' if descending else 'ascending'}",
            timeout=2,
            markup=False,
        )
        self._search(self._query)

    def action_cycle_sort(self) -> None:
        field = self._current_sort().lstrip("-")
        index = SORT_FIELDS.index(field) if field in SORT_FIELDS else -1
        new_field = SORT_FIELDS[(index + 1) % len(SORT_FIELDS)]
        column = next(c for c in COLUMNS if c.sort == new_field)
        self._sort_by(new_field, column.descending_first)

    def action_reverse_sort(self) -> None:
        current = self._current_sort()
        self._sort_by(current.lstrip("-"), not current.startswith("-"))

    def on_charge_table_sort_requested(self, event: ChargeTable.SortRequested) -> None:
        current = self._current_sort()
        if current.lstrip("-") == event.sort_field:
            self._sort_by(event.sort_field, not current.startswith("-"))
        else:
            column = next(c for c in COLUMNS if c.sort == event.sort_field)
            self._sort_by(event.sort_field, column.descending_first)

    def action_refresh(self) -> None:
        """Reload (or retry after an error), keeping the row the cursor is on."""
        text = self.query_one(QueryInput).value
        query = self._query
        if text.strip() or query is None:
            result = self._parse(text)
            if self._show_parse_errors(result, text):
                query = result.query
        table = self.query_one(ChargeTable)
        cursor = table.cursor_row if self.state == "results" else 0
        self._search(query, cursor=cursor)

    def action_copy_id(self) -> None:
        charge = self.query_one(ChargeTable).cursor_charge
        if charge is None:
            self.app.notify("No charge under the cursor to copy.", severity="warning", markup=False)
            return
        self.app.copy_to_clipboard(charge.charge_id)
        self.app.notify(f"Copied charge id {charge.charge_id}", title="Clipboard", markup=False)

    def curl_request(self) -> tuple[str, str, list[tuple[str, str]] | None, Any] | None:
        """The request behind the page the cursor is on ("copy as curl")."""
        if self._query is None:
            return None
        table = self.query_one(ChargeTable)
        offset = table.cursor_row // ChargeTable.PAGE_SIZE * ChargeTable.PAGE_SIZE
        params = [
            *self._effective(self._query).to_params(),
            ("limit", str(ChargeTable.PAGE_SIZE)),
            ("offset", str(offset)),
        ]
        return ("GET", "/v2/charges", params, None)

    def action_copy_json(self) -> None:
        from paytui.ui.clipboard import copy_json

        copy_json(self.app, self.query_one(ChargeTable).cursor_charge, "charge")

    # --- saved searches -------------------------------------------------------------------------
    def current_query_text(self) -> str:
        """The query line as typed (what a saved search keeps)."""
        return self.query_one(QueryInput).value.strip()

    def action_save_search(self) -> None:
        from paytui.ui.screens.modals.saved_searches import SaveSearchModal

        text = self.current_query_text()
        if not text:
            self.app.notify(
                "Type a query first (/), then save it.", severity="warning", markup=False
            )
            return
        self.app.push_screen(SaveSearchModal(text))

    def run_query_text(self, text: str, title: str = "Search") -> None:
        """Put `text` in the query line and run it (a saved search, `:charges QUERY`)."""
        query_input = self.query_one(QueryInput)
        with query_input.prevent(Input.Changed):
            query_input.value = text
        result = self._parse(text)
        if not self._show_parse_errors(result, text):
            return
        # A saved search's name is the user's text from the config: data, never terminal codes.
        self._view_title = safe(title)
        self._set_text("#view-name", Text(self._view_title), layout=True)
        self._focus_results_after_search = True
        self._search(result.query)

    # --- marks and bulk actions (docs/bulk-actions.md) --------------------------------------------
    def _show_marks(self) -> None:
        marks = self.query_one(ChargeTable).marks
        if not len(marks):
            self._set_text("#marks", Text(""), layout=True)
            return
        line = Text.assemble(
            (f"{len(marks)} marked", fmt.tone("bold accent")), " · ", fmt.money(marks.total)
        )
        self._set_text("#marks", line, layout=True)

    def action_toggle_mark(self) -> None:
        table = self.query_one(ChargeTable)
        charge = table.cursor_charge
        if charge is None:
            return
        table.marks.toggle(charge)
        table.refresh()
        self._show_marks()
        table.action_cursor_down()

    def action_clear_marks(self) -> None:
        table = self.query_one(ChargeTable)
        if table.marks.clear():
            table.refresh()
        self._show_marks()

    def action_mark_all(self) -> None:
        """First `M`: say how many match; a second `M` on the same search marks them all."""
        table = self.query_one(ChargeTable)
        query = self._query
        if query is None or self.state != "results":
            return
        if self._mark_all_armed != (query, table.total):
            if table.total > MARK_ALL_LIMIT:
                self.app.notify(
                    f"{table.total:,} charges match: too many to mark at once (at most "
                    f"{MARK_ALL_LIMIT:,}). Narrow the search.",
                    severity="warning",
                    markup=False,
                )
                return
            self._mark_all_armed = (query, table.total)
            self.app.notify(
                f"{table.total:,} charges match this search. Press M again to mark them all.",
                title="Mark all matching",
                markup=False,
            )
            return
        self._mark_all_armed = None
        self.mark_all_matching(self._effective(query))

    @work(exclusive=True, group="mark-all")
    async def mark_all_matching(self, query: ChargeQuery) -> None:
        """Read every page of the search (not only what is on screen) and mark each charge."""
        from paytui.api.models import Trust

        found: list[Any] = []
        trust = Trust()
        unproven = 0
        try:
            client = await self.app.get_client()
            offset = 0
            while len(found) <= MARK_ALL_LIMIT:
                page = await client.search_charges_page(
                    query, limit=MARK_ALL_PAGE_SIZE, offset=offset
                )
                trust.add(page)
                # Only rows that show they match every filter: a bulk action acts on marks, and
                # a row the service sent without the field a filter needs proves nothing.
                proven = [charge for charge in page.items if page.proven(charge.charge_id)]
                unproven += len(page.items) - len(proven)
                found.extend(proven)
                if not page.has_more or page.next_offset <= offset:
                    break
                offset = page.next_offset
        except Exception as exc:
            self.app.notify(
                f"Could not read every page: {error_detail(exc)}", severity="error", markup=False
            )
            return
        table = self.query_one(ChargeTable)
        searched = self.query_one(QueryInput).value.strip() or self._view_title
        how = f"by mark all on {searched!r}, each row showing it matches"
        added = table.marks.add(found[:MARK_ALL_LIMIT], how=how)
        table.refresh()
        self._show_marks()
        left = f" Not marked: {trust.note}." if unproven else ""
        if trust.paging_note:  # the list stopped early: rows beyond it were not read
            left += f" {trust.paging_note}."
        self.app.notify(
            f"Marked {added:,} more ({len(table.marks):,} marked).{left}",
            title="Mark all matching",
            severity="warning" if unproven else "information",
            markup=False,
        )

    async def action_bulk_capture(self) -> None:
        await self._bulk("capture")

    async def action_bulk_refund(self) -> None:
        await self._bulk("refund")

    async def _bulk(self, operation: str) -> None:
        """The dry run of a bulk action on the marked charges, in a dialog that then confirms,
        runs and reports it (`paytui.actions.batch`)."""
        from paytui.ui.screens.modals.bulk import open_bulk

        table = self.query_one(ChargeTable)

        def after() -> None:
            table.refresh()
            self._show_marks()

        await open_bulk(self.app, operation, table.marks, after)

    def action_export(self) -> None:
        """`x`: the marked rows when there are marks (`U` clears them), otherwise every page of
        the search on screen (its sort included), to a file."""
        marks = self.query_one(ChargeTable).marks
        if len(marks):
            from paytui.ui.screens.modals.export import ExportModal

            count = len(marks)
            what = f"Export the {count} marked charge{'s' if count != 1 else ''}"
            self.app.push_screen(ExportModal.for_charges(marks.charges(), what))
            return
        self._open_export()

    @work(exclusive=True, group="export-open")
    async def _open_export(self) -> None:
        from paytui.ui.screens.modals.export import ExportModal

        query = self._effective(self._query or quick_view_query("all"))
        try:
            client = await self.app.get_client()
        except Exception as exc:  # not connected (the list says why too): nothing to export from
            self.app.notify(
                f"Cannot export: {error_detail(exc)}",
                title="Export",
                severity="error",
                markup=False,
            )
            return
        text = format_query(query) or "all charges"
        await self.app.push_screen(
            ExportModal.for_search(client, query, f"Export every charge of: {text}")
        )

    # --- money actions: the registry decides, the dialogs and the executor act ----------------
    def action_subject(self, action: str) -> object | None:
        """Capture and refund act on the highlighted charge, in the state the list shows."""
        if not self.is_mounted:
            return None
        return self.query_one(ChargeTable).cursor_charge

    def action_target(self, action: str) -> str | None:
        charge = self.action_subject(action)
        return getattr(charge, "charge_id", None)

    async def _money_action(self, operation: str) -> None:
        charge = self.query_one(ChargeTable).cursor_charge
        if charge is None:
            return
        from paytui.ui.screens.modals.dialogs import dialog_for

        # Awaited: the dialog is mounted (its first field focused) before the next key is taken.
        await self.app.push_screen(dialog_for(operation, charge.charge_id))

    def opens_a_screen(self, action: str) -> bool:
        """`action` opens its operation's dialog (`dialogs.opens_dialog`): the keys typed
        after its key wait for it (`paytui.ui.held_keys`)."""
        from paytui.ui.screens.modals.dialogs import opens_dialog

        return opens_dialog(action)

    async def action_capture(self) -> None:
        await self._money_action("capture")

    async def action_customer(self) -> None:
        from paytui.ui.screens.customer import customer_of

        charge = self.query_one(ChargeTable).cursor_charge
        if charge is not None:
            await self.app.push_screen(customer_of(charge))

    async def action_evidence(self) -> None:
        from paytui.ui.screens.evidence import EvidenceScreen

        charge = self.query_one(ChargeTable).cursor_charge
        if charge is not None:
            await self.app.push_screen(EvidenceScreen(charge.charge_id))

    async def action_duplicates(self) -> None:
        from paytui.ui.screens.duplicates import DuplicatesScreen

        charge = self.query_one(ChargeTable).cursor_charge
        if charge is not None:
            await self.app.push_screen(DuplicatesScreen(charge, self.app.session.duplicate_window))

    async def action_refund(self) -> None:
        await self._money_action("refund")

    # --- table events ---------------------------------------------------------------------------
    def on_charge_table_selected(self, event: ChargeTable.Selected) -> None:
        self.post_message(messages.OpenCharge(event.charge.charge_id))

    def on_charge_table_highlighted(self, event: ChargeTable.Highlighted) -> None:
        self.refresh_bindings()  # capture / refund follow the highlighted charge's state
        self._show_status()  # who claimed it, if anyone
        self._read_window_refunds_soon()

    def _read_window_refunds_soon(self) -> None:
        """The refunds of the rows on screen, once the rows are painted (`_read_window_refunds`).
        One look waits at a time: a held `j` asked for one per highlight and per window, and on
        a loaded machine thousands waited for the next frame and then ran in one go (each
        reading the window's rows, on the event loop)."""
        if not self._refunds_look_pending:
            self._refunds_look_pending = True
            self.call_after_refresh(self._read_window_refunds_if_shown)

    def _read_window_refunds_if_shown(self) -> None:
        self._refunds_look_pending = False
        if self._refunds_reader_on or not self.is_attached:
            return  # the running reader takes the window as it is after each batch
        if self._window_rows_to_read(set()):
            self._refunds_reader_on = True
            self._read_window_refunds()

    def _window_rows_to_read(self, tried: set[str]) -> list[Any]:
        """The charges on screen whose refunds are still to read: not read yet, not `tried`
        by the running reader, and able to have some (`may_have_refunds`)."""
        from paytui.charge_state import may_have_refunds

        table = self.query_one(ChargeTable)
        return [
            charge
            for charge in table.window_charges()
            if charge.charge_id not in table.refunds
            and charge.charge_id not in tried
            and may_have_refunds(charge)
        ]

    # Described, not left to Textual: without a description the decorator writes the repr of
    # every argument (about 0.7 ms for 33 rows after each search and each move of the window,
    # on the loop).
    @work(
        exclusive=True,
        group="row-refunds",
        exit_on_error=False,
        description="the refunds of the rows on screen",
    )
    async def _read_window_refunds(self) -> None:
        """The refunds of the rows on screen not read yet, `REFUNDS_BATCH` at a time, in the
        background: their State cells then say Refunded / Partly refunded, or nothing, instead
        of ``?``. Only a list that honoured the filter and ended counts
        (`charge_state.read_positions`).

        One reader follows the window: after each batch it reads the rows on screen *then*, so a
        held `j` (a new window every key) never cancels a read under way. Cancelling one at
        every move cut its connection and left its exceptions' tracebacks and frames as cyclic
        garbage: 43,000 objects over 1,500 rows at 100,000 charges, and a full collection of
        50-60 ms on the event loop every 40 s of a held key (docs/performance.md). A batch read
        for rows a new search or a refresh has since replaced is not shown (the table's
        `generation`); a row whose read failed keeps its ``?`` until the next reader."""
        from paytui.charge_state import read_positions

        try:
            try:
                client = await self.app.get_client()
            except Exception:
                return  # a hint only: the rows keep their "?"
            tried: set[str] = set()
            generation: int | None = None
            while still_shown(self, ChargeTable):
                table = self.query_one(ChargeTable)
                if table.generation != generation:
                    generation, tried = table.generation, set()
                batch = self._window_rows_to_read(tried)[:REFUNDS_BATCH]
                if not batch:
                    return
                tried.update(charge.charge_id for charge in batch)
                positions = await read_positions(client, batch, at_once=REFUNDS_AT_ONCE)
                if not still_shown(self, ChargeTable):
                    return
                table = self.query_one(ChargeTable)
                if table.generation == generation:
                    table.set_refunds_of(positions)
        finally:
            self._refunds_reader_on = False

    def on_charge_table_window_changed(self, event: ChargeTable.WindowChanged) -> None:
        self._read_window_refunds_soon()
        shown = max(0, event.last - event.first)
        self._set_text("#showing", showing(shown, event.total, first=event.first))

    def on_charge_table_page_failed(self, event: ChargeTable.PageFailed) -> None:
        # The rows already loaded stay; the error line above them says what did not load.
        info = self.query_one(ListState).show_failed(
            event.error, rows_on_screen=True, note="some rows did not load"
        )
        self.app.notify(info.message, title=info.title, severity="error", markup=False)

    def on_charge_table_paging_stopped(self, event: ChargeTable.PagingStopped) -> None:
        # The list ends here although the service may hold more rows (it ignores paging): one
        # line says so where the filter notes go (`paytui.api.paging`).
        self._page_status(fmt.literal(event.note, style="bold"))

    def _standing(self) -> bool:
        """Is this screen still whole? The app may close while a page is on its way: its
        screens are taken down, children first, and a late answer has nowhere to go."""
        return still_shown(self, "#page-status")

    def _page_status(self, text: Text) -> None:
        self._notes = text
        self._show_status()

    def _show_status(self) -> None:
        """The summary's middle: the highlighted charge's claim, if any, then the list's notes."""
        status = self.query_one("#page-status", Static)
        room = status.size.width - (self._notes.cell_len + 3 if self._notes else 0)
        claim = self._claim_words(room)
        present = self._presence_words()
        if claim is None and present is None:
            self._set_text("#page-status", self._notes)
            return
        line = Text(no_wrap=True, overflow="ellipsis")
        for part in (present, claim):
            if part is not None:
                if line:
                    line.append(" · ")
                line.append_text(part)
        if self._notes:
            line.append(" · ")
            line.append_text(self._notes)
        self._set_text("#page-status", line)

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_status)  # the claim's words fit the new width

    def _presence_words(self) -> Text | None:
        """ "◉ ana refunding 40.00": who else has the highlighted charge open now."""
        table = self.query_one(ChargeTable)
        charge = table.cursor_charge
        people = table.presence.get(charge.charge_id) if charge is not None else None
        if not people:
            return None
        # Imported only when someone is there: the first paint has nobody and must not pay.
        from paytui.actions.presence import presence_words

        return Text(f"{PRESENT} {safe(presence_words(people))}", style=fmt.tone("bold warning"))

    def _claim_words(self, room: int) -> Text | None:
        """The highlighted charge's claim in the longest words that fit `room` cells: "⚑ claimed
        by support-07 on ws-17 since 14:02 UTC", "⚑ claimed by support-07", "⚑ support-07"."""
        table = self.query_one(ChargeTable)
        charge = table.cursor_charge
        claim = table.claims.get(charge.charge_id) if charge is not None else None
        if claim is None:
            return None
        if claim.mine(table.claim_owner):
            sign, forms = CLAIMED_MINE, ["claimed by you", "yours"]
        else:
            holder = claim.holder(paytui_app(self).now())
            sign, forms = CLAIMED, [f"claimed by {holder}", f"claimed by {claim.agent}"]
            forms.append(claim.agent)
        words = next((f for f in forms if len(f) + 2 <= room), forms[-1])
        return Text.assemble((sign, "bold"), " ", safe(words))

    # --- claims (docs/team.md) ------------------------------------------------------------------
    def on_charge_table_page_loaded(self, event: ChargeTable.PageLoaded) -> None:
        """One read of the claims on each page of rows that arrives, after it is painted (the
        first page is not kept waiting for the journal: on the first page, once it is painted)."""
        if event.charge_ids:
            charge_ids = event.charge_ids
            paytui_app(self).after_start(
                lambda: self.call_after_refresh(self._read_claims_if_shown, charge_ids)
            )

    def _read_claims_if_shown(self, charge_ids: list[str]) -> None:
        if self.is_attached:
            self._read_claims(charge_ids)

    @work(group="claims", exit_on_error=False)
    async def _read_claims(self, charge_ids: list[str]) -> None:
        if not charge_ids:
            return
        try:
            owner, found = await read_claims(paytui_app(self), charge_ids)
        except Exception:
            return  # a hint: the dialogs read the claim again (and warn) before anything is sent
        self._show_claims(charge_ids, found, owner)

    def _show_claims(self, charge_ids: list[str], found: dict[str, Claim], owner: str) -> None:
        if not self.is_attached:
            return
        self.query_one(ChargeTable).set_claims(charge_ids, found, owner)
        self._show_status()

    def action_claim(self) -> None:
        """`m`: claim the highlighted charge, or release it when it is ours."""
        charge = self.query_one(ChargeTable).cursor_charge
        if charge is not None:
            self._claim(charge.charge_id)

    # Not exclusive: a claim written in its thread is said and shown, whatever is pressed next.
    @work(group="claim", exit_on_error=False)
    async def _claim(self, charge_id: str) -> None:
        now = await claim_or_release(paytui_app(self), charge_id)
        if now is not None:
            owner, claim = now
            self._show_claims([charge_id], {charge_id: claim} if claim else {}, owner)

    def action_claim_next(self) -> None:
        """Claim the first free charge of the rows loaded from the cursor down (in list order,
        yours left out), and move the cursor to it."""
        table = self.query_one(ChargeTable)
        if self.state != "results":
            return
        rows: dict[str, int] = {}
        for row, charge in table.loaded_from(table.cursor_row):
            held = table.claims.get(charge.charge_id)
            if held is None or not held.mine(table.claim_owner):
                rows.setdefault(charge.charge_id, row)
        self._claim_next(rows)

    # Not exclusive: a claim written in its thread is said and shown, whatever is pressed next.
    @work(group="claim", exit_on_error=False)
    async def _claim_next(self, rows: dict[str, int]) -> None:
        now = await claim_next(paytui_app(self), list(rows))
        if now is None:
            return
        owner, claim = now
        assert claim is not None
        self._show_claims([claim.target], {claim.target: claim}, owner)
        if self.is_attached and claim.target in rows:
            self.query_one(ChargeTable).cursor_row = rows[claim.target]

    def _set_text(self, selector: str, text: Text, *, layout: bool = False) -> None:
        """Update a line of the summary or the query's explanation, only when it changes.

        Their sizes are fixed by the stylesheet (`layout` False), so a change repaints the line
        alone instead of laying out the whole screen: while typing, every key would otherwise
        cost several layouts of the screen between the key and the painted table. A line as
        wide as its text (`width: auto`, "Showing N of M") is laid out again when its length
        changes, never cut to its old width.
        """
        widget = self.query_one(selector, Static)
        if widget.content != text:
            before = widget.content
            width = widget.styles.width
            resized = (
                width is not None
                and width.is_auto
                and (not isinstance(before, Text) or before.cell_len != text.cell_len)
            )
            widget.update(text, layout=layout or resized)
