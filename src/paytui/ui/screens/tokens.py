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
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.bindings import TOKEN_TABLE_BINDINGS, TOKEN_VIEW_BINDINGS, TOKENS_BINDINGS
from paytui.ui.screens.base import PaytuiModal, PaytuiScreen
from paytui.ui.screens.modals.token_form import token_summary
from paytui.ui.widgets.fit_table import FitColumn, FitTable
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.form import FORMS_TCSS
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.list_state import ErrorLine, ListState, add_unreadable_rows, showing
from paytui.ui.widgets.more_rows import MoreRows

if TYPE_CHECKING:
    from paytui.api.models import Charge, Token

PAGE_SIZE = 50
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


class TokenTable(FitTable):
    """The tokens table: a table fitted to its width, with vim keys."""

    BINDINGS: ClassVar[list[BindingType]] = [*TOKEN_TABLE_BINDINGS]
    HELP_TITLE = "Tokens table"


class TokensScreen(PaytuiScreen[None]):
    """List, view, create, update and charge stored card tokens."""

    CSS_PATH = Path(__file__).with_name("tokens.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [*TOKENS_BINDINGS]
    HELP_TITLE = "Tokens"
    title_text = "Tokens"
    AUTO_FOCUS = "#tokens"

    def __init__(self) -> None:
        super().__init__()
        self.tokens: list[Token] = []
        #: Where paging stands (the list kit's one paging: more is read near the end).
        self.more = MoreRows(PAGE_SIZE)

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
    def state(self) -> str:
        """loading | results | empty | error (the list kit's panel holds it)."""
        return self.query_one(ListState).state

    # --- loading ----------------------------------------------------------------------------
    def reload(self, *, select: str | None = None) -> None:
        self.query_one(ListState).show_loading("tokens")
        self._load_first(select)

    @work(exclusive=True, group="tokens")
    async def _load_first(self, select: str | None = None) -> None:
        try:
            client = await self.app.get_client()
            page = await client.list_tokens_page(limit=PAGE_SIZE, offset=0)
        except Exception as exc:
            self._show_error(exc)
            return
        table = self.query_one("#tokens", DataTable)
        table.clear()
        self.tokens = []
        self.workers.cancel_group(self, "tokens-more")
        self.more.reset()
        self._append(page)
        if not self.more.read:
            self.query_one(ListState).show_empty(
                "No tokens stored yet.\nPress n to store a card as a token."
            )
            return
        self.query_one(ListState).show_results()
        if select is not None and select in self._by_id:
            table.move_cursor(row=table.get_row_index(select))
        table.focus()

    def _append(self, page: Any) -> None:
        now = self.app.now()
        table = self.query_one("#tokens", FitTable)
        for token in page.items:
            table.add_row(*token_row(token, now), key=token.token_id)
            self.tokens.append(token)
        self.more.took(page, len(page.items) + add_unreadable_rows(table, page.unreadable))
        expired = sum(1 for t in self.tokens if token_state(t, now) == "expired")
        text = showing(self.more.read, self.more.total)
        if expired:
            text.append(f" · {expired} expired")
        self.query_one("#showing", Static).update(text)

    @work(exclusive=True, group="tokens-more")
    async def _load_more(self) -> None:
        async def page_at(offset: int) -> Any:
            client = await self.app.get_client()
            return await client.list_tokens_page(limit=PAGE_SIZE, offset=offset)

        page = await self.more.read_next(page_at, self.query_one(ListState), "tokens")
        if page is not None:
            self._append(page)

    def _show_error(self, exc: BaseException) -> None:
        """A failed (re)load: the last good tokens stay on screen under the error line."""
        info = self.query_one(ListState).show_failed(exc, rows_on_screen=bool(self.tokens))
        self.app.notify(info.message, title=info.title, severity="error", markup=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()  # update / charge follow the highlighted token
        if self.more.wants_more(event.cursor_row):
            self._load_more()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_view()

    # --- the token under the cursor -------------------------------------------------------------
    @property
    def _by_id(self) -> dict[str, Token]:
        return {token.token_id: token for token in self.tokens}

    @property
    def current(self) -> Token | None:
        if self.state != "results":
            return None
        key = self.query_one("#tokens", FitTable).cursor_key()
        return self._by_id.get(key) if key is not None else None  # None on an unreadable row

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


class TokenViewScreen(PaytuiModal[None]):
    """Every field of one token (fraud score, processor messages included)."""

    CSS_PATH = FORMS_TCSS
    BINDINGS: ClassVar[list[BindingType]] = [*TOKEN_VIEW_BINDINGS]
    HELP_TITLE = "Token"

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
