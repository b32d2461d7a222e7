"""Today (`0`): everything that needs a person, soonest deadline first (docs/today.md).

The queue is `paytui.today.queue.build_queue`, read whole in one worker (`PagedListScreen`'s
reader) and shown as one list: kind, what, customer, amount, the due time in the user's time
zone and the time left in words ("due in 2 d 4 h", "overdue 3 h", "≈" when estimated), never by
colour alone. `f` steps through the phases (`PHASES`, data beside the screen); `enter` opens the
item (a charge's detail, an account, a token). On a team journal a "claimed by" column shows who
works on a charge; on a file journal there is none.

Every charge action of a list applies to a row that holds a charge, as on the charge list
(`ChargeRowActions`: marks by charge id, `M` marks the view's charges, `C` / `B` bulk over the
marks, `e` tags, `x` export, `z`, `H`); an account, a token or an unknown outcome takes none of
them, and the key says so in one line.

`#pulse` at the top holds the pulse (`paytui.ui.widgets.pulse.PulseStrip`: its own worker, its
keys `V` and `ctrl+r` when focused; docs/today.md, "Pulse").
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

from paytui.actions.registry import spec_for
from paytui.api.models import Page
from paytui.text import safe
from paytui.today.queue import TodayItem, TodayQueue, build_queue, due_words, unknown_outcomes
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.marks import MARK, Marks
from paytui.ui.running_app import paytui_app, still_shown
from paytui.ui.screens.charge_rows import ChargeRowActions, charge_row_bindings
from paytui.ui.screens.paged_list import PagedListScreen
from paytui.ui.textual_fixes import LaidOutOnce, StyledAtMount
from paytui.ui.widgets.charge_table import state_text
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState
from paytui.ui.widgets.pulse import PulseStrip

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.charge_state import RefundPosition
    from paytui.today.seen import SeenStore


@dataclass(frozen=True)
class Phase:
    """One view of the queue: its name, the kinds it holds (all when empty), when set how
    far ahead it looks (`due_within`, from now; 0: overdue only), and whether it holds the
    lapsed holds (`lapsed`: None both, False none, True only them) and what is past its
    window (`past_window`, the same way)."""

    name: str
    kinds: tuple[str, ...] = ()
    due_within: timedelta | None = None
    lapsed: bool | None = None
    past_window: bool | None = None


#: The phases `f` steps through, in order. "all" ends with what is past its window, then the
#: lapsed holds (the queue's order); the phases of what to do next leave them out, and they
#: have phases of their own.
PHASES: tuple[Phase, ...] = (
    Phase("all"),
    Phase("due today", due_within=timedelta(0), lapsed=False, past_window=False),
    Phase("overdue", due_within=timedelta(-1), lapsed=False, past_window=False),
    Phase("unknown outcomes", ("unknown",)),
    Phase("chargebacks", ("chargeback",)),
    Phase("ACH returns", ("return",)),
    Phase("authorizations", ("authorization",), lapsed=False),
    Phase("accounts", ("account",)),
    Phase("tokens", ("token",)),
    Phase("past their window", ("chargeback", "return"), past_window=True),
    Phase("lapsed holds", ("authorization",), lapsed=True),
)

#: Words for each kind, as the list shows them.
KIND_WORDS = {
    "unknown": "unknown outcome",
    "chargeback": "chargeback",
    "return": "ACH return",
    "authorization": "capture by",
    "account": "account",
    "token": "expiring",
}

TODAY_BINDINGS: list[Binding] = [
    Binding("f", "cycle_filter", "Phase", id="today.phase", tooltip="Next phase: due today, ..."),
    Binding(
        "c",
        "capture",
        "Capture",
        id="today.capture",
        tooltip="Capture the highlighted authorization (needs urn:v2:charges:all)",
    ),
    Binding(
        "r",
        "refund",
        "Refund",
        id="today.refund",
        tooltip="Refund the highlighted item's charge (needs urn:v2:refunds:all)",
    ),
    Binding(
        "E",
        "evidence",
        "Evidence pack",
        id="today.evidence",
        tooltip="The highlighted chargeback's evidence pack, with what is missing",
    ),
    Binding("y", "copy_id", "Copy id", id="today.copy_id", tooltip="Copy the item's id"),
    Binding("ctrl+r", "refresh", "Refresh", id="today.refresh", tooltip="Read the queue again"),
    Binding(
        "ctrl+a",
        "approvals",
        "Approvals",
        id="today.approvals",
        tooltip="Approvals waiting: large refunds and captures a colleague asked you to approve",
        show=False,
    ),
]

#: Terminal lines under which the line under the queue keeps to 3 lines and the pulse folds
#: to two (`on_resize`, `today.tcss`).
SHORT_LINES = 30

TODAY_COLUMNS = (
    FitColumn("kind", "Kind"),
    FitColumn("what", "What", priority=2, min_width=10),
    FitColumn("customer", "Customer", priority=1, min_width=8),
    FitColumn("amount", Text("Amount", justify="right")),
    # At 80 columns the absolute due time goes before the state: the time left says it.
    FitColumn("due", "Due (local)", priority=2),
    FitColumn("left", "Time left"),
    # The money state of a charge row (`charge_state`, as every list): "?" until its refunds
    # are read (a page at a time, `_read_refunds`), never a blank that means "not known".
    FitColumn("state", "State", priority=1),
    FitColumn("claimed", "Claimed by", priority=1, min_width=8, only_when_filled=True),
    # Who else has the charge open now, live on a team journal ("ana refunding 40.00").
    FitColumn("present", "Open by", priority=3, min_width=8, only_when_filled=True),
    # The case and the evidence of the due time ("chargeback Visa 10.4 … · open · 5 d old:
    # ≈ from the chargeback's date 2026-11-09, acquirer window 10 d"); whole for the
    # highlighted row in the line under the table (`#today-why`) at any width.
    FitColumn("why", "Why", priority=4, min_width=12, free_text=True),
)


def _charge_of(item: TodayItem) -> Any | None:
    """The charge a row holds, read from the service (an unknown outcome names one but holds
    none: its outcome is the journal's to settle first)."""
    if item.target != "charge" or item.kind == "unknown":
        return None
    return item.subject


def _seen_and_item_keys(
    base_url: str, evidence_keys: dict[str, Any]
) -> tuple[SeenStore, dict[str, tuple[str, ...]]]:
    """The queue's first-seen store, opened, and the evidence pack's item keys (for each
    chargeback's checklist score), for a thread: the first read imported the evidence code on
    the event loop, 5 ms of the push's step at 100,000 charges."""
    from paytui.evidence.case import attribute_keys
    from paytui.today.seen import SeenStore, default_seen_path

    return SeenStore(default_seen_path(), base_url), attribute_keys(evidence_keys, "item")


def local_due(value: datetime) -> str:
    """The due time in the user's time zone (the column says so), to the minute."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M")


#: Marks changed on more rows than this are drawn by showing the rows again (one pass), not
#: cell by cell (each cell update looks its row up).
REDRAW_ROWS_OVER = 50


class TodayScreen(LaidOutOnce, StyledAtMount, ChargeRowActions, PagedListScreen[TodayItem]):
    """The queue, read whole in one worker and sorted unknown outcomes first, then by due time;
    shown a page of rows at a time (the list kit's paging over the queue in memory): at 100,000
    charges it holds about 2,000 items, and adding them all at once held the screen for 1-2 s."""

    CSS_PATH = Path(__file__).with_name("today.tcss")
    #: today.tcss's rules on the list's state hide the table only: a state change restyles
    #: the panel and the table, not the screen's every node (`widgets.list_state`).
    LIST_STATE_STYLED = "NavTable"
    BINDINGS: ClassVar[list[BindingType]] = [*TODAY_BINDINGS, *charge_row_bindings("today")]
    HELP_TITLE = "Today"
    COMMAND_SCOPE = "today"
    AUTO_FOCUS = "#today"
    NOUN = "items"
    STATUS_ID = "showing"
    PAGE_SIZE = 100

    def __init__(self) -> None:
        super().__init__()
        self.queue: TodayQueue | None = None
        self.phase = 0
        #: Who holds each charge (team journal only: None means no column).
        self.claimed_by: dict[str, str] | None = None
        #: Marked charges, by charge id: kept across phases and re-reads (bulk, export).
        self.marks = Marks()
        #: The charge ids whose rows show the mark sign now (what `marks_changed` redraws).
        self._drawn_marks: set[str] = set()
        #: Charges changed or a tick passed while another screen was shown: read on return.
        self._stale = False
        #: The first rows were painted (`ResultsPainted` posted once).
        self._painted = False
        #: The row key the cursor was on when the queue was read again (its page is shown).
        self._keep: str | None = None
        #: The rows being shown are the sources read so far (`build_queue`'s `on_partial`).
        self._partial = False
        #: Rows of a partial queue are on screen (the next show keeps the cursor's item).
        self._partial_shown = False
        #: A row on screen was built with the claims (a team journal's "Claimed by").
        self._rows_claimed = False
        #: Who has which charge open changed while the queue was read (not drawn then).
        self._presence_missed = False
        #: The refunds read of the charges shown, by charge id (`charge_state.read_positions`):
        #: their State says Refunded / Partly refunded / nothing; "?" until read.
        self.refunds: dict[str, RefundPosition] = {}

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Vertical(PulseStrip(wait=True), id="pulse")
        with Horizontal(id="summary"):
            yield Static(Text("Today"), id="view-name")
            yield Static(Text(""), id="phase")
            yield Static(Text(""), id="today-notes")
            yield Static(Text(""), id="marks")
            yield Static(Text(""), id="showing")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(TODAY_COLUMNS, id="today", cursor_type="row")
        yield Static(Text(""), id="today-why")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self._show_phase()
        self.load()
        paytui_app(self).charges_changed.subscribe(self, self._charges_changed)
        paytui_app(self).presence_changed.subscribe(self, self._presence_changed)
        connection = paytui_app(self).session.connection
        every = connection.today.refresh_seconds if connection is not None else 0
        if every:
            self.set_interval(every, self.tick)

    def tick(self) -> None:
        """The timer (`[today] refresh_seconds`): read the queue again only while Today is the
        screen shown and settled. Behind another screen, mode or a dialog it does not read (rows
        never move under a dialog opened on one); `_stale` then reads once on return."""
        if not self.is_current:
            self._stale = True
            return
        if self.state in {"results", "empty"} and not self.reading:
            self.reload()

    def reload(self) -> None:
        """Read the queue again, the cursor kept on the row it is on (by key); marks are by
        charge id, so they stay."""
        if self._keep is None:  # else a read under way already follows the cursor's item
            item = self.highlighted()  # (rows shown meanwhile may have moved the cursor)
            self._keep = self.row_key(item) if item is not None else None
        self.load(select=self._keep)

    def action_refresh(self) -> None:
        self.reload()

    def read_failed(self, exc: BaseException) -> None:
        self._keep = None  # the next read follows the cursor where it is then
        super().read_failed(exc)
        self.query_one(PulseStrip).start()  # the queue could not be read: the pulse may be

    def show_first(self, page: Page[TodayItem], select: str | None) -> None:
        """As the list base; when the row that was selected left the queue (a hold captured),
        the cursor stays at its place rather than jumping to the top."""
        row = self._table().cursor_row
        if self._partial_shown and select is None:  # rows of a partial queue on screen: the
            select = self._following()  # cursor's item is kept (a re-read names its own)
        # Rows of a partial queue on screen: a source arrived (or the last one), and its rows
        # are put in place among them, not the list cleared and shown again.
        in_place = self._partial_shown and bool(self.items)
        self._partial_shown = self._partial
        # Between two partial queues nothing a row shows changes but its item (the claims are
        # read, the refunds and the presence shown once the whole queue is): a row whose item
        # is the same keeps its cells. The whole queue's rows are built again when they show
        # claims (a team journal) or the presence changed meanwhile; else they are the same
        # (at 100,000 charges, building them again held the loop 30-190 ms in one step).
        same = self._partial or not (
            self._rows_claimed or self.claimed_by is not None or self._presence_missed
        )
        if not (in_place and self.show_in_place(page, select, same_as_shown=same)):
            same = False
            super().show_first(page, select)
        else:
            # Their draw waits for a timer's turn of the loop: the screen's update timer drew
            # them right after, before the tasks a timer due meanwhile woke, and the rows and
            # their draw made one step of the loop of 60-110 ms at 100,000 charges
            # (docs/performance.md).
            self._draw_a_turn_later()
            if not self._partial:
                self._read_refunds()  # as `_append` does for the whole queue's rows
        self._rows_claimed = (same and self._rows_claimed) or self.claimed_by is not None
        if not same:
            self._presence_missed = False
        if select is not None and select not in self._by_key and self.items:
            self._table().move_cursor(row=min(row, len(self.items) - 1))

    def _draw_a_turn_later(self) -> None:
        """The app's updates held until a timer's turn of the loop, as `App.delay_update`, less
        its end's `screen.refresh()`: that drew every widget of the screen again, in the same
        step, after the ones that changed (1.5-2 ms of each of Today's draws at 100,000
        charges). What changed meanwhile asked for its own draw; the screen is woken to do it."""
        app = self.app
        app._begin_batch()

        def end() -> None:
            app._end_batch()
            if not app._batch_count:
                app.screen.check_idle()  # its update timer runs what is owed

        app.set_timer(0.001, end, name="delay_update")

    def _charges_changed(self, charge_ids: tuple[str, ...]) -> None:
        """An action (here, in a detail, by another paytui) changed charges: a captured hold
        or an answered outcome leaves the queue, so it is read again (now or on return)."""
        self._stale = True
        for charge_id in charge_ids:  # a refund made since: its state is read again
            self.refunds.pop(charge_id, None)
        if self.is_current:
            self.on_screen_resume()

    def on_screen_resume(self) -> None:
        if self._stale and self.state in {"results", "empty"}:
            self._stale = False
            self.reload()

    @property
    def state(self) -> str:
        return self.query_one(ListState).state

    # --- the read -------------------------------------------------------------------------------
    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[TodayItem]:
        if offset > 0 and self.queue is not None:  # later pages: the queue read, no request
            return self._slice(self.queue, offset, limit)
        app = paytui_app(self)
        connection = app.session.connection
        prefs = connection.today if connection is not None else None
        evidence_keys = dict(connection.evidence.attribute_keys) if connection is not None else {}
        base_url = str(client.base_url)
        unknown = []
        claims_of = None
        try:
            executor = await (await app.session.actions_imported()).executor()
        except Exception:  # no journal: no unknown outcomes to show (the header says why)
            executor = None
        if executor is not None:
            unknown = await asyncio.to_thread(unknown_outcomes, executor.journal, base_url)
            if executor.journal.kind == "postgresql":
                claims_of = executor
        seen, item_keys = await asyncio.to_thread(_seen_and_item_keys, base_url, evidence_keys)
        try:
            queue = await build_queue(
                client,
                prefs=prefs,
                seen=seen,
                now=app.now(),
                unknown=unknown,
                on_partial=self._show_partial,
                item_keys=item_keys,
            )
        finally:
            self._partial = False
            # Closed in a thread: the last user of the file closes its connection, which
            # checkpoints it (13 ms of the loop at 100,000 charges, in the step that shows
            # the whole queue).
            await asyncio.to_thread(seen.close)
        self.claimed_by = None
        if claims_of is not None:
            ids = [i.target_id for i in queue.items if i.target == "charge"]
            held = await claims_of.claimed(ids)
            now = app.now()
            self.claimed_by = {key: claim.holder(now) for key, claim in held.items()}
        self.queue = queue
        for item in queue.items:
            charge = _charge_of(item)
            if charge is not None:
                self.marks.refresh(charge)  # a marked charge read again: the newer copy
        # The final page reaches the row the cursor is on (or was on when the read began).
        keep = self._following() if self._partial_shown else self._keep
        self._keep = None
        return self._slice(queue, 0, limit, keep=keep)

    def _show_partial(self, queue: TodayQueue) -> None:
        """The sources read so far, while the others are read: the first rows do not wait for
        the slowest source (the notes line says which are still being read). The cursor stays
        on its item as rows arrive above it; the whole queue replaces this once read."""
        self._partial = True
        self.queue = queue
        key = self._following()
        self.show_first(self._slice(queue, 0, self.PAGE_SIZE, keep=key), key)

    def _following(self) -> str | None:
        """The row key the cursor follows while sources arrive: the one it was on when the
        queue was read again (until that item shows), else the one it is on; none on the first
        row, which stays the first (the most urgent so far) as sooner items arrive."""
        if self._keep is not None:
            return self._keep
        item = self.highlighted()
        if item is None or self._table().cursor_row == 0:
            return None
        return self.row_key(item)

    def _slice(
        self, queue: TodayQueue, offset: int, limit: int, *, keep: str | None = None
    ) -> Page[TodayItem]:
        """Rows `offset`.. of the phase, as a page of the list kit ("Showing 100 of 1,990");
        the first page reaches the row `keep` (the cursor's, across a re-read) if it is there."""
        items = self._in_phase(queue)
        if keep is not None:
            at = next((i for i, item in enumerate(items) if self.row_key(item) == keep), -1)
            limit = max(limit, at + 1)
        end = offset + limit
        return Page[TodayItem].model_construct(
            items=items[offset:end],
            total=len(items),
            offset=offset,
            limit=limit,
            has_more=end < len(items),
            unreadable=[],
        )

    def _in_phase(self, queue: TodayQueue) -> list[TodayItem]:
        phase = PHASES[self.phase]
        before = None
        if phase.due_within is not None:
            now = queue.now
            if phase.due_within < timedelta(0):
                before = now
            else:
                midnight = now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
                before = (midnight + timedelta(days=1)).astimezone(UTC)
        return queue.select(
            kinds=phase.kinds,
            due_before=before,
            lapsed=phase.lapsed,
            past_window=phase.past_window,
        )

    def row_key(self, item: TodayItem) -> str | None:
        return f"{item.kind}:{item.id}:{item.due_at.isoformat()}"

    def row_cells(self, item: TodayItem) -> list[Text]:
        now = self.queue.now if self.queue is not None else paytui_app(self).now()
        # A lapsed hold or a chargeback past its window says so in words ("lapsed 5 d",
        # "past window 26 d"), not red: it is below what can still be acted on, not the most
        # urgent thing on screen.
        overdue = item.due_at <= now and not item.rank
        left = due_words(item.due_at, now, estimated=item.estimated, late=item.late_word)
        claimed = ""
        if self.claimed_by is not None and item.target == "charge":
            claimed = self.claimed_by.get(item.target_id, "nobody")
        return [
            Text(
                "lapsed hold" if item.lapsed else KIND_WORDS.get(item.kind, item.kind),
                style=fmt.tone("bold") if item.kind == "unknown" else "",
            ),
            self._what_cell(item),
            fmt.literal(item.customer or "—"),
            Text(fmt.money(item.amount) if item.amount is not None else "—", justify="right"),
            Text(local_due(item.due_at)),
            Text(left, style=fmt.tone("bold error") if overdue else ""),
            self._state_cell(item),
            fmt.literal(claimed) if claimed else Text(""),
            self._present_cell(item),
            fmt.literal(item.why),
        ]

    def _present_cell(self, item: TodayItem) -> Text:
        """ "◉ ana refunding 40.00" when other agents have the row's charge open now."""
        from paytui.actions.presence import presence_words

        if item.target != "charge":
            return Text("")
        words = presence_words(paytui_app(self).others_on(item.target_id))
        return Text(f"◉ {safe(words)}", style=fmt.tone("bold warning")) if words else Text("")

    def _presence_changed(self, people: dict[str, Any]) -> None:
        """Who has which charge open changed: the rows show it (one redraw; it is rare)."""
        del people
        if self.reading:
            self._presence_missed = True  # drawn with the whole queue's rows (`show_first`)
        if self.is_mounted and self.items:
            item = self.highlighted()
            self._show_rows(select=self.row_key(item) if item is not None else None)

    def _state_cell(self, item: TodayItem) -> Text:
        """The charge's money state (the one rule, `charge_state.state_words`); "—" on a row
        that holds no charge (an account, a token, an unknown outcome)."""
        from paytui.charge_state import state_words

        charge = _charge_of(item)
        if charge is None:
            return Text("—")
        return state_text(state_words(charge, refunds=self.refunds.get(charge.charge_id)))

    def _what_cell(self, item: TodayItem) -> Text:
        """The item's id, after the mark sign when its charge is marked (a sign, not a colour)."""
        charge = _charge_of(item)
        if charge is not None and charge.charge_id in self.marks:
            return Text.assemble((MARK + " ", fmt.tone("bold accent")), fmt.literal(item.id))
        return fmt.literal(item.id)

    def empty_text(self) -> str:
        phase = PHASES[self.phase]
        if phase.name == "all":
            return "Nothing needs a person now."
        return f"Nothing in {phase.name}. f: next phase."

    def status_note(self) -> str:
        return f" · {PHASES[self.phase].name}"

    def page_shown(self) -> None:
        if not self._painted:  # the first rows: start-up's deferred work may run (as Charges)
            self._painted = True
            self.call_after_refresh(self.post_message, messages.ResultsPainted(len(self.items)))
        if not self._partial:  # the queue read whole: the pulse may read the service now
            self.call_after_refresh(self.query_one(PulseStrip).start)
        self._drawn_marks = self.marks_ids()
        self._show_marks_count()
        notes = self.queue.notes if self.queue is not None else []
        self.query_one("#today-notes", Static).update(Text(safe(" · ".join(notes))))
        self._count_approvals(list(notes))
        if self.items:
            self.query_one(FitNavTable).focus()
        self._show_why()

    def _append(self, page: Page[TodayItem]) -> None:
        """As the list kit; then the refunds of the charges added are read (`_read_refunds`)."""
        super()._append(page)
        if not self._partial:
            self._read_refunds()

    def on_resize(self, event: events.Resize) -> None:
        """Under 30 lines the line under the queue keeps to 3 lines and the pulse folds to its
        title and the dispute ratio's (`-short`): the queue's rows come first on a short
        terminal."""
        self.set_class(event.size.height < SHORT_LINES, "-short")

    def _show_why(self) -> None:
        """The highlighted row's case and the evidence and clock of its due time, whole; on an
        open chargeback, its fight-or-accept line under it (a suggestion: the person decides)."""
        item = self.highlighted()
        if item is None:
            self.query_one("#today-why", Static).update("")
            return
        text = Text(safe(item.why))
        if item.advice:
            text.append("\n")
            text.append(safe(item.advice), fmt.tone("bold"))
        self.query_one("#today-why", Static).update(text)

    @work(exclusive=True, group="today-refunds")
    async def _read_refunds(self) -> None:
        """The refunds of the charges shown whose state is not read yet, eight at a time (four
        requests at once), in the background: their State cell then says Refunded / Partly
        refunded or nothing instead of "?". A read that fails leaves the "?"."""
        from paytui.charge_state import may_have_refunds, read_positions

        wanted: dict[str, Any] = {}
        for item in self.items:
            charge = _charge_of(item)
            if (
                charge is not None
                and charge.charge_id not in self.refunds
                and may_have_refunds(charge)
            ):
                wanted.setdefault(charge.charge_id, charge)
        if not wanted:
            return
        try:
            client = await self.app.get_client()
        except Exception:
            return  # a hint only: the rows keep their "?"
        charges = list(wanted.values())
        for start in range(0, len(charges), 8):
            positions = await read_positions(client, charges[start : start + 8], at_once=4)
            if not still_shown(self, FitNavTable):
                return  # the screen is being taken down (the app quits): nothing to show
            self.refunds.update(positions)
            table = self.query_one(FitNavTable)
            for item in self.items:
                charge = _charge_of(item)
                key = self.row_key(item)
                if charge is not None and charge.charge_id in positions and key is not None:
                    table.set_cell(key, "state", self._state_cell(item))

    def _show_phase(self) -> None:
        self.query_one("#phase", Static).update(Text(f"f: [{PHASES[self.phase].name}]"))

    # --- marks (ChargeRowActions) ---------------------------------------------------------------
    def row_charge(self) -> Any | None:
        item = self.highlighted()
        return _charge_of(item) if item is not None else None

    def listed_charges(self) -> list[Any]:
        """The charges of the rows of this phase (all of them, not only the rows shown so far),
        once each: the queue proved every row."""
        found: dict[str, Any] = {}
        for item in self._in_phase(self.queue) if self.queue is not None else []:
            charge = _charge_of(item)
            if charge is not None:
                found.setdefault(charge.charge_id, charge)
        return list(found.values())

    def mark_all_how(self) -> str:
        return f"by mark all on Today ({PHASES[self.phase].name}), each row proven by the queue"

    def view_name(self) -> str:
        return f"Today ({PHASES[self.phase].name})"

    def not_a_charge(self) -> str:
        item = self.highlighted()
        if item is None:
            return "No row selected."
        kind = KIND_WORDS.get(item.kind, item.kind)
        if item.kind == "unknown":
            return f"This row is an {kind}: settle it in History (5) before acting on its charge."
        return (
            f"This row is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not a charge: charge"
            " actions apply to charge rows only."
        )

    def marks_ids(self) -> set[str]:
        return {c.charge_id for c in self.marks.charges()}

    def marks_changed(self) -> None:
        """Redraw the sign of the rows whose mark changed, and the count."""
        if not self.is_mounted:
            return
        now = self.marks_ids()
        changed = now ^ self._drawn_marks
        self._drawn_marks = now
        self._show_marks_count()
        rows = [i for i in self.items if i.target_id in changed and _charge_of(i) is not None]
        if len(rows) > REDRAW_ROWS_OVER:
            item = self.highlighted()
            self._show_rows(select=self.row_key(item) if item is not None else None)
            return
        table = self.query_one(FitNavTable)
        for item in rows:
            key = self.row_key(item)
            if key is not None:
                table.set_cell(key, "what", self._what_cell(item))

    def _show_marks_count(self) -> None:
        line = Text("")
        if len(self.marks):
            line.append(f"{len(self.marks)} marked", fmt.tone("bold accent"))
            line.append(f" · {fmt.money(self.marks.total)}  ")
        widget = self.query_one("#marks", Static)
        widget.update(line)
        widget.display = bool(len(self.marks))  # no room taken when nothing is marked

    def action_toggle_mark(self) -> None:
        super().action_toggle_mark()
        if self.row_charge() is not None:
            self.query_one(FitNavTable).action_cursor_down()  # as on the charge list

    # --- actions --------------------------------------------------------------------------------
    def action_subject(self, action: str) -> object | None:
        """The charge of the highlighted item: the registry decides capture, refund, tags...
        on it as on any charge list (an account, a token or an unknown outcome has none)."""
        return self.row_charge()

    def action_target(self, action: str) -> str | None:
        charge = self.row_charge()
        return charge.charge_id if charge is not None else None

    def disabled_reason(self, action: str) -> str | None:
        """On a row that is not a charge, a charge action says so (not "no charge selected")."""
        spec = spec_for(action)
        on_charge = spec is not None and spec.subject == "charge" and self.is_mounted
        if on_charge and self.highlighted() is not None and self.row_charge() is None:
            return self.not_a_charge()
        return super().disabled_reason(action)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()  # capture / refund follow the highlighted item
        self._show_why()

    async def action_evidence(self) -> None:
        from paytui.ui.screens.evidence import EvidenceScreen

        charge_id = self.action_target("evidence")
        if charge_id is not None:
            await self.app.push_screen(EvidenceScreen(charge_id))

    async def action_capture(self) -> None:
        await self._money_action("capture")

    async def action_refund(self) -> None:
        await self._money_action("refund")

    async def _money_action(self, operation: str) -> None:
        charge_id = self.action_target(operation)
        if charge_id is None:
            return
        from paytui.ui.screens.modals.dialogs import dialog_for

        await self.app.push_screen(dialog_for(operation, charge_id))

    def action_cycle_filter(self) -> None:
        self.phase = (self.phase + 1) % len(PHASES)
        self._show_phase()
        self._show_rows()

    def _show_rows(self, select: str | None = None) -> None:
        """Show the queue read last in the current phase (no read); `select`: the row key to
        put the cursor back on."""
        if self.queue is not None and not self.reading:
            self.show_first(self._slice(self.queue, 0, self.PAGE_SIZE, keep=select), select)

    @work(exclusive=True, group="today-approvals", exit_on_error=False)
    async def _count_approvals(self, notes: list[str]) -> None:
        """Approvals waiting for someone other than their requester, said beside the queue's
        notes ("2 approvals wait: ctrl+a"). A courtesy: a journal that cannot say, says nothing."""
        import asyncio

        try:
            executor = await paytui_app(self).actions.executor()
            waiting = await asyncio.to_thread(
                executor.journal.approvals, base_url=executor.base_url
            )
        except Exception:
            return
        others = [a for a in waiting if a.requested_by != executor.agent]
        if not others or not self.is_attached:
            return
        count = len(others)
        said = (
            f"{count} approval{'s' if count != 1 else ''} wait{'' if count != 1 else 's'}: ctrl+a"
        )
        self.query_one("#today-notes", Static).update(Text(safe(" · ".join([*notes, said]))))

    def action_approvals(self) -> None:
        """`ctrl+a`: the requests waiting for a second person (four eyes)."""
        from paytui.ui.screens.approvals import ApprovalsScreen

        self.app.push_screen(ApprovalsScreen())

    def action_copy_id(self) -> None:
        item = self.highlighted()
        if item is None:
            return
        self.app.copy_to_clipboard(item.id)
        self.app.notify(f"Copied {item.id}", title="Clipboard", markup=False)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        item = self.highlighted()
        if item is None:
            return
        if item.target == "charge":
            self.post_message(messages.OpenCharge(item.target_id))
        elif item.target == "account":
            from paytui.ui.screens.account_detail import AccountDetailScreen

            self.app.push_screen(AccountDetailScreen(item.target_id))
        elif item.target == "token":
            self._open_token(item.target_id)
        else:
            self.run_worker(self.app.run_action("app.goto('history')"))

    @work(exclusive=True, group="today-open")
    async def _open_token(self, token_id: str) -> None:
        from paytui.ui.screens.tokens import TokenViewScreen

        try:
            token = await (await self.app.get_client()).get_token(token_id)
        except Exception as exc:
            self.app.notify(safe(str(exc)), title="Token", severity="error", markup=False)
            return
        self.app.push_screen(TokenViewScreen(token))


__all__ = ["KIND_WORDS", "PHASES", "TODAY_BINDINGS", "TODAY_COLUMNS", "Phase", "TodayScreen"]
