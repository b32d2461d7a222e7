"""Everything about one charge: its fields, chargebacks, return, links and distributions.

The screen renders from the charge's wire-shaped dump (`model_dump(by_alias=True)`) rather than
from model attributes. Two reasons: support staff compare what they see with API bodies in
tickets, so panels use the wire names' meaning; and anything the model keeps as an extra field
(the service may add fields before we model them) lands naturally in the "Other" panel instead
of being dropped. Every value from the API is shown as `rich.text.Text`, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, cast

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical, VerticalScroll
from textual.widgets import Static

from paytui.api.errors import ApiError, NotFoundError
from paytui.api.queries import ChargeQuery
from paytui.tags import parse_tags
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.widgets.distribution_tree import (
    DistributionTree,
    as_datetime,
    as_decimal,
    as_mapping,
)
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.json_view import JsonView, to_json_text

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient

#: What `get_charge` may expand; None reads the charge alone.
Expand = Literal["distributions", "all"] | None


class DetailHost(Protocol):
    """What this screen needs from the app (the shell's contract in docs/architecture.md)."""

    def get_client(self) -> Awaitable[PaymentClient]: ...

    def now(self) -> datetime: ...


#: Wire fields that have a home in one of the panels; everything else goes to "Other".
KNOWN_FIELDS = frozenset(
    {
        "charge_id",
        "charge_timestamp",
        "authorization_code",
        "original_charge_id",
        "captured_charge_id",
        "total_amount",
        "reversal_flag",
        "payment_method",
        "processor_messages",
        "account_id",
        "merchant_id",
        "status",
        "result_code",
        "result_text",
        "charge_type",
        "last_updated_timestamp",
        "chargebacks",
        "distributions",
        "attributes",
        "tags",
        "invoice_number",
        "po_number",
        "line_items",
        "convenience_fee",
        "supplemental_fee",
        "tokenize",
        "return",
    }
)

#: (container id, [(panel id, title)]), top to bottom; "-wide" containers hold one column.
PANEL_LAYOUT: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("grid-main", (("summary", "Summary"), ("payment", "Payment method"))),
    (
        "grid-disputes",
        (("chargebacks", "Chargebacks"), ("return", "ACH return"), ("refunds", "Refunds")),
    ),
    (
        "grid-details",
        (
            ("processor", "Processor messages"),
            ("fees", "Fees and references"),
            ("timestamps", "Timestamps"),
            ("tags", "Tags"),
        ),
    ),
    (
        "grid-wide",
        (("attributes", "Attributes"), ("line-items", "Line items"), ("other", "Other fields")),
    ),
)

#: The distributions tree follows the disputes: "was it paid out, what came back" is the
#: question people open a chargeback to answer.
DISTRIBUTIONS_AFTER = "grid-disputes"

#: Record columns that hold prose and may wrap on narrow terminals.
FREE_TEXT_COLUMNS = frozenset({"reason", "description", "name", "message"})

_WIDTH_NARROW = 100
_MISSING = "—"


def _text(value: object) -> Text:
    """A value as literal text; `—` when absent so an empty field is visibly empty."""
    if value is None or value == "":
        return Text(_MISSING, style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, Mapping | list | tuple):
        return Text(safe(to_json_text(value, indent=None)))
    return Text(safe(value))


def _money(value: object) -> Text:
    amount = as_decimal(value)
    if amount is None:
        return _text(value)
    return Text(fmt.money(amount))


def _when(value: object) -> Text:
    """A timestamp (model datetime or ISO text from an extra field) in the one UTC format."""
    moment = as_datetime(value)
    return Text(fmt.timestamp(moment)) if moment is not None else _text(value)


def _rows_table(rows: Iterable[tuple[str, RenderableType]]) -> Table:
    """A two-column key/value grid: the layout of every field panel."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in rows:
        table.add_row(Text(safe(key)), value)
    return table


def _columns_table(records: list[dict[str, Any]], columns: list[tuple[str, str]]) -> Table:
    """A table of records (chargebacks, line items), with any unknown keys as extra columns."""
    known = {key for key, _ in columns}
    extra = [key for record in records for key in record if key not in known]
    all_columns = columns + [(key, key) for key in dict.fromkeys(extra)]
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    for key, title in all_columns:
        # Only free text wraps; ids, amounts, codes and dates are read (and copied) whole.
        free_text = key in FREE_TEXT_COLUMNS
        table.add_column(Text(safe(title)), overflow="fold", no_wrap=not free_text)
    for record in records:
        cells: list[RenderableType] = []
        for key, _ in all_columns:
            value = record.get(key)
            if key.endswith("amount") or key in {"amount", "unit_price", "price"}:
                cells.append(_money(value))
            elif key.endswith("timestamp"):
                cells.append(_when(value))
            else:
                cells.append(_text(value))
        table.add_row(*cells)
    return table


class ChargeDetailScreen(PaytuiScreen[None]):
    """One charge, loaded with its distributions; pushed by the search screen on enter."""

    CSS_PATH = "charge_detail.tcss"

    #: (key, action, description, id, tooltip): data, so the help screen and keymap can use it.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, action, description, id=f"detail.{binding_id}", tooltip=tooltip)
        for key, action, description, binding_id, tooltip in (
            # The screen's own money actions first: the footer shows them first (80 columns).
            (
                "c",
                "capture",
                "Capture",
                "capture",
                "Capture this authorization (needs urn:v2:charges:all)",
            ),
            ("r", "refund", "Refund", "refund", "Refund this charge (needs urn:v2:refunds:all)"),
            (
                "e",
                "edit",
                "Edit tags",
                "edit",
                "Edit tags and attributes (needs urn:v2:charges:all)",
            ),
            (
                "D",
                "distribute",
                "Distribute",
                "distribute",
                "Add this charge to its account's open distribution "
                "(needs urn:v2:charges:distribute:create)",
            ),
            ("escape", "back", "Back", "back", "Back to the previous screen"),
            (
                "o",
                "open_authorization",
                "Open authorization",
                "open_authorization",
                "Open the authorization this capture captured",
            ),
            (
                "o",
                "open_capture",
                "Open capture",
                "open_capture",
                "Open the capture of this authorization",
            ),
            (
                "d",
                "load_distributions",
                "Distributions",
                "distributions",
                "Load the distributions this charge appeared in",
            ),
            ("J", "toggle_json", "JSON", "json", "Show or hide the raw JSON of the charge"),
            ("y", "copy_id", "Copy id", "copy_id", "Copy the charge id to the clipboard"),
            ("ctrl+r", "refresh", "Reload", "reload", "Read the charge again (retries an error)"),
        )
    ]

    def __init__(
        self,
        charge_id: str,
        *,
        expand: Expand = "distributions",
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """`expand=None` skips the distributions on the first read (`d` loads them later)."""
        super().__init__(name=name, id=id)
        self.charge_id = charge_id
        self.charge: Any | None = None
        self._wire: dict[str, Any] = {}
        self._expand: Expand = expand
        self._capture_id: str | None = None
        self._capture_lookup: str | None = None
        self._distributing = False
        self.error: str | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        with Vertical(id="detail-body"):
            yield Static(self._heading(), id="detail-heading")
            yield Static(id="detail-error")
            with VerticalScroll(id="detail-panels"):
                # Pairs sit in two-column grids; panels whose content runs wide get a full row.
                # (Textual's grid does not wrap a column-spanning cell to the next row, so the
                # wide panels cannot live in the same grid as the pairs.)
                for container_id, panels in PANEL_LAYOUT:
                    with Grid(id=container_id, classes="panel-grid"):
                        for panel_id, title in panels:
                            panel = Static(id=f"panel-{panel_id}", classes="panel")
                            panel.border_title = title
                            panel.display = False
                            yield panel
                    if container_id == DISTRIBUTIONS_AFTER:
                        tree = DistributionTree(id="detail-distributions")
                        tree.border_title = "Distributions"
                        tree.display = False
                        yield tree
            yield JsonView(id="detail-json")
        yield PaytuiFooter()

    def on_mount(self) -> None:
        self._load(self._expand)
        self.app.charges_changed.subscribe(self, self._charges_changed)

    def _charges_changed(self, charge_ids: tuple[str, ...]) -> None:
        """This charge, its capture or its authorization changed: read it again."""
        related = {self.charge_id, self._capture_id, self._wire.get("original_charge_id")}
        if related & set(charge_ids):
            self._stale = True
            if self.is_current:
                self.on_screen_resume()

    def on_screen_resume(self) -> None:
        """Read again what changed while a dialog was over this screen (runs besides the base's)."""
        if getattr(self, "_stale", False):
            self._stale = False
            self._load(self._expand)

    def on_resize(self, event: events.Resize) -> None:
        """Two panel columns when there is room, one on narrow terminals (no media queries)."""
        self.set_class(event.size.width < _WIDTH_NARROW, "-narrow")

    @property
    def _host(self) -> DetailHost:
        return cast(DetailHost, self.app)

    # ------------------------------------------------------------------ loading

    # exit_on_error off: a read ending after its screen closed (app shutting down) is no crash.
    @work(exclusive=True, group="charge-detail-load", exit_on_error=False)
    async def _load(self, expand: Expand) -> None:
        """Read the charge; on error keep whatever is shown and say how to retry."""
        self._expand = expand
        body = self.query_one("#detail-panels")
        body.loading = True
        try:
            client = await self._connect()
            if client is None:
                return
            charge = await client.get_charge(self.charge_id, expand=expand)
        except NotFoundError:
            self._show_error(f"No charge {self.charge_id}", not_found=True)
            return
        except ApiError as exc:
            self._show_error(f"Could not load the charge: {exc}")
            return
        finally:
            body.loading = False
        self._show_error(None)
        self._show_charge(charge)
        self.post_message(messages.AccountInFocus(self._wire.get("account_id")))
        if self._needs_capture_lookup():
            self._find_capture()
        self._load_refunds()

    @work(exclusive=True, group="charge-detail-refunds")
    async def _load_refunds(self) -> None:
        """The refunds of this charge (hidden when there are none)."""
        from paytui.api.queries import RefundQuery

        try:
            client = await self._host.get_client()
            page = await client.search_refunds_page(RefundQuery(charge_id=self.charge_id), limit=50)
        except ApiError as exc:
            if self._widgets_gone():
                return
            self._panel("refunds", Text(safe(f"Could not load the refunds: {exc}"), style="bold"))
            return
        if self._widgets_gone():  # the screen closed while the refunds were read
            return
        if not page.items:
            self._panel("refunds", None)
            return
        rows: list[tuple[str, RenderableType]] = []
        for refund in page.items:
            line = Text.assemble(
                Text(fmt.money(refund.total_amount)),
                "  ",
                fmt.status(refund.status),
                "  ",
                Text(fmt.timestamp(refund.refund_timestamp)),
            )
            if refund.reason:
                line.append("  ")
                line.append(Text(safe(refund.reason), style="dim"))
            rows.append((safe(refund.refund_id), line))
        if page.total is not None and page.total > len(page.items):
            rows.append(("", Text(f"… {page.total - len(page.items)} more (palette: Refunds)")))
        self._panel("refunds", _rows_table(rows))

    async def _connect(self) -> PaymentClient | None:
        """The app's client; a failed connection (any error: the embedded sandbox may not have
        started) becomes the inline error with a retry, never a crashed worker."""
        try:
            return await self._host.get_client()
        except Exception as exc:
            self._show_error(f"Could not connect: {exc}")
            return None

    @work(exclusive=True, group="charge-detail-capture")
    async def _find_capture(self) -> None:
        """For an authorization without `captured_charge_id`, ask search for its capture.

        The sandbox echoes `captured_charge_id`; the real service may not, and
        `original_charge_id=<id>` is the documented way to find the captures of one.
        """
        self._capture_lookup = "searching…"
        self._render_summary()
        try:
            client = await self._host.get_client()
            page = await client.search_charges_page(
                ChargeQuery(original_charge_id=self.charge_id), limit=1
            )
        except ApiError as exc:
            self._capture_lookup = f"unknown (lookup failed: {exc})"
        else:
            if page.items:
                self._capture_id = page.items[0].charge_id
                self._capture_lookup = None
            else:
                self._capture_lookup = "not captured yet"
        if self._widgets_gone():  # the screen closed while the capture was looked up
            return
        self._render_summary()
        self.refresh_bindings()

    def _is_authorization(self) -> bool:
        """An authorization, also when the service leaves out `charge_type` (result Authorized;
        a zero-amount pre-authorization is never captured)."""
        charge_type = self._wire.get("charge_type")
        if charge_type is not None:
            return bool(charge_type == "authorization")
        amount = as_decimal(self._wire.get("total_amount"))
        return self._wire.get("result_code") == "Authorized" and bool(amount)

    def _needs_capture_lookup(self) -> bool:
        return (
            self._is_authorization()
            and self._wire.get("status") == "success"
            and not (self._capture_id)
        )

    def _show_error(self, message: str | None, *, not_found: bool = False) -> None:
        """Inline message plus a notification; the last good view stays on screen."""
        self.error = message
        error = self.query_one("#detail-error", Static)
        if message is None:
            error.display = False
            return
        hint = "" if not_found else "  Press ctrl+r to retry."
        error.update(Text.assemble((safe(message), "bold"), hint))
        error.display = True
        self.notify(message, title="Charge", severity="error", markup=False)

    # ------------------------------------------------------------------ rendering

    def _show_charge(self, charge: Any) -> None:
        self.charge = charge
        self._wire = as_mapping(charge)
        self._capture_id = self._wire.get("captured_charge_id") or None
        self._capture_lookup = None
        self.query_one("#detail-heading", Static).update(self._heading())
        self._render_summary()
        self._render_payment()
        self._render_chargebacks()
        self._render_return()
        self._render_processor()
        self._render_fees()
        self._render_timestamps()
        self._render_attributes()
        self._render_tags()
        self._render_line_items()
        self._render_other()
        self._render_distributions()
        # Only what the API sent (unset model defaults would read as nulls the service never said);
        # extra fields are "set", so they show.
        self.query_one(JsonView).set_data(
            charge.model_dump(mode="json", by_alias=True, exclude_unset=True)
        )
        self.refresh_bindings()

    def _widgets_gone(self) -> bool:
        """True once this screen was closed and its widgets removed (a read may end later)."""
        return not self.query("#detail-panels") or not self.query("#panel-refunds")

    def _panel(self, panel_id: str, content: RenderableType | None) -> None:
        """Fill a panel, or hide it when the charge has nothing for it."""
        found = self.query(f"#panel-{panel_id}")
        if not found:  # the screen is closing: its widgets are being removed
            return
        panel = found.first(Static)
        if content is None:
            panel.display = False
            return
        panel.update(content)
        panel.display = True

    def _heading(self) -> Text:
        wire = self._wire
        heading = Text.assemble(("Charge ", "bold"), Text(safe(self.charge_id)))
        if wire:
            heading.append("  ")
            heading.append_text(_text(wire.get("charge_type")))
            heading.append("  ")
            heading.append_text(fmt.status(wire.get("status")))
            heading.append("  ")
            heading.append_text(_money(wire.get("total_amount")))
        return heading

    def _render_summary(self) -> None:
        wire = self._wire
        if not wire:
            return
        reversal = wire.get("reversal_flag")
        rows: list[tuple[str, RenderableType]] = [
            ("Charge id", _text(wire.get("charge_id"))),
            ("Status", fmt.status(wire.get("status"))),
            ("Result code", fmt.result_code(wire.get("result_code"))),
            ("Result text", _text(wire.get("result_text"))),
            ("Type", _text(wire.get("charge_type"))),
            ("Amount", _money(wire.get("total_amount"))),
            (
                "Reversal",
                _text(None)
                if reversal is None
                else Text("yes (refunded in full)" if reversal else "no"),
            ),
            ("Account", _text(wire.get("account_id"))),
            ("Merchant", _text(wire.get("merchant_id"))),
            ("Authorization code", _text(wire.get("authorization_code"))),
        ]
        original = wire.get("original_charge_id")
        if original:
            rows.append(
                (
                    "Captured authorization",
                    Text.assemble(Text(safe(original)), ("  o opens", "dim")),
                )
            )
        if self._is_authorization() or self._capture_id:
            if self._capture_id:
                capture: Text = Text.assemble(Text(safe(self._capture_id)), ("  o opens", "dim"))
            else:
                capture = Text(self._capture_lookup or "not captured yet", style="dim")
            rows.append(("Capture", capture))
        self._panel("summary", _rows_table(rows))

    def _render_payment(self) -> None:
        method = as_mapping(self._wire.get("payment_method"))
        if not method:
            self._panel("payment", _rows_table([("Method", _text(None))]))
            return
        is_card = method.get("method") == "card" or "card_number" in method
        contact = as_mapping(method.get("contact"))
        name = " ".join(str(contact[k]) for k in ("first_name", "last_name") if contact.get(k))
        rows: list[tuple[str, RenderableType]] = [
            ("Method", _text(method.get("method"))),
            ("Brand" if is_card else "Account type", _text(method.get("type"))),
            ("Number", _text(method.get("card_number") or method.get("account_number"))),
        ]
        if "expiration_date" in method:
            rows.append(("Expires", _text(method.get("expiration_date"))))
        rows.append(("Contact", _text(name or None)))
        for key, value in contact.items():
            if key not in {"first_name", "last_name"} and value is not None:
                rows.append((f"Contact {key}", _text(value)))
        if method.get("token_id"):
            rows.append(("Token", _text(method.get("token_id"))))
        shown = {
            "method",
            "type",
            "card_number",
            "account_number",
            "expiration_date",
            "contact",
            "token_id",
        }
        for key, value in method.items():
            if key not in shown and value is not None:
                rows.append((key, _text(value)))
        if self._wire.get("tokenize") is not None:
            rows.append(("Tokenize", _text(self._wire.get("tokenize"))))
        self._panel("payment", _rows_table(rows))

    def _render_processor(self) -> None:
        messages = as_mapping(self._wire.get("processor_messages"))
        labels = {"avs_response": "AVS", "cv_response": "CV", "message": "Message"}
        rows: list[tuple[str, RenderableType]] = [
            (label, _text(messages.get(key))) for key, label in labels.items()
        ]
        rows += [(k, _text(v)) for k, v in messages.items() if k not in labels and v is not None]
        self._panel("processor", _rows_table(rows))

    def _render_fees(self) -> None:
        wire = self._wire
        self._panel(
            "fees",
            _rows_table(
                [
                    ("Convenience fee", _money(wire.get("convenience_fee"))),
                    ("Supplemental fee", _money(wire.get("supplemental_fee"))),
                    ("Invoice number", _text(wire.get("invoice_number"))),
                    ("PO number", _text(wire.get("po_number"))),
                ]
            ),
        )

    def _render_timestamps(self) -> None:
        now = self._host.now()

        def when(key: str) -> Text:
            value = as_datetime(self._wire.get(key))
            if value is None:
                return _text(self._wire.get(key))
            return Text.assemble(
                fmt.timestamp(value), " UTC", (f"  {fmt.age(value, now)} ago", "dim")
            )

        self._panel(
            "timestamps",
            _rows_table(
                [
                    ("Charged", when("charge_timestamp")),
                    ("Last updated", when("last_updated_timestamp")),
                ]
            ),
        )

    def _render_attributes(self) -> None:
        attributes = as_mapping(self._wire.get("attributes"))
        if not attributes:
            self._panel("attributes", Text("none", style="dim"))
            return
        rows: list[tuple[str, RenderableType]] = []
        for key, values in attributes.items():
            items = values if isinstance(values, list | tuple) else [values]
            rows.append((key, Text(", ").join(_text(v) for v in items)))
        self._panel("attributes", _rows_table(rows))

    def _render_tags(self) -> None:
        tags = self._wire.get("tags") or []
        if isinstance(tags, str):
            tags = parse_tags(tags)  # the older comma-string form
        if not tags:
            self._panel("tags", Text("none", style="dim"))
            return
        self._panel("tags", Text("  ").join(Text(safe(tag), style="reverse") for tag in tags))

    def _render_chargebacks(self) -> None:
        chargebacks = self._wire.get("chargebacks")
        if not chargebacks:
            self._panel("chargebacks", None)
            return
        data = as_mapping(chargebacks)
        items = [as_mapping(i) for i in data.get("items") or ()]
        rest = {k: v for k, v in data.items() if k not in {"total_amount", "items"}}
        rows: list[tuple[str, RenderableType]] = [
            ("Total charged back", _money(data.get("total_amount"))),
            ("Chargebacks", Text(str(len(items)))),
        ]
        rows += [(k, _text(v)) for k, v in rest.items()]
        # Each chargeback as its own block of rows rather than a table: a chargeback id, a
        # reason sentence and a date do not fit side by side in 80 columns.
        known = {"chargeback_id", "amount", "reason_code", "reason", "status"}
        for item in items:
            rows.append(("", Text("")))
            reason = Text(" ").join(
                t for t in (_text(item.get("reason_code")), _text(item.get("reason"))) if t.plain
            )
            rows += [
                ("Chargeback id", _text(item.get("chargeback_id"))),
                ("Amount", _money(item.get("amount"))),
                ("Reason", reason),
                ("Status", _text(item.get("status"))),
                ("Date", _when(item.get("chargeback_timestamp"))),
            ]
            rows += [
                (k, _when(v) if k.endswith("timestamp") else _text(v))
                for k, v in item.items()
                if k not in known and k != "chargeback_timestamp" and v is not None
            ]
        self._panel("chargebacks", _rows_table(rows))

    def _render_return(self) -> None:
        data = as_mapping(self._wire.get("return"))
        if not data:
            self._panel("return", None)
            return
        rows: list[tuple[str, RenderableType]] = [
            ("Return code", _text(data.get("return_code"))),
            ("Reason", _text(data.get("reason"))),
            ("Returned", _when(data.get("return_timestamp"))),
        ]
        known = {"return_code", "reason", "return_timestamp"}
        rows += [(k, _text(v)) for k, v in data.items() if k not in known]
        self._panel("return", _rows_table(rows))

    def _render_line_items(self) -> None:
        items = [as_mapping(i) for i in self._wire.get("line_items") or ()]
        if not items:
            self._panel("line-items", None)
            return
        self._panel("line-items", _columns_table(items, []))

    def _render_other(self) -> None:
        """Fields this screen does not know, shown literally so nothing the API says is hidden."""
        rows = [
            (key, _text(value))
            for key, value in self._wire.items()
            if key not in KNOWN_FIELDS and value is not None
        ]
        self._panel("other", _rows_table(rows) if rows else None)

    def _render_distributions(self) -> None:
        tree = self.query_one(DistributionTree)
        tree.display = True
        distributions = self._wire.get("distributions")
        if distributions is None:
            tree.show_not_loaded()
        else:
            tree.show_distributions(distributions, charge_id=self.charge_id)

    # ------------------------------------------------------------------ actions

    def header_account(self) -> str | None:
        account = self._wire.get("account_id")
        return str(account) if account else None

    def action_subject(self, action: str) -> object | None:
        """Every registered action here acts on the open charge (None until it is read)."""
        return self.charge

    def action_target(self, action: str) -> str | None:
        return self.charge_id

    def disabled_reason(self, action: str) -> str | None:
        if action == "distribute" and self._distributing:
            return "Distributing: waiting for the answer"
        return super().disabled_reason(action)

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Links only show when they lead somewhere (the registry decides the rest)."""
        if action == "open_authorization":
            return bool(self._wire.get("original_charge_id"))
        if action == "open_capture":
            return bool(self._capture_id)
        if action in {"toggle_json", "copy_id", "load_distributions"}:
            return True if self.charge is not None or action == "copy_id" else None
        return True

    def action_back(self) -> None:
        self.dismiss()

    def action_refresh(self) -> None:
        self._load(self._expand)

    def action_load_distributions(self) -> None:
        """Read the charge again with `expand=distributions` (the view stays until it answers)."""
        self._load("distributions")
        self.query_one(DistributionTree).focus()

    def action_toggle_json(self) -> None:
        json_mode = not self.has_class("-json")
        self.set_class(json_mode, "-json")
        if json_mode:
            self.query_one(JsonView).focus()
        else:
            self.query_one("#detail-panels").focus()

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.charge_id)
        self.notify(f"Copied charge id {self.charge_id}", title="Clipboard", markup=False)

    def action_open_authorization(self) -> None:
        original = self._wire.get("original_charge_id")
        if original:
            self.post_message(messages.OpenCharge(str(original)))

    def action_open_capture(self) -> None:
        if self._capture_id:
            self.post_message(messages.OpenCharge(self._capture_id))

    async def _money_action(self, action: str) -> None:
        """Open the dialog of a money action (`check_action` already asked the registry)."""
        from paytui.ui.screens.modals.capture import CaptureModal
        from paytui.ui.screens.modals.edit_tags import EditTagsModal
        from paytui.ui.screens.modals.refund import RefundModal

        modal = {"capture": CaptureModal, "refund": RefundModal, "edit": EditTagsModal}[action]

        # Fresh afterwards without a callback: the dialog publishes `app.charges_changed`.
        await self.app.push_screen(modal(self.charge_id))

    def action_distribute(self) -> None:
        self._distribute()

    @work(exclusive=True, group="charge-detail-distribute")
    async def _distribute(self) -> None:
        """Distribute through the app's one executor and journal (intent first, one send, a
        read-back of the charge's distribution items when the answer is lost); the key stays
        disabled until the answer is in. The tree is read again either way."""
        from paytui.actions import ActionError

        self._distributing = True
        self.refresh_bindings()
        try:
            executor = await self.app.actions.executor()
            outcome = await executor.distribute(self.charge_id)
        except ActionError as exc:
            self.notify(exc.message, title="Distribute", severity="warning", markup=False)
        except ApiError as exc:
            self.notify(
                f"Could not distribute: {exc}", title="Distribute", severity="error", markup=False
            )
        else:
            if outcome.succeeded:
                self.app.charges_changed_by(self.charge_id)
                self.notify(
                    f"Added to distribution {outcome.result_id}", title="Distribute", markup=False
                )
            else:
                self.notify(
                    f"Could not distribute: {outcome.message or outcome.state}",
                    title="Distribute",
                    severity="error" if outcome.state == "failed" else "warning",
                    markup=False,
                )
        finally:
            self._distributing = False
            self.refresh_bindings()
        if self.is_attached:
            self._load("distributions")

    async def action_capture(self) -> None:
        await self._money_action("capture")

    async def action_refund(self) -> None:
        await self._money_action("refund")

    async def action_edit(self) -> None:
        await self._money_action("edit")


__all__ = ["KNOWN_FIELDS", "ChargeDetailScreen"]
