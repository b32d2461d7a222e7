"""Accounts (`3`): every payment account the credentials can see, grouped by merchant.

The person on this screen is usually waiting for a merchant to be boarded: `f` narrows the list
to one boarding status, `w` turns on watch mode (a re-read every few seconds that highlights and
announces any account whose status moved), `enter` opens an account with its recent charges.

Accounts are few (tens, not thousands), so the whole list is read (paged under the hood: the one
list base's `READ_ALL_UP_TO`) and grouped here; reads run in an exclusive worker and a watch
tick never starts a second read while one is still in flight, so a slow service cannot pile up
requests or block the screen.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import DataTable, Static

from paytui.ui import format as fmt
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.paged_list import PagedListScreen, read_whole
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState, add_unreadable_rows, showing

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Account, Merchant, Page, UnreadableItem

ACCOUNTS_BINDINGS: list[Binding] = [
    Binding(
        "f",
        "cycle_filter",
        "Filter status",
        id="accounts.filter",
        tooltip="Show only one boarding status (cycles; all first)",
    ),
    Binding(
        "F",
        "clear_filter",
        "All statuses",
        id="accounts.filter_clear",
        show=False,
        tooltip="Show every boarding status",
    ),
    Binding(
        "w",
        "toggle_watch",
        "Watch",
        id="accounts.watch",
        tooltip="Re-read every few seconds and highlight status changes",
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="accounts.refresh", tooltip="Reload / retry"),
]

#: Rows that group accounts under their merchant have keys with this prefix.
MERCHANT_ROW = "merchant:"
#: At 80 columns: the account id whole, its name and status; tax and message come back wider.
ACCOUNT_COLUMNS = (
    FitColumn("account", "Account", min_width=25),  # "  pa_" + a whole id
    FitColumn("name", "Name", min_width=14),
    FitColumn("status", "Status", min_width=15),
    FitColumn("tax", "Tax authority", priority=3, min_width=13),
    FitColumn("message", "Status message", priority=2, min_width=20, free_text=True),
)
#: How a status change since the last read looks (on top of the status colour).
CHANGED_STYLE = Style(bold=True, reverse=True)


class StatusFilterCommands(Provider):
    """Command palette on the accounts screen: "Accounts: show only <status>" for each status."""

    def _commands(self) -> list[tuple[str, str, str | None]]:
        commands: list[tuple[str, str, str | None]] = [
            ("Accounts: show all statuses", "Clear the boarding status filter", None)
        ]
        screen = self.screen
        seen = [a.status for a in screen.accounts] if isinstance(screen, AccountsScreen) else []
        for status in fmt.boarding_statuses(seen):
            meaning = fmt.boarding_meaning(status)
            about = f"Boarding status {status}" + (f" ({meaning})" if meaning else "")
            commands.append((f"Accounts: show only {status}", about, status))
        return commands

    def _run(self, status: str | None) -> None:
        screen = self.screen
        if isinstance(screen, AccountsScreen):
            screen.set_status_filter(status)

    async def discover(self) -> Hits:
        for name, help_text, status in self._commands():
            yield DiscoveryHit(name, partial(self._run, status), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, status in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(name), partial(self._run, status), help=help_text
                )


class AccountsScreen(PagedListScreen["Account"]):
    """Accounts grouped by merchant, with a status filter and watch mode: a `PagedListScreen`
    that reads the whole list (`READ_ALL_UP_TO`) and shows it grouped (`show_first`)."""

    CSS_PATH = Path(__file__).with_name("accounts.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*ACCOUNTS_BINDINGS]
    HELP_TITLE = "Accounts"
    COMMAND_SCOPE = "accounts"
    AUTO_FOCUS = "#accounts"
    COMMANDS: ClassVar = {StatusFilterCommands}
    NOUN = "accounts"
    STATUS_ID = "showing"
    #: Pages of 500; a credential seeing more than 5,000 is not what this screen is for.
    PAGE_SIZE = 500
    READ_ALL_UP_TO = 5000

    def __init__(self) -> None:
        super().__init__()
        #: Accounts the service sent that could not be read: unreadable rows, after the groups.
        self.unreadable: list[UnreadableItem] = []
        self.merchants: dict[str, Merchant] = {}
        self.status_filter: str | None = None
        self.watching = False
        self.changed_ids: set[str] = set()
        """Accounts whose status changed during this watch session (highlighted)."""
        self._previous: dict[str, str | None] | None = None
        self._watch_timer: Timer | None = None
        self._last_read: str | None = None

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        with Horizontal(id="summary"):
            yield Static(Text("Accounts"), id="view-name")
            yield Static(Text("status: all"), id="filter-name")
            yield Static(Text(""), id="watch-status")
            yield Static(Text(""), id="showing")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield FitNavTable(ACCOUNT_COLUMNS, id="accounts", cursor_type="row", zebra_stripes=False)
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.query_one(ListState).show_loading("accounts")
        self.load()

    def on_unmount(self) -> None:
        self._stop_timer()

    def on_screen_suspend(self) -> None:
        """Left (another screen, or a detail over it): the watch stops reading — no polling for
        a screen nobody sees — and stays on, to go on where it was when Accounts is back."""
        self._stop_timer()

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.watching and self._watch_timer is None:
            self._start_timer()
            self.load()  # what changed while away, at once

    @property
    def polling(self) -> bool:
        """Whether the watch's re-reads are running (only while Accounts is on screen)."""
        return self._watch_timer is not None

    # --- state ----------------------------------------------------------------------------------
    @property
    def accounts(self) -> list[Account]:
        """Every account read (whatever the filter shows)."""
        return self.items

    @property
    def state(self) -> str:
        """loading | results | empty | error (the list kit's panel holds it)."""
        return self.query_one(ListState).state

    @property
    def error_shown(self) -> bool:
        """True while a failed re-read is shown above the last good list."""
        return self.query_one(ErrorLine).shown

    def read_failed(self, exc: BaseException) -> None:
        # The last good list stays on screen under the error line (watch mode keeps trying).
        note = "watch continues" if self.watching else None
        info = self.query_one(ListState).show_failed(
            exc, rows_on_screen=bool(self.accounts), note=note
        )
        if not (self.watching and self.accounts):
            self.tell_failed(info.title, info.message)

    # --- reading --------------------------------------------------------------------------------
    def load(self, *, select: str | None = None) -> None:
        """Read the accounts again, unless a read is in flight (a watch tick never starts a
        second one)."""
        if not self.reading:
            self.read()

    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[Account]:
        return await client.list_accounts_page(limit=limit, offset=offset)

    async def read_also(self, client: PaymentClient, page: Page[Account]) -> None:
        """The merchants' names, when an account's merchant is not known yet."""
        if not self.merchants or any(a.merchant_id not in self.merchants for a in page.items):
            try:

                async def merchants_at(offset: int, limit: int) -> Page[Merchant]:
                    return await client.list_merchants_page(limit=limit, offset=offset)

                merchants = await read_whole(
                    merchants_at, up_to=self.READ_ALL_UP_TO or 0, limit=self.PAGE_SIZE
                )
            except Exception:  # names are a nicety: group by merchant id without them
                return
            self.merchants.update({m.merchant_id: m for m in merchants.items})

    def show_first(self, page: Page[Account], select: str | None) -> None:
        """The whole list read: grouped by merchant, changes since the last read marked."""
        self.unreadable = list(page.unreadable)
        self._apply(list(page.items))

    def _apply(self, accounts: list[Account]) -> None:
        now = paytui_app(self).now()
        self._last_read = fmt.clock(now)
        current = {a.account_id: a.status for a in accounts}
        if self._previous is not None:
            by_id = {a.account_id: a for a in accounts}
            for account_id, status in current.items():
                before = self._previous.get(account_id, status)
                if before != status:
                    self.changed_ids.add(account_id)
                    name = by_id[account_id].name or ""
                    self.app.notify(
                        f"{account_id} {before or '—'} → {status or '—'}"
                        + (f"\n{name}" if name else ""),
                        title="Boarding status changed",
                        markup=False,
                    )
        self._previous = current
        self.items = accounts
        self._by_key = {a.account_id: a for a in accounts}
        self.query_one(ErrorLine).clear()
        self._render_table()
        self._update_watch_status()

    def _visible(self) -> list[Account]:
        if self.status_filter is None:
            return list(self.accounts)
        return [a for a in self.accounts if a.status == self.status_filter]

    def _render_table(self) -> None:
        table = self.query_one(FitNavTable)
        keep = table.cursor_key()
        table.clear()
        visible = self._visible()
        groups: dict[str, list[Account]] = {}
        for account in visible:
            groups.setdefault(account.merchant_id or "", []).append(account)

        def merchant_name(merchant_id: str) -> str:
            merchant = self.merchants.get(merchant_id)
            return (merchant.name if merchant else None) or merchant_id or "(no merchant)"

        for merchant_id in sorted(groups, key=lambda m: merchant_name(m).lower()):
            members = groups[merchant_id]
            merchant = self.merchants.get(merchant_id)
            count = f"{len(members)} account{'s' if len(members) != 1 else ''}"
            if merchant is not None and merchant.status:
                count += f" · merchant {merchant.status}"
            table.add_row(
                fmt.literal(merchant_name(merchant_id), style="bold"),
                fmt.literal(merchant_id, style="dim"),
                fmt.literal(count, style="dim"),
                Text(""),
                Text(""),
                key=MERCHANT_ROW + merchant_id,
            )
            for account in sorted(members, key=lambda a: (a.name or "", a.account_id)):
                table.add_row(*self.row_cells(account), key=self.row_key(account))
        unreadable = add_unreadable_rows(table, self.unreadable)
        total = len(self.accounts) + unreadable
        shown = len(visible) + unreadable
        self.query_one("#showing", Static).update(showing(shown, total))
        if not shown:
            what = f"with status {self.status_filter}" if self.status_filter else "for this client"
            self.query_one(ListState).show_empty(
                f"No accounts {what}.\nPress f for the next status, F for all."
            )
            return
        self.query_one(ListState).state = "results"
        if keep is not None:
            try:
                table.move_cursor(row=table.get_row_index(keep), animate=False)
                return
            except Exception:
                pass
        # Start on the first account, not on a group row.
        if table.row_count > 1:
            table.move_cursor(row=1, animate=False)

    def row_key(self, item: Account) -> str:
        return item.account_id

    def row_cells(self, item: Account) -> list[Text]:
        account = item
        changed = account.account_id in self.changed_ids
        account_id = fmt.literal(("◆ " if changed else "  ") + account.account_id)
        status = fmt.boarding_status(account.status)
        tax_parts = [p for p in (account.tax_authority, account.tax_authority_state) if p]
        tax = Text(", ".join(tax_parts)) if tax_parts else Text("—", style="dim")
        cells = [
            account_id,
            fmt.literal(account.name),
            status,
            tax,
            fmt.literal(account.status_message),
        ]
        if changed:
            account_id.stylize("bold")
            status.stylize(CHANGED_STYLE)
        return cells

    # --- watch ----------------------------------------------------------------------------------
    def _interval(self) -> float:
        return max(0.05, float(self.app.session.watch_interval or 5))

    def _start_timer(self) -> None:
        self._watch_timer = self.set_interval(self._interval(), self.load)

    def _stop_timer(self) -> None:
        if self._watch_timer is not None:
            self._watch_timer.stop()
            self._watch_timer = None

    def _update_watch_status(self) -> None:
        widget = self.query_one("#watch-status", Static)
        if not self.watching:
            widget.update(Text("w: watch", style="dim"))
            return
        interval = self._interval()
        every = f"{interval:g}s"
        line = Text(f"watching · every {every}", style="bold")
        if self._last_read:
            line.append(f" · last read {self._last_read}", style="")
        widget.update(line)

    def action_toggle_watch(self) -> None:
        self.watching = not self.watching
        self.changed_ids.clear()
        self._stop_timer()
        self.set_class(self.watching, "-watching")
        if self.watching:
            self._previous = {a.account_id: a.status for a in self.accounts} or None
            self._start_timer()
            self.app.notify(
                f"Watching accounts: re-reading every {self._interval():g}s.",
                title="Watch",
                timeout=3,
                markup=False,
            )
            self.load()
        else:
            self.app.notify("Watch stopped.", title="Watch", timeout=2, markup=False)
            self._render_table()
        self._update_watch_status()

    # --- filter ---------------------------------------------------------------------------------
    def set_status_filter(self, status: str | None) -> None:
        self.status_filter = status
        label = Text("status: ")
        if status is None:
            label.append("all")
        else:
            label.append_text(fmt.boarding_status(status))
        self.query_one("#filter-name", Static).update(label)
        if self.accounts or self.state != "loading":
            self._render_table()

    def action_cycle_filter(self) -> None:
        seen = (account.status for account in self.accounts)
        order: list[str | None] = [None, *fmt.boarding_statuses(seen)]
        index = order.index(self.status_filter) if self.status_filter in order else 0
        self.set_status_filter(order[(index + 1) % len(order)])

    def action_clear_filter(self) -> None:
        self.set_status_filter(None)

    def action_refresh(self) -> None:
        if self.state == "error":
            self.query_one(ListState).show_loading("accounts")
        self.read()  # exclusive: replaces a read in flight

    # --- table events ---------------------------------------------------------------------------
    def _account(self, key: str | None) -> Account | None:
        return next((a for a in self.accounts if a.account_id == key), None)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        account = self._account(event.row_key.value)
        if account is None:
            return
        from paytui.ui.screens.account_detail import AccountDetailScreen

        merchant = self.merchants.get(account.merchant_id or "")
        self.app.push_screen(
            AccountDetailScreen(account.account_id, account=account, merchant=merchant)
        )
