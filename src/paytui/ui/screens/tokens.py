"""Tokens (`2`): the stored card tokens, newest first, and what can be done with one.

Columns: token id, masked card, brand, card expiry, holder, token expiry and a state ("expired"
when the token can no longer be charged, "card expired" when the card's month has passed); an
expired token's row is dimmed. Pages of 50 load as the cursor reaches the end; "Showing N of M"
is always visible. Keys: enter view, `n` new token, `u` update, `c` charge (sale or
authorization, through the exactly-once executor, then the new charge's detail opens), `y` copy
the token id, ctrl+r reload / retry.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.screens.base import PaytuiModal
from paytui.ui.screens.modals.token_form import token_summary
from paytui.ui.screens.paged_list import PagedListScreen
from paytui.ui.widgets.fit_table import FitColumn, FitTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.form import FORMS_TCSS
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.api.models import Charge, Page, Token

#: Narrow enough for 80 columns; the holder comes last and is the one that gets cut.
#: At 80 columns the holder's name stays whole and the card's own expiry goes first.
COLUMNS = (
    FitColumn("Token id", "Token id", priority=1, min_width=10),
    FitColumn("Card", "Card"),
    FitColumn("Card exp.", "Card exp.", priority=2),
    FitColumn("Token expires", "Token expires"),
    FitColumn("Holder", "Holder", min_width=18, free_text=True),
)


def token_state(token: Token, now: datetime) -> str:
    """ "expired" (cannot be charged), "card expired" (the card's month has passed) or ""."""
    if token.token_expiration_date is not None and token.token_expiration_date <= now:
        return "expired"
    expiry = getattr(token.payment_method, "expiration_date", None) or ""
    try:
        year, month = int(expiry[:4]), int(expiry[5:7])
    except ValueError:
        return ""
    if (year, month) < (now.year, now.month):
        return "card expired"
    return ""


def token_row(token: Token, now: datetime) -> list[Text]:
    """The cells of one token; an expired one is dimmed and says so after its expiry date."""
    pm = token.payment_method
    contact = getattr(pm, "contact", None)
    state = token_state(token, now)
    style = "dim" if state else ""
    card = " ".join(
        part
        for part in (getattr(pm, "type", None), f"…{token.last4}" if token.last4 else "")
        if part
    )
    expiry = token.token_expiration_date
    expires = Text(fmt.date(expiry), style=style)
    if state:
        expires.append(f" {state}", style="bold italic")
    return [
        fmt.literal(token.token_id, style=style),
        fmt.literal(card or "—", style=style),
        fmt.literal(getattr(pm, "expiration_date", None) or "—", style=style),
        expires,
        fmt.literal(contact.name if contact is not None and contact.name else "—", style=style),
    ]


#: The tokens table (a plain DataTable): vim keys on top of its arrows, Home/End, PgUp/PgDn.
TOKEN_TABLE_BINDINGS: list[Binding] = [
    Binding("j", "cursor_down", "Down", id="tokens_table.down", show=False),
    Binding("k", "cursor_up", "Up", id="tokens_table.up", show=False),
    Binding("g", "scroll_top", "Top", id="tokens_table.top", show=False),
    Binding("G", "scroll_bottom", "Bottom", id="tokens_table.bottom", show=False),
]


class TokenTable(FitTable):
    """The tokens table: a table fitted to its width, with vim keys."""

    BINDINGS: ClassVar[list[BindingType]] = [*TOKEN_TABLE_BINDINGS]
    HELP_TITLE = "Tokens table"


TOKENS_BINDINGS: list[Binding] = [
    Binding("N", "create_token", "New token", id="tokens.create", tooltip="Store a card"),
    Binding("enter", "view", "View", id="tokens.view", tooltip="Every field of the token"),
    Binding("u", "update_token", "Update", id="tokens.update", tooltip="Card expiry, holder"),
    Binding(
        "n",
        "charge_token",
        "New charge",
        id="tokens.charge",
        tooltip="A new charge of the highlighted token: sale or authorization",
    ),
    Binding("y", "copy_id", "Copy id", id="tokens.copy_id", tooltip="Copy the token id"),
    Binding(
        "Y",
        "copy_json",
        "Copy JSON",
        id="tokens.copy_json",
        tooltip="Copy the highlighted token as JSON",
        show=False,
    ),
    Binding("ctrl+r", "refresh", "Refresh", id="tokens.refresh", tooltip="Reload / retry"),
]


class TokensScreen(PagedListScreen["Token"]):
    """List, view, create, update and charge stored card tokens (`PagedListScreen`, keyed by
    token id)."""

    CSS_PATH = Path(__file__).with_name("tokens.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*TOKENS_BINDINGS]
    HELP_TITLE = "Tokens"
    COMMAND_SCOPE = "tokens"
    title_text = "Tokens"
    AUTO_FOCUS = "#tokens"
    NOUN = "tokens"
    STATUS_ID = "showing"

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        with Horizontal(id="summary"):
            yield Static(Text("Stored card tokens, newest first"), id="view-name")
            yield Static(Text(""), id="page-status")
            yield Static(Text("Showing 0 of 0"), id="showing")
        line = ErrorLine(id="inline-error")
        yield line
        yield ListState(error_line=line)
        yield TokenTable(COLUMNS, id="tokens", cursor_type="row", zebra_stripes=True)
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self.reload()

    @property
    def tokens(self) -> list[Token]:
        """The tokens read so far, in the table's order."""
        return self.items

    @property
    def state(self) -> str:
        """loading | results | empty | error (the list kit's panel holds it)."""
        return self.query_one(ListState).state

    # --- what the list says ---------------------------------------------------------------------
    async def fetch(self, client: PaymentClient, offset: int, limit: int) -> Page[Token]:
        return await client.list_tokens_page(limit=limit, offset=offset)

    def row_cells(self, item: Token) -> list[Text]:
        return token_row(item, self.app.now())

    def row_key(self, item: Token) -> str:
        return item.token_id

    def empty_text(self) -> str:
        return "No tokens stored yet.\nPress n to store a card as a token."

    def status_note(self) -> str:
        now = self.app.now()
        expired = sum(1 for t in self.items if token_state(t, now) == "expired")
        return f" · {expired} expired" if expired else ""

    def page_shown(self) -> None:
        if self.more.read:
            self.query_one("#tokens", FitTable).focus()

    # --- loading ----------------------------------------------------------------------------
    def reload(self, *, select: str | None = None) -> None:
        """Read again from the first page, "Loading tokens…" over the rows until it is read."""
        self.query_one(ListState).show_loading(self.noun())
        self.read(select=select)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()  # update / charge follow the highlighted token

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_view()

    # --- the token under the cursor -------------------------------------------------------------
    @property
    def current(self) -> Token | None:
        """The highlighted token (None on an unreadable row, or while no list is shown)."""
        return self.highlighted() if self.state == "results" else None

    def action_subject(self, action: str) -> object | None:
        """Update and charge act on the highlighted token."""
        return self.current if self.is_mounted else None

    def disabled_reason(self, action: str) -> str | None:
        reason = super().disabled_reason(action)
        token = self.current if self.is_mounted else None
        expired = token is not None and token_state(token, self.app.now()) == "expired"
        if reason is None and action == "charge_token" and expired:
            return "This token has expired; update its expiry (u) before charging it"
        return reason

    def _need_token(self) -> Token | None:
        token = self.current
        if token is None:
            self.app.notify("No token under the cursor.", severity="warning", markup=False)
        return token

    # --- actions ----------------------------------------------------------------------------
    def action_refresh(self) -> None:
        token = self.current
        self.reload(select=token.token_id if token is not None else None)

    def action_copy_id(self) -> None:
        token = self._need_token()
        if token is None:
            return
        self.app.copy_to_clipboard(token.token_id)
        self.app.notify(f"Copied token id {token.token_id}", title="Clipboard", markup=False)

    def action_copy_json(self) -> None:
        from paytui.ui.clipboard import copy_json

        token = self._need_token()
        if token is not None:
            copy_json(self.app, token, "token")

    def action_view(self) -> None:
        token = self._need_token()
        if token is not None:
            self.app.push_screen(TokenViewScreen(token))

    async def action_create_token(self) -> None:
        from paytui.ui.screens.modals.token_form import TokenFormScreen

        token = self.current
        account = self.app.account_in_focus or (token.account_id if token is not None else None)
        await self.app.push_screen(TokenFormScreen(account_id=account), self._after_form)

    async def action_update_token(self) -> None:
        from paytui.ui.screens.modals.token_form import TokenFormScreen

        token = self._need_token()
        if token is not None:
            await self.app.push_screen(TokenFormScreen(token=token), self._after_form)

    def _after_form(self, token: Token | None) -> None:
        if token is not None:
            self.reload(select=token.token_id)

    async def action_charge_token(self) -> None:
        from paytui.ui.screens.modals.charge_token import ChargeTokenScreen

        token = self._need_token()
        if token is None:
            return
        if token_state(token, self.app.now()) == "expired":
            self.app.notify(
                "This token has expired; update its expiry (u) before charging it.",
                title="Token expired",
                severity="warning",
                markup=False,
            )
            return
        await self.app.push_screen(ChargeTokenScreen(token), self._after_charge)

    def _after_charge(self, result: Charge | str | None) -> None:
        if result is None:
            return
        charge_id = result if isinstance(result, str) else result.charge_id
        self.post_message(messages.OpenCharge(charge_id))


TOKEN_VIEW_BINDINGS: list[Binding] = [
    Binding("escape,q", "close", "Close", id="token_view.close"),
    Binding("y", "copy_id", "Copy id", id="token_view.copy_id", tooltip="Copy the token id"),
]


class TokenViewScreen(PaytuiModal[None]):
    """Every field of one token (fraud score, processor messages included)."""

    CSS_PATH = FORMS_TCSS
    BINDINGS: ClassVar[list[BindingType]] = [*TOKEN_VIEW_BINDINGS]
    HELP_TITLE = "Token"
    KEYS_TITLE = "Token view"

    def __init__(self, token: Token) -> None:
        super().__init__()
        self.token = token

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="form-dialog"):
            title = Text("Token ", style="bold")
            title.append(self.token.token_id)
            yield Static(title, id="title", classes="form-title")
            with VerticalScroll(classes="form-fields"):
                yield Static(token_summary(self.token), id="token-fields")
            yield Static(
                Text("y copy id · u / c from the list · esc close", style="dim"),
                classes="form-hint",
            )

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.token.token_id)
        self.app.notify(f"Copied token id {self.token.token_id}", title="Clipboard", markup=False)
