"""One payment account: every field, and its most recent charges.

`s` jumps into the charge search with `account:<id>` filled in and run, where the user can refine
it. A client without the charges scope (the `paytui-limited` demo client holds only accounts and
merchants) still sees the account; the charges panel then says which scope is missing instead of
showing an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.bindings import display_key
from paytui.ui.marks import MARK, Marks
from paytui.ui.plugin_forms import limit_text
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.errors import describe_error
from paytui.ui.widgets.fit_table import FitColumn, FitNavTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import add_unreadable_rows, error_text, is_unreadable_key

if TYPE_CHECKING:
    from paytui.api.models import Account, Charge, Merchant
    from paytui.charge_state import RefundPosition

#: On an account's detail: its plugin sessions and a new account of its merchant.
ACCOUNT_PLUGIN_BINDINGS: list[Binding] = [
    Binding(
        "L",
        "new_payment_session",
        "Pay session",
        id="account.payment_session",
        tooltip="New payment plugin session for this account (needs urn:v2:plugins:all)",
    ),
    Binding(
        "I",
        "new_enrollment_session",
        "Enrollment",
        id="account.enrollment_session",
        tooltip="New enrollment plugin session (invite) for this account's merchant",
    ),
    Binding(
        "A",
        "new_account",
        "New account",
        id="account.new_account",
        tooltip="New payment account of this account's merchant (needs urn:v2:accounts:all)",
    ),
]


ACCOUNT_DETAIL_BINDINGS: list[Binding] = [
    Binding(
        "slash",
        "search_charges",
        "Search charges",
        id="account.search_charges",
        tooltip="Open the charge search with account:ID filled in",
    ),
    Binding("y", "copy_id", "Copy id", id="account.copy_id", tooltip="Copy the account id"),
    Binding("ctrl+r", "refresh", "Refresh", id="account.refresh", tooltip="Reload / retry"),
    *ACCOUNT_PLUGIN_BINDINGS,
    # Marks and bulk actions on the recent charges (docs/bulk-actions.md).
    Binding("space", "toggle_mark", "Mark", id="account.mark", show=False),
    Binding("U", "clear_marks", "Clear marks", id="account.clear_marks", show=False),
    Binding("C", "bulk_capture", "Bulk capture", id="account.bulk_capture", show=False),
    Binding("B", "bulk_refund", "Bulk full refund", id="account.bulk_refund", show=False),
]

CHARGES_SCOPE = "urn:v2:charges:all"
RECENT_CHARGES = 10
#: Recent charges: time, amount, status, type and the customer's whole name before the id.
RECENT_COLUMNS = (
    FitColumn("charge", "Charge", priority=1, min_width=12),
    FitColumn("when", "When (UTC)"),
    FitColumn("amount", "Amount"),
    FitColumn("status", "Status"),
    FitColumn("type", "Type"),
    # The money state by the lists' rule (`charge_state`): "?" until the refunds are read.
    FitColumn("state", "State", priority=1),
    FitColumn("customer", "Customer", min_width=18, free_text=True),
)


def _value(value: object) -> Text:
    if value is None or value == "" or value == [] or value == {}:
        return Text("—", style="dim")
    return fmt.literal(value)


class AccountDetailScreen(PaytuiScreen[None]):
    """All fields of one account plus its recent charges."""

    CSS_PATH = Path(__file__).with_name("account_detail.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*ACCOUNT_DETAIL_BINDINGS]
    HELP_TITLE = "Account"
    COMMAND_SCOPE = "account"
    AUTO_FOCUS = "#recent"

    def __init__(
        self,
        account_id: str,
        *,
        account: Account | None = None,
        merchant: Merchant | None = None,
    ) -> None:
        super().__init__()
        self.account_id = account_id
        self.account = account
        self.merchant = merchant
        self.charges: list[Charge] = []
        #: The refunds read of the recent charges, by charge id (`charge_state.read_positions`).
        self.refunds: dict[str, RefundPosition] = {}
        self.charges_state = "loading"
        self.marks = Marks()

    def header_account(self) -> str | None:
        return self.account_id

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        yield Static(fmt.literal(f"Account {self.account_id}"), id="title")
        with Vertical(id="fields-box"):
            yield Static(Text("Loading account…"), id="fields")
        yield Static(Text("Recent charges"), id="recent-title")
        yield Static(Text("Loading charges…"), id="recent-message")
        yield FitNavTable(RECENT_COLUMNS, id="recent", cursor_type="row")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        if self.account is not None:
            self._show_account(self.account)
        self.load()

    def load(self) -> None:
        self.read_account()
        self.read_charges()

    # --- the account ----------------------------------------------------------------------------
    @work(exclusive=True, group="account-read")
    async def read_account(self) -> None:
        try:
            client = await self.app.get_client()
            account = await client.get_account(self.account_id)
        except Exception as exc:
            info = describe_error(exc)
            line = error_text(info)
            if self.account is None:
                self.query_one("#fields", Static).update(line)
                self.add_class("-fields-error")
            else:  # keep what the list showed; say it may be stale
                self.notify(info.message, title=info.title, severity="error", markup=False)
            return
        self.remove_class("-fields-error")
        self.account = account
        self._show_account(account)
        self.refresh_bindings()  # the payment session key follows the account's status

    def _show_account(self, account: Account) -> None:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        merchant = fmt.literal(account.merchant_id or "—")
        if self.merchant is not None and self.merchant.name:
            merchant = Text.assemble(fmt.literal(self.merchant.name), "  ", (merchant.plain, "dim"))
        tax = [p for p in (account.tax_authority, account.tax_authority_state) if p]
        rows: list[tuple[str, Text]] = [
            ("Account id", fmt.literal(account.account_id)),
            ("Name", _value(account.name)),
            ("Merchant", merchant),
            ("Boarding status", fmt.boarding_status(account.status)),
            ("Status message", _value(account.status_message)),
            ("Category code (MCC)", _value(account.merchant_category_code)),
            ("Tax authority", Text(", ".join(tax)) if tax else _value(None)),
            ("Processing limit", Text(limit_text(account))),
            ("Created", Text(fmt.timestamp(account.created_timestamp))),
            ("Last updated", Text(fmt.timestamp(account.last_updated_timestamp))),
            ("Tags", _value(", ".join(str(t) for t in account.tags))),
            (
                "Attributes",
                _value(
                    "; ".join(
                        f"{key}={', '.join(map(str, values))}"
                        for key, values in sorted(account.attributes.items())
                    )
                ),
            ),
        ]
        extra = getattr(account, "model_extra", None) or {}
        extra = {k: v for k, v in extra.items() if k != "max_transaction_amount"}
        rows += [(str(key), _value(value)) for key, value in sorted(extra.items())]
        for label, value in rows:
            grid.add_row(label, value)
        title = Text.assemble(("Account ", "bold"), fmt.literal(account.name or account.account_id))
        self.query_one("#title", Static).update(title)
        self.query_one("#fields", Static).update(grid)

    # --- its charges ----------------------------------------------------------------------------
    def _charges_message(self, text: Text, state: str) -> None:
        self.charges_state = state
        self.query_one("#recent-message", Static).update(text)
        names = ("loading", "results", "empty", "error", "forbidden")
        self.update_classes({f"-charges-{name}": state == name for name in names})

    @work(exclusive=True, group="account-charges")
    async def read_charges(self) -> None:
        from paytui.api.queries import ChargeQuery

        self._charges_message(Text("Loading charges…"), "loading")
        try:
            client = await self.app.get_client()
            granted = getattr(client, "granted_scopes", None)
            if granted is not None and CHARGES_SCOPE not in granted:
                self._show_forbidden([CHARGES_SCOPE])
                return
            page = await client.search_charges_page(
                ChargeQuery(account_id=self.account_id), limit=RECENT_CHARGES, offset=0
            )
        except Exception as exc:
            names = {cls.__name__ for cls in type(exc).__mro__}
            if "ForbiddenError" in names or getattr(exc, "status", None) == 403:
                self._show_forbidden(list(getattr(exc, "required_scopes", None) or []))
                return
            info = describe_error(exc)
            line = error_text(info)
            self._charges_message(line, "error")
            return
        self.charges = list(page.items)
        table = self.query_one("#recent", FitNavTable)
        table.clear()
        now = paytui_app(self).now()
        for charge in self.charges:
            contact = getattr(getattr(charge, "payment_method", None), "contact", None)
            name = " ".join(
                str(p)
                for p in (getattr(contact, "first_name", None), getattr(contact, "last_name", None))
                if p
            )
            when = Text(fmt.timestamp(charge.charge_timestamp))
            when.append(f" ({fmt.age(charge.charge_timestamp, now)})", style="dim")
            table.add_row(
                self._id_cell(charge),
                when,
                Text(fmt.money(charge.total_amount), justify="right"),
                fmt.status(charge.status),
                fmt.literal(fmt.charge_type_name(getattr(charge, "charge_type", None)) or "—"),
                self._state_cell(charge),
                fmt.literal(name or "—"),
                key=charge.charge_id,
            )
        shown = len(self.charges) + add_unreadable_rows(table, page.unreadable)
        total = page.total if page.total is not None else shown
        if not shown:
            self._charges_message(Text("No charges on this account yet."), "empty")
            return
        line = Text(f"The {shown} most recent of {total:,}. ")
        line.append("enter", style="bold")
        line.append(" opens one; ")
        line.append(self._search_key(), style="bold")
        line.append(" searches all of this account's charges.")
        if page.ignored_note:  # another account's charges came back: say so, never hide it
            line.append(f"\n{page.ignored_note}", style=fmt.tone("bold warning"))
        self._charges_message(line, "results")
        await self._read_refunds(client, table)

    def _state_cell(self, charge: Charge) -> Text:
        """The charge's money state (`charge_state.state_words`, the lists' one rule)."""
        from paytui.charge_state import state_words
        from paytui.ui.widgets.charge_table import state_text

        return state_text(state_words(charge, refunds=self.refunds.get(charge.charge_id)))

    async def _read_refunds(self, client: Any, table: FitNavTable) -> None:
        """The refunds of the recent charges that may have some, eight at a time (four requests
        at once): their State then says Refunded / Partly refunded / nothing instead of "?"."""
        from paytui.charge_state import read_positions

        charges = list(self.charges)
        for start in range(0, len(charges), 8):
            try:
                found = await read_positions(client, charges[start : start + 8], at_once=4)
            except Exception:
                return  # a hint only: the rows keep their "?"
            self.refunds.update(found)
            for charge_id in found:
                charge = next(c for c in charges if c.charge_id == charge_id)
                table.set_cell(charge_id, "state", self._state_cell(charge))

    def _search_key(self) -> str:
        """The key bound to "Search charges" here, as the footer shows it (a key map may move
        it): the sentence never names a key that does something else."""
        for active in self.active_bindings.values():
            if active.binding.action == "search_charges":
                return display_key(active.binding.key)
        return display_key("slash")

    # --- marks and bulk actions (docs/bulk-actions.md) --------------------------------------------
    def _id_cell(self, charge: Charge) -> Text:
        if charge.charge_id in self.marks:
            return Text.assemble(
                (MARK + " ", fmt.tone("bold accent")), fmt.literal(charge.charge_id)
            )
        return fmt.literal(charge.charge_id)

    def _show_marks(self) -> None:
        table = self.query_one("#recent", FitNavTable)
        for charge in self.charges:
            table.set_cell(charge.charge_id, "charge", self._id_cell(charge))
        title = Text("Recent charges")
        if len(self.marks):
            title.append(f" · {len(self.marks)} marked", fmt.tone("bold accent"))
            title.append(f" · {fmt.money(self.marks.total)}")
        self.query_one("#recent-title", Static).update(title)

    def action_toggle_mark(self) -> None:
        table = self.query_one("#recent", FitNavTable)
        key = table.cursor_key()
        charge = next((c for c in self.charges if c.charge_id == key), None)
        if charge is None:
            return
        self.marks.toggle(charge)
        self._show_marks()
        table.action_cursor_down()

    def action_clear_marks(self) -> None:
        self.marks.clear()
        self._show_marks()

    async def action_bulk_capture(self) -> None:
        from paytui.ui.screens.modals.bulk import open_bulk

        await open_bulk(self.app, "capture", self.marks, self._show_marks)

    async def action_bulk_refund(self) -> None:
        from paytui.ui.screens.modals.bulk import open_bulk

        await open_bulk(self.app, "refund", self.marks, self._show_marks)

    def _show_forbidden(self, scopes: list[str]) -> None:
        need = ", ".join(scopes) or CHARGES_SCOPE
        line = Text("Your token lacks ", style="")
        line.append(need, style="bold")
        line.append(
            ", so this account's charges cannot be shown. The account itself is readable; "
            "ask for a client with that scope to see its charges."
        )
        self._charges_message(line, "forbidden")

    # --- actions --------------------------------------------------------------------------------
    def action_search_charges(self) -> None:
        from paytui.api.queries import ChargeQuery

        query = ChargeQuery(account_id=self.account_id)
        self.app.run_worker(
            paytui_app(self).open_charge_search(query),
            group="open-charge-search",
            exclusive=True,
        )

    def action_subject(self, action: str) -> object | None:
        return self.account

    def action_target(self, action: str) -> str | None:
        return self.account_id

    def action_new_payment_session(self) -> None:
        from paytui.ui.screens.modals.dialogs import dialog_for

        self.app.push_screen(dialog_for("plugin_session", self.account_id))

    def action_new_enrollment_session(self) -> None:
        from paytui.ui.screens.modals.plugin_session import EnrollmentSessionModal

        merchant = self.account.merchant_id if self.account is not None else None
        self.app.push_screen(EnrollmentSessionModal(merchant))

    def action_new_account(self) -> None:
        from paytui.ui.screens.modals.dialogs import dialog_for

        merchant = self.account.merchant_id if self.account is not None else None
        self.app.push_screen(dialog_for("account_create", merchant))

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.account_id)
        self.app.notify(f"Copied account id {self.account_id}", title="Clipboard", markup=False)

    def action_refresh(self) -> None:
        self.load()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value and not is_unreadable_key(event.row_key.value):
            self.post_message(messages.OpenCharge(str(event.row_key.value)))
