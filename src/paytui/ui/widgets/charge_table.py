"""A virtual table of charges: renders only visible lines and keeps only a few pages in memory.

Why not `DataTable`: it wants every row added up front, so 100,000 matching charges would block the
screen and fill memory. Like toolong's log view, this is a line-API `ScrollView` whose virtual
height is the server's `total`. Pages of `PAGE_SIZE` rows are fetched on demand (one worker per
page) for the visible window, plus the next page as the cursor nears it, and an LRU keeps at most
`MAX_PAGES` pages; rows not loaded yet render as a dim placeholder until their page arrives.

The widget never talks to the API: the screen hands it a `loader(offset, limit) -> Page`.

Why one module of more than 800 lines: the virtual table is one concept (window, page cache,
cursor, marks painted in one pass), and its rendering and paging share the same page cache;
splitting it would pass that cache between modules.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui.bindings import TABLE_BINDINGS
from paytui.ui.first_page import PAGE_SIZE as FIRST_PAGE_SIZE
from paytui.ui.first_page import FirstPage, RowView
from paytui.ui.marks import MARK, Marks
from paytui.ui.messages import Latest
from paytui.ui.widgets.columns import layout_columns as fit_columns
from paytui.ui.widgets.list_state import UNREADABLE_LABEL

if TYPE_CHECKING:
    from paytui.actions.claims import Claim
    from paytui.actions.presence import Presence
    from paytui.api.models import Charge, Page, UnreadableItem
    from paytui.charge_state import RefundPosition

PageLoader = Callable[[int, int], Awaitable["Page[Any]"]]

#: Before a claimed charge's id: another agent's claim, and this paytui's own (signs, not colours
#: alone; the screen's status line says who).
CLAIMED = "⚑"
CLAIMED_MINE = "⚐"
#: Another agent has the charge open now ("ana viewing": `paytui.actions.presence`).
PRESENT = "◉"
#: Before a row that cannot show it matches the search's filters (`Page.unproven`: the service
#: does not show the field): never taken for a match (the status line says what it means; the
#: command line's `proven: false`).
UNPROVEN = "?"
#: The State cell of a row whose refunds are not read yet (`charge_state.UNKNOWN`).
UNKNOWN_STATE = "?"
#: The same in words, where there is room for them (a charge's heading, a spoken row).
UNKNOWN_STATE_WORDS = "refunds not read yet"


def _rows(page: Page[Any]) -> list[Any]:
    """A page's rows in the order sent; items that could not be read keep their places."""
    rows = getattr(page, "rows", None)
    return rows() if callable(rows) else list(page.items)


def _is_unreadable(item: object) -> bool:
    """By class name, like `widgets.errors`: importing the models (pydantic) here would cost the
    first paint."""
    return type(item).__name__ == "UnreadableItem"


def _is_charge(item: object) -> bool:
    """A row holding a charge: not a row still loading, not an unreadable item, and not a preview
    row (`show_preview`: what the first-page child read; nothing may act on it)."""
    return item is not None and not _is_unreadable(item) and not isinstance(item, RowView)


def _unreadable_cells(item: UnreadableItem, widths: list[tuple[Column, int]]) -> list[Text]:
    """An "unreadable row": its id where the id goes, why in the widest column."""
    cells = [Text("") for _ in widths]
    keys = [column.key for column, _ in widths]
    cells[0] = Text(UNREADABLE_LABEL, style=fmt.tone("bold error"))
    if "id" in keys:
        cells[keys.index("id")] = fmt.literal(item.id or "?")
    free = [i for i in range(1, len(widths)) if keys[i] != "id"]  # never over the id
    widest = max(free, key=lambda i: widths[i][1], default=0)
    if widest:
        cells[widest] = fmt.literal(item.reason, style="dim")
    return cells


def _text(value: object) -> Text:
    return fmt.literal(value)


def _method(charge: Any) -> Text:
    """Card brand (or "bank") and the last four digits: what a caller reads off their statement."""
    method = getattr(charge, "method", None) or ""
    payment_method = getattr(charge, "payment_method", None)
    brand = getattr(payment_method, "type", None) if method == "card" else None
    label = brand or ("bank" if method == "bank_account" else method)
    last4 = getattr(charge, "last4", None) or ""
    return Text(safe(f"{label} {last4}".strip()))


def _tags(charge: Any) -> Text:
    return Text(safe(", ".join(str(tag) for tag in (getattr(charge, "tags", None) or []))))


def _charge_id(charge: Any) -> Text:
    """The whole id: a narrow column cuts it with an ellipsis, a wide one shows all of it."""
    return Text(safe(str(getattr(charge, "charge_id", "") or "")))


#: How each state word shows (the word itself says it: the colour only repeats it).
_STATE_TONES = {
    "Disputed": "bold error",
    "Disputed (open)": "bold error",
    "Disputed (?)": "bold error",
    "Lost": "bold error",
    "Won": "success",
    "Returned": "bold warning",
    "Refunded": "warning",
    "?": "dim",
    UNKNOWN_STATE_WORDS: "dim",
}


def state_text(words: Sequence[str]) -> Text:
    """State words (`paytui.charge_state`), comma-separated, each in its tone; "" for none."""
    text = Text()
    for index, word in enumerate(words):
        if index:
            text.append(", ")
        text.append(word, style=fmt.tone(_STATE_TONES.get(word, "")))
    return text


def _state_cell(words: Sequence[str]) -> Text:
    """A row's State cell: `state_text`, but one word is one styled text, not a span (a row whose
    cells have no spans is painted without Rich, `row_segments`; most rows with a state have one
    word, a dispute or a capture). Only for the cell: text appended to it would take its style."""
    if len(words) == 1:
        return Text(words[0], style=fmt.tone(_STATE_TONES.get(words[0], "")))
    return state_text(words)


def _state(charge: Any) -> Text:
    """What the row itself shows of disputes, returns and captures; ``?`` for refunds not read
    yet (the table draws the row again with them, `set_refunds`)."""
    from paytui.charge_state import state_words

    if isinstance(charge, RowView):  # the first paint's rows: told in the child
        return _state_cell(
            state_words(charge, may_refund=charge.may_refund, dispute=charge.dispute)
        )
    return _state_cell(state_words(charge))


def _charge_type(charge: Any) -> Text:
    """Sale, auth, pre-auth or capture: an authorization must not look like a sale."""
    return Text(fmt.charge_type_name(getattr(charge, "charge_type", None)) or "—")


@dataclass(frozen=True)
class Column:
    """One column: fixed `width` (or flexible with `min_width`), server sort field, priority.

    When the terminal is narrow, columns with the highest `priority` number are dropped first.
    """

    key: str
    label: str
    width: int | None
    sort: str | None
    render: Callable[[Any], Text]
    priority: int = 0
    right: bool = False
    min_width: int = 6
    descending_first: bool = False
    #: A fixed column whose values can be longer (ids, result codes): spare width widens it up
    #: to this, in `priority` order, before any flexible (free text) column gets wider.
    max_width: int | None = None


COLUMNS: tuple[Column, ...] = (
    Column(
        "time",
        "Time",
        19,
        "charge_timestamp",
        lambda c: Text(fmt.timestamp(getattr(c, "charge_timestamp", None))),
        descending_first=True,
    ),
    # Which go first when the width is short (highest number first): tags and account, the
    # result code (status says most of it), then the name (free text: it takes what is left)
    # and the card. At 80 columns: time, id (cut with an ellipsis), status, type, state, amount.
    Column("id", "Charge", 9, "charge_id", _charge_id, priority=1, max_width=24),
    Column("status", "Status", 10, "status", lambda c: fmt.status(getattr(c, "status", None))),
    Column("type", "Type", 8, None, _charge_type),
    # Beside the status, as Stripe's list: the state the row shows (docs/screens.md). Kept
    # before the card at 80 columns: "refunded? disputed? won?" is read off the list.
    Column("state", "State", 15, None, _state, priority=2, max_width=26),
    Column(
        "result",
        "Result",
        12,
        "result_code",
        lambda c: fmt.result_code(getattr(c, "result_code", None)),
        priority=4,
        max_width=23,
    ),
    Column(
        "amount",
        "Amount",
        11,
        "total_amount",
        lambda c: Text(fmt.money(getattr(c, "total_amount", None))),
        right=True,
        descending_first=True,
    ),
    # 15: a whole "mastercard 4444" (the last four are what a caller reads off their statement).
    Column("method", "Method", 15, "method", _method, priority=3, max_width=18),
    Column(
        "name",
        "Contact",
        None,
        "contact_name",
        lambda c: _text(getattr(c, "contact_name", None)),
        priority=3,
        min_width=18,  # a whole name ("Karen Spärck Jones") wherever it is shown
    ),
    Column(
        "account",
        "Account",
        12,
        "account_id",
        lambda c: _text(getattr(c, "account_id", None)),
        priority=5,
        max_width=23,
    ),
    Column("tags", "Tags", None, None, _tags, priority=5, min_width=6),
)
SORT_FIELDS: tuple[str, ...] = tuple(c.sort for c in COLUMNS if c.sort)

#: The columns of a list of chargebacks (`status:chargeback`, `dispute:`): the case of each row
#: (`paytui.today.cases`: reason code and the network's words, stage, status, age, time left)
#: after the state, free text taking what is left; drawn by the table (`ChargeTable.case_of`).
CASE_COLUMN = Column("case", "Case", None, None, lambda c: Text(""), priority=3, min_width=24)
CASE_COLUMNS: tuple[Column, ...] = (
    # The spare width goes to the case, not to whole ids or a wider state.
    *(
        dataclasses.replace(c, max_width=None)
        for c in COLUMNS
        if c.key not in {"name", "tags", "account", "result"}
    ),
    CASE_COLUMN,
)


def _fitted(plain: str, width: int, right: bool) -> str:
    """`plain` in exactly `width` cells: cut with an ellipsis, padded on the side away from its
    alignment (what `Text.truncate(overflow="ellipsis")` and `align` / `pad_right` do)."""
    length = cell_len(plain)
    if length > width:
        plain = set_cell_size(plain, width - 1) + "…"
        length = cell_len(plain)
    if length < width:
        pad = " " * (width - length)
        plain = pad + plain if right else plain + pad
    return plain


def row_segments(
    cells: Sequence[Text],
    widths: Sequence[tuple[Column, int]],
    base: Style,
    console: Console,
    *,
    lead: str = " ",
) -> list[Segment]:
    """One row's segments: `lead` (the leading pad column, or the mark), then the cells in their
    widths, one space apart, all over `base`. The segments of `rich_row_segments` (the line built
    as one `Text` and rendered by Rich, `base` under every segment), without building it when no
    cell has spans of its own (a cell of one style is one segment, an unstyled one joins its
    neighbours'): painting the rows that way was most of a search's paint, about 0.4 ms a row.
    A row with a styled part inside a cell (state words, a claim's sign) still goes through Rich.
    """
    if any(cell.spans for cell in cells):
        return rich_row_segments(cells, widths, base, console, lead)
    get_style = console.get_style
    segments: list[Segment] = []
    run = [lead]  # unstyled text so far: one segment in `base`
    last = len(widths) - 1
    for index, (cell, (column, cell_width)) in enumerate(zip(cells, widths, strict=True)):
        text = _fitted(cell.plain, cell_width, column.right)
        if cell.style:
            if run:
                segments.append(Segment("".join(run), base))
                run = []
            segments.append(Segment(text, base + get_style(cell.style, default=Style.null())))
        else:
            run.append(text)
        if index < last:
            run.append(" ")
    if not segments:  # no styled part at all: one segment, in the row's style
        return [Segment("".join(run), base)]
    if run:
        segments.append(Segment("".join(run), base))
    return segments


def rich_row_segments(
    cells: Sequence[Text],
    widths: Sequence[tuple[Column, int]],
    base: Style,
    console: Console,
    lead: str,
) -> list[Segment]:
    """The same row built as one `Text` and rendered by Rich, `base` under every segment (the
    reference `row_segments` is tested against)."""
    line = Text(lead, style=base, no_wrap=True, end="")
    for index, (cell, (column, cell_width)) in enumerate(zip(cells, widths, strict=True)):
        fitted = cell.copy()
        fitted.no_wrap = True
        fitted.truncate(cell_width, overflow="ellipsis")
        if column.right:
            fitted.align("right", cell_width)
        else:
            fitted.pad_right(cell_width - fitted.cell_len)
        line.append_text(fitted)
        if index < len(widths) - 1:
            line.append(" ")
    # `Text.render` leaves a line without spans unstyled (its own style is for the console to
    # apply): the row's style goes under every segment here, so a header or a placeholder row
    # shows in its style too.
    return [
        Segment(seg.text, base + seg.style if seg.style else base)
        for seg in line.render(console, end="")
    ]


def layout_columns(width: int, columns: Sequence[Column] = COLUMNS) -> list[tuple[Column, int]]:
    """The charge list's columns in `width` cells (the app's one rule: `widgets.columns`).
    The list's own columns are laid out once per width (every row painted asks); the list
    returned is shared: read it, never change it."""
    if columns is COLUMNS or columns is CASE_COLUMNS:
        laid = _LAID_OUT.get((id(columns), width))
        if laid is None:
            laid = _LAID_OUT[(id(columns), width)] = fit_columns(width, columns)
        return laid
    return fit_columns(width, columns)


#: `layout_columns` of `COLUMNS` (and `CASE_COLUMNS`) by width.
_LAID_OUT: dict[tuple[int, int], list[tuple[Column, int]]] = {}


class ChargeTable(ScrollView, can_focus=True):
    """Virtual, lazily paged charge list with a cursor, vim keys and server-side sorting."""

    BINDINGS: ClassVar[list[BindingType]] = [*TABLE_BINDINGS]
    HELP_TITLE = "Results table"
    KEYS_TITLE = "Tables"
    PAGE_SIZE = FIRST_PAGE_SIZE  # the first-page child reads the same page
    #: Few pages and lines are held: every object they hold (a charge is a dozen, a cached line
    #: two dozen) is walked by each full GC collection, a pause in whatever frame it falls on
    #: (20 pages and 512 lines: 60,000 objects, 30-60 ms; 8 and 128: 27,000, 15-20 ms).
    MAX_PAGES = 8
    PREFETCH_ROWS = 30
    #: The cursor's moves: the only keys a preview's rows take (`show` keeps the cursor on the
    #: same charge); anything else typed on them waits for the real rows (`ui/held_keys.py`).
    MOVES = frozenset(
        {"cursor_down", "cursor_up", "cursor_top", "cursor_bottom", "page_down", "page_up"}
    )

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "charge-table--header",
        "charge-table--cursor",
        "charge-table--placeholder",
    }

    DEFAULT_CSS = """
    ChargeTable {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        background: $surface;
    }
    ChargeTable > .charge-table--header {
        background: $panel;
        color: $text;
        text-style: bold;
    }
    ChargeTable > .charge-table--cursor {
        background: $block-cursor-blurred-background;
        color: $block-cursor-blurred-foreground;
    }
    ChargeTable:focus > .charge-table--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    ChargeTable > .charge-table--placeholder {
        color: $text-disabled;
    }
    """

    cursor_row: reactive[int] = reactive(0, always_update=True)

    class Highlighted(Latest):
        """The cursor moved; `charge` is None while its page is still loading."""

        def __init__(self, row: int, charge: Charge | None, origin: object = None) -> None:
            super().__init__(origin)
            self.row = row
            self.charge = charge

    class Selected(Message):
        """Enter (or a click on the cursor row) on a loaded row."""

        def __init__(self, row: int, charge: Charge) -> None:
            super().__init__()
            self.row = row
            self.charge = charge

    class WindowChanged(Latest):
        """The visible rows or the total changed: for "Showing N of M"."""

        def __init__(self, first: int, last: int, total: int, origin: object = None) -> None:
            super().__init__(origin)
            self.first = first
            self.last = last
            self.total = total

    class PagingStopped(Message):
        """The list stopped before its end (`Page.paging_note`: the service ignores paging)."""

        def __init__(self, note: str) -> None:
            super().__init__()
            self.note = note

    class PageLoaded(Message):
        """A page of rows arrived (the first one included): their charge ids, in list order."""

        def __init__(self, page: int, charge_ids: list[str]) -> None:
            super().__init__()
            self.page = page
            self.charge_ids = charge_ids

    class PageFailed(Message):
        """A page could not be loaded; its rows stay placeholders until a refresh."""

        def __init__(self, page: int, error: Exception) -> None:
            super().__init__()
            self.page = page
            self.error = error

    class SortRequested(Message):
        """A column header was clicked."""

        def __init__(self, sort_field: str) -> None:
            super().__init__()
            self.sort_field = sort_field

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._loader: PageLoader | None = None
        self._pages: OrderedDict[int, list[Any]] = OrderedDict()  # charges, unreadable, previews
        self._loading: set[int] = set()
        self._failed: set[int] = set()
        self._generation = 0
        self._strip_cache: LRUCache[tuple[object, ...], Strip] = LRUCache(128)  # see MAX_PAGES
        #: The table's style while one paint runs (`render_lines`), else None.
        self._paint_style: Style | None = None
        #: Which load of each held page its rows show (part of a line's cache key, so a page
        #: arriving or failing re-renders its own rows and no others).
        self._stamps: dict[int, int] = {}
        self._loads = 0
        self.total = 0
        self.sort: str | None = None
        self.pages_fetched = 0
        """How many pages were fetched since the last `show` (tests and diagnostics)."""
        self.marks = Marks()
        """Marked charges, by id: kept across `show` (paging, sorting, refresh) on purpose."""
        self.unproven: set[str] = set()
        """Rows of the result shown that cannot show they match its filters, by charge id."""
        self.claims: dict[str, Claim] = {}
        """The live claims on loaded rows as last read (by charge id; `set_claims`)."""
        self.claim_owner: str | None = None
        """This paytui (`ActionExecutor.owner`): its own claims show as such."""
        self._claims_version = 0
        self.presence: dict[str, tuple[Presence, ...]] = {}
        """Who else has each charge open now (by charge id; `set_presence`)."""
        self._presence_version = 0
        self.refunds: dict[str, RefundPosition] = {}
        """Refunds read of the rows shown (by charge id; `set_refunds`, read a window at a time
        by the screen): their State cell says Refunded / Partly refunded, ``?`` until read. A
        row carries no refund total of its own. Forgotten with the rows (`show`). A line's cache
        key holds its own row's (`_refunds_of_row`): refunds read for some rows draw those again,
        not every row on screen (a held `j` read the rows scrolled in a few at a time and drew the
        whole window again for each few)."""
        self.columns: tuple[Column, ...] = COLUMNS
        """The columns shown: `COLUMNS`, or `CASE_COLUMNS` for a list of chargebacks."""
        self.case_of: Callable[[Any], Text] | None = None
        """The Case cell of a charge (set by the screen with `CASE_COLUMNS`)."""

    # --- data ----------------------------------------------------------------------------------
    def show(
        self,
        loader: PageLoader,
        first_page: Page[Any],
        *,
        sort: str | None = None,
        cursor: int = 0,
        at: str | None = None,
    ) -> None:
        """Start showing a new result: `first_page` is page 0 (offset 0, PAGE_SIZE rows).

        Replacing a preview (`show_preview`), the cursor stays on the charge it was on; `at`:
        the charge to put it on otherwise, when among the rows (a preview's, dropped since)."""
        previewed = self.row_at(self.cursor_row) if self.previewing else None
        if isinstance(previewed, RowView):
            at = previewed.charge_id
        self._forget(loader)
        self.unproven.update(getattr(first_page, "unproven", None) or ())
        self.pages_fetched = 1
        items = _rows(first_page)
        if at is not None:
            ids = [getattr(item, "charge_id", None) for item in items]
            cursor = ids.index(at) if at in ids else cursor
        self._first_rows(items, first_page.total, first_page.has_more, sort, cursor)
        self.post_message(self.PageLoaded(0, self._ids(items)))

    def show_preview(self, first: FirstPage, *, sort: str | None = None) -> None:
        """Show the first page as the first-page child read it (`paytui.ui.first_page`) until
        `show` replaces it: rows to read and move over (`MOVES`), not charges to act on
        (`charge_at` gives None for them: a key that acts on one waits for the real rows,
        `ui/held_keys.py`); no more pages are fetched for it."""
        self._forget(None)
        self._first_rows(list(first.rows), first.total, first.has_more, sort, 0)

    def _forget(self, loader: PageLoader | None) -> None:
        """Drop the rows shown, their loads and failures and the cached lines; a new generation
        (a page still arriving for the old one is ignored)."""
        self.workers.cancel_node(self)
        self._generation += 1
        self._loader = loader
        self._pages.clear()
        self._loading.clear()
        self._failed.clear()
        self._strip_cache.clear()
        self._stamps.clear()
        self.unproven.clear()
        self.refunds.clear()

    def _first_rows(
        self, items: list[Any], total: int | None, has_more: bool, sort: str | None, cursor: int
    ) -> None:
        """Page 0 of a new result, its row count (the service's, else as far as known), the
        cursor on `cursor`, scrolled to the top."""
        self.sort = sort
        self._pages[0] = items
        self._stamp(0)
        self.total = total if total is not None else len(items) + int(has_more)
        self.virtual_size = Size(self.size.width, self.total + 1)
        self.scroll_to(y=0, animate=False, immediate=True)
        self.cursor_row = min(max(0, cursor), max(0, self.total - 1))
        self.refresh()
        self._post_window()

    @property
    def previewing(self) -> bool:
        """The rows shown are the first-page child's (`show_preview`), not yet the search's."""
        page = self._pages.get(0) or [None]
        return isinstance(page[0], RowView)

    @staticmethod
    def _ids(items: list[Any]) -> list[str]:
        return [item.charge_id for item in items if _is_charge(item)]

    def set_presence(self, people: dict[str, tuple[Presence, ...]]) -> None:
        """Who else has which charge open now: their rows show it (`PRESENT` and the words)."""
        if people != self.presence:
            self.presence = dict(people)
            self._presence_version += 1
            self._strip_cache.clear()
            self.refresh()

    def set_claims(self, charge_ids: list[str], found: dict[str, Claim], owner: str | None) -> None:
        """The claims just read for `charge_ids` (rows without one in `found` have none); the
        lines are drawn again only when one changed."""
        before = {key: self.claims.pop(key) for key in charge_ids if key in self.claims}
        now = {key: found[key] for key in charge_ids if key in found}
        self.claims.update(now)
        if now != before or owner != self.claim_owner:
            self.claim_owner = owner
            self._claims_version += 1
            self.refresh()

    @property
    def generation(self) -> int:
        """Which result the rows are: a new search or a refresh makes a new one (`_forget`), so
        what was read for the rows before is not taken for the rows now."""
        return self._generation

    def set_refunds(self, charge_id: str, position: RefundPosition) -> None:
        """What the refunds of `charge_id` add up to, as just read; drawn again if it changed."""
        self.set_refunds_of({charge_id: position})

    def set_refunds_of(self, positions: dict[str, RefundPosition]) -> None:
        """The refunds of several rows, as just read: drawn again once if any changed."""
        changed = {k: v for k, v in positions.items() if self.refunds.get(k) != v}
        if changed:
            self.refunds.update(changed)
            self.refresh()

    def window_charges(self) -> list[Charge]:
        """The loaded charges of the rows on screen (and the cursor's), top to bottom."""
        if self.total <= 0:
            return []
        first = self.scroll_offset.y
        rows = range(first, min(self.total, first + max(1, self._data_height)))
        found = [self.charge_at(row) for row in rows]
        if self.cursor_row not in rows:
            found.append(self.charge_at(self.cursor_row))
        return [charge for charge in found if charge is not None]

    def loaded_ids(self) -> list[str]:
        """The charge ids of every page held, in list order."""
        return [i for index in sorted(self._pages) for i in self._ids(self._pages[index])]

    def loaded_from(self, row: int) -> list[tuple[int, Charge]]:
        """(row, charge) of every loaded charge from `row` down, in list order: the pages held
        (a few hundred rows), never a walk over the whole virtual list."""
        found: list[tuple[int, Charge]] = []
        for index in sorted(self._pages):
            start = index * self.PAGE_SIZE
            for offset, item in enumerate(self._pages[index]):
                if start + offset >= row and _is_charge(item):
                    found.append((start + offset, item))
        return found

    def clear(self) -> None:
        """No result (before the first search, or after an error)."""
        self._forget(None)
        self.total = 0
        self.virtual_size = Size(self.size.width, 1)
        self.refresh()
        self._post_window()

    @property
    def cached_pages(self) -> int:
        """Pages held in memory right now (bounded by MAX_PAGES)."""
        return len(self._pages)

    @property
    def failed_pages(self) -> frozenset[int]:
        return frozenset(self._failed)

    def charge_at(self, row: int) -> Charge | None:
        """The charge on `row`, or None when its page is not loaded or the row is unreadable."""
        item = self.row_at(row)
        return item if _is_charge(item) else None

    def row_at(self, row: int) -> Any:
        """What row `row` holds: a charge, an `UnreadableItem`, or None when not loaded."""
        if not 0 <= row < self.total:
            return None
        page_index, index = divmod(row, self.PAGE_SIZE)
        page = self._pages.get(page_index)
        if page is None or index >= len(page):
            return None
        return page[index]

    @property
    def cursor_charge(self) -> Charge | None:
        return self.charge_at(self.cursor_row)

    def retry_failed(self) -> None:
        """Try again the pages that failed (ctrl+r on the screen)."""
        self._failed.clear()
        self.refresh()  # their rows say "loading…" again
        self._request_pages()

    def _wanted_pages(self) -> list[int]:
        """Pages of the visible window, then the neighbours the cursor is about to reach."""
        if self.total <= 0:
            return []
        first = self.scroll_offset.y
        last = min(self.total - 1, first + max(1, self._data_height) - 1)
        wanted = list(range(first // self.PAGE_SIZE, last // self.PAGE_SIZE + 1))
        cursor_page, cursor_index = divmod(self.cursor_row, self.PAGE_SIZE)
        if cursor_page not in wanted:
            wanted.append(cursor_page)
        if (
            cursor_index >= self.PAGE_SIZE - self.PREFETCH_ROWS
            and (cursor_page + 1) * self.PAGE_SIZE < self.total
        ):
            wanted.append(cursor_page + 1)
        if cursor_index < self.PREFETCH_ROWS and cursor_page > 0:
            wanted.append(cursor_page - 1)
        return wanted

    def _request_pages(self) -> None:
        if self._loader is None:
            return
        for page_index in self._wanted_pages():
            if page_index in self._pages:
                self._pages.move_to_end(page_index)
            elif page_index not in self._loading and page_index not in self._failed:
                self._loading.add(page_index)
                self.run_worker(
                    self._load_page(page_index, self._generation),
                    group=f"page-{page_index}",
                    exclusive=True,
                    exit_on_error=False,
                )

    async def _load_page(self, page_index: int, generation: int) -> None:
        loader = self._loader
        assert loader is not None
        try:
            page = await loader(page_index * self.PAGE_SIZE, self.PAGE_SIZE)
        except Exception as exc:
            if generation == self._generation:
                self._loading.discard(page_index)
                self._failed.add(page_index)
                self.refresh()  # its rows say "not loaded" now
                self.post_message(self.PageFailed(page_index, exc))
            return
        if generation != self._generation:
            return
        self._loading.discard(page_index)
        self._pages[page_index] = _rows(page)
        self.unproven.update(page.unproven)
        arrived = self._ids(self._pages[page_index])
        self._stamp(page_index)
        if len(self.marks):
            for item in self._pages[page_index]:
                if not _is_unreadable(item):
                    self.marks.refresh(item)
        self.pages_fetched += 1
        self._evict()
        grown = self._grown(page_index, page)
        if grown is not None and grown != self.total:
            self.total = grown
            self.virtual_size = Size(self.size.width, self.total + 1)
            self.cursor_row = min(self.cursor_row, max(0, self.total - 1))
        if page.paging_note:
            self.post_message(self.PagingStopped(page.paging_note))
        self.post_message(self.PageLoaded(page_index, arrived))
        self.refresh()
        if page_index == self.cursor_row // self.PAGE_SIZE:
            self.post_message(self.Highlighted(self.cursor_row, self.cursor_charge, self))
            self._spoken()
        self._post_window()

    def _grown(self, page_index: int, page: Page[Any]) -> int:
        """The row count after loading `page_index`: the service's count when it gives one;
        without one the list grows as pages arrive (one row more while it may go on) and ends
        at a page that says there is no more."""
        if page.total is not None:
            return page.total
        end = page_index * self.PAGE_SIZE + len(self._pages[page_index])
        if page.has_more:
            return max(self.total, end + 1)
        return end

    def _stamp(self, page_index: int) -> None:
        self._loads += 1
        self._stamps[page_index] = self._loads

    def _row_state(self, row: int) -> tuple[int | None, bool]:
        """What a row's line depends on besides the cursor: its page's load, or its failure."""
        page_index = row // self.PAGE_SIZE
        loaded = self._stamps.get(page_index) if page_index in self._pages else None
        return loaded, page_index in self._failed

    def _refunds_of_row(self, row: int) -> RefundPosition | None:
        """The refunds read of the row's charge (None: not read, or nothing there to read them
        of): all of `refunds` its line is drawn from (`_render_row`, `_cells`)."""
        item = self.row_at(row)
        if item is None or _is_unreadable(item):
            return None
        return self.refunds.get(item.charge_id)

    def _evict(self) -> None:
        """Drop least recently used pages, never one in the visible window, and the refunds read
        of their rows: kept, they grew with every row ever shown (100,000 positions, about
        25 MB, for a walk down 100,000 charges: `paging_rss_ratio` 1.27). A row shown again is
        read again, as its page is."""
        keep = set(self._wanted_pages())
        dropped: list[str] = []
        for page_index in list(self._pages):
            if len(self._pages) <= self.MAX_PAGES:
                break
            if page_index not in keep:
                dropped += self._ids(self._pages.pop(page_index))
        if dropped and self.refunds:
            held = set(self.loaded_ids())  # a row a held page lists too keeps its refunds
            for charge_id in dropped:
                if charge_id not in held:
                    self.refunds.pop(charge_id, None)

    # --- geometry and scrolling ----------------------------------------------------------------
    @property
    def _data_height(self) -> int:
        """Rows of data that fit under the header."""
        return max(0, self.scrollable_content_region.height - 1)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, self.total + 1)
        self._strip_cache.clear()
        self._scroll_cursor_into_view()
        self._request_pages()
        self._post_window()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._request_pages()
        self._post_window()

    def _post_window(self) -> None:
        if not self.is_mounted:
            return
        first = self.scroll_offset.y
        last = min(self.total, first + self._data_height)
        self.post_message(self.WindowChanged(first, last, self.total, self))

    def _scroll_cursor_into_view(self) -> None:
        height = self._data_height
        if height <= 0:
            return
        top = self.scroll_offset.y
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row > top + height - 1:
            self.scroll_to(y=self.cursor_row - height + 1, animate=False, immediate=True)

    def watch_cursor_row(self, old_row: int, new_row: int) -> None:
        # No cache clearing: a line's key holds its row and whether the cursor is on it, so a
        # move (or the scroll it causes) renders only the lines that changed; holding `j`
        # re-rendered all 33 visible rows on every key before.
        self._scroll_cursor_into_view()
        self._request_pages()
        self.refresh()
        self.post_message(self.Highlighted(new_row, self.charge_at(new_row), self))

    def _move(self, row: int) -> None:
        if self.total:
            self.cursor_row = max(0, min(self.total - 1, row))

    def action_cursor_down(self) -> None:
        self._move(self.cursor_row + 1)

    def action_cursor_up(self) -> None:
        self._move(self.cursor_row - 1)

    def action_cursor_top(self) -> None:
        self._move(0)

    def action_cursor_bottom(self) -> None:
        self._move(self.total - 1)

    def action_page_down(self) -> None:
        self._move(self.cursor_row + max(1, self._data_height - 1))

    def action_page_up(self) -> None:
        self._move(self.cursor_row - max(1, self._data_height - 1))

    def opens_a_screen(self, action: str) -> bool:
        """Enter on a loaded row opens its charge (`Selected`, then the detail): the keys typed
        after it wait for that screen (`paytui.ui.held_keys`)."""
        return action == "select" and self.cursor_charge is not None

    def action_select(self) -> None:
        charge = self.cursor_charge
        if charge is not None:
            self.post_message(self.Selected(self.cursor_row, charge))

    def notify_style_update(self) -> None:
        """A theme or CSS change restyles every line: the cached ones are stale."""
        super().notify_style_update()
        self._strip_cache.clear()

    def on_focus(self) -> None:
        self._strip_cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._strip_cache.clear()
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            x = offset.x - 1  # the leading pad column
            for column, width in layout_columns(self._content_width, self.columns):
                if x < width + 1:
                    if column.sort:
                        self.post_message(self.SortRequested(column.sort))
                    return
                x -= width + 1
            return
        row = self.scroll_offset.y + offset.y - 1
        if 0 <= row < self.total:
            if row == self.cursor_row:
                self.action_select()
            else:
                self.cursor_row = row

    # --- rendering -----------------------------------------------------------------------------
    @property
    def _content_width(self) -> int:
        return max(1, self.scrollable_content_region.width - 1)

    def render_lines(self, crop: Region) -> list[Strip]:
        # The table's style is the same for every line of one paint, and working it out (the
        # ancestors' backgrounds) cost as much as drawing a row: once per paint, not per row.
        self._paint_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._paint_style = None

    @property
    def _base_style(self) -> Style:
        return self._paint_style if self._paint_style is not None else self.rich_style

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = self.scroll_offset.y + y - 1
        is_cursor = y > 0 and row == self.cursor_row
        key = (
            self._generation,
            "header" if y == 0 else row,
            width,
            is_cursor,
            self.has_focus,
            self.sort,
            self.total,
            self.marks.version,
            self._claims_version,
            self._presence_version,
            id(self.columns),
            None if y == 0 else self._row_state(row),
            None if y == 0 else self._refunds_of_row(row),
        )
        cached = self._strip_cache.get(key)
        if cached is not None:
            return cached
        if y == 0:
            strip = self._render_header(width)
        elif row >= self.total:
            strip = Strip.blank(width, self._base_style)
        else:
            strip = self._render_row(row, width, is_cursor)
        self._strip_cache[key] = strip
        return strip

    def _cells_to_strip(
        self,
        cells: list[Text],
        widths: list[tuple[Column, int]],
        base: Style,
        width: int,
        *,
        marked: bool = False,
        unproven: bool = False,
    ) -> Strip:
        # A marked row shows the mark in its leading pad column (a sign, not a colour alone),
        # and the whole row in the mark's tone; a row not proven to match shows `UNPROVEN`
        # there, the row dimmed.
        lead = " "
        row_base = base
        if marked:
            lead, row_base = MARK, base + fmt.tone("bold accent")
        elif unproven:
            lead, row_base = UNPROVEN, base + fmt.tone("dim")
        segments = row_segments(cells, widths, row_base, self.app.console, lead=lead)
        return Strip(segments).adjust_cell_length(width, base)

    def _render_header(self, width: int) -> Strip:
        base = self._base_style + self.get_component_rich_style("charge-table--header")
        widths = layout_columns(max(1, width - 1), self.columns)
        sort_field = (self.sort or "-charge_timestamp").lstrip("-")
        descending = (self.sort or "-charge_timestamp").startswith("-")
        cells = []
        for column, _ in widths:
            label = column.label
            if column.sort and column.sort == sort_field:
                label += " ▼" if descending else " ▲"
            cells.append(Text(label))
        return self._cells_to_strip(cells, widths, base, width)

    def _cells(self, charge: Any, columns: Sequence[Column]) -> list[Text]:
        """A charge's cells in `columns`: as the columns render them, the State with the
        refunds read since, the Case from the screen (the row painted and the row spoken)."""
        cells = [column.render(charge) for column in columns]
        keys = [column.key for column in columns]
        position = self.refunds.get(charge.charge_id)
        if position is not None and "state" in keys:
            from paytui.charge_state import state_words

            cells[keys.index("state")] = _state_cell(state_words(charge, refunds=position))
        if self.case_of is not None and "case" in keys:
            cells[keys.index("case")] = self.case_of(charge)
        return cells

    def spoken_row(self) -> str:
        """The row under the cursor as a sentence, every column of the list (those the width
        drops included), with what the row's signs mean in words: screen-reader mode."""
        from paytui.ui.announcer import row_sentence

        if not self.total:
            return "No rows."
        row = self.cursor_row
        position = f"Row {row + 1:,} of {self.total:,}"
        item = self.row_at(row)
        if item is None:
            failed = (row // self.PAGE_SIZE) in self._failed
            return f"{position}: " + ("not loaded, ctrl+r retries." if failed else "loading.")
        if _is_unreadable(item):
            return f"{position}: {UNREADABLE_LABEL} {safe(item.id or '?')}, {safe(item.reason)}."
        columns = list(self.columns)
        cells = self._cells(item, columns)
        keys = [column.key for column in columns]
        if "state" in keys and cells[keys.index("state")].plain == UNKNOWN_STATE:
            cells[keys.index("state")] = Text(UNKNOWN_STATE_WORDS)
        said = row_sentence([c.label for c in columns], cells, position)
        notes = []
        if getattr(item, "charge_id", None) in self.marks:
            notes.append("Marked.")
        if getattr(item, "charge_id", None) in self.unproven:
            notes.append("Not proven to match the search.")
        claim = self.claims.get(getattr(item, "charge_id", ""))
        if claim is not None:
            notes.append(f"{safe(claim.describe(owner=self.claim_owner))}.")
        people = self.presence.get(getattr(item, "charge_id", ""))
        if people:
            from paytui.actions.presence import presence_words

            notes.append(f"{safe(presence_words(people))}.")
        return " ".join([said, *notes])

    def _spoken(self) -> None:
        """The row under the cursor changed or arrived: the announcer hears of it (in
        screen-reader mode only; it says nothing when this list has no focus)."""
        announcer = getattr(self.app, "announcer", None)
        if announcer is not None:
            announcer.row_changed(self)

    def _render_row(self, row: int, width: int, is_cursor: bool) -> Strip:
        base = self._base_style
        if is_cursor:
            base = base + self.get_component_rich_style("charge-table--cursor")
        widths = layout_columns(max(1, width - 1), self.columns)
        item = self.row_at(row)
        if _is_unreadable(item):
            return self._cells_to_strip(_unreadable_cells(item, widths), widths, base, width)
        charge = item
        if charge is None:
            placeholder = base + self.get_component_rich_style(
                "charge-table--placeholder", partial=True
            )
            failed = (row // self.PAGE_SIZE) in self._failed
            cells = [Text("·" * min(cell_width, 8)) for _, cell_width in widths]
            cells[0] = Text("not loaded (ctrl+r)" if failed else "loading…")
            return self._cells_to_strip(cells, widths, placeholder, width)
        if self._pages and row // self.PAGE_SIZE in self._pages:
            self._pages.move_to_end(row // self.PAGE_SIZE)
        keys = [column.key for column, _ in widths]
        cells = self._cells(charge, [column for column, _ in widths])
        claim = self.claims.get(charge.charge_id)
        if claim is not None and "id" in keys:
            mine = claim.mine(self.claim_owner)
            sign = Text(
                CLAIMED_MINE if mine else CLAIMED,
                style=fmt.tone("bold accent" if mine else "bold warning"),
            )
            cells[keys.index("id")] = Text.assemble(sign, cells[keys.index("id")])
        people = self.presence.get(charge.charge_id)
        if people:
            from paytui.actions.presence import presence_words

            sign = Text(PRESENT, style=fmt.tone("bold warning"))
            if "name" in keys:  # the widest column says who and what: "◉ ana viewing"
                index = keys.index("name")
                words = Text(f"{PRESENT} {safe(presence_words(people))} · ")
                words.stylize(fmt.tone("bold warning"))
                cells[index] = Text.assemble(words, cells[index])
            elif "id" in keys:
                cells[keys.index("id")] = Text.assemble(sign, cells[keys.index("id")])
        marked = charge.charge_id in self.marks
        unproven = charge.charge_id in self.unproven
        return self._cells_to_strip(cells, widths, base, width, marked=marked, unproven=unproven)
