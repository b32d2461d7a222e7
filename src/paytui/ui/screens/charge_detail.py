"""Everything about one charge: its fields, chargebacks, return, links and distributions.

The screen renders from the charge's wire-shaped dump (`model_dump(by_alias=True)`) rather than
from model attributes. Two reasons: support staff compare what they see with API bodies in
tickets, so panels use the wire names' meaning; and anything the model keeps as an extra field
(the service may add fields before we model them) lands naturally in the "Other" panel instead
of being dropped. Every value from the API is shown as `rich.text.Text`, never parsed as markup.

Why one module of more than 800 lines: the screen is one charge's page; its panels are already
built in `ui/widgets/charge_panels.py`, and what remains is the screen's loading, keys and actions,
which share its state (the charge read, its expansion, the capture lookup). Split when a panel
grows keys of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias, TypeVar, cast

from rich.console import RenderableType
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical, VerticalScroll
from textual.widgets import Static

from paytui.api.errors import ApiError, NotFoundError
from paytui.text import safe
from paytui.ui import format as fmt
from paytui.ui import messages
from paytui.ui.claims import claim_or_release, claim_sentence, read_claims
from paytui.ui.running_app import paytui_app
from paytui.ui.screens.base import PaytuiScreen
from paytui.ui.textual_fixes import Late
from paytui.ui.widgets import charge_panels as panels
from paytui.ui.widgets.charge_table import CLAIMED, CLAIMED_MINE, PRESENT
from paytui.ui.widgets.distribution_tree import DistributionTree, as_mapping
from paytui.ui.widgets.errors import error_detail
from paytui.ui.widgets.footer import PaytuiFooter
from paytui.ui.widgets.header import PaytuiHeader
from paytui.ui.widgets.json_view import JsonView
from paytui.ui.widgets.live import LiveStatic

if TYPE_CHECKING:
    from textual.worker import Worker

    from paytui.actions.claims import Claim
    from paytui.api.client import PaymentClient
    from paytui.api.models import Page, Refund
    from paytui.api.queries import RefundQuery
    from paytui.charge_state import RefundPosition

#: What `get_charge` may expand; None reads the charge alone.
Expand = Literal["distributions", "all"] | None


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

#: Seconds a read may take before the spinner shows (a quicker answer paints once, whole).
SPINNER_AFTER = 0.15
#: Seconds the refunds may answer after the charge and still join its frame.
REFUNDS_WAIT = 0.25

#: A refunds read: the first page, or the exception that kept it from being read.
RefundsRead: TypeAlias = "Page[Refund] | Exception"
#: A claim read: (this agent, the charge's claim or None), or None when it failed.
ClaimRead: TypeAlias = "tuple[str, Claim | None] | None"

_T = TypeVar("_T")


def _on_answer(read: asyncio.Future[_T], arrived: Callable[[asyncio.Future[_T]], None]) -> None:
    """`arrived(read)` now if the read has answered (the same frame), else when it does."""
    if read.done():
        arrived(read)
    else:
        read.add_done_callback(arrived)


#: Below this width the panel grids hold one column.
_WIDTH_NARROW = 100


class ChargeDetailScreen(PaytuiScreen[None]):
    """One charge, loaded with its distributions; pushed by the search screen on enter."""

    CSS_PATH = "charge_detail.tcss"
    #: Its group in docs/keys.md and the keymap (help says "This screen").
    KEYS_TITLE = "Charge detail"
    COMMAND_SCOPE = "charge"

    #: (key, action, description, id, tooltip): data, so the help screen and keymap can use it.
    BINDINGS: ClassVar[list[BindingType]] = [
        *[
            Binding(
                key,
                action,
                description,
                id=f"detail.{binding_id}",
                tooltip=tooltip,
                # Off the one-line footer (it is full); in help and the palette.
                show=action != "load_all",
            )
            for key, action, description, binding_id, tooltip in (
                # The screen's own money actions first: the footer shows them first (80 columns).
                (
                    "c",
                    "capture",
                    "Capture",
                    "capture",
                    "Capture this authorization (needs urn:v2:charges:all)",
                ),
                (
                    "r",
                    "refund",
                    "Refund",
                    "refund",
                    "Refund this charge (needs urn:v2:refunds:all)",
                ),
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
                (
                    "ctrl+e",
                    "edit_refund",
                    "Edit refund tags",
                    "edit_refund",
                    "Edit the tags and attributes of this charge's refund (several: pick one in "
                    "Refunds; needs urn:v2:refunds:all)",
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
                (
                    "X",
                    "load_all",
                    "Everything",
                    "load_all",
                    "Read the charge with expand=all and say what the expansion added",
                ),
                ("J", "toggle_json", "JSON", "json", "Show or hide the raw JSON of the charge"),
                ("y", "copy_id", "Copy id", "copy_id", "Copy the charge id to the clipboard"),
                (
                    "ctrl+r",
                    "refresh",
                    "Reload",
                    "reload",
                    "Read the charge again (retries an error)",
                ),
            )
        ],
        Binding(
            "Y",
            "copy_json",
            "Copy JSON",
            id="detail.copy_json",
            tooltip="Copy the charge as JSON",
            show=False,
        ),
        Binding(
            "z",
            "duplicates",
            "Charged twice?",
            id="detail.duplicates",
            tooltip="Likely duplicates of this charge (same card, amount, account)",
            show=False,
        ),
        Binding(
            "E",
            "evidence",
            "Evidence pack",
            id="detail.evidence",
            tooltip="The chargeback's evidence pack: arranged as its reason asks, with what is"
            " missing (docs/evidence.md)",
        ),
        Binding(
            "H",
            "customer",
            "Customer",
            id="detail.customer",
            tooltip="The payer's charges, refunds, chargebacks and tokens, with totals",
            show=False,
        ),
        Binding(
            "K",
            "conversations",
            "Conversations",
            id="detail.conversations",
            tooltip="The conversations about this charge (needs urn:v2:conversations:all)",
            show=False,
        ),
        Binding(
            "m",
            "claim",
            "Claim",
            id="detail.claim",
            tooltip="Claim this charge (others see it and are warned), or release yours",
            show=False,
        ),
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
        #: The wire fields before `expand=all` was asked (None: not asked), to say what it added.
        self._before_all: dict[str, Any] | None = None
        #: The refunds of this charge shown in the refunds panel (those naming this charge).
        self._refunds: list[Any] = []
        #: What the refunds read add up to (None: not read yet, or the read failed).
        self.refund_position: RefundPosition | None = None
        self.error: str | None = None
        #: The refunds and claim reads of the latest `_load` (an earlier one answering late is
        #: ignored; `m` drops the claim read, its own answer is newer).
        self._refunds_pending: asyncio.Future[RefundsRead] | None = None
        self._claim_pending: asyncio.Future[ClaimRead] | None = None
        #: Who made each refund shown ("by ana", "outside paytui"), and the read they name.
        self._makers: dict[str, str] = {}
        self._last_refunds: RefundsRead | None = None

    def spoken_title(self) -> str:
        """Said on arrival in screen-reader mode (`ui/announcer.py`); the panels follow."""
        return f"Charge {safe(self.charge_id)}"

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield PaytuiHeader()
        with Vertical(id="detail-body"):
            yield LiveStatic(self._heading(), id="detail-heading")
            claim = Static(id="detail-claim")
            claim.display = False
            yield claim
            others = Static(id="detail-presence")
            others.display = False
            yield others
            yield LiveStatic(id="detail-error")
            expanded = Static(id="detail-expanded")
            expanded.display = False
            yield expanded
            with VerticalScroll(id="detail-panels"):
                # Pairs sit in two-column grids; panels whose content runs wide get a full row.
                # (Textual's grid does not wrap a column-spanning cell to the next row, so the
                # wide panels cannot live in the same grid as the pairs.)
                for container_id, panels in PANEL_LAYOUT:
                    with Grid(id=container_id, classes="panel-grid"):
                        for panel_id, title in panels:
                            panel = LiveStatic(id=f"panel-{panel_id}", classes="panel")
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
        # Who else has this charge open, live; and the others see this agent viewing it.
        self.app.presence_changed.subscribe(self, lambda _people: self._show_presence())
        actions = self.app.session.actions_if_built
        if actions is not None:  # built after the first page; a detail comes later
            actions.show_presence(self, self.charge_id)
        self._show_presence()

    def on_unmount(self) -> None:
        actions = self.app.session.actions_if_built
        if actions is not None:
            actions.hide_presence(self)

    def _show_presence(self) -> None:
        """The line under the heading: "◉ bob refunding 40.00, ana viewing — now" (hidden when
        nobody else has it open)."""
        from paytui.actions.presence import presence_words

        found = self.query("#detail-presence")
        if not found:
            return
        line = found.first(Static)
        words = presence_words(self.app.others_on(self.charge_id))
        line.display = bool(words)
        if words:
            line.update(Text(f"{PRESENT} {safe(words)} — now", style=fmt.tone("bold warning")))

    def _charges_changed(self, charge_ids: tuple[str, ...]) -> None:
        """This charge, its capture or its authorization changed: read it again."""
        related = {self.charge_id, self._capture_id, self._wire.get("original_charge_id")}
        related |= {refund.refund_id for refund in self._refunds}
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

    # ------------------------------------------------------------------ keys typed ahead

    def holds_key(self, key: str) -> bool:
        """Until the charge is first shown, a key of this screen waits for it (the App holds
        it, and every key typed after it: `paytui.ui.held_keys`): enter on the list and `r`
        typed at once opened the charge and dropped the `r`, which found no charge to refund.
        The app's keys (1-5, `?`) and escape are taken at once when nothing waits before them."""
        if self.charge is not None:
            return False
        loading = (w for w in self.workers if w.group == "charge-detail-load")
        if all(worker.is_finished for worker in loading):
            return False
        from paytui.ui.held_keys import bound_to

        bound = bound_to(self, key)
        return bound is not None and bound.node is not self.app and bound.action != "back"

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "charge-detail-load" and event.worker.is_finished:
            paytui_app(self).release_held_keys()

    # ------------------------------------------------------------------ loading

    # exit_on_error off: a read ending after its screen closed (app shutting down) is no crash.
    @work(exclusive=True, group="charge-detail-load", exit_on_error=False)
    async def _load(self, expand: Expand) -> None:
        """Read the charge; on error keep whatever is shown and say how to retry.

        The charge, its refunds and its claim are read together and shown at once when they
        answer together: each arriving on its own re-laid and repainted every panel (three
        frames for one charge opened, the most of opening one, `docs/performance.md`). The
        refunds may take `REFUNDS_WAIT` more than the charge and the journal nothing more; later
        they land on their own, so a slow refunds list (its retries) or journal never holds the
        charge back. The spinner shows only when the charge is slow (`SPINNER_AFTER`).
        """
        self._expand = expand
        body = self.query_one("#detail-panels")
        spinner = Late(self, SPINNER_AFTER, lambda: setattr(body, "loading", True))
        refunds: asyncio.Future[RefundsRead] | None = None
        claim: asyncio.Future[ClaimRead] | None = None
        read = False
        try:
            client = await self._connect()
            if client is None:
                return
            refunds = asyncio.ensure_future(self._read_refunds(client))
            claim = asyncio.ensure_future(self._read_claim_now())
            charge = await client.get_charge(self.charge_id, expand=expand)
            await asyncio.wait({refunds}, timeout=REFUNDS_WAIT)
            read = True
        except NotFoundError:
            self._show_error(f"No charge {self.charge_id}", not_found=True)
            return
        except ApiError as exc:
            self._show_error(f"Could not load the charge: {error_detail(exc)}")
            return
        finally:
            spinner.stop()
            body.loading = False
            if not read and refunds is not None and not refunds.done():
                refunds.cancel()
        if self._widgets_gone():  # the screen closed while the charge was read
            return
        self._show_error(None)
        self._show_charge(charge)
        self._refunds_pending, self._claim_pending = refunds, claim
        _on_answer(refunds, self._refunds_read)
        _on_answer(claim, self._claim_read)
        self.post_message(messages.AccountInFocus(self._wire.get("account_id")))
        if self._needs_capture_lookup():
            self._find_capture()

    def _refunds_read(self, read: asyncio.Future[RefundsRead]) -> None:
        """The refunds, when they are the latest load's (an earlier one may answer later)."""
        if read is self._refunds_pending and not read.cancelled():
            self._show_refunds(read.result())

    # ------------------------------------------------------------------ claims

    def _claim_read(self, read: asyncio.Future[ClaimRead]) -> None:
        """The claim, when it is the latest read's (a reload's answer may come before the one
        it replaced)."""
        if read is not self._claim_pending or read.cancelled():
            return
        if (found := read.result()) is not None:
            self._show_claim(*found)

    async def _read_claim_now(self) -> ClaimRead:
        """(this agent, the charge's claim or None); None when the journal could not be read."""
        try:
            owner, found = await read_claims(self.app, [self.charge_id])
        except Exception:
            return None
        return owner, found.get(self.charge_id)

    def _show_claim(self, owner: str, claim: Claim | None) -> None:
        """The line under the heading: "Claimed by support-07 on ws-17 since 14:02 UTC — …" or
        "Claimed by you — …"; hidden when nobody claimed it."""
        found = self.query("#detail-claim")
        if not found:  # the screen closed while the journal was read
            return
        line = found.first(Static)
        if claim is None:
            line.display = False
            return
        mine = claim.mine(owner)
        sign = f"{CLAIMED_MINE if mine else CLAIMED} "
        style = fmt.tone("bold accent" if mine else "bold warning")
        line.update(Text(sign + claim_sentence(claim, owner, self.app), style=style))
        line.display = True

    def action_claim(self) -> None:
        self._claim()

    @work(group="charge-detail-claim", exit_on_error=False)
    async def _claim(self) -> None:
        """`m`: claim this charge for this agent, or release it when it is ours."""
        self._claim_pending = None  # a read started before this press is older than its answer
        now = await claim_or_release(self.app, self.charge_id)
        if now is not None:
            self._show_claim(*now)

    def _refund_query(self) -> RefundQuery:
        """This charge's refunds: what is asked, and what each refund read is held to."""
        from paytui.api.queries import RefundQuery

        return RefundQuery(charge_id=self.charge_id)

    async def _read_refunds(self, client: PaymentClient) -> RefundsRead:
        """The first page of this charge's refunds, or the error that kept it from being read."""
        try:
            return await client.search_refunds_page(self._refund_query(), limit=50)
        except Exception as exc:  # said in the refunds panel; the charge is still shown
            return exc

    def _show_refunds(self, read: RefundsRead) -> None:
        """The refunds panel (hidden when there are none) and the heading's refund position."""
        if self._widgets_gone():  # the screen closed while the refunds were read
            return
        if isinstance(read, Exception):
            self.refund_position = None
            self.query_one("#detail-heading", Static).update(self._heading())
            self._panel(
                "refunds",
                Text(safe(f"Could not load the refunds: {error_detail(read)}"), style="bold"),
            )
            return
        page = read
        query = self._refund_query()
        # Only refunds that say they are of this charge: a service ignoring the filter must not
        # lend this charge another's refunds.
        refunds = [refund for refund in page.items if not query.contradicted_by(refund)]
        self._refunds = refunds
        self.refresh_bindings()
        note = page.ignored_note
        self._show_refund_position(refunds, page, note)
        if not refunds and note is None:
            self._panel("refunds", None)
            return
        rows: list[tuple[str, RenderableType]] = []
        if note is not None:
            rows.append(("", Text(safe(f"{note}; only this charge's are listed"), style="dim")))
        self._last_refunds = read
        for refund in refunds:
            line = Text.assemble(
                Text(fmt.money(refund.total_amount)),
                "  ",
                fmt.status(refund.status),
                "  ",
                Text(fmt.timestamp(refund.refund_timestamp)),
            )
            maker = self._makers.get(refund.refund_id)
            if maker:  # who made it: the journal's agent, or "outside paytui"
                line.append("  ")
                line.append(Text(safe(maker)))
            if refund.reason:
                line.append("  ")
                line.append(Text(safe(refund.reason), style="dim"))
            rows.append((safe(refund.refund_id), line))
        unnamed = [r.refund_id for r in refunds if r.refund_id not in self._makers]
        if unnamed:
            self._read_makers(unnamed)
        if note is None and page.total is not None and page.total > len(page.items):
            rows.append(("", Text(f"… {page.total - len(page.items)} more (palette: Refunds)")))
        self._panel("refunds", panels.rows_table(rows))

    @work(group="charge-detail-makers", exit_on_error=False)
    async def _read_makers(self, refund_ids: list[str]) -> None:
        """Who made these refunds (the journal), then the panel again with the names."""
        try:
            found = await self.app.session.actions.who_made(refund_ids)
        except Exception:
            return  # the panel stays without names; the journal is said elsewhere
        self._makers.update(found)
        if self._last_refunds is not None and not self._widgets_gone():
            self._show_refunds(self._last_refunds)

    def _show_refund_position(self, refunds: list[Any], page: Any, note: str | None) -> None:
        """Refunded so far and left to refund, in the heading: whole only when every refund of
        this charge was read from a list that honoured the filter (`paytui.charge_state`)."""
        from paytui.charge_state import refunds_position

        whole = note is None and not page.has_more and (page.total or 0) <= len(page.items)
        self.refund_position = refunds_position(
            self.charge_id, self._wire.get("total_amount"), refunds, complete=whole
        )
        self.query_one("#detail-heading", Static).update(self._heading())

    def state_line(self) -> Text:
        """The heading's second line: state words, then refunded so far and left to refund."""
        from paytui.charge_state import UNKNOWN, state_words
        from paytui.ui.widgets.charge_table import UNKNOWN_STATE_WORDS, state_text

        words = state_words(self.charge, refunds=self.refund_position, capture_id=self._capture_id)
        # The heading has room for words: "refunds not read yet", not a lone "?" (which a
        # screen reader says as "question mark").
        line = state_text([UNKNOWN_STATE_WORDS if word == UNKNOWN else word for word in words])
        position = self.refund_position
        if position is None or self._is_authorization():
            return line  # an authorization is not refunded (its capture is)
        if line:
            line.append("  ")
        money = fmt.money
        from paytui.actions.registry import why_not

        refusal = why_not("refund", self.charge)
        if refusal is not None and position.complete:
            # Nothing is "left to refund" on a charge the registry refuses to refund (`?` and
            # the palette say why, from the same rule).
            line.append(f"refunded {money(position.refunded)}; not refundable")
        elif position.complete and position.left is not None:
            refunded, left = money(position.refunded), money(position.left)
            line.append(f"refunded {refunded}, {left} left to refund")
        else:
            line.append(
                f"refunded at least {money(position.refunded)} (not every refund could be read)",
                style="bold",
            )
        return line

    async def _connect(self) -> PaymentClient | None:
        """The app's client; a failed connection (any error: the embedded sandbox may not have
        started) becomes the inline error with a retry, never a crashed worker."""
        try:
            return await self.app.get_client()
        except Exception as exc:
            self._show_error(f"Could not connect: {error_detail(exc)}")
            return None

    @work(exclusive=True, group="charge-detail-capture")
    async def _find_capture(self) -> None:
        """For an authorization without `captured_charge_id`, ask search for its capture.

        A charge is named as the capture only when its own `original_charge_id` says so, and
        "not captured yet" only when the service visibly honoured the filter
        (`paytui.api.captures`); a service ignoring it leaves the answer "unknown".
        """
        from paytui.api.captures import find_capture

        self._capture_lookup = "searching…"
        self._render_summary()
        try:
            client = await self.app.get_client()
            lookup = await find_capture(client, self.charge_id)
        except ApiError as exc:
            self._capture_lookup = f"unknown (lookup failed: {error_detail(exc)})"
        else:
            self._capture_id = lookup.capture_id
            self._capture_lookup = None if lookup.captured else lookup.describe()
        if self._widgets_gone():  # the screen closed while the capture was looked up
            return
        self._render_summary()
        self.query_one("#detail-heading", Static).update(self._heading())
        self.refresh_bindings()

    def _is_authorization(self) -> bool:
        """An authorization, also when the service leaves out `charge_type` (`is_authorization`)."""
        from paytui.api.rows import is_authorization

        wire = self._wire
        return is_authorization(
            wire.get("charge_type"), wire.get("result_code"), wire.get("total_amount")
        )

    def _needs_capture_lookup(self) -> bool:
        """An authorization the registry would capture (any status it does not refuse, one
        paytui does not know included): whether a capture names it is looked up."""
        from paytui.actions.registry import why_not

        return (
            self._is_authorization()
            and why_not("capture", self.charge) is None
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
        self._render_panels()
        self._render_distributions()
        # Only what the API sent (unset model defaults would read as nulls the service never said);
        # extra fields are "set", so they show.
        self.query_one(JsonView).set_data(
            charge.model_dump(mode="json", by_alias=True, exclude_unset=True)
        )
        self._show_expansion()
        self.refresh_bindings()

    def _show_expansion(self) -> None:
        """After `expand=all`: one line naming what the expansion added to the charge (fields
        absent or empty before), which the panels, the tree and "Other fields" then show."""
        line = self.query_one("#detail-expanded", Static)
        before = self._before_all
        if self._expand != "all" or before is None:
            line.display = False
            return
        added = [
            key
            for key, value in self._wire.items()
            if value is not None and (before.get(key) is None or (value and not before.get(key)))
        ]
        if added:
            text = "expand=all added: " + ", ".join(added)
        else:
            text = "expand=all added nothing beyond what was shown"
        line.update(Text(safe(text), style="dim"))
        line.display = True

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

    def case_line(self) -> Text:
        """The first line of the detail on a charged-back charge: the case, the reason it was
        opened (`paytui.today.cases`: reason code and the network's words, stage, status, age,
        time left), above the fold at 80x24; "" on a charge without a chargeback."""
        from paytui.config.model import TodayPrefs
        from paytui.today.cases import first_case

        if self.charge is None:
            return Text()
        connection = paytui_app(self).session.connection
        prefs = connection.today if connection is not None else TodayPrefs()
        now = self.app.now()
        case, count = first_case(self.charge, now, prefs)
        if case is None:
            return Text()
        line = Text.assemble(("Case ", "bold"), Text(safe(case.line(now))))
        if count > 1:
            more = count - 1
            line.append(f" (+{more} more chargeback{'s' if more > 1 else ''}: Chargebacks panel)")
        return line

    def _heading(self) -> Text:
        wire = self._wire
        heading = Text()
        case = self.case_line()
        if case:
            heading.append_text(case)
            heading.append("\n")
        heading.append_text(Text.assemble(("Charge ", "bold"), Text(safe(self.charge_id))))
        if wire:
            heading.append("  ")
            heading.append_text(panels.value_text(fmt.charge_type_name(wire.get("charge_type"))))
            heading.append("  ")
            heading.append_text(fmt.status(wire.get("status")))
            heading.append("  ")
            heading.append_text(panels.money_text(wire.get("total_amount")))
            state = self.state_line() if self.charge is not None else Text()
            if state:
                heading.append("\n")
                heading.append_text(state)
        return heading

    def _render_summary(self) -> None:
        self._panel(
            "summary",
            panels.summary_panel(
                self._wire,
                is_authorization=self._is_authorization(),
                capture_id=self._capture_id,
                capture_lookup=self._capture_lookup,
            ),
        )

    def _render_panels(self) -> None:
        """Every field panel from the wire dump (`paytui.ui.widgets.charge_panels`)."""
        self._render_summary()
        wire = self._wire
        for panel_id, content in (
            ("payment", panels.payment_panel(wire)),
            ("chargebacks", panels.chargebacks_panel(wire)),
            ("return", panels.return_panel(wire)),
            ("processor", panels.processor_panel(wire)),
            ("fees", panels.fees_panel(wire)),
            ("timestamps", panels.timestamps_panel(wire, self.app.now())),
            ("attributes", panels.attributes_panel(wire)),
            ("tags", panels.tags_panel(wire)),
            ("line-items", panels.line_items_panel(wire)),
            ("other", panels.other_panel(wire, getattr(self.charge, "unreadable_fields", None))),
        ):
            self._panel(panel_id, content)

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
        """Every registered action here acts on the open charge (None until it is read); a
        capture found by its `original_charge_id` counts as the charge's capture."""
        if action == "edit_refund":
            return self._refunds[0] if self._refunds else None
        charge = self.charge
        if charge is not None and self._capture_id and not charge.captured_charge_id:
            return cast(object, charge.model_copy(update={"captured_charge_id": self._capture_id}))
        return cast(object | None, charge)

    def action_target(self, action: str) -> str | None:
        if action == "edit_refund":
            return self._refunds[0].refund_id if len(self._refunds) == 1 else None
        return self.charge_id

    def disabled_reason(self, action: str) -> str | None:
        if action == "distribute" and self._distributing:
            return "Distributing: waiting for the answer"
        return super().disabled_reason(action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The registry decides, as everywhere; a refund edit only shows with a refund to edit."""
        if action == "edit_refund" and not self._refunds:
            return False
        return super().check_action(action, parameters)

    def check_own_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Links only show when they lead somewhere (the registry decides the rest)."""
        if action == "open_authorization":
            return bool(self._wire.get("original_charge_id"))
        if action == "open_capture":
            return bool(self._capture_id)
        if action == "conversations":
            from paytui.ui.screens.conversations import may_read

            return may_read(self.app)
        if action in {"toggle_json", "copy_id", "load_distributions", "copy_json", "load_all"}:
            return True if self.charge is not None or action == "copy_id" else None
        return True

    def action_back(self) -> None:
        self.dismiss()

    def action_refresh(self) -> None:
        self._load(self._expand)

    def action_load_all(self) -> None:
        """Read the charge again with `expand=all`; the line under the heading says what it
        added (the spec: "expand: distributions or all")."""
        if self._before_all is None:
            self._before_all = dict(self._wire)
        self._load("all")

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

    def curl_request(self) -> tuple[str, str, None, None]:
        """The request behind this view ("copy as curl")."""
        return ("GET", f"/v2/charges/{self.charge_id}", None, None)

    def action_copy_json(self) -> None:
        from paytui.ui.clipboard import copy_json

        copy_json(self.app, self.charge, "charge")

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.charge_id)
        self.notify(f"Copied charge id {self.charge_id}", title="Clipboard", markup=False)

    async def action_customer(self) -> None:
        from paytui.ui.screens.customer import customer_of

        if self.charge is not None:
            await self.app.push_screen(customer_of(self.charge))

    async def action_conversations(self) -> None:
        from paytui.ui.screens.conversations import ConversationsScreen

        await self.app.push_screen(ConversationsScreen(charge_id=self.charge_id))

    async def action_evidence(self) -> None:
        from paytui.ui.screens.evidence import EvidenceScreen

        await self.app.push_screen(EvidenceScreen(self.charge_id))

    async def action_duplicates(self) -> None:
        from paytui.ui.screens.duplicates import DuplicatesScreen

        if self.charge is not None:
            await self.app.push_screen(
                DuplicatesScreen(self.charge, self.app.session.duplicate_window)
            )

    def action_open_authorization(self) -> None:
        original = self._wire.get("original_charge_id")
        if original:
            self.post_message(messages.OpenCharge(str(original)))

    def action_open_capture(self) -> None:
        if self._capture_id:
            self.post_message(messages.OpenCharge(self._capture_id))

    async def _money_action(self, action: str) -> None:
        """Open the dialog of a money action (`check_action` already asked the registry): the
        dialog of the operation the registry's action performs."""
        from paytui.actions.registry import ACTIONS
        from paytui.ui.screens.modals.dialogs import dialog_for

        operation = ACTIONS[action].operation
        assert operation is not None  # capture, refund, edit: each performs one
        # Fresh afterwards without a callback: the dialog publishes `app.charges_changed`.
        await self.app.push_screen(dialog_for(operation, self.charge_id))

    def action_distribute(self) -> None:
        self._distribute()

    @work(exclusive=True, group="charge-detail-distribute")
    async def _distribute(self) -> None:
        """Distribute through the app's one executor and journal (intent first, one send, a
        read-back of the charge's distribution items when the answer is lost); the key stays
        disabled until the answer is in. The tree is read again either way."""
        from paytui.actions import ActionError
        from paytui.actions.operation import NoParams

        self._distributing = True
        self.refresh_bindings()
        try:
            executor = await self.app.actions.executor()
            outcome = await executor.run("distribute", self.charge_id, NoParams())
        except ActionError as exc:
            self.notify(exc.message, title="Distribute", severity="warning", markup=False)
        except ApiError as exc:
            self.notify(
                f"Could not distribute: {error_detail(exc)}",
                title="Distribute",
                severity="error",
                markup=False,
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

    def opens_a_screen(self, action: str) -> bool:
        """`action` opens its operation's dialog (`dialogs.opens_dialog`): the keys typed
        after its key wait for it (`paytui.ui.held_keys`)."""
        from paytui.ui.screens.modals.dialogs import opens_dialog

        return opens_dialog(action)

    async def action_capture(self) -> None:
        await self._money_action("capture")

    async def action_refund(self) -> None:
        await self._money_action("refund")

    async def action_edit(self) -> None:
        await self._money_action("edit")

    async def action_edit_refund(self) -> None:
        """The refund's tag edit (the charge's dialog, sent to the refund); with several refunds,
        the Refunds screen of this charge, where `E` edits the highlighted one."""
        from paytui.ui.screens.modals.dialogs import dialog_for
        from paytui.ui.screens.refunds import RefundsScreen

        if len(self._refunds) == 1:
            await self.app.push_screen(dialog_for("update_refund", self._refunds[0].refund_id))
        elif self._refunds:
            await self.app.push_screen(RefundsScreen(self._refund_query()))


__all__ = ["ChargeDetailScreen"]
